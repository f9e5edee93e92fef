#include "cli/detect_runner.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>

#include "gpuadvise/embedded.hpp"
#include "support/temp_files.hpp"

using namespace gpuadvise;
using namespace gpuadvise::cli;

namespace {

void write_file(const std::string& path, const std::string& content, bool executable = false) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << content;
    if (executable) chmod(path.c_str(), 0755);
}

// A fake vendor tool: a shell script. The sample goes through a quoted
// here-document, so it needs no escaping.
void write_tool(const TempDir& dir, const std::string& name, const std::string& body) {
    write_file(dir.path("bin/" + name), "#!/bin/sh\n" + body, true);
}

std::string prints(const std::string& sample) {
    return "cat <<'SAMPLE'\n" + sample + "\nSAMPLE\n";
}

// Only the temp folder's tools and its fake /sys: the machine running the
// tests may have real GPUs and real tools.
DetectOptions options_for(const TempDir& dir, double tool_timeout_s = 5) {
    DetectOptions o;
    o.path = dir.path("bin");
    o.sysfs_drm = dir.path("drm");
    o.tool_timeout_s = tool_timeout_s;
    return o;
}

void write_card(const TempDir& dir, const std::string& card, const std::string& vendor,
                const std::string& device, const std::string& vram = "") {
    write_file(dir.path("drm/" + card + "/device/vendor"), vendor + "\n");
    write_file(dir.path("drm/" + card + "/device/device"), device + "\n");
    if (!vram.empty())
        write_file(dir.path("drm/" + card + "/device/mem_info_vram_total"), vram + "\n");
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Gone, or a zombie nobody has reaped yet (PID 1 in a container may not).
bool process_is_dead(pid_t pid) {
    for (int i = 0; i < 100; ++i) {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        if (!stat || !std::getline(stat, line)) return true;
        const auto close = line.rfind(')');
        if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z')
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

const std::string kNvidiaQuery =
    "--query-gpu=name,memory.total,pcie.link.gen.max,pcie.link.width.max";

const std::string kAmdSmiSample = R"~([
  {"gpu": 0, "asic": {"market_name": "AMD Instinct MI300X", "vendor_id": "0x1002", "device_id": "0x74a1", "rev_id": "0x00"},
   "bus": {"max_pcie_width": 16, "max_pcie_speed": {"value": 32, "unit": "GT/s"}},
   "vram": {"type": "HBM", "size": {"value": 196592, "unit": "MB"}}},
  {"gpu": 1, "asic": {"market_name": "AMD Instinct MI300X", "vendor_id": "0x1002", "device_id": "0x74a1", "rev_id": "0x00"},
   "bus": {"max_pcie_width": 16, "max_pcie_speed": {"value": 32, "unit": "GT/s"}},
   "vram": {"type": "HBM", "size": {"value": 196592, "unit": "MB"}}}
])~";

}  // namespace

TEST_CASE("detect: a fake nvidia-smi on the path is run with the query and matched") {
    TempDir dir;
    write_tool(dir, "nvidia-smi",
               "[ \"$1\" = \"" + kNvidiaQuery +
                   "\" ] && [ \"$2\" = \"--format=csv,noheader\" ] || "
                   "{ echo \"unexpected arguments: $*\" >&2; exit 3; }\n" +
                   prints("NVIDIA A100-SXM4-80GB, 81920 MiB, 4, 16\nNVIDIA A100-SXM4-80GB, 81920 "
                          "MiB, 4, 16"));
    std::string diagnostics;
    const auto gpus = detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir));
    INFO(diagnostics);
    REQUIRE(gpus.size() == 2);
    CHECK(gpus[0].source == "nvidia-smi");
    CHECK(gpus[0].catalog_id == "nvidia-a100-80gb-sxm");
    CHECK(gpus[1].catalog_id == "nvidia-a100-80gb-sxm");
    CHECK_THAT(diagnostics, Catch::Contains("nvidia-smi: 2 GPUs"));
    CHECK_THAT(diagnostics, Catch::Contains("amd-smi: not found on PATH"));
    CHECK(detect_local_gpus(embedded::catalog(), nullptr, options_for(dir)).size() ==
          2);  // diagnostics optional
}

TEST_CASE("detect: $PATH is searched when no folder list is given") {
    TempDir dir;
    // printf is a shell builtin: the script needs nothing from the temporary PATH.
    write_tool(dir, "nvidia-smi", "printf '%s\\n' 'NVIDIA GeForce RTX 4090, 24564 MiB, 4, 16'\n");
    const char* old = std::getenv("PATH");
    const std::string saved = old != nullptr ? old : "";
    setenv("PATH", dir.path("bin").c_str(), 1);
    DetectOptions o = options_for(dir);
    o.path.reset();
    const auto gpus = detect_local_gpus(embedded::catalog(), nullptr, o);
    setenv("PATH", saved.c_str(), 1);
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0].catalog_id == "nvidia-rtx-4090");
}

TEST_CASE("detect: a tool that never answers is stopped at its timeout, with what it started") {
    TempDir dir;
    const std::string pid_file = dir.path("sleeper.pid");
    write_tool(dir, "nvidia-smi", "sleep 1000 &\necho $! > '" + pid_file + "'\nwait\n");
    std::string diagnostics;
    const auto start = std::chrono::steady_clock::now();
    const auto gpus = detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir, 1.0));
    CHECK(seconds_since(start) < 4);
    CHECK(gpus.empty());
    CHECK_THAT(diagnostics, Catch::Contains("nvidia-smi: no answer within 1 s; stopped it"));
    std::ifstream in(pid_file);
    pid_t sleeper = 0;
    REQUIRE(in >> sleeper);
    CHECK(process_is_dead(sleeper));
}

TEST_CASE("detect: a tool that closes its output and hangs is stopped too") {
    TempDir dir;
    write_tool(dir, "amd-smi", "exec >/dev/null 2>&1\nsleep 1000\n");
    std::string diagnostics;
    const auto start = std::chrono::steady_clock::now();
    CHECK(detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir, 1.0)).empty());
    CHECK(seconds_since(start) < 4);
    CHECK_THAT(diagnostics, Catch::Contains("amd-smi: no answer within 1 s"));
}

namespace {

// Whether a process whose command line holds `marker` is still running.
bool running_with(const std::string& marker) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
         it.increment(ec)) {
        // A process can exit while its files are read (libstdc++ throws on
        // the ESRCH): it is then not running, which is what is asked.
        try {
            std::ifstream in(it->path() / "cmdline", std::ios::binary);
            std::string cmdline((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
            for (char& c : cmdline)
                if (c == '\0') c = ' ';
            std::ifstream stat(it->path() / "stat");
            std::string st;
            std::getline(stat, st);
            const bool zombie = st.find(") Z ") != std::string::npos;
            if (!zombie && cmdline.find(marker) != std::string::npos) return true;
        } catch (const std::exception&) {
            continue;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("detect: a tool that answers and leaves a child holding its output keeps its answer") {
    TempDir dir;
    // The child inherits stdout and outlives the tool: EOF never comes.
    write_tool(dir, "nvidia-smi",
               "echo 'NVIDIA GeForce RTX 4090, 24564 MiB, 4, 16'\n"
               "sleep 61.5 &\n"
               "exit 0\n");
    std::string diagnostics;
    const auto start = std::chrono::steady_clock::now();
    const auto gpus = detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir, 5.0));
    CHECK(seconds_since(start) < 3);
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0].catalog_id == "nvidia-rtx-4090");
    CHECK_FALSE(running_with("sleep 61.5"));  // and the child is gone
}

TEST_CASE("detect: a tool whose child detaches into its own session is still stopped") {
    TempDir dir;
    // setsid leaves the tool's process group: killing the group misses it.
    write_tool(dir, "amd-smi", "setsid sleep 62.5 &\nsleep 1000\n");
    std::string diagnostics;
    const auto start = std::chrono::steady_clock::now();
    CHECK(detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir, 1.0)).empty());
    CHECK(seconds_since(start) < 4);
    CHECK_THAT(diagnostics, Catch::Contains("amd-smi: no answer within 1 s"));
    CHECK_FALSE(running_with("sleep 62.5"));
    // The same when the tool answers at once and exits.
    write_tool(dir, "amd-smi", "setsid sleep 63.5 >/dev/null 2>&1 &\necho '[]'\nexit 0\n");
    (void)detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir, 5.0));
    CHECK_FALSE(running_with("sleep 63.5"));
}

TEST_CASE("detect: a tool that prints without end is cut at the output limit") {
    TempDir dir;
    write_tool(dir, "nvidia-smi", "exec yes 'NVIDIA GeForce RTX 4090, 24564 MiB, 4, 16'\n");
    std::string diagnostics;
    const auto start = std::chrono::steady_clock::now();
    CHECK(detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir, 20.0)).empty());
    CHECK(seconds_since(start) < 15);
    CHECK_THAT(diagnostics, Catch::Contains("nvidia-smi: printed more than 4 MiB; stopped it"));
}

TEST_CASE("detect: failing or garbled tools are diagnostic lines, not errors") {
    TempDir dir;
    write_tool(dir, "nvidia-smi",
               "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
               "driver.\"\nexit 9\n");
    write_tool(dir, "rocm-smi", "echo 'Segmentation fault'\n");
    write_tool(dir, "xpu-smi", "exit 0\n");
    std::string diagnostics;
    const auto gpus = detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir));
    CHECK(gpus.empty());
    CHECK_THAT(diagnostics, Catch::Contains("nvidia-smi: exit code 9: NVIDIA-SMI has failed"));
    CHECK_THAT(diagnostics,
               Catch::Contains("rocm-smi: its output holds no JSON: 'Segmentation fault'"));
    CHECK_THAT(diagnostics, Catch::Contains("xpu-smi: its output holds no JSON"));
}

TEST_CASE("detect: no tools and no cards is an empty answer, quickly") {
    TempDir dir;
    std::filesystem::create_directories(dir.path("bin"));
    std::string diagnostics;
    const auto start = std::chrono::steady_clock::now();
    CHECK(detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir)).empty());
    CHECK(seconds_since(start) < 1);
    for (const char* tool : {"nvidia-smi", "amd-smi", "rocm-smi", "xpu-smi"})
        CHECK_THAT(diagnostics, Catch::Contains(std::string(tool) + ": not found on PATH"));
}

TEST_CASE("detect: amd-smi before rocm-smi, and /sys for the vendors no tool covered") {
    TempDir dir;
    write_tool(dir, "amd-smi", "[ \"$1\" = static ] || exit 3\n" + prints(kAmdSmiSample));
    const std::string marker = dir.path("rocm-smi-ran");
    write_tool(dir, "rocm-smi", "touch '" + marker + "'\nexit 1\n");
    write_card(dir, "card0", "0x10de", "0x2684");                     // no nvidia-smi: from /sys
    write_card(dir, "card1", "0x1002", "0x74a1", "206141652992");     // amd-smi has it
    write_card(dir, "card2", "0x1a03", "0x2000");                     // the BMC's display chip
    write_file(dir.path("drm/card0-DP-1/status"), "disconnected\n");  // a connector, not a card
    write_file(dir.path("drm/renderD128/dev"), "226:128\n");
    std::string diagnostics;
    const auto gpus = detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir));
    INFO(diagnostics);
    REQUIRE(gpus.size() == 3);
    CHECK(gpus[0].source == "amd-smi");
    CHECK(gpus[0].catalog_id == "amd-mi300x");
    CHECK(gpus[0].pcie_gen == 5);
    CHECK(gpus[1].catalog_id == "amd-mi300x");
    CHECK(gpus[2].source == "sysfs");
    CHECK(gpus[2].name == "NVIDIA GeForce RTX 4090");
    CHECK(gpus[2].catalog_id == "nvidia-rtx-4090");
    CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("detect: xpu-smi's list, then each device's details") {
    TempDir dir;
    write_tool(dir, "xpu-smi", R"~(case "$*" in
"discovery -j") cat <<'SAMPLE'
{"device_list": [
  {"device_id": 0, "device_name": "Intel(R) Data Center GPU Max 1550", "device_type": "GPU", "pci_device_id": "0xbd5"},
  {"device_id": 1, "device_name": "Intel(R) Data Center GPU Max 1550", "device_type": "GPU", "pci_device_id": "0xbd5"}
]}
SAMPLE
;;
"discovery -d 0 -j") cat <<'SAMPLE'
{"device_id": 0, "device_name": "Intel(R) Data Center GPU Max 1550", "pcie_generation": "5",
 "pcie_max_link_width": "16", "memory_physical_size_byte": "137438953472"}
SAMPLE
;;
*) echo "Error: device not found" >&2; exit 1 ;;
esac
)~");
    std::string diagnostics;
    const auto gpus = detect_local_gpus(embedded::catalog(), &diagnostics, options_for(dir));
    INFO(diagnostics);
    REQUIRE(gpus.size() == 2);
    CHECK(gpus[0].memory_bytes == 137438953472ULL);
    CHECK(gpus[0].pcie_gen == 5);
    CHECK(gpus[0].catalog_id == "intel-max-1550");
    CHECK_FALSE(gpus[1].memory_bytes);  // its details failed; the list entry stays
    CHECK(gpus[1].catalog_id == "intel-max-1550");
    CHECK_THAT(diagnostics, Catch::Contains("xpu-smi: exit code 1: Error: device not found"));
}

TEST_CASE("find_executable: absolute folders only, regular executable files only") {
    TempDir dir;
    write_file(dir.path("a/tool"), "#!/bin/sh\n", false);  // not executable
    write_file(dir.path("b/tool"), "#!/bin/sh\n", true);
    std::filesystem::create_directories(dir.path("c/tool"));  // a folder
    const std::string a = dir.path("a"), b = dir.path("b"), c = dir.path("c");
    CHECK(find_executable("tool", a + ":" + c + ":" + b) == b + "/tool");
    CHECK(find_executable("tool", "::" + b + "/") == b + "/tool");
    CHECK_FALSE(find_executable("tool", a + ":" + c));
    CHECK_FALSE(find_executable("tool", ""));
    CHECK_FALSE(find_executable("../b/tool", a));
    CHECK_FALSE(find_executable("", b));
    // Relative entries are never searched, even when they would resolve.
    CHECK_FALSE(find_executable("tool", "b:./b:."));
}

TEST_CASE("run_tool: exit codes, stderr, and refusals") {
    TempDir dir;
    write_file(dir.path("t"), "#!/bin/sh\necho out\necho err >&2\nexit 4\n", true);
    ToolRun r = run_tool({dir.path("t")}, 5);
    CHECK(r.exit_code == 4);
    CHECK(r.out == "out\n");
    CHECK(r.err == "err\n");
    CHECK_FALSE(r.timed_out);
    r = run_tool({"relative/tool"}, 5);
    CHECK(r.exit_code == -1);
    r = run_tool({dir.path("missing")}, 5);
    CHECK(r.exit_code == 127);
    r = run_tool({}, 5);
    CHECK(r.exit_code == -1);
}

TEST_CASE(
    "read_sysfs_drm: cards in numeric order, without connectors, render nodes or a missing "
    "folder") {
    TempDir dir;
    write_card(dir, "card10", "0x10de", "0x2330");
    write_card(dir, "card2", "0x1002", "0x74a1", "206141652992");
    write_card(dir, "card0", "0x8086", "0xa780");
    write_file(dir.path("drm/card0-HDMI-A-1/device/vendor"), "0x8086\n");
    write_file(dir.path("drm/renderD128/device/vendor"), "0x8086\n");
    write_file(dir.path("drm/version"), "drm 1.1.0 20060810\n");
    std::filesystem::create_directories(dir.path("drm/card3"));  // no device files
    const auto cards = read_sysfs_drm(dir.path("drm"));
    REQUIRE(cards.size() == 3);
    CHECK(cards[0].device == "0xa780\n");
    CHECK(cards[1].device == "0x74a1\n");
    CHECK(cards[1].vram_total == std::optional<std::string>("206141652992\n"));
    CHECK_FALSE(cards[0].vram_total);
    CHECK(cards[2].device == "0x2330\n");
    CHECK(read_sysfs_drm(dir.path("nowhere")).empty());
}
