#pragma once
// Calibration from the user's own runs: `gpuadvise calibrate` compares a
// measured peak (or speed) with the estimate for the same workload and card
// and appends the correction to a calibration file (JSON Lines). Estimates
// of workloads that exercise the same mechanisms (the same calibration key:
// method, engine or training harness, model kind) then scale the components
// the run measured: the shape-dependent ones (activations, logits, KV cache,
// workspace and the allocator's pool), not the weights, gradients and
// optimizer state, which are counted exactly. Unrelated workloads are left
// alone. The core parses and applies; the CLI reads and writes the file.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"

namespace gpuadvise {

struct Workload;
struct Components;
struct MemoryEstimate;
struct Performance;

// What a measured peak counts: torch.cuda.max_memory_allocated, the caching
// allocator's max_memory_reserved, or nvidia-smi's whole-process figure.
enum class MemoryMetric : std::uint8_t { Allocated, Reserved, NvidiaSmi };
inline constexpr auto kMemoryMetrics =
    make_enum_table<MemoryMetric>({{MemoryMetric::Allocated, "allocated"},
                                   {MemoryMetric::Reserved, "reserved"},
                                   {MemoryMetric::NvidiaSmi, "nvidia-smi"}});

// The rate a measured speed states.
enum class SpeedUnit : std::uint8_t {
    SecondsPerStep,
    TokensPerSecond,
    ImagesPerSecond,
    SecondsPerImage
};
inline constexpr auto kSpeedUnits =
    make_enum_table<SpeedUnit>({{SpeedUnit::SecondsPerStep, "s/step"},
                                {SpeedUnit::TokensPerSecond, "tok/s"},
                                {SpeedUnit::ImagesPerSecond, "img/s"},
                                {SpeedUnit::SecondsPerImage, "s/img"}});

struct MeasuredSpeed {
    double value = 0;
    SpeedUnit unit = SpeedUnit::TokensPerSecond;
};
// "2.1s/step", "35 tok/s", "0.5img/s", "12 s/img"; throws InputError naming `origin`.
MeasuredSpeed parse_measured_speed(std::string_view text, std::string_view origin);

// One measured run.
struct CalibrationRecord {
    std::string key;  // calibration_key() of the workload
    std::string model, gpu;
    std::optional<MemoryMetric> metric;
    double measured_bytes = 0, estimated_bytes = 0;
    double memory_factor = 1;  // applied to the shape-dependent components
    std::optional<SpeedUnit> speed_unit;
    double measured_speed = 0, estimated_speed = 0;
    double speed_factor = 1;  // applied to rates (times divided)
};

struct Calibration {
    std::string source;  // the file, for messages and the JSON
    std::vector<CalibrationRecord> records;
};

// The mechanisms a workload exercises, as one string: method, then the
// engine (inference) or the training harness (loss, optimizer
// implementation, checkpointing), or the image family.
std::string calibration_key(const Workload& w);

// Factors a record derives: solves measured = fixed + factor x variable for
// the metric's components; clamped to [0.2, 5] (a larger miss is not a
// calibration but a different workload).
CalibrationRecord make_record(const Workload& w, const Components& c, const MemoryEstimate& m,
                              std::optional<MemoryMetric> metric, double measured_bytes,
                              const Performance* perf, std::optional<MeasuredSpeed> speed,
                              std::string_view gpu);

// One JSON line of the calibration file.
std::string record_json_line(const CalibrationRecord& r);
// Reads a calibration file (JSON Lines); throws InputError naming the line.
Calibration parse_calibration(std::string_view text, std::string_view source);

// What applies to `w`: the geometric mean of the matching records' factors.
struct CalibrationMatch {
    std::string source;
    std::size_t memory_records = 0, speed_records = 0;
    double memory_factor = 1, speed_factor = 1;
};
std::optional<CalibrationMatch> match_calibration(const Calibration& c, const Workload& w);

// Scales the shape-dependent components in place (the memory model calls it
// before the allocator's pool is derived).
void scale_variable_components(Components& c, double factor);
// Scales every rate of `p` by `factor` and divides its times.
void scale_rates(Performance& p, double factor);

// A peak found in a log: a PyTorch memory summary, torchtune's memory stats,
// nvidia-smi CSV or llama.cpp's buffer sizes; nullopt when none is there.
struct LoggedPeak {
    double bytes = 0;
    MemoryMetric metric = MemoryMetric::Allocated;
    std::string what;  // "torch.cuda.memory_summary peak allocated"
};
std::optional<LoggedPeak> parse_run_log(std::string_view text, std::optional<MemoryMetric> wanted);

}  // namespace gpuadvise
