// Build-time tool: parses data/gpus.json, quants.json, engines.json, platforms.json,
// tasks.json and rules.json with the same validating parsers the program uses,
// and writes them as C++ constant data (string literals, constexpr arrays), so
// the embedded tables cost neither JSON parsing nor allocations at start-up.
// A bad data file fails the build with the parser's message. A unit test
// checks that every generated table equals a runtime parse of its file.
// Usage: gpuadvise_gen_data GPUS QUANTS ENGINES TASKS RULES MODELS PLATFORMS BANDS NETWORKS
//        ENERGY CLOUD_PRICES ATTAINABLE SPECULATIVE OUTPUT.cpp
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "gpuadvise/attainable.hpp"
#include "gpuadvise/bands.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/cloud_prices.hpp"
#include "gpuadvise/energy.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/network.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/quant.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/speculative.hpp"
#include "gpuadvise/task.hpp"
#include "gpuadvise/workload.hpp"

namespace {

using namespace gpuadvise;

// Raw string literals keep every byte; the delimiter never occurs in the data
// (checked).
std::string str(std::string_view s) {
    if (s.find(")gx\"") != std::string_view::npos)
        throw std::runtime_error("delimiter inside a catalog string");
    return "std::string_view(R\"gx(" + std::string(s) + ")gx\")";
}

std::string num(double v) {
    std::ostringstream o;
    o.precision(17);
    o << v;
    return o.str();
}

template <typename T>
std::string opt(const std::optional<T>& v) {
    if (!v) return "std::nullopt";
    if constexpr (std::is_same_v<T, bool>)
        return *v ? "true" : "false";
    else if constexpr (std::is_same_v<T, std::string_view>)
        return str(*v);
    else if constexpr (std::is_floating_point_v<T>)
        return num(*v);
    else
        return std::to_string(*v) + "LL";
}

std::string price(const std::optional<Price>& p) {
    if (!p) return "std::nullopt";
    return "Price{" + num(p->usd) + ", PriceKind(" + std::to_string(static_cast<int>(p->kind)) +
           "), " + str(p->date) + ", " + str(p->source) + "}";
}

std::string unified_pool(const std::optional<UnifiedPool>& p) {
    if (!p) return "std::nullopt";
    return "UnifiedPool{" + num(p->default_share) + ", " + opt(p->max_share) + ", " +
           str(p->setting) + ", " + str(p->source) + "}";
}

std::string power(const std::optional<PowerRange>& p) {
    if (!p) return "std::nullopt";
    return "PowerRange{" + num(p->min_watts) + ", " + num(p->max_watts) + ", " +
           num(p->tflops_at_watts) + ", " + str(p->source) + "}";
}

template <typename E>
std::string enum_value(const char* type, E v) {
    return std::string(type) + "(" + std::to_string(static_cast<int>(v)) + ")";
}

// Writes `name[]` for a list and returns the span expression.
std::string list(std::ostringstream& defs, const std::string& name,
                 std::span<const std::string_view> items) {
    if (items.empty()) return "{}";
    defs << "constexpr std::string_view " << name << "[] = {";
    for (std::size_t i = 0; i < items.size(); ++i) defs << (i ? ", " : "") << str(items[i]);
    defs << "};\n";
    return "std::span<const std::string_view>(" + name + ")";
}

std::string read(const char* path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(std::string("cannot read ") + path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string catalog_code(const Catalog& c) {
    std::ostringstream defs, gpus;
    for (std::size_t i = 0; i < c.gpus.size(); ++i) {
        const Gpu& g = c.gpus[i];
        const std::string n = std::to_string(i);
        const auto& t = g.tflops;
        gpus << "    Gpu{" << str(g.id) << ", " << enum_value("Vendor", g.vendor) << ", "
             << str(g.name) << ", " << list(defs, "kAliases" + n, g.aliases) << ", "
             << enum_value("Segment", g.segment) << ", " << str(g.architecture) << ", "
             << str(g.arch_family) << ", " << opt(g.launch_year) << ", " << g.memory_bytes
             << "ULL, " << str(g.memory_type) << ", " << num(g.memory_bandwidth_gbps) << ", "
             << (g.unified_memory ? "true" : "false") << ", " << unified_pool(g.unified_pool)
             << ", " << opt(g.ecc) << ",\n        Tflops{" << opt(t.fp32) << ", " << opt(t.tf32)
             << ", " << opt(t.fp16) << ", " << opt(t.bf16) << ", " << opt(t.fp8) << ", "
             << opt(t.fp4) << ", " << opt(t.int8) << "}, " << num(g.sparsity_multiplier) << ", "
             << opt(g.tdp_watts) << ", " << power(g.power) << ", " << opt(g.pcie_gen) << ", "
             << opt(g.pcie_lanes) << ", " << opt(g.pcie_p2p) << ",\n        Link{"
             << enum_value("LinkType", g.link.type) << ", " << opt(g.link.gbps) << ", "
             << g.link.max_gpus << ", " << enum_value("LinkTopology", g.link.topology) << "}, "
             << enum_value("FormFactor", g.form) << ", " << enum_value("Cooling", g.cooling) << ", "
             << str(g.form_factor) << ", " << enum_value("SoftwarePlatform", g.platform) << ", "
             << opt(g.compute_capability) << ", " << opt(g.gfx_target) << ", " << opt(g.min_stack)
             << ", " << opt(g.av1_encode) << ", " << opt(g.nvenc) << ",\n        " << price(g.price)
             << ", " << price(g.launch_price) << ", " << opt(g.region) << ", "
             << (g.cloud_only ? "true" : "false") << ", " << list(defs, "kPciIds" + n, g.pci_ids)
             << ", " << list(defs, "kSources" + n, g.sources) << ", "
             << enum_value("Confidence", g.confidence) << ", " << str(g.notes) << ", "
             << opt(g.sm_count) << "},\n";
    }
    std::ostringstream out;
    out << defs.str() << "\nconstexpr Gpu kGpus[] = {\n"
        << gpus.str() << "};\n\nconstexpr NameEntry kNames[] = {\n";
    for (const NameEntry& e : c.names) out << "    {" << str(e.key) << ", " << e.gpu << "},\n";
    out << "};\n\nconstexpr std::string_view kCatalogDate = " << str(c.date) << ";\n";
    return out.str();
}

std::string quants_code(const std::vector<QuantFormat>& rows) {
    std::ostringstream defs, body;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const QuantFormat& f = rows[i];
        body << "    QuantFormat{" << str(f.id) << ", " << str(f.name) << ", "
             << list(defs, "kQuantAliases" + std::to_string(i), f.aliases) << ", "
             << enum_value("QuantFamily", f.family) << ", " << num(f.value_bits) << ", "
             << num(f.group) << ", " << num(f.group_overhead_bits) << ", "
             << opt(f.double_quant_overhead_bits) << ", "
             << (f.quantizes_embeddings ? "true" : "false") << ", "
             << (f.trainable_base ? "true" : "false") << ", "
             << enum_value("QuantParameter", f.parameter) << ", " << num(f.parameter_min) << ", "
             << num(f.parameter_max) << ", " << str(f.tensor_path) << ", "
             << num(f.dequant_time_factor) << ", " << str(f.source) << "},\n";
    }
    return defs.str() + "\nconstexpr QuantFormat kQuants[] = {\n" + body.str() + "};\n";
}

std::string engines_code(const std::vector<Engine>& rows) {
    std::ostringstream defs, body;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Engine& e = rows[i];
        const std::string n = std::to_string(i);
        std::ostringstream backends;
        for (std::size_t k = 0; k < e.backends.size(); ++k) {
            const EngineBackend& b = e.backends[k];
            std::string bformats = "{}";
            if (!b.formats.empty()) {
                const std::string name = "kBackendFormats" + n + "_" + std::to_string(k);
                defs << "constexpr QuantFamily " << name << "[] = {";
                for (std::size_t j = 0; j < b.formats.size(); ++j)
                    defs << (j ? ", " : "") << enum_value("QuantFamily", b.formats[j]);
                defs << "};\n";
                bformats = "std::span<const QuantFamily>(" + name + ")";
            }
            backends << "    EngineBackend{" << enum_value("SoftwarePlatform", b.platform) << ", "
                     << enum_value("Support", b.support) << ", " << num(b.min_compute_capability)
                     << ", " << list(defs, "kGfx" + n + "_" + std::to_string(k), b.gfx) << ", "
                     << str(b.note) << ", " << bformats << ", " << str(b.source) << ", "
                     << b.reserve_bytes << "ULL, " << str(b.reserve_source) << ", "
                     << num(b.fp8_weight_only_min_cc) << ", " << str(b.fp8_weight_only_note) << ", "
                     << str(b.fp8_weight_only_source) << "},\n";
        }
        defs << "constexpr EngineBackend kBackends" << n << "[] = {\n" << backends.str() << "};\n";
        defs << "constexpr QuantFamily kFormats" << n << "[] = {";
        for (std::size_t k = 0; k < e.formats.size(); ++k)
            defs << (k ? ", " : "") << enum_value("QuantFamily", e.formats[k]);
        defs << "};\n";
        std::string serve = "std::nullopt";
        if (e.serve) {
            const ServeTemplate& t = *e.serve;
            std::ostringstream flags;
            for (std::size_t k = 0; k < t.flags.size(); ++k)
                flags << "ServeFlag{" << enum_value("ServeRole", t.flags[k].role) << ", "
                      << list(defs, "kServeArgs" + n + "_" + std::to_string(k), t.flags[k].args)
                      << "}, ";
            std::string flag_span = "{}";
            if (!t.flags.empty()) {
                defs << "constexpr ServeFlag kServeFlags" << n << "[] = {" << flags.str() << "};\n";
                flag_span = "std::span<const ServeFlag>(kServeFlags" + n + ")";
            }
            defs << "constexpr ModelSource kServeLoads" << n << "[] = {";
            for (std::size_t k = 0; k < t.loads.size(); ++k)
                defs << (k ? ", " : "") << enum_value("ModelSource", t.loads[k]);
            defs << "};\n";
            std::string platforms = "{}";
            if (!t.platforms.empty()) {
                defs << "constexpr SoftwarePlatform kServePlatforms" << n << "[] = {";
                for (std::size_t k = 0; k < t.platforms.size(); ++k)
                    defs << (k ? ", " : "") << enum_value("SoftwarePlatform", t.platforms[k]);
                defs << "};\n";
                platforms = "std::span<const SoftwarePlatform>(kServePlatforms" + n + ")";
            }
            serve = "ServeTemplate{";
            serve += list(defs, "kServeProgram" + n, t.program);
            serve += ", " + str(t.model_flag);
            serve += ", std::span<const ModelSource>(kServeLoads" + n;
            serve += "), " + platforms;
            serve += ", " + flag_span;
            serve += t.modelfile ? ", true, " : ", false, ";
            serve += str(t.source) + "}";
        }
        std::string context = "{}";
        if (!e.default_context.empty()) {
            defs << "constexpr ContextTier kContext" << n << "[] = {";
            for (const ContextTier& t : e.default_context)
                defs << "{" << num(t.min_gib) << ", " << t.tokens << "LL}, ";
            defs << "};\n";
            context = "std::span<const ContextTier>(kContext" + n + ")";
        }
        std::string training = "std::nullopt";
        if (e.training) {
            const EngineTraining& t = *e.training;
            defs << "constexpr SoftwarePlatform kTrainPlatforms" << n << "[] = {";
            for (std::size_t k = 0; k < t.platforms.size(); ++k)
                defs << (k ? ", " : "") << enum_value("SoftwarePlatform", t.platforms[k]);
            defs << "};\n";
            training = "EngineTraining{";
            training += list(defs, "kTrainMethods" + n, t.methods);
            training += ", std::span<const SoftwarePlatform>(kTrainPlatforms" + n;
            training += "), " + str(t.qlora_base);
            training += ", " + str(t.optimizer);
            training += ", " + str(t.note);
            training += ", " + str(t.source) + "}";
        }
        body << "    Engine{" << str(e.id) << ", " << str(e.name) << ", "
             << list(defs, "kEngineAliases" + n, e.aliases) << ", "
             << (e.inference ? "true" : "false") << ", " << (e.library ? "true" : "false") << ", "
             << num(e.bandwidth_efficiency) << ", " << num(e.layer_overhead_s) << ", "
             << num(e.prefill_efficiency) << ", " << (e.calibrated ? "true" : "false") << ", "
             << str(e.evidence) << ", " << enum_value("MultiGpu", e.multi_gpu) << ", "
             << enum_value("MemoryPolicy", e.memory) << ", std::span<const EngineBackend>(kBackends"
             << n << "), std::span<const QuantFamily>(kFormats" << n << "), "
             << list(defs, "kKv" + n, e.kv_dtypes) << ", " << str(e.source) << ", "
             << e.prefill_chunk << ", " << str(e.prefill_chunk_source) << ", " << serve << ", "
             << str(e.serve_with) << ", " << list(defs, "kFitLadder" + n, e.fit_ladder) << ", "
             << str(e.fit_offload_from) << ", " << str(e.fit_ladder_source) << ", " << context
             << ", " << str(e.default_context_source) << ", " << training << ", "
             << str(e.formats_source) << ", " << num(e.step_overhead_s) << ", "
             << opt(e.stream_gbps_per_sm) << ", " << e.prefill_batch << ", "
             << str(e.prefill_batch_source) << ", " << opt(e.metal_prefill_efficiency) << ", "
             << opt(e.metal_layer_overhead_s) << ", " << str(e.default_quant) << ", "
             << str(e.default_quant_source) << "},\n";
    }
    return defs.str() + "\nconstexpr Engine kEngines[] = {\n" + body.str() + "};\n";
}

std::string tasks_code(const std::vector<TaskPreset>& rows) {
    std::ostringstream body;
    for (const TaskPreset& t : rows) {
        const TaskRequirements& r = t.requirements;
        body << "    TaskPreset{" << str(t.id) << ", " << str(t.description) << ", " << opt(t.model)
             << ", " << opt(t.method) << ", TaskRequirements{" << str(r.id) << ", "
             << r.min_memory_bytes << "ULL, " << num(r.min_bandwidth_gbps) << ", "
             << (r.needs_fast_link ? "true" : "false") << ", " << (r.needs_av1 ? "true" : "false")
             << "}, " << str(t.document_pick) << ", " << str(t.document_reason) << ", "
             << str(t.floors_source) << "},\n";
    }
    return "\nconstexpr TaskPreset kTasks[] = {\n" + body.str() + "};\n";
}

std::string rules_code(const std::vector<RuleData>& rows) {
    std::ostringstream defs, body;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const RuleData& d = rows[i];
        const std::string n = std::to_string(i);
        std::string thresholds = "{}", messages = "{}";
        if (!d.thresholds.empty()) {
            defs << "constexpr Threshold kThresholds" << n << "[] = {";
            for (const Threshold& t : d.thresholds)
                defs << "{" << str(t.name) << ", " << num(t.value) << ", " << str(t.source)
                     << "}, ";
            defs << "};\n";
            thresholds = "std::span<const Threshold>(kThresholds" + n + ")";
        }
        if (!d.messages.empty()) {
            defs << "constexpr RuleMessage kMessages" << n << "[] = {";
            for (const RuleMessage& m : d.messages)
                defs << "{" << enum_value("SoftwarePlatform", m.platform) << ", " << str(m.text)
                     << "}, ";
            defs << "};\n";
            messages = "std::span<const RuleMessage>(kMessages" + n + ")";
        }
        body << "    RuleData{" << str(d.id) << ", " << thresholds << ", " << messages << "},\n";
    }
    return defs.str() + "\nconstexpr RuleData kRuleData[] = {\n" + body.str() + "};\n";
}

std::string platforms_code(const std::vector<HostPlatform>& rows) {
    std::ostringstream defs, body;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const HostPlatform& p = rows[i];
        const std::string n = std::to_string(i);
        defs << "constexpr FormFactor kPlatformForms" << n << "[] = {";
        for (std::size_t k = 0; k < p.forms.size(); ++k)
            defs << (k ? ", " : "") << enum_value("FormFactor", p.forms[k]);
        defs << "};\n";
        std::string vendors = "{}";
        if (!p.vendors.empty()) {
            defs << "constexpr Vendor kPlatformVendors" << n << "[] = {";
            for (std::size_t k = 0; k < p.vendors.size(); ++k)
                defs << (k ? ", " : "") << enum_value("Vendor", p.vendors[k]);
            defs << "};\n";
            vendors = "std::span<const Vendor>(kPlatformVendors" + n + ")";
        }
        body << "    HostPlatform{" << str(p.id) << ", " << str(p.name) << ", "
             << enum_value("PlatformKind", p.kind) << ", " << p.max_gpus << ", " << opt(p.sold_in)
             << ", " << str(p.sold_in_source) << ", std::span<const FormFactor>(kPlatformForms" << n
             << "), " << vendors << ", " << list(defs, "kPlatformGpus" + n, p.gpus) << ", "
             << (p.passive_cooling ? "true" : "false") << ", " << opt(p.lanes_per_gpu) << ", "
             << opt(p.usd) << ", " << enum_value("PriceKind", p.price_kind) << ", "
             << str(p.usd_basis) << ", " << str(p.date) << ", " << opt(p.host_watts) << ", "
             << opt(p.ram_gb) << ", " << opt(p.ram_bandwidth_gbps) << ", " << str(p.ram_source)
             << ", " << opt(p.ram_decode_share) << ", " << str(p.ram_decode_share_source) << ", "
             << str(p.source) << "},\n";
    }
    return defs.str() + "\nconstexpr HostPlatform kPlatforms[] = {\n" + body.str() + "};\n";
}

// The rental quotes as one initializer: parsing the 48 KB file at run time
// cost the main command a tenth of its instructions.
std::string cloud_code(const CloudPrices& prices) {
    std::ostringstream out;
    out << "CloudPrices build_cloud_prices() {\n    return CloudPrices{std::string("
        << str(prices.date) << "), {\n";
    for (const CloudPrice& row : prices.rows) {
        out << "        CloudPrice{std::string(" << str(row.gpu) << "), " << num(row.median) << ", "
            << num(row.min) << ", " << num(row.max) << ", {\n";
        for (const CloudQuote& q : row.quotes)
            out << "            CloudQuote{std::string(" << str(q.provider) << "), std::string("
                << str(q.offering) << "), " << num(q.usd_per_gpu_hour) << ", std::string("
                << str(q.date) << "), std::string(" << str(q.source) << ")},\n";
        out << "        }},\n";
    }
    out << "    }};\n}\n\n";
    return out.str();
}

// The attainable rates' arrays (an empty list is an empty span, not a
// zero-size array) and the accessor that returns them.
std::string attainable_code(const ParsedAttainable& a) {
    std::ostringstream out, spans;
    const auto array = [&](const char* type, const char* name, std::size_t size, const auto& row) {
        if (size == 0) {
            spans << ", std::span<const " << type << ">()";
            return;
        }
        out << "constexpr " << type << " " << name << "[] = {\n";
        for (std::size_t i = 0; i < size; ++i) out << "    " << type << "{" << row(i) << "},\n";
        out << "};\n";
        spans << ", std::span<const " << type << ">(" << name << ")";
    };
    array("MeasuredRate", "kMeasuredRates", a.measured.size(), [&](std::size_t i) {
        const MeasuredRate& m = a.measured[i];
        return str(m.gpu) + ", " + enum_value("RateDtype", m.dtype) + ", " + num(m.tflops) + ", " +
               num(m.low) + ", " + num(m.high) + ", " + std::to_string(m.rows) + ", " + str(m.ids);
    });
    array("ReachClass", "kReachClasses", a.reach.size(), [&](std::size_t i) {
        const ReachClass& c = a.reach[i];
        return str(c.id) + ", " + num(c.median) + ", " + num(c.low) + ", " + num(c.high) + ", " +
               std::to_string(c.cards);
    });
    array("DtypeRatio", "kDtypeRatios", a.ratios.size(), [&](std::size_t i) {
        const DtypeRatio& d = a.ratios[i];
        return enum_value("RateDtype", d.dtype) + ", " + num(d.ratio) + ", " +
               std::to_string(d.cards);
    });
    array("PowerEfficiency", "kPowerEfficiencies", a.power.size(), [&](std::size_t i) {
        const PowerEfficiency& p = a.power[i];
        return str(p.key) + ", " + num(p.tflops_per_watt) + ", " + std::to_string(p.cards) + ", " +
               str(p.gpus);
    });
    array("FittedCoefficient", "kFittedCoefficients", a.fit.size(), [&](std::size_t i) {
        const FittedCoefficient& c = a.fit[i];
        return str(c.name) + ", " + num(c.value) + ", " + std::to_string(c.rows) + ", " +
               str(c.what);
    });
    out << "constexpr std::string_view kAttainableSource = " << str(a.source) << ";\n";
    out << "constexpr AttainableData kAttainable{kAttainableSource" << spans.str()
        << ", true};\n";  // the parser's (gpu, dtype) order
    return out.str();
}

// The JSON text too: --catalog-merge patches the embedded catalog's JSON, and
// the tests parse each file to compare it with the generated table.
std::string text_constant(const char* name, const std::string& text) {
    if (text.find(")gpuadvise_json\"") != std::string::npos)
        throw std::runtime_error("delimiter inside a data file");
    std::string out =
        "std::string_view " + std::string(name) + "() {\n    static constexpr char text[] = ";
    // Long literals are split: compilers limit one string literal's length.
    constexpr std::size_t kChunk = 60000;
    for (std::size_t i = 0; i < text.size(); i += kChunk)
        out += "R\"gpuadvise_json(" + text.substr(i, kChunk) + ")gpuadvise_json\"\n        ";
    if (text.empty()) out += "\"\"";
    return out + ";\n    return {text, sizeof(text) - 1};\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 15) {
        std::cerr << "usage: gpuadvise_gen_data GPUS QUANTS ENGINES TASKS RULES MODELS PLATFORMS "
                     "BANDS NETWORKS ENERGY CLOUD_PRICES ATTAINABLE SPECULATIVE OUTPUT_CPP\n";
        return 2;
    }
    std::ostringstream out;
    try {
        const std::string gpus = read(argv[1]), quants = read(argv[2]), engines = read(argv[3]),
                          tasks = read(argv[4]), rules = read(argv[5]), models = read(argv[6]),
                          platforms = read(argv[7]), bands = read(argv[8]),
                          networks = read(argv[9]), energy = read(argv[10]), cloud = read(argv[11]),
                          attainable = read(argv[12]), speculative = read(argv[13]);
        parse_networks(networks, "data/networks.json");
        parse_energy(energy, "data/energy.json");
        const SpeculativeData spec = parse_speculative(speculative, "data/speculative.json");
        const CloudPrices rent = parse_cloud_prices(cloud, "data/cloud_prices.json");
        parse_error_bands(bands, "data/error_bands.json");  // a bad file fails the build
        const Catalog c = parse_catalog(gpus, "data/gpus.json");
        const ParsedAttainable a = parse_attainable(attainable, "data/attainable.json");
        // Every coefficient the speed model reads is in the table.
        for (const std::string_view name : speed_fit_names())
            if (std::none_of(a.fit.begin(), a.fit.end(),
                             [&](const FittedCoefficient& f) { return f.name == name; }))
                throw std::runtime_error("data/attainable.json: fit has no " + std::string(name));
        // Every measured rate is of a card of the catalog, named by its id.
        for (const MeasuredRate& m : a.measured)
            if (std::none_of(c.gpus.begin(), c.gpus.end(),
                             [&](const Gpu& g) { return g.id == m.gpu; }))
                throw std::runtime_error("data/attainable.json: no card " + std::string(m.gpu) +
                                         " in data/gpus.json");
        const auto q = parse_quant_formats(quants, "data/quants.json");
        const auto e = parse_engines(engines, "data/engines.json");
        // fit's ladders and the training bases name formats of quants.json.
        check_engine_formats(e.rows, q.rows, "data/engines.json");
        for (const Engine& row : e.rows)
            if (row.training)
                kOptimizers.parse(
                    row.training->optimizer,
                    "data/engines.json: " + std::string(row.id) + ": training.optimizer");
        // Every engine of the speculative decoding rows is an engine of engines.json.
        for (const EngineSpeculation& row : spec.engines)
            if (std::none_of(e.rows.begin(), e.rows.end(),
                             [&](const Engine& engine) { return engine.id == row.engine; }))
                throw std::runtime_error("data/speculative.json: " + row.engine +
                                         " is not an engine id of data/engines.json");
        const auto t = parse_tasks(tasks, "data/tasks.json");
        const auto r = parse_rule_data(rules, "data/rules.json");
        const auto p = parse_platforms(platforms, "data/platforms.json");
        // Every price of the shipped catalog says when it was seen (a user's
        // catalog may leave the date out; this one may not).
        for (const Gpu& g : c.gpus)
            for (const auto& [what, price] :
                 {std::pair{"price", &g.price}, std::pair{"launch_price", &g.launch_price}})
                if (*price && (*price)->date.empty())
                    throw std::runtime_error("data/gpus.json: " + std::string(g.id) + ": " + what +
                                             " has no date (YYYY-MM)");
        // Every card of the catalog has a platform for one of it.
        for (const Gpu& g : c.gpus) {
            bool held = false;
            for (const HostPlatform& row : p.rows) held = held || row.holds(g, 1);
            if (!held)
                throw std::runtime_error("data/platforms.json: no platform holds one " +
                                         std::string(g.id));
        }
        // Every rented card is a card of the catalog.
        for (const CloudPrice& row : rent.rows)
            if (std::none_of(c.gpus.begin(), c.gpus.end(),
                             [&](const Gpu& g) { return g.id == row.gpu; }))
                throw std::runtime_error("data/cloud_prices.json: " + row.gpu +
                                         " is not a card id of data/gpus.json");
        // Presets are parsed at run time, but a bad one must fail the build.
        parse_model_presets(models, "data/models.json");
        parse_vision_inputs(models, "data/models.json");
        // A task's pick must be a card of the catalog.
        for (const TaskPreset& task : t.rows)
            resolve_gpu(c, task.document_pick, "data/tasks.json document_pick");
        out << "// Generated by src/tools/gen_data.cpp from data/*.json; do not edit.\n"
            << "#include \"gpuadvise/embedded.hpp\"\n\nnamespace gpuadvise::embedded {\nnamespace "
               "{\n\n"
            << catalog_code(c) << quants_code(q.rows) << engines_code(e.rows) << tasks_code(t.rows)
            << rules_code(r.rows) << platforms_code(p.rows) << attainable_code(a)
            << "\n}  // namespace\n\n"
            << "Catalog build_catalog() {\n    Catalog c;\n    c.source = "
               "std::string(kGpusSource);\n"
            << "    c.date = kCatalogDate;\n    c.gpus.assign(std::begin(kGpus), "
               "std::end(kGpus));\n"
            << "    c.names.assign(std::begin(kNames), std::end(kNames));\n    return c;\n}\n\n"
            << "std::span<const QuantFormat> quant_formats() { return kQuants; }\n"
            << "std::span<const Engine> engines() { return kEngines; }\n"
            << "std::span<const TaskPreset> tasks() { return kTasks; }\n"
            << "std::span<const RuleData> rule_data() { return kRuleData; }\n"
            << "std::span<const HostPlatform> platforms() { return kPlatforms; }\n"
            << "AttainableData attainable() { return kAttainable; }\n\n"
            << cloud_code(rent) << text_constant("gpus_json", gpus)
            << text_constant("models_json", models) << text_constant("quants_json", quants)
            << text_constant("engines_json", engines) << text_constant("tasks_json", tasks)
            << text_constant("rules_json", rules) << text_constant("platforms_json", platforms)
            << text_constant("error_bands_json", bands) << text_constant("networks_json", networks)
            << text_constant("energy_json", energy) << text_constant("attainable_json", attainable)
            << text_constant("speculative_json", speculative)
            << "\n}  // namespace gpuadvise::embedded\n";
    } catch (const std::exception& ex) {
        std::cerr << "gpuadvise_gen_data: " << ex.what() << "\n";
        return 1;
    }
    std::ofstream file(argv[14], std::ios::binary);
    file << out.str();
    return file ? 0 : 1;
}
