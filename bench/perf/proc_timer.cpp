// A tiny process timer for bench/perf/process_bench.sh: runs commands in
// turns, RUNS times each, with stdout and stderr sent to /dev/null, and prints
// one line per run: NAME WALL_US CPU_US MAXRSS_KB (CPU = user + system time
// of the child from wait4, which a busy machine inflates far less than wall
// time; MAXRSS = the child's peak resident memory).
//
//   gpuadvise_proc_timer RUNS NAME CMD [ARGS...] [:: NAME CMD [ARGS...]]...
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Command {
    std::string name;
    std::vector<char*> argv;
};

long long micros(const timeval& t) {
    return static_cast<long long>(t.tv_sec) * 1000000LL + t.tv_usec;
}

// Runs the command once; returns false when it could not run or failed.
bool run_once(const Command& c, long long& wall_us, long long& cpu_us, long& rss_kb) {
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execvp(c.argv[0], c.argv.data());
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    if (wait4(pid, &status, 0, &usage) != pid) return false;
    const auto end = std::chrono::steady_clock::now();
    wall_us = std::chrono::duration_cast<std::chrono::microseconds>(end - start).count();
    cpu_us = micros(usage.ru_utime) + micros(usage.ru_stime);
    rss_kb = usage.ru_maxrss;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s RUNS NAME CMD [ARGS...] [:: NAME CMD [ARGS...]]...\n",
                     argv[0]);
        return 2;
    }
    const long runs = std::strtol(argv[1], nullptr, 10);
    std::vector<Command> commands;
    for (int i = 2; i < argc;) {
        Command c;
        c.name = argv[i++];
        while (i < argc && std::string_view(argv[i]) != "::") c.argv.push_back(argv[i++]);
        if (i < argc) ++i;  // "::"
        if (c.argv.empty()) {
            std::fprintf(stderr, "%s: no command for '%s'\n", argv[0], c.name.c_str());
            return 2;
        }
        c.argv.push_back(nullptr);
        commands.push_back(std::move(c));
    }
    long long wall = 0, cpu = 0;
    long rss = 0;
    for (int i = 0; i < 10; ++i)  // warm-up: page cache, dynamic loader cache
        for (const Command& c : commands) run_once(c, wall, cpu, rss);
    for (long r = 0; r < runs; ++r) {
        for (const Command& c : commands) {
            if (!run_once(c, wall, cpu, rss)) {
                std::fprintf(stderr, "%s: '%s' failed\n", argv[0], c.name.c_str());
                return 1;
            }
            std::printf("%s %lld %lld %ld\n", c.name.c_str(), wall, cpu, rss);
        }
    }
    return 0;
}
