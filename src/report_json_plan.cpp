// The JSON of a plan: its performance, its offload placement and the whole
// recommendation (cards, platform, topology, memory, speed, reasons and rule
// hits, build sheet, suggestions), as one ranked entry or `estimate --gpu`'s
// and `check`'s plan.
#include <cmath>

#include "gpuadvise/build_sheet.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_load.hpp"
#include "gpuadvise/report_suggest.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/units.hpp"
#include "report_json_common.hpp"

namespace gpuadvise {

void write_performance(json::Writer& j, const Performance& p) {
    j.begin_object();
    if (p.bound == Bound::Unknown)
        j.key("bound").null();
    else
        j.field("bound", kBounds.name(p.bound));
    j.field("decode_tokens_per_s", rounded_rate(p.decode_tokens_per_s));
    j.field("prefill_tokens_per_s", rounded_rate(p.prefill_tokens_per_s));
    j.field("train_tokens_per_s", rounded_rate(p.train_tokens_per_s));
    j.field("step_seconds", rounded_rate(p.step_seconds));
    j.field("micro_step_seconds", rounded_rate(p.micro_step_seconds));
    j.field("paging_seconds", rounded_rate(std::optional<double>(p.paging_seconds)));
    j.field("offload_seconds", rounded_rate(std::optional<double>(p.offload_seconds)));
    j.field("time_to_first_token_s", rounded_rate(p.time_to_first_token_s));
    j.field("image_encode_seconds", rounded_rate(p.image_encode_seconds));
    j.field("job_hours", rounded_rate(p.job_hours));
    j.field("job_cost_usd", rounded_rate(p.job_cost_usd));
    j.field("energy_kwh", rounded_rate(p.energy_kwh));
    j.field("usd_per_million_tokens", rounded_rate(p.usd_per_million_tokens));
    j.field("mfu",
            p.mfu ? std::optional<double>(std::round(*p.mfu * 1000.0) / 1000.0) : std::nullopt);
    j.key("matmul_rate");
    if (!p.matmul_rate || !p.matmul_rate->tflops) {
        j.null();
    } else {
        const AttainableRate& r = *p.matmul_rate;
        j.begin_object();
        j.field("dtype", kRateDtypes.name(r.dtype));
        j.field("tflops", rounded_rate(r.tflops));
        j.field("peak_tflops", rounded_rate(std::optional<double>(r.peak)));
        j.field("basis", kRateBases.name(r.basis));
        j.end_object();
    }
    j.field("gpu_hours", rounded_rate(p.gpu_hours));
    j.field("job_tokens", rounded_rate(p.job_tokens));
    j.field("days", rounded_rate(p.days));
    j.field("goodput", p.goodput);
    j.field("pue", p.pue);
    j.field("images_per_s", rounded_rate(p.images_per_s));
    j.field("seconds_per_image", rounded_rate(p.seconds_per_image));
    j.field("denoise_step_seconds", rounded_rate(p.denoise_step_seconds));
    j.field("streams_max", rounded_rate(p.streams_max));
    j.field("seconds_per_clip", rounded_rate(p.seconds_per_clip));
    j.field("video_frames_per_s", rounded_rate(p.video_frames_per_s));
    j.field("sequences_per_s", rounded_rate(p.sequences_per_s));
    j.field("batch_seconds", rounded_rate(p.batch_seconds));
    j.key("speculative");
    if (!p.speculative) {
        j.null();
    } else {
        const SpeculativeRate& r = *p.speculative;
        j.begin_object();
        j.field("draft_tokens", r.draft_tokens);
        j.field("acceptance", std::round(r.acceptance * 1000.0) / 1000.0);
        j.field("tokens_per_step", rounded_rate(r.tokens_per_step));
        j.field("draft_step_seconds", rounded_rate(r.draft_step_seconds));
        j.field("verify_seconds", rounded_rate(r.verify_seconds));
        j.field("step_seconds", rounded_rate(r.step_seconds));
        j.field("decode_tokens_per_s_without_draft", rounded_rate(r.without_tokens_per_s));
        j.field("speedup", rounded_rate(r.speedup));
        j.end_object();
    }
    // Each rate's [low, high] from its phase's band; null when either is absent.
    const auto range = [&](std::string_view key, const std::optional<double>& v,
                           const std::optional<std::pair<double, double>>& band, bool inverse) {
        j.key(key);
        if (!v || !band) {
            j.null();
            return;
        }
        const double lo = inverse ? *v / band->second : *v * band->first;
        const double hi = inverse ? *v / band->first : *v * band->second;
        j.begin_array().value(rounded_rate(lo).value_or(0.0)).value(rounded_rate(hi).value_or(0.0));
        j.end_array();
    };
    j.key("range").begin_object();
    range("decode_tokens_per_s", p.decode_tokens_per_s, p.decode_band, false);
    range("prefill_tokens_per_s", p.prefill_tokens_per_s, p.prefill_band, false);
    range("train_tokens_per_s", p.train_tokens_per_s, p.train_band, false);
    range("step_seconds", p.step_seconds, p.train_band, true);
    range("images_per_s", p.images_per_s, p.images_band, false);
    j.end_object();
    write_calibrated(j, p.calibrated_from, false);
    if (p.cost_basis == CostBasis::None)
        j.key("cost_basis").null();
    else
        j.field("cost_basis", kCostBases.name(p.cost_basis));
    j.end_object();
}

// "offload": the placement, or null.
void write_offload(json::Writer& j, const OffloadPlan* o) {
    j.key("offload");
    if (!o) {
        j.null();
        return;
    }
    j.begin_object().field("mode", kOffloadModes.name(o->mode));
    j.field("gpu_layers", o->gpu_layers).field("total_layers", o->total_layers);
    j.field("output_on_gpu", o->output_on_gpu).field("ngl", o->ngl());
    j.field("host_expert_layers", o->host_expert_layers);
    j.field("host_bytes", o->host_bytes).end_object();
}

void write_recommendation(json::Writer& j, const Recommendation& r, std::size_t rank) {
    const Gpu& g = *r.gpu;
    j.begin_object();
    j.field("rank", static_cast<std::uint64_t>(rank));
    j.field("gpu", g.id);
    j.field("vendor", to_string(g.vendor));
    j.field("segment", to_string(g.segment));
    j.field("form", to_string(g.form));
    j.field("name", g.name);
    j.field("count", r.count);
    j.key("plan")
        .begin_object()
        .field("count", r.count)
        .field("strategy", to_string(r.strategy))
        .end_object();
    j.field("fits", r.fits);
    j.field("fit", fit_word(r));
    j.field("fit_chance", std::round(r.fit_chance * 1000.0) / 1000.0);
    j.field("standing", to_string(r.standing));
    j.field("per_gpu_bytes", r.memory.per_gpu_bytes);
    j.field("usable_bytes", r.usable_bytes);
    j.field("memory_bytes", g.memory_bytes);
    j.field("headroom_bytes", r.headroom_bytes);
    j.field("memory_bandwidth_gbps", g.memory_bandwidth_gbps);
    if (r.price_usd > 0)
        j.field("price_usd", r.price_usd);
    else
        j.key("price_usd").null();
    if (const std::string_view kind = plan_price_kind(r); !kind.empty())
        j.field("price_kind", kind);
    else
        j.key("price_kind").null();
    j.key("platform");
    if (r.platform) {
        const HostPlatform& p = *r.platform;
        j.begin_object().field("id", p.id).field("name", p.name);
        j.field("kind", kPlatformKinds.name(p.kind));
        j.field("usd",
                r.platform_usd > 0 || p.usd ? std::optional<double>(r.platform_usd) : std::nullopt);
        j.field("price_kind", kPriceKinds.name(p.price_kind)).field("basis", p.usd_basis);
        j.field("lanes", p.lanes_per_gpu).field("watts", p.host_watts);
        j.end_object();
    } else {
        j.null();
    }
    j.key("total_usd");
    if (r.total_usd > 0)
        j.value(r.total_usd);
    else
        j.null();
    j.field("replicas", r.replicas);
    j.key("rent_usd_per_hour");
    if (r.rent_usd_per_hour > 0)
        j.value(std::round(r.rent_usd_per_hour * 100.0) / 100.0);
    else
        j.null();
    j.key("engine");
    if (r.engine)
        j.value(r.engine->id);
    else
        j.null();
    j.key("topology").begin_object();
    j.field("kind", kTopologyKinds.name(r.topology.kind)).field("p2p", r.topology.p2p);
    j.field("domains", r.topology.domains);
    j.field("nodes", r.nodes).field("gpus_per_node", r.count / std::max<std::int64_t>(r.nodes, 1));
    j.key("network");
    if (r.network)
        j.value(r.network->id);
    else
        j.null();
    const Layout l = plan_layout(r);
    j.field("tp", l.tp).field("pp", l.pp).field("dp", l.dp).field("cp", l.cp).field("ep", l.ep);
    j.field("vpp", l.vpp);
    const std::optional<int> zero = zero_stage(r);
    j.field("zero_stage", zero ? std::optional<std::int64_t>(*zero) : std::nullopt);
    j.field("fsdp", zero ? std::optional<bool>(r.strategy == Parallel::Fsdp) : std::nullopt);
    const bool training = r.micro_batch > 0;
    const auto opt = [&](std::int64_t v) {
        return training ? std::optional<std::int64_t>(v) : std::nullopt;
    };
    j.field("micro_batch", opt(r.micro_batch)).field("micro_batches", opt(r.micro_batches));
    const std::int64_t global = l.dp * r.micro_batches * r.micro_batch;
    j.field("global_batch", opt(global)).field("global_batch_tokens", opt(global * r.seq));
    j.end_object();
    j.key("layouts").begin_array();
    for (const LayoutChoice& c : r.layouts) {
        j.begin_object().field("label", layout_label(c.layout));
        j.field("tp", c.layout.tp).field("pp", c.layout.pp).field("dp", c.layout.dp);
        j.field("cp", c.layout.cp).field("ep", c.layout.ep).field("vpp", c.layout.vpp);
        j.field("sharding", to_string(c.sharding)).field("micro_batches", c.micro_batches);
        j.field("per_gpu_bytes", c.per_gpu_bytes).field("fits", c.fits).field("tight", c.tight);
        j.field("tokens_per_s_per_gpu", rounded_rate(c.tokens_per_s_per_gpu));
        j.end_object();
    }
    j.end_array();
    j.key("placement");
    if (r.placement.empty()) {
        j.null();
    } else {
        j.begin_array();
        for (const Placement& p : r.placement) {
            j.begin_object().field("gpu", p.gpu->id);
            j.key("layers");
            if (p.layers > 0)
                j.value(p.layers);
            else
                j.null();
            j.field("share", std::round(p.share * 10000.0) / 10000.0);
            j.field("bytes", p.bytes).field("usable_bytes", p.usable_bytes);
            j.field("fits", p.bytes <= p.usable_bytes).end_object();
        }
        j.end_array();
    }
    write_offload(j, r.offload ? &*r.offload : nullptr);
    // The diffusers offload a ranking added where the whole pipeline does not fit.
    j.key("cpu_offload");
    if (r.cpu_offload)
        j.value(kCpuOffloads.name(*r.cpu_offload));
    else
        j.null();
    if (r.limits) {
        j.key("limits").begin_object();
        j.field("max_context_tokens", r.limits->max_context_tokens);
        j.field("at_batch", r.limits->at_batch);
        j.field("max_batch", r.limits->max_batch);
        j.field("at_context_tokens", r.limits->at_context_tokens);
        j.field("context_capped_by_model", r.limits->context_capped_by_model);
        j.end_object();
    }
    if (r.suggestions) {
        j.key("suggestions");
        write_suggestions(j, *r.suggestions);
    }
    write_load(j, r);
    j.field("score", std::isfinite(r.score) ? std::round(r.score * 1000.0) / 1000.0 : 0.0);
    j.key("performance");
    write_performance(j, r.performance);
    write_strings(j, "reasons", r.reasons);
    write_strings(j, "warnings", r.warnings);
    write_strings(j, "tips", r.tips);
    j.key("rules_fired").begin_array();
    for (const auto& hit : r.fired)
        j.begin_object()
            .field("id", hit.id)
            .field("kind", to_string(hit.kind))
            .field("message", hit.message)
            .end_object();
    j.end_array();
    const BuildSheet b = build_sheet(g, r.count, r.platform);
    j.key("build_sheet").begin_object();
    j.field("system_watts", b.system_watts);
    j.field("psu_watts", b.psu_watts);
    j.field("power", b.power_note);
    j.key("pcie")
        .begin_object()
        .field("gen", b.pcie_gen)
        .field("lanes", b.pcie_lanes)
        .field("slots", b.slots)
        .end_object();
    j.field("host_link", b.host_link_note);
    j.field("software", b.software);
    j.field("platform", b.platform);
    j.field("buy_beats_rent_months", r.buy_beats_rent_months);
    j.end_object();
    j.end_object();
}

}  // namespace gpuadvise
