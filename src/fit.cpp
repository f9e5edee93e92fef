#include "gpuadvise/fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

// Below this many bits per weight (Q3_K_S and under) quality drops fastest in
// llama.cpp's quantize table (tools/quantize/quantize.cpp QUANT_OPTIONS:
// Q3_K_M +0.66 ppl, Q3_K_S +1.63, Q2_K +3.52 at Llama-3-8B); such fits rank
// after the others.
constexpr double kGoodBits = 3.5;

// One rung of a model's ladder: a weight format of a preset (or shape), or
// one of the user's files.
struct Rung {
    std::string label;          // "q4_k_m", "none", a file's ggml type
    std::string file;           // the file, as shown ("" for a format)
    Request request;            // the workload flags with the model and --quant
    ModelInputs inputs;         // the file or shape
    bool offload_from = false;  // offload is tried from this rung on
};

bool fits_everywhere(const Recommendation& r) {
    if (!r.fits) return false;
    for (const Placement& p : r.placement)
        if (p.bytes > p.usable_bytes) return false;
    return true;
}

double bits_of(const Workload& w) {
    if (w.model.weight_bytes && w.model.params > 0)
        return 8.0 * static_cast<double>(*w.model.weight_bytes) /
               static_cast<double>(w.model.params);
    return 8.0 * weight_bytes_per_param(w.quant, w.precision, w.double_quant);
}

std::string lower_copy(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The rungs of a preset or shape: its engine's fit_ladder. "default" (the
// workload's own format) is a rung of its own only where the checkpoint has
// a format (gpt-oss's MXFP4); a quantized checkpoint is not dequantized to more
// bits than it ships with, which adds memory and no quality. Training has one
// rung: the weights it trains, or QLoRA's base in its default format.
// Offload is tried from the engine's fit_offload_from rung on (or the first
// rung kept after it).
std::vector<Rung> ladder_rungs(const Request& r, const ModelInputs& inputs, const Workload& probe,
                               const std::vector<ModelPreset>& presets, bool own_format) {
    std::vector<Rung> rungs;
    const auto add = [&](std::string_view quant) {
        Rung rung{std::string(quant), "", r, inputs, false};
        if (quant == "default")
            rung.label = probe.quant.none() ? "none" : probe.quant.text();
        else
            rung.request.set(Field::Quant, std::string(quant), "fit");
        rungs.push_back(std::move(rung));
    };
    if (probe.trains() || probe.engine == nullptr) {
        add("default");
        return rungs;
    }
    const Engine& e = *probe.engine;
    const bool own = own_format && probe.model.arch.quantization &&
                     probe.model.arch.quantization->modelled() && !probe.quant.none();
    const double own_bits = own ? bits_of(probe) : 0.0;
    bool offload_next = false;
    for (const std::string_view q : e.fit_ladder) {
        offload_next = offload_next || (!e.fit_offload_from.empty() && q == e.fit_offload_from);
        bool keep = q != "default" || own;
        if (keep && own && q != "default") {
            Request with = r;
            with.set(Field::Quant, std::string(q), "fit");
            keep = bits_of(resolve_workload(with, inputs, presets)) <= own_bits + 1e-9;
        }
        if (!keep) continue;
        add(q);
        rungs.back().offload_from = offload_next;
        offload_next = false;
    }
    return rungs;
}

// The user's files of one model, most bits first; offload is tried from the
// first file no larger per weight than the engine's offload rung (Q4_K_M).
std::vector<Rung> file_rungs(const Request& r, const FitModel& m, double offload_bits) {
    std::vector<std::pair<double, std::size_t>> order;  // bits per weight, file
    for (std::size_t i = 0; i < m.files.size(); ++i) {
        const ModelFile& f = m.files[i];
        order.emplace_back(
            f.params > 0 ? 8.0 * static_cast<double>(f.weight_bytes) / static_cast<double>(f.params)
                         : 0.0,
            i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<Rung> rungs;
    bool offload_marked = false;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const ModelFile& f = m.files[order[k].second];
        Rung rung{lower_copy(f.quantization), f.source, r, ModelInputs{}, false};
        rung.inputs.model_file = f;
        const bool last = k + 1 == order.size();
        if (!offload_marked && (order[k].first <= offload_bits + 1e-9 || last)) {
            rung.offload_from = true;
            offload_marked = true;
        }
        rungs.push_back(std::move(rung));
    }
    return rungs;
}

double quality_of(std::uint64_t params, std::string_view released, const QualityProxy& proxy) {
    const double size = std::log2(std::max<double>(static_cast<double>(params), 1.0));
    const auto ref = release_months(proxy.reference);
    const auto when = release_months(released);
    if (!ref || !when || proxy.halving_months <= 0) return size;
    return size + static_cast<double>(*when - *ref) / proxy.halving_months;
}

}  // namespace

std::vector<FitModel> preset_models(const std::vector<ModelPreset>& presets,
                                    std::string_view family) {
    std::vector<FitModel> out;
    for (const ModelPreset& p : presets) {
        if (!family.empty() && p.id.find(family) == std::string::npos) continue;
        if (p.image || p.arch.encoder_only || p.arch.encoder_decoder) continue;  // no chat decode
        FitModel m;
        m.id = p.id;
        m.preset = &p;
        m.released = p.released;
        m.generation = p.generation;
        out.push_back(std::move(m));
    }
    return out;
}

FitResult fit_models(const Request& base, std::span<const FitModel> models,
                     const std::vector<ModelPreset>& presets, std::span<const Gpu* const> cards,
                     const RankOptions& options, const FitOptions& fit, const QualityProxy& proxy) {
    FitResult out;
    const bool user_context = base.has(Field::Seq) || base.has(Field::Prompt) ||
                              base.has(Field::Gen) || base.has(Field::Context);
    const bool any_file = std::any_of(models.begin(), models.end(),
                                      [](const FitModel& m) { return !m.files.empty(); });
    const bool any_preset = std::any_of(models.begin(), models.end(),
                                        [](const FitModel& m) { return m.preset != nullptr; });
    out.what = any_file || !any_preset ? "models from your files" : "presets";
    for (const FitModel& m : models) {
        const std::int64_t trained = m.preset ? m.preset->arch.max_position
                                     : !m.files.empty() && m.files.front().arch
                                         ? m.files.front().arch->max_position
                                         : 0;
        if (!user_context && trained > 0 && trained < fit.min_context) {
            out.left_out.push_back(fmt::format("{}: trained for {} tokens, under --min-context {}",
                                               m.id, trained, fit.min_context));
            continue;
        }
        Request r = base;
        if (m.preset) r.set(Field::Model, m.preset->id, "fit");
        if (!user_context) r.set(Field::Seq, std::to_string(fit.min_context), "--min-context");
        std::vector<Rung> rungs;
        const auto label = [&](const std::string& what) {
            return fmt::format("{}: {}", m.id, what);
        };
        if (m.files.empty()) {
            r.clear(Field::Quant);
            Workload probe;
            bool own_format = true;  // the engine loads the checkpoint's own format
            try {
                probe = resolve_workload(r, m.shape, presets);
            } catch (const InputError& e) {
                // A checkpoint the engine does not load as it ships (DeepSeek-V3's
                // FP8 on llama.cpp) may still run converted: probe with the
                // ladder's first format instead.
                const std::optional<Given>& engine = r.get(Field::Engine);
                std::optional<Workload> converted;
                if (engine && !r.has(Field::Method))
                    for (const std::string_view q :
                         parse_engine(engine->text, engine->origin).fit_ladder) {
                        if (q == "default") continue;
                        Request with = r;
                        with.set(Field::Quant, std::string(q), "fit");
                        try {
                            converted = resolve_workload(with, m.shape, presets);
                        } catch (const InputError&) {
                        }
                        break;
                    }
                if (!converted) {
                    out.left_out.push_back(label(e.what()));
                    continue;
                }
                probe = std::move(*converted);
                own_format = false;
            }
            rungs = ladder_rungs(r, m.shape, probe, presets, own_format);
        } else {
            // The engine's offload rung, as bits per weight of a file.
            double offload_bits = 0;
            ModelInputs first;
            first.model_file = m.files.front();
            const Workload probe = resolve_workload(r, first, presets);
            if (probe.engine && !probe.engine->fit_offload_from.empty())
                if (const QuantFormat* f = find_quant(probe.engine->fit_offload_from))
                    offload_bits = Quant{f, 0}.bits_per_weight(false);
            rungs = file_rungs(r, m, offload_bits);
        }

        std::optional<FitRow> best, offloaded, tight_best, slow;
        int tight_rungs_left = 1;
        bool offload_on = false;
        // The miss of fewest bits, described only if nothing fits.
        std::optional<Workload> last_miss;
        std::string last_miss_at;
        const auto too_slow = [&](const Workload& w, const Recommendation& rec) {
            if (w.trains()) return false;  // --min-speed is a decode speed
            const auto speed = rec.performance.decode_tokens_per_s;
            if (!speed) return fit.min_speed_given;
            return *speed < fit.min_speed;
        };
        const auto row_of = [&](const Rung& rung, Recommendation rec, const Workload& w) {
            return FitRow{m.id,
                          m.preset,
                          rung.file,
                          rung.label,
                          bits_of(w),
                          m.released,
                          quality_of(w.model.params, m.released, proxy),
                          std::move(rec),
                          w};
        };
        // Of the rungs too slow, the fastest says how close the model came.
        const auto keep_fastest = [&](FitRow row) {
            const double v = row.plan.performance.decode_tokens_per_s.value_or(0.0);
            if (!slow || v > slow->plan.performance.decode_tokens_per_s.value_or(0.0))
                slow = std::move(row);
        };
        for (const Rung& rung : rungs) {
            Workload w;
            try {
                w = resolve_workload(rung.request, rung.inputs, presets);
            } catch (const InputError& e) {
                // A rung was checked against data/quants.json at build time; what
                // fails now is the user's flags with it: said, not skipped.
                throw InputError(fmt::format("fit {} at {}: {}", m.id,
                                             rung.file.empty() ? rung.label : rung.file, e.what()));
            }
            RankOptions o = options;
            o.offload = {};
            Recommendation rec = evaluate_box(w, cards, o, Detail::Numbers);
            offload_on = offload_on || rung.offload_from;
            if (fits_everywhere(rec)) {
                if (too_slow(w, rec)) {
                    keep_fastest(row_of(rung, std::move(rec), w));
                    continue;  // fewer bits read per token: a lower rung is faster
                }
                // A tight fit keeps looking one rung down for a comfortable one,
                // as a person trades a few bits for headroom and context.
                FitRow row = row_of(rung, std::move(rec), w);
                if (!row.plan.tight) {
                    if (!tight_best || tight_rungs_left-- > 0) best = std::move(row);
                    break;
                }
                if (!tight_best) tight_best = std::move(row);
                if (tight_rungs_left-- <= 0) break;
                continue;
            }
            last_miss = w;
            last_miss_at = rung.file.empty() ? rung.label : rung.file;
            if (!fit.allow_offload || offloaded || !offload_on) continue;
            o.offload = {OffloadKind::Auto, 0};
            Recommendation off = evaluate_box(w, cards, o, Detail::Numbers);
            if (off.fits && off.offload && off.offload->mode != OffloadMode::Gpu) {
                if (too_slow(w, off)) {
                    keep_fastest(row_of(rung, std::move(off), w));
                    continue;
                }
                offloaded = row_of(rung, std::move(off), w);
            }
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
            if (slow)
                out.left_out.push_back(label(
                    fmt::format("~{:.1f} tok/s at best ({}), under --min-speed {:g}{}",
                                slow->plan.performance.decode_tokens_per_s.value_or(0.0),
                                slow->file.empty() ? slow->quant : slow->file, fit.min_speed,
                                fit.min_speed_given ? "" : " (the default: about reading speed)")));
            else if (last_miss && rungs.size() > 1)
                out.left_out.push_back(
                    label(fmt::format("at {}, {}", last_miss_at, why_not(last_miss))));
            else
                out.left_out.push_back(label(why_not(last_miss)));
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
        if (a.quality != b.quality) return a.quality > b.quality;
        if (a.bits_per_weight != b.bits_per_weight) return a.bits_per_weight > b.bits_per_weight;
        return a.model < b.model;
    });
    out.ranking = fmt::format(
        "Ranked by {}fully on the GPU first, then under {:g} bits per weight, then offloaded; "
        "within each by parameters counted up for newer releases (a model {:g} months newer counts "
        "as twice the size; docs/runtimes.md), then bits per weight",
        fit.by_speed ? "speed within tiers: " : "quality: ", kGoodBits, proxy.halving_months);
    return out;
}

}  // namespace gpuadvise
