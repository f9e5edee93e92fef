#include "gpuadvise/fit.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"

namespace gpuadvise {
namespace {

// Each engine family's ladder, best first. GGUF: the 16-bit file and the
// K-quants people download; under 3 bits per weight (Q2_K) only as the last
// resort, since llama.cpp's own quantize table shows perplexity rising
// steeply below Q3_K (tools/quantize/quantize.cpp, QUANT_OPTIONS).
constexpr std::string_view kGguf[] = {"bf16",   "q8_0",   "q6_k",   "q5_k_m",
                                      "q4_k_m", "iq4_xs", "q3_k_m", "q2_k"};
constexpr std::string_view kServing[] = {"none", "fp8", "awq-int4", "gptq-int4"};
constexpr std::string_view kExl[] = {"exl2:8.0", "exl2:6.0", "exl2:5.0", "exl2:4.0", "exl2:3.0"};
constexpr std::string_view kMlx[] = {"none", "mlx-8bit", "mlx-4bit"};
constexpr std::string_view kNone[] = {"none"};
constexpr std::string_view kQlora[] = {"nf4"};
// The first rung offload is tried from: offloading a bigger file only to
// keep more bits is slower than a 4-bit file that fits better.
constexpr std::string_view kOffloadFrom = "q4_k_m";
// Below this many bits per weight (Q3_K_S and under) quality drops fastest in
// llama.cpp's quantize table; such fits rank after the others.
constexpr double kGoodBits = 3.5;

std::span<const std::string_view> ladder(const Workload& probe) {
    if (probe.method == Method::Qlora) return kQlora;
    if (probe.trains()) return kNone;
    const Engine* e = probe.engine;
    if (e == nullptr) return kNone;
    if (e->loads(QuantFamily::Gguf) && e->memory == MemoryPolicy::LlamaCpp) return kGguf;
    if (e->loads(QuantFamily::Exl)) return kExl;
    if (e->loads(QuantFamily::Mlx)) return kMlx;
    return kServing;
}

bool fits_everywhere(const Recommendation& r) {
    if (!r.fits) return false;
    for (const Placement& p : r.placement)
        if (p.bytes > p.usable_bytes) return false;
    return true;
}

}  // namespace

FitResult fit_models(const Request& base, const std::vector<ModelPreset>& presets,
                     std::span<const Gpu* const> cards, const RankOptions& options,
                     const FitOptions& fit) {
    FitResult out;
    const bool user_context =
        base.has(Field::Seq) || base.has(Field::Prompt) || base.has(Field::Gen);
    for (const ModelPreset& preset : presets) {
        if (!fit.family.empty() && preset.id.find(fit.family) == std::string::npos) continue;
        if (preset.arch.encoder_only || preset.arch.encoder_decoder) continue;  // no chat decode
        if (!user_context && preset.arch.max_position > 0 &&
            preset.arch.max_position < fit.min_context) {
            out.left_out.push_back(fmt::format("{}: trained for {} tokens, under --min-context {}",
                                               preset.id, preset.arch.max_position,
                                               fit.min_context));
            continue;
        }
        Request r = base;
        r.set(Field::Model, preset.id, "fit");
        if (!user_context) r.set(Field::Seq, std::to_string(fit.min_context), "--min-context");
        r.clear(Field::Quant);
        std::optional<FitRow> best;
        std::optional<FitRow> offloaded;
        std::optional<FitRow> tight_best;
        int tight_rungs_left = 1;
        bool offload_tried = false;
        std::optional<Workload> first_miss;  // described only if nothing fits
        Workload probe;
        try {
            probe = resolve_workload(r, {}, presets);
        } catch (const InputError& e) {
            out.left_out.push_back(fmt::format("{}: {}", preset.id, e.what()));
            continue;
        }
        for (const std::string_view quant : ladder(probe)) {
            Request q = r;
            if (quant != "none") q.set(Field::Quant, std::string(quant), "fit");
            Workload w;
            try {
                w = resolve_workload(q, {}, presets);
            } catch (const InputError&) {
                continue;  // a format this model or engine does not take
            }
            RankOptions o = options;
            o.offload = {};
            Recommendation rec = evaluate_box(w, cards, o, false);
            if (fits_everywhere(rec)) {
                // A tight fit keeps looking one rung down for a comfortable one,
                // as a person trades a few bits for headroom and context.
                FitRow row{&preset, std::string(quant),
                           8.0 * weight_bytes_per_param(w.quant, w.precision, w.double_quant),
                           std::move(rec), w};
                if (!row.plan.tight) {
                    if (!tight_best || tight_rungs_left-- > 0) best = std::move(row);
                    break;
                }
                if (!tight_best) tight_best = std::move(row);
                if (tight_rungs_left-- <= 0) break;
                continue;
            }
            if (!first_miss) first_miss = w;
            if (!fit.allow_offload || offloaded) continue;
            if (!offload_tried && quant != kOffloadFrom) continue;
            offload_tried = true;
            o.offload = {OffloadKind::Auto, 0};
            Recommendation off = evaluate_box(w, cards, o, false);
            if (off.fits && off.offload && off.offload->mode != OffloadMode::Gpu)
                offloaded =
                    FitRow{&preset, std::string(quant),
                           8.0 * weight_bytes_per_param(w.quant, w.precision, w.double_quant),
                           std::move(off), w};
        }
        const auto why_not = [&](const std::optional<Workload>& miss) -> std::string {
            if (!miss) return "does not fit";
            RankOptions o = options;
            o.offload = {};
            const Recommendation described = evaluate_box(*miss, cards, o);
            return described.reasons.empty() ? "does not fit" : described.reasons.front();
        };
        if (!best) best = std::move(tight_best);
        if (!best) best = std::move(offloaded);
        if (!best) {
            out.left_out.push_back(fmt::format("{}: {}", preset.id, why_not(first_miss)));
            continue;
        }
        // The rungs were probes: the kept one gets its reasons and warnings.
        RankOptions described = options;
        described.offload = best->plan.offload && best->plan.offload->mode != OffloadMode::Gpu
                                ? OffloadRequest{OffloadKind::Auto, 0}
                                : OffloadRequest{};
        best->plan = evaluate_box(best->workload, cards, described);
        RankOptions o = options;
        o.offload = best->plan.offload
                        ? OffloadRequest{OffloadKind::Layers, best->plan.offload->ngl()}
                        : OffloadRequest{};
        best->plan.limits = plan_limits(best->workload, best->plan, cards, o);
        const auto speed = best->plan.performance.decode_tokens_per_s;
        if (fit.min_speed && (!speed || *speed < *fit.min_speed)) {
            out.left_out.push_back(fmt::format("{}: ~{:.1f} tok/s, under --min-speed {:g}",
                                               preset.id, speed.value_or(0.0), *fit.min_speed));
            continue;
        }
        out.rows.push_back(std::move(*best));
    }
    // 0: on the GPU with at least kGoodBits; 1: fewer bits; 2: offloaded. A
    // tight fit stays in its tier: its context limit already says how tight.
    const auto tier = [](const FitRow& f) {
        if (f.plan.offload && f.plan.offload->mode != OffloadMode::Gpu) return 2;
        return f.bits_per_weight >= kGoodBits ? 0 : 1;
    };
    std::stable_sort(out.rows.begin(), out.rows.end(), [&](const FitRow& a, const FitRow& b) {
        if (tier(a) != tier(b)) return tier(a) < tier(b);
        if (fit.by_speed) {
            const double sa = a.plan.performance.decode_tokens_per_s.value_or(0.0);
            const double sb = b.plan.performance.decode_tokens_per_s.value_or(0.0);
            if (sa != sb) return sa > sb;
        }
        if (a.workload.model.params != b.workload.model.params)
            return a.workload.model.params > b.workload.model.params;
        if (a.bits_per_weight != b.bits_per_weight) return a.bits_per_weight > b.bits_per_weight;
        return a.preset->id < b.preset->id;
    });
    return out;
}

}  // namespace gpuadvise
