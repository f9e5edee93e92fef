// Fuzzes what `gpuadvise calibrate` and every calibrated estimate read from
// the user: the calibration file (parse_calibration, and the check before an
// append: a file it passes stays readable with one more record), a run's log
// (parse_run_log, all four formats) and --measured-speed. A file that parses
// must round-trip through record_json_line, and applying it to a workload
// must give finite estimates within the bound, never a wrapped number.
#include <cmath>
#include <cstddef>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/calibrate.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/workload.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    accepts([&] { (void)parse_measured_speed(text, "--measured-speed"); });
    for (const auto metric :
         {std::optional<MemoryMetric>{}, std::optional<MemoryMetric>{MemoryMetric::Reserved}}) {
        accepts([&] {
            if (const auto peak = parse_run_log(text, metric, "fuzz.log"))
                if (!std::isfinite(peak->bytes) || peak->bytes < 0 ||
                    peak->bytes > kMaxEstimateBytes)
                    finding("a log peak that is not a finite size");
        });
    }
    // The write side: a file check_calibration_text lets `calibrate` append
    // to stays readable with the new record after it.
    CalibrationRecord fresh;
    fresh.key = "k";
    fresh.metric = MemoryMetric::Allocated;
    fresh.measured_bytes = 1e10;
    fresh.estimated_bytes = 1e10;
    const std::string line = record_json_line(fresh) + "\n";
    if (accepts([&] { check_calibration_text(text, "fuzz.jsonl", 1U << 20U, line.size()); })) {
        Calibration appended;
        if (!accepts(
                [&] { appended = parse_calibration(std::string(text) + line, "appended.jsonl"); }))
            finding("a file the append check passed is unreadable after the append");
        if (appended.records.empty() || appended.records.back().key != "k")
            finding("the appended record is not the file's last");
    }
    Calibration cal;
    if (!accepts([&] { cal = parse_calibration(text, "fuzz.jsonl"); })) return 0;
    for (const CalibrationRecord& r : cal.records) {
        const Calibration again = parse_calibration(record_json_line(r) + "\n", "again.jsonl");
        if (again.records.size() != 1 || again.records[0].key != r.key ||
            again.records[0].memory_factor != r.memory_factor)
            finding("a calibration record does not round-trip");
    }
    // Apply it (as a user's file) to a workload whose key it may match.
    if (cal.records.empty()) return 0;
    Request request;
    request.set(Field::Model, "llama-3.1-8b", "--model");
    request.set(Field::Method, "lora", "--method");
    Workload w = resolve_workload(request, {}, embedded::model_presets());
    cal.records.front().key = calibration_key(w);
    w.calibration = &cal;
    accepts([&] {
        const MemoryEstimate m = estimate(w);
        if (static_cast<double>(m.per_gpu_bytes) > kMaxEstimateBytes)
            finding("a calibrated estimate over the bound");
    });
    return 0;
}
