#include "gpuadvise/engines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <deque>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {

const EngineBackend* Engine::backend(SoftwarePlatform p) const {
    for (const EngineBackend& b : backends)
        if (b.platform == p) return &b;
    return nullptr;
}

bool Engine::loads(QuantFamily f) const {
    return std::find(formats.begin(), formats.end(), f) != formats.end();
}

bool Engine::loads(QuantFamily f, SoftwarePlatform p) const {
    if (!loads(f)) return false;
    const EngineBackend* b = backend(p);
    return b == nullptr || b->formats.empty() ||
           std::find(b->formats.begin(), b->formats.end(), f) != b->formats.end();
}

const ServeFlag* ServeTemplate::flag(ServeRole role) const {
    for (const ServeFlag& f : flags)
        if (f.role == role) return &f;
    return nullptr;
}

bool ServeTemplate::loads_from(ModelSource s) const {
    return std::find(loads.begin(), loads.end(), s) != loads.end();
}

std::span<const Engine> engines() {
    return embedded::engines();
}

const Engine* find_engine(std::string_view id) {
    for (const Engine& e : engines())
        if (e.id == id) return &e;
    return nullptr;
}

std::vector<std::string> engine_choices() {
    std::vector<std::string> out;
    for (const Engine& e : engines())
        if (!e.library) out.emplace_back(e.id);
    return out;
}

const Engine& parse_engine(std::string_view text, std::string_view what) {
    const std::string key = normalize_name(text);
    for (const Engine& e : engines()) {
        if (e.library) continue;
        if (normalize_name(e.id) == key || normalize_name(e.name) == key) return e;
        for (const auto a : e.aliases)
            if (normalize_name(a) == key) return e;
    }
    return *find_engine(parse_choice(text, what, engine_choices()));
}

namespace {
// "8.0" -> 8.0; 0 when the card has none.
double compute_capability(const Gpu& gpu) {
    double cc = 0;
    if (!gpu.compute_capability) return 0;
    const std::string_view t = *gpu.compute_capability;
    std::from_chars(t.data(), t.data() + t.size(), cc);
    return cc;
}
}  // namespace

std::uint64_t engine_reserve_bytes(const Engine* engine, const Gpu& gpu) {
    if (engine == nullptr) return 0;
    const EngineBackend* b = engine->backend(gpu.platform);
    return b ? b->reserve_bytes : 0;
}

bool fp8_weight_only(const Engine& engine, const Gpu& gpu) {
    if (gpu.tflops.fp8) return false;
    const EngineBackend* b = engine.backend(gpu.platform);
    if (b == nullptr || b->fp8_weight_only_min_cc <= 0) return false;
    const double cc = compute_capability(gpu);
    return cc > 0 && cc + 1e-9 >= b->fp8_weight_only_min_cc;
}

const EngineTraining* engine_training(const Engine& engine, const Gpu& gpu,
                                      std::string_view method) {
    if (!engine.training) return nullptr;
    const EngineTraining& t = *engine.training;
    if (std::find(t.platforms.begin(), t.platforms.end(), gpu.platform) == t.platforms.end())
        return nullptr;
    if (std::find(t.methods.begin(), t.methods.end(), method) == t.methods.end()) return nullptr;
    return &t;
}

EngineFit engine_fit(const Engine& e, const Gpu& gpu, bool describe) {
    // Ranking asks only whether it runs: the texts are made for shown plans.
    const auto why = [&](auto&& make) { return describe ? make() : std::string(); };
    const EngineBackend* b = e.backend(gpu.platform);
    if (b == nullptr || b->support == Support::No)
        return {false, why([&] {
                    return fmt::format("{} does not run on {} ({}){}", e.name,
                                       to_string(gpu.platform), gpu.name,
                                       b && !b->note.empty() ? fmt::format(": {}", b->note) : "");
                })};
    if (b->min_compute_capability > 0 && gpu.compute_capability) {
        double cc = 0;
        const std::string_view t = *gpu.compute_capability;
        std::from_chars(t.data(), t.data() + t.size(), cc);
        if (cc > 0 && cc + 1e-9 < b->min_compute_capability)
            return {false, why([&] {
                        return fmt::format(
                            "{} needs CUDA compute capability {:.1f} or later; {} is {}", e.name,
                            b->min_compute_capability, gpu.name, t);
                    })};
    }
    if (!b->gfx.empty() && gpu.gfx_target &&
        std::find(b->gfx.begin(), b->gfx.end(), *gpu.gfx_target) == b->gfx.end())
        return {false, why([&] {
                    return fmt::format("{}'s ROCm build does not list {} ({})", e.name,
                                       *gpu.gfx_target, gpu.name);
                })};
    if (b->support == Support::Partial || b->support == Support::Preview) {
        return {true, why([&] {
                    return fmt::format("{} on {}: {}", e.name, to_string(gpu.platform),
                                       b->note.empty()
                                           ? std::string(kSupport.name(b->support)) + " support"
                                           : std::string(b->note));
                })};
    }
    return {true, {}};
}

EngineFit engine_fit(const Engine& e, const Gpu& gpu, QuantFamily f, bool describe) {
    EngineFit fit = engine_fit(e, gpu, describe);
    if (fit.runs && !e.loads(f, gpu.platform))
        return {false, describe ? fmt::format("{} on {} does not load {} weights", e.name,
                                              to_string(gpu.platform), kQuantFamilies.name(f))
                                : std::string()};
    return fit;
}

namespace {

struct EngineStorage : json::Storage {
    std::deque<std::vector<EngineBackend>> backends;
    std::deque<std::vector<QuantFamily>> formats;
    std::deque<std::vector<ServeFlag>> flags;
    std::deque<std::vector<ModelSource>> sources;
    std::deque<std::vector<SoftwarePlatform>> platforms;
    std::deque<std::vector<ContextTier>> tiers;
};

// A value flag holds "{}" once in its arguments; a switch holds none.
bool takes_value(ServeRole r) {
    switch (r) {
        case ServeRole::RowSplit:
        case ServeRole::KvFp8:
        case ServeRole::Fp8Weights:
        case ServeRole::BnbWeights:
        case ServeRole::Embedding:
        case ServeRole::Rerank:
            return false;
        default:
            return true;
    }
}

ServeTemplate parse_serve(const json::Value& v, std::string_view source, const json::Path& path,
                          EngineStorage& storage) {
    json::ObjectReader r(v, source, &path);
    ServeTemplate t;
    t.program = storage.keep(r.strings("program"));
    if (t.program.empty()) r.fail("program", "must name the program and its subcommand");
    t.model_flag = r.str_or("model_flag", "");
    std::vector<ModelSource> loads;
    for (const auto l : r.strings("loads"))
        loads.push_back(kModelSources.parse(l, fmt::format("{}: {}/loads", source, path.str())));
    if (loads.empty()) r.fail("loads", "must say what the server loads: hub, folder, gguf");
    storage.sources.push_back(std::move(loads));
    t.loads = storage.sources.back();
    std::vector<SoftwarePlatform> platforms;
    for (const auto p : r.strings("platforms"))
        platforms.push_back(
            kPlatforms.parse(p, fmt::format("{}: {}/platforms", source, path.str())));
    storage.platforms.push_back(std::move(platforms));
    t.platforms = storage.platforms.back();
    t.modelfile = r.opt_bool("modelfile").value_or(false);
    std::vector<ServeFlag> flags;
    if (const auto list = r.get("flags"); list && list->is_array()) {
        const json::Path fpath{&path, "flags"};
        std::size_t k = 0;
        for (const json::Value item : list->items()) {
            const json::Path ip{&fpath, {}, k++, true};
            json::ObjectReader fr(item, source, &ip);
            ServeFlag f;
            f.role =
                kServeRoles.parse(fr.str("role"), fmt::format("{}: {}/role", source, ip.str()));
            f.args = storage.keep(fr.strings("args"));
            const auto holes = static_cast<std::size_t>(
                std::count(f.args.begin(), f.args.end(), std::string_view("{}")));
            if (f.args.empty()) fr.fail("args", "must give the flag's arguments");
            if (takes_value(f.role) && holes == 0)
                fr.fail("args", "must hold \"{}\" where the value goes");
            if (!takes_value(f.role) && holes > 0)
                fr.fail("args", "is a switch: it takes no \"{}\"");
            for (const ServeFlag& other : flags)
                if (other.role == f.role) fr.fail("role", "appears twice");
            fr.finish();
            flags.push_back(f);
        }
    } else if (r.get("flags")) {
        r.fail("flags", "must be an array");
    }
    storage.flags.push_back(std::move(flags));
    t.flags = storage.flags.back();
    t.source = r.str("source");
    r.finish();
    return t;
}

}  // namespace

Parsed<Engine> parse_engines(std::string_view text, std::string_view source) {
    auto storage = std::make_shared<EngineStorage>();
    storage->text = std::string(text);
    json::Document doc = json::Document::parse(storage->text, source, "a JSON list of engines");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.str_or("about", "");
    const json::Value list = root.required("engines");
    if (!list.is_array()) root.fail("engines", "must be an array");
    root.finish();
    Parsed<Engine> out;
    const json::Path top{nullptr, "engines"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        Engine e;
        e.id = r.str("id");
        e.name = r.str("name");
        e.aliases = storage->keep(r.strings("aliases"));
        e.library = r.opt_bool("library").value_or(false);
        e.inference = !e.library && r.opt_bool("inference").value_or(true);
        // A library has no speed profile of its own.
        e.bandwidth_efficiency = e.library ? 0.0 : r.number("bandwidth_efficiency", 0.01, 1);
        e.layer_overhead_s = e.library ? 0.0 : r.number("layer_overhead_s", 0, 1);
        e.prefill_efficiency = e.library ? 0.0 : r.number("prefill_efficiency", 0.01, 1);
        e.calibrated = r.opt_bool("calibrated").value_or(false);
        e.prefill_chunk = r.opt_integer("prefill_chunk", 1, 1'000'000).value_or(0);
        e.prefill_chunk_source = r.str_or("prefill_chunk_source", "");
        if (e.prefill_chunk > 0 && e.prefill_chunk_source.empty())
            r.fail("prefill_chunk_source", "must say where prefill_chunk comes from");
        e.evidence = e.library ? r.str_or("evidence", "") : r.str("evidence");
        e.multi_gpu = e.library
                          ? MultiGpu::Tensor
                          : kMultiGpu.parse(r.str("multi_gpu"),
                                            fmt::format("{}: {}/multi_gpu", source, path.str()));
        e.memory = e.library
                       ? MemoryPolicy::Allocator
                       : kMemoryPolicies.parse(r.str("memory"),
                                               fmt::format("{}: {}/memory", source, path.str()));
        std::vector<QuantFamily> formats;
        for (const auto f : r.strings("formats"))
            formats.push_back(
                kQuantFamilies.parse(f, fmt::format("{}: {}/formats", source, path.str())));
        if (formats.empty())
            r.fail("formats", "must list the weight-format families the engine loads");
        storage->formats.push_back(std::move(formats));
        e.formats = storage->formats.back();
        e.formats_source = r.str_or("formats_source", "");
        e.step_overhead_s = e.library ? 0.0 : r.opt_number("step_overhead_s", 0, 1).value_or(0.0);
        e.stream_gbps_per_sm =
            e.library ? std::nullopt : r.opt_number("stream_gbps_per_sm", 0.1, 1000);
        e.prefill_batch = r.opt_integer("prefill_batch", 1, 10'000'000).value_or(0);
        e.prefill_batch_source = r.str_or("prefill_batch_source", "");
        e.metal_prefill_efficiency =
            e.library ? std::nullopt : r.opt_number("metal_prefill_efficiency", 0.01, 1);
        e.metal_layer_overhead_s =
            e.library ? std::nullopt : r.opt_number("metal_layer_overhead_s", 0, 1);
        if (e.prefill_batch > 0 && e.prefill_batch_source.empty())
            r.fail("prefill_batch_source", "must say where prefill_batch comes from");
        e.kv_dtypes = storage->keep(r.strings("kv_dtypes"));
        std::vector<EngineBackend> backends;
        if (const auto b = r.get("backends"); b && b->is_array()) {
            const json::Path bpath{&path, "backends"};
            std::size_t k = 0;
            for (const json::Value item : b->items()) {
                const json::Path ip{&bpath, {}, k++, true};
                json::ObjectReader br(item, source, &ip);
                EngineBackend eb;
                eb.platform = kPlatforms.parse(br.str("platform"),
                                               fmt::format("{}: {}/platform", source, ip.str()));
                eb.support = kSupport.parse(br.str("support"),
                                            fmt::format("{}: {}/support", source, ip.str()));
                eb.min_compute_capability =
                    br.opt_number("min_compute_capability", 0, 20).value_or(0);
                eb.gfx = storage->keep(br.strings("gfx"));
                eb.note = br.str_or("note", "");
                std::vector<QuantFamily> bf;
                for (const auto f : br.strings("formats")) {
                    const QuantFamily fam =
                        kQuantFamilies.parse(f, fmt::format("{}: {}/formats", source, ip.str()));
                    if (std::find(e.formats.begin(), e.formats.end(), fam) == e.formats.end())
                        br.fail("formats", "lists a family the engine itself does not load");
                    bf.push_back(fam);
                }
                storage->formats.push_back(std::move(bf));
                eb.formats = storage->formats.back();
                eb.source = br.str("source");
                if (const auto mib = br.opt_number("reserve_mib", 0, 1 << 20)) {
                    eb.reserve_bytes = static_cast<std::uint64_t>(*mib * 1024.0 * 1024.0);
                    eb.reserve_source = br.str("reserve_source");
                } else if (br.get("reserve_source")) {
                    br.fail("reserve_source", "goes with reserve_mib");
                }
                if (const auto w = br.get("fp8_weight_only")) {
                    const json::Path wp{&ip, "fp8_weight_only"};
                    json::ObjectReader wr(*w, source, &wp);
                    eb.fp8_weight_only_min_cc = wr.number("min_compute_capability", 1, 20);
                    eb.fp8_weight_only_note = wr.str("note");
                    eb.fp8_weight_only_source = wr.str("source");
                    wr.finish();
                    if (std::find(e.formats.begin(), e.formats.end(), QuantFamily::Fp8) ==
                        e.formats.end())
                        br.fail("fp8_weight_only", "needs an engine that loads fp8 weights");
                }
                br.finish();
                backends.push_back(eb);
            }
        } else {
            r.fail("backends", "must list the platforms the engine runs on");
        }
        storage->backends.push_back(std::move(backends));
        e.backends = storage->backends.back();
        if (const auto sv = r.get("serve"))
            e.serve = parse_serve(*sv, source, json::Path{&path, "serve"}, *storage);
        e.serve_with = r.str_or("serve_with", "");
        if (e.serve && !e.serve_with.empty())
            r.fail("serve_with", "an engine with its own serve template uses no other's");
        e.fit_ladder = storage->keep(r.strings("fit_ladder"));
        e.fit_offload_from = r.str_or("fit_offload_from", "");
        e.fit_ladder_source = r.str_or("fit_ladder_source", "");
        if (!e.fit_ladder.empty() && e.fit_ladder_source.empty())
            r.fail("fit_ladder_source", "must say why the ladder is ordered so");
        if (e.fit_ladder.empty() && e.inference && !e.library)
            r.fail("fit_ladder", "must list the formats fit tries, best first");
        for (std::size_t k = 0; k < e.fit_ladder.size(); ++k)
            for (std::size_t j = 0; j < k; ++j)
                if (e.fit_ladder[j] == e.fit_ladder[k])
                    r.fail("fit_ladder", fmt::format("lists {} twice", quote(e.fit_ladder[k])));
        if (!e.fit_offload_from.empty() && std::find(e.fit_ladder.begin(), e.fit_ladder.end(),
                                                     e.fit_offload_from) == e.fit_ladder.end())
            r.fail("fit_offload_from", "must be a rung of fit_ladder");
        if (const auto tiers = r.get("default_context")) {
            if (!tiers->is_array()) r.fail("default_context", "must be an array");
            const json::Path tpath{&path, "default_context"};
            std::vector<ContextTier> tiers_read;
            std::size_t k = 0;
            for (const json::Value item : tiers->items()) {
                const json::Path ip{&tpath, {}, k++, true};
                json::ObjectReader tr(item, source, &ip);
                ContextTier t;
                t.min_gib = tr.number("min_gib", 0, 1e6);
                t.tokens = tr.integer("tokens", 1, 1LL << 24);
                tr.finish();
                if (!tiers_read.empty() && t.min_gib >= tiers_read.back().min_gib)
                    tr.fail("min_gib", "must fall from tier to tier (largest memory first)");
                tiers_read.push_back(t);
            }
            if (tiers_read.empty() || tiers_read.back().min_gib != 0)
                r.fail("default_context", "must end with a tier of min_gib 0");
            storage->tiers.push_back(std::move(tiers_read));
            e.default_context = storage->tiers.back();
            e.default_context_source = r.str("default_context_source");
        }
        e.default_quant = r.str_or("default_quant", "");
        if (!e.default_quant.empty()) e.default_quant_source = r.str("default_quant_source");
        if (const auto tv = r.get("training")) {
            const json::Path tp{&path, "training"};
            json::ObjectReader tr(*tv, source, &tp);
            EngineTraining t;
            t.methods = storage->keep(tr.strings("methods"));
            if (t.methods.empty()) tr.fail("methods", "must list the methods it trains");
            for (const auto m : t.methods)
                if (m != "full" && m != "lora" && m != "qlora")
                    tr.fail("methods", fmt::format("{} is not full, lora or qlora", quote(m)));
            std::vector<SoftwarePlatform> platforms;
            for (const auto p : tr.strings("platforms"))
                platforms.push_back(
                    kPlatforms.parse(p, fmt::format("{}: {}/platforms", source, tp.str())));
            if (platforms.empty()) tr.fail("platforms", "must list where it trains");
            for (const SoftwarePlatform p : platforms)
                if (e.backend(p) == nullptr)
                    tr.fail("platforms", "names a platform the engine has no backend for");
            storage->platforms.push_back(std::move(platforms));
            t.platforms = storage->platforms.back();
            t.qlora_base = tr.str_or("qlora_base", "");
            t.optimizer = tr.str("optimizer");
            t.note = tr.str("note");
            t.source = tr.str("source");
            tr.finish();
            e.training = t;
        }
        e.source = r.str("source");
        r.finish();
        for (const Engine& other : out.rows)
            if (other.id == e.id) r.fail("id", fmt::format("{} appears twice", quote(e.id)));
        out.rows.push_back(e);
    }
    for (const Engine& e : out.rows) {
        if (e.serve_with.empty()) continue;
        const auto other = std::find_if(out.rows.begin(), out.rows.end(),
                                        [&](const Engine& o) { return o.id == e.serve_with; });
        if (other == out.rows.end() || !other->serve)
            throw InputError(
                fmt::format("{}: engine {}: serve_with {} names no engine with a serve "
                            "template",
                            source, quote(e.id), quote(e.serve_with)));
    }
    storage->strings = std::move(doc).take_strings();
    out.storage = std::move(storage);
    return out;
}

void check_engine_formats(std::span<const Engine> rows, std::span<const QuantFormat> formats,
                          std::string_view source) {
    const auto find = [&](std::string_view id) -> const QuantFormat* {
        for (const QuantFormat& f : formats)
            if (f.id == id) return &f;
        return nullptr;
    };
    // One rung: "q4_k_m", "exl2:6.0" (a parametric format and its value), or
    // "default" (the workload's own format).
    const auto check = [&](const Engine& e, std::string_view what, std::string_view rung) {
        const auto fail = [&](const std::string& why) {
            throw InputError(fmt::format("{}: engine {}: {} {}: {}", source, quote(e.id), what,
                                         quote(rung), why));
        };
        if (rung == "default") return;
        const std::size_t colon = rung.find(':');
        const QuantFormat* f = find(rung.substr(0, colon));
        if (f == nullptr) fail("names no format of data/quants.json");
        if (colon != std::string_view::npos) {
            if (f->parameter == QuantParameter::None) fail("takes no parameter");
            const std::string_view digits = rung.substr(colon + 1);
            double v = 0;
            const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
            if (ec != std::errc() || end != digits.data() + digits.size() || v < f->parameter_min ||
                v > f->parameter_max)
                fail(fmt::format("the parameter must be a number from {:g} to {:g}",
                                 f->parameter_min, f->parameter_max));
        }
        if (!e.loads(f->family))
            fail(fmt::format("is of the {} family, which the engine does not load",
                             kQuantFamilies.name(f->family)));
    };
    for (const Engine& e : rows) {
        for (const auto rung : e.fit_ladder) check(e, "fit_ladder", rung);
        if (!e.default_quant.empty()) check(e, "default_quant", e.default_quant);
        if (e.training && !e.training->qlora_base.empty())
            check(e, "training.qlora_base", e.training->qlora_base);
    }
}

}  // namespace gpuadvise
