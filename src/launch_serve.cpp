// Serving launches: one builder over each engine's "serve" row of
// data/engines.json (its program, what it loads, where it runs, each flag's
// spelling), and Ollama's Modelfile.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "launch_common.hpp"

namespace gpuadvise::launch_detail {
namespace {

// The estimate's own uncertainty (docs/accuracy.md: memory p90 error about
// 10 %) is the margin an emitted memory fraction keeps over the estimate.
constexpr double kMemoryMargin = 0.10;
// The most of a card an emitted fraction asks for: vLLM's and SGLang's own
// guidance leaves a few per cent for the driver and other processes.
constexpr double kMaxMemoryFraction = 0.95;

// Each serving launch and the engine row (data/engines.json) it starts.
struct ServeKind {
    LaunchKind kind;
    std::string_view engine;
};
constexpr ServeKind kServeKinds[] = {
    {LaunchKind::Vllm, "vllm"},
    {LaunchKind::Sglang, "sglang"},
    {LaunchKind::TrtllmServe, "tensorrt-llm"},
    {LaunchKind::LlamaServer, "llama.cpp"},
    {LaunchKind::Ollama, "ollama"},
    {LaunchKind::MlxLm, "mlx"},
};

const Engine& serve_engine(LaunchKind kind) {
    for (const ServeKind& s : kServeKinds)
        if (s.kind == kind)
            if (const Engine* e = find_engine(s.engine); e && e->serve) return *e;
    throw InputError(fmt::format("--emit {}: data/engines.json has no serve template for it",
                                 kLaunchKinds.name(kind)));
}

// The share of each card the serving engine may take: the estimate plus the
// margin, never more than kMaxMemoryFraction.
double memory_fraction(const Recommendation& rec) {
    const double card = static_cast<double>(rec.gpu->memory_bytes);
    if (card <= 0) return 0.9;
    const double need = static_cast<double>(rec.memory.per_gpu_bytes) * (1.0 + kMemoryMargin);
    return std::min(kMaxMemoryFraction, std::ceil(need / card * 100.0) / 100.0);
}

// TensorRT-LLM's KV pool is a share of the memory left after the weights:
// the estimate's cache plus the margin.
double kv_free_fraction(const Recommendation& rec) {
    const double kv = static_cast<double>(rec.memory.get(&Components::kv_cache));
    const double left = static_cast<double>(rec.usable_bytes) -
                        (static_cast<double>(rec.memory.per_gpu_bytes) - kv);
    const double share = left > 0 ? std::clamp(kv * (1.0 + kMemoryMargin) / left, 0.05, 0.95) : 0.9;
    return std::ceil(share * 100.0) / 100.0;
}

std::string_view dtype_name(Precision p) {
    switch (p) {
        case Precision::Bf16:
        case Precision::Fp8:  // FP8 training only; its 16-bit dtype is bf16
            return "bfloat16";
        case Precision::Fp16:
            return "float16";
        case Precision::Fp32:
            return "float32";
    }
    return "auto";
}

// llama.cpp offloads every layer when -ngl exceeds the block count (the
// output layer is the extra one: llama-model.cpp, n_gpu_layers > n_layer);
// an offloaded plan gives its own count.
std::int64_t gpu_layers(const Workload& w, const Recommendation& rec) {
    if (rec.offload) return rec.offload->ngl();
    return w.model.arch.total_layers() + 1;
}

std::string tensor_split(const Recommendation& rec) {
    std::string out;
    for (const Placement& p : rec.placement) {
        if (!out.empty()) out += ',';
        out += std::to_string(p.layers);
    }
    return out;
}

std::string_view source_name(ModelSource s) {
    switch (s) {
        case ModelSource::Hub:
            return "a Hugging Face repository";
        case ModelSource::Folder:
            return "a folder of safetensors weights";
        case ModelSource::Gguf:
            return "a GGUF file";
    }
    return "";
}

std::optional<ModelSource> model_source(const Workload& w) {
    if (w.model.origin == ModelOrigin::Gguf) return ModelSource::Gguf;
    if (w.model.origin == ModelOrigin::Safetensors) return ModelSource::Folder;
    if (!w.model.hf_repo.empty()) return ModelSource::Hub;
    return std::nullopt;
}

bool runs_on(const ServeTemplate& t, const Gpu& gpu) {
    return t.platforms.empty() ||
           std::find(t.platforms.begin(), t.platforms.end(), gpu.platform) != t.platforms.end();
}

// The other serving launches that load `source` on `gpu`, for the fix.
std::string alternatives(LaunchKind not_this, std::optional<ModelSource> source, const Gpu& gpu) {
    std::string out;
    for (const ServeKind& s : kServeKinds) {
        const Engine* e = find_engine(s.engine);
        if (s.kind == not_this || !e || !e->serve || !runs_on(*e->serve, gpu) ||
            !engine_fit(*e, gpu, false).runs)
            continue;
        if (source && !e->serve->loads_from(*source)) continue;
        out += fmt::format("{}--emit {}", out.empty() ? "" : ", ", kLaunchKinds.name(s.kind));
    }
    return out.empty() ? "drop --emit" : out;
}

// What the server is pointed at: the model's file or folder, its repository,
// or a placeholder the user fills in (notes say what goes there).
struct ModelArgument {
    std::string text;
    bool placeholder = false;  // ours, not a path: a file may be named "<model>x"
};

ModelArgument model_argument(const Workload& w, const ServeTemplate& t, LaunchKind kind,
                             const Gpu& gpu, std::string_view what,
                             std::vector<std::string>& notes) {
    const auto source = model_source(w);
    const std::string_view program = t.program.front();
    if (source && *source != ModelSource::Hub && !t.loads_from(*source))
        throw InputError(fmt::format("{} {}: {} does not load {} ({}); use {}", what,
                                     kLaunchKinds.name(kind), program, source_name(*source),
                                     w.model.name, alternatives(kind, source, gpu)));
    if (source == ModelSource::Gguf || source == ModelSource::Folder) return {w.model.path};
    if (source == ModelSource::Hub && t.loads_from(ModelSource::Hub)) return {w.model.hf_repo};
    if (source == ModelSource::Hub) {
        notes.push_back(fmt::format(
            "replace <model>.gguf with a GGUF file of {} ({} loads GGUF files; llama.cpp's "
            "convert_hf_to_gguf.py makes one)",
            w.model.hf_repo, program));
        return {"<model>.gguf", true};
    }
    const bool gguf_only = !t.loads_from(ModelSource::Hub) && !t.loads_from(ModelSource::Folder);
    notes.push_back(gguf_only
                        ? "replace <model>.gguf with the model's GGUF file"
                        : "replace <model> with the model's Hugging Face repository or local path");
    return {gguf_only ? "<model>.gguf" : "<model>", true};
}

// The value of one flag for this plan, or nullopt when the plan does not
// need it; a switch that applies gives "".
std::optional<std::string> flag_value(ServeRole role, const Workload& w, const Recommendation& rec,
                                      QuantFamily family) {
    const bool many = rec.count > 1;
    switch (role) {
        case ServeRole::TensorParallel:
            if (many && rec.strategy != Parallel::Pp) return std::to_string(rec.count);
            return std::nullopt;
        case ServeRole::PipelineParallel:
            if (many && rec.strategy == Parallel::Pp) return std::to_string(rec.count);
            return std::nullopt;
        case ServeRole::LayerSplit:
            if (!rec.placement.empty() && rec.strategy == Parallel::Pp) return tensor_split(rec);
            return std::nullopt;
        case ServeRole::RowSplit:
            if (many && rec.strategy == Parallel::Tp) return "";
            return std::nullopt;
        case ServeRole::Context:
            return std::to_string(w.seq);
        case ServeRole::TotalContext:
            // llama-server gives each of its -np slots n_ctx / np tokens.
            return std::to_string(w.seq * w.batch);
        case ServeRole::Sequences:
            return std::to_string(w.batch);
        case ServeRole::MemoryFraction:
            return fmt::format("{:.2f}", memory_fraction(rec));
        case ServeRole::KvFreeFraction:
            return fmt::format("{:.2f}", kv_free_fraction(rec));
        case ServeRole::Dtype:
            return std::string(dtype_name(w.precision));
        case ServeRole::GpuLayers:
            return std::to_string(gpu_layers(w, rec));
        case ServeRole::HostExpertLayers:
            if (rec.offload && rec.offload->host_expert_layers > 0)
                return std::to_string(rec.offload->host_expert_layers);
            return std::nullopt;
        case ServeRole::KvFp8:
            if (w.kv_dtype == KvDtype::Fp8) return "";
            return std::nullopt;
        case ServeRole::KvQuant:
            if (w.kv_dtype == KvDtype::Q8_0 || w.kv_dtype == KvDtype::Q4_0)
                return std::string(kKvDtypes.name(w.kv_dtype));
            return std::nullopt;
        case ServeRole::Fp8Weights:
            if (family == QuantFamily::Fp8) return "";
            return std::nullopt;
        case ServeRole::BnbWeights:
            if (family == QuantFamily::Bnb4 || family == QuantFamily::Bnb8) return "";
            return std::nullopt;
        case ServeRole::MaxTokens:
            return std::to_string(w.gen);
        case ServeRole::Embedding:
            if (w.embeds() && w.model.arch.task == ModelTask::Embed) return "";
            return std::nullopt;
        case ServeRole::Rerank:
            if (w.embeds() && w.model.arch.task == ModelTask::Rerank) return "";
            return std::nullopt;
        case ServeRole::PoolingBatch:
            // llama.cpp pools a sequence within one micro-batch (n_ubatch,
            // 512 by default): a longer one needs a larger micro-batch.
            if (w.embeds() && w.engine && w.seq > w.engine->prefill_chunk)
                return std::to_string(w.seq);
            return std::nullopt;
    }
    return std::nullopt;
}

// The program as people call it: "vllm serve", "sglang.launch_server"
// (a module run by `python -m`).
std::string program_name(const ServeTemplate& t) {
    std::span<const std::string_view> p = t.program;
    if (p.size() > 2 && p[0] == "python" && p[1] == "-m") p = p.subspan(2);
    std::string out;
    for (const std::string_view w : p) out += fmt::format("{}{}", out.empty() ? "" : " ", w);
    return out;
}

// Ollama imports the model with a Modelfile, then serves it.
void ollama(Launch& l, const Workload& w, const Recommendation& rec, const std::string& model,
            bool placeholder, std::string_view what) {
    l.config_name = "Modelfile";
    l.config_format = ConfigFormat::Modelfile;
    // Ollama expands a leading '~' like a shell (parser.go expandPath): a
    // file whose name starts with '~' is named from the current folder.
    const std::string path = !placeholder && starts_with(model, "~") ? "./" + model : model;
    const std::string from = placeholder ? path
                                         : config_string(ConfigFormat::Modelfile, path, what,
                                                         "ollama", "the model path");
    // num_gpu is the number of layers Ollama offloads; num_ctx the context
    // of one request (OLLAMA_NUM_PARALLEL multiplies the cache).
    l.config = fmt::format("FROM {}\nPARAMETER num_ctx {}\nPARAMETER num_gpu {}\n", from, w.seq,
                           gpu_layers(w, rec));
    ShellCommand serve{
        {{"OLLAMA_NUM_PARALLEL", std::to_string(w.batch)}}, words({"ollama", "serve"}), "&"};
    if (w.kv_dtype == KvDtype::Q8_0 || w.kv_dtype == KvDtype::Q4_0) {
        serve.env.emplace_back("OLLAMA_FLASH_ATTENTION", "1");
        serve.env.emplace_back("OLLAMA_KV_CACHE_TYPE", std::string(kKvDtypes.name(w.kv_dtype)));
    }
    l.commands.push_back(std::move(serve));
    l.commands.push_back({{}, words({"ollama", "create", "gpuadvise", "-f", "Modelfile"}), "&&"});
    l.commands.push_back({{}, words({"ollama", "run", "gpuadvise"}), ""});
}

}  // namespace

std::optional<LaunchKind> serve_kind(const Engine& engine) {
    const std::string_view id = engine.serve_with.empty() ? engine.id : engine.serve_with;
    for (const ServeKind& s : kServeKinds)
        if (s.engine == id) return s.kind;
    return std::nullopt;
}

Launch serve_launch(const Workload& w, const Recommendation& rec, LaunchKind kind,
                    std::string_view what) {
    const Engine& engine = serve_engine(kind);
    const ServeTemplate& t = *engine.serve;
    const std::string_view name = kLaunchKinds.name(kind);
    const QuantFamily family =
        w.model.origin == ModelOrigin::Gguf ? QuantFamily::Gguf : w.quant.family();
    // Every card of the box must run the program and the engine.
    std::vector<const Gpu*> cards{rec.gpu};
    for (const Placement& p : rec.placement) cards.push_back(p.gpu);
    std::string caveat;
    for (const Gpu* gpu : cards) {
        if (!runs_on(t, *gpu)) {
            std::string where;
            for (const SoftwarePlatform p : t.platforms)
                where += fmt::format("{}{}", where.empty() ? "" : ", ", to_string(p));
            throw InputError(fmt::format("{} {}: {} runs on {} only; {} is a {} card: use {}", what,
                                         name, t.program.front(), where, gpu->id,
                                         to_string(gpu->platform),
                                         alternatives(kind, model_source(w), *gpu)));
        }
        const EngineFit fit = engine_fit(engine, *gpu, family);
        if (!fit.runs) throw InputError(fmt::format("{} {}: {}", what, name, fit.reason));
        if (!fit.reason.empty()) caveat = fit.reason;
    }
    Launch l;
    l.tool = program_name(t);
    const ModelArgument model = model_argument(w, t, kind, *rec.gpu, what, l.notes);
    if (t.modelfile) {
        ollama(l, w, rec, model.text, model.placeholder, what);
    } else {
        ShellCommand c;
        for (const std::string_view p : t.program) c.argv.push_back({std::string(p)});
        const std::string arg = model.placeholder ? model.text : path_argument(model.text);
        if (!t.model_flag.empty()) c.argv.push_back({std::string(t.model_flag)});
        c.argv.push_back({arg});
        for (const ServeFlag& f : t.flags) {
            const auto value = flag_value(f.role, w, rec, family);
            if (!value) continue;
            for (const std::string_view a : f.args)
                c.argv.push_back({a == "{}" ? *value : std::string(a)});
        }
        l.commands.push_back(std::move(c));
    }
    if ((family == QuantFamily::Awq || family == QuantFamily::Gptq) && !t.modelfile)
        l.notes.emplace_back(fmt::format(
            "{} reads the AWQ/GPTQ scheme from the checkpoint's quantization_config; point it at "
            "a quantised repository",
            engine.name));
    const bool fp8_kv = w.kv_dtype == KvDtype::Fp8;
    const bool quant_kv = w.kv_dtype == KvDtype::Q8_0 || w.kv_dtype == KvDtype::Q4_0;
    if (!t.modelfile &&
        ((fp8_kv && !t.flag(ServeRole::KvFp8)) || (quant_kv && !t.flag(ServeRole::KvQuant))))
        l.notes.emplace_back(fmt::format("{} takes no {} KV cache flag here: it keeps its default",
                                         t.program.front(), kKvDtypes.name(w.kv_dtype)));
    if (!caveat.empty()) l.notes.push_back(caveat);
    return l;
}

}  // namespace gpuadvise::launch_detail
