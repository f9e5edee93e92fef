#pragma once
// Calibration from the user's own runs: `gpuadvise calibrate` compares a
// measured peak (or speed) with the estimate for the same workload and card
// and appends the correction to a calibration file (JSON Lines). A record
// corrects the components its run measured: with a measurement after the
// model was loaded (torchtune's "Memory stats after model init"), the loaded
// parameters and the rest each by their own ratio; with the peak alone, every
// component the framework allocates by one (the CUDA context stays; the
// allocator's pool follows from them). It transfers to other batches and
// sequences of the same model, format and harness in full, and to other
// models of the same harness (engine, loss, optimizer step, checkpointing) at
// kOtherModelWeight. A record whose correction would make the runs already in
// the file worse narrows its scope (to its model, then to its own run
// shape) and says so (calibrate.hpp, narrow_scope). This half parses records
// and matches them (the memory and speed models apply the factors);
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

// Which workloads a record corrects: every model of its harness (the
// default), its own model and format, or only its own run (model, format,
// batch and sequence).
enum class CalibrationScope : std::uint8_t { Harness, Model, Run };
inline constexpr auto kCalibrationScopes =
    make_enum_table<CalibrationScope>({{CalibrationScope::Harness, "harness"},
                                       {CalibrationScope::Model, "model"},
                                       {CalibrationScope::Run, "run"}});

// The weight of a record on another model of its harness: its log-factor is
// scaled by it (assumed: half the correction; docs/accuracy.md replays it on
// the measured rows of other models of each source).
inline constexpr double kOtherModelWeight = 0.5;

// One measured run.
struct CalibrationRecord {
    std::string key;  // calibration_key() of the workload
    std::string model, gpu;
    std::optional<MemoryMetric> metric;
    double measured_bytes = 0, estimated_bytes = 0;
    // Applied to every component the framework allocates; with a static
    // factor, to every one but the loaded parameters.
    double memory_factor = 1;
    // The loaded parameters' factor (weights, adapters), where the run
    // measured memory after the model was loaded; 0: not measured.
    double static_factor = 0;
    double measured_static_bytes = 0, estimated_static_bytes = 0;
    CalibrationScope scope = CalibrationScope::Harness;
    // The run's shape (for the run scope): batch, tokens, fused attention.
    std::int64_t batch = 0, seq = 0;
    bool flash_attn = true;
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
// implementation, checkpointing), or the image family; then the model (its
// weight format's family and parameter count).
std::string calibration_key(const Workload& w);
// The key without its model: what other models of the harness share.
std::string_view harness_part(std::string_view key);

// How much of a record applies to a workload of `key` and shape `run`: 1 on
// its own model, kOtherModelWeight on another model of its harness, 0 where
// its scope or harness does not reach.
struct RunShape {
    std::int64_t batch = 0, seq = 0;
    bool flash_attn = true;
};
double calibration_weight(const CalibrationRecord& r, std::string_view key, const RunShape& run);

// One JSON line of the calibration file.
std::string record_json_line(const CalibrationRecord& r);
// Reads a calibration file (JSON Lines); throws InputError naming the line.
Calibration parse_calibration(std::string_view text, std::string_view source);

// What applies to `w`: the matching records' factors, their logarithms
// weighted by calibration_weight and averaged (speed: records of the same key
// only). static_factor is 0 when no matching record measured the loaded model.
struct CalibrationMatch {
    std::string source;
    std::size_t memory_records = 0, speed_records = 0;
    double memory_factor = 1, speed_factor = 1;
    double static_factor = 0;
    double weight = 1;  // the largest weight among the memory records
};
std::optional<CalibrationMatch> match_calibration(const Calibration& c, const Workload& w);

// The bounds a record's factors are clamped to (make_record) and held to
// (parse_calibration).
inline constexpr double kMinCalibrationFactor = 0.5, kMaxCalibrationFactor = 2.0;

}  // namespace gpuadvise
