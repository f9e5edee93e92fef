#include "gpuadvise/names.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {

std::string normalize_name(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    append_normalized_name(out, name);
    return out;
}

void append_normalized_name(std::string& out, std::string_view name) {
    for (char c : name) {
        if (c == ' ' || c == '-' || c == '_' || c == '.') continue;
        // std::tolower in the "C" locale gpuadvise runs in (it never calls
        // setlocale), without a call a byte.
        out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
}

std::vector<std::string> name_tokens(std::string_view name) {
    std::vector<std::string> out;
    std::string cur;
    const auto kind = [](char c) {
        if (c >= '0' && c <= '9') return 1;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 2;
        return 0;
    };
    int cur_kind = 0;
    for (const char c : name) {
        const int k = kind(c);
        if (k != cur_kind && !cur.empty()) {
            out.push_back(std::move(cur));
            cur.clear();
        }
        cur_kind = k;
        if (k != 0) cur.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    if (!cur.empty()) out.push_back(std::move(cur));
    return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t cap) {
    // Optimal string alignment: insertions, deletions, substitutions and
    // transpositions of neighbours ("4900" is one edit from "4090").
    const std::size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
    if (diff > cap) return cap + 1;
    const std::size_t w = b.size() + 1;
    std::vector<std::size_t> d((a.size() + 1) * w);
    for (std::size_t j = 0; j <= b.size(); ++j) d[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        d[i * w] = i;
        std::size_t best = d[i * w];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0U : 1U;
            std::size_t v = std::min(
                {d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1, d[(i - 1) * w + j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                v = std::min(v, d[(i - 2) * w + j - 2] + 1);
            d[i * w + j] = v;
            best = std::min(best, v);
        }
        if (best > cap) return cap + 1;
    }
    return d[a.size() * w + b.size()];
}

std::optional<std::string> closest_name(std::string_view text,
                                        const std::vector<std::string>& candidates,
                                        std::size_t max_distance) {
    const std::string key = normalize_name(text);
    std::optional<std::string> best;
    std::size_t best_distance = max_distance + 1;
    for (const auto& candidate : candidates) {
        const std::size_t d = edit_distance(key, normalize_name(candidate), max_distance);
        if (d < best_distance) {
            best_distance = d;
            best = candidate;
        }
    }
    return best;
}

std::string parse_choice(std::string_view text, std::string_view flag,
                         const std::vector<std::string>& choices) {
    const std::string key = normalize_name(text);
    for (const auto& choice : choices)
        if (normalize_name(choice) == key) return choice;
    if (auto near = closest_name(text, choices))
        throw InputError(
            fmt::format("unknown {} {}; did you mean '{}'?", flag, quote(text), *near));
    throw InputError(fmt::format("unknown {} {}; choose one of: {}", flag, quote(text),
                                 fmt::join(choices, ", ")));
}

}  // namespace gpuadvise
