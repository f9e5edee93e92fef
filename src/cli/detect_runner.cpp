#include "cli/detect_runner.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "gpuadvise/error.hpp"

extern char** environ;

namespace gpuadvise::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxStderrBytes = 64U << 10U;
constexpr std::size_t kMaxSysfsCards = 64;
constexpr int kMaxXpuDetails = 16;
constexpr double kReapGraceSeconds = 1.0;
// After the tool exits, what it wrote is read until its pipes stay quiet this
// long: a background child it left holding stdout must not cost the answer.
constexpr int kQuietAfterExitMs = 50;
constexpr double kDrainAfterExitSeconds = 0.5;  // at most this long, even if it keeps writing

double seconds_until(Clock::time_point t) {
    return std::chrono::duration<double>(t - Clock::now()).count();
}

Clock::time_point after(double seconds) {
    return Clock::now() +
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

void close_fd(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

// Waits until pid has exited or the deadline passes, without reaping it: its
// pid, and so its process group id, stay ours until waitpid.
bool exited_by(pid_t pid, Clock::time_point deadline) {
    for (;;) {
        siginfo_t info{};
        const int r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
        if (r == 0 && info.si_pid == pid) return true;
        if (r < 0 && errno != EINTR) return true;  // not our child any more: nothing to wait for
        if (seconds_until(deadline) <= 0) return false;
        usleep(5000);
    }
}

// Whether pid has exited (not reaped), without waiting.
bool has_exited(pid_t pid) {
    siginfo_t info{};
    const int r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    return (r == 0 && info.si_pid == pid) || (r < 0 && errno != EINTR);
}

// The processes below `root` (pid -> parent from /proc), deepest last.
std::vector<pid_t> descendants(pid_t root) {
    std::vector<std::pair<pid_t, pid_t>> links;  // (pid, parent)
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() ||
            !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        std::ifstream in(it->path() / "stat");
        std::string stat;
        std::getline(in, stat);
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        const auto close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(stat.substr(close + 1));
        char state = 0;
        long parent = 0;
        if (!(rest >> state >> parent)) continue;
        links.emplace_back(static_cast<pid_t>(std::stol(name)), static_cast<pid_t>(parent));
    }
    std::vector<pid_t> out{root};
    for (std::size_t i = 0; i < out.size(); ++i)
        for (const auto& [child, parent] : links)
            if (parent == out[i] && std::find(out.begin(), out.end(), child) == out.end())
                out.push_back(child);
    out.erase(out.begin());
    return out;
}

// Kills the tool's process group, then every process still below it or below
// us: a tool that detached (setsid, a double fork) left its group but, with
// gpuadvise as the child subreaper, not our tree. The tool itself (`leader`)
// stays unreaped for its exit status; the others are reaped here.
void kill_everything_below(pid_t leader) {
    kill(-leader, SIGKILL);
    for (int round = 0; round < 8; ++round) {
        bool any = false;
        for (const pid_t p : descendants(getpid())) {
            if (p == leader) continue;
            any = kill(p, SIGKILL) == 0 || any;
        }
        // Reap what has become ours, but never the leader.
        for (const pid_t p : descendants(getpid()))
            if (p != leader) waitpid(p, nullptr, WNOHANG);
        if (!any) break;
        usleep(2000);
    }
}

// dup2 onto itself would keep O_CLOEXEC and lose the descriptor at exec.
void move_fd(int fd, int target) {
    if (fd == target)
        fcntl(target, F_SETFD, 0);
    else
        dup2(fd, target);
}

std::string first_line(std::string_view text) {
    const auto start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return {};
    text.remove_prefix(start);
    text = text.substr(0, std::min(text.find_first_of("\r\n"), std::size_t{160}));
    std::string out;
    for (char c : text) out.push_back(static_cast<unsigned char>(c) < 0x20 ? ' ' : c);
    return out;
}

std::optional<std::string> read_small(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::string s(256, '\0');
    in.read(s.data(), static_cast<std::streamsize>(s.size()));
    s.resize(static_cast<std::size_t>(in.gcount()));
    return s;
}

class Diagnostics {
  public:
    explicit Diagnostics(std::string* out) : out_(out) {}
    void add(const std::string& line) {
        if (out_ == nullptr) return;
        if (!out_->empty()) out_->push_back('\n');
        *out_ += line;
    }

  private:
    std::string* out_;
};

}  // namespace

std::optional<std::string> find_executable(std::string_view name, std::string_view folders) {
    if (name.empty() || name.find('/') != std::string_view::npos) return std::nullopt;
    for (std::size_t pos = 0; pos <= folders.size();) {
        auto colon = folders.find(':', pos);
        if (colon == std::string_view::npos) colon = folders.size();
        const std::string_view dir = folders.substr(pos, colon - pos);
        pos = colon + 1;
        if (dir.empty() || dir.front() != '/') continue;
        std::string candidate(dir);
        if (candidate.back() != '/') candidate.push_back('/');
        candidate += name;
        struct stat st {};
        if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
            access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return std::nullopt;
}

ToolRun run_tool(const std::vector<std::string>& argv, double timeout_s) {
    ToolRun run;
    if (argv.empty() || argv.front().empty() || argv.front().front() != '/') return run;
    // Everything the child needs is built before fork: after it, only
    // async-signal-safe calls until exec.
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<std::string> env_strings;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e)
        if (std::string_view(*e).substr(0, 7) != "LC_ALL=") env_strings.emplace_back(*e);
    env_strings.emplace_back("LC_ALL=C");  // decimal points, English messages
    std::vector<char*> envp;
    envp.reserve(env_strings.size() + 1);
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);

    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    if (pipe2(out_pipe, O_CLOEXEC) != 0) return run;
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        close_fd(out_pipe[0]);
        close_fd(out_pipe[1]);
        return run;
    }
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    // Orphans of the tool become our children, not init's, so that a tool
    // that detaches cannot leave a process running (Linux 3.4+).
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    const Clock::time_point deadline = after(std::max(0.0, timeout_s));
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);  // its own group, so killing it also kills what it started
        if (devnull >= 0)
            move_fd(devnull, 0);
        else
            close(0);
        move_fd(out_pipe[1], 1);
        move_fd(err_pipe[1], 2);
        execve(args[0], args.data(), envp.data());
        _exit(127);
    }
    close_fd(out_pipe[1]);
    close_fd(err_pipe[1]);
    close_fd(devnull);
    if (pid < 0) {
        close_fd(out_pipe[0]);
        close_fd(err_pipe[0]);
        return run;
    }
    setpgid(pid, pid);  // also here, so the group exists before any kill

    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    char buffer[16384];
    bool stop = false;
    bool leader_done = false;
    Clock::time_point drain_end{};
    while (!stop && (fds[0].fd >= 0 || fds[1].fd >= 0)) {
        const double left = seconds_until(deadline);
        if (left <= 0) {
            run.timed_out = true;
            break;
        }
        if (!leader_done && has_exited(pid)) {
            leader_done = true;
            drain_end = after(kDrainAfterExitSeconds);
        }
        if (leader_done && seconds_until(drain_end) <= 0) break;
        const int wait_ms = leader_done ? kQuietAfterExitMs
                                        : static_cast<int>(std::min(100.0, std::ceil(left * 1000)));
        const int ready = poll(fds, 2, wait_ms);
        if (ready < 0 && errno != EINTR) break;
        if (ready == 0 && leader_done) break;  // it exited and its pipes went quiet
        if (ready <= 0) continue;
        for (int i = 0; i < 2 && !stop; ++i) {
            pollfd& f = fds[i];
            if (f.fd < 0 || (f.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) == 0) continue;
            const ssize_t got = read(f.fd, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                close_fd(f.fd);
                continue;
            }
            std::string& sink = i == 0 ? run.out : run.err;
            const std::size_t limit = i == 0 ? kMaxToolOutputBytes : kMaxStderrBytes;
            const auto n = static_cast<std::size_t>(got);
            const std::size_t take = std::min(n, limit - sink.size());
            sink.append(buffer, take);
            if (i == 0 && take < n) {  // stderr past its limit is read and dropped
                run.too_large = true;
                stop = true;
            }
        }
    }
    close_fd(fds[0].fd);
    close_fd(fds[1].fd);

    const bool exited = !run.timed_out && !run.too_large && exited_by(pid, deadline);
    if (!exited && !run.too_large) run.timed_out = true;
    // Everything it left behind, or everything at the deadline. Its leader is
    // not reaped yet, so the group id cannot belong to anyone else.
    if (!exited) kill(pid, SIGKILL);
    kill_everything_below(pid);
    // A process stuck in the kernel (a driver hang) cannot die until it leaves
    // it; give up on reaping rather than hang with it.
    int status = 0;
    if (exited_by(pid, after(kReapGraceSeconds))) {
        pid_t r = -1;
        do r = waitpid(pid, &status, 0);
        while (r < 0 && errno == EINTR);
        if (r == pid && exited)
            run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status)
                                              : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    }
    return run;
}

std::vector<SysfsDrmCard> read_sysfs_drm(const std::string& root) {
    namespace fs = std::filesystem;
    std::vector<std::pair<unsigned long, fs::path>> found;
    std::error_code ec;
    fs::directory_iterator it(root, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() < 5 || name.size() > 10 || name.compare(0, 4, "card") != 0) continue;
        if (!std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        found.emplace_back(std::stoul(name.substr(4)), it->path());
        if (found.size() >= kMaxSysfsCards) break;
    }
    std::sort(found.begin(), found.end());
    std::vector<SysfsDrmCard> cards;
    for (const auto& [index, path] : found) {
        const fs::path dev = path / "device";
        auto vendor = read_small(dev / "vendor");
        auto device = read_small(dev / "device");
        if (!vendor || !device) continue;
        SysfsDrmCard c;
        c.vendor = std::move(*vendor);
        c.device = std::move(*device);
        c.revision = read_small(dev / "revision");
        c.vram_total = read_small(dev / "mem_info_vram_total");
        c.max_link_speed = read_small(dev / "max_link_speed");
        c.max_link_width = read_small(dev / "max_link_width");
        cards.push_back(std::move(c));
    }
    return cards;
}

std::vector<LocalGpu> detect_local_gpus(const Catalog& catalog, std::string* diagnostics,
                                        const DetectOptions& options) {
    Diagnostics diag(diagnostics);
    const Clock::time_point overall = after(options.total_timeout_s);
    std::string folders;
    if (options.path)
        folders = *options.path;
    else if (const char* p = std::getenv("PATH"))
        folders = p;

    // One tool: find it, run it with what is left of the time, parse its
    // output. Every failure is a diagnostic line, never an exception.
    const auto run = [&](std::string_view tool,
                         std::vector<std::string> args) -> std::optional<ToolRun> {
        auto exe = find_executable(tool, folders);
        if (!exe) {
            diag.add(fmt::format("{}: not found on PATH", tool));
            return std::nullopt;
        }
        const double budget = std::min(options.tool_timeout_s, seconds_until(overall));
        if (budget <= 0) {
            diag.add(fmt::format("{}: skipped; detection ran out of time", tool));
            return std::nullopt;
        }
        args.insert(args.begin(), *exe);
        ToolRun r = run_tool(args, budget);
        if (r.timed_out) {
            diag.add(fmt::format("{}: no answer within {:.0f} s; stopped it", tool, budget));
            return std::nullopt;
        }
        if (r.too_large) {
            diag.add(fmt::format("{}: printed more than {} MiB; stopped it", tool,
                                 kMaxToolOutputBytes >> 20U));
            return std::nullopt;
        }
        if (r.exit_code != 0) {
            std::string why = first_line(r.err);
            if (why.empty()) why = first_line(r.out);
            diag.add(fmt::format("{}: exit code {}{}{}", tool, r.exit_code, why.empty() ? "" : ": ",
                                 why));
            return std::nullopt;
        }
        return r;
    };
    const auto parse = [&](std::string_view tool, const std::string& text,
                           const std::function<std::vector<LocalGpu>(std::string_view)>& parser) {
        try {
            auto gpus = parser(text);
            diag.add(fmt::format("{}: {} GPU{}", tool, gpus.size(), gpus.size() == 1 ? "" : "s"));
            return gpus;
        } catch (const InputError& e) {
            diag.add(e.what());  // already names the tool
        } catch (const std::exception& e) {
            diag.add(fmt::format("{}: {}", tool, e.what()));
        }
        return std::vector<LocalGpu>{};
    };

    std::vector<LocalGpu> all;
    const auto append = [&](std::vector<LocalGpu> gpus) {
        for (auto& g : gpus)
            if (all.size() < kMaxLocalGpus) all.push_back(std::move(g));
        return !gpus.empty();
    };

    bool nvidia = false, amd = false, intel = false;
    if (auto r = run("nvidia-smi",
                     {"--query-gpu=name,memory.total,pcie.link.gen.max,pcie.link.width.max",
                      "--format=csv,noheader"}))
        nvidia = append(parse("nvidia-smi", r->out, parse_nvidia_smi_csv));
    // amd-smi replaces rocm-smi (ROCm 6 ships both); ask the older one only
    // when the newer one is missing or found nothing.
    if (auto r = run("amd-smi", {"static", "--asic", "--bus", "--vram", "--json"}))
        amd = append(parse("amd-smi", r->out, parse_amd_smi_json));
    if (!amd)
        if (auto r = run("rocm-smi", {"--showproductname", "--showmeminfo", "vram", "--json"}))
            amd = append(parse("rocm-smi", r->out, parse_rocm_smi_json));
    if (auto r = run("xpu-smi", {"discovery", "-j"})) {
        auto gpus = parse("xpu-smi", r->out, parse_xpu_smi_json);
        std::vector<int> ids;
        try {
            ids = xpu_smi_device_ids(r->out);
        } catch (const std::exception&) {
            // parse() above has reported it
        }
        // The list has no memory sizes; each device's details do.
        for (std::size_t i = 0;
             i < gpus.size() && i < ids.size() && static_cast<int>(i) < kMaxXpuDetails; ++i) {
            if (gpus[i].memory_bytes || ids[i] < 0) continue;
            if (auto d = run("xpu-smi", {"discovery", "-d", std::to_string(ids[i]), "-j"})) {
                auto detail =
                    parse(fmt::format("xpu-smi device {}", ids[i]), d->out, parse_xpu_smi_json);
                if (detail.size() == 1) {
                    if (detail.front().name.empty()) detail.front().name = gpus[i].name;
                    gpus[i] = std::move(detail.front());
                }
            }
        }
        intel = append(std::move(gpus));
    }

    // /sys for the vendors no tool answered for: a card without its vendor's
    // tool, or a driver the tool cannot talk to.
    try {
        auto cards = parse_sysfs_drm(read_sysfs_drm(options.sysfs_drm));
        std::vector<LocalGpu> uncovered;
        for (auto& g : cards) {
            const std::string_view vendor = std::string_view(g.pci_id).substr(0, 4);
            if ((vendor == "10de" && nvidia) || (vendor == "1002" && amd) ||
                (vendor == "8086" && intel))
                continue;
            uncovered.push_back(std::move(g));
        }
        diag.add(fmt::format("{}: {} GPU{} not covered by a vendor tool", options.sysfs_drm,
                             uncovered.size(), uncovered.size() == 1 ? "" : "s"));
        append(std::move(uncovered));
    } catch (const InputError& e) {
        diag.add(e.what());
    } catch (const std::exception& e) {
        diag.add(fmt::format("{}: {}", options.sysfs_drm, e.what()));
    }

    match_to_catalog(all, catalog);
    return all;
}

}  // namespace gpuadvise::cli
