// bench/accuracy: replays every row of the measured ground truth through the
// estimators, via the same path as the CLI (a WorkloadRequest whose model is a
// config.json built from the row or its preset), and prints the error
// distribution as Markdown. Usage: gpuadvise_accuracy BENCH_DATA_DIR MODELS_JSON
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "csv.hpp"
#include "gpuadvise/calibrate.hpp"
#include "gpuadvise/calibration.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/network.hpp"
#include "gpuadvise/offload.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "gpuadvise/workload.hpp"

using namespace gpuadvise;
using bench::Row;
using Json = nlohmann::json;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

bool starts_with(const std::string& s, std::string_view p) {
    return s.rfind(p, 0) == 0;
}

// The row's model as a config.json: the preset's real config when the row
// names a preset with the same shape, else one written from the row's
// architecture columns. litgpt materialises an untied lm_head for tied
// checkpoints (ground-truth README), so its rows are replayed untied.
std::optional<std::string> model_config(const Row& r, const Json& models_json,
                                        const std::vector<ModelPreset>& presets, std::string* why) {
    if (r.at("layers").empty() || r.at("hidden").empty()) {
        *why = "not a transformer language model (no architecture columns)";
        return std::nullopt;
    }
    const bool litgpt = starts_with(r.at("source"), "Lightning-AI/litgpt");
    Json config;
    const ModelPreset* p = find_preset(presets, r.at("model"));
    if (p && std::to_string(p->arch.hidden) == r.at("hidden") &&
        std::to_string(p->arch.layers) == r.at("layers")) {
        for (const auto& m : models_json["models"])
            if (m["id"] == p->id) config = m["config"];
    }
    if (config.is_null()) {
        const std::string type = r.at("model_type");
        config["model_type"] = type;
        config["num_hidden_layers"] = std::stoll(r.at("layers"));
        config["hidden_size"] = std::stoll(r.at("hidden"));
        const long long inter = std::stoll(r.at("intermediate"));
        config["intermediate_size"] =
            type == "qwen" ? 2 * inter : inter;  // Qwen-1 stores both branches
        config["num_attention_heads"] = std::stoll(r.at("heads"));
        config["num_key_value_heads"] = std::stoll(r.at("kv_heads"));
        config["vocab_size"] = std::stoll(r.at("vocab"));
        config["tie_word_embeddings"] = r.at("tied_embeddings") == "1";
        if (!r.at("moe_experts").empty() && r.at("moe_experts") != "0") {
            config["num_local_experts"] = std::stoll(r.at("moe_experts"));
            config["num_experts_per_tok"] = std::stoll(r.at("moe_active_experts"));
            config["moe_intermediate_size"] = inter;
        }
    }
    if (litgpt) {
        if (config.contains("text_config")) config["text_config"]["tie_word_embeddings"] = false;
        config["tie_word_embeddings"] = false;
    }
    return config.dump();
}

// The training harness of a row, from the facts its source and notes state:
// the loss it runs (docs/memory-model.md, "The loss") and how its AdamW steps
// (--optimizer-impl). First match wins; a row that names none is taken as
// Hugging Face's Trainer with torch's AdamW.
struct Harness {
    std::string_view column;  // "source" or "notes"
    std::string_view text;
    std::string_view loss;
    std::string_view optimizer_impl;
};
constexpr std::array<Harness, 8> kHarnesses{{
    // Unsloth's kernels (LLaMA-Factory's "Unsloth+FA2" rows): fused loss; HF
    // Trainer's adamw_torch.
    {"notes", "Unsloth", "fused", "foreach"},
    // torchtune with CEWithChunkedOutputLoss (the flag rows from FL-04 on). Its
    // recipe configs pass fused: True to torch.optim.AdamW.
    {"notes", "CEWithChunkedOutputLoss", "chunked", "fused"},
    {"notes", "chunked CE", "chunked", "fused"},
    // torchtune's README table of Sep-2024 names the Llama 3.1 recipe configs,
    // whose loss is CEWithChunkedOutputLoss since torchtune PR #1390 (Aug-2024).
    {"source", "table added Sep-2024", "chunked", "fused"},
    // litgpt's finetune scripts call chunked_cross_entropy on lm_head chunks of
    // 128 tokens without .float(), yet its rows with large vocabularies
    // (Gemma, Llama 3, phi) match ~16 bytes per logit, not 2 (chunked) or 6
    // (bf16): the loop keeps the logit chunks alive through backward and the
    // sliced last chunk gets a full 16-bit gradient. Mapped to upcast, the
    // loss whose bytes it shows (docs/memory-model.md says so). Its optimizer
    // is torch.optim.AdamW from the config's class_path, no foreach/fused set.
    {"source", "Lightning-AI/litgpt", "upcast", "foreach"},
    // torchtune before the chunked loss: TransformerDecoder ends in
    // self.output(h).float(), an upcast of the whole logits.
    {"source", "pytorch/torchtune", "upcast", "fused"},
    // LLaMA-Factory runs HF Trainer: ForCausalLMLoss upcasts; optim adamw_torch.
    {"source", "hiyouga/LLaMA-Factory", "upcast", "foreach"},
    // The transformers docs' 2022 runs: the Trainer's default optim then was
    // adamw_hf, transformers' own AdamW, a loop over parameters.
    {"source", "huggingface/", "upcast", "for-loop"},
}};
const Harness& harness_of(const Row& r) {
    static constexpr Harness kDefault{"", "", "upcast", "foreach"};
    for (const Harness& h : kHarnesses)
        if (r.at(std::string(h.column)).find(h.text) != std::string::npos) return h;
    return kDefault;
}

// A request built the way the CLI builds one: each value with the row as its
// origin, so a rejected row says which column was not representable.
struct RowRequest {
    Request fields;
    ModelInputs inputs;
    void set(Field f, std::string value) { fields.set(f, std::move(value), "bench row"); }
    void reset(Field f) { fields.clear(f); }
};

struct Replay {
    std::optional<RowRequest> request;
    std::string skip;
};

Replay replay_request(const Row& r, const Json& models_json,
                      const std::vector<ModelPreset>& presets) {
    Replay out;
    const std::string method = r.at("method");
    const std::string format = r.at("weight_format");
    const std::string parallel = r.at("parallelism");
    if (method == "adapter") return {std::nullopt, "LLaMA-Adapter is not a modelled method"};
    if (parallel == "zero3-offload")
        return {std::nullopt, "CPU offload of parameters and optimizer is not modelled"};
    if (r.at("lora_targets").find("full:") != std::string::npos)
        return {std::nullopt, "embeddings trained fully next to LoRA is not modelled"};
    std::string why;
    const auto config = model_config(r, models_json, presets, &why);
    if (!config) return {std::nullopt, why};

    RowRequest q;
    q.inputs.hf_config_text = *config;
    q.inputs.hf_config_source = r.at("id");
    q.set(Field::Method, method == "pretrain" ? "full" : method);
    const std::string compute = r.at("compute_dtype");
    std::string precision = compute.empty() ? "bf16" : compute;
    const bool training = method != "inference";
    // Weight format: the quantised base, or the storage dtype of a 16-bit/32-bit model.
    static const std::map<std::string, std::string> quant{{"nf4", "nf4"},
                                                          {"int8", "int8"},
                                                          {"gptq-int4", "gptq-int4"},
                                                          {"gptq-int8", "gptq-int8"},
                                                          {"awq-int4", "awq-int4"},
                                                          {"other:fp8", "fp8"},
                                                          {"other:bnb-fp4", "fp4"}};
    if (const auto it = quant.find(format); it != quant.end()) {
        q.set(Field::Quant, it->second);
        if (it->second == "nf4" || it->second == "fp4") {
            const bool dq = r.at("notes").find("-dq") != std::string::npos ||
                            r.at("notes").find("double quant") != std::string::npos;
            q.set(Field::DoubleQuant, dq ? "true" : "false");
        }
    } else if (starts_with(format, "other:")) {
        return {std::nullopt, "weight format " + format + " is not modelled"};
    } else if (!training) {
        precision = format;  // inference stores and computes in the checkpoint dtype
        if (format == "fp32" && (compute == "bf16" || compute == "fp16")) {
            precision = compute;  // fp32 weights under 16-bit autocast
            q.set(Field::MixedPrecision, "amp");
        }
    } else if (format == "fp32" && r.at("mixed_precision") == "amp" &&
               (method == "lora" || method == "qlora")) {
        return {std::nullopt,
                "a LoRA base stored in fp32 under autocast (litgpt bf16-mixed) is not modelled"};
    }
    if (training) {
        const std::string mp = r.at("mixed_precision");
        if (mp == "true16")
            q.set(Field::MixedPrecision, "pure");
        else if (mp == "amp")
            q.set(Field::MixedPrecision, "amp");
        else if (mp == "fp32")
            precision = "fp32";
        const std::string opt = r.at("optimizer");
        if (!opt.empty() && opt != "none") q.set(Field::Optimizer, opt);
        if (r.at("optimizer_in_backward") == "1") q.set(Field::OptimizerInBackward, "true");
        // torchtune's activation offloading and Unsloth's offloaded
        // checkpointing keep the checkpointed layer inputs in host memory.
        const bool offload = r.count("activation_offload") && r.at("activation_offload") == "1";
        q.set(Field::CkptMode, offload ? "offload" : r.at("grad_ckpt") == "1" ? "full" : "none");
        q.set(Field::Seq, r.at("seq_len"));
        const Harness& harness = harness_of(r);
        q.set(Field::Loss, std::string(harness.loss));
        q.set(Field::OptimizerImpl, std::string(harness.optimizer_impl));
        // The shape regime as the row's notes state it: packed datasets and
        // fixed-size dummy batches have one shape; "padded to the longest
        // sample" and unstated collators keep the default (variable length).
        const std::string& notes = r.at("notes");
        if (notes.find("packed") != std::string::npos ||
            notes.find("dummy data") != std::string::npos)
            q.set(Field::Packing, "true");
    } else {
        const std::string prompt = r.at("prompt_len"), gen = r.at("gen_len"), seq = r.at("seq_len");
        if (!prompt.empty() && prompt != "0") {
            q.set(Field::Prompt, prompt);
            q.set(Field::Gen, gen.empty() || gen == "0" ? "1" : gen);
        } else {
            // Prompt not stated: seq = gen is a lower bound (ground-truth README).
            const long long total = std::stoll(seq);
            q.set(Field::Prompt, "1");
            q.set(Field::Gen, std::to_string(std::max(1LL, total - 1)));
        }
        if (r.count("kv_cache_dtype") && !r.at("kv_cache_dtype").empty())
            q.set(Field::KvDtype, r.at("kv_cache_dtype"));
        // The harness that measured the row: litgpt's generate, else Hugging
        // Face transformers (the Qwen speed benchmark, accelerate's big-model
        // benchmark, the transformers docs), all reading the PyTorch allocator.
        q.set(Field::Engine,
              starts_with(r.at("source"), "Lightning-AI/litgpt") ? "litgpt" : "transformers");
    }
    if (r.at("flash_attn") == "0") q.set(Field::FlashAttn, "false");
    if (r.at("flash_attn") == "1") q.set(Field::FlashAttn, "true");
    q.set(Field::Batch, r.at("batch").empty() ? "1" : r.at("batch"));
    if (method == "lora" || method == "qlora") {
        q.set(Field::LoraRank, r.at("lora_rank"));
        q.set(Field::LoraTargets, r.at("lora_targets"));
    }
    const std::string gpus = r.at("num_gpus").empty() ? "1" : r.at("num_gpus");
    q.set(Field::Gpus, gpus);
    static const std::map<std::string, std::string> strategies{{"ddp", "ddp"},
                                                               {"fsdp", "fsdp"},
                                                               {"zero2", "zero2"},
                                                               {"zero3", "zero3"},
                                                               {"device-map-pipeline", "pp"},
                                                               {"tensor-parallel", "tp"}};
    if (const auto it = strategies.find(parallel); it != strategies.end())
        q.set(Field::Parallel, it->second);
    q.set(Field::Precision, precision);
    out.request = q;
    return out;
}

struct Sample {
    std::string id, method, inputs;
    double measured = 0, component = 0, doc = 0, weights_only = 0;
    Workload workload;  // for the calibration replay
    MemoryMetric metric = MemoryMetric::Allocated;
    bool per_gpu = true;
    double err(double estimate) const { return (estimate - measured) / measured; }
};

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::string pct(double x) {
    return std::isnan(x) ? "-" : fmt::format("{:.1f} %", 100.0 * x);
}

// The source of a row: the second part of its id (M-LITGPT-RT-01: LITGPT).
std::string source_of(const std::string& id) {
    const auto a = id.find('-');
    const auto b = id.find('-', a + 1);
    return a == std::string::npos ? id : id.substr(a + 1, b - a - 1);
}

// One group's band (measured / estimate at p10 and p90) and how many of its
// rows fall inside: in sample, and leave-one-source-out (each row judged by
// the band of the other sources' rows, as rows from an unseen source would be).
struct BandFit {
    double low = 1, high = 1;
    std::size_t rows = 0;
    double coverage = 0, held_out_coverage = 0;
};
BandFit fit_band(const std::vector<std::pair<std::string, double>>& ratios) {
    BandFit f;
    std::vector<double> all;
    for (const auto& [src, r] : ratios) all.push_back(r);
    f.rows = all.size();
    if (all.empty()) return f;
    f.low = quantile(all, 0.1);
    f.high = quantile(all, 0.9);
    std::size_t in = 0, held_in = 0, held_rows = 0;
    for (const auto& [src, r] : ratios) {
        if (r >= f.low && r <= f.high) ++in;
        std::vector<double> others;
        for (const auto& [s2, r2] : ratios)
            if (s2 != src) others.push_back(r2);
        if (others.size() < 5) continue;
        ++held_rows;
        if (r >= quantile(others, 0.1) && r <= quantile(others, 0.9)) ++held_in;
    }
    f.coverage = static_cast<double>(in) / static_cast<double>(all.size());
    f.held_out_coverage =
        held_rows ? static_cast<double>(held_in) / static_cast<double>(held_rows) : 0.0;
    return f;
}

struct BandRow {
    std::string quantity, group;
    BandFit fit;
};
std::vector<BandRow> g_bands;  // filled by the reports, written by --bands

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
double metric_bytes(const MemoryEstimate& m, MemoryMetric metric) {
    switch (metric) {
        case MemoryMetric::Allocated:
            return static_cast<double>(m.allocated_bytes);
        case MemoryMetric::Reserved:
            return static_cast<double>(m.reserved_bytes);
        case MemoryMetric::NvidiaSmi:
            return static_cast<double>(m.per_gpu_bytes);
    }
    return 0;
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
void image_report(const std::string& dir, const std::vector<ModelPreset>& presets) {
    const auto rows = bench::parse_csv(read_file(dir + "/image_measured.csv"));
    struct Out {
        std::string id, group, inputs;
        double measured = 0, estimated = 0;
        bool time = false;  // a time (lower is better) rather than a rate
        // Estimated over measured rate (times inverted), so > 1 is too fast.
        double ratio() const { return time ? measured / estimated : estimated / measured; }
    };
    std::vector<Out> out;
    std::map<std::string, int> skipped;
    for (const Row& r : rows) {
        RowRequest q;
        q.set(Field::Model, r.at("model"));
        const bool train = r.at("phase") == "train";
        if (train) q.set(Field::Method, "full");
        q.set(Field::Batch, r.at("batch").empty() ? "1" : r.at("batch"));
        q.set(Field::Resolution, r.at("width") + "x" + r.at("height"));
        if (!r.at("steps").empty()) q.set(Field::Steps, r.at("steps"));
        q.set(Field::Precision, r.at("precision"));
        if (!r.at("quant").empty()) q.set(Field::Quant, r.at("quant"));
        if (r.at("cpu_offload") != "none") q.set(Field::CpuOffload, r.at("cpu_offload"));
        if (r.at("vae_tiling") == "1") q.set(Field::VaeTiling, "true");
        if (r.at("notes").find("flash_attn=0") != std::string::npos)
            q.set(Field::FlashAttn, "false");
        if (r.at("num_gpus") != "1") q.set(Field::Gpus, r.at("num_gpus"));
        const Gpu* gpu = nullptr;
        Workload w;
        try {
            w = resolve_workload(q.fields, q.inputs, presets);
            gpu = &resolve_gpu(embedded::catalog(), r.at("gpu"));
        } catch (const InputError& e) {
            ++skipped[std::string(e.what()).substr(0, 60)];
            continue;
        }
        const MemoryEstimate mem = estimate(w);
        const Performance p = estimate_performance(w, mem, *gpu);
        const std::string metric = r.at("metric");
        double value = std::stod(r.at("value"));
        Out o;
        o.id = r.at("id");
        o.group = std::string(kImageFamilies.name(w.model.image->family)) + (train ? "-train" : "");
        o.inputs = fmt::format("{} {} {}x{} b{} {}{} on {}", r.at("model"), r.at("phase"),
                               r.at("width"), r.at("height"), w.batch, to_string(w.precision),
                               r.at("quant").empty() ? "" : " " + r.at("quant"), gpu->id);
        if (metric == "max_reserved" || metric == "unknown") {
            const double unit = r.at("unit") == "GiB" ? static_cast<double>(gpuadvise::kGiB) : 1e9;
            o.group = "memory-" + o.group;
            o.measured = value * unit;
            o.estimated = static_cast<double>(metric == "max_reserved" ? mem.reserved_bytes
                                                                       : mem.allocated_bytes);
        } else if (metric == "images_per_s" && p.images_per_s) {
            o.measured = value;
            o.estimated = *p.images_per_s;
        } else if ((metric == "seconds_per_image" || metric == "seconds_per_batch") &&
                   p.seconds_per_image) {
            o.time = true;
            o.measured = value;
            o.estimated = *p.seconds_per_image *
                          (metric == "seconds_per_batch" ? static_cast<double>(w.batch) : 1.0);
        } else if ((metric == "seconds_per_step" || metric == "it_per_s") &&
                   p.denoise_step_seconds) {
            o.time = true;
            o.measured = metric == "it_per_s" ? 1.0 / value : value;
            o.estimated = *p.denoise_step_seconds;
        } else {
            ++skipped["no estimate for the metric " + metric + " on this card"];
            continue;
        }
        out.push_back(o);
    }
    std::cout << "\n# Accuracy on image generation and vision workloads\n\n"
              << "Every row of `bench/data/image_measured.csv` (diffusers docs and HF blogs, timm "
                 "benchmark tables, NVIDIA DeepLearningExamples, Lambda; sources per row) "
                 "replayed as `--model PRESET` with the row's settings. Error = |estimate / "
                 "measured - 1|; for times the ratio of times. The speed constants are medians "
                 "over these families (src/performance.cpp), not fitted per row.\n\n"
              << fmt::format("Rows: {} replayed, {} skipped.\n\n", out.size(),
                             [&] {
                                 int n = 0;
                                 for (const auto& [k, v] : skipped) n += v;
                                 return n;
                             }())
              << "| group | rows | median error | p90 error | median estimate / measured rate "
                 "|\n|---|---|---|---|---|\n";
    std::map<std::string, std::vector<const Out*>> groups;
    for (const auto& o : out) groups[o.group].push_back(&o);
    for (const auto& [g, list] : groups) {
        std::vector<double> err, ratio;
        for (const auto* o : list) {
            err.push_back(std::fabs(o->ratio() - 1.0));
            ratio.push_back(o->ratio());
        }
        std::cout << fmt::format("| {} | {} | {} | {} | {:.2f} |\n", g, list.size(),
                                 pct(quantile(err, 0.5)), pct(quantile(err, 0.9)),
                                 quantile(ratio, 0.5));
    }
    std::cout << "\n## Error bands (images)\n\n| quantity | group | rows | low | high | coverage | "
                 "held-out coverage |\n|---|---|---|---|---|---|---|\n";
    for (const std::string family : {"diffusion", "vision"}) {
        for (const bool memory : {false, true}) {
            std::vector<std::pair<std::string, double>> ratios;
            for (const auto& o : out) {
                const bool is_memory = o.group.rfind("memory-", 0) == 0;
                if (is_memory != memory || o.group.find(family) == std::string::npos) continue;
                // Bands hold measured / estimate of the rate (times inverted).
                ratios.emplace_back(source_of(o.id), 1.0 / o.ratio());
            }
            if (ratios.size() < 5) continue;
            const BandFit f = fit_band(ratios);
            g_bands.push_back({memory ? "memory" : "images", family, f});
            std::cout << fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {} | {} |\n",
                                     memory ? "memory" : "images", family, f.rows, f.low, f.high,
                                     pct(f.coverage), pct(f.held_out_coverage));
        }
    }
    std::vector<const Out*> worst;
    for (const auto& o : out) worst.push_back(&o);
    std::sort(worst.begin(), worst.end(), [](const Out* a, const Out* b) {
        return std::fabs(std::log(a->ratio())) > std::fabs(std::log(b->ratio()));
    });
    if (worst.size() > 8) worst.resize(8);
    std::cout << "\n## Worst eight image rows\n\n| id | inputs | measured | estimated | ratio "
                 "|\n|---|---|---|---|---|\n";
    for (const auto* o : worst)
        std::cout << fmt::format("| {} | {} | {:.4g} | {:.4g} | {:.2f} |\n", o->id, o->inputs,
                                 o->measured, o->estimated, o->ratio());
    std::cout << "\n## Skipped image rows by reason\n\n| reason | rows |\n|---|---|\n";
    for (const auto& [why, count] : skipped) std::cout << fmt::format("| {} | {} |\n", why, count);
}

// Published multi-GPU training runs (bench/data/large_runs.csv): per-GPU
// training throughput of data-parallel, FSDP, ZeRO and 3D (tensor, pipeline,
// context, expert parallel) runs, replayed with the run's model shape, GPUs,
// layout, sequence, micro-batch, global batch, checkpointing and fabric.

// The run's model: a preset of the same model, else a Llama-style config of
// the row's shape (layers, hidden, heads, KV heads, vocab) whose FFN width
// gives the row's parameter count (a GPT block's 4h MLP has the FLOPs and
// parameters of a gated one of 8h/3), else none (the size alone).
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
        RankOptions o;
        if (!hours_only) o.parallel = w.parallel;
        o.network = network_of(r.at("network"));
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
        const auto given = [&](const char* k) {
            try {
                return r.at(k).empty()
                           ? 0.0
                           : static_cast<double>(parse_param_count(r.at(k), "bench row"));
            } catch (const InputError&) {
                return 0.0;
            }
        };
        outs.back().total_tokens = given("total_tokens");
        outs.back().gpu_hours = r.at("gpu_hours").empty() ? 0.0 : std::stod(r.at("gpu_hours"));
    }
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
    // GPU-hours of whole runs: the published tokens at the estimated rate.
    std::cout << "\n| GPU-hours of runs with a published size | inputs | tokens | published "
                 "GPU-hours | estimated | ratio |\n|---|---|---|---|---|---|\n";
    std::vector<double> hours_err;
    for (const auto& o : outs)
        if (o.total_tokens > 0 && o.gpu_hours > 0) {
            const double est = o.total_tokens / o.estimated / 3600.0;
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

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr
            << "usage: gpuadvise_accuracy BENCH_DATA_DIR MODELS_JSON [--all] [--output FILE]\n";
        return 2;
    }
    bool all_rows = false;
    std::ofstream output;
    std::string bands_path;
    for (int i = 3; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--all") all_rows = true;
        if (arg == "--bands" && i + 1 < argc) bands_path = argv[++i];
        if (arg == "--output" && i + 1 < argc) {
            output.open(argv[++i]);
            if (!output) {
                std::cerr << "cannot write " << argv[i] << "\n";
                return 2;
            }
            std::cout.rdbuf(output.rdbuf());
        }
    }
    std::cout << "<!-- Generated by: cmake --build build --target accuracy (bench/accuracy.cpp). "
                 "Do not edit by hand. -->\n";
    const std::string dir = argv[1];
    const std::string models_text = read_file(argv[2]);
    const Json models_json = Json::parse(models_text);
    const auto presets = parse_model_presets(models_text, "data/models.json");
    const auto rows = bench::parse_csv(read_file(dir + "/memory_visible.csv"));

    std::vector<Sample> samples;
    std::vector<std::pair<std::string, std::string>> skipped;
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
        const std::string metric = r.at("metric");
        const double estimate_bytes =
            static_cast<double>(metric == "nvml_total"     ? m.per_gpu_bytes
                                : metric == "max_reserved" ? m.reserved_bytes
                                                           : m.allocated_bytes);
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
        samples.push_back(s);
    }

    std::cout
        << "# Accuracy of the memory estimate\n\n"
        << "Made by `cmake --build build --target accuracy` (bench/accuracy.cpp) from "
        << "`bench/data/memory_visible.csv` (measured peaks from public sources; see "
           "bench/data/README.md).\n"
        << "Each row is replayed through the same path as the CLI. The estimate compared is "
        << "`allocated_bytes` for rows measured as max_allocated / unknown, `reserved_bytes` for "
        << "max_reserved rows and `per_gpu_bytes` for nvml_total rows; totals over all GPUs are "
           "compared as totals. "
        << "Error = (estimate - measured) / measured; APE = |error|.\n\n";
    std::cout << fmt::format("Rows: {} replayed, {} skipped (listed below with the reason).\n\n",
                             samples.size(), skipped.size());
    std::cout
        << "| method | rows | component median APE | component p90 APE | component median error | "
           "doc median APE | doc p90 APE | weights-only median APE | weights-only p90 APE |\n"
        << "|---|---|---|---|---|---|---|---|---|\n";
    for (const std::string method : {"inference", "lora", "qlora", "full", "all"}) {
        std::vector<double> c, cs, d, wo;
        for (const auto& s : samples) {
            if (method != "all" && s.method != method) continue;
            c.push_back(std::fabs(s.err(s.component)));
            cs.push_back(s.err(s.component));
            d.push_back(std::fabs(s.err(s.doc)));
            wo.push_back(std::fabs(s.err(s.weights_only)));
        }
        std::cout << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", method,
                                 c.size(), pct(quantile(c, 0.5)), pct(quantile(c, 0.9)),
                                 pct(quantile(cs, 0.5)), pct(quantile(d, 0.5)),
                                 pct(quantile(d, 0.9)), pct(quantile(wo, 0.5)),
                                 pct(quantile(wo, 0.9)));
    }
    for (const std::string method : {"inference", "lora", "qlora", "full"}) {
        std::vector<const Sample*> worst;
        for (const auto& s : samples)
            if (s.method == method) worst.push_back(&s);
        std::sort(worst.begin(), worst.end(), [](const Sample* a, const Sample* b) {
            return std::fabs(a->err(a->component)) > std::fabs(b->err(b->component));
        });
        if (worst.size() > 5) worst.resize(5);
        std::cout << fmt::format(
            "\n## Worst five rows: {}\n\n| id | inputs | measured GiB | component GiB | error "
            "|\n|---|---|---|---|---|\n",
            method);
        for (const Sample* s : worst)
            std::cout << fmt::format("| {} | {} | {:.2f} | {:.2f} | {} |\n", s->id, s->inputs,
                                     s->measured / (1 << 30), s->component / (1 << 30),
                                     pct(s->err(s->component)));
    }
    std::cout << "\n## Error bands (memory)\n\n"
              << "The 10th-90th percentile of measured / estimate per method, written to "
                 "`data/error_bands.json` and embedded: every estimate's `range`. Coverage: the "
                 "share of rows inside their band; held out: each row against the band of the "
                 "other sources' rows (rows from a source the band never saw).\n\n"
              << "| method | rows | low | high | coverage | held-out coverage |\n"
                 "|---|---|---|---|---|---|\n";
    for (const std::string method : {"inference", "lora", "qlora", "full", "all"}) {
        std::vector<std::pair<std::string, double>> ratios;
        for (const auto& s : samples)
            if (method == "all" || s.method == method)
                ratios.emplace_back(source_of(s.id), s.measured / s.component);
        const BandFit f = fit_band(ratios);
        g_bands.push_back({"memory", method, f});
        std::cout << fmt::format("| {} | {} | {:.3f} | {:.3f} | {} | {} |\n", method, f.rows, f.low,
                                 f.high, pct(f.coverage), pct(f.held_out_coverage));
    }
    calibration_report(samples);
    std::cout << "\n## Skipped rows\n\n| id | reason |\n|---|---|\n";
    for (const auto& [id, why] : skipped) std::cout << fmt::format("| {} | {} |\n", id, why);
    speed_report(dir, models_json, presets);
    runtime_report(dir, presets);
    cluster_report(dir);
    fp8_report(dir);
    image_report(dir, presets);
    if (all_rows) {
        std::cout << "\n## Every row\n\n| id | inputs | measured GiB | component GiB | error "
                     "|\n|---|---|---|---|---|\n";
        for (const auto& s : samples)
            std::cout << fmt::format("| {} | {} | {:.2f} | {:.2f} | {} |\n", s.id, s.inputs,
                                     s.measured / (1 << 30), s.component / (1 << 30),
                                     pct(s.err(s.component)));
    }
    if (!bands_path.empty()) {
        std::ofstream bands(bands_path);
        bands << "{\n  \"schema\": 1,\n  \"about\": \"Written by bench/accuracy (cmake --build "
                 "build --target accuracy); do not edit by hand. For each group, the 10th (low) "
                 "and 90th (high) percentile of measured / estimate over the visible rows of "
                 "bench/data: an estimate's range is [estimate x low, estimate x high]. Memory "
                 "groups are methods; speed groups are phases.\",\n";
        bands << fmt::format(
            "  \"source\": \"bench/data/memory_visible.csv ({} rows replayed) and "
            "throughput_visible.csv; rows per band below\",\n",
            samples.size());
        bands << "  \"bands\": [\n";
        for (std::size_t i = 0; i < g_bands.size(); ++i) {
            const BandRow& b = g_bands[i];
            bands << fmt::format(
                "    {{\"quantity\": \"{}\", \"group\": \"{}\", \"low\": {:.3f}, \"high\": "
                "{:.3f}, \"rows\": {}}}{}\n",
                b.quantity, b.group, b.fit.low, b.fit.high, b.fit.rows,
                i + 1 < g_bands.size() ? "," : "");
        }
        bands << "  ]\n}\n";
        if (!bands) {
            std::cerr << "cannot write " << bands_path << "\n";
            return 2;
        }
    }
    return 0;
}
