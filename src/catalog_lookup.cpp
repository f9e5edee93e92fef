// Finding cards in the catalog: `gpus` filters and sorts, and the forgiving
// lookup of a name (ids, aliases, product words with memory, core-count and
// form qualifiers), with the SKUs of an ambiguous name listed and
// suggestions that match name words first.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <deque>
#include <tuple>
#include <unordered_map>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

// `gpus --supports`: each feature and the test a card passes.
struct Feature {
    std::string_view name;
    bool (*has)(const Gpu&);
};
constexpr Feature kFeatures[] = {
    {"fp32", [](const Gpu& g) { return g.tflops.fp32.has_value(); }},
    {"tf32", [](const Gpu& g) { return g.tflops.tf32.has_value(); }},
    {"fp16", [](const Gpu& g) { return g.tflops.fp16.has_value(); }},
    {"bf16", [](const Gpu& g) { return g.tflops.bf16.has_value(); }},
    {"fp8", [](const Gpu& g) { return g.tflops.fp8.has_value(); }},
    {"fp4", [](const Gpu& g) { return g.tflops.fp4.has_value(); }},
    {"int8", [](const Gpu& g) { return g.tflops.int8.has_value(); }},
    {"av1", [](const Gpu& g) { return g.av1_encode.value_or(false); }},
    {"nvlink", [](const Gpu& g) { return g.link.type == LinkType::Nvlink; }},
    {"fast-link", [](const Gpu& g) { return g.has_fast_link(); }},
    {"p2p", [](const Gpu& g) { return g.pcie_p2p.value_or(false) || g.has_fast_link(); }},
};

// `gpus --sort`: each key, largest first (price and TDP: smallest first).
struct SortKey {
    std::string_view name;
    double (*key)(const Gpu&);
};
constexpr SortKey kSortKeys[] = {
    {"id", [](const Gpu&) { return 0.0; }},
    {"memory", [](const Gpu& g) { return static_cast<double>(g.memory_bytes); }},
    {"bandwidth", [](const Gpu& g) { return g.memory_bandwidth_gbps; }},
    {"bf16", [](const Gpu& g) { return g.tflops.bf16.value_or(-1); }},
    {"price", [](const Gpu& g) { return g.price ? -g.price->usd : -1e18; }},
    {"tdp", [](const Gpu& g) { return -g.tdp_watts.value_or(1e9); }},
};

}  // namespace

std::vector<std::string> supports_choices() {
    std::vector<std::string> out;
    for (const Feature& f : kFeatures) out.emplace_back(f.name);
    return out;
}

std::vector<std::string> sort_choices() {
    std::vector<std::string> out;
    for (const SortKey& k : kSortKeys) out.emplace_back(k.name);
    return out;
}

std::vector<const Gpu*> filter_gpus(const Catalog& catalog, const GpuFilter& f) {
    const Feature* feature = nullptr;
    for (const Feature& x : kFeatures)
        if (x.name == f.supports) feature = &x;
    const SortKey* sort = &kSortKeys[0];
    for (const SortKey& k : kSortKeys)
        if (k.name == f.sort) sort = &k;
    std::vector<const Gpu*> list;
    for (const Gpu& g : catalog.gpus) {
        if (f.vendor && g.vendor != *f.vendor) continue;
        if (f.segment && g.segment != *f.segment) continue;
        if (g.memory_bytes < f.min_memory_bytes || g.memory_bandwidth_gbps < f.min_bandwidth_gbps)
            continue;
        if (!f.supports.empty() && (feature == nullptr || !feature->has(g))) continue;
        list.push_back(&g);
    }
    std::stable_sort(list.begin(), list.end(), [&](const Gpu* a, const Gpu* b) {
        const double ka = sort->key(*a), kb = sort->key(*b);
        if (ka != kb) return ka > kb;
        return a->id < b->id;
    });
    return list;
}

namespace {

// Vendor and brand words are optional in a name: "geforce rtx 4090", "4090".
constexpr std::string_view kVendorWords[] = {"nvidia", "amd",     "intel",
                                             "apple",  "geforce", "radeon"};
// Series words that may stand before the model number: "rtx" in "rtx a6000",
// "tesla" in "tesla p40", "pro" in "radeon pro w7900".
constexpr std::string_view kSeriesWords[] = {"rtx",      "gtx",    "rx",  "tesla", "quadro",
                                             "instinct", "arc",    "pro", "data",  "center",
                                             "gpu",      "jetson", "dgx", "hgx"};

bool is_word(const std::string& t, std::span<const std::string_view> words) {
    return std::find(words.begin(), words.end(), t) != words.end();
}

bool numeric(const std::string& t) {
    return !t.empty() && t.front() >= '0' && t.front() <= '9';
}

// The tokens from `i` on as variant qualifiers: memory sizes ("16 gb" ->
// "16gb"), core counts ("40 c", "40 core gpu" -> "40c"), form factors ("sxm 5"
// -> "sxm5", "pcie", "nvl", "oam", "hbm 3 e" -> "hbm3e"). These tell SKUs of
// one product apart; nullopt when a token is anything else ("ti", "super",
// "xt", "laptop", "d": another product).
std::optional<std::vector<std::string>> qualifiers(const std::vector<std::string>& t,
                                                   std::size_t i) {
    static constexpr std::string_view kMemory[] = {"gb", "g", "gib"};
    static constexpr std::string_view kCores[] = {"c", "core"};
    static constexpr std::string_view kNumbered[] = {"sxm", "nvl", "hbm"};
    static constexpr std::string_view kForms[] = {"pcie", "oam", "gpu", "module"};
    std::vector<std::string> out;
    while (i < t.size()) {
        if (numeric(t[i])) {
            if (i + 1 >= t.size()) return std::nullopt;
            if (is_word(t[i + 1], kMemory))
                out.push_back(t[i] + "gb");
            else if (is_word(t[i + 1], kCores))
                out.push_back(t[i] + "c");
            else
                return std::nullopt;
            i += 2;
            if (i < t.size() && t[i] == "gpu" && out.back().back() == 'c') ++i;  // "40-core GPU"
        } else if (is_word(t[i], kNumbered)) {
            std::string q = t[i++];
            if (i < t.size() && numeric(t[i])) q += t[i++];
            if (i < t.size() && t[i] == "e") q += t[i++];
            out.push_back(std::move(q));
        } else if (is_word(t[i], kForms)) {
            out.push_back(t[i++]);
        } else {
            return std::nullopt;
        }
    }
    return out;
}

// Tokens without the vendor words in front: "NVIDIA GeForce RTX 4090" ->
// {"rtx", "4090"}.
std::vector<std::string> lookup_tokens(std::string_view name) {
    std::vector<std::string> t = name_tokens(name);
    std::size_t i = 0;
    while (i < t.size() && is_word(t[i], kVendorWords)) ++i;
    t.erase(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(i));
    return t;
}

// `candidate` names a SKU of the product `query` names: series words, the
// product's words, then qualifiers that include every qualifier the query
// gives ("4060 ti" is a SKU of "rtx 4060 ti 16gb"; "m1 max 64gb" of "m1 max
// 24c 64gb"). A longer model name is another product: "rtx 5060" is not
// "rtx 5060 ti 16gb".
bool is_sku_of(const std::vector<std::string>& candidate, const std::vector<std::string>& query) {
    for (std::size_t words = query.size(); words > 0; --words) {
        const auto wanted = qualifiers(query, words);
        if (!wanted) continue;
        for (std::size_t at = 0; at + words <= candidate.size(); ++at) {
            if (!std::equal(query.begin(), query.begin() + static_cast<std::ptrdiff_t>(words),
                            candidate.begin() + static_cast<std::ptrdiff_t>(at)))
                continue;
            bool series = true;
            for (std::size_t i = 0; i < at; ++i)
                series = series && is_word(candidate[i], kSeriesWords);
            const auto has = qualifiers(candidate, at + words);
            if (!series || !has) continue;
            // A form without a number matches its numbered forms ("sxm": "sxm5").
            const auto covered = [&](const std::string& q) {
                return std::any_of(has->begin(), has->end(), [&](const std::string& c) {
                    return c == q || (!numeric(std::string(1, q.back())) && starts_with(c, q) &&
                                      c.size() > q.size() && q.back() != 'b' && q.back() != 'c');
                });
            };
            if (std::all_of(wanted->begin(), wanted->end(), covered)) return true;
        }
    }
    return false;
}

// The tokens of a name without its vendor and series words: "NVIDIA RTX
// A6000" -> {"a", "6000"}.
std::vector<std::string> core_tokens(std::string_view name) {
    std::vector<std::string> t = name_tokens(name);
    const auto skip = [](const std::string& w) {
        return std::find(std::begin(kVendorWords), std::end(kVendorWords), w) !=
                   std::end(kVendorWords) ||
               std::find(std::begin(kSeriesWords), std::end(kSeriesWords), w) !=
                   std::end(kSeriesWords);
    };
    std::size_t i = 0;
    while (i + 1 < t.size() && skip(t[i])) ++i;
    t.erase(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(i));
    return t;
}

std::string joined(const std::vector<std::string>& tokens) {
    std::string out;
    for (const auto& t : tokens) out += t;
    return out;
}

// Suggestions for a name that matches nothing: cards whose name starts with
// the same word ("h" of "h800": the H100 and H200, not the Radeon W6800), the
// nearest first; else the nearest id or alias by edit distance.
std::vector<std::string> suggestions(const Catalog& catalog, std::string_view name) {
    const std::vector<std::string> query = core_tokens(name);
    std::vector<std::string> out;
    if (!query.empty()) {
        const std::string q = joined(query);
        struct Near {
            std::size_t head, whole;
            std::string_view id;
        };
        std::vector<Near> near;
        for (const Gpu& g : catalog.gpus) {
            std::optional<Near> best;
            std::vector<std::string_view> names{g.id, g.name};
            names.insert(names.end(), g.aliases.begin(), g.aliases.end());
            for (const std::string_view n : names) {
                const std::vector<std::string> t = core_tokens(n);
                if (t.empty() || t.front() != query.front()) continue;
                const std::string c = joined(t);
                const Near d{edit_distance(q, c.substr(0, q.size())), edit_distance(q, c, 16),
                             g.id};
                if (!best || std::tie(d.head, d.whole) < std::tie(best->head, best->whole))
                    best = d;
            }
            if (best && best->head <= 3) near.push_back(*best);
        }
        std::sort(near.begin(), near.end(), [](const Near& a, const Near& b) {
            return std::tie(a.head, a.whole, a.id) < std::tie(b.head, b.whole, b.id);
        });
        for (const Near& n : near)
            if (n.head == near.front().head && out.size() < 4) out.emplace_back(n.id);
        if (!out.empty()) return out;
    }
    std::vector<std::string> candidates;
    for (const Gpu& g : catalog.gpus) {
        candidates.emplace_back(g.id);
        for (const auto a : g.aliases) candidates.emplace_back(a);
    }
    if (const auto near = closest_name(name, candidates)) {
        const std::string near_key = normalize_name(*near);
        for (const NameEntry& e : catalog.names)
            if (e.key == near_key) out.emplace_back(catalog.gpus[e.gpu].id);
    }
    return out;
}

std::string quoted_list(const std::vector<std::string>& ids) {
    std::string out;
    for (std::size_t i = 0; i < ids.size(); ++i)
        out += (i == 0 ? "" : i + 1 == ids.size() ? " or " : ", ") + quote(ids[i]);
    return out;
}

}  // namespace

const Gpu& resolve_gpu(const Catalog& catalog, std::string_view name, std::string_view what) {
    const std::string key = normalize_name(name);
    if (key.empty())
        throw InputError(fmt::format(
            "{} needs a name, like rtx-4090 or h100-sxm5 ('gpuadvise gpus' lists them)", what));
    const auto exact =
        std::lower_bound(catalog.names.begin(), catalog.names.end(), key,
                         [](const NameEntry& e, const std::string& k) { return e.key < k; });
    if (exact != catalog.names.end() && exact->key == key) return catalog.gpus[exact->gpu];
    const std::vector<std::string> query = lookup_tokens(name);
    std::vector<std::uint32_t> exact_hits, sku_hits;
    const auto add = [](std::vector<std::uint32_t>& v, std::uint32_t i) {
        if (std::find(v.begin(), v.end(), i) == v.end()) v.push_back(i);
    };
    const auto consider = [&](std::string_view candidate, std::uint32_t i) {
        const std::vector<std::string> c = lookup_tokens(candidate);
        if (c == query)
            add(exact_hits, i);
        else if (is_sku_of(c, query))
            add(sku_hits, i);
    };
    // Ids, aliases and the names of cards as the vendor writes them.
    for (std::uint32_t i = 0; i < catalog.gpus.size(); ++i) {
        const Gpu& g = catalog.gpus[i];
        consider(g.id, i);
        consider(g.name, i);
        for (const std::string_view a : g.aliases) consider(a, i);
    }
    const auto& hits = exact_hits.empty() ? sku_hits : exact_hits;
    if (hits.size() == 1) return catalog.gpus[hits.front()];
    if (hits.size() > 1) {
        std::vector<std::string> ids;
        for (const std::uint32_t i : hits) ids.emplace_back(catalog.gpus[i].id);
        std::sort(ids.begin(), ids.end());
        if (ids.size() > 8) {
            ids.resize(8);
            ids.emplace_back("...");
        }
        throw InputError(fmt::format("{} {} is ambiguous; did you mean one of: {}?", what,
                                     quote(name), fmt::join(ids, ", ")));
    }
    const std::vector<std::string> near = suggestions(catalog, name);
    if (!near.empty())
        throw InputError(
            fmt::format("unknown {} {}; did you mean {}?", what, quote(name), quoted_list(near)));
    throw InputError(
        fmt::format("unknown {} {}; 'gpuadvise gpus' lists the catalog", what, quote(name)));
}

}  // namespace gpuadvise
