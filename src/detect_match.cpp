// Matching what the tools report onto catalog ids: by PCI id first (the
// catalog's pci_ids), then by name without vendor and marketing words, with
// the reported memory telling SKUs of one name apart.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "detect_common.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

using namespace detail;

constexpr double kMemoryTolerance = 0.10;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_alnum(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
char to_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// A name reduced to what identifies the card: "NVIDIA A100-SXM4-80GB" is core
// "a100", form "sxm4", memory 80 GiB.
struct NameKey {
    std::string core;
    std::vector<std::string> forms;       // pcie, sxm*, nvl*, oam
    std::optional<std::uint64_t> memory;  // from a "80GB" word
};

bool is_noise_word(std::string_view t) {
    static constexpr std::string_view kWords[] = {
        "nvidia",   "geforce", "amd",    "ati", "radeon", "instinct",    "intel",     "apple",
        "graphics", "data",    "center", "gpu", "tesla",  "corporation", "generation"};
    return std::find(std::begin(kWords), std::end(kWords), t) != std::end(kWords);
}

bool is_memory_type(std::string_view t) {
    return starts_with(t, "hbm") || starts_with(t, "gddr");
}

bool is_form(std::string_view t) {
    const auto digits_after = [&](std::string_view prefix) {
        return starts_with(t, prefix) &&
               std::all_of(t.begin() + static_cast<std::ptrdiff_t>(prefix.size()), t.end(),
                           is_digit);
    };
    return t == "pcie" || t == "oam" || digits_after("sxm") || digits_after("nvl");
}

bool forms_compatible(std::string_view a, std::string_view b) {
    if (a == b) return true;
    for (std::string_view family : {"sxm", "nvl"})
        if (starts_with(a, family) && starts_with(b, family) && (a == family || b == family))
            return true;
    return false;
}

// "80gb", "144g", "94gib" -> bytes (the GB in card names is binary).
std::optional<std::uint64_t> memory_word(std::string_view t) {
    std::size_t i = 0;
    while (i < t.size() && is_digit(t[i])) ++i;
    if (i == 0 || i > 4) return std::nullopt;
    const std::string_view unit = t.substr(i);
    if (unit != "gb" && unit != "g" && unit != "gib") return std::nullopt;
    return *parse_u64(t.substr(0, i)) * kGiB;
}

std::string without_marks(std::string s) {
    for (std::string_view mark : {"(r)", "(tm)", "\xc2\xae", "\xe2\x84\xa2"})
        for (auto p = s.find(mark); p != std::string::npos; p = s.find(mark))
            s.erase(p, mark.size());
    return s;
}

// Parenthesised remarks are not part of the name: "Instinct MI250X (one GCD,
// as seen by software)", "A10G (AWS)".
std::string without_parentheses(std::string_view s) {
    std::string out;
    int depth = 0;
    for (char c : s) {
        if (c == '(')
            ++depth;
        else if (c == ')' && depth > 0)
            --depth;
        else if (depth == 0)
            out.push_back(c);
    }
    return out;
}

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == '.' || c == '\'') continue;  // "Rev." and "Ti." are one word
        if (is_alnum(c)) {
            cur.push_back(to_lower(c));
        } else if (!cur.empty()) {
            out.push_back(std::move(cur));
            cur.clear();
        }
    }
    if (!cur.empty()) out.push_back(std::move(cur));
    return out;
}

// One name can list several cards: pci.ids style "Navi 31 [Radeon RX 7900
// XT/7900 XTX]" or "Instinct MI250X / MI250". Later alternatives that start
// with a number borrow the first one's leading words ("7900 XTX" becomes
// "radeon rx 7900 xtx").
std::vector<std::string> name_variants(std::string_view name) {
    std::string s = without_parentheses(without_marks(lower(name)));
    const auto open = s.find('[');
    const auto close = s.find(']', open == std::string::npos ? 0 : open);
    if (open != std::string::npos && close != std::string::npos)
        s = s.substr(open + 1, close - open - 1);
    std::vector<std::string> parts;
    for (std::size_t pos = 0; pos <= s.size() && parts.size() < 8;) {
        auto slash = s.find('/', pos);
        if (slash == std::string::npos) slash = s.size();
        const std::string_view part = trim(std::string_view(s).substr(pos, slash - pos));
        if (!part.empty()) parts.emplace_back(part);
        pos = slash + 1;
    }
    if (parts.size() > 1) {
        std::vector<std::string> first;
        for (std::size_t pos = 0; pos < parts[0].size();) {
            auto sp = parts[0].find(' ', pos);
            if (sp == std::string::npos) sp = parts[0].size();
            if (sp > pos) first.push_back(parts[0].substr(pos, sp - pos));
            pos = sp + 1;
        }
        std::size_t numbered = 0;
        while (numbered < first.size() && !is_digit(first[numbered].front())) ++numbered;
        if (numbered > 0 && numbered < first.size()) {
            std::string prefix;
            for (std::size_t i = 0; i < numbered; ++i) prefix += first[i] + " ";
            for (std::size_t i = 1; i < parts.size(); ++i)
                if (is_digit(parts[i].front())) parts[i] = prefix + parts[i];
        }
    }
    return parts;
}

NameKey make_key(std::string_view variant) {
    NameKey key;
    for (const auto& w : words(variant)) {
        if (is_noise_word(w) || is_memory_type(w)) continue;
        if (auto m = memory_word(w)) {
            if (!key.memory) key.memory = m;
            continue;
        }
        if (is_form(w)) {
            key.forms.push_back(w);
            continue;
        }
        key.core += w;
    }
    return key;
}

struct CatalogKeys {
    std::vector<std::vector<NameKey>> per_gpu;  // id, name and aliases of each GPU
};

CatalogKeys index_catalog(const Catalog& catalog) {
    CatalogKeys index;
    index.per_gpu.reserve(catalog.gpus.size());
    for (const auto& g : catalog.gpus) {
        std::vector<NameKey> keys;
        std::vector<std::string_view> names{g.id, g.name};
        names.insert(names.end(), g.aliases.begin(), g.aliases.end());
        for (const auto& n : names)
            for (const auto& v : name_variants(n)) {
                NameKey k = make_key(v);
                if (!k.core.empty()) keys.push_back(std::move(k));
            }
        index.per_gpu.push_back(std::move(keys));
    }
    return index;
}

double relative_gap(std::uint64_t reported, std::uint64_t catalog) {
    return std::fabs(static_cast<double>(catalog) - static_cast<double>(reported)) /
           static_cast<double>(catalog);
}

struct Candidate {
    std::size_t gpu;
    bool plain = false;              // matched by a key that names no form factor
    std::vector<std::string> forms;  // forms of the keys that matched
};

std::string ids_of(const Catalog& catalog, const std::vector<Candidate>& cands) {
    std::vector<std::string> ids;
    ids.reserve(cands.size());
    for (const auto& c : cands) ids.emplace_back(catalog.gpus[c.gpu].id);
    return fmt::format("{}", fmt::join(ids, ", "));
}

struct Decision {
    bool found_name = false;  // some catalog entry shares the name
    std::string catalog_id;
    std::string note;
};

Decision decide(const LocalGpu& gpu, std::string_view name, const Catalog& catalog,
                const CatalogKeys& index) {
    Decision d;
    std::vector<NameKey> keys;
    for (const auto& v : name_variants(name)) {
        NameKey k = make_key(v);
        if (!k.core.empty()) keys.push_back(std::move(k));
    }
    std::vector<Candidate> cands;
    std::vector<std::string> unknown_variants;
    std::vector<std::string> reported_forms;
    std::optional<std::uint64_t> name_memory;
    for (const auto& key : keys) {
        bool any = false;
        for (std::size_t i = 0; i < index.per_gpu.size(); ++i)
            for (const auto& k : index.per_gpu[i]) {
                if (k.core != key.core) continue;
                any = true;
                auto it = std::find_if(cands.begin(), cands.end(),
                                       [&](const Candidate& c) { return c.gpu == i; });
                if (it == cands.end()) {
                    cands.push_back({i, false, {}});
                    it = cands.end() - 1;
                }
                if (k.forms.empty()) it->plain = true;
                it->forms.insert(it->forms.end(), k.forms.begin(), k.forms.end());
            }
        if (!any) unknown_variants.push_back(key.core);
        reported_forms.insert(reported_forms.end(), key.forms.begin(), key.forms.end());
        if (!name_memory) name_memory = key.memory;
    }
    if (cands.empty()) return d;
    d.found_name = true;

    // The form factor in the name ("SXM4", "PCIe") narrows the SKUs; NVIDIA
    // names its PCIe and NVL cards as such, so a name without one ("H100 80GB
    // HBM3", "H200") is the SXM part.
    std::string form_note;
    std::vector<Candidate> kept;
    if (!reported_forms.empty()) {
        for (const auto& c : cands)
            if (std::any_of(c.forms.begin(), c.forms.end(), [&](const std::string& f) {
                    return std::any_of(
                        reported_forms.begin(), reported_forms.end(),
                        [&](const std::string& r) { return forms_compatible(f, r); });
                }))
                kept.push_back(c);
    } else {
        for (const auto& c : cands)
            if (c.plain || std::any_of(c.forms.begin(), c.forms.end(), [](const std::string& f) {
                    return f != "pcie" && !starts_with(f, "nvl");
                }))
                kept.push_back(c);
        if (!kept.empty() && kept.size() < cands.size())
            form_note = "; no PCIe/NVL in the name, so the SXM part";
    }
    if (!kept.empty())
        cands = std::move(kept);
    else
        form_note.clear();

    const std::optional<std::uint64_t> measured = gpu.memory_bytes;
    const std::optional<std::uint64_t> target = measured ? measured : name_memory;
    std::string memory_note;
    if (target && cands.size() > 1) {
        const std::string before = ids_of(catalog, cands);
        double best = std::numeric_limits<double>::infinity();
        for (const auto& c : cands)
            best = std::min(best, relative_gap(*target, catalog.gpus[c.gpu].memory_bytes));
        if (best <= kMemoryTolerance) {
            std::vector<Candidate> closest;
            for (const auto& c : cands)
                if (relative_gap(*target, catalog.gpus[c.gpu].memory_bytes) <= best + 1e-9)
                    closest.push_back(c);
            if (closest.size() < cands.size())
                memory_note =
                    fmt::format("; {} of memory picked it among {}", format_gib(*target), before);
            cands = std::move(closest);
        } else if (measured) {
            d.note = fmt::format("{} has {} of memory, which fits none of {}", quote(name),
                                 format_gib(*measured), before);
            return d;
        }
    }
    if (cands.size() > 1) {
        d.note = fmt::format("ambiguous: {} could be {}{}", quote(name), ids_of(catalog, cands),
                             measured ? "" : " (no memory size to tell them apart)");
        return d;
    }
    const Gpu& match = catalog.gpus[cands.front().gpu];
    if (!unknown_variants.empty()) {
        d.note = fmt::format("ambiguous: {} could be {} or a card the catalog lacks", quote(name),
                             match.id);
        return d;
    }
    if (measured && relative_gap(*measured, match.memory_bytes) > kMemoryTolerance) {
        // The name says one size, the card another, the catalog a third: a SKU
        // the catalog does not have (a W7800 48GB is not the 32 GB W7800).
        if (name_memory && relative_gap(*name_memory, match.memory_bytes) > kMemoryTolerance) {
            d.note =
                fmt::format("{} ({}) is not a catalog SKU; the nearest, {}, has {}", quote(name),
                            format_gib(*measured), match.id, format_gib(match.memory_bytes));
            return d;
        }
        d.catalog_id = std::string(match.id);
        d.note = fmt::format(
            "matched by name, but it reports {} and the catalog {}; check the SKU (or a partition)",
            format_gib(*measured), format_gib(match.memory_bytes));
        return d;
    }
    d.catalog_id = std::string(match.id);
    d.note = "matched by name" + memory_note + form_note;
    return d;
}

}  // namespace

std::vector<const Gpu*> cards_with_pci_id(const Catalog& catalog, std::string_view vendor,
                                          std::string_view device, std::string_view revision) {
    const std::string v = hex_id(vendor), d = hex_id(device), r = hex_revision(revision);
    std::vector<const Gpu*> exact, any;
    if (v.empty() || d.empty()) return any;
    const std::string id = v + ":" + d;
    for (const Gpu& g : catalog.gpus)
        for (const std::string_view p : g.pci_ids) {
            if (p.substr(0, 9) != id) continue;
            if (p.size() == 9 || r.empty()) any.push_back(&g);
            if (p.size() == 9 || (!r.empty() && p.substr(10) == r)) exact.push_back(&g);
        }
    // A revision-specific entry (AMD) picks the SKU; without the revision
    // every card of the device id is a candidate.
    if (!r.empty()) return exact;
    for (const Gpu& g : catalog.gpus)
        for (const std::string_view p : g.pci_ids)
            if (p.substr(0, 9) == id && p.size() == 12 &&
                std::find(any.begin(), any.end(), &g) == any.end())
                any.push_back(&g);
    return any;
}

void match_to_catalog(std::vector<LocalGpu>& gpus, const Catalog& catalog) {
    const CatalogKeys index = index_catalog(catalog);
    for (auto& g : gpus) {
        g.catalog_id.clear();
        g.match_note.clear();
        g.pci_name.clear();
        if (!g.pci_id.empty()) {
            const auto cards = cards_with_pci_id(catalog, g.pci_id.substr(0, 4), g.pci_id.substr(5),
                                                 g.pci_revision);
            for (const Gpu* c : cards)
                g.pci_name += (g.pci_name.empty() ? "" : " / ") + std::string(c->name);
            if (cards.size() == 1 && g.name.empty()) {
                g.catalog_id = std::string(cards.front()->id);
                g.match_note = fmt::format("by PCI id {}", g.pci_id);
                g.name = fmt::format("{} {}", brand(cards.front()->vendor), cards.front()->name);
                continue;
            }
        }
        if (g.name.empty() && !g.pci_id.empty() && g.source == "sysfs") g.name = "PCI " + g.pci_id;
        Decision by_name;
        if (!g.name.empty()) by_name = decide(g, g.name, catalog, index);
        if (!by_name.catalog_id.empty() || (by_name.found_name && g.pci_name.empty())) {
            g.catalog_id = by_name.catalog_id;
            g.match_note = by_name.note;
            continue;
        }
        // The reported name can be a board code ("AMD INSTINCT MI200 (MCM) OAM
        // LC MBA HPE C2"); the PCI id then still names the card.
        if (!g.pci_name.empty() && g.pci_name != g.name) {
            Decision by_id = decide(g, g.pci_name, catalog, index);
            if (by_id.found_name) {
                g.catalog_id = by_id.catalog_id;
                g.match_note =
                    by_id.catalog_id.empty()
                        ? by_id.note
                        : fmt::format("by PCI id {} ({}); {}", g.pci_id, g.pci_name, by_id.note);
                continue;
            }
        }
        if (by_name.found_name) {
            g.match_note = by_name.note;
        } else if (g.name.empty()) {
            g.match_note = "the tool reported no name";
        } else {
            g.match_note =
                fmt::format("{} is not in the catalog (see 'gpuadvise gpus')", quote(g.name));
        }
    }
}

}  // namespace gpuadvise
