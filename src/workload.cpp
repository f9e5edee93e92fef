#include "gpuadvise/workload.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

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

constexpr std::int64_t kMaxTokens = 100'000'000;
constexpr std::int64_t kMaxBatch = 1'000'000;
constexpr std::int64_t kMaxGpus = 16'384;

// A field's value and origin, when given.
struct Arg {
    const Given* given = nullptr;
    explicit operator bool() const { return given != nullptr; }
    const std::string& text() const { return given->text; }
    const std::string& from() const { return given->origin; }
};

class Resolver {
  public:
    Resolver(const Request& r, const ModelInputs& in, const std::vector<ModelPreset>& presets)
        : r_(r), in_(in), presets_(presets) {}

    Workload run() {
        if (task_is_fixed()) return fixed();
        model();
        if (w_.model.image) return image();
        method();
        formats();
        applicability();
        engine();
        training();
        tokens();
        lora();
        inference_settings();
        gpus();
        estimator();
        return std::move(w_);
    }

  private:
    Arg arg(Field f) const {
        const auto& v = r_.get(f);
        return Arg{v ? &*v : nullptr};
    }
    void assume(std::string what) { w_.assumed.push_back(std::move(what)); }

    // --- the task --------------------------------------------------------------
    bool task_is_fixed() {
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
    Workload fixed() {
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

    // --- the model -------------------------------------------------------------
    void model() {
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
    void shape_notes() {
        const Architecture& a = w_.model.arch;
        if (!a.vision_unknown.empty())
            w_.warnings.push_back(fmt::format(
                "the config's vision_config ({}) is not a vision encoder gpuadvise counts; its "
                "weights are left out",
                sanitize(a.vision_unknown, 40)));
    }

    // --- image generation, vision and video ------------------------------------
    // An image or vision preset: its own defaults and fields; the language
    // model's fields are refused by name.
    Workload image() {
        const ImageModel& im = *w_.model.image;
        const bool diffusion = im.diffusion.has_value();
        for (const FieldSpec& s : field_specs()) {
            const auto& v = r_.get(s.field);
            if (!v) continue;
            if (!applies_to_images(s.field))
                throw InputError(fmt::format(
                    "{} applies to language models; {} is an {} model{}", v->origin, w_.model.name,
                    diffusion ? "image generation" : "vision",
                    s.field == Field::Seq ? " (use --resolution for the image size)" : ""));
            if (s.applies == Applies::Diffusion && !diffusion)
                throw InputError(
                    fmt::format("{} applies to image generation models such as sdxl", v->origin));
        }
        if (const Arg a = arg(Field::Method)) {
            w_.method = kMethods.parse(a.text(), a.from());
        } else {
            w_.method = Method::Inference;
            assume("method=inference (default)");
        }
        if (diffusion && w_.method != Method::Inference)
            throw InputError(fmt::format(
                "{} {} of an image generation model is not modelled yet; gpuadvise sizes its "
                "inference (drop --method)",
                arg(Field::Method).from(), to_string(w_.method)));
        if (!diffusion && w_.uses_lora())
            throw InputError(
                fmt::format("{} {} applies to language models; train {} with --method full",
                            arg(Field::Method).from(), to_string(w_.method), w_.model.name));
        const bool training = w_.trains();
        for (const FieldSpec& s : field_specs()) {
            const auto& v = r_.get(s.field);
            if (!v) continue;
            if (s.applies == Applies::Training && !training)
                throw InputError(
                    fmt::format("{} applies to training; add --method full", v->origin));
            if (s.applies == Applies::Inference && training)
                throw InputError(fmt::format("{} applies to --method inference", v->origin));
        }
        // Precision: diffusers' docs load UNet pipelines in fp16 and FLUX/SD3
        // (DiT) checkpoints ship in bf16; vision benchmarks run under AMP.
        if (const Arg a = arg(Field::Precision)) {
            w_.precision = kPrecisions.parse(a.text(), a.from());
            if (w_.precision == Precision::Fp8)
                throw InputError(fmt::format(
                    "{} fp8 is FP8 training of language models (Transformer Engine); image and "
                    "vision models run in fp16, bf16 or fp32",
                    a.from()));
        } else {
            const bool unet = diffusion && im.diffusion->denoiser == DenoiserKind::Unet;
            w_.precision = unet ? Precision::Fp16 : Precision::Bf16;
            assume(unet        ? "precision=fp16 (diffusers loads UNet pipelines in torch.float16)"
                   : diffusion ? "precision=bf16 (the dtype FLUX and SD3 checkpoints ship in)"
                               : "precision=bf16 (16-bit autocast, as vision benchmarks run)");
        }
        const Arg q = arg(Field::Quant);
        w_.quant = q ? parse_quant(q.text(), q.from()) : Quant{&quant_none(), 0};
        if (q && !diffusion)
            throw InputError(fmt::format(
                "{} {}: quantized weights are modelled for image generation denoisers only; drop "
                "--quant",
                q.from(), quote(q.text())));
        if (training) {
            w_.mixed = MixedPrecision::Amp;
            if (const Arg a = arg(Field::MixedPrecision))
                w_.mixed = kMixedPrecisions.parse(a.text(), a.from());
            else
                assume("mixed-precision=amp (fp32 weights and optimizer state, 16-bit compute)");
            if (const Arg a = arg(Field::Optimizer)) {
                w_.optimizer = kOptimizers.parse(a.text(), a.from());
            } else {
                w_.optimizer = Optimizer::SgdMomentum;
                assume("optimizer=sgd-momentum (the ResNet recipe of NVIDIA DeepLearningExamples)");
            }
            // Vision recipes train without checkpointing; the saved-tensor
            // model has no recompute variant to offer.
            if (r_.flag(Field::GradCkpt).value_or(false))
                throw InputError(fmt::format(
                    "{}: activation checkpointing is not modelled for vision backbones; drop it",
                    arg(Field::GradCkpt).from()));
            if (r_.has(Field::GradAccum)) w_.grad_accum = positive(Field::GradAccum, 1'000'000);
        } else {
            w_.mixed = MixedPrecision::Pure;
        }
        w_.flash_attn = r_.flag(Field::FlashAttn).value_or(true);
        video();
        // Video batches one frame of every stream (DeepStream's nvstreammux).
        const std::int64_t default_batch =
            training ? 256 : std::max<std::int64_t>(w_.image.streams, 1);
        w_.batch = r_.has(Field::Batch) ? positive(Field::Batch, kMaxBatch) : default_batch;
        if (!r_.has(Field::Batch))
            assume(training ? "batch=256 images per GPU (NVIDIA DeepLearningExamples' default)"
                   : default_batch > 1
                       ? fmt::format("batch={} (one frame of every stream)", default_batch)
                       : "batch=1 image");
        resolution(im);
        ImageSettings& s = w_.image;
        if (diffusion) {
            s.steps =
                r_.has(Field::Steps) ? positive(Field::Steps, 10'000) : im.diffusion->default_steps;
            if (!r_.has(Field::Steps))
                assume(fmt::format("steps={} (the pipeline's default)", s.steps));
            if (const Arg a = arg(Field::CpuOffload))
                s.offload = kCpuOffloads.parse(a.text(), a.from());
            s.vae_tiling = r_.flag(Field::VaeTiling).value_or(false);
        }
        w_.gpus = r_.has(Field::Gpus) ? positive(Field::Gpus, kMaxGpus) : 1;
        if (const Arg a = arg(Field::Parallel)) {
            const Parallel p = kParallels.parse(a.text(), a.from());
            const Parallel allowed = training ? Parallel::Ddp : Parallel::None;
            if (p != allowed)
                throw InputError(fmt::format(
                    "{} {}: {} runs whole on every GPU ({}); use --parallel {}", a.from(),
                    to_string(p), w_.model.name, training ? "data parallel" : "one replica per GPU",
                    to_string(allowed)));
        }
        if (w_.gpus > 1 && training) w_.parallel = Parallel::Ddp;
        return std::move(w_);
    }

    void resolution(const ImageModel& im) {
        ImageSettings& s = w_.image;
        const Arg a = arg(Field::Resolution);
        if (!a) {
            s.width = s.height = im.default_resolution();
            assume(fmt::format("resolution={0}x{0} (the model's default)", s.width));
            return;
        }
        const std::string_view text = trim(a.text());
        const std::size_t x = text.find_first_of("xX");
        const auto side = [&](std::string_view t) {
            return parse_positive_int(t, a.from(), 16384);
        };
        if (x == std::string_view::npos) {
            s.width = s.height = side(text);
            assume(fmt::format("resolution={0}x{0} ({1} {2} read as a square)", s.width, a.from(),
                               quote(text)));
        } else {
            s.width = side(text.substr(0, x));
            s.height = side(text.substr(x + 1));
        }
        const std::int64_t step =
            im.diffusion
                ? im.diffusion->downsample *
                      (im.diffusion->denoiser == DenoiserKind::Dit ? im.diffusion->patch : 1)
                : 1;
        if (s.width % step != 0 || s.height % step != 0 || s.width < step || s.height < step)
            throw InputError(
                fmt::format("{} {}: {} needs both sides to be multiples of {} pixels (e.g. {}x{})",
                            a.from(), quote(text), w_.model.name, step,
                            std::max<std::int64_t>(step, s.width / step * step),
                            std::max<std::int64_t>(step, s.height / step * step)));
    }

    void video() {
        ImageSettings& s = w_.image;
        const bool video_task = task_ && task_->requirements.needs_av1;
        if (!r_.has(Field::Streams) && !video_task) {
            for (const Field f : {Field::Fps, Field::Codec})
                if (const Arg a = arg(f))
                    throw InputError(fmt::format("{} applies to video; add --streams N", a.from()));
            return;
        }
        s.streams = r_.has(Field::Streams) ? positive(Field::Streams, 100'000) : 1;
        if (!r_.has(Field::Streams)) assume("streams=1");
        s.fps = r_.has(Field::Fps) ? static_cast<double>(positive(Field::Fps, 1000)) : 30.0;
        if (!r_.has(Field::Fps)) assume("fps=30 per stream");
        if (const Arg a = arg(Field::Codec)) {
            s.codec = kCodecs.parse(a.text(), a.from());
        } else {
            s.codec = Codec::Av1;
            assume("codec=av1 (the source document's video row)");
        }
        if (w_.trains())
            throw InputError("--streams describes video inference; drop --method or --streams");
    }

    // --- method and formats ----------------------------------------------------
    void method() {
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

    void formats() {
        const bool qlora = w_.method == Method::Qlora;
        const bool training = w_.trains();
        // Precision: the document's QLoRA recipe computes in fp16 (§4);
        // otherwise bf16, the dtype current checkpoints ship in.
        if (const Arg a = arg(Field::Precision)) {
            w_.precision = kPrecisions.parse(a.text(), a.from());
            // FP8 training keeps bf16 master weights and runs the linear layers'
            // matmuls in FP8; serving in FP8 is a weight format (--quant fp8).
            if (w_.precision == Precision::Fp8 && !training)
                throw InputError(fmt::format(
                    "{} fp8 is FP8 training (--method full or lora); for FP8 inference use "
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
        } else if (checkpoint.format &&
                   (!training || (qlora && checkpoint.format->trainable_base))) {
            // The checkpoint's own format: what is downloaded and loaded.
            w_.quant = checkpoint;
            if (!r_.has(Field::DoubleQuant)) w_.double_quant = own->double_quant;
            assume(fmt::format("quant={} (the checkpoint's quantization_config: {})",
                               w_.quant.text(), own->text()));
        } else if (qlora) {
            w_.quant = Quant{find_quant("nf4"), 0};
            assume("quant=nf4 (QLoRA base weights, document §4)");
        } else {
            w_.quant = Quant{&quant_none(), 0};
        }
        if (!q && own && !own->modelled())
            w_.warnings.push_back(fmt::format(
                "the checkpoint's quantization_config is not modelled ({}); its weights are sized "
                "as {}-bit; give --quant to size its format",
                own->text(), w_.precision == Precision::Fp32 ? 32 : 16));
        else if (!q && checkpoint.format && training && w_.quant.format != checkpoint.format)
            assume(
                fmt::format("weights dequantized to {} for {} training (the checkpoint stores {})",
                            to_string(w_.precision), to_string(w_.method), own->text()));
        const std::string qtext = q ? q.from() + " " + quote(q.text()) : "--quant";
        if (qlora && w_.quant.none())
            throw InputError(
                "--method qlora needs a quantized base: use --quant nf4 (or int8, gptq-int4, "
                "awq-int4), "
                "or --method lora for a 16-bit base");
        if (qlora && !w_.quant.format->trainable_base)
            throw InputError(fmt::format(
                "{} cannot be the frozen base of QLoRA (it is an inference format); use "
                "--quant nf4, int8, gptq-int4 or awq-int4",
                qtext));
        if (w_.method == Method::Full && !w_.quant.none())
            throw InputError(
                fmt::format("{} cannot be combined with --method full (quantized weights are not "
                            "trained); use --method qlora or drop --quant",
                            qtext));
        if (w_.method == Method::Lora && !w_.quant.none())
            throw InputError(
                fmt::format("--method lora with {} is QLoRA; use --method qlora", qtext));
        if (training && w_.quant.is_gguf())
            throw InputError(
                fmt::format("{} is a llama.cpp (GGUF) inference format; use nf4 for QLoRA", qtext));
        const bool has_double_quant =
            w_.quant.format && w_.quant.format->double_quant_overhead_bits.has_value();
        const bool from_checkpoint =
            !q && checkpoint.format && w_.quant.format == checkpoint.format;
        if (const auto dq = r_.flag(Field::DoubleQuant)) {
            if (*dq && !has_double_quant)
                throw InputError(fmt::format(
                    "{} applies to bitsandbytes nf4 and fp4 weights only; add --quant nf4",
                    arg(Field::DoubleQuant).from()));
            w_.double_quant = *dq;
        } else if (has_double_quant && !from_checkpoint) {
            w_.double_quant = qlora;
            if (qlora) assume("double-quant=on (document §4 QLoRA recipe)");
        }
        if (in_.model_file && q)
            throw InputError(fmt::format("{} already fixes the weight format ({}); drop {}",
                                         sanitize(in_.model_file->source, 120),
                                         in_.model_file->quantization, q.from()));
    }

    // Every workload field given for a workload it does not apply to is an
    // error naming the field and the fix: one check over the table, so no
    // field can be forgotten.
    void applicability() {
        const bool training = w_.trains();
        for (const FieldSpec& s : field_specs()) {
            const auto& v = r_.get(s.field);
            if (!v) continue;
            switch (s.applies) {
                case Applies::Training:
                    if (!training)
                        throw InputError(fmt::format(
                            "{} applies to training; add --method full, lora or qlora", v->origin));
                    break;
                case Applies::Inference:
                    if (training)
                        throw InputError(
                            fmt::format("{} applies to --method inference{}", v->origin,
                                        s.field == Field::Engine ? " (training runs on PyTorch)"
                                        : s.field == Field::Prompt || s.field == Field::Gen
                                            ? "; use --seq for training"
                                            : ""));
                    break;
                case Applies::Lora:
                    if (!w_.uses_lora())
                        throw InputError(
                            fmt::format("{} applies to --method lora or qlora", v->origin));
                    break;
                case Applies::Image:
                case Applies::Diffusion:
                    throw InputError(fmt::format(
                        "{} applies to image generation and vision models (e.g. --model sdxl or "
                        "--model resnet50)",
                        v->origin));
                case Applies::Always:
                case Applies::Model:
                    if (s.field == Field::Steps && !training)
                        throw InputError(fmt::format(
                            "{} applies to training (optimizer steps) and to image generation "
                            "(denoising steps); add --method full, lora or qlora",
                            v->origin));
                    break;
            }
        }
        if (w_.model.origin == ModelOrigin::Gguf && training)
            throw InputError(
                "a GGUF file is for llama.cpp inference; train from the Hugging Face checkpoint "
                "(--model-dir)");
    }

    void engine() {
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

    // --- training ----------------------------------------------------------------
    void training() {
        if (!w_.trains()) return;
        const bool qlora = w_.method == Method::Qlora;
        if (const Arg a = arg(Field::MixedPrecision)) {
            w_.mixed = kMixedPrecisions.parse(a.text(), a.from());
        } else {
            w_.mixed = MixedPrecision::Amp;
            assume(
                "mixed-precision=amp (fp32 trainable weights and optimizer state, 16-bit compute)");
        }
        if (const Arg a = arg(Field::Optimizer)) {
            w_.optimizer = kOptimizers.parse(a.text(), a.from());
        } else {
            w_.optimizer = qlora ? Optimizer::PagedAdamW32bit : Optimizer::AdamW;
            assume(qlora ? "optimizer=paged-adamw-32bit (document §4 QLoRA recipe)"
                         : "optimizer=adamw");
        }
        w_.optimizer_in_backward = r_.flag(Field::OptimizerInBackward).value_or(false);
        if (const Arg a = arg(Field::OptimizerImpl)) {
            w_.optimizer_impl = kOptimizerImpls.parse(a.text(), a.from());
        } else {
            w_.optimizer_impl = OptimizerImpl::Foreach;
            if (w_.optimizer == Optimizer::AdamW)
                assume("optimizer-impl=foreach (torch.optim's default on CUDA)");
        }
        loss();
        // Hugging Face's collators (DataCollatorWithPadding, TRL's SFT collator
        // without packing=True) pad each batch to its longest sample, so the
        // common run sees a new shape every step.
        w_.packing = r_.flag(Field::Packing).value_or(false);
        if (!r_.has(Field::Packing))
            assume(
                "packing=off (batches padded to their longest sample, as Hugging Face's "
                "collators do)");
        ckpt_mode();
        if (r_.has(Field::GradAccum)) w_.grad_accum = positive(Field::GradAccum, 1'000'000);
    }

    // --grad-ckpt is --ckpt-mode full and --no-grad-ckpt is --ckpt-mode none;
    // given with --ckpt-mode they must agree.
    void ckpt_mode() {
        const std::optional<bool> toggle = r_.flag(Field::GradCkpt);
        if (const Arg a = arg(Field::CkptMode)) {
            w_.ckpt_mode = kCkptModes.parse(a.text(), a.from());
            if (toggle && *toggle != (w_.ckpt_mode != CkptMode::None))
                throw InputError(fmt::format("{} contradicts {} {}; give one of them",
                                             r_.get(Field::GradCkpt)->origin, a.from(),
                                             quote(a.text())));
        } else {
            w_.ckpt_mode = toggle.value_or(true) ? CkptMode::Full : CkptMode::None;
            if (!toggle) assume("grad-ckpt=on (document §2.1 example and §4 recipe)");
        }
        w_.grad_ckpt = w_.ckpt_mode != CkptMode::None;
    }

    // --chunked-loss is the older spelling of --loss chunked; both name one
    // setting, so they must agree.
    void loss() {
        const bool chunked = r_.flag(Field::ChunkedLoss).value_or(false);
        if (const Arg a = arg(Field::Loss)) {
            w_.loss = kLosses.parse(a.text(), a.from());
            if (chunked && w_.loss != Loss::Chunked)
                throw InputError(fmt::format(
                    "{} means --loss chunked, which contradicts {} {}; give one of them",
                    r_.get(Field::ChunkedLoss)->origin, a.from(), quote(a.text())));
        } else if (chunked) {
            w_.loss = Loss::Chunked;
        } else {
            w_.loss = Loss::Upcast;
            assume(
                "loss=upcast (Hugging Face's ForCausalLMLoss casts the logits to fp32 for the "
                "cross-entropy)");
        }
    }

    // --- tokens --------------------------------------------------------------------
    // Called only for a field that was given.
    std::int64_t positive(Field f, std::int64_t max) const {
        const std::optional<Given>& g = r_.get(f);
        if (!g) throw std::logic_error("positive() on a field that was not given");
        return parse_positive_int(g->text, g->origin, max);
    }

    void tokens() {
        const bool training = w_.trains();
        w_.flash_attn = r_.flag(Field::FlashAttn).value_or(true);
        if (!r_.has(Field::FlashAttn))
            assume("flash-attn=on (PyTorch SDPA, the default attention of current frameworks)");
        w_.batch = r_.has(Field::Batch) ? positive(Field::Batch, kMaxBatch) : (training ? 4 : 1);
        if (!r_.has(Field::Batch))
            assume(training ? "batch=4 per GPU (document §4: batch 4 x grad-accum 8)"
                            : "batch=1 concurrent sequence");
        if (training) {
            w_.seq = r_.has(Field::Seq) ? positive(Field::Seq, kMaxTokens) : 512;
            if (!r_.has(Field::Seq))
                assume(
                    "seq=512 tokens (instruction-tuning length; fits the document's 9.1 GB QLoRA "
                    "figure)");
        } else {
            inference_tokens();
        }
        if (w_.model.arch.max_position > 0 && w_.seq > w_.model.arch.max_position)
            w_.warnings.push_back(fmt::format(
                "{} tokens exceed the model's trained context (max_position_embeddings {})", w_.seq,
                w_.model.arch.max_position));
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
    void inference_tokens() {
        const bool has_seq = r_.has(Field::Seq), has_prompt = r_.has(Field::Prompt),
                   has_gen = r_.has(Field::Gen);
        const std::int64_t seq = has_seq ? positive(Field::Seq, kMaxTokens) : 4096;
        std::int64_t prompt = has_prompt ? positive(Field::Prompt, kMaxTokens) : 0;
        std::int64_t gen = has_gen ? positive(Field::Gen, kMaxTokens) : 0;
        if (has_seq && has_prompt && has_gen && prompt + gen != seq)
            throw InputError(fmt::format(
                "--prompt {} + --gen {} is not --seq {}; give two of the three", prompt, gen, seq));
        if (has_seq && has_prompt && prompt >= seq)
            throw InputError(
                fmt::format("--prompt {} leaves no room to generate within --seq {}", prompt, seq));
        if (has_seq && has_gen && gen >= seq)
            throw InputError(
                fmt::format("--gen {} leaves no room for a prompt within --seq {}", gen, seq));
        if (!has_prompt && !has_gen) {
            gen = std::max<std::int64_t>(1, std::min<std::int64_t>(512, seq / 4));
            prompt = std::max<std::int64_t>(1, seq - gen);
            assume(has_seq
                       ? fmt::format("prompt={} + gen={} tokens (split of --seq)", prompt, gen)
                       : fmt::format("seq=4096 context (prompt {} + gen {} tokens)", prompt, gen));
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

    // --- LoRA ------------------------------------------------------------------------
    std::vector<LoraTarget> lora_targets(const Arg& a) const {
        std::vector<LoraTarget> out;
        const auto add = [&out](LoraTarget t) {
            if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
        };
        const std::string_view text = a.text();
        std::size_t start = 0;
        while (start <= text.size()) {
            const std::size_t comma = std::min(text.find(',', start), text.size());
            std::string item(trim(text.substr(start, comma - start)));
            start = comma + 1;
            // Hugging Face module names too: q_proj, gate_proj, ...
            if (const auto p = item.find("_proj"); p != std::string::npos) item.erase(p);
            if (item.empty())
                throw InputError(fmt::format("{} {} has an empty entry; use e.g. q,v or all-linear",
                                             a.from(), quote(text)));
            const std::string key = normalize_name(item);
            if (key == "alllinear" || key == "all") {
                // PEFT's all-linear: every linear layer of the blocks, not the output head.
                for (const auto t : {LoraTarget::Q, LoraTarget::K, LoraTarget::V, LoraTarget::O,
                                     LoraTarget::Gate, LoraTarget::Up, LoraTarget::Down})
                    add(t);
            } else if (key == "mlp") {
                for (const auto t : {LoraTarget::Gate, LoraTarget::Up, LoraTarget::Down}) add(t);
            } else {
                add(kLoraTargets.parse(item, a.from() + " module"));
            }
        }
        return out;
    }

    void lora() {
        if (!w_.uses_lora()) return;
        w_.lora_rank = r_.has(Field::LoraRank) ? positive(Field::LoraRank, 65536) : 64;
        if (!r_.has(Field::LoraRank)) assume("lora-rank=64 (document §4 QLoRA recipe)");
        if (const Arg a = arg(Field::LoraTargets)) {
            w_.lora_targets = lora_targets(a);
        } else {
            w_.lora_targets = {LoraTarget::Q, LoraTarget::V};
            assume("lora-targets=q,v (document §4: q_proj, v_proj)");
        }
    }

    // --- inference settings -------------------------------------------------------------
    void inference_settings() {
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
                    fmt::format("{} {} is not a KV cache type {} offers; choose one of: {}",
                                a.from(), quote(a.text()), w_.engine->name, list));
            }
        } else {
            w_.kv_dtype = w_.precision == Precision::Fp32   ? KvDtype::Fp32
                          : w_.precision == Precision::Fp16 ? KvDtype::Fp16
                                                            : KvDtype::Bf16;
        }
    }

    // --- GPUs -------------------------------------------------------------------------------
    void gpus() {
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
                throw InputError(
                    fmt::format("{} {} is a training strategy; use tp or pp for inference",
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

    // --tp, --pp, --cp, --ep, --vpp fix a layout that splits the model; with
    // --gpus it is checked against the count now, else against each plan's.
    void layout() {
        LayoutRequest& q = w_.layout_request;
        const auto size = [&](Field f) -> std::optional<std::int64_t> {
            if (!r_.has(f)) return std::nullopt;
            return positive(f, kMaxGpus);
        };
        q.tp = size(Field::Tp);
        q.pp = size(Field::Pp);
        q.cp = size(Field::Cp);
        q.ep = size(Field::Ep);
        q.vpp = size(Field::Vpp);
        if (const Arg g = arg(Field::GlobalBatch)) {
            if (r_.has(Field::GradAccum))
                throw InputError(
                    fmt::format("{} and {} both set the micro-batches per step; give one of them",
                                g.from(), r_.get(Field::GradAccum)->origin));
            w_.global_batch = positive(Field::GlobalBatch, 1'000'000'000);
            if (*w_.global_batch % w_.batch != 0)
                throw InputError(fmt::format(
                    "{} {} is not a multiple of the micro-batch --batch {}; give a multiple",
                    g.from(), *w_.global_batch, w_.batch));
        }
        w_.grad_accum_given = r_.has(Field::GradAccum) || w_.global_batch.has_value();
        if (!q.any()) return;
        const Arg p = arg(Field::Parallel);
        if (p && (w_.parallel == Parallel::Tp || w_.parallel == Parallel::Pp ||
                  w_.parallel == Parallel::Ddp || w_.parallel == Parallel::None))
            throw InputError(fmt::format(
                "{} {} {} {} splits it; with a layout, --parallel says how the data-parallel "
                "ranks shard: zero1, zero2, zero3 or fsdp",
                p.from(), to_string(w_.parallel),
                w_.parallel == Parallel::Ddp || w_.parallel == Parallel::None
                    ? "keeps the whole model on every GPU, while"
                    : "splits the model too, and",
                layout_origin()));
        // A requested interleaving must split the layers evenly: Megatron's
        // interleaved schedule gives every virtual stage the same layers.
        if (q.vpp && *q.vpp > 1) {
            const std::int64_t chunks = q.pp.value_or(1) * *q.vpp;
            const std::int64_t layers = w_.model.arch.total_layers();
            if (q.pp.value_or(1) > 1 && layers % chunks != 0)
                throw InputError(fmt::format(
                    "{}: the model's {} layers do not split into pp {} x vpp {} = {} equal chunks "
                    "(Megatron's interleaved schedule needs a multiple); choose another --vpp",
                    layout_origin(), layers, q.pp.value_or(1), *q.vpp, chunks));
        }
        // What the model allows whatever the count (dp = ep passes the ep check).
        Layout fixed{q.tp.value_or(1), q.pp.value_or(1), q.cp.value_or(1),
                     q.ep.value_or(1), q.ep.value_or(1), q.vpp.value_or(1)};
        if (const std::string why = layout_problem(w_.model.arch, w_.seq, fixed); !why.empty())
            throw InputError(fmt::format("{}: {}; choose another size", layout_origin(), why));
        if (!p) {
            w_.parallel = Parallel::Zero1;
            assume(
                "parallel=zero1 (Megatron's distributed optimizer) across the data-parallel "
                "ranks of the layout");
        }
        if (r_.has(Field::Gpus)) {
            if (w_.gpus == 1)
                throw InputError(fmt::format("{} splits the model, but --gpus is 1; add --gpus N",
                                             layout_origin()));
            w_.layout = requested_layout(w_.model.arch, w_.seq, w_.gpus, q, layout_origin());
        }
    }

    bool layout_given() const {
        for (const Field f : {Field::Tp, Field::Pp, Field::Cp, Field::Ep, Field::Vpp})
            if (r_.has(f)) return true;
        return false;
    }

    std::string layout_origin() const {
        std::string out;
        for (const Field f : {Field::Tp, Field::Pp, Field::Cp, Field::Ep, Field::Vpp})
            if (const Arg a = arg(f))
                out += fmt::format("{}{} {}", out.empty() ? "" : " ", a.from(), a.text());
        return out;
    }

    void estimator() {
        if (const Arg a = arg(Field::Estimator))
            w_.estimator = kEstimators.parse(a.text(), a.from());
    }

    const Request& r_;
    const ModelInputs& in_;
    const std::vector<ModelPreset>& presets_;
    const TaskPreset* task_ = nullptr;
    Workload w_;
};

}  // namespace

Workload resolve_workload(const Request& request, const ModelInputs& inputs,
                          const std::vector<ModelPreset>& presets) {
    return Resolver(request, inputs, presets).run();
}

Parallel default_parallel(const Workload& w) {
    return w.trains() ? Parallel::Fsdp : Parallel::Tp;
}

}  // namespace gpuadvise
