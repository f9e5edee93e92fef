#include "gpuadvise/fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "gpuadvise/text.hpp"

namespace gpuadvise {

std::string FieldSpec::env_name() const {
    std::string out = "GPUADVISE_";
    for (const char c : key)
        out.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    return out;
}

std::string FieldSpec::help_text() const {
    std::string out(help);
    if (choices) {
        const auto c = choices();
        if (c.size() <= 12) out += fmt::format(": {}", fmt::join(c, " | "));
    }
    if (!default_help.empty()) out += fmt::format("  [default: {}]", default_help);
    return out;
}

std::string FieldSpec::negative_flag() const {
    return "--no-" + std::string(flag.substr(2));
}

std::string FieldSpec::usage() const {
    std::string out;
    if (!short_flag.empty()) out = fmt::format("{}, ", short_flag);
    out += flag;
    if (kind == FieldKind::Toggle) out += ", " + negative_flag();
    if (!value_name.empty()) out += fmt::format(" {}", value_name);
    return out;
}

const FieldSpec& spec(Field f) {
    const FieldSpec& s = field_specs()[static_cast<std::size_t>(f)];
    // The table is indexed by the enum; a row out of order is a bug that the
    // fields unit test reports, never a silent wrong field.
    if (s.field != f)
        throw std::logic_error("field_table.cpp: the field table is not in enum order");
    return s;
}

const FieldSpec* find_field_by_key(std::string_view key) {
    for (const FieldSpec& s : field_specs())
        if (s.key == key) return &s;
    return nullptr;
}

std::optional<bool> Request::flag(Field f) const {
    const auto& v = get(f);
    if (!v) return std::nullopt;
    return v->text == "true";
}

}  // namespace gpuadvise
