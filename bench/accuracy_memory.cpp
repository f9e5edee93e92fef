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
        // A full fine-tune with plain AdamW on one GPU holds every weight,
        // gradient and optimizer state at its first step, whatever else the
        // model gets wrong: a peak below those is not of the stated setup
        // (litgpt's config-hub table lists full fine-tunes of 1-3.8B models
        // on one 24 GB A10G below that floor). Counted, not replayed.
        if (w.method == Method::Full && w.gpus == 1 && w.optimizer == Optimizer::AdamW &&
            !w.optimizer_in_backward && w.train_offload == TrainOffload::None &&
            r.at("scope") != "total_all_gpus") {
            const double floor =
                static_cast<double>(m.get(&Components::weights) + m.get(&Components::gradients) +
                                    m.get(&Components::optimizer));
            const double measured = std::stod(r.at("measured_bytes"));
            if (measured < floor) {
                skipped.emplace_back(
                    r.at("id"),
                    fmt::format("measured peak below the weights, gradients and AdamW states "
                                "one GPU holds at the first step ({:.1f} < {:.1f} GiB): not the "
                                "stated setup",
                                measured / (1 << 30), floor / (1 << 30)));
                continue;
            }
        }
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

// The memory bands (item 4 of issue 26): per method, and per inference
// engine or training harness where its rows come from two sources or more,
// the narrowest central band of measured / estimate that holds 80 % of a
// held-out source's rows; visible and collected rows together.
void memory_bands_report(const std::vector<Sample>& samples, const std::vector<Sample>& collected) {
    std::vector<const Sample*> all;
    for (const auto& s : samples) all.push_back(&s);
    for (const auto& s : collected) all.push_back(&s);
    std::cout
        << "\n## Error bands (memory)\n\n"
        << "For each method, and each inference engine or training harness whose rows come from "
           "two sources or more, the band written to `data/error_bands.json` (every estimate's "
           "`range`; an engine's or harness's band before its method's): the narrowest central "
           "band of measured / estimate, searched from p25-p75 out to p2.5-p97.5 in half "
           "percentiles, that holds 80 % of the rows of a source it never saw (each source's "
           "rows against the band of the others'); visible and collected rows together. The "
           "in-sample 10-90 band and its held-out coverage are beside it, and each band's width "
           "(high / low). The band written for `inference` itself, which engines without rows of "
           "their own fall back to, stays the in-sample 10-90 (the note under the table says "
           "why); `inference:transformers` has its own.\n\n"
        << "| group | rows | sources | 10-90 in sample | width | held out | 80 % held-out band | "
           "width | in sample | held out | written "
           "|\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    std::map<std::string, std::vector<std::pair<std::string, double>>> groups;
    for (const Sample* s : all) {
        const double ratio = s->measured / s->component;
        groups[s->method].emplace_back(source_of(s->id), ratio);
        groups["all"].emplace_back(source_of(s->id), ratio);
        if (const std::string g = memory_band_group(s->workload); !g.empty())
            groups[g].emplace_back(source_of(s->id), ratio);
    }
    const auto row = [](const std::string& name, const BandFit& f, std::string_view written) {
        std::cout << fmt::format(
            "| {} | {} | {} | {:.3f}-{:.3f} | {:.2f}x | {} | p{:g}-p{:g}: {:.3f}-{:.3f} | {:.2f}x "
            "| {} | {} | {} |\n",
            name, f.rows, f.sources, f.in_low, f.in_high, f.in_high / f.in_low,
            pct(f.held_out_coverage), 100.0 * f.held_tail, 100.0 * (1.0 - f.held_tail), f.low,
            f.high, f.high / f.low, pct(f.coverage), pct(f.held_tail_coverage), written);
    };
    for (const std::string method : {"inference", "lora", "qlora", "full", "all"}) {
        const BandFit held = fit_band(groups[method], true);
        row(method, held, method == "inference" ? "10-90" : "the 80 % band");
        // The inference band is the one engines without rows of their own
        // (llama.cpp, vLLM, ...) fall back to: it stays the in-sample 10-90.
        // The held-out band above comes from transformers' and litgpt's rows
        // (their prefill activations); on llama.cpp, which allocates exact
        // buffers and whose own projection this model matches within 0.4 %
        // (runtime cross-check), it would mark every plan with under a fifth
        // of its memory spare as tight, and no row here measures it.
        g_bands.push_back(
            {"memory", method, method == "inference" ? fit_band(groups[method]) : held});
    }
    for (const auto& [name, ratios] : groups) {
        if (name.find(':') == std::string::npos) continue;
        std::set<std::string> sources;
        for (const auto& [src, r] : ratios) sources.insert(src);
        if (sources.size() < 2 || ratios.size() < 10) continue;
        const BandFit f = fit_band(ratios, true);
        g_bands.push_back({"memory", name, f});
        row(name, f, "the 80 % band");
    }
    std::cout
        << "\nThe `inference` band written is the in-sample 10-90 one: engines with no memory "
           "row of their own (llama.cpp, vLLM, SGLang, ...) fall back to it, and the held-out "
           "band's spread comes from transformers' and litgpt's prefill activations. On "
           "llama.cpp, which allocates exact buffers and whose own projection this model "
           "matches within 0.4 % (\"Cross-check with the runtimes\"), it would mark every "
           "plan with under a fifth of its memory spare as tight without a row to say so. "
           "Single-source engines and harnesses (litgpt, torchtune, ms-swift, Qwen-1's "
           "finetune.py, LLaMA-Factory) get no band of their own: no source can be held "
           "out.\n";
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
           "| issue 26, round three (from 1b848ee): FSDP's no_sync and root unit, transformers' "
           "growing KV cache, litgpt's chunked head and compute-dtype loss, autocast's fp32 "
           "cross-entropy, the recomputed layer apart from the loss, the allocator replayed "
           "(what must fit: the segments an out-of-memory retry cannot release), phi-2 and "
           "stablelm full fine-tunes on 2 GPUs | 294 | 2.2 / 16.8 % | 4.7 / 12.2 % | "
           "17.1 / 21.9 % | 12.3 / 55.2 % | 4.1 / 19.7 % |\n"
           "\nBy source, before / after issue 26 (median, p90 APE): ACCEL 3.8 / 4.8 % both; "
           "HFDOCS 9.4 / 11.6 % -> 7.7 / 13.7 %; LITGPT 8.2 / 36.8 % -> 6.5 / 25.0 %; "
           "LLAMAFACTORY 5.1 / 11.3 % -> 5.6 / 17.7 %; QWEN25 1.4 / 3.0 % both; QWEN3 7.6 / "
           "21.4 % both; TORCHTUNE 8.4 / 45.3 % -> 9.2 / 41.2 %.\n"
           "\nBy source, before / after round three: ACCEL 3.8 / 4.8 % both; HFDOCS 7.7 / "
           "13.7 % -> 11.6 / 16.7 %; LITGPT 6.5 / 25.0 % -> 6.6 / 19.6 %; LLAMAFACTORY 5.6 / "
           "17.7 % -> 7.1 / 20.2 %; QWEN25 1.4 / 3.0 % -> 0.8 / 2.5 %; QWEN3 7.6 / 21.4 % -> "
           "4.3 / 19.7 %; TORCHTUNE 9.2 / 41.2 % -> 6.5 / 44.4 %. Collected (memory_measured.csv, "
           "new this round; the before is 1b848ee's replay of them): FSDPQLORA 10.8 / 29.8 % -> "
           "9.2 / 26.9 %; MSSWIFT 11.0 / 32.0 % -> 7.6 / 28.7 %; QWEN1 15.5 / 33.2 % -> 15.5 / "
           "30.1 %; by method lora 12.2 / 28.1 % -> 7.5 / 26.8 %, qlora 17.5 / 36.8 % -> 17.7 / "
           "33.6 %, full 13.4 / 24.0 % -> 15.5 / 21.0 %, all 13.4 / 32.0 % -> 11.9 / 29.5 %.\n"
           "\nDeepSpeed ZeRO-2's gradient buckets (two of 2e8 elements, Qwen-1's "
           "ds_config_zero2.json; visible rows unchanged): QWEN1 15.5 / 30.1 % -> 14.6 / 24.3 %; "
           "collected qlora 17.7 / 33.6 % -> 15.1 / 28.9 %, lora 7.5 / 26.8 % -> 7.3 / 26.8 %, "
           "all 11.9 / 29.5 % -> 11.5 / 27.4 %.\n"
           "\nlitgpt keeps the previous step's graph, and with it old bitsandbytes' layer "
           "inputs (ctx.tensors), through the next forward (finetune/lora.py fit; from "
           "f73b3e8): qlora 17.1 / 21.9 % -> 9.2 / 18.1 %, all 4.1 / 19.7 % -> 3.7 / 18.0 %; "
           "inference, lora and full unchanged; LITGPT 6.6 / 19.6 % -> 5.9 / 16.3 %, every "
           "other source unchanged.\n"
           "\nms-swift 1.x-2.x patched torch.utils.checkpoint to use_reentrant=False "
           "(swift/llm/utils/model.py fix_gradient_checkpointing_warning), so bitsandbytes "
           "0.41.3's 4-bit inputs stay for every layer (--ckpt-reentrant; from 00d61bf): "
           "visible rows unchanged; MSSWIFT 7.6 / 28.7 % -> 7.6 / 26.8 % (its bitsandbytes "
           "QLoRA rows -26 / -29 / -31 % -> -15 / -15 / -11 %); collected qlora 15.1 / 28.9 % "
           "-> 14.2 / 26.5 %, all 11.5 / 27.4 % -> 11.0 / 26.5 %, lora and full unchanged.\n";
}

void calibration_report(const std::vector<Sample>& samples) {
    // One calibration per source and harness (method + engine, or method +
    // loss + optimizer step + checkpointing): the group's first per-GPU row
    // stands for the user's measured run; the group's other rows are the runs
    // already in the calibration file (their records narrow its scope) and the
    // rows it is judged on; other sources' rows of the harness are judged too.
    const auto record_of = [](const Sample& s) {
        Measured run;
        run.metric = s.metric;
        run.bytes = s.measured;
        run.bytes_origin = s.id;
        return make_record(s.workload, estimate(s.workload), run, nullptr, "", 0);
    };
    std::map<std::pair<std::string, std::string>, std::vector<const Sample*>> groups;
    for (const auto& s : samples)
        if (s.per_gpu)
            groups[{source_of(s.id), std::string(harness_part(calibration_key(s.workload)))}]
                .push_back(&s);
    struct PerSource {
        std::vector<double> before, after;
        std::size_t calibrations = 0, narrowed = 0;
    };
    std::map<std::string, PerSource> by_source;
    std::vector<double> same_model_before, same_model_after, other_model_before, other_model_after,
        other_source_before, other_source_after;
    std::vector<std::pair<std::string, double>> calibrated_ratios;
    std::size_t calibrations = 0;
    std::map<CalibrationScope, std::size_t> scopes;
    for (const auto& [key, rows] : groups) {
        if (rows.size() < 2) continue;
        const Sample& first = *rows.front();
        CalibrationRecord rec = record_of(first);
        std::vector<CalibrationRecord> existing;
        std::vector<const Sample*> others;
        for (const Sample* s : rows)
            if (s != &first) {
                existing.push_back(record_of(*s));
                others.push_back(s);
            }
        // The replay knows each run's workload: it re-estimates it with the
        // candidate record (the CLI scales the run's recorded estimate).
        const std::string narrowed =
            narrow_scope(rec, existing, [&](const CalibrationRecord& candidate, std::size_t i) {
                Calibration one;
                one.records.push_back(candidate);
                Workload w = others[i]->workload;
                w.calibration = &one;
                return metric_bytes(estimate(w), others[i]->metric);
            });
        ++calibrations;
        ++scopes[rec.scope];
        PerSource& ps = by_source[key.first];
        ++ps.calibrations;
        if (!narrowed.empty()) ++ps.narrowed;
        Calibration cal;
        cal.source = first.id;
        cal.records.push_back(rec);
        for (const auto& s : samples) {
            if (&s == &first || !s.per_gpu) continue;
            const std::string skey = calibration_key(s.workload);
            if (harness_part(skey) != key.second) continue;
            Workload w = s.workload;
            w.calibration = &cal;
            const double after = metric_bytes(estimate(w), s.metric);
            const double before_err = std::fabs(s.err(s.component));
            const double after_err = std::fabs(s.err(after));
            if (source_of(s.id) == key.first) {
                ps.before.push_back(before_err);
                ps.after.push_back(after_err);
                calibrated_ratios.emplace_back(key.first, s.measured / after);
                const bool same_model = skey == rec.key;
                (same_model ? same_model_before : other_model_before).push_back(before_err);
                (same_model ? same_model_after : other_model_after).push_back(after_err);
            } else {
                other_source_before.push_back(before_err);
                other_source_after.push_back(after_err);
            }
        }
    }
    std::cout
        << "\n## Calibration from one measured run\n\n"
        << "`gpuadvise calibrate` replayed on the visible and collected rows. For each source "
           "and harness (method + engine, or method + loss + optimizer step + checkpointing), "
           "the first per-GPU row is the user's measured run; the group's other rows are the "
           "runs already in the calibration file. The record corrects its own model and format "
           "at every batch and sequence in full and other models of the harness at weight "
        << fmt::format("{:g}", kOtherModelWeight)
        << " (calibration.hpp, kOtherModelWeight, assumed); where its correction would make the "
           "runs already in the file worse (median or p90 error), it narrows its scope to its "
           "model, then to its own run (calibrate.hpp, narrow_scope), as `calibrate` does with "
           "the records of the file. "
        << fmt::format(
               "{} calibrations: {} reach every model of their harness, {} their own "
               "model, {} only their own run.\n\n",
               calibrations, scopes[CalibrationScope::Harness], scopes[CalibrationScope::Model],
               scopes[CalibrationScope::Run])
        << "| rows corrected | rows | median APE before | after | p90 APE before | after |\n"
           "|---|---|---|---|---|---|\n";
    const auto line = [](std::string_view what, const std::vector<double>& b,
                         const std::vector<double>& a) {
        std::cout << fmt::format("| {} | {} | {} | {} | {} | {} |\n", what, b.size(),
                                 pct(quantile(b, 0.5)), pct(quantile(a, 0.5)),
                                 pct(quantile(b, 0.9)), pct(quantile(a, 0.9)));
    };
    line("same source, same model", same_model_before, same_model_after);
    line("same source, other models of the harness", other_model_before, other_model_after);
    line("other sources of the harness", other_source_before, other_source_after);
    std::cout << "\nBy source (the rows its calibrations corrected):\n\n"
                 "| source | calibrations | narrowed | rows | median APE before | after | "
                 "p90 APE before | after |\n|---|---|---|---|---|---|---|---|\n";
    std::size_t improved = 0, worsened = 0, judged = 0;
    for (const auto& [source, ps] : by_source) {
        if (ps.before.empty()) continue;
        ++judged;
        const double mb = quantile(ps.before, 0.5), ma = quantile(ps.after, 0.5);
        if (ma < mb) ++improved;
        if (ma > mb + 0.01) ++worsened;
        std::cout << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", source,
                                 ps.calibrations, ps.narrowed, ps.before.size(), pct(mb), pct(ma),
                                 pct(quantile(ps.before, 0.9)), pct(quantile(ps.after, 0.9)));
    }
    std::cout << fmt::format(
        "\nThe median error improves on {} of {} sources; it worsens by more than one point on "
        "{}.\n",
        improved, judged, worsened);
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
