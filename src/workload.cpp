#include "gpuadvise/workload.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "resolver.hpp"

namespace gpuadvise {

double kv_dtype_bytes(KvDtype k) {
    switch (k) {
        case KvDtype::Fp32:
            return 4.0;
        case KvDtype::Fp8:
        case KvDtype::Int8:
            return 1.0;
        case KvDtype::Q8_0:
            return 34.0 / 32.0;  // ggml block_q8_0: fp16 scale + 32 int8
        case KvDtype::Q4_0:
            return 18.0 / 32.0;  // ggml block_q4_0: fp16 scale + 16 bytes of nibbles
        default:
            return 2.0;
    }
}

bool Workload::targets(LoraTarget t) const {
    return std::find(lora_targets.begin(), lora_targets.end(), t) != lora_targets.end();
}

std::string lora_targets_text(const Workload& w) {
    std::string out;
    for (const auto t : w.lora_targets) {
        if (!out.empty()) out += ',';
        out += to_string(t);
    }
    return out;
}

namespace {

// The format a checkpoint's quantization_config names, with what it leaves
// in 16-bit; no format when the config is not modelled.
Quant checkpoint_quant(const CheckpointQuant& c) {
    if (!c.modelled()) return {};
    const QuantFormat* f = find_quant(c.format);
    if (f == nullptr) return {};
    const double parameter = f->parameter == QuantParameter::None ? 0.0 : c.parameter;
    return Quant{f, parameter, c.scope};
}

}  // namespace

namespace workload_detail {

Workload Resolver::run() {
    w_.precision_given = r_.has(Field::Precision);
    w_.quant_given = r_.has(Field::Quant);
    w_.optimizer_given = r_.has(Field::Optimizer);
    w_.context_given = r_.has(Field::Seq) || r_.has(Field::Context);
    if (task_is_fixed()) return fixed();
    model();
    if (w_.model.image) return image();
    method();
    pooling_fields();
    harness();
    formats();
    applicability();
    engine();
    training();
    prompt_images();
    tokens();
    lora();
    inference_settings();
    speculation();
    gpus();
    train_offload();
    estimator();
    return std::move(w_);
}

Arg Resolver::arg(Field f) const {
    const auto& v = r_.get(f);
    return Arg{v ? &*v : nullptr};
}

bool Resolver::task_is_fixed() {
    const Arg t = arg(Field::Task);
    if (!t) return false;
    task_ = &find_task(t.text(), t.from());
    w_.task = task_;
    // A task row names its model; a second model would answer another
    // question under the row's name.
    for (const Field f :
         {Field::Model, Field::HfConfig, Field::Gguf, Field::Safetensors, Field::ModelDir})
        if (task_->model && r_.has(f))
            throw InputError(
                fmt::format("{} {} sets the model ({}); {} names another: drop one of them",
                            t.from(), task_->id, *task_->model, r_.get(f)->origin));
    return !task_->model;
}

// A task without a model (the document's SDXL and video rows) states a
// memory floor; no workload field can apply to it.
Workload Resolver::fixed() {
    for (const FieldSpec& s : field_specs()) {
        if (s.field == Field::Task || !r_.has(s.field)) continue;
        if ((s.group & (kModelGroup | kWorkloadGroup | kJobGroup)) == 0) continue;
        throw InputError(fmt::format(
            "task {} is not a language-model workload, so {} does not apply to it; drop {}",
            task_->id, r_.get(s.field)->origin, r_.get(s.field)->origin));
    }
    w_.model.name = std::string(task_->id);
    w_.model.origin = ModelOrigin::Task;
    w_.fixed_bytes = task_->requirements.min_memory_bytes;
    w_.quant = Quant{&quant_none(), 0};
    assume(fmt::format("memory need = {:.0f} GB (the source document's minimum for {}, §6)",
                       static_cast<double>(*w_.fixed_bytes) / 1e9, task_->id));
    return std::move(w_);
}

void Resolver::model() {
    Model& m = w_.model;
    Arg name = arg(Field::Model);
    std::string task_model;
    if (!name && !in_.hf_config_text && !in_.model_file && task_ && task_->model) {
        task_model = std::string(*task_->model);
    }
    if (in_.hf_config_text && name)
        throw InputError(
            fmt::format("{} and --hf-config both name the model; give only one", name.from()));
    if (in_.model_file) {
        if (name)
            throw InputError(fmt::format("{} and {} both name the model; give only one",
                                         name.from(), sanitize(in_.model_file->source, 120)));
        const ModelFile& f = *in_.model_file;
        m.name = sanitize(f.source, 200);
        m.path = f.path;
        m.origin = f.format;
        if (f.arch)
            m.arch = *f.arch;
        else if (in_.hf_config_text)
            m.arch = parse_hf_config(*in_.hf_config_text, in_.hf_config_source);
        else
            m.arch = infer_architecture(f.params);
        const ParamCounts counts = count_params(m.arch);
        // The file's count is exact; the shape (from the file, a config or
        // the size rule) splits it and sizes activations and the KV cache.
        m.params = f.params;
        const double share = static_cast<double>(counts.active()) /
                             static_cast<double>(std::max<std::uint64_t>(counts.total(), 1));
        m.active_params = to_bytes(static_cast<double>(f.params) * share);
        m.weight_bytes = f.weight_bytes;
        m.file_quantization = f.quantization;
        shape_notes();
        return;
    }
    if (in_.hf_config_text) {
        m.name = sanitize(in_.hf_config_source, 200);
        m.origin = ModelOrigin::HfConfig;
        m.arch = parse_hf_config(*in_.hf_config_text, in_.hf_config_source);
    } else if (name || !task_model.empty()) {
        const std::string text = name ? name.text() : task_model;
        const std::string from = name ? name.from() : fmt::format("--task {}", task_->id);
        const ModelPreset* p = looks_like_size(text) ? nullptr : find_preset(presets_, text);
        if (p) {
            m.name = p->id;
            m.hf_repo = p->hf_repo;
            m.origin = ModelOrigin::Preset;
            m.arch = p->arch;
            if (p->image) {
                m.image = &*p->image;
                m.params = p->image->params;
                m.active_params = m.params;
                return;
            }
        } else {
            if (!looks_like_size(text)) throw_unknown_model(presets_, text);
            const std::uint64_t params = parse_param_count(text, from);
            m.name = text;
            m.origin = ModelOrigin::Size;
            m.arch = infer_architecture(params);
            // "8B" means 8e9 parameters; the inferred shape only splits them
            // into embeddings, layers and head.
            m.params = params;
            m.active_params = params;
            return;
        }
    } else {
        throw InputError(
            "no model given; use --model 8B (a size), --model llama-3.1-8b (a preset) or "
            "--hf-config FILE");
    }
    const ParamCounts counts = count_params(m.arch);
    m.params = counts.total();
    m.active_params = counts.active();
    shape_notes();
}

// What the shape leaves out or adds, said once.
void Resolver::shape_notes() {
    const Architecture& a = w_.model.arch;
    if (!a.vision_unknown.empty())
        w_.warnings.push_back(fmt::format(
            "the config's vision_config ({}) is not a vision encoder gpuadvise counts; its "
            "weights are left out",
            sanitize(a.vision_unknown, 40)));
}

void Resolver::method() {
    const Arg a = arg(Field::Method);
    if (a) {
        w_.method = kMethods.parse(a.text(), a.from());
    } else if (task_ && task_->method) {
        w_.method = kMethods.parse(*task_->method, "--task method");
        assume(fmt::format("method={} (--task {})", to_string(w_.method), task_->id));
    } else {
        w_.method = Method::Inference;
        assume("method=inference (default)");
    }
}

void Resolver::formats() {
    const bool qlora = w_.method == Method::Qlora;
    const bool training = w_.trains();
    // Precision: the document's QLoRA recipe computes in fp16 (§4);
    // otherwise bf16, the dtype current checkpoints ship in.
    if (const Arg a = arg(Field::Precision)) {
        w_.precision = kPrecisions.parse(a.text(), a.from());
        // FP8 training keeps bf16 master weights and runs the linear layers'
        // matmuls in FP8; serving in FP8 is a weight format (--quant fp8).
        if (w_.precision == Precision::Fp8 && !training)
            throw InputError(
                fmt::format("{} fp8 is FP8 training (--method full or lora); for FP8 inference use "
                            "--quant fp8",
                            a.from()));
        if (w_.precision == Precision::Fp8 && qlora)
            throw InputError(fmt::format(
                "{} fp8 does not apply to --method qlora (its 4-bit base is dequantised to "
                "16-bit for every matmul); use --method lora or full",
                a.from()));
    } else {
        w_.precision = qlora ? Precision::Fp16 : Precision::Bf16;
        assume(qlora ? "precision=fp16 (compute dtype of the document's QLoRA recipe, §4)"
                     : "precision=bf16 (the dtype current checkpoints ship in)");
    }
    const Arg q = arg(Field::Quant);
    const std::optional<CheckpointQuant>& own = w_.model.arch.quantization;
    const Quant checkpoint = own ? checkpoint_quant(*own) : Quant{};
    if (q) {
        w_.quant = parse_quant(q.text(), q.from());
        if (own)
            assume(fmt::format(
                "quant={} from {}, overriding the checkpoint's quantization_config ({})",
                w_.quant.text(), q.from(), own->text()));
    } else if (checkpoint.format && (!training || (qlora && checkpoint.format->trainable_base))) {
        // The checkpoint's own format: what is downloaded and loaded.
        w_.quant = checkpoint;
        if (!r_.has(Field::DoubleQuant)) w_.double_quant = own->double_quant;
        assume(fmt::format("quant={} (the checkpoint's quantization_config: {})", w_.quant.text(),
                           own->text()));
    } else if (qlora) {
        w_.quant = Quant{find_quant("nf4"), 0};
        assume("quant=nf4 (QLoRA base weights, document §4)");
    } else if (const Engine* e = downloads_quantized()) {
        w_.quant = parse_quant(e->default_quant, fmt::format("engine {}", e->id));
        assume(fmt::format("quant={} ({}'s download of a model named without a format: {})",
                           w_.quant.text(), e->name, e->default_quant_source));
    } else {
        w_.quant = Quant{&quant_none(), 0};
    }
    if (!q && own && !own->modelled())
        w_.warnings.push_back(fmt::format(
            "the checkpoint's quantization_config is not modelled ({}); its weights are sized "
            "as {}-bit; give --quant to size its format",
            own->text(), w_.precision == Precision::Fp32 ? 32 : 16));
    else if (!q && checkpoint.format && training && w_.quant.format != checkpoint.format)
        assume(fmt::format("weights dequantized to {} for {} training (the checkpoint stores {})",
                           to_string(w_.precision), to_string(w_.method), own->text()));
    const std::string qtext = q ? q.from() + " " + quote(q.text()) : "--quant";
    if (qlora && w_.quant.none())
        throw InputError(
            "--method qlora needs a quantized base: use --quant nf4 (or int8, gptq-int4, "
            "awq-int4), "
            "or --method lora for a 16-bit base");
    if (qlora && !w_.quant.format->trainable_base)
        throw InputError(
            fmt::format("{} cannot be the frozen base of QLoRA (it is an inference format); use "
                        "--quant nf4, int8, gptq-int4 or awq-int4",
                        qtext));
    if (w_.method == Method::Full && !w_.quant.none())
        throw InputError(
            fmt::format("{} cannot be combined with --method full (quantized weights are not "
                        "trained); use --method qlora or drop --quant",
                        qtext));
    if (w_.method == Method::Lora && !w_.quant.none())
        throw InputError(fmt::format("--method lora with {} is QLoRA; use --method qlora", qtext));
    if (training && w_.quant.is_gguf())
        throw InputError(
            fmt::format("{} is a llama.cpp (GGUF) inference format; use nf4 for QLoRA", qtext));
    const bool has_double_quant =
        w_.quant.format && w_.quant.format->double_quant_overhead_bits.has_value();
    const bool from_checkpoint = !q && checkpoint.format && w_.quant.format == checkpoint.format;
    if (const auto dq = r_.flag(Field::DoubleQuant)) {
        if (*dq && !has_double_quant)
            throw InputError(
                fmt::format("{} applies to bitsandbytes nf4 and fp4 weights only; add --quant nf4",
                            arg(Field::DoubleQuant).from()));
        w_.double_quant = *dq;
    } else if (has_double_quant && !from_checkpoint) {
        if (w_.harness_given) {
            w_.double_quant = qlora && w_.profile().double_quant;
            if (qlora)
                assume(fmt::format("double-quant={} ({}'s default)", w_.double_quant ? "on" : "off",
                                   w_.profile().label));
        } else {
            w_.double_quant = qlora;
            if (qlora) assume("double-quant=on (document §4 QLoRA recipe)");
        }
    }
    if (in_.model_file && q)
        throw InputError(fmt::format("{} already fixes the weight format ({}); drop {}",
                                     sanitize(in_.model_file->source, 120),
                                     in_.model_file->quantization, q.from()));
}

// The engine that downloads a named model in a format of its own (Ollama's
// library tags are Q4_K_M files), where that decides the weights: inference
// of a preset or a size, no checkpoint format, not an embedding model (whose
// library files are 16-bit).
const Engine* Resolver::downloads_quantized() const {
    const Arg a = arg(Field::Engine);
    const ModelOrigin o = w_.model.origin;
    if (!a || w_.trains() || w_.embeds() || !w_.is_language() ||
        (o != ModelOrigin::Preset && o != ModelOrigin::Size))
        return nullptr;
    const Engine& e = parse_engine(a.text(), a.from());
    return e.default_quant.empty() ? nullptr : &e;
}

// Every workload field given for a workload it does not apply to is an
// error naming the field and the fix: one check over the table, so no
// field can be forgotten.
void Resolver::applicability() {
    const bool training = w_.trains();
    for (const FieldSpec& s : field_specs()) {
        const auto& v = r_.get(s.field);
        if (!v) continue;
        if (s.models == Models::Image || s.models == Models::Diffusion)
            throw InputError(fmt::format(
                "{} applies to image generation and vision models (e.g. --model sdxl or "
                "--model resnet50)",
                v->origin));
        switch (s.applies) {
            case Applies::Training:
            case Applies::TrainingOrImage:
                if (!training)
                    throw InputError(
                        fmt::format("{} applies to training{}; add --method full, lora or qlora",
                                    v->origin, s.method_note));
                break;
            case Applies::Inference:
                if (training)
                    throw InputError(fmt::format("{} applies to --method inference{}", v->origin,
                                                 s.method_note));
                break;
            case Applies::Lora:
                if (!w_.uses_lora())
                    throw InputError(
                        fmt::format("{} applies to --method lora or qlora", v->origin));
                break;
            case Applies::Always:
            case Applies::Model:
                break;
        }
    }
    if (w_.model.origin == ModelOrigin::Gguf && training)
        throw InputError(
            "a GGUF file is for llama.cpp inference; train from the Hugging Face checkpoint "
            "(--model-dir)");
}

void Resolver::engine() {
    if (w_.trains()) return;
    const bool gguf = w_.quant.is_gguf() || w_.model.origin == ModelOrigin::Gguf;
    if (const Arg a = arg(Field::Engine)) {
        w_.engine = &parse_engine(a.text(), a.from());
        w_.engine_given = true;
    } else {
        w_.engine = find_engine(gguf ? "llama.cpp" : "vllm");
        assume(fmt::format("engine={} ({})", w_.engine->id,
                           gguf ? "the engine of GGUF files"
                                : "the common GPU serving engine; plans on cards it "
                                  "does not run on use one that does"));
    }
    const QuantFamily family = gguf ? QuantFamily::Gguf : w_.quant.family();
    if (!w_.engine->loads(family)) {
        const Arg q = arg(Field::Quant);
        throw InputError(fmt::format(
            "{} does not load {} weights; {}", w_.engine->name,
            q ? q.from() + " " + quote(q.text()) : std::string(kQuantFamilies.name(family)),
            gguf ? "GGUF runs on llama.cpp, Ollama or LM Studio (--engine llama.cpp)"
                 : "choose a format it loads or another --engine"));
    }
}

// Called only for a field that was given.
std::int64_t Resolver::positive(Field f, std::int64_t max) const {
    const std::optional<Given>& g = r_.get(f);
    if (!g) throw std::logic_error("positive() on a field that was not given");
    return parse_positive_int(g->text, g->origin, max);
}

void Resolver::tokens() {
    const bool training = w_.trains();
    w_.flash_attn = r_.flag(Field::FlashAttn).value_or(true);
    if (!r_.has(Field::FlashAttn))
        assume("flash-attn=on (PyTorch SDPA, the default attention of current frameworks)");
    w_.batch = r_.has(Field::Batch) ? positive(Field::Batch, kMaxBatch) : (training ? 4 : 1);
    if (!w_.model.arch.pools() && !r_.has(Field::Batch) && !r_.has(Field::Users) &&
        !r_.has(Field::Rps))
        assume(training ? "batch=4 per GPU (document §4: batch 4 x grad-accum 8)"
                        : "batch=1 concurrent sequence");
    if (w_.model.arch.pools()) {
        pooling_tokens();  // one forward per sequence (workload_embedding.cpp)
    } else if (training) {
        w_.seq = r_.has(Field::Seq) ? positive(Field::Seq, kMaxTokens) : 512;
        if (!r_.has(Field::Seq))
            assume(
                "seq=512 tokens (instruction-tuning length; fits the document's 9.1 GB QLoRA "
                "figure)");
    } else {
        inference_tokens();
        serving_load();
    }
    add_image_tokens();
    if (w_.model.arch.max_position > 0 && w_.seq > w_.model.arch.max_position)
        w_.warnings.push_back(
            fmt::format("{} tokens exceed the model's trained context (max_position_embeddings {})",
                        w_.seq, w_.model.arch.max_position));
    // Tokens in flight bound every activation and KV term: a documented
    // limit keeps the arithmetic far from overflow (docs/memory-model.md).
    constexpr double kMaxTokensInFlight = 1e12;
    if (static_cast<double>(w_.batch) * static_cast<double>(w_.seq) > kMaxTokensInFlight)
        throw InputError(fmt::format(
            "--batch {} x {} tokens = {:.3g} tokens per step is over the {:.0e} gpuadvise "
            "models; reduce --batch or --seq",
            w_.batch, w_.seq, static_cast<double>(w_.batch) * static_cast<double>(w_.seq),
            kMaxTokensInFlight));
}

// Any two of --seq, --prompt and --gen determine the third; the default
// context is 4096 tokens with a quarter (at most 512) generated.
void Resolver::inference_tokens() {
    const Field seq_flag = seq_field();
    const bool has_seq = r_.has(seq_flag), has_prompt = r_.has(Field::Prompt),
               has_gen = r_.has(Field::Gen);
    const std::int64_t seq = has_seq ? positive(seq_flag, kMaxTokens) : 4096;
    const std::string_view sf = spec(seq_flag).flag;
    std::int64_t prompt = has_prompt ? positive(Field::Prompt, kMaxTokens) : 0;
    std::int64_t gen = has_gen ? positive(Field::Gen, kMaxTokens) : 0;
    if (has_seq && has_prompt && has_gen && prompt + gen != seq)
        throw InputError(fmt::format("--prompt {} + --gen {} is not {} {}; give two of the three",
                                     prompt, gen, sf, seq));
    if (has_seq && has_prompt && prompt >= seq)
        throw InputError(
            fmt::format("--prompt {} leaves no room to generate within {} {}", prompt, sf, seq));
    if (has_seq && has_gen && gen >= seq)
        throw InputError(
            fmt::format("--gen {} leaves no room for a prompt within {} {}", gen, sf, seq));
    if (!has_prompt && !has_gen) {
        gen = std::max<std::int64_t>(1, std::min<std::int64_t>(512, seq / 4));
        prompt = std::max<std::int64_t>(1, seq - gen);
        // With --images the flags count the text; the images' tokens join the prompt.
        const std::string_view text = w_.images.any() ? " text" : "";
        const std::string_view images =
            w_.images.any() ? "; the images' tokens join the prompt" : "";
        assume(has_seq ? fmt::format("prompt={} + gen={}{} tokens (split of {}{})", prompt, gen,
                                     text, sf, images)
                       : fmt::format("seq=4096{} context (prompt {} + gen {} tokens{})", text,
                                     prompt, gen, images));
    } else if (!has_prompt) {
        prompt = has_seq ? seq - gen : 512;
        if (!has_seq) assume("prompt=512 tokens");
    } else if (!has_gen) {
        gen = has_seq ? seq - prompt : 512;
        if (!has_seq) assume("gen=512 tokens");
    }
    w_.prompt = prompt;
    w_.gen = gen;
    w_.seq = prompt + gen;
    if (w_.seq > kMaxTokens)
        throw InputError(
            fmt::format("--prompt + --gen = {} tokens is over {}", w_.seq, kMaxTokens));
    if (w_.model.arch.encoder_only && w_.gen > 0)
        w_.warnings.push_back(
            "an encoder-only model does not generate; --gen is counted as extra context");
}

void Resolver::inference_settings() {
    if (w_.trains()) return;
    if (const Arg a = arg(Field::MixedPrecision)) {
        // Inference under autocast keeps fp32 weights and computes in 16-bit
        // (litgpt's default bf16-mixed).
        w_.mixed = kMixedPrecisions.parse(a.text(), a.from());
        if (w_.mixed == MixedPrecision::Amp &&
            (!w_.quant.none() || w_.precision == Precision::Fp32))
            throw InputError(fmt::format(
                "{} amp for inference means fp32 weights with 16-bit compute; use it with "
                "--precision bf16 or fp16 and no --quant",
                a.from()));
    } else {
        w_.mixed = MixedPrecision::Pure;
    }
    if (const Arg a = arg(Field::KvDtype)) {
        w_.kv_dtype = kKvDtypes.parse(a.text(), a.from());
        const auto& dtypes = w_.engine->kv_dtypes;
        if (std::find(dtypes.begin(), dtypes.end(), to_string(w_.kv_dtype)) == dtypes.end()) {
            std::string list;
            for (const auto d : dtypes) list += (list.empty() ? "" : ", ") + std::string(d);
            throw InputError(
                fmt::format("{} {} is not a KV cache type {} offers; choose one of: {}", a.from(),
                            quote(a.text()), w_.engine->name, list));
        }
    } else {
        w_.kv_dtype = w_.precision == Precision::Fp32   ? KvDtype::Fp32
                      : w_.precision == Precision::Fp16 ? KvDtype::Fp16
                                                        : KvDtype::Bf16;
    }
}

void Resolver::gpus() {
    const bool training = w_.trains();
    w_.gpus = r_.has(Field::Gpus) ? positive(Field::Gpus, kMaxGpus) : 1;
    if (const Arg a = arg(Field::Parallel)) {
        w_.parallel = kParallels.parse(a.text(), a.from());
        if (w_.gpus == 1 && w_.parallel != Parallel::None)
            w_.warnings.push_back(fmt::format("{} {} has no effect on one GPU; add --gpus N",
                                              a.from(), to_string(w_.parallel)));
        if (w_.gpus > 1 && w_.parallel == Parallel::None)
            throw InputError(fmt::format(
                "--gpus {} needs a --parallel strategy (ddp, fsdp, zero2, zero3, tp or pp)",
                w_.gpus));
        if (!training && (w_.parallel == Parallel::Ddp || w_.parallel == Parallel::Fsdp ||
                          w_.parallel == Parallel::Zero2 || w_.parallel == Parallel::Zero3))
            throw InputError(fmt::format("{} {} is a training strategy; use tp or pp for inference",
                                         a.from(), to_string(w_.parallel)));
    } else if (w_.gpus > 1 && !(training && layout_given())) {
        w_.parallel = default_parallel(w_);
        assume(fmt::format("parallel={} across {} GPUs", to_string(w_.parallel), w_.gpus));
    }
    const Architecture& a = w_.model.arch;
    if (w_.gpus > 1 && w_.parallel == Parallel::Tp && a.heads % w_.gpus != 0)
        throw InputError(fmt::format(
            "--parallel tp over {} GPUs needs the {} attention heads to divide evenly; use "
            "--gpus {} or --parallel pp",
            w_.gpus, a.heads, a.heads % 2 == 0 ? 2 : 1));
    if (w_.gpus > 1 && w_.parallel == Parallel::Pp && w_.gpus > a.total_layers())
        throw InputError(fmt::format("--parallel pp over {} GPUs exceeds the model's {} layers",
                                     w_.gpus, a.total_layers()));
    if (training) layout();
}

void Resolver::estimator() {
    if (const Arg a = arg(Field::Estimator)) w_.estimator = kEstimators.parse(a.text(), a.from());
}

}  // namespace workload_detail

Workload resolve_workload(const Request& request, const ModelInputs& inputs,
                          const std::vector<ModelPreset>& presets) {
    return workload_detail::Resolver(request, inputs, presets).run();
}

Parallel default_parallel(const Workload& w) {
    return w.trains() ? Parallel::Fsdp : Parallel::Tp;
}

}  // namespace gpuadvise
