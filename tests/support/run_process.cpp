#include "support/run_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

extern char** environ;

ProcessResult run_process(const std::vector<std::string>& args, const std::string& stdin_text,
                          const std::vector<std::string>& env, double timeout_seconds,
                          Stdout stdout_mode, const std::string& cwd) {
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return {};
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(in_pipe[0], 0);
        if (stdout_mode == Stdout::Pipe)
            dup2(out_pipe[1], 1);
        else if (stdout_mode == Stdout::DevFull) {
            const int full = open("/dev/full", O_WRONLY);
            dup2(full, 1);
            close(full);
        } else {
            close(1);
        }
        dup2(err_pipe[1], 2);
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            close(fd);
        std::vector<std::string> names;
        for (char** e = environ; *e != nullptr; ++e) {
            const std::string kv(*e);
            const std::string name = kv.substr(0, kv.find('='));
            if (name.rfind("GPUADVISE_", 0) == 0 || name == "NO_COLOR" || name == "COLUMNS")
                names.push_back(name);
        }
        for (const auto& n : names) unsetenv(n.c_str());
        setenv("XDG_CONFIG_HOME", "/nonexistent/gpuadvise-test-config", 1);
        for (const auto& kv : env) putenv(strdup(kv.c_str()));
        if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
        std::vector<char*> argv;
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
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
