#include "gpuadvise/quant.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {

double Quant::bits_per_weight(bool double_quant) const {
    if (format == nullptr) return 16;
    const QuantFormat& f = *format;
    double group = f.group, value = f.value_bits;
    if (parameter > 0 && f.parameter == QuantParameter::Group) group = parameter;
    if (parameter > 0 && f.parameter == QuantParameter::Bits) return parameter;
    const double overhead = double_quant && f.double_quant_overhead_bits
                                ? *f.double_quant_overhead_bits
                                : f.group_overhead_bits;
    return group > 0 ? value + overhead / group : value;
}

std::string Quant::text() const {
    if (format == nullptr) return "none";
    if (parameter > 0) return fmt::format("{}:{}", format->id, parameter);
    return std::string(format->id);
}

std::string QuantScope::kept_text() const {
    std::string out;
    const auto add = [&out](bool covered, std::string_view part) {
        if (covered) return;
        if (!out.empty()) out += ", ";
        out += part;
    };
    add(attention, "attention");
    add(dense_mlp, "dense MLP");
    add(shared_experts, "shared experts");
    add(routed_experts, "routed experts");
    add(vision, "vision encoder");
    return out;
}

std::string CheckpointQuant::text() const {
    std::string out = fmt::format("quant_method {}", method.empty() ? "(none)" : method);
    if (!detail.empty()) out += ", " + detail;
    if (!modelled()) return out + ": " + problem;
    if (const std::string kept_parts = scope.kept_text(); !kept_parts.empty())
        out += fmt::format("; {} kept in 16-bit", kept_parts);
    return out;
}

namespace {

// The words of a module pattern: "re:.*mlp.gate$" -> {"mlp", "gate"}.
std::vector<std::string> module_words(std::string_view pattern) {
    std::vector<std::string> words;
    std::string word;
    const std::string text = lower(starts_with(pattern, "re:") ? pattern.substr(3) : pattern);
    for (const char c : text) {
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') {
            word += c;
        } else if (!word.empty()) {
            words.push_back(std::move(word));
            word.clear();
        }
    }
    if (!word.empty()) words.push_back(std::move(word));
    return words;
}

bool is_number(std::string_view w) {
    return !w.empty() && w.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

QuantScope scope_without(const std::vector<std::string>& modules) {
    QuantScope s;
    for (const std::string& m : modules) {
        std::vector<std::string> words = module_words(m);
        // One layer's module ("model.layers.3.mlp") is not modelled per layer.
        bool one_layer = false;
        for (std::size_t i = 0; i + 1 < words.size(); ++i)
            if ((words[i] == "layers" || words[i] == "h" || words[i] == "blocks") &&
                is_number(words[i + 1]))
                one_layer = true;
        if (one_layer) continue;
        bool vision = false;
        for (const std::string& w : words)
            if (w == "visual" || w == "vision" || w == "vision_tower" || w == "vision_model" ||
                w == "multi_modal_projector" || w == "mm_projector" || w == "vision_encoder")
                vision = true;
        if (vision) {
            s.vision = false;
            continue;
        }
        while (!words.empty() && (words.back() == "weight" || is_number(words.back())))
            words.pop_back();
        if (words.empty()) continue;
        const std::string& last = words.back();
        if (last == "experts") {
            s.routed_experts = false;
        } else if (last == "shared_expert" || last == "shared_experts") {
            s.shared_experts = false;
        } else if (last == "self_attn" || last == "attn" || last == "attention" ||
                   last == "linear_attn" || last == "cross_attn") {
            s.attention = false;
        } else if (last == "mlp" || last == "feed_forward" || last == "ffn" ||
                   last == "block_sparse_moe") {
            s.dense_mlp = s.shared_experts = s.routed_experts = false;
        }
        // Routers (gate, router), embeddings and the head are 16-bit in every
        // format already; single projections (q_proj) are not modelled.
    }
    return s;
}

namespace {

std::optional<json::Value> member(const json::Value& j, std::string_view key) {
    auto v = j.find(key);
    if (!v || v->is_null()) return std::nullopt;
    return v;
}

std::optional<std::int64_t> int_member(const json::Value& j, std::string_view key,
                                       std::string_view source) {
    const auto v = member(j, key);
    if (!v) return std::nullopt;
    const auto n = v->is_number() ? v->int64() : std::nullopt;
    if (!n || *n < -1 || *n > 1'000'000)
        throw InputError(fmt::format("{}: quantization_config '{}' must be an integer (got {})",
                                     source, key, v->dump()));
    return n;
}

bool bool_member(const json::Value& j, std::string_view key, std::string_view source) {
    const auto v = member(j, key);
    if (!v) return false;
    if (!v->is_bool())
        throw InputError(fmt::format("{}: quantization_config '{}' must be true or false (got {})",
                                     source, key, v->dump()));
    return v->boolean();
}

std::string string_member(const json::Value& j, std::string_view key, std::string_view source) {
    const auto v = member(j, key);
    if (!v) return {};
    if (!v->is_string())
        throw InputError(fmt::format("{}: quantization_config '{}' must be a string (got {})",
                                     source, key, v->dump()));
    return sanitize(v->text(), 64);
}

// Module lists: a list of strings (or one string).
std::vector<std::string> module_list(const json::Value& j, std::string_view key,
                                     std::string_view source) {
    std::vector<std::string> out;
    const auto v = member(j, key);
    if (!v) return out;
    if (v->is_string()) {
        out.push_back(sanitize(v->text(), 200));
        return out;
    }
    if (!v->is_array())
        throw InputError(
            fmt::format("{}: quantization_config '{}' must be a list of module names (got {})",
                        source, key, v->dump()));
    for (const json::Value m : v->items()) {
        if (!m.is_string())
            throw InputError(
                fmt::format("{}: quantization_config '{}' must be a list of module names (got {})",
                            source, key, m.dump()));
        out.push_back(sanitize(m.text(), 200));
    }
    return out;
}

// A group size as a row parameter: -1 (one group per output channel) is the
// widest group the rows allow.
double group_parameter(std::int64_t group) {
    if (group < 0) return 4096;
    return static_cast<double>(std::clamp<std::int64_t>(group, 16, 4096));
}

std::string group_text(std::int64_t group) {
    return group < 0 ? "a scale per output channel" : fmt::format("group {}", group);
}

// Integer weights of `bits` bits: the GPTQ-layout rows.
void integer_weights(CheckpointQuant& q, std::int64_t bits, std::int64_t group,
                     std::string_view four_bit_row) {
    q.detail = fmt::format("{} bits, {}", bits, group_text(group));
    if (bits == 4) {
        q.format = four_bit_row;
    } else if (bits == 8) {
        q.format = "gptq-int8";
    } else {
        q.problem = fmt::format("{}-bit integer weights have no row in data/quants.json", bits);
        return;
    }
    q.parameter = group == 0 ? 0 : group_parameter(group);
}

// compressed-tensors (llm-compressor): the weights of the first config group.
void compressed_tensors(const json::Value& c, CheckpointQuant& q, std::string_view source) {
    const auto groups = member(c, "config_groups");
    if (!groups || !groups->is_object() || groups->size() == 0) {
        q.problem = "no config_groups";
        return;
    }
    const json::Value group = *groups->items().begin();
    const auto weights = group.is_object() ? member(group, "weights") : std::nullopt;
    if (!weights || !weights->is_object()) {
        q.problem = "its config group quantizes activations only";
        return;
    }
    const std::int64_t bits = int_member(*weights, "num_bits", source).value_or(0);
    const std::string type = string_member(*weights, "type", source);
    const std::string strategy = string_member(*weights, "strategy", source);
    std::int64_t size = int_member(*weights, "group_size", source).value_or(0);
    if (strategy == "channel") size = -1;
    if (groups->size() > 1) q.detail = "first of its config groups; ";
    if (type == "float" && bits == 8) {
        q.format = "fp8";
        q.detail +=
            strategy.empty() ? "8-bit float" : fmt::format("8-bit float, {} scales", strategy);
    } else if (type == "float" && bits == 4) {
        q.format = size == 32 ? "mxfp4" : "nvfp4";
        q.detail += fmt::format("4-bit float, group {}", size > 0 ? size : 16);
    } else if (type == "int" || type.empty()) {
        const std::string prefix = q.detail;
        integer_weights(q, bits, size, "int4");
        q.detail = prefix + q.detail;
    } else {
        q.problem = fmt::format("{}-bit {} weights have no row in data/quants.json", bits, type);
    }
}

}  // namespace

std::optional<CheckpointQuant> parse_quantization_config(const json::Value& config,
                                                         std::string_view source) {
    const auto found = member(config, "quantization_config");
    if (!found) return std::nullopt;
    if (!found->is_object())
        throw InputError(fmt::format("{}: 'quantization_config' must be an object (got {})", source,
                                     found->dump()));
    const json::Value c = *found;
    CheckpointQuant q;
    q.method = lower(string_member(c, "quant_method", source));
    for (const std::string_view key : {"modules_to_not_convert", "llm_int8_skip_modules", "ignore",
                                       "exclude_modules", "ignored_layers"})
        for (std::string& m : module_list(c, key, source)) q.kept.push_back(std::move(m));
    const std::string& m = q.method;
    if (m == "mxfp4") {
        q.format = "mxfp4";
        q.detail = "E2M1 values with an E8M0 scale per 32";
    } else if (m == "awq") {
        const std::int64_t bits =
            int_member(c, "bits", source).value_or(int_member(c, "w_bit", source).value_or(4));
        const std::int64_t group = int_member(c, "group_size", source)
                                       .value_or(int_member(c, "q_group_size", source).value_or(0));
        if (bits == 4)
            integer_weights(q, bits, group, "awq-int4");
        else
            q.problem = fmt::format("{}-bit AWQ weights have no row in data/quants.json", bits);
    } else if (m == "gptq" || m == "auto-round" || m == "autoround") {
        const std::int64_t bits = int_member(c, "bits", source).value_or(4);
        integer_weights(q, bits, int_member(c, "group_size", source).value_or(0), "gptq-int4");
    } else if (m == "fp8" || m == "fbgemm_fp8") {
        q.format = "fp8";
        if (const auto block = member(c, "weight_block_size"); block && block->is_array()) {
            std::vector<std::string> sides;
            for (const json::Value side : block->items()) sides.push_back(side.dump(12));
            q.detail = fmt::format("block {}", fmt::join(sides, " x "));
        } else {
            q.detail = m == "fbgemm_fp8" ? "a scale per output channel" : "per-tensor scales";
        }
    } else if (m == "bitsandbytes" || m == "bitsandbytes_4bit" || m == "bitsandbytes_8bit") {
        if (bool_member(c, "load_in_4bit", source) || m == "bitsandbytes_4bit") {
            const std::string type = lower(string_member(c, "bnb_4bit_quant_type", source));
            q.format = type == "fp4" ? "fp4" : "nf4";
            q.double_quant = bool_member(c, "bnb_4bit_use_double_quant", source);
            q.detail = q.double_quant ? "4-bit, double quantisation" : "4-bit";
        } else if (bool_member(c, "load_in_8bit", source) || m == "bitsandbytes_8bit") {
            q.format = "int8";
            q.detail = "LLM.int8";
        } else {
            q.problem = "neither load_in_4bit nor load_in_8bit is set";
        }
    } else if (m == "compressed-tensors" || m == "compressed_tensors") {
        compressed_tensors(c, q, source);
    } else if (m == "modelopt") {
        const std::string algo = lower(string_member(c, "quant_algo", source));
        if (algo == "fp8") {
            q.format = "fp8";
        } else if (algo == "nvfp4") {
            q.format = "nvfp4";
        } else {
            q.problem = fmt::format("quant_algo {} is not modelled", quote(algo));
        }
        q.detail = fmt::format("quant_algo {}", algo);
    } else {
        q.problem =
            q.method.empty() ? "no quant_method" : "the method has no row in data/quants.json";
    }
    if (q.modelled()) q.scope = scope_without(q.kept);
    return q;
}

std::span<const QuantFormat> quant_formats() {
    return embedded::quant_formats();
}

const QuantFormat& quant_none() {
    return quant_formats().front();
}

const QuantFormat* find_quant(std::string_view id) {
    for (const QuantFormat& f : quant_formats())
        if (f.id == id) return &f;
    return nullptr;
}

std::vector<std::string> quant_choices() {
    std::vector<std::string> out;
    for (const QuantFormat& f : quant_formats()) out.emplace_back(f.id);
    return out;
}

Quant parse_quant(std::string_view text, std::string_view what) {
    const std::size_t colon = text.find(':');
    const std::string_view name = text.substr(0, colon);
    const std::string key = normalize_name(name);
    const QuantFormat* found = nullptr;
    for (const QuantFormat& f : quant_formats()) {
        if (normalize_name(f.id) == key) found = &f;
        for (const auto a : f.aliases)
            if (normalize_name(a) == key) found = &f;
        if (found) break;
    }
    if (!found) {
        const std::string chosen =
            parse_choice(name, what, quant_choices());  // throws with did-you-mean
        found = find_quant(chosen);
    }
    Quant q{found, 0};
    if (colon == std::string_view::npos) return q;
    const std::string_view param = trim(text.substr(colon + 1));
    if (found->parameter == QuantParameter::None)
        throw InputError(fmt::format("{} {}: {} takes no parameter after ':'; use {}", what,
                                     quote(text), found->id, found->id));
    double v = 0;
    const auto [ptr, ec] = std::from_chars(param.data(), param.data() + param.size(), v);
    const std::string_view unit =
        found->parameter == QuantParameter::Bits ? "bits per weight" : "weights per group";
    if (param.empty() || ec != std::errc() || ptr != param.data() + param.size() ||
        !std::isfinite(v) || v < found->parameter_min || v > found->parameter_max)
        throw InputError(
            fmt::format("{} {}: the number after ':' is {} and must be from {} to {}, like {}:{}",
                        what, quote(text), unit, found->parameter_min, found->parameter_max,
                        found->id, found->parameter == QuantParameter::Bits ? "4.65" : "128"));
    q.parameter = v;
    return q;
}

Parsed<QuantFormat> parse_quant_formats(std::string_view text, std::string_view source) {
    auto storage = std::make_shared<json::Storage>();
    storage->text = std::string(text);
    json::Document doc =
        json::Document::parse(storage->text, source, "a JSON list of weight formats");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.str_or("about", "");
    const json::Value list = root.required("formats");
    if (!list.is_array()) root.fail("formats", "must be an array");
    root.finish();
    Parsed<QuantFormat> out;
    const json::Path formats{nullptr, "formats"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&formats, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        QuantFormat f;
        f.id = r.str("id");
        f.name = r.str("name");
        f.aliases = storage->keep(r.strings("aliases"));
        f.family =
            kQuantFamilies.parse(r.str("family"), fmt::format("{}: {}/family", source, path.str()));
        f.value_bits = r.number("value_bits", 1, 32);
        f.group = r.opt_number("group", 1, 1e6).value_or(0);
        f.group_overhead_bits = r.opt_number("group_overhead_bits", 0, 1024).value_or(0);
        f.double_quant_overhead_bits = r.opt_number("double_quant_overhead_bits", 0, 1024);
        f.quantizes_embeddings = r.opt_bool("quantizes_embeddings").value_or(false);
        f.trainable_base = r.opt_bool("trainable_base").value_or(false);
        f.parameter = r.has("parameter") ? kQuantParameters.parse(r.str("parameter"), "parameter")
                                         : QuantParameter::None;
        f.parameter_min = r.opt_number("parameter_min", 0, 1e6).value_or(0);
        f.parameter_max = r.opt_number("parameter_max", 0, 1e6).value_or(0);
        f.tensor_path = r.str_or("tensor_path", "");
        f.dequant_time_factor = r.opt_number("dequant_time_factor", 1, 10).value_or(1);
        f.source = r.str("source");
        r.finish();
        if (f.parameter != QuantParameter::None &&
            !(f.parameter_min > 0 && f.parameter_max >= f.parameter_min))
            r.fail(
                "parameter_max",
                "a parametric format needs parameter_min > 0 and parameter_max >= parameter_min");
        if (i == 1 && f.family != QuantFamily::None)
            r.fail("family", "the first format must be \"none\"");
        for (const QuantFormat& other : out.rows)
            if (normalize_name(other.id) == normalize_name(f.id))
                r.fail("id", fmt::format("{} appears twice", quote(f.id)));
        out.rows.push_back(f);
    }
    storage->strings = std::move(doc).take_strings();
    out.storage = std::move(storage);
    return out;
}

}  // namespace gpuadvise
