// Typed, path-aware reading of one object (ObjectReader): every data file and
// config goes through it; a member nobody read is an error, and messages name
// the JSON path ("/gpus/3/memory_bytes").
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::json {

// ---------------------------------------------------------------------- paths

std::string Path::str() const {
    std::vector<const Path*> chain;
    for (const Path* p = this; p != nullptr; p = p->parent)
        if (p->is_index || !p->key.empty()) chain.push_back(p);
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        out += '/';
        if ((*it)->is_index)
            out += std::to_string((*it)->index);
        else
            out += sanitize((*it)->key, 60);
    }
    return out;
}

// ---------------------------------------------------------------- ObjectReader

namespace {

// A cheap summary of a key for ObjectReader's absent-key test.
std::uint64_t key_bit(std::string_view key) {
    if (key.empty()) return 1;
    const std::uint64_t first = static_cast<unsigned char>(key.front());
    const std::uint64_t last = static_cast<unsigned char>(key.back());
    return std::uint64_t{1} << ((key.size() * 7U + first * 3U + last) & 63U);
}

}  // namespace

ObjectReader::ObjectReader(Value value, std::string_view source, const Path* path)
    : value_(value), source_(source), path_(path) {
    if (!value.is_object())
        fail_here(fmt::format("must be an object (got {})", type_name(value.type())));
    members_.reserve(value.size());
    for (const Value m : value.items()) {
        members_.push_back({m, m.key()});
        key_bits_ |= key_bit(members_.back().key);
    }
}

void ObjectReader::fail(std::string_view key, std::string_view what) const {
    const Path p{path_, key};
    throw InputError(fmt::format("{}: {}: {}", source_, p.str(), what));
}

void ObjectReader::fail_here(std::string_view what) const {
    const std::string p = path_ ? path_->str() : std::string();
    throw InputError(fmt::format("{}: {}{}", source_, p.empty() ? "" : p + ": ", what));
}

std::optional<Value> ObjectReader::lookup(std::string_view key) {
    if ((key_bits_ & key_bit(key)) == 0) return std::nullopt;
    const std::size_t n = members_.size();
    // `has(key)` and then the key's getter ask for the same member twice:
    // the one just read is tried first, not found after a scan around.
    if (cursor_ > 0 && members_[cursor_ - 1].key == key) return members_[cursor_ - 1].value;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = cursor_ + k < n ? cursor_ + k : cursor_ + k - n;
        if (members_[i].key == key) {
            members_[i].read = true;
            cursor_ = i + 1;
            return members_[i].value;
        }
    }
    return std::nullopt;
}

std::optional<Value> ObjectReader::get(std::string_view key) {
    const auto v = lookup(key);
    if (!v || v->is_null()) return std::nullopt;
    return v;
}

Value ObjectReader::required(std::string_view key) {
    const auto v = get(key);
    if (!v) fail(key, "is required");
    return *v;
}

bool ObjectReader::has(std::string_view key) {
    return get(key).has_value();
}

std::string_view ObjectReader::str(std::string_view key) {
    return str_of(key, required(key));
}

std::string_view ObjectReader::str_of(std::string_view key, Value v) const {
    if (!v.is_string() || v.text().empty())
        fail(key, fmt::format("must be a non-empty string (got {})", v.dump()));
    return v.text();
}

std::optional<std::string_view> ObjectReader::opt_str(std::string_view key) {
    const auto v = get(key);
    if (!v) return std::nullopt;
    return str_of(key, *v);
}

std::string_view ObjectReader::str_or(std::string_view key, std::string_view fallback) {
    const auto v = get(key);
    if (!v) return fallback;
    if (!v->is_string()) fail(key, fmt::format("must be a string (got {})", v->dump()));
    return v->text();
}

double ObjectReader::number(std::string_view key, double min, double max) {
    return number_of(key, required(key), min, max);
}

double ObjectReader::number_of(std::string_view key, Value v, double min, double max) const {
    if (!v.is_number()) fail(key, fmt::format("must be a number (got {})", v.dump()));
    const auto d = v.number();
    if (!d || *d < min || *d > max)
        fail(key, fmt::format("{} is out of range [{}, {}]", v.dump(), min, max));
    return *d;
}

std::optional<double> ObjectReader::opt_number(std::string_view key, double min, double max) {
    const auto v = get(key);
    if (!v) return std::nullopt;
    return number_of(key, *v, min, max);
}

std::int64_t ObjectReader::integer(std::string_view key, std::int64_t min, std::int64_t max) {
    return integer_of(key, required(key), min, max);
}

std::int64_t ObjectReader::integer_of(std::string_view key, Value v, std::int64_t min,
                                      std::int64_t max) const {
    if (!v.is_number() || !v.is_integer_literal())
        fail(key, fmt::format("must be an integer (got {})", v.dump()));
    const auto i = v.int64();
    if (!i || *i < min || *i > max)
        fail(key, fmt::format("{} is out of range [{}, {}]", v.dump(), min, max));
    return *i;
}

std::optional<std::int64_t> ObjectReader::opt_integer(std::string_view key, std::int64_t min,
                                                      std::int64_t max) {
    const auto v = get(key);
    if (!v) return std::nullopt;
    return integer_of(key, *v, min, max);
}

std::optional<bool> ObjectReader::opt_bool(std::string_view key) {
    const auto v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_bool()) fail(key, fmt::format("must be true, false or null (got {})", v->dump()));
    return v->boolean();
}

std::vector<std::string_view> ObjectReader::strings(std::string_view key) {
    std::vector<std::string_view> out;
    const auto v = get(key);
    if (!v) return out;
    if (!v->is_array()) fail(key, "must be an array of strings");
    out.reserve(v->size());
    std::size_t i = 0;
    for (const Value item : v->items()) {
        if (!item.is_string() || item.text().empty()) {
            const Path parent{path_, key};
            const Path p{&parent, {}, i, true};
            throw InputError(fmt::format("{}: {}: must be a non-empty string", source_, p.str()));
        }
        out.push_back(item.text());
        ++i;
    }
    return out;
}

std::string_view ObjectReader::one_of(std::string_view key,
                                      std::initializer_list<std::string_view> choices) {
    const std::string_view v = str(key);
    for (const std::string_view c : choices)
        if (v == c) return c;
    std::string list;
    for (const std::string_view c : choices) list += (list.empty() ? "" : ", ") + std::string(c);
    fail(key, fmt::format("{} is not one of: {}", quote(v), list));
}

ObjectReader ObjectReader::child(std::string_view key, Path& path_storage) {
    const Value v = required(key);
    path_storage = Path{path_, key};
    return ObjectReader(v, source_, &path_storage);
}

void ObjectReader::finish() const {
    for (std::size_t i = 0; i < members_.size(); ++i)
        if (!members_[i].read) fail(members_[i].key, "is not a known field; check the spelling");
}

}  // namespace gpuadvise::json
