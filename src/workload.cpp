#include "gpuadvise/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

// One spelling table per enum; to_string, choices and parsing all read it.
template <typename E, std::size_t N>
using Table = std::array<std::pair<E, const char*>, N>;

constexpr Table<Method, 4> kMethods{{{Method::Inference, "inference"},
                                     {Method::Lora, "lora"},
                                     {Method::Qlora, "qlora"},
                                     {Method::Full, "full"}}};
constexpr Table<Precision, 3> kPrecisions{{{Precision::Fp32, "fp32"}, {Precision::Fp16, "fp16"}, {Precision::Bf16, "bf16"}}};
constexpr Table<Quant, 14> kQuants{{{Quant::None, "none"},
                                   {Quant::Int8, "int8"},
                                   {Quant::Int4, "int4"},
                                   {Quant::Nf4, "nf4"},
                                   {Quant::Fp4, "fp4"},
                                   {Quant::GptqInt4, "gptq-int4"},
                                   {Quant::GptqInt8, "gptq-int8"},
                                   {Quant::AwqInt4, "awq-int4"},
                                   {Quant::Fp8, "fp8"},
                                   {Quant::Q4_0, "q4_0"},
                                   {Quant::Q4_K_M, "q4_k_m"},
                                   {Quant::Q5_K_M, "q5_k_m"},
                                   {Quant::Q6_K, "q6_k"},
                                   {Quant::Q8_0, "q8_0"}}};
constexpr Table<Engine, 8> kEngines{{{Engine::Vllm, "vllm"},
                                     {Engine::TensorrtLlm, "tensorrt-llm"},
                                     {Engine::LlamaCpp, "llama.cpp"},
                                     {Engine::Exllamav2, "exllamav2"},
                                     {Engine::Autoawq, "autoawq"},
                                     {Engine::Pytorch, "pytorch"},
                                     {Engine::Transformers, "transformers"},
                                     {Engine::Litgpt, "litgpt"}}};
constexpr Table<MixedPrecision, 2> kMixed{{{MixedPrecision::Amp, "amp"}, {MixedPrecision::Pure, "pure"}}};
constexpr Table<Optimizer, 8> kOptimizers{{{Optimizer::AdamW, "adamw"},
                                           {Optimizer::AdamW8bit, "adamw-8bit"},
                                           {Optimizer::PagedAdamW8bit, "paged-adamw-8bit"},
                                           {Optimizer::PagedAdamW32bit, "paged-adamw-32bit"},
                                           {Optimizer::Sgd, "sgd"},
                                           {Optimizer::SgdMomentum, "sgd-momentum"},
                                           {Optimizer::Adafactor, "adafactor"},
                                           {Optimizer::Lion, "lion"}}};
constexpr Table<KvDtype, 5> kKvDtypes{{{KvDtype::Fp32, "fp32"},
                                       {KvDtype::Fp16, "fp16"},
                                       {KvDtype::Bf16, "bf16"},
                                       {KvDtype::Fp8, "fp8"},
                                       {KvDtype::Int8, "int8"}}};
constexpr Table<Parallel, 7> kParallels{{{Parallel::None, "none"},
                                         {Parallel::Ddp, "ddp"},
                                         {Parallel::Fsdp, "fsdp"},
                                         {Parallel::Zero2, "zero2"},
                                         {Parallel::Zero3, "zero3"},
                                         {Parallel::Tp, "tp"},
                                         {Parallel::Pp, "pp"}}};
constexpr Table<Estimator, 2> kEstimators{{{Estimator::Component, "component"}, {Estimator::Doc, "doc"}}};
constexpr Table<LoraTarget, 8> kLoraTargets{{{LoraTarget::Q, "q"},
                                             {LoraTarget::K, "k"},
                                             {LoraTarget::V, "v"},
                                             {LoraTarget::O, "o"},
                                             {LoraTarget::Gate, "gate"},
                                             {LoraTarget::Up, "up"},
                                             {LoraTarget::Down, "down"},
                                             {LoraTarget::LmHead, "lm_head"}}};

template <typename E, std::size_t N>
std::string name_of(const Table<E, N>& table, E value) {
    for (const auto& [e, name] : table)
        if (e == value) return name;
    return "?";
}

template <typename E, std::size_t N>
std::vector<std::string> names_of(const Table<E, N>& table) {
    std::vector<std::string> out;
    for (const auto& entry : table) out.emplace_back(entry.second);
    return out;
}

template <typename E, std::size_t N>
E parse_enum(const Table<E, N>& table, std::string_view text, std::string_view flag) {
    const std::string chosen = parse_choice(text, flag, names_of(table));
    for (const auto& [e, name] : table)
        if (chosen == name) return e;
    return table[0].first;
}

std::vector<LoraTarget> parse_lora_targets(std::string_view text) {
    std::vector<LoraTarget> out;
    const auto add = [&out](LoraTarget t) {
        if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    };
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string item(text.substr(start, comma - start));
        start = comma + 1;
        // Accept Hugging Face module names too: q_proj, gate_proj, ...
        if (const auto p = item.find("_proj"); p != std::string::npos) item.erase(p);
        if (item.empty())
            throw InputError(fmt::format("--lora-targets '{}' has an empty entry; use e.g. q,v or all-linear", text));
        const std::string key = normalize_name(item);
        if (key == "alllinear" || key == "all") {
            // PEFT's all-linear: every linear layer of the blocks, not the output head.
            for (const auto t : {LoraTarget::Q, LoraTarget::K, LoraTarget::V, LoraTarget::O, LoraTarget::Gate,
                                 LoraTarget::Up, LoraTarget::Down})
                add(t);
        } else if (key == "mlp") {
            for (const auto t : {LoraTarget::Gate, LoraTarget::Up, LoraTarget::Down}) add(t);
        } else {
            add(parse_enum(kLoraTargets, item, "--lora-targets module"));
        }
    }
    return out;
}

}  // namespace

std::string to_string(Method v) { return name_of(kMethods, v); }
std::string to_string(Precision v) { return name_of(kPrecisions, v); }
std::string to_string(Quant v) { return name_of(kQuants, v); }
std::string to_string(MixedPrecision v) { return name_of(kMixed, v); }
std::string to_string(Optimizer v) { return name_of(kOptimizers, v); }
std::string to_string(KvDtype v) { return name_of(kKvDtypes, v); }
std::string to_string(Parallel v) { return name_of(kParallels, v); }
std::string to_string(Estimator v) { return name_of(kEstimators, v); }
std::string to_string(LoraTarget v) { return name_of(kLoraTargets, v); }
std::string to_string(Engine v) { return name_of(kEngines, v); }

const std::vector<std::string>& engine_choices() {
    static const auto v = names_of(kEngines);
    return v;
}

bool is_gguf(Quant q) {
    return q == Quant::Q4_0 || q == Quant::Q4_K_M || q == Quant::Q5_K_M || q == Quant::Q6_K || q == Quant::Q8_0;
}

const std::vector<std::string>& method_choices() {
    static const auto v = names_of(kMethods);
    return v;
}
const std::vector<std::string>& precision_choices() {
    static const auto v = names_of(kPrecisions);
    return v;
}
const std::vector<std::string>& quant_choices() {
    static const auto v = names_of(kQuants);
    return v;
}
const std::vector<std::string>& optimizer_choices() {
    static const auto v = names_of(kOptimizers);
    return v;
}
const std::vector<std::string>& parallel_choices() {
    static const auto v = names_of(kParallels);
    return v;
}

bool is_training(Method m) { return m != Method::Inference; }

namespace {

Model resolve_model(const WorkloadRequest& r, const std::vector<ModelPreset>& presets) {
    Model m;
    if (r.hf_config_text && r.model)
        throw InputError("--model and --hf-config both name the model; give only one");
    if (r.model_file) {
        if (r.model) throw InputError(fmt::format("--model and {} both name the model; give only one", r.model_file->source));
        const ModelFile& f = *r.model_file;
        m.name = f.source;
        m.origin = f.format;
        if (f.arch) m.arch = *f.arch;
        else if (r.hf_config_text) m.arch = parse_hf_config(*r.hf_config_text, r.hf_config_source);
        else m.arch = infer_architecture(f.params);
        const ParamCounts counts = count_params(m.arch);
        // The file's count is exact; the shape (from the file, a config or the
        // size rule) splits it and sizes activations and the KV cache.
        m.params = f.params;
        const double active_share = static_cast<double>(counts.active()) / static_cast<double>(std::max<std::uint64_t>(counts.total(), 1));
        m.active_params = static_cast<std::uint64_t>(static_cast<double>(f.params) * active_share);
        m.weight_bytes = f.weight_bytes;
        m.file_quantization = f.quantization;
        return m;
    }
    if (r.hf_config_text) {
        m.name = r.hf_config_source;
        m.origin = "hf-config";
        m.arch = parse_hf_config(*r.hf_config_text, r.hf_config_source);
    } else if (r.model) {
        if (const ModelPreset* p = find_preset(presets, *r.model)) {
            m.name = p->id;
            m.origin = "preset";
            m.arch = p->arch;
        } else {
            // Not a preset: it must be a size. A name that fails both gets the
            // preset suggestion when it looks like one, the size error otherwise.
            const std::string& text = *r.model;
            const bool looks_numeric = !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) ||
                                                         text[0] == '-' || text[0] == '.' || text[0] == '+');
            if (!looks_numeric) throw_unknown_model(presets, text);
            const std::uint64_t params = parse_param_count(text, "--model");
            m.name = text;
            m.origin = "size";
            m.arch = infer_architecture(params);
            // "8B" means 8e9 parameters; the inferred shape only splits them
            // into embeddings, layers and head.
            m.params = params;
            m.active_params = params;
            return m;
        }
    } else {
        throw InputError("no model given; use --model 8B (a size), --model llama-3.1-8b (a preset) or --hf-config FILE");
    }
    const ParamCounts counts = count_params(m.arch);
    m.params = counts.total();
    m.active_params = counts.active();
    return m;
}

}  // namespace

Workload resolve_workload(const WorkloadRequest& r, const std::vector<ModelPreset>& presets) {
    Workload w;
    if (r.fixed_bytes) {
        const bool other = r.model || r.hf_config_text || r.method || r.precision || r.quant || r.batch || r.seq ||
                           r.lora_rank || r.optimizer || r.gpus || r.parallel;
        if (other)
            throw InputError(fmt::format("task {} is not a language-model workload; drop the model and method flags",
                                         r.fixed_label));
        w.model.name = r.fixed_label;
        w.model.origin = "task";
        w.fixed_bytes = r.fixed_bytes;
        w.assumed.push_back(fmt::format("memory need = {:.0f} GB (document §6 minimum for {})",
                                        static_cast<double>(*r.fixed_bytes) / 1e9, r.fixed_label));
        return w;
    }
    w.model = resolve_model(r, presets);
    auto assume = [&w](const std::string& what) { w.assumed.push_back(what); };

    w.method = r.method ? parse_enum(kMethods, *r.method, "--method") : Method::Inference;
    if (!r.method) assume("method=inference (default)");
    const bool training = w.trains();
    const bool qlora = w.method == Method::Qlora;

    // Precision: the document's QLoRA recipe computes in fp16 (§4); otherwise
    // bf16, the dtype modern checkpoints ship in.
    if (r.precision) {
        w.precision = parse_enum(kPrecisions, *r.precision, "--precision");
    } else {
        w.precision = qlora ? Precision::Fp16 : Precision::Bf16;
        assume(qlora ? "precision=fp16 (compute dtype of the document's QLoRA recipe, §4)"
                     : "precision=bf16 (the dtype current checkpoints ship in)");
    }

    if (r.quant) {
        w.quant = parse_enum(kQuants, *r.quant, "--quant");
    } else if (qlora) {
        w.quant = Quant::Nf4;
        assume("quant=nf4 (QLoRA base weights, document §4)");
    }
    if (qlora && w.quant == Quant::None)
        throw InputError("--method qlora needs a quantized base: use --quant nf4 (or int8, gptq-int4, awq-int4), "
                         "or --method lora for a 16-bit base");
    if (w.method == Method::Full && w.quant != Quant::None)
        throw InputError(fmt::format("--quant {} cannot be combined with --method full (quantized weights are not "
                                     "trained); use --method qlora or --quant none",
                                     to_string(w.quant)));
    if (is_gguf(w.quant) && training)
        throw InputError(fmt::format("--quant {} is a llama.cpp (GGUF) inference format; use nf4 for QLoRA",
                                     to_string(w.quant)));
    if (w.method == Method::Lora && w.quant != Quant::None)
        throw InputError(fmt::format("--method lora with --quant {} is QLoRA; use --method qlora", to_string(w.quant)));
    const bool four_bit_bnb = w.quant == Quant::Nf4 || w.quant == Quant::Fp4;
    if (r.double_quant) {
        if (*r.double_quant && !four_bit_bnb)
            throw InputError("--double-quant applies to nf4 and fp4 weights only; add --quant nf4");
        w.double_quant = *r.double_quant;
    } else if (four_bit_bnb) {
        w.double_quant = qlora;
        if (qlora) assume("double-quant=on (document §4 QLoRA recipe)");
    }

    // Training-only settings.
    const auto training_only = [&](bool given, std::string_view flag) {
        if (given && !training)
            throw InputError(fmt::format("{} applies to training; add --method full, lora or qlora", flag));
    };
    training_only(r.chunked_loss.has_value(), "--chunked-loss");
    training_only(r.optimizer.has_value(), "--optimizer");
    training_only(r.grad_ckpt.has_value(), "--grad-ckpt");
    training_only(r.optimizer_in_backward.has_value(), "--optimizer-in-backward");
    if ((r.lora_rank || r.lora_targets) && !w.uses_lora())
        throw InputError("--lora-rank and --lora-targets apply to --method lora or qlora");
    if (r.prompt || r.gen) {
        if (training) throw InputError("--prompt and --gen apply to --method inference; use --seq for training");
    }
    if (r.kv_dtype && training) throw InputError("--kv-dtype applies to --method inference");
    if (r.engine && training) throw InputError("--engine applies to --method inference (training runs on PyTorch)");
    if (r.engine) {
        w.engine = parse_enum(kEngines, *r.engine, "--engine");
    } else if (!training) {
        const bool gguf = is_gguf(w.quant) || w.model.origin == "gguf";
        w.engine = gguf ? Engine::LlamaCpp : Engine::Vllm;
        assume(fmt::format("engine={} ({})", to_string(w.engine),
                           gguf ? "the engine of GGUF files" : "the common GPU serving engine"));
    }
    if (w.model.origin == "gguf" && training)
        throw InputError("a GGUF file is for llama.cpp inference; train from the Hugging Face checkpoint (--model-dir)");
    if (w.model.weight_bytes && r.quant)
        throw InputError(fmt::format("{} already fixes the weight format ({}); drop --quant", w.model.name,
                                     w.model.file_quantization));
    if (is_gguf(w.quant) && w.engine != Engine::LlamaCpp)
        throw InputError(fmt::format("--quant {} is a GGUF format that only llama.cpp runs; use --engine llama.cpp",
                                     to_string(w.quant)));

    if (training) {
        w.mixed = r.mixed ? parse_enum(kMixed, *r.mixed, "--mixed-precision") : MixedPrecision::Amp;
        if (!r.mixed) assume("mixed-precision=amp (fp32 trainable weights and optimizer state, 16-bit compute)");
        if (r.optimizer) {
            w.optimizer = parse_enum(kOptimizers, *r.optimizer, "--optimizer");
        } else {
            w.optimizer = qlora ? Optimizer::PagedAdamW32bit : Optimizer::AdamW;
            assume(qlora ? "optimizer=paged-adamw-32bit (document §4 QLoRA recipe)" : "optimizer=adamw");
        }
        w.optimizer_in_backward = r.optimizer_in_backward.value_or(false);
        w.chunked_loss = r.chunked_loss.value_or(false);
        w.grad_ckpt = r.grad_ckpt.value_or(true);
        if (!r.grad_ckpt) assume("grad-ckpt=on (document §2.1 example and §4 recipe)");
    }

    w.flash_attn = r.flash_attn.value_or(true);
    if (!r.flash_attn) assume("flash-attn=on (PyTorch SDPA, the default attention of current frameworks)");

    w.batch = r.batch ? parse_positive_int(*r.batch, "--batch", 1'000'000) : (training ? 4 : 1);
    if (!r.batch)
        assume(training ? "batch=4 per GPU (document §4: batch 4 x grad-accum 8)" : "batch=1 concurrent sequence");

    constexpr std::int64_t kMaxTokens = 100'000'000;
    if (training) {
        w.seq = r.seq ? parse_positive_int(*r.seq, "--seq", kMaxTokens) : 512;
        if (!r.seq) assume("seq=512 tokens (instruction-tuning length; fits the document's 9.1 GB QLoRA figure)");
    } else {
        // Any two of --seq, --prompt and --gen determine the third; the
        // default context is 4096 tokens with a quarter (at most 512) generated.
        const bool has_seq = r.seq.has_value(), has_prompt = r.prompt.has_value(), has_gen = r.gen.has_value();
        const std::int64_t seq = has_seq ? parse_positive_int(*r.seq, "--seq", kMaxTokens) : 4096;
        std::int64_t prompt = has_prompt ? parse_positive_int(*r.prompt, "--prompt", kMaxTokens) : 0;
        std::int64_t gen = has_gen ? parse_positive_int(*r.gen, "--gen", kMaxTokens) : 0;
        if (has_seq && has_prompt && has_gen && prompt + gen != seq)
            throw InputError(fmt::format("--prompt {} + --gen {} is not --seq {}; give two of the three", prompt, gen, seq));
        if (has_seq && has_prompt && prompt >= seq)
            throw InputError(fmt::format("--prompt {} leaves no room to generate within --seq {}", prompt, seq));
        if (has_seq && has_gen && gen >= seq)
            throw InputError(fmt::format("--gen {} leaves no room for a prompt within --seq {}", gen, seq));
        if (!has_prompt && !has_gen) {
            gen = std::max<std::int64_t>(1, std::min<std::int64_t>(512, seq / 4));
            prompt = std::max<std::int64_t>(1, seq - gen);
            assume(has_seq ? fmt::format("prompt={} + gen={} tokens (split of --seq)", prompt, gen)
                           : fmt::format("seq=4096 context (prompt {} + gen {} tokens)", prompt, gen));
        } else if (!has_prompt) {
            prompt = has_seq ? seq - gen : 512;
            if (!has_seq) assume("prompt=512 tokens");
        } else if (!has_gen) {
            gen = has_seq ? seq - prompt : 512;
            if (!has_seq) assume("gen=512 tokens");
        }
        w.prompt = prompt;
        w.gen = gen;
        w.seq = w.prompt + w.gen;
        if (w.seq > kMaxTokens) throw InputError(fmt::format("--prompt + --gen = {} tokens is over {}", w.seq, kMaxTokens));
    }
    if (w.model.arch.max_position > 0 && w.seq > w.model.arch.max_position)
        w.warnings.push_back(fmt::format("{} tokens exceed the model's max_position_embeddings {}", w.seq,
                                         w.model.arch.max_position));

    if (w.uses_lora()) {
        w.lora_rank = r.lora_rank ? parse_positive_int(*r.lora_rank, "--lora-rank", 65536) : 64;
        if (!r.lora_rank) assume("lora-rank=64 (document §4 QLoRA recipe)");
        w.lora_targets = r.lora_targets ? parse_lora_targets(*r.lora_targets)
                                        : std::vector<LoraTarget>{LoraTarget::Q, LoraTarget::V};
        if (!r.lora_targets) assume("lora-targets=q,v (document §4: q_proj, v_proj)");
    }

    if (!training && r.mixed) {
        // Inference under autocast keeps fp32 weights and computes in 16-bit
        // (litgpt's default bf16-mixed).
        w.mixed = parse_enum(kMixed, *r.mixed, "--mixed-precision");
        if (w.mixed == MixedPrecision::Amp && (w.quant != Quant::None || w.precision == Precision::Fp32))
            throw InputError("--mixed-precision amp for inference means fp32 weights with 16-bit compute; use it with "
                             "--precision bf16 or fp16 and no --quant");
    } else if (!training) {
        w.mixed = MixedPrecision::Pure;
    }
    if (!training) {
        if (r.kv_dtype) {
            w.kv_dtype = parse_enum(kKvDtypes, *r.kv_dtype, "--kv-dtype");
        } else {
            w.kv_dtype = w.precision == Precision::Fp32   ? KvDtype::Fp32
                         : w.precision == Precision::Fp16 ? KvDtype::Fp16
                                                          : KvDtype::Bf16;
        }
    }

    w.gpus = r.gpus ? parse_positive_int(*r.gpus, "--gpus", 4096) : 1;
    if (r.parallel) {
        w.parallel = parse_enum(kParallels, *r.parallel, "--parallel");
        if (w.gpus == 1 && w.parallel != Parallel::None)
            w.warnings.push_back(fmt::format("--parallel {} has no effect on one GPU; add --gpus N", to_string(w.parallel)));
        if (w.gpus > 1 && w.parallel == Parallel::None)
            throw InputError(fmt::format("--gpus {} needs a --parallel strategy (ddp, fsdp, zero2, zero3, tp or pp)", w.gpus));
        if (!training && (w.parallel == Parallel::Ddp || w.parallel == Parallel::Fsdp || w.parallel == Parallel::Zero2 ||
                          w.parallel == Parallel::Zero3))
            throw InputError(fmt::format("--parallel {} is a training strategy; use tp or pp for inference",
                                         to_string(w.parallel)));
    } else if (w.gpus > 1) {
        w.parallel = training ? Parallel::Fsdp : Parallel::Tp;
        assume(fmt::format("parallel={} across {} GPUs", to_string(w.parallel), w.gpus));
    }
    if (w.gpus > 1 && w.parallel == Parallel::Tp && w.model.arch.heads % w.gpus != 0)
        throw InputError(fmt::format("--parallel tp over {} GPUs needs the {} attention heads to divide evenly; use "
                                     "--gpus {} or --parallel pp",
                                     w.gpus, w.model.arch.heads, w.model.arch.heads % 2 == 0 ? 2 : 1));
    if (w.gpus > 1 && w.parallel == Parallel::Pp && w.gpus > w.model.arch.total_layers())
        throw InputError(fmt::format("--parallel pp over {} GPUs exceeds the model's {} layers", w.gpus,
                                     w.model.arch.total_layers()));

    w.estimator = r.estimator ? parse_enum(kEstimators, *r.estimator, "--estimator") : Estimator::Component;
    if (w.model.arch.encoder_only && !training && w.gen > 0)
        w.warnings.push_back("an encoder-only model does not generate; --gen is counted as extra context");
    return w;
}

}  // namespace gpuadvise
