// Speed: every throughput row replayed through the speed model (docs/accuracy.md).
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

// Replays one throughput row: the workload through the CLI's path, the GPU
// through the catalog's name resolution, the plan through estimate_performance.
std::optional<SpeedSample> replay_speed(const Row& r, const Json& models_json,
                                        const std::vector<ModelPreset>& presets, std::string* why) {
    const std::string phase = r.at("phase"), metric = r.at("metric"),
                      format = r.at("weight_format");
    if (metric == "tflops") {
        *why = "achieved-TFLOP/s rows (Megatron) are not a rate the model reports";
        return std::nullopt;
    }
    if (metric == "images_per_s" || r.at("layers").empty()) {
        *why = "not a transformer language model";
        return std::nullopt;
    }
    Row m = r;  // the memory replay's column names
    m["tied_embeddings"] = "0";
    m["moe_experts"] = "0";
    m["moe_active_experts"] = "0";
    m["mixed_precision"] = "";
    m["optimizer"] = "";
    m["optimizer_in_backward"] = "0";
    m["grad_ckpt"] = "0";
    // The BERT rows' harnesses (NVIDIA DeepLearningExamples' BERT, which
    // Lambda's benchmark runs, and transformers' BertSelfAttention before its
    // SDPA path) materialise the attention scores.
    m["flash_attn"] = r.at("model_type") == "bert" ? "0" : "";
    m["lora_rank"] = "8";
    m["lora_targets"] = "q,v";
    m["activation_offload"] = "0";
    m["metric"] = "";
    std::string method = r.at("method");
    if (method == "adapter" || method == "pretrain")
        method = method == "pretrain" ? "full" : method;
    if (method == "adapter") {
        *why = "LLaMA-Adapter is not a modelled method";
        return std::nullopt;
    }
    m["method"] = method;
    std::string quant;
    std::string engine = r.at("engine");
    if (format == "gguf-q4_k_m")
        quant = "q4_k_m";
    else if (format == "gguf-q4_0")
        quant = "q4_0";
    else if (format == "gguf-q8_0")
        quant = "q8_0";
    else if (format == "gguf-f16")
        m["weight_format"] = "fp16";
    else if (format == "fp8")
        m["weight_format"] = "other:fp8";
    else if (format == "other:int4-wo-g32")
        m["weight_format"] = "gptq-int4";
    // MLX affine quantisation with groups of 64 (mlx-lm's default): the
    // catalog's 4- and 8-bit formats; other widths and groups are not formats here.
    else if (format == "other:mlx-q4")
        quant = "mlx-4bit";
    else if (format == "other:mlx-q8")
        quant = "mlx-8bit";
    else if (starts_with(format, "exl2") || format == "other:16bit-mixed" ||
             format == "other:bnb-fp4") {
        *why = "weight format " + format + " is not modelled";
        return std::nullopt;
    }
    if (!quant.empty()) m["weight_format"] = "bf16";
    if (method != "inference" && m["weight_format"] == "fp32") m["mixed_precision"] = "amp";
    m["compute_dtype"] = r.at("compute_dtype");
    if (method == "inference") {
        if (m["prompt_len"].empty()) m["prompt_len"] = "1";
        if (m["gen_len"].empty() || m["gen_len"] == "0") m["gen_len"] = "1";
        if (m["prompt_len"] == "0") m["prompt_len"] = "1";
    }
    if (m["seq_len"].empty()) {
        *why = "sequence length not stated";
        return std::nullopt;
    }
    Replay replay = replay_request(m, models_json, presets);
    if (!replay.request) {
        *why = replay.skip;
        return std::nullopt;
    }
    RowRequest q = *replay.request;
    if (!quant.empty()) q.set(Field::Quant, quant);
    if (method == "inference") {
        static const std::map<std::string, std::string> engines{
            {"llama.cpp", "llama.cpp"}, {"autoawq", "autoawq"},  {"transformers", "transformers"},
            {"litgpt", "litgpt"},       {"vllm", "vllm"},        {"tensorrt-llm", "tensorrt-llm"},
            {"exllamav2", "exllamav2"}, {"gpt-fast", "pytorch"}, {"torchao", "pytorch"},
            {"pytorch", "pytorch"},     {"mlx", "mlx"},          {"sglang", "sglang"}};
        const auto it = engines.find(engine);
        if (it == engines.end()) {
            *why = "engine " + engine + " is not modelled";
            return std::nullopt;
        }
        q.set(Field::Engine, it->second);
    } else {
        q.reset(Field::LoraRank);
        q.reset(Field::LoraTargets);
        if (method == "lora" || method == "qlora") {
            q.set(Field::LoraRank, "8");
            q.set(Field::LoraTargets, "q,v");
        }
    }
    Workload w;
    const Gpu* gpu = nullptr;
    try {
        w = resolve_workload(q.fields, q.inputs, presets);
        // An engine profile under fit (accuracy_fit.cpp) stands in for the table's.
        if (w.engine)
            if (const auto it = g_engine_override.find(std::string(w.engine->id));
                it != g_engine_override.end())
                w.engine = &it->second;
        gpu = &resolve_gpu(embedded::catalog(), r.at("gpu"));
    } catch (const InputError& e) {
        *why = std::string("not representable: ") + e.what();
        return std::nullopt;
    }
    // A row of an older build runs with that build's launch costs and
    // quantised-prefill share (bench/data/engine_builds.csv).
    Engine built;
    double mmq = 0;
    const EngineBuild* build = w.engine ? build_of(r.at("id"), w.engine->id) : nullptr;
    if (build) {
        built = *w.engine;
        built.layer_overhead_s = build->layer_overhead_s;
        built.step_overhead_s = build->step_overhead_s;
        w.engine = &built;
        mmq = speed_fit("llamacpp_mmq_share");
        set_speed_fit_override("llamacpp_mmq_share", build->mmq_share);
    }
    const MemoryEstimate mem = estimate_memory(w);
    const Performance p = estimate_performance(w, mem, *gpu);
    if (build) set_speed_fit_override("llamacpp_mmq_share", mmq);
    const double n = static_cast<double>(w.gpus);
    const bool per_gpu = r.at("scope") == "per_gpu";
    std::optional<double> est;
    if (phase == "decode")
        est = p.decode_tokens_per_s;
    else if (phase == "prefill")
        est = p.prefill_tokens_per_s;
    else if (phase == "end_to_end_generate" && p.decode_tokens_per_s) {
        const double b = static_cast<double>(w.batch), gen = static_cast<double>(w.gen);
        const double seconds =
            p.time_to_first_token_s.value_or(0.0) + gen * b / *p.decode_tokens_per_s;
        est = gen * b / seconds;
    } else if (phase == "train" && p.train_tokens_per_s) {
        const double tps = *p.train_tokens_per_s / (per_gpu ? n : 1.0);
        if (metric == "tokens_per_s")
            est = tps;
        else if (metric == "samples_per_s")
            est = tps / static_cast<double>(w.seq);
        else if (metric == "seconds_per_step")
            est = p.step_seconds;
    }
    if (!est) {
        *why = "the card lacks the throughput figures for this phase (null in the catalog)";
        return std::nullopt;
    }
    SpeedSample sample;
    sample.id = r.at("id");
    sample.phase = phase == "end_to_end_generate" ? "generate" : phase;
    sample.engine = method == "inference" ? engine : "pytorch-train (" + engine + ")";
    sample.measured = std::stod(r.at("value"));
    sample.estimated = *est;
    sample.gpus = w.gpus;
    sample.time = metric == "seconds_per_step";
    sample.inputs = fmt::format("{} {} {} b{} s{} {}x {} {}", r.at("model"), method, format,
                                w.batch, w.seq, w.gpus, gpu->id, metric);
    return sample;
}

// The shared reference rows, then the collected ones in the same layout
// (bench/data/README.md, "Collected speed rows").
std::vector<Row> throughput_rows(const std::string& dir, std::size_t* visible) {
    auto rows = bench::parse_csv(read_file(dir + "/throughput_visible.csv"));
    if (visible) *visible = rows.size();
    if (std::ifstream(dir + "/throughput_measured.csv")) {
        auto more = bench::parse_csv(read_file(dir + "/throughput_measured.csv"));
        rows.insert(rows.end(), more.begin(), more.end());
    }
    return rows;
}

// What `gpuadvise calibrate` does for a user with one measured run: for each
// source, the first per-GPU row of each calibration key is the measured run;
// it corrects that source's other rows of the key (the user's next runs) and
// the other sources' rows of the key (the same correction elsewhere).
void speed_report(const std::string& dir, const Json& models_json,
                  const std::vector<ModelPreset>& presets) {
    std::size_t visible = 0;
    const auto rows = throughput_rows(dir, &visible);
    std::vector<SpeedSample> samples;
    std::vector<std::pair<std::string, std::string>> skipped;
    for (const Row& r : rows) {
        std::string why;
        if (auto s = replay_speed(r, models_json, presets, &why))
            samples.push_back(*s);
        else
            skipped.emplace_back(r.at("id"), why);
    }
    // GPUADVISE_ACCURACY_DUMP=FILE: every replayed row, for a closer look.
    if (const char* dump = std::getenv("GPUADVISE_ACCURACY_DUMP")) {
        std::ofstream f(dump);
        for (const SpeedSample& s : samples)
            f << s.id << '\t' << s.phase << '\t' << s.engine << '\t' << s.inputs << '\t'
              << s.measured << '\t' << s.estimated << '\t' << s.ratio() << '\n';
    }
    for (const SpeedSample& s : samples) {
        const std::string group = s.phase != "train" ? s.phase
                                  : s.gpus <= 8      ? "train (1-8 GPUs)"
                                                     : "multi-node";
        // As rates: a time per step is inverted.
        if (s.time)
            g_rates.push_back({s.id, group, 1.0 / s.measured, 1.0 / s.estimated});
        else
            g_rates.push_back({s.id, group, s.measured, s.estimated});
    }
    std::cout << "\n# Accuracy of the speed estimate\n\n"
              << "Every row of `bench/data/throughput_visible.csv` and of "
                 "`bench/data/throughput_measured.csv` (the collected rows, same layout) "
                 "replayed through `estimate_performance` with the row's "
              << "engine, GPU (catalog name resolution), plan and workload. Error = |estimate / "
                 "measured - 1| "
              << "(for seconds_per_step rows the ratio of times).\n\n";
    std::cout << fmt::format(
        "Rows: {} replayed, {} skipped (reasons below), of {} visible and {} collected.\n\n",
        samples.size(), skipped.size(), visible, rows.size() - visible);
    std::cout << "| phase | engine | rows | median error | p90 error | median ratio "
                 "|\n|---|---|---|---|---|---|\n";
    std::map<std::pair<std::string, std::string>, std::vector<const SpeedSample*>> groups;
    for (const auto& s : samples) {
        groups[{s.phase, s.engine}].push_back(&s);
        groups[{s.phase, "all"}].push_back(&s);
    }
    for (const auto& [key, list] : groups) {
        std::vector<double> err, ratio;
        for (const auto* s : list) {
            err.push_back(std::fabs(s->ratio() - 1.0));
            ratio.push_back(s->ratio());
        }
        std::cout << fmt::format("| {} | {} | {} | {} | {} | {:.2f} |\n", key.first, key.second,
                                 list.size(), pct(quantile(err, 0.5)), pct(quantile(err, 0.9)),
                                 quantile(ratio, 0.5));
    }
    // Recorded by hand from this tool's output before and after the change
    // (main at 651a5ef, then issue 27's inference part), on the same rows.
    std::cout
        << "\n## Changes to the inference speed model (recorded)\n\n"
           "Median / p90 error by phase and engine on the same rows, before (main at 651a5ef: "
           "one bandwidth share per engine, launches per layer, quantised prefill at one MMQ "
           "share) and after issue 27's inference part (a step as its kernels run: GEMMs, KV, "
           "element-wise work, dequantisation; the SMs' streaming limit; per-step costs; "
           "llama.cpp's pipelined prefill and its May-2024 build; the head for the sampled "
           "tokens only). The 253 rows of Qwen's Qwen2.5 speed benchmark (vLLM 0.6.3 and "
           "transformers on an A100, `T-QWEN25SPD-*`) were added with the change; on the 249 "
           "generate rows before them: 42.5 / 120.1 % -> 13.2 / 45.2 %.\n\n"
           "| phase | engine | rows | before | after |\n|---|---|---|---|---|\n"
           "| decode | all | 292 | 7.8 / 47.4 % | 5.3 / 22.4 % |\n"
           "| decode | autoawq | 32 | 10.0 / 33.5 % | 10.2 / 29.7 % |\n"
           "| decode | llama.cpp | 255 | 7.3 / 50.3 % | 5.0 / 18.7 % |\n"
           "| decode | mlx | 5 | 1.9 / 16.5 % | 1.5 / 16.5 % |\n"
           "| generate | all | 502 | 35.4 / 122.3 % | 10.0 / 38.1 % |\n"
           "| generate | gpt-fast | 23 | 7.3 / 27.1 % | 5.8 / 26.5 % |\n"
           "| generate | litgpt | 17 | 12.9 / 38.2 % | 11.8 / 38.7 % |\n"
           "| generate | sglang | 114 | 81.6 / 147.0 % | 9.5 / 37.9 % |\n"
           "| generate | transformers | 207 | 30.2 / 82.8 % | 14.3 / 42.6 % |\n"
           "| generate | vllm | 141 | 25.9 / 172.9 % | 3.7 / 11.6 % |\n"
           "| prefill | all | 274 | 23.1 / 76.5 % | 16.6 / 75.9 % |\n"
           "| prefill | autoawq | 24 | 66.1 / 80.3 % | 66.8 / 80.9 % |\n"
           "| prefill | llama.cpp | 245 | 22.4 / 69.4 % | 16.3 / 58.8 % |\n"
           "| prefill | mlx | 5 | 2.6 / 8.4 % | 5.4 / 20.5 % |\n"
           "\nWhat the rows that are still off measure: AutoAWQ's prefill rows mix its GEMV and "
           "GEMM kernel versions (each row's notes say which; the GEMV version runs a prompt a "
           "few tokens at a time, 0.6-1.1k tok/s, the GEMM one 1-4k) and the replay cannot tell "
           "them apart; SGLang 0.4.6's GPTQ-Int4 MoE rows (6) ran vLLM 0.7.2's Marlin MoE, one "
           "kernel per expert of 128 (Qwen's note: \"needs improvement\"), 2-9x slower than "
           "the model's fused MoE; transformers' host cost per layer differs by host and release "
           "(0.6 ms on Qwen's H20 host, 0.9 ms on its A100 host): one profile fits both to "
           "about 15-25 %; XiongjieDai's 70B multi-GPU prefill rows do not pipeline as its 8B "
           "rows do (2 and 4 GPUs equal) and come out up to 2x fast.\n";
    for (const std::string phase : {"decode", "prefill", "generate", "train"}) {
        std::vector<const SpeedSample*> worst;
        for (const auto& s : samples)
            if (s.phase == phase) worst.push_back(&s);
        std::sort(worst.begin(), worst.end(), [](const SpeedSample* a, const SpeedSample* b) {
            return std::fabs(std::log(a->ratio())) > std::fabs(std::log(b->ratio()));
        });
        if (worst.size() > 5) worst.resize(5);
        std::cout << fmt::format(
            "\n## Worst five rows: {}\n\n| id | inputs | measured | estimated | ratio "
            "|\n|---|---|---|---|---|\n",
            phase);
        for (const auto* s : worst)
            std::cout << fmt::format("| {} | {} | {:.4g} | {:.4g} | {:.2f} |\n", s->id, s->inputs,
                                     s->measured, s->estimated, s->ratio());
    }
    std::cout << "\n## Error bands (speed)\n\n| phase | " << kBandHeader << "\n|---|" << kBandRule
              << "\n";
    for (const std::string phase : {"decode", "prefill", "train"}) {
        std::vector<std::pair<std::string, double>> ratios;
        for (const auto& s : samples)
            if (s.phase == phase) ratios.emplace_back(source_of(s.id), 1.0 / s.ratio());
        const BandFit f = fit_band(ratios);
        g_bands.push_back({phase, "all", f});
        std::cout << fmt::format("| {} | {}\n", phase, band_cells(f));
    }
    std::map<std::string, int> reasons;
    for (const auto& [id, why] : skipped) ++reasons[why];
    std::cout << "\n## Skipped throughput rows by reason\n\n| reason | rows |\n|---|---|\n";
    for (const auto& [why, count] : reasons) std::cout << fmt::format("| {} | {} |\n", why, count);
}

// Image generation and vision rows (bench/data/image_measured.csv, written
// by scripts/build_image_rows.py): each replayed as a --model preset with the
// row's resolution, batch, steps, precision, quantization and offload, on the
// row's GPU; speed against images/s, seconds per image or per denoising
// step, memory against the reserved (max_reserved) or allocated peak.

}  // namespace accuracy

namespace accuracy {

namespace {

// A plan as `gpuadvise estimate --gpu` makes it, from batch-line keys
// ("model=sdxl;steps=30"): the workload, the ranking options, the box and its plan.
struct PlanRun {
    std::optional<Recommendation> rec;
    std::string why;
};
PlanRun run_plan(const std::string& gpu, const std::string& args,
                 const std::vector<ModelPreset>& presets) {
    PlanRun out;
    Request q;
    std::istringstream in(args);
    for (std::string kv; std::getline(in, kv, ';');) {
        const auto eq = kv.find('=');
        const FieldSpec* f = find_field_by_key(kv.substr(0, eq));
        if (!f || eq == std::string::npos) {
            out.why = "unknown key in '" + kv + "'";
            return out;
        }
        q.set(f->field, kv.substr(eq + 1), "bench row");
    }
    q.set(Field::Gpu, gpu, "bench row");
    try {
        Workload w = resolve_workload(q, {}, presets);
        const RankOptions o = rank_options(q, w);
        std::deque<Gpu> made;
        std::vector<const Gpu*> cards = box_cards(embedded::catalog(), q, w, made);
        out.rec = plan_box(q, w, cards, o);
    } catch (const InputError& e) {
        out.why = e.what();
    }
    return out;
}

std::optional<double> quantity_of(const Performance& p, const std::string& q) {
    if (q == "decode_tokens_per_s") return p.decode_tokens_per_s;
    if (q == "prefill_tokens_per_s") return p.prefill_tokens_per_s;
    if (q == "time_to_first_token_s") return p.time_to_first_token_s;
    if (q == "train_tokens_per_s") return p.train_tokens_per_s;
    if (q == "seconds_per_image") return p.seconds_per_image;
    if (q == "images_per_s") return p.images_per_s;
    if (q == "gpu_hours") return p.gpu_hours;
    return std::nullopt;
}

// The dense matmul rate the model uses for a card and dtype: its attainable
// rate (data/attainable.json; a measured card's own rows, so a pair of two
// measured cards checks the table, one of an estimated card its basis).
std::optional<double> matmul_rate(const Gpu& gpu, std::string_view dtype) {
    return attainable_rate(gpu, dtype == "fp8" ? RateDtype::Fp8 : RateDtype::Bf16).tflops;
}

struct GroupStats {
    std::size_t rows = 0;
    double median = 0, p90 = 0;
};
std::map<std::string, GroupStats> g_group_stats;
double g_pairs_within = 0;
std::size_t g_pairs_rows = 0;

}  // namespace

// Published pairs of cards measured in one benchmark (bench/data/pairs.csv):
// the estimated speed ratio of the two cards against the measured one.
void pairs_report(const std::string& dir, const std::vector<ModelPreset>& presets) {
    const auto rows = bench::parse_csv(read_file(dir + "/pairs.csv"));
    std::map<std::string, const RateSample*> by_id;
    for (const RateSample& s : g_rates) by_id[s.id] = &s;
    struct Out {
        std::string id, phase, workload, a, b;
        double measured = 0, estimated = 0;
        double error() const { return std::fabs(estimated / measured - 1.0); }
    };
    std::vector<Out> outs;
    std::map<std::string, int> skipped;
    for (const Row& r : rows) {
        if (r.at("in_catalog_a") != "1" || r.at("in_catalog_b") != "1") {
            ++skipped["a card of the pair is not in the catalog"];
            continue;
        }
        const Gpu *ga = nullptr, *gb = nullptr;
        try {
            ga = &resolve_gpu(embedded::catalog(), r.at("card_a"), "bench row");
            gb = &resolve_gpu(embedded::catalog(), r.at("card_b"), "bench row");
        } catch (const InputError&) {
            ++skipped["a card id does not resolve in the catalog"];
            continue;
        }
        Out o{r.at("id"),
              r.at("phase"),
              r.at("workload"),
              std::string(ga->id),
              std::string(gb->id),
              std::stod(r.at("ratio_a_over_b")),
              0};
        const std::string phase = r.at("phase"), work = r.at("workload");
        std::optional<double> ea, eb;
        if (phase == "matmul") {
            const std::string dtype = work.find("fp8") != std::string::npos ? "fp8" : "bf16";
            ea = matmul_rate(*ga, dtype);
            eb = matmul_rate(*gb, dtype);
        } else if (!r.at("row_a").empty() && !r.at("row_b").empty()) {
            const auto a = by_id.find(r.at("row_a")), b = by_id.find(r.at("row_b"));
            if (a == by_id.end() || b == by_id.end()) {
                ++skipped["a row of the pair was not replayed (see the skipped rows)"];
                continue;
            }
            ea = a->second->estimated;
            eb = b->second->estimated;
        } else {
            // Lambda's v1 tables (no rows here): NVIDIA DeepLearningExamples'
            // ResNet-50 (batch 256 per GPU, its A100 default) and BERT-large
            // SQuAD fine-tuning (sequence 384, batch 32), AMP or FP32/TF32.
            const bool amp = work.find("AMP") != std::string::npos;
            std::string args;
            if (work.find("ResNet-50") != std::string::npos)
                args = std::string("model=resnet50;method=full;batch=256;precision=") +
                       (amp ? "fp16" : "fp32");
            else if (work.find("BERT-large") != std::string::npos)
                args = std::string(
                           "model=bert-large-uncased;method=full;seq=384;batch=32;"
                           "grad_ckpt=false;flash_attn=false;precision=") +
                       (amp ? "fp16;mixed_precision=amp" : "fp32");
            if (args.empty()) {
                ++skipped["the workload is not a modelled architecture (Transformer-XL)"];
                continue;
            }
            const std::string quantity =
                work.find("ResNet") != std::string::npos ? "images_per_s" : "train_tokens_per_s";
            const PlanRun pa = run_plan(std::string(ga->id), args, presets),
                          pb = run_plan(std::string(gb->id), args, presets);
            if (!pa.rec || !pb.rec) {
                ++skipped["not representable: " + (pa.rec ? pb.why : pa.why).substr(0, 80)];
                continue;
            }
            ea = quantity_of(pa.rec->performance, quantity);
            eb = quantity_of(pb.rec->performance, quantity);
        }
        if (!ea || !eb || !(*eb > 0)) {
            ++skipped["no estimate for one card of the pair"];
            continue;
        }
        o.estimated = *ea / *eb;
        outs.push_back(o);
    }
    std::cout << "\n# Pairs of cards measured in one benchmark\n\n"
              << "Every pair of `bench/data/pairs.csv` (the same table and settings on two "
                 "cards): the estimated speed of card A over card B against the measured ratio. "
                 "Pairs whose rows are in the replayed files use those rows' estimates; Lambda's "
                 "v1 tables are replayed as DeepLearningExamples' ResNet-50 (batch 256) and "
                 "BERT-large SQuAD (sequence 384, batch 32) on each card; matmul pairs compare "
                 "the dense matmul rate the model uses, the attainable one (both cards of every "
                 "matmul pair are measured, so those pairs check the table, not an estimate). "
                 "Target: the estimated ratio within 15 % of the measured one.\n\n";
    std::map<std::string, std::vector<const Out*>> by_phase;
    for (const Out& o : outs) {
        by_phase[o.phase].push_back(&o);
        by_phase["all"].push_back(&o);
    }
    std::cout << "| phase | pairs | within 15 % | median error of the ratio | p90 |\n"
                 "|---|---|---|---|---|\n";
    for (const auto& [phase, list] : by_phase) {
        std::vector<double> err;
        std::size_t within = 0;
        for (const Out* o : list) {
            err.push_back(o->error());
            if (o->error() <= 0.15) ++within;
        }
        const double share = static_cast<double>(within) / static_cast<double>(list.size());
        if (phase == "all") {
            g_pairs_within = share;
            g_pairs_rows = list.size();
        }
        std::cout << fmt::format("| {} | {} | {} | {} | {} |\n", phase, list.size(), pct(share),
                                 pct(quantile(err, 0.5)), pct(quantile(err, 0.9)));
    }
    std::cout << "\n| id | phase | workload | A | B | measured A/B | estimated | est / meas |\n"
                 "|---|---|---|---|---|---|---|---|\n";
    for (const Out& o : outs)
        std::cout << fmt::format("| {} | {} | {} | {} | {} | {:.3f} | {:.3f} | {:.2f} |\n", o.id,
                                 o.phase, o.workload, o.a, o.b, o.measured, o.estimated,
                                 o.estimated / o.measured);
    std::cout << "\n| pairs skipped because | pairs |\n|---|---|\n";
    for (const auto& [why, n] : skipped) std::cout << fmt::format("| {} | {} |\n", why, n);
}

// The examples of issue 27 (bench/data/issue_examples.csv), each as the CLI's
// `estimate --gpu` plan, against the measured range its source quotes.
void examples_report(const std::string& dir, const std::vector<ModelPreset>& presets) {
    const std::string path = dir + "/issue_examples.csv";
    if (!std::ifstream(path)) return;
    std::cout << "\n# The examples of issue 27\n\n"
              << "Each row of `bench/data/issue_examples.csv` estimated as `gpuadvise estimate "
                 "--gpu` would (a ratio of two plans where the row names two), against the "
                 "range its source measures; an empty bound is open.\n\n"
              << "| id | example | quantity | estimated | measured range | inside | source |\n"
                 "|---|---|---|---|---|---|---|\n";
    std::size_t inside = 0, rows = 0;
    for (const Row& r : bench::parse_csv(read_file(path))) {
        const auto value = [&](const std::string& gpu,
                               const std::string& args) -> std::optional<double> {
            const PlanRun p = run_plan(gpu, args, presets);
            if (!p.rec) return std::nullopt;
            return quantity_of(p.rec->performance, r.at("quantity"));
        };
        std::optional<double> v = value(r.at("gpu_a"), r.at("args_a"));
        const bool ratio = !r.at("gpu_b").empty();
        if (v && ratio) {
            const auto b = value(r.at("gpu_b"), r.at("args_b"));
            v = b && *b > 0 ? std::optional(*v / *b) : std::nullopt;
        }
        const std::string lo = r.at("low"), hi = r.at("high");
        const bool ok =
            v && (lo.empty() || *v >= std::stod(lo)) && (hi.empty() || *v <= std::stod(hi));
        ++rows;
        if (ok) ++inside;
        const std::string range = lo.empty()   ? "at most " + hi
                                  : hi.empty() ? "at least " + lo
                                               : lo + " to " + hi;
        std::cout << fmt::format("| {} | {} | {}{} | {} | {} | {} | {} |\n", r.at("id"),
                                 r.at("example"), ratio ? "ratio of " : "", r.at("quantity"),
                                 v ? fmt::format("{:.4g}", *v) : "none", range, ok ? "yes" : "no",
                                 r.at("source"));
    }
    std::cout << fmt::format("\nInside the measured range: {} of {}.\n", inside, rows);
}

// The targets by group (median <= 15 %, p90 <= 40 %) over every replayed
// rate, beside the same groups before the attainable-rate model
// (bench/data/speed_before.csv, written once with --write-before).
void summary_report(const std::string& dir, const std::string& write_before) {
    std::map<std::string, std::vector<double>> err;
    for (const RateSample& s : g_rates) err[s.group].push_back(std::fabs(s.ratio() - 1.0));
    // GPUADVISE_RATES_DUMP=FILE: every row of the groups, for a closer look.
    if (const char* dump = std::getenv("GPUADVISE_RATES_DUMP")) {
        std::ofstream f(dump);
        for (const RateSample& s : g_rates)
            f << s.id << '\t' << s.group << '\t' << s.measured << '\t' << s.estimated << '\t'
              << s.ratio() << '\n';
    }
    for (const auto& [group, list] : err)
        g_group_stats[group] = {list.size(), quantile(list, 0.5), quantile(list, 0.9)};
    std::map<std::string, GroupStats> before;
    double before_pairs = -1;
    if (std::ifstream(dir + "/speed_before.csv"))
        for (const Row& r : bench::parse_csv(read_file(dir + "/speed_before.csv"))) {
            if (r.at("group") == "pairs within 15 %")
                before_pairs = std::stod(r.at("median"));
            else
                before[r.at("group")] = {static_cast<std::size_t>(std::stoul(r.at("rows"))),
                                         std::stod(r.at("median")), std::stod(r.at("p90"))};
        }
    std::cout << "\n# Speed by group: before and after\n\n"
              << "Every replayed speed row (throughput, multi-GPU runs, images; times as rates), "
                 "error = |estimated / measured rate - 1|. Targets: median <= 15 % and p90 <= "
                 "40 % in every group (prefill is shown, not targeted). Before: the model of "
                 "one efficiency times the datasheet peak (bench/data/speed_before.csv, the "
                 "same replay of the same rows).\n\n"
              << "| group | rows | median | p90 | before: rows | median | p90 |\n"
                 "|---|---|---|---|---|---|---|\n";
    for (const std::string_view g : kSpeedGroups) {
        const std::string group(g);
        const auto a = g_group_stats.find(group);
        const auto b = before.find(group);
        std::cout << fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", group,
                                 a == g_group_stats.end() ? 0 : a->second.rows,
                                 a == g_group_stats.end() ? "-" : pct(a->second.median),
                                 a == g_group_stats.end() ? "-" : pct(a->second.p90),
                                 b == before.end() ? "-" : std::to_string(b->second.rows),
                                 b == before.end() ? "-" : pct(b->second.median),
                                 b == before.end() ? "-" : pct(b->second.p90));
    }
    std::cout << fmt::format("| pairs within 15 % | {} | {} | | | {} | |\n", g_pairs_rows,
                             pct(g_pairs_within), before_pairs < 0 ? "-" : pct(before_pairs));
    if (!write_before.empty()) {
        std::ofstream f(write_before);
        f << "group,rows,median,p90\n";
        for (const auto& [group, s] : g_group_stats)
            f << fmt::format("{},{},{:.4f},{:.4f}\n", group, s.rows, s.median, s.p90);
        f << fmt::format("pairs within 15 %,{},{:.4f},\n", g_pairs_rows, g_pairs_within);
    }
}

}  // namespace accuracy
