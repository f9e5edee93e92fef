#pragma once
// The I/O half of `gpuadvise detect`: runs the vendor tools found on PATH
// (never through a shell, each under a hard timeout), reads /sys/class/drm for
// what they do not cover, and hands the text to the pure parsers in
// gpuadvise/detect.hpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/detect.hpp"

namespace gpuadvise::cli {

struct DetectOptions {
    std::optional<std::string> path;  // where to look for the tools; default $PATH
    std::string sysfs_drm = "/sys/class/drm";
    double tool_timeout_s = 5;    // one tool run
    double total_timeout_s = 20;  // all runs together
};

struct ToolRun {
    int exit_code = -1;      // -1 when it could not start or was killed
    bool timed_out = false;  // killed at the deadline
    bool too_large = false;  // killed at kMaxToolOutputBytes of stdout
    std::string out;
    std::string err;  // at most 64 KiB
};

// The executable `name` in a ':'-separated folder list. Empty and relative
// entries are skipped, so nothing runs from the current folder.
std::optional<std::string> find_executable(std::string_view name, std::string_view folders);

// Runs argv (argv[0] an absolute path) with stdin from /dev/null and LC_ALL=C,
// in its own process group, which is killed at the deadline. Never waits
// longer than timeout_s plus about a second, even for a process stuck in the
// kernel.
ToolRun run_tool(const std::vector<std::string>& argv, double timeout_s);

// /sys/class/drm/cardN/device/{vendor,device,...} for each cardN (connectors
// such as card0-DP-1 and render nodes are skipped). A missing folder is no cards.
std::vector<SysfsDrmCard> read_sysfs_drm(const std::string& root);

// The accelerators of this machine, matched to the catalog. Tool failures do
// not throw: each becomes a line in *diagnostics (when not null).
std::vector<LocalGpu> detect_local_gpus(const Catalog& catalog, std::string* diagnostics,
                                        const DetectOptions& options = {});

}  // namespace gpuadvise::cli
