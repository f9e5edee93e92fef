#include "support/run_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

extern char** environ;

ProcessResult run_process(const std::vector<std::string>& args, const std::string& stdin_text,
                          const std::vector<std::string>& env, double timeout_seconds,
                          Stdout stdout_mode, const std::string& cwd) {
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return {};
    // The child's environment: this one without the variables that would
    // carry the user's settings into a test or that the test sets itself,
    // then the test's own.
    const auto name_of = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
    std::vector<std::string> overridden;
    for (const auto& kv : env) overridden.push_back(name_of(kv));
    std::vector<std::string> environment;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string kv(*e);
        const std::string name = name_of(kv);
        if (name.rfind("GPUADVISE_", 0) == 0 || name == "NO_COLOR" || name == "COLUMNS" ||
            name == "XDG_CONFIG_HOME" ||
            std::find(overridden.begin(), overridden.end(), name) != overridden.end())
            continue;
        environment.push_back(kv);
    }
    if (std::find(overridden.begin(), overridden.end(), "XDG_CONFIG_HOME") == overridden.end())
        environment.emplace_back("XDG_CONFIG_HOME=/nonexistent/gpuadvise-test-config");
    environment.insert(environment.end(), env.begin(), env.end());
    std::vector<char*> envp;
    for (auto& kv : environment) envp.push_back(kv.data());
    envp.push_back(nullptr);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    // posix_spawn, not fork: glibc spawns without copying this process's page
    // tables, which under AddressSanitizer made each fork cost more than the
    // run it started.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
    if (stdout_mode == Stdout::Pipe)
        posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    else if (stdout_mode == Stdout::DevFull)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/full", O_WRONLY, 0);
    else
        posix_spawn_file_actions_addclose(&actions, 1);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
        posix_spawn_file_actions_addclose(&actions, fd);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            close(fd);
        ProcessResult failed;
        failed.exit_code = 127;  // as a shell reports a program it cannot run
        failed.err = std::string("cannot run ") + argv[0] + ": " + std::strerror(spawned);
        return failed;
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    // Write stdin without blocking forever if the child does not read it.
    signal(SIGPIPE, SIG_IGN);
    if (!stdin_text.empty()) {
        ssize_t ignored = write(in_pipe[1], stdin_text.data(), stdin_text.size());
        (void)ignored;
    }
    close(in_pipe[1]);
    ProcessResult result;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    char buffer[65536];
    bool killed = false;
    while (open_fds > 0) {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (elapsed > timeout_seconds) {
            kill(pid, SIGKILL);
            killed = true;
            break;
        }
        if (poll(fds, 2, 100) <= 0) continue;
        for (auto& f : fds) {
            if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP))) continue;
            const ssize_t n = read(f.fd, buffer, sizeof buffer);
            if (n <= 0) {
                close(f.fd);
                f.fd = -1;
                --open_fds;
            } else {
                (&f == &fds[0] ? result.out : result.err)
                    .append(buffer, static_cast<std::size_t>(n));
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0) close(f.fd);
    int status = 0;
    waitpid(pid, &status, 0);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.exit_code = killed              ? -1
                       : WIFEXITED(status) ? WEXITSTATUS(status)
                                           : 128 + WTERMSIG(status);
    return result;
}

std::string gpuadvise_test_binary() {
#ifdef GPUADVISE_BUILT_BIN
    const char* chosen = std::getenv("GPUADVISE_TEST_BIN");
    return chosen != nullptr && *chosen != '\0' ? std::string(chosen)
                                                : std::string(GPUADVISE_BUILT_BIN);
#else
    return {};
#endif
}
