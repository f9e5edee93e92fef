#pragma once
// One spelling table per enum: to_string, the list of choices (for --help,
// completions, errors and JSON Schemas) and forgiving parsing with "did you
// mean" all read the same rows, so they cannot drift apart. Hidden rows are
// extra spellings accepted on input ("wsl2" for wsl) but never listed.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/names.hpp"

namespace gpuadvise {

template <typename E>
struct EnumEntry {
    E value;
    std::string_view name;
    bool hidden = false;
};

template <typename E, std::size_t N>
class EnumTable {
  public:
    constexpr explicit EnumTable(std::array<EnumEntry<E>, N> rows) : rows_(rows) {}

    constexpr std::string_view name(E value) const {
        for (const auto& r : rows_)
            if (r.value == value && !r.hidden) return r.name;
        return "?";
    }

    // The listed spellings, in table order.
    std::vector<std::string> choices() const {
        std::vector<std::string> out;
        for (const auto& r : rows_)
            if (!r.hidden) out.emplace_back(r.name);
        return out;
    }

    // Exact after normalisation (case, dashes, dots, spaces).
    std::optional<E> find(std::string_view text) const {
        const std::string key = normalize_name(text);
        for (const auto& r : rows_)
            if (normalize_name(r.name) == key) return r.value;
        return std::nullopt;
    }

    // Throws InputError "unknown <what> 'x'; did you mean 'y'?" (or the list).
    E parse(std::string_view text, std::string_view what) const {
        if (const auto v = find(text)) return *v;
        const std::string chosen = parse_choice(text, what, choices());
        return *find(chosen);
    }

    constexpr const std::array<EnumEntry<E>, N>& rows() const { return rows_; }

  private:
    std::array<EnumEntry<E>, N> rows_;
};

// Deduces N from the rows: `constexpr auto kX = make_enum_table<X>({{...}})`.
template <typename E, std::size_t N>
constexpr EnumTable<E, N> make_enum_table(const EnumEntry<E> (&rows)[N]) {
    std::array<EnumEntry<E>, N> a{};
    for (std::size_t i = 0; i < N; ++i) a[i] = rows[i];
    return EnumTable<E, N>(a);
}

}  // namespace gpuadvise
