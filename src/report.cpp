#include "gpuadvise/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "gpuadvise/build_sheet.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

using ojson = nlohmann::ordered_json;

double gib(std::uint64_t b) { return static_cast<double>(b) / static_cast<double>(kGiB); }

template <typename T>
ojson opt(const std::optional<T>& v) {
    return v ? ojson(*v) : ojson(nullptr);
}

// Rates are rounded to what the model can honestly claim (3 significant
// digits) so JSON and table show the same number.
ojson rate(const std::optional<double>& v) {
    if (!v || !std::isfinite(*v)) return nullptr;
    const double digits = std::max(0.0, 2.0 - std::floor(std::log10(std::max(*v, 1e-9))));
    const double scale = std::pow(10.0, std::min(digits, 6.0));
    return std::round(*v * scale) / scale;
}

std::string lora_targets_text(const Workload& w) {
    std::vector<std::string> t;
    for (auto target : w.lora_targets) t.push_back(to_string(target));
    return fmt::format("{}", fmt::join(t, ","));
}

std::string shape_text(const Architecture& a) {
    std::string s = fmt::format("{} layers, hidden {}, {} heads / {} KV heads, FFN {}, vocab {}", a.total_layers(),
                                a.hidden, a.heads, a.kv_heads, a.intermediate, a.vocab);
    if (a.is_moe())
        s += fmt::format(", {} experts ({} active, FFN {})", a.experts, a.experts_per_token, a.moe_intermediate);
    return s;
}

std::string format_rate(const std::optional<double>& v) {
    const ojson r = rate(v);
    if (r.is_null()) return "-";
    const double d = r.get<double>();
    return d >= 100 ? fmt::format("{:.0f}", d) : fmt::format("{:.3g}", d);
}

}  // namespace

ojson workload_json(const Workload& w) {
    const Architecture& a = w.model.arch;
    ojson j;
    if (w.is_fixed()) {
        j["task"] = w.model.name;
        j["requirement_bytes"] = *w.fixed_bytes;
        j["assumed"] = w.assumed;
        j["warnings"] = w.warnings;
        return j;
    }
    j["model"] = w.model.name;
    j["model_origin"] = w.model.origin;
    j["params"] = w.model.params;
    j["active_params"] = w.model.active_params;
    j["architecture"] = {{"model_type", a.model_type},
                         {"layers", a.total_layers()},
                         {"hidden", a.hidden},
                         {"intermediate", a.intermediate},
                         {"heads", a.heads},
                         {"kv_heads", a.kv_heads},
                         {"head_dim", a.head_dim},
                         {"vocab", a.vocab},
                         {"experts", a.experts},
                         {"experts_per_token", a.experts_per_token},
                         {"tied_embeddings", a.tied_embeddings},
                         {"inferred", a.inferred}};
    j["method"] = to_string(w.method);
    j["precision"] = to_string(w.precision);
    j["quant"] = to_string(w.quant);
    j["double_quant"] = w.double_quant;
    j["batch"] = w.batch;
    j["seq"] = w.seq;
    if (!w.trains()) {
        j["prompt"] = w.prompt;
        j["gen"] = w.gen;
        j["kv_dtype"] = to_string(w.kv_dtype);
        j["engine"] = to_string(w.engine);
    } else {
        j["mixed_precision"] = to_string(w.mixed);
        j["optimizer"] = to_string(w.optimizer);
        j["optimizer_in_backward"] = w.optimizer_in_backward;
        j["grad_ckpt"] = w.grad_ckpt;
        j["chunked_loss"] = w.chunked_loss;
    }
    if (w.uses_lora()) {
        j["lora_rank"] = w.lora_rank;
        j["lora_targets"] = lora_targets_text(w);
    }
    j["flash_attn"] = w.flash_attn;
    j["gpus"] = w.gpus;
    j["parallel"] = to_string(w.parallel);
    j["estimator"] = to_string(w.estimator);
    j["assumed"] = w.assumed;
    j["warnings"] = w.warnings;
    return j;
}

ojson memory_json(const MemoryEstimate& m) {
    ojson j;
    j["estimator"] = m.estimator;
    j["per_gpu_bytes"] = m.per_gpu_bytes;
    j["allocated_bytes"] = m.allocated_bytes;
    j["total_bytes"] = m.total_bytes;
    ojson components = ojson::object();
    for (const auto& c : m.components) components[c.name] = c.bytes;
    j["components"] = components;
    j["trainable_params"] = m.trainable_params;
    j["paged_optimizer_bytes"] = m.paged_optimizer_bytes;
    j["notes"] = m.notes;
    return j;
}

ojson performance_json(const Performance& p) {
    ojson j;
    j["bound"] = p.bound.empty() ? ojson(nullptr) : ojson(p.bound);
    j["decode_tokens_per_s"] = rate(p.decode_tokens_per_s);
    j["prefill_tokens_per_s"] = rate(p.prefill_tokens_per_s);
    j["train_tokens_per_s"] = rate(p.train_tokens_per_s);
    j["step_seconds"] = rate(p.step_seconds);
    j["time_to_first_token_s"] = rate(p.time_to_first_token_s);
    j["job_hours"] = rate(p.job_hours);
    j["job_cost_usd"] = rate(p.job_cost_usd);
    j["energy_kwh"] = rate(p.energy_kwh);
    j["usd_per_million_tokens"] = rate(p.usd_per_million_tokens);
    j["cost_basis"] = p.cost_basis.empty() ? ojson(nullptr) : ojson(p.cost_basis);
    return j;
}

ojson recommendation_json(const Recommendation& r, std::size_t rank) {
    const Gpu& g = *r.gpu;
    ojson j;
    j["rank"] = rank;
    j["gpu"] = g.id;
    j["vendor"] = g.vendor;
    j["name"] = g.name;
    j["count"] = r.count;
    j["plan"] = {{"count", r.count}, {"strategy", to_string(r.strategy)}};
    j["fits"] = r.fits;
    j["per_gpu_bytes"] = r.memory.per_gpu_bytes;
    j["usable_bytes"] = r.usable_bytes;
    j["memory_bytes"] = g.memory_bytes;
    j["headroom_bytes"] = r.headroom_bytes;
    j["memory_bandwidth_gbps"] = g.memory_bandwidth_gbps;
    j["price_usd"] = g.price ? ojson(g.price->usd * static_cast<double>(r.count)) : ojson(nullptr);
    j["score"] = std::isfinite(r.score) ? std::round(r.score * 1000.0) / 1000.0 : 0.0;
    j["performance"] = performance_json(r.performance);
    j["reasons"] = r.reasons;
    j["warnings"] = r.warnings;
    j["tips"] = r.tips;
    ojson fired = ojson::array();
    for (const auto& hit : r.fired) fired.push_back({{"id", hit.id}, {"kind", to_string(hit.kind)}, {"message", hit.message}});
    j["rules_fired"] = fired;
    const BuildSheet b = build_sheet(g, r.count);
    j["build_sheet"] = {{"system_watts", opt(b.system_watts)},
                        {"psu_watts", opt(b.psu_watts)},
                        {"power", b.power_note},
                        {"pcie", {{"gen", opt(b.pcie_gen)}, {"lanes", opt(b.pcie_lanes)}, {"slots", b.slots}}},
                        {"host_link", b.host_link_note},
                        {"software", b.software}};
    return j;
}

ojson gpu_json(const Gpu& g) {
    ojson j;
    j["id"] = g.id;
    j["vendor"] = g.vendor;
    j["name"] = g.name;
    j["aliases"] = g.aliases;
    j["segment"] = g.segment;
    j["architecture"] = g.architecture;
    j["arch_family"] = g.arch_family;
    j["launch_year"] = opt(g.launch_year);
    j["memory_bytes"] = g.memory_bytes;
    j["memory_type"] = g.memory_type;
    j["memory_bandwidth_gbps"] = g.memory_bandwidth_gbps;
    j["unified_memory"] = g.unified_memory;
    j["ecc"] = opt(g.ecc);
    j["tflops"] = {{"fp32", opt(g.tflops.fp32)}, {"tf32", opt(g.tflops.tf32)}, {"fp16", opt(g.tflops.fp16)},
                   {"bf16", opt(g.tflops.bf16)}, {"fp8", opt(g.tflops.fp8)},   {"int8", opt(g.tflops.int8)}};
    j["sparsity_multiplier"] = g.sparsity_multiplier;
    j["tdp_watts"] = opt(g.tdp_watts);
    j["pcie"] = {{"gen", opt(g.pcie_gen)}, {"lanes", opt(g.pcie_lanes)}};
    j["interconnect"] = {{"type", g.interconnect_type},
                         {"bandwidth_gbps", opt(g.interconnect_gbps)},
                         {"max_gpus", g.interconnect_max_gpus}};
    j["form_factor"] = g.form_factor;
    j["software"] = {{"platform", g.software_platform},
                     {"compute_capability", opt(g.compute_capability)},
                     {"gfx_target", opt(g.gfx_target)},
                     {"min_stack", opt(g.min_stack)}};
    j["video"] = {{"av1_encode", opt(g.av1_encode)}, {"nvenc", opt(g.nvenc)}};
    if (g.price)
        j["price"] = {{"usd", g.price->usd}, {"kind", g.price->kind}, {"date", g.price->date}, {"source", g.price->source}};
    else
        j["price"] = nullptr;
    j["sources"] = g.sources;
    j["confidence"] = g.confidence;
    j["notes"] = g.notes;
    return j;
}

ojson estimate_json(const Workload& w, const MemoryEstimate& m) {
    ojson j;
    j["schema"] = kSchemaVersion;
    j["workload"] = workload_json(w);
    j["memory"] = memory_json(m);
    return j;
}

ojson recommend_json(const Workload& w, const MemoryEstimate& m, const std::vector<Recommendation>& recs,
                     std::size_t top, const RankOptions& options) {
    ojson j = estimate_json(w, m);
    j["rank_by"] = to_string(options.rank_by);
    ojson list = ojson::array();
    for (std::size_t i = 0; i < recs.size() && i < top; ++i) list.push_back(recommendation_json(recs[i], i + 1));
    j["recommendations"] = list;
    return j;
}

std::string workload_text(const Workload& w) {
    const Architecture& a = w.model.arch;
    std::string out = "Workload\n";
    if (w.is_fixed()) {
        out += fmt::format("  task       {}\n", w.model.name);
        for (const auto& x : w.assumed) out += fmt::format("  assumed    {}\n", x);
        return out;
    }
    out += fmt::format("  model      {} ({} parameters{})\n", w.model.name, format_count(w.model.params),
                       w.model.active_params != w.model.params
                           ? fmt::format(", {} active per token", format_count(w.model.active_params))
                           : "");
    out += fmt::format("  shape      {}{}\n", shape_text(a), a.inferred ? " (inferred from the size)" : "");
    std::string method = to_string(w.method);
    if (w.quant != Quant::None)
        method += fmt::format(", base weights {} ({:.2f} bits/weight{})", to_string(w.quant),
                              8.0 * weight_bytes_per_param(w.quant, w.precision, w.double_quant),
                              w.double_quant ? ", double quantisation" : "");
    method += fmt::format(", compute {}", to_string(w.precision));
    out += fmt::format("  method     {}\n", method);
    if (w.trains()) {
        out += fmt::format("  training   batch {} x seq {}, grad-ckpt {}, optimizer {}, mixed precision {}\n", w.batch,
                           w.seq, w.grad_ckpt ? "on" : "off", to_string(w.optimizer), to_string(w.mixed));
    } else {
        out += fmt::format("  inference  batch {} x (prompt {} + gen {}) tokens, KV cache {}, engine {}\n", w.batch, w.prompt,
                           w.gen, to_string(w.kv_dtype), to_string(w.engine));
    }
    if (w.uses_lora()) out += fmt::format("  lora       rank {} on {}\n", w.lora_rank, lora_targets_text(w));
    if (w.chunked_loss) out += "  loss       chunked cross-entropy\n";
    if (!w.trains() && w.mixed == MixedPrecision::Amp) out += "  weights    fp32 with 16-bit autocast copies\n";
    if (w.gpus > 1) out += fmt::format("  gpus       {} ({})\n", w.gpus, to_string(w.parallel));
    for (std::size_t i = 0; i < w.assumed.size(); ++i)
        out += fmt::format("  {}{}\n", i == 0 ? "assumed    " : "           ", w.assumed[i]);
    for (const auto& warning : w.warnings) out += fmt::format("  warning    {}\n", warning);
    return out;
}

std::string memory_text(const MemoryEstimate& m, const Workload& w) {
    std::string out = fmt::format("Memory per GPU ({} estimator)\n", m.estimator);
    for (const auto& c : m.components) {
        if (c.bytes == 0) continue;
        std::string name = c.name.substr(0, c.name.size() - 6);  // drop "_bytes"
        out += fmt::format("  {:<13}{:>10.2f} GiB\n", name, gib(c.bytes));
    }
    out += fmt::format("  {:<13}{:>10.2f} GiB per GPU  (allocated {:.2f} GiB", "total", gib(m.per_gpu_bytes),
                       gib(m.allocated_bytes));
    if (w.gpus > 1) out += fmt::format("; {:.2f} GiB across {} GPUs", gib(m.total_bytes), w.gpus);
    out += ")\n";
    if (m.estimator == "doc")
        out += fmt::format("  = {:.1f} GB, the source document's rule of thumb (§2.1)\n",
                           static_cast<double>(m.per_gpu_bytes) / kGB);
    if (w.trains() && m.trainable_params > 0)
        out += fmt::format("  trainable  {} parameters\n", format_count(m.trainable_params));
    for (const auto& note : m.notes) out += fmt::format("  note: {}\n", note);
    return out;
}

std::string recommend_text(const Workload& w, const MemoryEstimate& m, const std::vector<Recommendation>& recs,
                           std::size_t top, const RankOptions& options, std::size_t catalog_size) {
    std::string out = workload_text(w) + "\n" + memory_text(m, w) + "\n";
    const std::size_t shown = std::min(top, recs.size());
    std::size_t fitting = 0;
    for (const auto& r : recs) fitting += r.fits ? 1 : 0;
    out += fmt::format("GPUs ranked by {} (top {} of {}; {} can run it)\n", to_string(options.rank_by), shown,
                       catalog_size, fitting);
    const bool job = !recs.empty() && recs.front().performance.job_cost_usd.has_value();
    const bool serving = !w.trains() && !w.is_fixed();
    const std::string cost_header = job ? "Job $" : serving ? "$/Mtok" : "";
    out += fmt::format("{:>3}  {:<30} {:>4}  {:<4} {:>9} {:>9} {:>10} {:>9} {:>8} {:>9} {:>8}  {}\n", "#", "GPU", "GPUs", "Fits",
                       "Need/GPU", "Memory", "Headroom", "Bandwidth", w.trains() ? "train t/s" : "tok/s", "Price", cost_header,
                       "Reason");
    for (std::size_t i = 0; i < shown; ++i) {
        const Recommendation& r = recs[i];
        const Gpu& g = *r.gpu;
        const std::string price = g.price ? fmt::format("${:.0f}", g.price->usd * static_cast<double>(r.count)) : "-";
        const auto& cost = job ? r.performance.job_cost_usd : r.performance.usd_per_million_tokens;
        const std::string cost_text = (job || serving) && cost ? fmt::format("${}", format_rate(cost)) : "";
        out += fmt::format("{:>3}  {:<30} {:>4}  {:<4} {:>5.1f} GiB {:>5.0f} GiB {:>6.1f} GiB {:>4.0f} GB/s {:>8} {:>9} {:>8}  {}\n",
                           i + 1, g.id, r.count, r.fits ? "yes" : "no", gib(r.memory.per_gpu_bytes), gib(g.memory_bytes),
                           static_cast<double>(r.headroom_bytes) / kGiB, g.memory_bandwidth_gbps,
                           format_rate(r.performance.tokens_per_s()), price, cost_text, r.reasons.empty() ? "" : r.reasons.front());
    }
    if (shown > 0) {
        const Recommendation& best = recs.front();
        const BuildSheet b = build_sheet(*best.gpu, best.count);
        out += fmt::format("\nBuild sheet for #1 ({}{}):\n", best.count > 1 ? fmt::format("{} x ", best.count) : "", best.gpu->id);
        out += fmt::format("  power     {}\n  host      {}\n  software  {}\n", b.power_note, b.host_link_note, b.software);
        for (const auto& x : best.warnings) out += fmt::format("  warning   {}\n", x);
        for (const auto& x : best.tips) out += fmt::format("  tip       {}\n", x);
    }
    if (fitting == 0) out += "\nNo card in the catalog runs this workload within the plan sizes tried; the closest misses are listed.\n";
    return out;
}

std::string gpus_text(const std::vector<const Gpu*>& gpus) {
    std::string out = fmt::format("{:<32} {:<34} {:>8} {:>10} {:>9} {:>6} {:<16} {:>8}\n", "ID", "Name", "Memory",
                                  "Bandwidth", "BF16 TF", "TDP W", "Link", "Price");
    for (const Gpu* g : gpus) {
        out += fmt::format("{:<32} {:<34} {:>4.0f} GiB {:>5.0f} GB/s {:>9} {:>6} {:<16} {:>8}\n", g->id, g->name.substr(0, 34),
                           gib(g->memory_bytes), g->memory_bandwidth_gbps,
                           g->tflops.bf16 ? fmt::format("{:.1f}", *g->tflops.bf16) : "-",
                           g->tdp_watts ? fmt::format("{:.0f}", *g->tdp_watts) : "-",
                           g->interconnect_type == "none" ? "PCIe" : g->interconnect_type,
                           g->price ? fmt::format("${:.0f}", g->price->usd) : "-");
    }
    out += fmt::format("{} GPUs\n", gpus.size());
    return out;
}

std::string gpu_detail_text(const Gpu& g) {
    const auto field = [](std::string_view name, const std::string& value) { return fmt::format("  {:<22}{}\n", name, value); };
    const auto num = [](const std::optional<double>& v, std::string_view unit) {
        return v ? fmt::format("{:g} {}", *v, unit) : std::string("unknown (null in the catalog)");
    };
    std::string out = fmt::format("{} ({})\n", g.name, g.id);
    out += field("vendor", g.vendor);
    out += field("aliases", fmt::format("{}", fmt::join(g.aliases, ", ")));
    out += field("segment", g.segment);
    out += field("architecture", fmt::format("{} [{}]", g.architecture, g.arch_family));
    out += field("launch year", g.launch_year ? std::to_string(*g.launch_year) : "unknown");
    out += field("memory", fmt::format("{:.0f} GiB {}{}", gib(g.memory_bytes), g.memory_type, g.unified_memory ? " (unified)" : ""));
    out += field("bandwidth", fmt::format("{:g} GB/s", g.memory_bandwidth_gbps));
    out += field("ECC", g.ecc ? (*g.ecc ? "yes" : "no") : "unknown");
    out += field("fp32 (vector)", num(g.tflops.fp32, "TFLOPS"));
    out += field("tf32 dense", num(g.tflops.tf32, "TFLOPS"));
    out += field("fp16 dense", num(g.tflops.fp16, "TFLOPS"));
    out += field("bf16 dense", num(g.tflops.bf16, "TFLOPS"));
    out += field("fp8 dense", num(g.tflops.fp8, "TFLOPS"));
    out += field("int8 dense", num(g.tflops.int8, "TOPS"));
    out += field("TDP", num(g.tdp_watts, "W"));
    out += field("PCIe", g.pcie_gen ? fmt::format("gen {} x{}", *g.pcie_gen, g.pcie_lanes.value_or(0)) : "n/a");
    out += field("interconnect", g.interconnect_type == "none" ? "none (PCIe only)"
                                                               : fmt::format("{} {:g} GB/s, up to {} GPUs", g.interconnect_type,
                                                                             g.interconnect_gbps.value_or(0), g.interconnect_max_gpus));
    out += field("form factor", g.form_factor);
    out += field("software", fmt::format("{} {}{}", g.software_platform, g.compute_capability.value_or(g.gfx_target.value_or("")),
                                         g.min_stack ? ", " + *g.min_stack : ""));
    out += field("AV1 encode", g.av1_encode ? (*g.av1_encode ? "yes" : "no") : "unknown");
    out += field("price", g.price ? fmt::format("${:g} ({}, {}; {})", g.price->usd, g.price->kind, g.price->date, g.price->source)
                                  : "unknown");
    out += field("confidence", g.confidence);
    for (std::size_t i = 0; i < g.sources.size(); ++i) out += field(i == 0 ? "sources" : "", g.sources[i]);
    if (!g.notes.empty()) out += field("notes", g.notes);
    return out;
}

std::string rules_text() {
    std::string out = fmt::format("{:<22} {:<7} {}\n", "ID", "Kind", "What it checks");
    for (const Rule& r : rule_registry()) out += fmt::format("{:<22} {:<7} {}\n", r.id, to_string(r.kind), r.description);
    return out;
}

}  // namespace gpuadvise
