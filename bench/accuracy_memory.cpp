// Calibration from one measured run, replayed by source (docs/accuracy.md).
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

void calibration_report(const std::vector<Sample>& samples) {
    std::map<std::pair<std::string, std::string>, std::vector<const Sample*>> groups;
    for (const auto& s : samples)
        if (s.per_gpu) groups[{source_of(s.id), calibration_key(s.workload)}].push_back(&s);
    std::vector<double> same_before, same_after, other_before, other_after;
    std::vector<std::pair<std::string, double>> calibrated_ratios;
    std::size_t calibrations = 0;
    for (const auto& [key, rows] : groups) {
        if (rows.size() < 2) continue;
        const Sample& first = *rows.front();
        Calibration cal;
        cal.source = first.id;
        Measured run;
        run.metric = first.metric;
        run.bytes = first.measured;
        run.bytes_origin = first.id;
        cal.records.push_back(
            make_record(first.workload, estimate(first.workload), run, nullptr, "", 0));
        ++calibrations;
        for (const auto& s : samples) {
            if (&s == &first || !s.per_gpu || calibration_key(s.workload) != key.second) continue;
            Workload w = s.workload;
            w.calibration = &cal;
            const double after = metric_bytes(estimate(w), s.metric);
            const double err_before = std::fabs(s.err(s.component));
            const double err_after = std::fabs(s.err(after));
            if (source_of(s.id) == key.first) {
                same_before.push_back(err_before);
                same_after.push_back(err_after);
                calibrated_ratios.emplace_back(key.first, s.measured / after);
            } else {
                other_before.push_back(err_before);
                other_after.push_back(err_after);
            }
        }
    }
    std::cout << "\n## Calibration from one measured run\n\n"
              << "`gpuadvise calibrate` replayed: for each source, its first per-GPU row of each "
                 "calibration key (the same model and weight format; method + engine, or method + "
                 "loss + optimizer implementation + checkpointing) is the user's measured run; "
                 "its measured / estimated ratio scales the allocated components of the source's "
                 "other rows of that key (other batches, sequences, cards), and, separately, of "
                 "other sources' rows of the key. "
              << fmt::format("{} calibrations.\n\n", calibrations)
              << "| rows corrected | rows | median APE before | after | p90 APE before | after "
                 "|\n|---|---|---|---|---|---|\n"
              << fmt::format("| same source | {} | {} | {} | {} | {} |\n", same_before.size(),
                             pct(quantile(same_before, 0.5)), pct(quantile(same_after, 0.5)),
                             pct(quantile(same_before, 0.9)), pct(quantile(same_after, 0.9)))
              << fmt::format("| other sources | {} | {} | {} | {} | {} |\n", other_before.size(),
                             pct(quantile(other_before, 0.5)), pct(quantile(other_after, 0.5)),
                             pct(quantile(other_before, 0.9)), pct(quantile(other_after, 0.9)));
    const BandFit f = fit_band(calibrated_ratios);
    if (f.rows >= 5) {
        g_bands.push_back({"memory", "calibrated", f});
        std::cout << fmt::format(
            "\nThe band of a calibrated estimate (same-source rows, written as the `calibrated` "
            "memory band): {:.3f}-{:.3f} over {} rows, coverage {}.\n",
            f.low, f.high, f.rows, pct(f.coverage));
    }
}

}  // namespace accuracy
