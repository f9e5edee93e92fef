// Speed: every throughput row replayed through the speed model (docs/accuracy.md).
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

struct SpeedSample {
    std::string id, phase, engine, inputs;
    double measured = 0, estimated = 0;
    double ratio() const { return estimated / measured; }
};

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
    m["flash_attn"] = "";
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
            {"pytorch", "pytorch"}};
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
        gpu = &resolve_gpu(embedded::catalog(), r.at("gpu"));
    } catch (const InputError& e) {
        *why = std::string("not representable: ") + e.what();
        return std::nullopt;
    }
    const MemoryEstimate mem = estimate_memory(w);
    const Performance p = estimate_performance(w, mem, *gpu);
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
    sample.inputs = fmt::format("{} {} {} b{} s{} {}x {} {}", r.at("model"), method, format,
                                w.batch, w.seq, w.gpus, gpu->id, metric);
    return sample;
}

// What `gpuadvise calibrate` does for a user with one measured run: for each
// source, the first per-GPU row of each calibration key is the measured run;
// it corrects that source's other rows of the key (the user's next runs) and
// the other sources' rows of the key (the same correction elsewhere).
void speed_report(const std::string& dir, const Json& models_json,
                  const std::vector<ModelPreset>& presets) {
    const auto rows = bench::parse_csv(read_file(dir + "/throughput_visible.csv"));
    std::vector<SpeedSample> samples;
    std::vector<std::pair<std::string, std::string>> skipped;
    for (const Row& r : rows) {
        std::string why;
        if (auto s = replay_speed(r, models_json, presets, &why))
            samples.push_back(*s);
        else
            skipped.emplace_back(r.at("id"), why);
    }
    std::cout << "\n# Accuracy of the speed estimate\n\n"
              << "Every row of `bench/data/throughput_visible.csv` replayed through "
                 "`estimate_performance` with the row's "
              << "engine, GPU (catalog name resolution), plan and workload. Error = |estimate / "
                 "measured - 1| "
              << "(for seconds_per_step rows the ratio of times). Targets: median <= 20 % for "
                 "decode, <= 30 % for training.\n\n";
    std::cout << fmt::format("Rows: {} replayed, {} skipped (reasons below).\n\n", samples.size(),
                             skipped.size());
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
    std::cout << "\n## Error bands (speed)\n\n| phase | rows | low | high | coverage | "
                 "held-out coverage |\n|---|---|---|---|---|---|\n";
    for (const std::string phase : {"decode", "prefill", "train"}) {
        std::vector<std::pair<std::string, double>> ratios;
        for (const auto& s : samples)
            if (s.phase == phase) ratios.emplace_back(source_of(s.id), 1.0 / s.ratio());
        const BandFit f = fit_band(ratios);
        g_bands.push_back({phase, "all", f});
        std::cout << fmt::format("| {} | {} | {:.3f} | {:.3f} | {} | {} |\n", phase, f.rows, f.low,
                                 f.high, pct(f.coverage), pct(f.held_out_coverage));
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
