// Multi-GPU training runs, FP8 pairs and the runtimes' own numbers (docs/accuracy.md).
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

struct RunModel {
    std::string preset;
    std::optional<std::string> config;
};
RunModel run_model(const Row& r) {
    const std::string m = lower(r.at("model"));
    const auto has = [&](std::string_view k) { return m.find(k) != std::string::npos; };
    const bool llama3 = has("llama 3") || has("llama3");
    if (llama3 && has("405")) return {"llama-3.1-405b", {}};
    if (llama3 && has("70")) return {"llama-3.1-70b", {}};
    if (llama3 && has("8b")) return {"llama-3.1-8b", {}};
    if (has("llama2-70b") || has("llama 2 70b")) return {"llama-2-70b", {}};
    if (has("llama2-13b")) return {"llama-2-13b", {}};
    if (has("llama2-7b")) return {"llama-2-7b", {}};
    if (has("deepseek") && has("v3")) return {"deepseek-v3", {}};
    if (has("qwen3_30b")) return {"qwen3-30b-a3b", {}};
    const auto num = [&](const char* k) -> double {
        const std::string v = r.at(k);
        return v.empty() ? 0.0 : std::stod(v);
    };
    const double L = num("layers"), h = num("hidden"), heads = num("heads"), V = num("vocab"),
                 params = num("params");
    const double kv = num("kv_heads") > 0 ? num("kv_heads") : heads;
    if (L > 0 && h > 0 && heads > 0 && V > 0 && params > 0) {
        const double kv_dim = kv * h / heads;
        const double ffn =
            (params - 2.0 * V * h - L * (2.0 * h * h + 2.0 * h * kv_dim)) / (3.0 * h * L);
        if (ffn > h)
            return {
                "",
                fmt::format(
                    R"({{"model_type":"llama","num_hidden_layers":{},"hidden_size":{},"intermediate_size":{},"num_attention_heads":{},"num_key_value_heads":{},"vocab_size":{},"max_position_embeddings":{}}})",
                    L, h, std::llround(ffn), heads, kv, V, std::max(num("seq_len"), 4096.0))};
    }
    return {};
}

// Tokens per GPU per second from a row's throughput: tokens directly, or
// TFLOP/s per GPU on the row's stated basis (Megatron's eq. 3 counts the
// recomputed forward: 96 l h^2 (1 + s/6h + V/16lh) per token; MFU bases are
// 6 N + 12 l h s). Rows without a stated basis are not converted.
std::optional<double> run_tokens_per_gpu(const Row& r, std::string* why) {
    const std::string metric = r.at("metric");
    const std::string value = r.at("value");
    if (value.empty()) {
        *why = "no throughput figure";
        return std::nullopt;
    }
    const double v = std::stod(value);
    if (metric == "tokens_per_s_per_gpu") return v;
    const std::string notes = lower(r.at("notes"));
    const auto num = [&](const char* k) { return r.at(k).empty() ? 0.0 : std::stod(r.at(k)); };
    const double l = num("layers"), h = num("hidden"), V = num("vocab"), s = num("seq_len"),
                 n = num("params");
    if (metric != "tflops_per_gpu" || l <= 0 || h <= 0 || s <= 0) {
        *why = "metric is not tokens/s or TFLOP/s per GPU with a model shape";
        return std::nullopt;
    }
    if (notes.find("eq.3") != std::string::npos ||
        notes.find("hardware tflops") != std::string::npos)
        return v * 1e12 / (96.0 * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h)));
    if (notes.find("mfu") != std::string::npos && n > 0)
        return v * 1e12 / (6.0 * n + 12.0 * l * h * s);
    *why = "TFLOP/s per GPU on an unstated FLOPs basis";
    return std::nullopt;
}

// The GPU count a whole run is replayed on when its source gives none (its
// GPU-hours depend on the per-GPU rate, which varies little with the count).
constexpr const char* kAssumedRunGpus = "2048";

void cluster_report(const std::string& dir) {
    const auto rows = bench::parse_csv(read_file(dir + "/large_runs.csv"));
    struct Out {
        std::string id, inputs;
        double measured = 0, estimated = 0;
        bool fp8 = false, split = false;  // split: tensor, pipeline, context or expert parallel
        double gpus = 0;
        bool moe = false;
        double total_tokens = 0, gpu_hours = 0;  // the run's published size, when given
        double est_hours = 0;                    // the plan's GPU-hours for that size
        bool hours_only = false;                 // no throughput row: GPU-hours only
    };
    std::vector<Out> outs;
    std::map<std::string, int> skipped;
    const auto network_of = [](const std::string& text) -> const Network* {
        const std::string t = lower(text);
        if (t.find("efa") != std::string::npos) return &parse_network("efa-v2", "bench row");
        if (t.find("roce") != std::string::npos && t.find("200") != std::string::npos)
            return &parse_network("roce-200", "bench row");
        if (t.find("roce") != std::string::npos) return &parse_network("roce-400", "bench row");
        if (t.find("hdr") != std::string::npos) return &parse_network("ib-hdr", "bench row");
        if (t.find("xdr") != std::string::npos) return &parse_network("ib-xdr", "bench row");
        return nullptr;  // the default (NDR)
    };
    const auto size = [](const std::string& v) {
        return v.empty() || v == "1" ? std::string() : v;
    };
    for (const Row& r : rows) {
        const std::string prec = lower(r.at("precision"));
        const std::string shard = lower(r.at("zero_stage_or_fsdp"));
        std::string why;
        const auto measured = run_tokens_per_gpu(r, &why);
        // A whole run with only its size and GPU-hours published (Llama 2 and 3 model
        // cards) is replayed for its GPU-hours: the layout is searched on the row's GPU
        // count, or on kAssumedRunGpus when the source gives none.
        const bool hours_only = !measured && !r.at("total_tokens").empty() &&
                                !r.at("gpu_hours").empty() && !r.at("seq_len").empty();
        if (!measured && !hours_only) {
            ++skipped[why];
            continue;
        }
        if (prec.find("fp4") != std::string::npos) {
            ++skipped["FP4 training (not modelled)"];
            continue;
        }
        const bool fp8 = prec.find("fp8") != std::string::npos;
        std::string gpu_name = r.at("gpu");
        gpu_name = gpu_name.substr(0, gpu_name.find(' '));
        // The runs' systems are HGX/DGX boards (SXM modules), as their sources say.
        static const std::map<std::string, std::string> sxm{
            {"nvidia-h100", "nvidia-h100-sxm5"},
            {"nvidia-h100-80gb", "nvidia-h100-sxm5"},
            {"nvidia-h100-sxm5-80gb", "nvidia-h100-sxm5"},
            {"nvidia-a100-40gb", "nvidia-a100-sxm4-40gb"},
            {"nvidia-a100-80gb", "nvidia-a100-80gb-sxm"},
            {"nvidia-a100-sxm4-80gb", "nvidia-a100-80gb-sxm"},
            {"nvidia-h200", "nvidia-h200-sxm"},
            {"nvidia-b200", "nvidia-b200"}};
        if (const auto it = sxm.find(gpu_name); it != sxm.end()) gpu_name = it->second;
        const Gpu* gpu = nullptr;
        try {
            gpu = &resolve_gpu(embedded::catalog(), gpu_name, "bench row");
        } catch (const InputError&) {
            ++skipped["GPU not in the catalog"];
            continue;
        }
        const RunModel model = run_model(r);
        Request q;
        ModelInputs inputs;
        if (!model.preset.empty()) {
            q.set(Field::Model, model.preset, "bench row");
        } else if (model.config) {
            q.set(Field::HfConfig, "row.json", "bench row");
            inputs.hf_config_text = *model.config;
            inputs.hf_config_source = r.at("id");
        } else {
            q.set(Field::Model, r.at("params"), "bench row");
        }
        q.set(Field::Method, "full", "bench row");
        q.set(Field::Precision, fp8 ? "fp8" : "bf16", "bench row");
        if (prec.find("pure") != std::string::npos)
            q.set(Field::MixedPrecision, "pure", "bench row");
        q.set(Field::Seq, r.at("seq_len"), "bench row");
        const std::string micro = r.at("micro_batch").empty() ? "1" : r.at("micro_batch");
        q.set(Field::Batch, micro, "bench row");
        const std::string ckpt = lower(r.at("activation_checkpointing"));
        q.set(Field::CkptMode,
              ckpt.empty() || ckpt == "none"                ? "none"
              : ckpt.find("selective") != std::string::npos ? "selective"
                                                            : "full",
              "bench row");
        q.set(Field::Gpus, r.at("num_gpus").empty() ? kAssumedRunGpus : r.at("num_gpus"),
              "bench row");
        // The layout: the row's sizes; dp is what they leave.
        const std::string tp = size(r.at("tp")), pp = size(r.at("pp")), cp = size(r.at("cp")),
                          ep = size(r.at("ep")), vpp = size(r.at("virtual_pp"));
        const bool split = !tp.empty() || !pp.empty() || !cp.empty() || !ep.empty();
        if (!tp.empty()) q.set(Field::Tp, tp, "bench row");
        if (!pp.empty()) q.set(Field::Pp, pp, "bench row");
        if (!cp.empty()) q.set(Field::Cp, cp, "bench row");
        if (!ep.empty()) q.set(Field::Ep, ep, "bench row");
        if (!vpp.empty() && !pp.empty() && std::all_of(vpp.begin(), vpp.end(), ::isdigit))
            q.set(Field::Vpp, vpp, "bench row");
        // The global batch, in sequences ("512 seq") or tokens ("16M tok").
        const std::string gb = lower(r.at("global_batch"));
        if ((split || hours_only) && !gb.empty()) {
            std::istringstream in(gb);
            std::string number, unit;
            in >> number >> unit;
            try {
                double seqs = static_cast<double>(parse_param_count(number, "bench row"));
                // "4M tok" is 2^22 tokens: token batches are powers of two of sequences.
                if (unit.rfind("tok", 0) == 0)
                    seqs = std::exp2(std::round(std::log2(seqs / std::stod(r.at("seq_len")))));
                q.set(Field::GlobalBatch, std::to_string(std::llround(seqs)), "bench row");
            } catch (const InputError&) {
            }
        }
        const bool ddp = shard.find("ddp") != std::string::npos &&
                         shard.find("fsdp") == std::string::npos &&
                         shard.find("distribute") == std::string::npos;
        // "params not resharded after forward" is ZeRO-2 (Llama 3's FSDP).
        const bool zero2 = shard.find("not resharded") != std::string::npos;
        const bool fsdp =
            shard.find("fsdp") != std::string::npos || shard.find("zero3") != std::string::npos;
        if (!hours_only)
            q.set(Field::Parallel,
                  split ? (zero2  ? "zero2"
                           : fsdp ? "fsdp"
                           : ddp  ? "ddp"
                                  : "zero1")
                        : (ddp ? "ddp" : "fsdp"),
                  "bench row");
        Workload w;
        try {
            w = resolve_workload(q, inputs, embedded::model_presets());
        } catch (const InputError& e) {
            ++skipped[std::string("workload not representable: ") + e.what()];
            continue;
        }
        const auto given = [&](const char* k) {
            try {
                return r.at(k).empty()
                           ? 0.0
                           : static_cast<double>(parse_param_count(r.at(k), "bench row"));
            } catch (const InputError&) {
                return 0.0;
            }
        };
        RankOptions o;
        if (!hours_only) o.parallel = w.parallel;
        o.network = network_of(r.at("network"));
        // The run's size, so the plan's own GPU-hours (with its goodput) are compared.
        if (given("total_tokens") > 0) o.job.tokens = given("total_tokens");
        const Recommendation rec = evaluate_plan(w, *gpu, w.gpus, o);
        const auto rate = rec.performance.train_tokens_per_s;
        if (!rate) {
            ++skipped["no training rate (card lacks the figures)"];
            continue;
        }
        outs.push_back({r.at("id"),
                        fmt::format("{} {} x {} s{} b{} {} {}{}", r.at("model"), w.gpus, gpu->id,
                                    w.seq, w.batch, layout_label(rec.layout), to_string(w.parallel),
                                    fp8 ? " fp8" : ""),
                        measured.value_or(0.0), *rate / static_cast<double>(w.gpus), fp8, split,
                        static_cast<double>(w.gpus), w.model.arch.is_moe()});
        outs.back().hours_only = hours_only;
        outs.back().total_tokens = given("total_tokens");
        outs.back().est_hours = rec.performance.gpu_hours.value_or(0.0);
        outs.back().gpu_hours = r.at("gpu_hours").empty() ? 0.0 : std::stod(r.at("gpu_hours"));
    }
    for (const auto& o : outs)
        if (!o.hours_only)
            g_rates.push_back(
                {o.id, o.gpus <= 8 ? "train (1-8 GPUs)" : "multi-node", o.measured, o.estimated});
    const auto stats = [&](const char* label, const auto& keep) {
        std::vector<double> err, ratio;
        for (const auto& o : outs)
            if (!o.hours_only && keep(o)) {
                err.push_back(std::fabs(o.estimated / o.measured - 1.0));
                ratio.push_back(o.estimated / o.measured);
            }
        if (err.empty()) return;
        std::cout << fmt::format("| {} | {} | {} | {} | {:.2f} |\n", label, err.size(),
                                 pct(quantile(err, 0.5)), pct(quantile(err, 0.9)),
                                 quantile(ratio, 0.5));
    };
    std::cout << "\n# Multi-GPU training runs\n\n"
              << "Rows of `bench/data/large_runs.csv` (published runs: papers, MosaicML "
                 "llm-foundry, torchtitan, NeMo, Megatron-Bridge) in bf16 or FP8, replayed as "
                 "`--method full --gpus N` with the run's model (a preset, else a config of the "
                 "row's shape), GPU, layout (`--tp --pp --cp --ep --vpp`, `--parallel "
                 "fsdp|ddp|zero1`), sequence, micro-batch, global batch, checkpointing and "
                 "fabric; tokens/s per GPU compared. TFLOP/s rows are converted on the basis "
                 "their source states (Megatron's eq. 3 with recompute, or 6N + 12 l h s "
                 "for MFU), else skipped.\n\n";
    std::cout << fmt::format(
        "Rows: {} replayed for throughput, {} whole runs for GPU-hours only (layout searched on "
        "{} GPUs where the source gives no count).\n\n",
        std::count_if(outs.begin(), outs.end(), [](const Out& o) { return !o.hours_only; }),
        std::count_if(outs.begin(), outs.end(), [](const Out& o) { return o.hours_only; }),
        kAssumedRunGpus);
    std::cout << "| rows | n | median error | p90 error | median ratio |\n|---|---|---|---|---|\n";
    stats("all", [](const Out&) { return true; });
    stats("data parallel, FSDP, ZeRO", [](const Out& o) { return !o.split; });
    stats("3D: tensor, pipeline, context or expert parallel", [](const Out& o) { return o.split; });
    stats("3D, dense models", [](const Out& o) { return o.split && !o.moe; });
    stats("3D, mixture-of-experts models", [](const Out& o) { return o.split && o.moe; });
    stats("8-64 GPUs", [](const Out& o) { return o.gpus <= 64; });
    stats("65-1024 GPUs", [](const Out& o) { return o.gpus > 64 && o.gpus <= 1024; });
    stats("1025-16384 GPUs", [](const Out& o) { return o.gpus > 1024; });
    stats("FP8", [](const Out& o) { return o.fp8; });
    // By source (the id's prefix: one paper or one engine's performance table).
    std::set<std::string> sources;
    for (const auto& o : outs)
        if (!o.hours_only) sources.insert(o.id.substr(0, o.id.find('-')));
    for (const std::string& source : sources) {
        const std::string label = "source " + source;
        stats(label.c_str(),
              [&](const Out& o) { return o.id.substr(0, o.id.find('-')) == source; });
    }
    // GPU-hours of whole runs: the published tokens at the estimated rate,
    // with the plan's goodput (restarts, evaluation, checkpoints).
    std::cout << "\n| GPU-hours of runs with a published size | inputs | tokens | published "
                 "GPU-hours | estimated | ratio |\n|---|---|---|---|---|---|\n";
    std::vector<double> hours_err;
    for (const auto& o : outs)
        if (o.total_tokens > 0 && o.gpu_hours > 0 && o.est_hours > 0) {
            const double est = o.est_hours;
            hours_err.push_back(std::fabs(est / o.gpu_hours - 1.0));
            std::cout << fmt::format("| {} | {} | {:.3g} | {:.4g} | {:.4g} | {:.2f} |\n", o.id,
                                     o.inputs, o.total_tokens, o.gpu_hours, est, est / o.gpu_hours);
        }
    if (!hours_err.empty())
        std::cout << fmt::format("\nGPU-hours: {} runs, median error {}, p90 {}.\n",
                                 hours_err.size(), pct(quantile(hours_err, 0.5)),
                                 pct(quantile(hours_err, 0.9)));
    std::cout << "\n";
    std::erase_if(outs, [](const Out& o) { return o.hours_only; });  // no rate to compare
    std::cout << "| skipped because | rows |\n|---|---|\n";
    for (const auto& [why, n] : skipped) std::cout << fmt::format("| {} | {} |\n", why, n);
    const auto table = [](const char* title, const auto& list) {
        std::cout << fmt::format(
            "\n| {} | inputs | measured tok/s/GPU | estimated | ratio |\n|---|---|---|---|---|\n",
            title);
        for (const Out* o : list)
            std::cout << fmt::format("| {} | {} | {:.0f} | {:.0f} | {:.2f} |\n", o->id, o->inputs,
                                     o->measured, o->estimated, o->estimated / o->measured);
    };
    const auto rows_where = [&](const auto& keep) {
        std::vector<const Out*> list;
        for (const auto& o : outs)
            if (keep(o)) list.push_back(&o);
        return list;
    };
    table("3D rows", rows_where([](const Out& o) { return o.split; }));
    table("FP8 rows", rows_where([](const Out& o) { return o.fp8; }));
    std::vector<const Out*> worst = rows_where([](const Out&) { return true; });
    std::sort(worst.begin(), worst.end(), [](const Out* a, const Out* b) {
        return std::fabs(std::log(a->estimated / a->measured)) >
               std::fabs(std::log(b->estimated / b->measured));
    });
    if (worst.size() > 5) worst.resize(5);
    table("worst rows", worst);
}

// FP8 over bf16 on the same job (bench/data/fp8_speedup.csv): pairs of
// published runs that differ only in precision, replayed with --precision
// bf16 and fp8; the predicted and measured speed-ups compared.
void fp8_report(const std::string& dir) {
    const auto rows = bench::parse_csv(read_file(dir + "/fp8_speedup.csv"));
    std::cout << "\n# FP8 training speed-up over bf16\n\n"
              << "Pairs of published runs in `bench/data/fp8_speedup.csv` that differ only in "
                 "precision (torchtitan, torchao, MosaicML llm-foundry), each replayed as "
                 "`--method full --parallel fsdp` with `--precision bf16` and `--precision fp8`; "
                 "speed-up = FP8 tokens/s over bf16 tokens/s.\n\n"
              << "| id | model | GPUs | seq | measured | predicted | ratio |\n"
                 "|---|---|---|---|---|---|---|\n";
    std::vector<double> err, ratio;
    for (const Row& r : rows) {
        const Gpu& gpu = resolve_gpu(embedded::catalog(), r.at("gpu"), "bench row");
        const auto rate = [&](const char* precision, const std::string& batch) {
            Request q;
            q.set(Field::Model, r.at("params"), "bench row");
            q.set(Field::Method, "full", "bench row");
            q.set(Field::Precision, precision, "bench row");
            q.set(Field::Seq, r.at("seq_len"), "bench row");
            q.set(Field::Batch, batch, "bench row");
            q.set(Field::CkptMode, r.at("activation_checkpointing"), "bench row");
            q.set(Field::Gpus, r.at("num_gpus"), "bench row");
            q.set(Field::Parallel, r.at("parallel"), "bench row");
            const Workload w = resolve_workload(q, {}, {});
            RankOptions o;
            o.parallel = w.parallel;
            return evaluate_plan(w, gpu, w.gpus, o).performance.train_tokens_per_s.value_or(0.0);
        };
        const double predicted =
            rate("fp8", r.at("fp8_micro_batch")) / rate("bf16", r.at("bf16_micro_batch"));
        const double measured = std::stod(r.at("fp8_tokens_per_s_per_gpu")) /
                                std::stod(r.at("bf16_tokens_per_s_per_gpu"));
        err.push_back(std::fabs(predicted / measured - 1.0));
        ratio.push_back(predicted / measured);
        std::cout << fmt::format("| {} | {} | {} x {} | {} | {:.2f}x | {:.2f}x | {:.2f} |\n",
                                 r.at("id"), r.at("model"), r.at("num_gpus"), gpu.id,
                                 r.at("seq_len"), measured, predicted, predicted / measured);
    }
    std::cout << fmt::format(
        "\nPairs: {}. Median error of the speed-up {}, p90 {}, median predicted / measured "
        "{:.2f}.\n",
        err.size(), pct(quantile(err, 0.5)), pct(quantile(err, 0.9)), quantile(ratio, 0.5));
}

// The runtimes' own numbers (bench/data/runtime_crosscheck.csv): what
// llama.cpp's dry run projects on the device, and how many layers' experts
// its --fit moves to the host, against the same workload here.
void runtime_report(const std::string& dir, const std::vector<ModelPreset>& presets) {
    std::string text;
    std::istringstream lines(read_file(dir + "/runtime_crosscheck.csv"));
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line[0] != '#') text += line + "\n";
    std::cout
        << "\n# Cross-check with the runtimes\n\n"
        << "Rows of `bench/data/runtime_crosscheck.csv` (a runtime's own log or docs) "
           "replayed with the same workload. device_buffers_mib compares with "
           "`allocated_bytes` (the runtime's projection has no CUDA context); "
           "expert_layers_on_host with `--offload auto`.\n\n"
        << "| id | workload | metric | runtime | gpuadvise | error |\n|---|---|---|---|---|---|\n";
    for (const Row& r : bench::parse_csv(text)) {
        Request q;
        q.set(Field::Model, r.at("model"), "bench row");
        q.set(Field::Quant, r.at("quant"), "bench row");
        q.set(Field::Engine, r.at("engine"), "bench row");
        q.set(Field::Seq, r.at("seq"), "bench row");
        const Workload w = resolve_workload(q, {}, presets);
        const double measured = std::stod(r.at("measured"));
        double ours = 0;
        if (r.at("metric") == "device_buffers_mib") {
            ours = static_cast<double>(estimate(w).allocated_bytes) / 1048576.0;
        } else {
            RankOptions o;
            o.offload = parse_offload(r.at("offload"), "bench row");
            const Gpu& g = resolve_gpu(embedded::catalog(), r.at("gpu"), "bench row");
            const Recommendation rec = evaluate_plan(w, g, 1, o);
            ours = rec.offload ? static_cast<double>(rec.offload->host_expert_layers) : 0.0;
        }
        std::cout << fmt::format("| {} | {} {} {} ctx {}{} | {} | {:.0f} | {:.0f} | {} |\n",
                                 r.at("id"), r.at("model"), r.at("quant"), r.at("engine"),
                                 r.at("seq"), r.at("gpu").empty() ? "" : " on " + r.at("gpu"),
                                 r.at("metric"), measured, ours, pct(ours / measured - 1.0));
    }
}

}  // namespace accuracy
