// config.json's typed field readers, shared by the model module's sources:
// integers (the first of several spellings, bounded), booleans, strings,
// layer-index lists, vision dimensions and the counts computed from them.
// Every value from a file is bounded here, before any arithmetic uses it, so
// a hostile config.json cannot overflow a shape's products.
#include <fmt/format.h>

#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/text.hpp"
#include "model_common.hpp"

namespace gpuadvise::model_detail {

std::int64_t int_field(const json::Value& j, std::initializer_list<std::string_view> keys,
                       std::string_view source) {
    for (const std::string_view key : keys) {
        const auto it = j.find(key);
        if (!it || it->is_null()) continue;
        if (!it->is_number())
            throw InputError(
                fmt::format("{}: '{}' must be an integer (got {})", source, key, it->dump()));
        const auto d = it->number();
        if (!d || std::fabs(*d) > static_cast<double>(kMaxField))
            throw InputError(fmt::format("{}: '{}' = {} is implausibly large (at most {})", source,
                                         key, it->dump(), kMaxField));
        if (*d != std::floor(*d))
            throw InputError(
                fmt::format("{}: '{}' must be an integer (got {})", source, key, it->dump()));
        if (*d < 0)
            throw InputError(
                fmt::format("{}: '{}' must not be negative (got {})", source, key, it->dump()));
        return static_cast<std::int64_t>(*d);
    }
    return 0;
}
bool bool_field(const json::Value& j, std::string_view key, bool fallback,
                std::string_view source) {
    const auto it = j.find(key);
    if (!it || it->is_null()) return fallback;
    if (!it->is_bool())
        throw InputError(
            fmt::format("{}: '{}' must be true or false (got {})", source, key, it->dump()));
    return it->boolean();
}
std::string string_field(const json::Value& j, std::string_view key, std::string_view source) {
    const auto it = j.find(key);
    if (!it || it->is_null()) return {};
    if (!it->is_string())
        throw InputError(
            fmt::format("{}: '{}' must be a string (got {})", source, key, it->dump()));
    return sanitize(it->text(), 64);
}
// A key's integer, or `fallback` when the key is absent (the configuration
// class's default).
std::int64_t int_or(const json::Value& j, std::string_view key, std::int64_t fallback,
                    std::string_view source) {
    const auto it = j.find(key);
    if (!it || it->is_null()) return fallback;
    return int_field(j, {key}, source);
}
// Layer indices in a list ("mlp_only_layers", "moe_layers"), each checked.
std::vector<std::int64_t> index_list(const json::Value& j, std::string_view key,
                                     std::string_view source) {
    std::vector<std::int64_t> out;
    const auto list = j.find(key);
    if (!list || list->is_null()) return out;
    if (!list->is_array())
        throw InputError(fmt::format("{}: '{}' must be a list of layer indices", source, key));
    for (const json::Value v : list->items()) {
        const auto n = v.is_number() ? v.int64() : std::nullopt;
        if (!n || *n < 0 || *n > kMaxField)
            throw InputError(fmt::format("{}: '{}' must be a list of layer indices (got {})",
                                         source, key, v.dump()));
        out.push_back(*n);
    }
    return out;
}
// A vision_config dimension as a double (the counts below are computed in
// doubles, exact below 2^53, and bounded before they become integers).
double dim(const json::Value& v, std::string_view key, std::int64_t fallback,
           std::string_view source) {
    const std::int64_t value = int_or(v, key, fallback, source);
    if (value > 1'000'000)
        throw InputError(fmt::format("{}: '{}' = {} is implausibly large (at most 1000000)", source,
                                     key, value));
    return static_cast<double>(value);
}
// A count computed in doubles, as an integer; a hostile config.json cannot
// make it overflow.
std::int64_t bounded_count(double value, std::string_view what, std::string_view source) {
    if (!(value >= 0) || value > 1e15)
        throw InputError(
            fmt::format("{}: the {} implies over 1e15; check its sizes", source, what));
    return static_cast<std::int64_t>(value);
}

}  // namespace gpuadvise::model_detail
