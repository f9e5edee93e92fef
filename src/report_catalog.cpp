// The catalog, the presets and the rules as tables (gpus, gpus show, models,
// rules) and as JSON (schema 1), from the same values.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cmath>

#include "gpuadvise/build_sheet.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

double gib(std::uint64_t b) {
    return static_cast<double>(b) / static_cast<double>(kGiB);
}

// A number or "" (unknown: "-" for people, an empty CSV cell).
template <typename T>
std::string or_unknown(const std::optional<T>& v, const char* pattern) {
    return v ? fmt::format(fmt::runtime(pattern), *v) : "";
}

// How the catalog's tables narrow on a terminal (table.hpp), first step first.
constexpr NarrowStep kGpusNarrowing[] = {{"Name", Narrow::Cut, 12}, {"Name"}, {"Link"}, {"TDP"},
                                         {"BF16 TFLOPS"},           {"Kind"}, {"Price"}};
constexpr NarrowStep kGpuDetailNarrowing[] = {{"Value", Narrow::Cut, 12}};
constexpr NarrowStep kModelsNarrowing[] = {
    {"Name", Narrow::Cut, 12}, {"Name"}, {"Shape"}, {"Active"}};
constexpr NarrowStep kRulesNarrowing[] = {{"What it checks", Narrow::Cut, 12}};

void string_views(json::Writer& w, std::string_view key, std::span<const std::string_view> list) {
    w.key(key).begin_array();
    for (const auto s : list) w.value(s);
    w.end_array();
}

}  // namespace

void write_gpu(json::Writer& j, const Gpu& g) {
    j.begin_object();
    j.field("id", g.id);
    j.field("vendor", to_string(g.vendor));
    j.field("name", g.name);
    string_views(j, "aliases", g.aliases);
    j.field("segment", to_string(g.segment));
    j.field("architecture", g.architecture);
    j.field("arch_family", g.arch_family);
    j.field("launch_year", g.launch_year);
    j.field("memory_bytes", g.memory_bytes);
    j.field("memory_type", g.memory_type);
    j.field("memory_bandwidth_gbps", g.memory_bandwidth_gbps);
    j.field("unified_memory", g.unified_memory);
    j.key("unified_pool");
    if (g.unified_pool)
        j.begin_object()
            .field("default_share", g.unified_pool->default_share)
            .field("max_share", g.unified_pool->max_share)
            .field("setting", g.unified_pool->setting)
            .field("source", g.unified_pool->source)
            .end_object();
    else
        j.null();
    j.field("ecc", g.ecc);
    const Tflops& t = g.tflops;
    j.key("tflops").begin_object();
    j.field("fp32", t.fp32)
        .field("tf32", t.tf32)
        .field("fp16", t.fp16)
        .field("bf16", t.bf16)
        .field("fp8", t.fp8);
    j.field("fp4", t.fp4).field("int8", t.int8);
    j.end_object();
    j.field("sparsity_multiplier", g.sparsity_multiplier);
    j.field("tdp_watts", g.tdp_watts);
    j.key("power");
    if (g.power)
        j.begin_object()
            .field("min_watts", g.power->min_watts)
            .field("max_watts", g.power->max_watts)
            .field("tflops_at_watts", g.power->tflops_at_watts)
            .field("source", g.power->source)
            .end_object();
    else
        j.null();
    j.key("pcie")
        .begin_object()
        .field("gen", g.pcie_gen)
        .field("lanes", g.pcie_lanes)
        .field("p2p", g.pcie_p2p)
        .end_object();
    j.key("interconnect").begin_object();
    j.field("type", to_string(g.link.type));
    j.field("bandwidth_gbps", g.link.gbps);
    j.field("max_gpus", g.link.max_gpus);
    j.field("topology", to_string(g.link.topology));
    j.end_object();
    j.field("form", to_string(g.form));
    j.field("cooling", kCoolings.name(g.cooling));
    j.field("form_factor", g.form_factor);
    j.key("software").begin_object();
    j.field("platform", to_string(g.platform));
    j.field("compute_capability", g.compute_capability);
    j.field("gfx_target", g.gfx_target);
    j.field("min_stack", g.min_stack);
    j.end_object();
    j.key("video")
        .begin_object()
        .field("av1_encode", g.av1_encode)
        .field("nvenc", g.nvenc)
        .end_object();
    const auto price = [&](std::string_view key, const std::optional<Price>& p) {
        j.key(key);
        if (!p) {
            j.null();
            return;
        }
        j.begin_object()
            .field("usd", p->usd)
            .field("kind", to_string(p->kind))
            .field("date", p->date);
        j.field("source", p->source).end_object();
    };
    price("price", g.price);
    price("launch_price", g.launch_price);
    j.field("region", g.region);
    j.field("cloud_only", g.cloud_only);
    string_views(j, "pci_ids", g.pci_ids);
    string_views(j, "sources", g.sources);
    j.field("confidence", to_string(g.confidence));
    j.field("notes", g.notes);
    j.end_object();
}
std::string gpus_json(const Catalog& catalog, const std::vector<const Gpu*>& gpus) {
    std::string out;
    json::Writer j(out);
    j.begin_object()
        .field("schema", kSchemaVersion)
        .field("catalog_date", catalog.date)
        .key("gpus")
        .begin_array();
    for (const Gpu* g : gpus) write_gpu(j, *g);
    j.end_array().end_object();
    return out;
}
std::string gpu_show_json(const Gpu& g) {
    std::string out;
    json::Writer j(out);
    j.begin_object().field("schema", kSchemaVersion).key("gpu");
    write_gpu(j, g);
    j.end_object();
    return out;
}
std::string models_json(const std::vector<ModelPreset>& presets) {
    std::string out;
    json::Writer j(out);
    j.begin_object().field("schema", kSchemaVersion).key("models").begin_array();
    for (const auto& p : presets) {
        const ParamCounts c = count_params(p.arch);
        const std::uint64_t total = p.image ? p.image->params : c.total();
        j.begin_object();
        j.field("id", p.id).field("name", p.name).field("hf_repo", p.hf_repo);
        j.field("kind", p.image ? kImageFamilies.name(p.image->family) : "language");
        if (!p.image) j.field("task", to_string(p.arch.task));
        j.field("params", total)
            .field("active_params", p.image ? p.image->active_params() : c.active())
            .field("published_params", p.published_params);
        j.field("source", p.source);
        j.end_object();
    }
    j.end_array().end_object();
    return out;
}
std::string rules_json() {
    std::string out;
    json::Writer j(out);
    j.begin_object().field("schema", kSchemaVersion).key("rules").begin_array();
    for (const Rule& r : rule_registry()) {
        j.begin_object()
            .field("id", r.id)
            .field("kind", to_string(r.kind))
            .field("description", r.description);
        j.key("thresholds").begin_array();
        for (const Threshold& t : rule_data(r.id).thresholds)
            j.begin_object()
                .field("name", t.name)
                .field("value", t.value)
                .field("source", t.source)
                .end_object();
        j.end_array();
        j.end_object();
    }
    j.end_array().end_object();
    return out;
}

Table gpus_table(const std::vector<const Gpu*>& gpus) {
    Table t;
    t.columns = {{"ID"},
                 {"Name"},
                 {"Memory", true, "GiB"},
                 {"Bandwidth", true, "GB/s"},
                 {"BF16 TFLOPS", true},
                 {"TDP", true, "W"},
                 {"Link"},
                 {"Price", true, "USD"},
                 {"Kind"}};  // the price's kind: msrp, street, used, list, street-estimate
    t.narrowing = kGpusNarrowing;
    for (const Gpu* g : gpus)
        t.rows.push_back(
            {std::string(g->id), std::string(g->name), fmt::format("{:.0f}", gib(g->memory_bytes)),
             fmt::format("{:.0f}", g->memory_bandwidth_gbps), or_unknown(g->tflops.bf16, "{:.1f}"),
             or_unknown(g->tdp_watts, "{:.0f}"),
             g->has_fast_link() ? std::string(to_string(g->link.type)) : std::string("PCIe"),
             g->price ? fmt::format("{:.0f}", g->price->usd) : "",
             g->price ? std::string(to_string(g->price->kind)) : ""});
    return t;
}
Table gpu_detail_table(const Gpu& g) {
    Table t;
    t.columns = {{"Field"}, {"Value"}};
    t.narrowing = kGpuDetailNarrowing;
    const auto num = [](const std::optional<double>& v, std::string_view unit) {
        return v ? fmt::format("{:g} {}", *v, unit) : std::string("unknown (null in the catalog)");
    };
    const auto add = [&](const char* f, std::string_view v) {
        t.rows.push_back({f, std::string(v)});
    };
    add("id", g.id);
    add("name", g.name);
    add("vendor", to_string(g.vendor));
    add("aliases", fmt::format("{}", fmt::join(g.aliases, ", ")));
    add("segment", to_string(g.segment));
    add("architecture", fmt::format("{} [{}]", g.architecture, g.arch_family));
    add("launch year", g.launch_year ? std::to_string(*g.launch_year) : "unknown");
    add("memory", fmt::format("{:.0f} GiB {}{}", gib(g.memory_bytes), g.memory_type,
                              g.unified_memory ? " (unified)" : ""));
    // A unified pool's GPU share: what a model can use by default, how far the
    // setting moves it, and the setting (docs/catalog.md, "Unified memory").
    if (g.unified_pool) {
        const UnifiedPool& u = *g.unified_pool;
        const double total = gib(g.memory_bytes);
        const std::string most = u.max_share
                                     ? fmt::format(", up to {:.0f} GiB ({:.0f} %)",
                                                   total * *u.max_share, 100.0 * *u.max_share)
                                     : std::string();
        add("GPU share",
            fmt::format("{:.0f} GiB by default ({:.0f} %){}; {}", total * u.default_share,
                        100.0 * u.default_share, most, u.setting));
    }
    add("bandwidth", fmt::format("{:g} GB/s", g.memory_bandwidth_gbps));
    add("ECC", g.ecc ? (*g.ecc ? "yes" : "no") : "unknown");
    add("fp32 (vector)", num(g.tflops.fp32, "TFLOPS"));
    add("tf32 dense", num(g.tflops.tf32, "TFLOPS"));
    add("fp16 dense", num(g.tflops.fp16, "TFLOPS"));
    add("bf16 dense", num(g.tflops.bf16, "TFLOPS"));
    add("fp8 dense", num(g.tflops.fp8, "TFLOPS"));
    add("int8 dense", num(g.tflops.int8, "TOPS"));
    add("TDP", num(g.tdp_watts, "W"));
    add("PCIe",
        g.pcie_gen
            ? fmt::format("gen {} x{}{}", *g.pcie_gen, g.pcie_lanes.value_or(0),
                          g.pcie_p2p ? (*g.pcie_p2p ? ", peer-to-peer" : ", no peer-to-peer") : "")
            : "n/a");
    add("interconnect", !g.has_fast_link()
                            ? "none (PCIe only)"
                            : fmt::format("{} {}, up to {} GPUs ({})", to_string(g.link.type),
                                          g.link.gbps ? fmt::format("{:g} GB/s", *g.link.gbps)
                                                      : "bandwidth unknown",
                                          g.link.max_gpus, to_string(g.link.topology)));
    add("form factor", fmt::format("{} ({})", to_string(g.form), g.form_factor));
    add("software", fmt::format("{} {}{}", to_string(g.platform),
                                g.compute_capability.value_or(g.gfx_target.value_or("")),
                                g.min_stack ? ", " + std::string(*g.min_stack) : ""));
    add("AV1 encode", g.av1_encode ? (*g.av1_encode ? "yes" : "no") : "unknown");
    const auto price = [](const std::optional<Price>& p) {
        return p ? fmt::format("${:g} ({}, {}; {})", p->usd, to_string(p->kind), p->date, p->source)
                 : std::string("unknown");
    };
    add("price", price(g.price));
    if (g.launch_price) add("launch price", price(g.launch_price));
    if (g.region) add("region", fmt::format("sold only in: {}", *g.region));
    if (g.cloud_only) add("availability", "cloud instances only");
    if (!g.pci_ids.empty()) add("PCI ids", fmt::format("{}", fmt::join(g.pci_ids, ", ")));
    add("confidence", to_string(g.confidence));
    for (const auto& s : g.sources) add("source", s);
    if (!g.notes.empty()) add("notes", g.notes);
    return t;
}
Table models_table(const std::vector<ModelPreset>& presets) {
    Table t;
    // Counts are exact in CSV ("8030261248") and "8.03B" for people.
    t.columns = {{"ID"},
                 {"Name"},
                 {"Params", true, "", "", count_for_people},
                 {"Active", true, "", "", count_for_people},
                 {"Shape"}};
    t.narrowing = kModelsNarrowing;
    for (const auto& p : presets) {
        if (p.image) {
            const ImageModel& m = *p.image;
            const DiffusionModel* d = m.diffusion ? &*m.diffusion : nullptr;
            std::string shape =
                d ? fmt::format("{} {}{} + text encoders + VAE, {} px",
                                kDenoiserKinds.name(d->denoiser),
                                d->experts > 1 ? fmt::format("{} x ", d->experts) : "",
                                format_count(d->denoiser_params), d->default_resolution)
                  : fmt::format("vision, {:g} GMACs at {} px", m.vision->gmacs,
                                m.vision->ref_resolution);
            if (d && d->video)
                shape = fmt::format("{} {}{} + text encoders + 3D VAE, {}x{}, {} frames",
                                    kDenoiserKinds.name(d->denoiser),
                                    d->experts > 1 ? fmt::format("{} x ", d->experts) : "",
                                    format_count(d->denoiser_params), d->video->default_width,
                                    d->video->default_height, d->video->default_frames);
            t.rows.push_back(
                {p.id, p.name, std::to_string(m.params), std::to_string(m.active_params()), shape});
            continue;
        }
        const ParamCounts c = count_params(p.arch);
        t.rows.push_back({p.id, p.name, std::to_string(c.total()), std::to_string(c.active()),
                          fmt::format("{} layers, hidden {}, {}/{} heads{}", p.arch.total_layers(),
                                      p.arch.hidden, p.arch.heads, p.arch.kv_heads,
                                      p.arch.pools() ? fmt::format(" ({})", to_string(p.arch.task))
                                                     : std::string())});
    }
    return t;
}
Table rules_table() {
    Table t;
    t.columns = {{"ID"}, {"Kind"}, {"What it checks"}};
    t.narrowing = kRulesNarrowing;
    for (const Rule& r : rule_registry()) {
        std::string text(r.description);
        for (const Threshold& th : rule_data(r.id).thresholds)
            text += fmt::format(" [{} = {:g}]", th.name, th.value);
        t.rows.push_back({std::string(r.id), std::string(to_string(r.kind)), text});
    }
    return t;
}

}  // namespace gpuadvise
