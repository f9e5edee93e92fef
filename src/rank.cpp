// The ranking: every card's best plan (numbers first, texts for the shown
// ones), ordered by --rank-by with ties to the cheaper system, each shown
// plan compared with the next; and the source document's own pick.
#include "gpuadvise/rank.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "gpuadvise/error.hpp"
#include "gpuadvise/units.hpp"
#include "plan_common.hpp"

namespace gpuadvise {
namespace {

// A larger plan replaces a smaller one under --rank-by speed only when it is
// clearly faster: 5 % is within the speed model's own error.
constexpr double kBiggerPlanMargin = 1.05;

// "#1 costs 38 % less per token than #2 ..." for two fitting plans.
std::optional<std::string> compare_plans(const Recommendation& a, const Recommendation& b,
                                         std::size_t rank) {
    if (!a.fits || !b.fits) return std::nullopt;
    const auto sa = a.performance.rate(), sb = b.performance.rate();
    std::vector<std::string> parts;
    const auto pa = a.performance.usd_per_million_tokens, pb = b.performance.usd_per_million_tokens;
    if (pa && pb && *pb > 0 && *pa > 0) {
        const double d = 100.0 * (1.0 - *pa / *pb);
        parts.push_back(d >= 0 ? fmt::format("{:.0f} % less per token", d)
                               : fmt::format("{:.0f} % more per token", -d));
    }
    if (a.total_usd > 0 && b.total_usd > 0 && a.total_usd != b.total_usd)
        parts.push_back(
            a.total_usd < b.total_usd
                ? fmt::format("${:.0f} less for the system", b.total_usd - a.total_usd)
                : fmt::format("${:.0f} more for the system", a.total_usd - b.total_usd));
    if (sa && sb && *sb > 0)
        parts.push_back(fmt::format("{:.0f} % of its speed", 100.0 * *sa / *sb));
    if (a.count < b.count) parts.push_back(fmt::format("{} fewer cards", b.count - a.count));
    if (a.tight != b.tight) parts.push_back(a.tight ? "less headroom" : "more headroom");
    if (parts.empty()) return std::nullopt;
    std::string out = fmt::format("vs #{} ({}):", rank + 1, plan_label(b));
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : " ") + parts[i];
    return out;
}
// Of two misses of one card, the one to show: a plan that holds the model
// but breaks a rule (a budget, a deadline) before one that does not hold it;
// between deadline misses the one that finishes sooner; else the least memory
// short. Equal misses keep the smaller plan (tried first).
bool nearer_miss(const Recommendation& a, const Recommendation& b) {
    const bool ha = a.headroom_bytes >= 0, hb = b.headroom_bytes >= 0;
    if (ha != hb) return ha;
    if (ha) {
        const double inf = std::numeric_limits<double>::infinity();
        return a.performance.job_hours.value_or(inf) < b.performance.job_hours.value_or(inf);
    }
    return a.headroom_bytes > b.headroom_bytes;
}

// One card with part of the model in host memory (llama.cpp-style engines):
// on each host platform that holds the card and states its RAM, the plan
// --offload auto makes there; the best that fits. `only` re-evaluates the
// host a ranked plan chose, with its texts.
std::optional<Recommendation> offload_plan(const Workload& w, const Gpu& gpu,
                                           const RankOptions& options,
                                           const HostPlatform* only = nullptr,
                                           Detail detail = Detail::Verdict) {
    if (options.offload.kind != OffloadKind::None || !w.is_language() || w.trains() ||
        gpu.shares_host_memory() || (options.fixed_gpus && *options.fixed_gpus != 1))
        return std::nullopt;
    const Engine* engine = plan_detail::plan_engine(w, gpu);
    if (engine == nullptr || engine->multi_gpu != MultiGpu::Layers) return std::nullopt;
    std::optional<Recommendation> best;
    for (const HostPlatform& host : host_platforms()) {
        if ((only && &host != only) || (options.platform && &host != options.platform)) continue;
        if (!host.ram_gb || !host.holds(gpu, 1)) continue;
        RankOptions o = options;
        o.platform = &host;
        o.offload = {OffloadKind::Auto, 0};
        Recommendation rec = evaluate_plan(w, gpu, 1, o, nullptr, detail);
        if (!rec.fits || !rec.offload || rec.offload->mode == OffloadMode::Gpu) continue;
        if (!(rec.performance.decode_tokens_per_s.value_or(0.0) >= kReadableTokensPerS)) continue;
        if (!best || ranks_before(rec, *best)) best = std::move(rec);
    }
    return best;
}

// A diffusion pipeline that does not fit whole on one card runs there with
// diffusers' own answer, the one its memory guide gives and FLUX.1-dev's
// model card ships (pipe.enable_model_cpu_offload()): one component on the
// GPU at a time, else one layer (enable_sequential_cpu_offload). The copies
// cost the plan its speed (image_performance.cpp), so a card that holds the
// whole pipeline still ranks on its own speed. Not where the user chose an
// offload, under ComfyUI (which loads each model as a node needs it), or on
// memory the host shares. `only` re-evaluates the mode a ranked plan chose.
std::optional<Recommendation> pipeline_offload_plan(const Workload& w, const Gpu& gpu,
                                                    const RankOptions& options,
                                                    std::optional<CpuOffload> only = std::nullopt,
                                                    Detail detail = Detail::Verdict) {
    if (!w.is_diffusion() || w.image.offload_given || w.image.offload != CpuOffload::None ||
        w.image.setup != ImageSetup::Diffusers || gpu.shares_host_memory() ||
        (options.fixed_gpus && *options.fixed_gpus != 1))
        return std::nullopt;
    for (const CpuOffload mode : {CpuOffload::Model, CpuOffload::Sequential}) {
        if (only && mode != *only) continue;
        Workload offloaded = w;
        offloaded.image.offload = mode;
        Recommendation rec = evaluate_plan(offloaded, gpu, 1, options, nullptr, detail);
        if (!rec.fits) continue;
        rec.cpu_offload = mode;
        if (detail == Detail::Texts && !rec.reasons.empty()) {
            const MemoryEstimate whole =
                evaluate_plan(w, gpu, 1, options, nullptr, Detail::Verdict).memory;
            rec.reasons.front() = fmt::format(
                "with diffusers' {} CPU offload (--cpu-offload {}: the whole pipeline needs {} "
                "of its {}): {}",
                mode == CpuOffload::Model ? "model" : "sequential", kCpuOffloads.name(mode),
                format_gib(whole.per_gpu_bytes), format_gib(rec.usable_bytes), rec.reasons.front());
        }
        return rec;
    }
    return std::nullopt;
}

// What ranks_before reads of a plan before the card's id: the ranking's sort
// compares these small records, not 1,784-byte plans read at random (100,000
// of them are 178 MB).
struct PlanKey {
    bool fits;
    Standing standing;
    std::optional<double> days, seconds_per_clip;
    double rate;
    double total_usd;
    double score;
    std::int64_t headroom_bytes;
};

PlanKey plan_key(const Recommendation& r) {
    return {r.fits,
            r.standing,
            r.performance.days,
            r.performance.seconds_per_clip,
            r.performance.rate().value_or(0.0),
            r.total_usd,
            r.score,
            r.headroom_bytes};
}

// ranks_before up to the card's id: nullopt when the two tie before it.
std::optional<bool> ranks_before_by_plan(const PlanKey& a, const PlanKey& b) {
    if (a.fits != b.fits) return a.fits;
    if (a.fits) {
        if (a.standing != b.standing) return a.standing < b.standing;
        const double inf = std::numeric_limits<double>::infinity();
        switch (a.standing) {
            case Standing::Late:
                // Jobs over the long-job rule's days: the one that finishes first; slow clips:
                // the one that makes its clip first.
                if (a.days != b.days) return a.days.value_or(inf) < b.days.value_or(inf);
                if (a.seconds_per_clip != b.seconds_per_clip)
                    return a.seconds_per_clip.value_or(inf) < b.seconds_per_clip.value_or(inf);
                break;
            case Standing::Unknown: {
                // What is known: the faster, then the cheaper.
                if (a.rate != b.rate) return a.rate > b.rate;
                const double ua = a.total_usd > 0 ? a.total_usd : inf;
                const double ub = b.total_usd > 0 ? b.total_usd : inf;
                if (ua != ub) return ua < ub;
                break;
            }
            default:
                if (a.score != b.score) return a.score > b.score;
                break;
        }
    } else {
        // Misses that hold the model (a budget, a platform, software, a
        // deadline) come first, cheapest first: the nearest thing a buyer
        // could do. Then the least memory short per GPU.
        const bool ma = a.headroom_bytes >= 0, mb = b.headroom_bytes >= 0;
        if (ma != mb) return ma;
        if (ma) {
            const double ua = a.total_usd > 0 ? a.total_usd : 1e300;
            const double ub = b.total_usd > 0 ? b.total_usd : 1e300;
            if (ua != ub) return ua < ub;
        } else if (a.headroom_bytes != b.headroom_bytes) {
            return a.headroom_bytes > b.headroom_bytes;
        }
    }
    return std::nullopt;
}

// The first 8 bytes of an id, big-endian and zero-padded: ordered as the ids
// are (an id holds no NUL), so most ties of plans end without a memcmp of
// texts scattered over a large catalog's file.
std::uint64_t id_prefix(std::string_view id) {
    std::uint64_t p = 0;
    for (std::size_t k = 0; k < 8; ++k)
        p = (p << 8U) | (k < id.size() ? static_cast<unsigned char>(id[k]) : std::uint64_t{0});
    return p;
}

// The plans a card whose GPU-only plans miss falls back to: part of the
// model in host memory (llama.cpp-style engines), else diffusers' CPU
// offload (a diffusion pipeline).
std::optional<Recommendation> fallback_plan(const Workload& w, const Gpu& gpu,
                                            const RankOptions& options, Detail detail) {
    if (auto offloaded = offload_plan(w, gpu, options, nullptr, detail)) return offloaded;
    return pipeline_offload_plan(w, gpu, options, std::nullopt, detail);
}

// The last of ranks_before's keys: the card's id, then the count.
bool ranks_before_by_card(const Recommendation& a, const Recommendation& b) {
    if (a.gpu->id != b.gpu->id) return a.gpu->id < b.gpu->id;
    return a.count < b.count;
}

}  // namespace

Recommendation plan_on_card(const Workload& w, const Gpu& gpu, std::int64_t count,
                            const RankOptions& options) {
    Recommendation rec = evaluate_plan(w, gpu, count, options);
    if (rec.fits || count != 1) return rec;
    return fallback_plan(w, gpu, options, Detail::Texts).value_or(std::move(rec));
}

bool ranks_before(const Recommendation& a, const Recommendation& b) {
    if (const auto r = ranks_before_by_plan(plan_key(a), plan_key(b))) return *r;
    return ranks_before_by_card(a, b);
}

std::vector<Recommendation> rank(const Workload& workload, const Catalog& catalog,
                                 const RankOptions& options) {
    std::vector<std::int64_t> counts;
    if (workload.is_fixed() || (workload.is_image() && !workload.trains() && !options.fixed_gpus)) {
        // A task preset's requirement is for one card; an image pipeline runs
        // whole on one card (more cards are replicas, --gpus N).
        counts.push_back(1);
    } else if (options.fixed_gpus) {
        counts.push_back(*options.fixed_gpus);
    } else {
        for (std::int64_t c = 1; c <= options.max_gpus; c *= 2) counts.push_back(c);
        if (counts.empty()) counts.push_back(1);
    }
    // Plans copy the workload; the texts that describe it are not needed there
    // (the workload's own warnings are added to the described plans).
    Workload slim = workload;
    slim.assumed.clear();
    slim.warnings.clear();
    // The memory estimates depend on the workload only: each is made once
    // for the cards that share it.
    SharedEstimates shared(slim);

    // First pass: numbers only (no texts), the best plan of every card.
    std::vector<Recommendation> plans;
    plans.reserve(catalog.gpus.size());
    for (const Gpu& gpu : catalog.gpus) {
        if (options.vendor && gpu.vendor != *options.vendor) continue;
        if (options.segment && gpu.segment != *options.segment) continue;
        // Cards sold only in one market, or only as cloud instances, are not
        // a purchase anyone can make elsewhere.
        if (gpu.region && (!options.region || *options.region != *gpu.region)) continue;
        if (gpu.cloud_only && !options.rent) continue;
        // The computer assumed under a small budget is a desktop: a module
        // needs a server baseboard, a purchase the budget did not count.
        if (options.budget_basis == BudgetBasis::HaveHostAssumed && gpu.form == FormFactor::Module)
            continue;
        std::optional<Recommendation> best,
            closest;  // closest: the nearest miss, shown when nothing fits
        for (const std::int64_t count : counts) {
            // Sizes no platform holds are not plans (eight Macs are not one box);
            // the first size tried is always kept, to say why it does not fit.
            if ((best || closest) && !options.platform && choose_platform(gpu, count) == nullptr &&
                !choose_nodes(gpu, count, options.gpus_per_node))
                break;
            Recommendation rec = evaluate_plan(slim, gpu, count, options, &shared, Detail::Verdict);
            if (!rec.fits) {
                if (!closest || nearer_miss(rec, *closest)) closest = std::move(rec);
                continue;
            }
            // The smallest fitting plan wins; a larger one when ranking by
            // speed and it is clearly faster, or when the smaller one's job
            // takes longer than the long-job rule allows (the first on time wins, else the
            // fastest).
            if (!best) {
                best = std::move(rec);
                if (options.rank_by != RankBy::Speed && best->standing != Standing::Late) break;
            } else if (best->standing == Standing::Late) {
                const bool on_time = rec.standing != Standing::Late;
                if (on_time || rec.performance.days < best->performance.days) best = std::move(rec);
                if (on_time && options.rank_by != RankBy::Speed) break;
            } else if (rec.standing == Standing::Ranked &&
                       rec.score > best->score * kBiggerPlanMargin) {
                best = std::move(rec);
            }
        }
        // A card whose GPU-only plans miss may still run the model with part
        // of it in host memory (local engines, on a host that holds the RAM)
        // or the pipeline with diffusers' CPU offload.
        if (!best) best = fallback_plan(slim, gpu, options, Detail::Verdict);
        Recommendation& kept = plans.emplace_back(best ? std::move(*best) : std::move(*closest));
        // Only the shown plans keep their rule hits and notes (they are
        // evaluated again with texts below); 100,000 cards must fit in memory.
        kept.fired = {};
        kept.memory.notes = {};
    }
    // Sort indices, not 500-byte plans.
    std::vector<std::size_t> order(plans.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    // Under --deadline, the misses nearest to it are the plans that run and
    // finish soonest after it, before those that cannot run at all.
    const bool by_time = options.job.deadline_hours.has_value();
    std::vector<PlanKey> keys;
    std::vector<std::uint64_t> prefix;
    keys.reserve(plans.size());
    prefix.reserve(plans.size());
    for (const Recommendation& r : plans) {
        keys.push_back(plan_key(r));
        prefix.push_back(id_prefix(r.gpu->id));
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t ia, std::size_t ib) {
        const PlanKey &a = keys[ia], &b = keys[ib];
        if (by_time && !a.fits && !b.fits && a.headroom_bytes >= 0 && b.headroom_bytes >= 0) {
            const auto da = a.days, db = b.days;
            if (da.has_value() != db.has_value()) return da.has_value();
            if (da && db && *da != *db) return *da < *db;
        }
        // ranks_before, with the ids' prefixes first.
        if (const auto r = ranks_before_by_plan(a, b)) return *r;
        if (prefix[ia] != prefix[ib]) return prefix[ia] < prefix[ib];
        return ranks_before_by_card(plans[ia], plans[ib]);
    });
    // Put the plans in that order in place (following each cycle of the
    // permutation), so there is one array of plans, not two.
    std::vector<Recommendation> out = std::move(plans);
    for (std::size_t start = 0; start < order.size(); ++start) {
        if (order[start] == start) continue;
        Recommendation held = std::move(out[start]);
        std::size_t at = start;
        while (order[at] != start) {
            const std::size_t from = order[at];
            out[at] = std::move(out[from]);
            order[at] = at;
            at = from;
        }
        out[at] = std::move(held);
        order[at] = at;
    }
    // Second pass: the plans that are shown get their texts.
    const std::size_t shown = std::min(options.describe_top, out.size());
    for (std::size_t i = 0; i < shown; ++i) {
        // Again as it was made: a fallback plan with the host or offload it chose.
        const Gpu& gpu = *out[i].gpu;
        Recommendation rec =
            out[i].offload && out[i].offload->mode != OffloadMode::Gpu &&
                    options.offload.kind == OffloadKind::None
                ? offload_plan(slim, gpu, options, out[i].platform, Detail::Texts).value_or(out[i])
            : out[i].cpu_offload
                ? pipeline_offload_plan(slim, gpu, options, out[i].cpu_offload, Detail::Texts)
                      .value_or(out[i])
                : evaluate_plan(slim, gpu, out[i].count, options, &shared);
        for (const auto& warning : workload.warnings) rec.warnings.push_back(warning);
        // Only the shown plans get a curve: it evaluates the plan at a dozen batches.
        const std::vector<const Gpu*> cards(static_cast<std::size_t>(rec.count), rec.gpu);
        add_plan_curve(rec, slim, cards, options);
        out[i] = std::move(rec);
    }
    // Comparative reasons: each shown plan against the next one.
    for (std::size_t i = 0; i + 1 < shown; ++i)
        if (auto line = compare_plans(out[i], out[i + 1], i + 1)) out[i].reasons.push_back(*line);
    return out;
}
Ranking rank_within_budget(const Workload& workload, const Catalog& catalog, RankOptions options) {
    options.budget_basis = !options.budget_usd ? BudgetBasis::None
                           : options.rent      ? BudgetBasis::RentedJob
                           : options.have_host ? BudgetBasis::HaveHost
                                               : BudgetBasis::System;
    Ranking out{rank(workload, catalog, options), options};
    const auto any_fits = [](const std::vector<Recommendation>& plans) {
        return std::any_of(plans.begin(), plans.end(),
                           [](const Recommendation& r) { return r.fits; });
    };
    if (options.budget_basis != BudgetBasis::System || any_fits(out.plans)) return out;
    RankOptions own = options;
    own.have_host = true;
    own.budget_basis = BudgetBasis::HaveHostAssumed;
    auto plans = rank(workload, catalog, own);
    if (any_fits(plans)) out = Ranking{std::move(plans), own};
    return out;
}

std::optional<DocumentPick> document_pick(const Workload& workload, const Catalog& catalog,
                                          const std::vector<Recommendation>& ranked,
                                          const RankOptions& options) {
    if (!workload.task || workload.task->document_pick.empty()) return std::nullopt;
    const Gpu* gpu = nullptr;
    for (const Gpu& g : catalog.gpus)
        if (g.id == workload.task->document_pick) gpu = &g;
    if (gpu == nullptr) return std::nullopt;  // a user's catalog without it
    DocumentPick pick;
    pick.gpu = gpu;
    pick.reason = workload.task->document_reason;
    std::int64_t count = 1;
    for (std::size_t i = 0; i < ranked.size(); ++i)
        if (ranked[i].gpu == gpu) {
            pick.rank = i + 1;
            count = ranked[i].count;
        }
    pick.plan = evaluate_plan(workload, *gpu, count, options, nullptr);
    return pick;
}
std::vector<std::string> rank_by_choices() {
    return kRankBy.choices();
}

}  // namespace gpuadvise
