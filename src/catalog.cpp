#include "gpuadvise/catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <deque>
#include <tuple>
#include <unordered_map>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

// What the views of a parsed catalog point into.
struct Storage {
    std::string text;
    std::shared_ptr<const void> owner;  // or what owns the text it views
    std::string_view view;              // the text: `text`, or the owner's
    std::deque<std::string> strings;    // unescaped JSON strings, normalised names
    std::deque<std::vector<std::string_view>> lists;
};

constexpr double kMaxTflops = 1e6;

template <typename E, std::size_t N>
E enum_field(json::ObjectReader& r, std::string_view key, const EnumTable<E, N>& table) {
    const std::string_view v = r.str(key);
    for (const auto& row : table.rows())
        if (!row.hidden && row.name == v) return row.value;
    r.fail(key, fmt::format("{} is not one of: {}", quote(v),
                            fmt::format("{}", fmt::join(table.choices(), ", "))));
}

std::span<const std::string_view> list(json::ObjectReader& r, std::string_view key, Storage& s) {
    auto values = r.strings(key);
    if (values.empty()) return {};
    s.lists.push_back(std::move(values));
    return s.lists.back();
}

// Families with an FP8 tensor path (Ada, Hopper, Blackwell, CDNA3+, RDNA4,
// Gaudi 2/3) and those without BF16 (Volta, Turing): a figure the hardware
// cannot have is a data error.
bool has_fp8_path(std::string_view family) {
    static constexpr std::string_view kFamilies[] = {"ada",   "hopper", "blackwell", "cdna3",
                                                     "cdna4", "rdna4",  "gaudi2",    "gaudi3"};
    return std::find(std::begin(kFamilies), std::end(kFamilies), family) != std::end(kFamilies);
}

// "2025-03": a year and a month (the day is not kept).
bool is_year_month(std::string_view d) {
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    return d.size() == 7 && d[4] == '-' && std::all_of(d.begin(), d.begin() + 4, digit) &&
           digit(d[5]) && digit(d[6]) && (d[5] == '0' ? d[6] != '0' : d[5] == '1' && d[6] <= '2');
}

std::optional<Price> price_field(json::ObjectReader& r, std::string_view key) {
    if (!r.has(key)) return std::nullopt;
    json::Path path;
    json::ObjectReader p = r.child(key, path);
    Price price;
    price.usd = p.number("usd", 1, 1e8);
    price.kind = enum_field(p, "kind", kPriceKinds);
    price.date = p.str_or("date", "");
    if (!price.date.empty() && !is_year_month(price.date))
        p.fail("date",
               fmt::format("{} must be YYYY-MM (the month the price was seen)", quote(price.date)));
    price.source = p.str("source");
    p.finish();
    return price;
}

std::optional<UnifiedPool> unified_pool_field(json::ObjectReader& r, bool unified) {
    if (!r.has("unified_pool")) return std::nullopt;
    if (!unified) r.fail("unified_pool", "is given, but unified_memory is false (set it to null)");
    json::Path path;
    json::ObjectReader p = r.child("unified_pool", path);
    UnifiedPool pool;
    pool.default_share = p.number("default_share", 0.01, 1);
    pool.max_share = p.opt_number("max_share", 0.01, 1);
    if (pool.max_share && *pool.max_share < pool.default_share)
        p.fail("max_share",
               fmt::format("{} is below default_share {}", *pool.max_share, pool.default_share));
    pool.setting = p.str("setting");
    pool.source = p.str("source");
    p.finish();
    return pool;
}

std::optional<PowerRange> power_field(json::ObjectReader& r, std::optional<double> tdp) {
    if (!r.has("power")) return std::nullopt;
    json::Path path;
    json::ObjectReader p = r.child("power", path);
    PowerRange power;
    power.min_watts = p.number("min_watts", 1, 5000);
    power.max_watts = p.number("max_watts", 1, 5000);
    if (power.max_watts < power.min_watts)
        p.fail("max_watts",
               fmt::format("{} is below min_watts {}", power.max_watts, power.min_watts));
    power.tflops_at_watts = p.number("tflops_at_watts", 1, 5000);
    if (power.tflops_at_watts < power.min_watts || power.tflops_at_watts > power.max_watts)
        p.fail("tflops_at_watts",
               fmt::format("{} is outside the range {}-{} W", power.tflops_at_watts,
                           power.min_watts, power.max_watts));
    power.source = p.str("source");
    p.finish();
    if (tdp && *tdp != power.max_watts)
        r.fail("tdp_watts", fmt::format("{} must equal power.max_watts {} (the top of the range)",
                                        *tdp, power.max_watts));
    return power;
}

Gpu parse_gpu(json::Value value, const json::Path& path, std::string_view source, Storage& s) {
    json::ObjectReader r(value, source, &path);
    Gpu g;
    g.id = r.str("id");
    if (g.id.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ \t") != std::string_view::npos ||
        !valid_utf8(g.id) || sanitize(g.id) != g.id)
        r.fail("id", fmt::format("{} must be lowercase, without spaces or control characters",
                                 quote(g.id)));
    g.vendor = enum_field(r, "vendor", kVendors);
    g.name = r.str("name");
    g.aliases = list(r, "aliases", s);
    g.segment = enum_field(r, "segment", kSegments);
    g.architecture = r.str_or("architecture", "");
    g.arch_family = r.str("arch_family");
    g.launch_year = r.opt_integer("launch_year", 1990, 2100);
    g.memory_bytes =
        static_cast<std::uint64_t>(r.integer("memory_bytes", 1, std::int64_t{1} << 50));
    g.memory_type = r.str_or("memory_type", "");
    g.memory_bandwidth_gbps = r.number("memory_bandwidth_gbps", 1, 20000);
    g.unified_memory = r.opt_bool("unified_memory").value_or(false);
    g.unified_pool = unified_pool_field(r, g.unified_memory);
    if (g.vendor == Vendor::Apple && !g.unified_pool)
        r.fail("unified_pool",
               "is required for an Apple SoC (the share of memory macOS lets the "
               "GPU wire, and the setting that moves it)");
    g.ecc = r.opt_bool("ecc");
    if (r.has("tflops")) {
        json::Path p;
        json::ObjectReader t = r.child("tflops", p);
        // Zero is not a figure: a card without the path has null.
        g.tflops.fp32 = t.opt_number("fp32", 1e-3, kMaxTflops);
        g.tflops.tf32 = t.opt_number("tf32", 1e-3, kMaxTflops);
        g.tflops.fp16 = t.opt_number("fp16", 1e-3, kMaxTflops);
        g.tflops.bf16 = t.opt_number("bf16", 1e-3, kMaxTflops);
        g.tflops.fp8 = t.opt_number("fp8", 1e-3, kMaxTflops);
        g.tflops.fp4 = t.opt_number("fp4", 1e-3, kMaxTflops);
        g.tflops.int8 = t.opt_number("int8", 1e-3, kMaxTflops);
        t.finish();
        if (g.tflops.fp8 && !has_fp8_path(g.arch_family))
            t.fail("fp8",
                   fmt::format("is given, but {} has no FP8 path (set it to null)", g.arch_family));
        if (g.tflops.bf16 && (g.arch_family == "volta" || g.arch_family == "turing"))
            t.fail("bf16", fmt::format("is given, but {} has no BF16 tensor path (set it to null)",
                                       g.arch_family));
    }
    g.sparsity_multiplier = r.opt_number("sparsity_multiplier", 1, 4).value_or(1);
    g.tdp_watts = r.opt_number("tdp_watts", 1, 5000);
    g.power = power_field(r, g.tdp_watts);
    if (r.has("pcie")) {
        json::Path p;
        json::ObjectReader pcie = r.child("pcie", p);
        g.pcie_gen = pcie.opt_integer("gen", 1, 7);
        g.pcie_lanes = pcie.opt_integer("lanes", 1, 32);
        g.pcie_p2p = pcie.opt_bool("p2p");
        pcie.finish();
    }
    if (r.has("interconnect")) {
        json::Path p;
        json::ObjectReader ic = r.child("interconnect", p);
        g.link.type = enum_field(ic, "type", kLinkTypes);
        g.link.gbps = ic.opt_number("bandwidth_gbps", 1e-3, 100000);
        g.link.max_gpus = ic.opt_integer("max_gpus", 1, 100000).value_or(1);
        g.link.topology =
            ic.has("topology")
                ? enum_field(ic, "topology", kLinkTopologies)
                : (g.link.type == LinkType::None ? LinkTopology::None : LinkTopology::Bridge);
        ic.finish();
        if (g.link.type != LinkType::None && g.link.max_gpus < 2)
            ic.fail("max_gpus", "a GPU-to-GPU link joins at least 2 GPUs");
        if (g.link.type == LinkType::None && g.link.topology != LinkTopology::None)
            ic.fail("topology", "must be \"none\" when the type is \"none\"");
    }
    g.form = r.has("form") ? enum_field(r, "form", kFormFactors) : FormFactor::Card;
    // A laptop GPU's speed is the laptop maker's power setting: the range and
    // the power the figures are stated at are part of the entry.
    if (g.form == FormFactor::Laptop && !g.power)
        r.fail("power",
               "is required for a laptop GPU (its TGP range and the watts the TFLOPS "
               "are stated at)");
    g.cooling = r.has("cooling") ? enum_field(r, "cooling", kCoolings) : Cooling::Active;
    g.form_factor = r.str_or("form_factor", "");
    if (r.has("software")) {
        json::Path p;
        json::ObjectReader sw = r.child("software", p);
        g.platform = enum_field(sw, "platform", kPlatforms);
        g.compute_capability = sw.opt_str("compute_capability");
        g.gfx_target = sw.opt_str("gfx_target");
        g.min_stack = sw.opt_str("min_stack");
        sw.finish();
    } else {
        r.fail("software", "is required (the platform: cuda, rocm, oneapi, habana or metal)");
    }
    if (r.has("video")) {
        json::Path p;
        json::ObjectReader v = r.child("video", p);
        g.av1_encode = v.opt_bool("av1_encode");
        g.nvenc = v.opt_integer("nvenc", 0, 16);
        v.finish();
    }
    g.price = price_field(r, "price");
    g.launch_price = price_field(r, "launch_price");
    g.region = r.opt_str("region");
    g.cloud_only = r.opt_bool("cloud_only").value_or(false);
    g.pci_ids = list(r, "pci_ids", s);
    for (const std::string_view id : g.pci_ids) {
        const bool ok = (id.size() == 9 || id.size() == 12) && id[4] == ':' &&
                        (id.size() == 9 || id[9] == ':') &&
                        std::all_of(id.begin(), id.end(), [](char c) {
                            return c == ':' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                        });
        if (!ok)
            r.fail(
                "pci_ids",
                fmt::format("{} must be vendor:device or vendor:device:revision in lowercase hex",
                            quote(id)));
    }
    g.sources = list(r, "sources", s);
    if (g.sources.empty()) r.fail("sources", "must list at least one source for the figures");
    g.confidence =
        r.has("confidence") ? enum_field(r, "confidence", kConfidences) : Confidence::Medium;
    g.notes = r.str_or("notes", "");
    g.sm_count = r.opt_integer("sm_count", 1, 1000);
    r.finish();
    return g;
}

// Builds the sorted name index and rejects ids or aliases that two cards share.
// The names are sorted once with their place in the catalog, and equal keys
// then sit side by side: the first of each run is the one the index keeps,
// and the error is the one a walk in catalog order meets first (the earliest
// name whose key an earlier card already has). A 100,000-card catalog has
// 400,000 names: no hash table of them, and their normalised texts share one
// buffer.
std::vector<NameEntry> index_names(const std::vector<Gpu>& gpus, std::string_view source,
                                   Storage& s) {
    struct Name {
        std::uint64_t prefix;  // the key's first 8 bytes, big-endian: most compares end here
        std::string_view key;
        std::uint32_t gpu;
        std::uint32_t order;  // place in catalog order (id, then aliases, card by card)
    };
    std::size_t count = 0, bytes = 0;
    for (const Gpu& g : gpus) {
        count += 1 + g.aliases.size();
        bytes += g.id.size();
        for (const std::string_view a : g.aliases) bytes += a.size();
    }
    std::string& buffer = s.strings.emplace_back();
    buffer.reserve(bytes);  // normalize_name never lengthens: the views stay put
    std::vector<Name> all;
    all.reserve(count);
    const auto add = [&](std::string_view name, std::uint32_t i) {
        const std::size_t at = buffer.size();
        append_normalized_name(buffer, name);
        const std::string_view key(buffer.data() + at, buffer.size() - at);
        std::uint64_t prefix = 0;
        for (std::size_t k = 0; k < 8; ++k)
            prefix = (prefix << 8U) |
                     (k < key.size() ? static_cast<unsigned char>(key[k]) : std::uint64_t{0});
        all.push_back({prefix, key, i, static_cast<std::uint32_t>(all.size())});
    };
    for (std::uint32_t i = 0; i < gpus.size(); ++i) {
        add(gpus[i].id, i);
        for (const std::string_view a : gpus[i].aliases) add(a, i);
    }
    std::sort(all.begin(), all.end(), [](const Name& a, const Name& b) {
        if (a.prefix != b.prefix) return a.prefix < b.prefix;
        const int c = a.key.compare(b.key);
        return c != 0 ? c < 0 : a.order < b.order;
    });
    const Name* clash = nullptr;  // the first name, in catalog order, whose key is taken
    std::vector<NameEntry> names;
    names.reserve(all.size());
    for (std::size_t k = 0; k < all.size();) {
        std::size_t end = k + 1;
        while (end < all.size() && all[end].key == all[k].key) {
            if (all[end].gpu != all[k].gpu && (clash == nullptr || all[end].order < clash->order))
                clash = &all[end];
            ++end;
        }
        names.push_back({all[k].key, all[k].gpu});
        k = end;
    }
    if (clash != nullptr) {
        // The card that took the key first, and whether the clash is an id.
        const std::uint32_t i = clash->gpu;
        std::uint32_t first = i;
        for (const Name& n : all)
            if (n.key == clash->key) {
                first = n.gpu;
                break;
            }
        std::uint32_t order = 0;
        for (std::uint32_t g = 0; g < i; ++g)
            order += 1 + static_cast<std::uint32_t>(gpus[g].aliases.size());
        const bool is_id = clash->order == order;
        const std::string_view name =
            is_id ? gpus[i].id : gpus[i].aliases[clash->order - order - 1];
        if (is_id && gpus[first].id == gpus[i].id)
            throw InputError(fmt::format("{}: /gpus/{}/id: {} appears twice; ids must be unique",
                                         source, i, quote(name)));
        throw InputError(
            fmt::format("{}: /gpus/{}: {} is already used by {}; ids and aliases must be unique",
                        source, i, quote(name), quote(gpus[first].id)));
    }
    return names;
}

Catalog catalog_from_text(std::shared_ptr<Storage> storage, std::string_view source) {
    Catalog c;
    c.source = std::string(source);
    const std::string_view text = storage->view;
    // Room for the cards a file of this size holds (a card is 2 to 3 KB of
    // JSON, data/gpus.json's 2.7 KB): a 100,000-card file then fills the
    // vector without its 17 doublings, which touch twice its memory and
    // copy every card. Capacity not used is address space, not memory.
    c.gpus.reserve(text.size() / 2048);
    json::Stream stream{"gpus", [&](json::Value element, std::size_t index) {
                            const json::Path root;
                            const json::Path list{&root, "gpus"};
                            const json::Path path{&list, {}, index, true};
                            c.gpus.push_back(parse_gpu(element, path, source, *storage));
                        }};
    json::Document doc = json::Document::parse(text, source, "a JSON catalog", {}, &stream);
    const json::Value root = doc.root();
    if (!root.is_object())
        throw InputError(fmt::format("{}: expected an object with a \"gpus\" array", source));
    json::ObjectReader r(root, source);
    if (r.has("schema") && r.integer("schema", 1, 1) != 1) r.fail("schema", "must be 1");
    c.date = r.str_or("catalog_date", "");
    r.str_or("attribution", "");
    const auto list = r.get("gpus");
    if (!list) r.fail("gpus", "is required (an array of GPU objects)");
    if (!list->is_array()) r.fail("gpus", "must be an array");
    r.finish();
    storage->strings = std::move(doc).take_strings();
    c.names = index_names(c.gpus, source, *storage);
    c.storage = std::move(storage);
    return c;
}

// RFC 7386 merge patch of two JSON values, written as JSON text.
void merge_patch(json::Writer& w, const json::Value& base, const json::Value& patch) {
    if (!patch.is_object() || !base.is_object()) {
        w.raw(patch.dump(std::string::npos));
        return;
    }
    w.begin_object();
    for (const json::Value b : base.items()) {
        const auto p = patch.find(b.key());
        if (p && p->is_null()) continue;
        w.key(b.key());
        if (p)
            merge_patch(w, b, *p);
        else
            w.raw(b.dump(std::string::npos));
    }
    for (const json::Value p : patch.items()) {
        if (p.is_null() || base.find(p.key())) continue;
        w.key(p.key());
        w.raw(p.dump(std::string::npos));
    }
    w.end_object();
}

}  // namespace

std::optional<double> Gpu::pcie_gbps() const {
    if (!pcie_gen || !pcie_lanes) return std::nullopt;
    // Per-lane, per-direction payload rate after line encoding.
    static constexpr double kPerLane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563, 15.125};
    return kPerLane[std::clamp<std::int64_t>(*pcie_gen, 0, 7)] * static_cast<double>(*pcie_lanes);
}

std::optional<double> Gpu::link_gbps_per_direction() const {
    if (!has_fast_link() || !link.gbps) return std::nullopt;
    return *link.gbps / 2.0;
}

Catalog parse_catalog(std::string_view text, std::string_view source) {
    return parse_catalog_kept(std::string(text), source);
}

Catalog parse_catalog_kept(std::string&& text, std::string_view source) {
    auto storage = std::make_shared<Storage>();
    storage->text = std::move(text);
    storage->view = storage->text;
    return catalog_from_text(std::move(storage), source);
}

Catalog parse_catalog_kept(std::shared_ptr<const void> owner, std::string_view text,
                           std::string_view source) {
    auto storage = std::make_shared<Storage>();
    storage->owner = std::move(owner);
    storage->view = text;
    return catalog_from_text(std::move(storage), source);
}

Catalog merge_catalogs(std::string_view base_text, std::string_view base_source,
                       std::string_view overlay_text, std::string_view overlay_source) {
    const Catalog base_catalog = parse_catalog(base_text, base_source);
    const json::Document base = json::Document::parse(base_text, base_source, "a JSON catalog");
    const json::Document overlay =
        json::Document::parse(overlay_text, overlay_source, "a JSON catalog overlay");
    if (!overlay.root().is_object() || !overlay.root().find("gpus") ||
        !overlay.root().find("gpus")->is_array())
        throw InputError(
            fmt::format("{}: expected an object with a \"gpus\" array", overlay_source));
    const json::Value base_gpus = *base.root().find("gpus");
    const json::Value overlay_gpus = *overlay.root().find("gpus");
    std::unordered_map<std::string_view, json::Value> patches;
    std::vector<json::Value> added;
    std::size_t index = 0;
    for (const json::Value entry : overlay_gpus.items()) {
        const auto id = entry.is_object() ? entry.find("id") : std::nullopt;
        if (!id || !id->is_string())
            throw InputError(fmt::format(
                "{}: /gpus/{}/id: is required (a string naming the card to change or add)",
                overlay_source, index));
        const bool known = std::any_of(base_catalog.gpus.begin(), base_catalog.gpus.end(),
                                       [&](const Gpu& g) { return g.id == id->text(); });
        if (known) {
            if (!patches.emplace(id->text(), entry).second)
                throw InputError(
                    fmt::format("{}: /gpus/{}/id: {} is changed twice; merge the two entries",
                                overlay_source, index, quote(id->text())));
        } else {
            // A new card: it must be complete, and a near miss is more likely a typo.
            if (!entry.find("vendor") || !entry.find("memory_bytes")) {
                std::vector<std::string> ids;
                for (const Gpu& g : base_catalog.gpus) ids.emplace_back(g.id);
                const auto near = closest_name(id->text(), ids);
                throw InputError(fmt::format(
                    "{}: /gpus/{}: no card of the base catalog has the id {}{}; an entry with a "
                    "new id adds a card and "
                    "needs every required field (vendor, name, segment, arch_family, memory_bytes, "
                    "memory_bandwidth_gbps, software, sources)",
                    overlay_source, index, quote(id->text()),
                    near ? fmt::format(" (did you mean {}?)", quote(*near)) : ""));
            }
            added.push_back(entry);
        }
        ++index;
    }
    std::string merged;
    json::Writer w(merged, false);
    w.begin_object();
    for (const json::Value m : base.root().items()) {
        if (m.key() == "gpus") continue;
        w.key(m.key());
        w.raw(m.dump(std::string::npos));
    }
    w.key("gpus").begin_array();
    for (const json::Value g : base_gpus.items()) {
        const auto id = g.find("id");
        const auto it = id ? patches.find(id->text()) : patches.end();
        if (it == patches.end())
            w.raw(g.dump(std::string::npos));
        else
            merge_patch(w, g, it->second);
    }
    for (const json::Value g : added) w.raw(g.dump(std::string::npos));
    w.end_array().end_object();
    return parse_catalog(merged, fmt::format("{} + {}", base_source, overlay_source));
}

void set_price(Catalog& catalog, std::string_view gpu_name, double usd, std::string_view label) {
    const Gpu& found = resolve_gpu(catalog, gpu_name, label);
    catalog.added->emplace_back(label);
    label = catalog.added->back();
    for (Gpu& g : catalog.gpus)
        if (g.id == found.id) {
            if (g.price && !g.launch_price) g.launch_price = g.price;
            g.price = Price{usd, PriceKind::Street, "", label};
        }
}
}  // namespace gpuadvise
