// The parsed tree's values (json::Value): each node's type, its scalars (numbers
// read exactly, integers refused when they are not), iteration over arrays and
// objects, lookup by key, and `dump` for quoting a value in a message. The
// parser that builds the tree is json.cpp.
#include <charconv>
#include <cmath>
#include <limits>

#include "gpuadvise/json.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::json {

std::string_view type_name(Type t) {
    switch (t) {
        case Type::Null:
            return "null";
        case Type::Bool:
            return "a boolean";
        case Type::Number:
            return "a number";
        case Type::String:
            return "a string";
        case Type::Array:
            return "an array";
        case Type::Object:
            return "an object";
    }
    return "?";
}

std::optional<double> Value::number() const {
    if (!is_number()) return std::nullopt;
    const std::string_view t = text();
    double v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<std::int64_t> Value::int64() const {
    if (!is_integer_literal()) {
        // 1.0e3 style integers are accepted when exact.
        const auto d = number();
        if (!d || *d != std::floor(*d) || std::fabs(*d) > 9.0e15) return std::nullopt;
        return static_cast<std::int64_t>(*d);
    }
    const std::string_view t = text();
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
    return v;
}

std::optional<std::uint64_t> Value::uint64() const {
    if (!is_integer_literal()) {
        const auto d = number();
        if (!d || *d != std::floor(*d) || *d < 0 || *d > 9.0e15) return std::nullopt;
        return static_cast<std::uint64_t>(*d);
    }
    const std::string_view t = text();
    if (!t.empty() && t.front() == '-') return std::nullopt;
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
    return v;
}

std::optional<Value> Value::find(std::string_view k) const {
    if (!is_object()) return std::nullopt;
    for (const Value v : items())
        if (v.key() == k) return v;
    return std::nullopt;
}

namespace {

void dump_into(Writer& w, Value v, std::size_t& budget) {
    if (budget == 0) return;
    --budget;
    switch (v.type()) {
        case Type::Null:
            w.null();
            return;
        case Type::Bool:
            w.value(v.boolean());
            return;
        case Type::Number:
            w.raw(v.text());
            return;
        case Type::String:
            w.value(v.text());
            return;
        case Type::Array:
            w.begin_array();
            for (const Value item : v.items()) dump_into(w, item, budget);
            w.end_array();
            return;
        case Type::Object:
            w.begin_object();
            for (const Value item : v.items()) {
                w.key(item.key());
                dump_into(w, item, budget);
                if (budget == 0) break;
            }
            w.end_object();
            return;
    }
}

}  // namespace

std::string Value::dump(std::size_t max) const {
    std::string out;
    Writer w(out, false);
    // Values: 64 are enough for any message; a whole copy (max = npos, as
    // merge_catalogs makes of each entry) has no limit.
    std::size_t budget = max == std::string::npos ? std::numeric_limits<std::size_t>::max() : 64;
    dump_into(w, *this, budget);
    if (out.size() > max) {
        out = truncate_display(out, max);
    }
    return out;
}

}  // namespace gpuadvise::json
