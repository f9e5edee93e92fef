#include "gpuadvise/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "gpuadvise/build_sheet.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {

std::optional<double> rounded_rate(const std::optional<double>& v) {
    if (!v || !std::isfinite(*v)) return std::nullopt;
    const double digits = std::max(0.0, 2.0 - std::floor(std::log10(std::max(*v, 1e-9))));
    const double scale = std::pow(10.0, std::min(digits, 6.0));
    return std::round(*v * scale) / scale;
}

std::string lora_targets_text(const Workload& w) {
    std::vector<std::string> t;
    for (auto target : w.lora_targets) t.push_back(to_string(target));
    return fmt::format("{}", fmt::join(t, ","));
}

namespace {

using ojson = nlohmann::ordered_json;

template <typename T>
ojson opt(const std::optional<T>& v) {
    return v ? ojson(*v) : ojson(nullptr);
}

ojson rate(const std::optional<double>& v) { return opt(rounded_rate(v)); }


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
    if (w.model.weight_bytes) {
        j["weight_bytes"] = *w.model.weight_bytes;
        j["file_quantization"] = w.model.file_quantization;
    }
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
        j["mixed_precision"] = to_string(w.mixed);
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

}  // namespace gpuadvise
