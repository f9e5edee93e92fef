#include "gpuadvise/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"
#include "model_common.hpp"

namespace gpuadvise {

using namespace model_detail;
void validate_architecture(const Architecture& a, std::string_view source) {
    const auto check = [&](std::string_view field, std::int64_t value, std::int64_t max) {
        if (value <= 0)
            throw InputError(
                fmt::format("{}: '{}' must be a positive integer (got {})", source, field, value));
        if (value > max)
            throw InputError(fmt::format("{}: '{}' = {} is implausibly large (at most {})", source,
                                         field, value, max));
    };
    check("num_hidden_layers", a.layers, 100'000);
    check("hidden_size", a.hidden, 1'000'000);
    check("intermediate_size", a.intermediate, 10'000'000);
    check("num_attention_heads", a.heads, 100'000);
    check("num_key_value_heads", a.kv_heads, 100'000);
    check("head_dim", a.head_dim, 100'000);
    check("vocab_size", a.vocab, 100'000'000);
    if (a.kv_heads > a.heads || a.heads % a.kv_heads != 0)
        throw InputError(
            fmt::format("{}: num_attention_heads {} is not a multiple of num_key_value_heads {}",
                        source, a.heads, a.kv_heads));
    if (a.is_moe()) {
        check("num_experts_per_tok", a.experts_per_token, a.experts);
        check("moe_intermediate_size", a.moe_intermediate, 10'000'000);
        if (a.dense_layers >= a.layers)
            throw InputError(fmt::format(
                "{}: {} dense layers (first_k_dense_replace, mlp_only_layers, moe_layers or the "
                "MoE layer step) leave no MoE layer of {}",
                source, a.dense_layers, a.layers));
    }
    if (a.encoder_decoder) check("num_decoder_layers", a.decoder_layers, 100'000);
    // Optional fields are zero when absent; when present they are bounded too.
    const auto optional = [&](std::string_view field, std::int64_t value, std::int64_t max) {
        if (value < 0 || value > max)
            throw InputError(
                fmt::format("{}: '{}' = {} is out of range [0, {}]", source, field, value, max));
    };
    optional("max_position_embeddings / n_positions (learned positions)", a.learned_positions,
             10'000'000);
    optional("num_local_experts", a.experts, 100'000);
    optional("shared_expert_intermediate_size", a.shared_intermediate, 10'000'000);
    optional("kv_lora_rank", a.kv_lora_rank, 1'000'000);
    optional("q_lora_rank", a.q_lora_rank, 1'000'000);
    optional("qk_rope_head_dim", a.qk_rope_head_dim, 100'000);
    optional("qk_nope_head_dim", a.qk_nope_head_dim, 100'000);
    optional("v_head_dim", a.v_head_dim, 100'000);
    optional("extra parameters (type_vocab_size, relative attention buckets)", a.extra_params,
             1'000'000'000'000LL);
    optional("layers without a KV cache (linear attention, cross-attention)", a.kv_free_layers,
             a.layers);
    optional("state bytes per layer", a.state_bytes_per_layer, 1'000'000'000'000'000LL);
    optional("vision encoder parameters", a.vision_linear + a.vision_other,
             1'000'000'000'000'000LL);
    // A shape whose parameter count overflows is not a model; 1e15 is the
    // same limit as for --model sizes.
    const double ffn = static_cast<double>(std::max(a.intermediate, a.moe_intermediate)) *
                       static_cast<double>(std::max<std::int64_t>(a.experts, 1));
    const double approx =
        static_cast<double>(a.total_layers()) *
            (static_cast<double>(a.hidden) * ffn * 3.0 +
             4.0 * static_cast<double>(a.hidden) * static_cast<double>(a.q_dim())) +
        (2.0 * static_cast<double>(a.vocab) + static_cast<double>(a.learned_positions)) *
            static_cast<double>(a.hidden) +
        static_cast<double>(a.extra_params);
    if (approx > 1e15)
        throw InputError(fmt::format(
            "{}: the shape implies over 1e15 parameters; check hidden_size and layers", source));
}

namespace {

// The Llama 3 shape of a given width, with `layers` layers.
Architecture llama_shape(const Architecture& base, std::int64_t hidden, std::int64_t layers) {
    Architecture s = base;
    s.hidden = hidden;
    s.heads = hidden / 128;
    s.kv_heads = std::min<std::int64_t>(8, s.heads);
    s.intermediate = (hidden * 7 / 2 + 255) / 256 * 256;
    s.layers = layers;
    return s;
}

// The widths infer_architecture tries: multiples of 128 and, from 1024, of 4
// heads, so that tensor parallelism over 2 or 4 GPUs splits the heads evenly
// (1920 would give 15 heads). From 4096 up, published dense models use a power of two
// times 1, 1.25, 1.5 or 1.75 (4096, 5120, 6144, 7168, 8192, 12288, 16384):
// allowing 9216 or 15360 lets a 70B fit a made-up width better than
// Llama 3's 8192 x 80 layers.
std::int64_t next_width(std::int64_t hidden) {
    if (hidden < 4096) return hidden + (hidden < 1024 ? 128 : 512);
    std::int64_t octave = 4096;
    while (octave * 2 <= hidden) octave *= 2;
    return hidden + octave / 4;
}

// A width's parameter count as a function of the layer count, which is
// affine: fixed (embeddings, head, final norm) + layers x per_layer.
struct WidthCounts {
    std::int64_t hidden;
    double fixed;
    double per_layer;
};

std::vector<WidthCounts> count_widths(int variant) {
    Architecture b;
    b.model_type = "llama";
    b.head_dim = 128;
    b.vocab = variant == 0 ? 32000 : 128256;
    b.tied_embeddings = variant < 2;
    std::vector<WidthCounts> t;
    for (std::int64_t hidden = 256; hidden <= 65536; hidden = next_width(hidden)) {
        const double one = static_cast<double>(count_params(llama_shape(b, hidden, 1)).total());
        const double two = static_cast<double>(count_params(llama_shape(b, hidden, 2)).total());
        t.push_back({hidden, 2 * one - two, two - one});
    }
    return t;
}

// Computed once per vocabulary/tying variant, when first needed: `batch`
// resolves the same sizes thousands of times a second.
const std::vector<WidthCounts>& width_counts(int variant) {
    switch (variant) {
        case 0: {
            static const auto t = count_widths(0);
            return t;
        }
        case 1: {
            static const auto t = count_widths(1);
            return t;
        }
        default: {
            static const auto t = count_widths(2);
            return t;
        }
    }
}

}  // namespace

Architecture infer_architecture(std::uint64_t params) {
    const double target = static_cast<double>(params);
    Architecture a;
    a.model_type = "llama";
    a.inferred = true;
    a.head_dim = 128;
    a.vocab = params < 1'000'000'000ULL ? 32000 : 128256;
    a.tied_embeddings = params < 4'000'000'000ULL;
    const int variant = params < 1'000'000'000ULL ? 0 : params < 4'000'000'000ULL ? 1 : 2;
    // Llama 3 shape ratios: FFN = 3.5 x hidden, hidden/layers = 128, 8 KV heads.
    std::int64_t best_hidden = 256, best_layers = 2;
    double best_error = 1e300;
    for (const WidthCounts& w : width_counts(variant)) {
        // Model names round down: a model called 70B has 70B parameters or a
        // few more (Llama 3.1 8B: 8.03B, 70B: 70.55B with 80 layers, 405B:
        // 405.9B), so the layer count is the smallest that reaches the size.
        const double layers = std::ceil((target - w.fixed) / w.per_layer - 1e-9);
        // Keep the aspect ratio of real models: layers within 0.5x-1.6x of hidden/128.
        const double natural = static_cast<double>(w.hidden) / 128.0;
        if (layers < 1 || layers < 0.5 * natural || layers > 1.6 * natural + 2) continue;
        const double error = std::fabs(std::log((w.fixed + layers * w.per_layer) / target)) +
                             0.02 * std::fabs(std::log(layers / natural));
        if (error < best_error) {
            best_error = error;
            best_hidden = w.hidden;
            best_layers = static_cast<std::int64_t>(layers);
        }
    }
    return llama_shape(a, best_hidden, best_layers);
}

std::optional<int> release_months(std::string_view t) {
    if (t.size() != 7 || t[4] != '-') return std::nullopt;
    int year = 0, month = 0;
    for (std::size_t i = 0; i < 7; ++i) {
        if (i == 4) continue;
        if (t[i] < '0' || t[i] > '9') return std::nullopt;
        (i < 4 ? year : month) = (i < 4 ? year : month) * 10 + (t[i] - '0');
    }
    if (year < 1990 || year > 2100 || month < 1 || month > 12) return std::nullopt;
    return year * 12 + month - 1;
}

namespace {

// "generations" and "quality_proxy" of data/models.json.
ModelGenerations read_generations(json::ObjectReader& root, std::string_view source) {
    ModelGenerations out;
    const auto month = [&](json::ObjectReader& r, std::string_view key) {
        const std::string_view v = r.str(key);
        if (!release_months(v)) r.fail(key, "must be a month written YYYY-MM");
        return std::string(v);
    };
    if (const auto q = root.get("quality_proxy")) {
        const json::Path qp{nullptr, "quality_proxy"};
        json::ObjectReader r(*q, source, &qp);
        out.proxy.reference = month(r, "reference");
        out.proxy.halving_months = r.number("halving_months", 1, 1000);
        out.proxy.source = std::string(r.str("source"));
        r.finish();
    } else if (root.get("generations")) {
        root.fail("quality_proxy", "must say how generations order models");
    }
    if (const auto list = root.get("generations")) {
        if (!list->is_array()) root.fail("generations", "must be an array");
        const json::Path top{nullptr, "generations"};
        std::size_t i = 0;
        for (const json::Value v : list->items()) {
            const json::Path path{&top, {}, i++, true};
            json::ObjectReader r(v, source, &path);
            ModelGeneration g;
            g.id = std::string(r.str("id"));
            g.family = std::string(r.str("family"));
            g.released = month(r, "released");
            for (const auto m : r.strings("match")) {
                if (normalize_name(m).size() < 3)
                    r.fail("match", "fragments are 3 letters or more");
                g.match.emplace_back(m);
            }
            if (g.match.empty()) r.fail("match", "must list the name fragments of the generation");
            g.source = std::string(r.str("source"));
            r.finish();
            for (const ModelGeneration& other : out.rows)
                if (other.id == g.id) r.fail("id", fmt::format("{} appears twice", quote(g.id)));
            out.rows.push_back(std::move(g));
        }
    }
    return out;
}

}  // namespace

ModelGenerations parse_model_generations(std::string_view json_text, std::string_view source) {
    const json::Document doc =
        json::Document::parse(json_text, source, "a JSON list of model presets");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.required("models");
    root.get("vision_inputs");  // parse_vision_inputs reads it
    ModelGenerations out = read_generations(root, source);
    root.finish();
    return out;
}

const ModelGeneration* match_generation(const ModelGenerations& g, std::string_view name) {
    const std::string key = normalize_name(name);
    const ModelGeneration* best = nullptr;
    std::size_t best_length = 0;
    for (const ModelGeneration& row : g.rows)
        for (const std::string& m : row.match) {
            const std::string frag = normalize_name(m);
            if (frag.size() > best_length && key.find(frag) != std::string::npos) {
                best = &row;
                best_length = frag.size();
            }
        }
    return best;
}

std::vector<ModelPreset> parse_model_presets(std::string_view json_text, std::string_view source) {
    const json::Document doc =
        json::Document::parse(json_text, source, "a JSON list of model presets");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    const json::Value models = root.required("models");
    if (!models.is_array()) root.fail("models", "must be an array");
    root.get("vision_inputs");  // parse_vision_inputs reads it
    const ModelGenerations generations = read_generations(root, source);
    root.finish();
    std::vector<ModelPreset> presets;
    std::map<std::string, std::string> seen;  // normalised name -> preset id
    const json::Path list{nullptr, "models"};
    std::size_t i = 0;
    for (const json::Value m : models.items()) {
        const json::Path path{&list, {}, i++, true};
        json::ObjectReader r(m, source, &path);
        ModelPreset p;
        p.id = std::string(r.str("id"));
        p.name = std::string(r.str_or("name", ""));
        for (const auto a : r.strings("aliases")) p.aliases.emplace_back(a);
        p.hf_repo = std::string(r.str_or("hf_repo", ""));
        if (const auto params = r.get("params")) {
            const auto v = params->uint64();
            if (!v || *v > 1'000'000'000'000'000ULL)
                r.fail("params", fmt::format("must be a parameter count (got {})", params->dump()));
            p.published_params = *v;
        }
        p.params_note = std::string(r.str_or("params_note", ""));
        if (r.get("generation")) {
            p.generation = std::string(r.str("generation"));
            const auto g =
                std::find_if(generations.rows.begin(), generations.rows.end(),
                             [&](const ModelGeneration& row) { return row.id == p.generation; });
            if (g == generations.rows.end())
                r.fail("generation",
                       fmt::format("{} is not an id of \"generations\"", quote(p.generation)));
            p.family = g->family;
            p.released = g->released;
        }
        if (r.get("released")) {
            const std::string_view v = r.str("released");
            if (!release_months(v)) r.fail("released", "must be a month written YYYY-MM");
            if (p.generation.empty()) r.fail("released", "goes with a generation");
            p.released = std::string(v);
            r.str("released_source");
        } else if (r.get("released_source")) {
            r.fail("released_source", "goes with released");
        }
        p.source = std::string(r.str_or("source", ""));
        const std::string_view kind =
            r.has("kind") ? r.one_of("kind", {"language", "diffusion", "vision"}) : "language";
        if (kind == "language") {
            p.arch = architecture_from_json(r.required("config"),
                                            fmt::format("{} config of '{}'", source, p.id));
            // What the checkpoint is for where its config.json names another
            // class (Qwen3-Embedding's says Qwen3ForCausalLM; the checkpoint
            // holds no lm_head): a decoder that pools or scores, with its reason.
            if (r.has("task")) {
                p.arch.task =
                    kModelTasks.parse(r.one_of("task", {"generate", "embed", "rerank"}), "task");
                if (p.arch.encoder_only) r.fail("task", "applies to decoder configs only");
                p.arch.classifier_labels = 0;  // a causal reranker scores with its LM head
                if (r.str("task_source").empty())
                    r.fail("task_source", "must say where the task comes from");
            } else if (r.get("task_source")) {
                r.fail("task_source", "goes with task");
            }
        } else {
            const json::Path image_path{&path, "image"};
            p.image = image_model_from_json(r.required("image"), kImageFamilies.parse(kind, "kind"),
                                            source, &image_path);
            if (p.image->params == 0) p.image->params = p.published_params;
            if (p.published_params == 0) p.published_params = p.image->params;
            if (p.image->params == 0)
                r.fail("params", "a vision preset states its parameter count");
        }
        r.finish();
        std::vector<std::string> keys{p.id, p.hf_repo};
        keys.insert(keys.end(), p.aliases.begin(), p.aliases.end());
        for (const std::string& key : keys) {
            if (key.empty()) continue;
            const auto [it, inserted] = seen.emplace(normalize_name(key), p.id);
            if (!inserted && it->second != p.id)
                throw InputError(fmt::format("{}: {}: name {} is used by two presets", source,
                                             path.str(), quote(key)));
        }
        presets.push_back(std::move(p));
    }
    return presets;
}

const ModelPreset* find_preset(const std::vector<ModelPreset>& presets, std::string_view name) {
    const std::string key = normalize_name(name);
    for (const auto& p : presets) {
        if (normalize_name(p.id) == key || (!p.hf_repo.empty() && normalize_name(p.hf_repo) == key))
            return &p;
        for (const auto& alias : p.aliases)
            if (normalize_name(alias) == key) return &p;
    }
    return nullptr;
}

bool looks_like_size(std::string_view name) {
    const std::string_view t = trim(name);
    if (t.empty()) return false;
    const char c = t.front();
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
}

void throw_unknown_model(const std::vector<ModelPreset>& presets, std::string_view name) {
    std::vector<std::string> names;
    for (const auto& p : presets) names.push_back(p.id);
    if (auto near = closest_name(name, names))
        throw InputError(
            fmt::format("unknown model {}; did you mean '{}'? (or give a size like 8B; "
                        "'gpuadvise models' lists presets)",
                        quote(name), *near));
    throw InputError(
        fmt::format("unknown model {}; give a size like 8B, 1.5B or 350M, or a preset from "
                    "'gpuadvise models'",
                    quote(name)));
}

}  // namespace gpuadvise
