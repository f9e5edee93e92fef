#pragma once
// Making a calibration record (`gpuadvise calibrate`): a measured run's
// speed and peak, read from flags or from the run's own log, compared with
// the estimate for the same workload and card. The other half of the
// pipeline, applying records to later estimates, is calibration.hpp, below
// the memory model; this half sits above the estimate it compares against.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/calibration.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/performance.hpp"

namespace gpuadvise {

// "2.1s/step", "35 tok/s", "0.5img/s", "12 s/img"; throws InputError naming `origin`.
MeasuredSpeed parse_measured_speed(std::string_view text, std::string_view origin);

// What the run measured, with where each figure came from (for messages).
struct Measured {
    std::optional<MemoryMetric> metric;
    double bytes = 0;
    // The allocated memory once the model was loaded, before training (0: not
    // measured): it separates the loaded parameters from the rest.
    double static_bytes = 0;
    std::string bytes_origin;  // "--measured-memory", "torchtune peak memory allocation"
    std::optional<MeasuredSpeed> speed;
    std::string speed_origin;  // "--measured-speed"
};

// Factors a record derives: measured / estimated for the metric (outside the
// CUDA context for nvidia-smi), clamped to [0.5, 2] (a larger miss is not a
// calibration but a different workload); the same for the speed. With the
// allocated memory after loading (an allocated peak only), the loaded
// parameters (weights, adapters) get their own factor and the rest the ratio
// of what training added. Throws
// InputError when a figure cannot be a measurement of this run: a peak of
// zero, below 1 MiB or above the card's memory (`device_bytes`, 0 = not
// known), a speed the estimate has no rate for (img/s for a LoRA run). The
// record is one the reader accepts (checked by reading it back).
CalibrationRecord make_record(const Workload& w, const MemoryEstimate& m, const Measured& run,
                              const Performance* perf, std::string_view gpu,
                              std::uint64_t device_bytes);

// The record's scope, narrowed where its correction would make the runs
// already in the file worse (their median or 90th-percentile error, on the
// runs it would reach): from every model of the harness to its own model,
// then to its own run. Returns why it narrowed ("" when it did not).
// `corrected`, where given, is the estimate of existing[i] with the record
// applied at its scope (the bench's replay re-estimates each row); without
// it the correction is taken as scaling that run's estimate by the record's
// factor (the CLI knows the runs of the file by their records only).
std::string narrow_scope(
    CalibrationRecord& record, const std::vector<CalibrationRecord>& existing,
    const std::function<double(const CalibrationRecord&, std::size_t)>& corrected = {});

// A peak found in a log: a PyTorch memory summary, torchtune's memory stats,
// nvidia-smi CSV or llama.cpp's buffer sizes; nullopt when none is there.
// Sizes are read with their unit (B, KB/KiB, MB/MiB, GB/GiB, TB/TiB, in
// either case); a number too large to be a size is refused (InputError
// naming `source` and the line).
struct LoggedPeak {
    double bytes = 0;
    MemoryMetric metric = MemoryMetric::Allocated;
    std::string what;  // "torch.cuda.memory_summary peak allocated"
    // torchtune's "Memory stats after model init" allocation (0: none).
    double static_bytes = 0;
};
std::optional<LoggedPeak> parse_run_log(std::string_view text, std::optional<MemoryMetric> wanted,
                                        std::string_view source = "the log");

// Checks a calibration file's text before a record is appended to it: at
// most `cap` bytes with the new line, text (no NUL, UTF-8), ending in a
// newline, every line a record the reader accepts. Throws InputError naming
// `source` and the line.
void check_calibration_text(std::string_view text, std::string_view source, std::uint64_t cap,
                            std::size_t new_line_bytes);

}  // namespace gpuadvise
