// The memory replay by source, the model's recorded changes, and
// calibration from one measured run, replayed by source (docs/accuracy.md).
#include <cmath>

#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

std::vector<Sample> replay_memory_rows(const std::vector<Row>& rows, const Json& models_json,
                                       const std::vector<ModelPreset>& presets,
                                       std::vector<std::pair<std::string, std::string>>& skipped,
                                       std::ofstream& components) {
    std::vector<Sample> samples;
    for (const Row& r : rows) {
        const Replay replay = replay_request(r, models_json, presets);
        if (!replay.request) {
            skipped.emplace_back(r.at("id"), replay.skip);
            continue;
        }
        Workload w;
        try {
            w = resolve_workload(replay.request->fields, replay.request->inputs, presets);
        } catch (const InputError& e) {
            skipped.emplace_back(r.at("id"),
                                 std::string("workload not representable: ") + e.what());
            continue;
        }
        Workload doc_w = w;
        doc_w.estimator = Estimator::Doc;
        const MemoryEstimate m = estimate_memory(w);
        const MemoryEstimate d = estimate_memory_doc(doc_w);
        // Each metric against the number that means the same thing.
        // A row whose source does not say what it measured is read as what
        // its harness logs (ms-swift and Unsloth's notebooks print
        // max_memory_reserved), else as allocated.
        std::string metric = r.at("metric");
        if (metric == "unknown" && harness_of(r).logged_metric == "reserved" && w.trains())
            metric = "max_reserved";
        const double estimate_bytes =
            metric_bytes(m, metric == "nvml_total"     ? MemoryMetric::NvidiaSmi
                            : metric == "max_reserved" ? MemoryMetric::Reserved
                                                       : MemoryMetric::Allocated);
        const double scale = r.at("scope") == "total_all_gpus" ? static_cast<double>(w.gpus) : 1.0;
        Sample s;
        s.id = r.at("id");
        s.workload = w;
        s.metric = metric == "nvml_total"     ? MemoryMetric::NvidiaSmi
                   : metric == "max_reserved" ? MemoryMetric::Reserved
                                              : MemoryMetric::Allocated;
        s.per_gpu = r.at("scope") != "total_all_gpus";
        s.method = w.method == Method::Inference ? "inference" : to_string(w.method);
        s.measured = std::stod(r.at("measured_bytes"));
        s.component = estimate_bytes * scale;
        s.doc = static_cast<double>(d.per_gpu_bytes) * scale;
        const bool shards = w.parallel != Parallel::None && w.parallel != Parallel::Ddp &&
                            w.parallel != Parallel::Zero2;
        s.weights_only = static_cast<double>(w.model.params) *
                         weight_bytes_per_param(w.quant, w.precision, w.double_quant) /
                         (shards ? static_cast<double>(w.gpus) : 1.0) * scale;
        s.inputs = fmt::format(
            "{} {} {} b{} s{}{}{}{} gpus {} {}; {}", r.at("model"), s.method, r.at("weight_format"),
            w.batch, w.seq,
            w.trains() ? fmt::format("{} loss {}", w.packing ? " packed" : "", to_string(w.loss))
                       : std::string(),
            w.trains() && w.grad_ckpt ? " ckpt " + std::string(to_string(w.ckpt_mode)) : "",
            w.uses_lora() ? fmt::format(" r{} {}", w.lora_rank, r.at("lora_targets")) : "", w.gpus,
            to_string(w.parallel), r.at("metric"));
        if (components.is_open()) {
            const auto gib = [](double b) { return fmt::format("{:.3f}", b / (1 << 30)); };
            components << s.id << "," << metric << "," << gib(s.measured) << ","
                       << gib(s.component);
            for (const auto& n : kComponentNames)
                components << "," << gib(static_cast<double>(m.get(n.member)));
            components << "," << gib(static_cast<double>(m.reserved_bytes - m.allocated_bytes))
                       << "," << gib(static_cast<double>(m.allocated_bytes)) << ","
                       << gib(static_cast<double>(m.reserved_bytes)) << ","
                       << gib(static_cast<double>(m.per_gpu_bytes)) << "\n";
        }
        samples.push_back(s);
    }

    return samples;
}

void source_report(const std::vector<Sample>& samples, std::string_view which) {
    std::map<std::string, std::vector<const Sample*>> by_source;
    for (const auto& s : samples) by_source[source_of(s.id)].push_back(&s);
    if (which == "visible")
        std::cout << "\n## By source (memory)\n\n"
                     "Each source's rows (the id's second part), so an error that one harness or "
                     "one author's setup carries shows as that source's, not the method's.\n\n";
    else
        std::cout << "\nBy source:\n\n";
    std::cout << "| source | rows | training rows | median APE | p90 APE | median error |\n"
                 "|---|---|---|---|---|---|\n";
    for (const auto& [source, rows] : by_source) {
        std::vector<double> ape, err;
        std::size_t training = 0;
        for (const Sample* s : rows) {
            ape.push_back(std::fabs(s->err(s->component)));
            err.push_back(s->err(s->component));
            if (s->method != "inference") ++training;
        }
        std::cout << fmt::format("| {} | {} | {} | {} | {} | {} |\n", source, rows.size(), training,
                                 pct(quantile(ape, 0.5)), pct(quantile(ape, 0.9)),
                                 pct(quantile(err, 0.5)));
    }
}

// The collected rows (memory_measured.csv): the same tables as the visible
// rows', apart, by method and by source, with each source's worst rows.
void collected_report(const std::vector<Sample>& collected) {
    if (collected.empty()) return;
    std::cout
        << "\n## Collected rows (memory_measured.csv)\n\n"
        << fmt::format(
               "{} rows from sources the visible file does not have (bench/data/README.md, "
               "\"memory_measured.csv\"): the harnesses ms-swift, Qwen-1's finetune.py and "
               "AnswerDotAI's fsdp_qlora. They are not in the method table above (its targets "
               "are stated on the visible rows); they join the error bands and the "
               "calibration replay.\n\n",
               collected.size())
        << "| method | rows | median APE | p90 APE | median error |\n|---|---|---|---|---|\n";
    for (const std::string method : {"inference", "lora", "qlora", "full", "all"}) {
        std::vector<double> ape, err;
        for (const auto& s : collected)
            if (method == "all" || s.method == method) {
                ape.push_back(std::fabs(s.err(s.component)));
                err.push_back(s.err(s.component));
            }
        if (ape.empty()) continue;
        std::cout << fmt::format("| {} | {} | {} | {} | {} |\n", method, ape.size(),
                                 pct(quantile(ape, 0.5)), pct(quantile(ape, 0.9)),
                                 pct(quantile(err, 0.5)));
    }
    source_report(collected, "collected");
}

void history_report() {
    // Recorded by hand from this tool's output at each change to the memory
    // model (the commit's parent, then the change), so a later reader sees
    // what each change did on the rows of its time.
    std::cout
        << "\n## Changes to the memory model (recorded)\n\n"
           "Component median / p90 APE, from this report before and after each change.\n\n"
           "| change | rows | inference | lora | qlora | full | all |\n"
           "|---|---|---|---|---|---|---|\n"
           "| before issue 26 (14a0a65) | 294 | 3.0 / 18.8 % | 5.3 / 44.2 % | 15.0 / 36.4 % | "
           "10.5 / 61.3 % | 5.0 / 23.8 % |\n"
           "| issue 26: harness profiles, QLoRA's fp32 upcasts, saved tensors by site, the "
           "allocator's pool from its mechanism, litgpt's multi-GPU checkpointing | 294 | "
           "3.0 / 18.8 % | 5.7 / 26.9 % | 13.0 / 20.5 % | 10.7 / 64.3 % | 5.2 / 21.9 % |\n"
           "\nBy source, before / after issue 26 (median, p90 APE): ACCEL 3.8 / 4.8 % both; "
           "HFDOCS 9.4 / 11.6 % -> 7.7 / 13.7 %; LITGPT 8.2 / 36.8 % -> 6.5 / 25.0 %; "
           "LLAMAFACTORY 5.1 / 11.3 % -> 5.6 / 17.7 %; QWEN25 1.4 / 3.0 % both; QWEN3 7.6 / "
           "21.4 % both; TORCHTUNE 8.4 / 45.3 % -> 9.2 / 41.2 %.\n";
}

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
