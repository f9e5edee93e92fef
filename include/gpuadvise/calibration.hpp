#pragma once
// Calibration from the user's own runs: `gpuadvise calibrate` compares a
// measured peak (or speed) with the estimate for the same workload and card
// and appends the correction to a calibration file (JSON Lines). Estimates
// of workloads with the same calibration key (the same model in the same
// weight format, on the same engine or training harness) then scale every
// component the framework allocates by the run's measured / estimated ratio
// (the CUDA context stays); the allocator's pool follows from them. Scaling
// only the shape-dependent components was tried and made the visible rows
// worse: one run cannot tell which component its error sits in
// (docs/accuracy.md). Unrelated workloads are left alone. This half parses
// records and matches them (the memory and speed models apply the factors);
// calibrate.hpp makes them; the CLI reads and writes the file.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"

namespace gpuadvise {

struct Workload;

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

// One measured run.
struct CalibrationRecord {
    std::string key;  // calibration_key() of the workload
    std::string model, gpu;
    std::optional<MemoryMetric> metric;
    double measured_bytes = 0, estimated_bytes = 0;
    double memory_factor = 1;  // applied to every component the framework allocates
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

// The bounds a record's factors are clamped to (make_record) and held to
// (parse_calibration).
inline constexpr double kMinCalibrationFactor = 0.5, kMaxCalibrationFactor = 2.0;

}  // namespace gpuadvise
