#include "gpuadvise/catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <nlohmann/json.hpp>
#include <set>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json_input.hpp"
#include "gpuadvise/names.hpp"

namespace gpuadvise {
namespace {

using nlohmann::json;

// Reads one JSON object with typed getters that know their JSON path, and
// rejects keys nobody read (a misspelt "memory_bandwith_gbps" must not be
// silently ignored).
class Reader {
public:
    Reader(const json& j, std::string path, std::string_view source) : j_(j), path_(std::move(path)), source_(source) {
        if (!j_.is_object()) fail("", "must be an object");
    }

    [[noreturn]] void fail(std::string_view key, std::string_view what) const {
        throw InputError(fmt::format("{}: {}{}{}: {}", source_, path_, key.empty() ? "" : "/", key, what));
    }

    const json* get(const char* key) {
        known_.insert(key);
        const auto it = j_.find(key);
        return it == j_.end() || it->is_null() ? nullptr : &*it;
    }
    const json& required(const char* key) {
        const json* v = get(key);
        if (!v) fail(key, "is required");
        return *v;
    }
    std::string str(const char* key) {
        const json& v = required(key);
        if (!v.is_string() || v.get<std::string>().empty()) fail(key, fmt::format("must be a non-empty string (got {})", v.dump()));
        return v.get<std::string>();
    }
    std::string str_or(const char* key, const std::string& fallback) { return get(key) ? str(key) : fallback; }
    std::optional<std::string> opt_str(const char* key) {
        if (!get(key)) return std::nullopt;
        return str(key);
    }
    double number(const char* key, double min, double max) {
        const json& v = required(key);
        if (!v.is_number()) fail(key, fmt::format("must be a number (got {})", v.dump()));
        const double d = v.get<double>();
        if (!std::isfinite(d) || d < min || d > max)
            fail(key, fmt::format("{} is out of range [{}, {}]", v.dump(), min, max));
        return d;
    }
    std::optional<double> opt_number(const char* key, double min, double max) {
        if (!get(key)) return std::nullopt;
        return number(key, min, max);
    }
    std::int64_t integer(const char* key, std::int64_t min, std::int64_t max) {
        const json& v = required(key);
        if (!v.is_number_integer()) fail(key, fmt::format("must be an integer (got {})", v.dump()));
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
            fail(key, fmt::format("{} is out of range [{}, {}]", v.dump(), min, max));
        const std::int64_t i = v.get<std::int64_t>();
        if (i < min || i > max) fail(key, fmt::format("{} is out of range [{}, {}]", v.dump(), min, max));
        return i;
    }
    std::optional<std::int64_t> opt_integer(const char* key, std::int64_t min, std::int64_t max) {
        if (!get(key)) return std::nullopt;
        return integer(key, min, max);
    }
    std::optional<bool> opt_bool(const char* key) {
        const json* v = get(key);
        if (!v) return std::nullopt;
        if (!v->is_boolean()) fail(key, fmt::format("must be true, false or null (got {})", v->dump()));
        return v->get<bool>();
    }
    std::vector<std::string> strings(const char* key) {
        std::vector<std::string> out;
        const json* v = get(key);
        if (!v) return out;
        if (!v->is_array()) fail(key, "must be an array of strings");
        for (std::size_t i = 0; i < v->size(); ++i) {
            if (!(*v)[i].is_string()) fail(fmt::format("{}/{}", key, i), "must be a string");
            out.push_back((*v)[i].get<std::string>());
        }
        return out;
    }
    Reader child(const char* key) {
        const json& v = required(key);
        return Reader(v, fmt::format("{}/{}", path_, key), source_);
    }
    bool has(const char* key) {
        known_.insert(key);
        const auto it = j_.find(key);
        return it != j_.end() && !it->is_null();
    }
    // Every key of the object must have been read.
    void finish() const {
        for (const auto& item : j_.items())
            if (!known_.count(item.key()))
                fail(item.key(), "is not a catalog field; check the spelling (see docs/catalog.md)");
    }
    const std::string& path() const { return path_; }

private:
    const json& j_;
    std::string path_;
    std::string_view source_;
    std::set<std::string> known_;
};

std::string one_of(Reader& r, const char* key, std::initializer_list<const char*> allowed) {
    std::string v = r.str(key);
    for (const char* a : allowed)
        if (v == a) return v;
    std::vector<std::string> list(allowed.begin(), allowed.end());
    r.fail(key, fmt::format("'{}' is not one of: {}", v, fmt::join(list, ", ")));
}

constexpr double kMaxTflops = 1e6;

Gpu parse_gpu(const json& j, std::string path, std::string_view source) {
    Reader r(j, std::move(path), source);
    Gpu g;
    g.id = r.str("id");
    if (g.id != normalize_name(g.id) && g.id.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ ") != std::string::npos)
        r.fail("id", fmt::format("'{}' must be lowercase without spaces", g.id));
    g.vendor = one_of(r, "vendor", {"nvidia", "amd", "intel", "apple"});
    g.name = r.str("name");
    g.aliases = r.strings("aliases");
    g.segment = one_of(r, "segment", {"consumer", "workstation", "datacenter"});
    g.architecture = r.str_or("architecture", "");
    g.arch_family = r.str("arch_family");
    g.launch_year = r.opt_integer("launch_year", 1990, 2100);
    g.memory_bytes = static_cast<std::uint64_t>(r.integer("memory_bytes", 1, std::int64_t{1} << 50));
    g.memory_type = r.str_or("memory_type", "");
    g.memory_bandwidth_gbps = r.number("memory_bandwidth_gbps", 1, 20000);
    g.unified_memory = r.opt_bool("unified_memory").value_or(false);
    g.ecc = r.opt_bool("ecc");
    if (r.has("tflops")) {
        Reader t = r.child("tflops");
        g.tflops.fp32 = t.opt_number("fp32", 0, kMaxTflops);
        g.tflops.tf32 = t.opt_number("tf32", 0, kMaxTflops);
        g.tflops.fp16 = t.opt_number("fp16", 0, kMaxTflops);
        g.tflops.bf16 = t.opt_number("bf16", 0, kMaxTflops);
        g.tflops.fp8 = t.opt_number("fp8", 0, kMaxTflops);
        g.tflops.int8 = t.opt_number("int8", 0, kMaxTflops);
        t.finish();
        static const std::set<std::string> fp8_families{"ada",   "hopper", "blackwell", "cdna3",
                                                        "cdna4", "rdna4",  "gaudi2",    "gaudi3"};
        if (g.tflops.fp8 && !fp8_families.count(g.arch_family))
            t.fail("fp8", fmt::format("is given, but {} has no FP8 path (set it to null)", g.arch_family));
        if (g.tflops.bf16 && (g.arch_family == "volta" || g.arch_family == "turing"))
            t.fail("bf16", fmt::format("is given, but {} has no BF16 tensor path (set it to null)", g.arch_family));
    }
    g.sparsity_multiplier = r.opt_number("sparsity_multiplier", 1, 4).value_or(1);
    g.tdp_watts = r.opt_number("tdp_watts", 1, 5000);
    if (r.has("pcie")) {
        Reader p = r.child("pcie");
        g.pcie_gen = p.opt_integer("gen", 1, 7);
        g.pcie_lanes = p.opt_integer("lanes", 1, 32);
        p.finish();
    }
    if (r.has("interconnect")) {
        Reader ic = r.child("interconnect");
        g.interconnect_type = one_of(ic, "type", {"nvlink", "infinity-fabric", "xe-link", "ethernet", "none"});
        g.interconnect_gbps = ic.opt_number("bandwidth_gbps", 0, 100000);
        g.interconnect_max_gpus = ic.opt_integer("max_gpus", 1, 100000).value_or(1);
        ic.finish();
    }
    g.form_factor = r.str_or("form_factor", "");
    if (r.has("software")) {
        Reader s = r.child("software");
        g.software_platform = one_of(s, "platform", {"cuda", "rocm", "oneapi", "habana", "metal"});
        g.compute_capability = s.opt_str("compute_capability");
        g.gfx_target = s.opt_str("gfx_target");
        g.min_stack = s.opt_str("min_stack");
        s.finish();
    }
    if (r.has("video")) {
        Reader v = r.child("video");
        g.av1_encode = v.opt_bool("av1_encode");
        g.nvenc = v.opt_integer("nvenc", 0, 16);
        v.finish();
    }
    if (r.has("price")) {
        Reader p = r.child("price");
        Price price;
        price.usd = p.number("usd", 1, 1e8);
        price.kind = one_of(p, "kind", {"msrp", "street-estimate"});
        price.date = p.str_or("date", "");
        price.source = p.str("source");
        p.finish();
        g.price = price;
    }
    g.sources = r.strings("sources");
    if (g.sources.empty()) r.fail("sources", "must list at least one source for the figures");
    g.confidence = r.has("confidence") ? one_of(r, "confidence", {"high", "medium", "low"}) : "medium";
    g.notes = r.str_or("notes", "");
    if (r.has("notes") && !r.get("notes")->is_string()) r.fail("notes", "must be a string");
    r.finish();
    return g;
}

json parse_json(std::string_view text, std::string_view source) { return parse_json_input(text, source, "a JSON catalog"); }

Catalog catalog_from_json(const json& root, std::string_view source) {
    if (!root.is_object()) throw InputError(fmt::format("{}: expected an object with a 'gpus' array", source));
    Reader r(root, "", source);
    if (r.has("schema") && r.integer("schema", 1, 1) != 1) r.fail("schema", "must be 1");
    Catalog c;
    c.source = std::string(source);
    c.date = r.str_or("catalog_date", "");
    r.str_or("attribution", "");
    const json& list = r.required("gpus");
    if (!list.is_array()) r.fail("gpus", "must be an array");
    r.finish();
    std::unordered_map<std::string, std::string> names;  // normalised id/alias -> id
    std::unordered_set<std::string> ids;
    c.gpus.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string path = fmt::format("/gpus/{}", i);
        Gpu g = parse_gpu(list[i], path, source);
        if (!ids.insert(g.id).second)
            throw InputError(fmt::format("{}: {}/id: '{}' appears twice; ids must be unique", source, path, g.id));
        std::vector<std::string> keys{g.id};
        keys.insert(keys.end(), g.aliases.begin(), g.aliases.end());
        for (const auto& key : keys) {
            const auto [it, inserted] = names.emplace(normalize_name(key), g.id);
            if (!inserted && it->second != g.id)
                throw InputError(fmt::format("{}: {}: '{}' is already used by '{}'; ids and aliases must be unique",
                                             source, path, key, it->second));
        }
        c.gpus.push_back(std::move(g));
    }
    return c;
}

}  // namespace

std::optional<double> Gpu::pcie_gbps() const {
    if (!pcie_gen || !pcie_lanes) return std::nullopt;
    // Per-lane, per-direction payload rate after line encoding.
    static constexpr double kPerLane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563, 15.125};
    return kPerLane[std::clamp<std::int64_t>(*pcie_gen, 0, 7)] * static_cast<double>(*pcie_lanes);
}

Catalog parse_catalog(std::string_view text, std::string_view source) {
    return catalog_from_json(parse_json(text, source), source);
}

Catalog merge_catalogs(std::string_view base_text, std::string_view base_source, std::string_view overlay_text,
                       std::string_view overlay_source) {
    json base = parse_json(base_text, base_source);
    const json overlay = parse_json(overlay_text, overlay_source);
    if (!overlay.is_object() || !overlay.contains("gpus") || !overlay["gpus"].is_array())
        throw InputError(fmt::format("{}: expected an object with a 'gpus' array", overlay_source));
    json& gpus = base["gpus"];
    if (!gpus.is_array()) throw InputError(fmt::format("{}: /gpus: must be an array", base_source));
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < gpus.size(); ++i)
        if (gpus[i].is_object() && gpus[i].contains("id") && gpus[i]["id"].is_string())
            index.emplace(gpus[i]["id"].get<std::string>(), i);
    for (std::size_t i = 0; i < overlay["gpus"].size(); ++i) {
        const json& entry = overlay["gpus"][i];
        if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_string())
            throw InputError(fmt::format("{}: /gpus/{}/id: is required (a string)", overlay_source, i));
        const auto it = index.find(entry["id"].get<std::string>());
        if (it == index.end()) {
            index.emplace(entry["id"].get<std::string>(), gpus.size());
            gpus.push_back(entry);
        } else {
            gpus[it->second].merge_patch(entry);
        }
    }
    return catalog_from_json(base, fmt::format("{} + {}", base_source, overlay_source));
}

const Gpu& resolve_gpu(const Catalog& catalog, std::string_view name) {
    const std::string key = normalize_name(name);
    if (key.empty()) throw InputError("--gpu needs a name, like rtx-4090 or h100-sxm5 ('gpuadvise gpus' lists them)");
    static constexpr std::string_view kVendorWords[] = {"nvidia", "amd", "intel", "apple", "geforce", "radeon"};
    const auto strip = [](std::string k) {
        for (bool changed = true; changed;) {
            changed = false;
            for (auto w : kVendorWords)
                if (k.rfind(w, 0) == 0 && k.size() > w.size()) {
                    k.erase(0, w.size());
                    changed = true;
                }
        }
        return k;
    };
    const std::string bare = strip(key);
    std::vector<const Gpu*> exact, partial;
    for (const auto& g : catalog.gpus) {
        std::vector<std::string> keys{normalize_name(g.id), normalize_name(g.name)};
        for (const auto& a : g.aliases) keys.push_back(normalize_name(a));
        bool is_exact = false, is_partial = false;
        for (const auto& k : keys) {
            if (k == key || strip(k) == bare) is_exact = true;
            else if (strip(k).find(bare) != std::string::npos) is_partial = true;
        }
        if (is_exact) exact.push_back(&g);
        else if (is_partial) partial.push_back(&g);
    }
    const auto& hits = exact.empty() ? partial : exact;
    if (hits.size() == 1) return *hits.front();
    if (hits.size() > 1) {
        std::vector<std::string> ids;
        for (const Gpu* g : hits) ids.push_back(g->id);
        if (ids.size() > 8) {
            ids.resize(8);
            ids.emplace_back("...");
        }
        throw InputError(fmt::format("GPU '{}' is ambiguous; did you mean one of: {}?", name, fmt::join(ids, ", ")));
    }
    std::vector<std::string> candidates;
    for (const auto& g : catalog.gpus) {
        candidates.push_back(g.id);
        for (const auto& a : g.aliases) candidates.push_back(a);
    }
    if (auto near = closest_name(name, candidates)) {
        for (const auto& g : catalog.gpus)
            if (g.id == *near || std::find(g.aliases.begin(), g.aliases.end(), *near) != g.aliases.end())
                throw InputError(fmt::format("unknown GPU '{}'; did you mean '{}'?", name, g.id));
    }
    throw InputError(fmt::format("unknown GPU '{}'; 'gpuadvise gpus' lists the catalog", name));
}

}  // namespace gpuadvise
