#include "gpuadvise/quant.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>

#include "gpuadvise/embedded.hpp"
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
