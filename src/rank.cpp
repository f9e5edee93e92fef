// The ranking: every card's best plan (numbers first, texts for the shown
// ones), ordered by --rank-by with ties to the cheaper system, each shown
// plan compared with the next; and the source document's own pick.
#include "gpuadvise/rank.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
}  // namespace

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
    // The one-GPU estimate depends on the workload only: compute it once.
    Workload one = slim;
    one.gpus = 1;
    one.parallel = Parallel::None;
    const MemoryEstimate single = estimate(one);

    // First pass: numbers only (no texts), the best plan of every card.
    std::vector<Recommendation> plans;
    plans.reserve(catalog.gpus.size());
    for (const Gpu& gpu : catalog.gpus) {
        if (options.vendor && gpu.vendor != *options.vendor) continue;
        if (options.segment && gpu.segment != *options.segment) continue;
        // Cards sold only in one market, or only as cloud instances, are not
        // a purchase anyone can make elsewhere.
        if (gpu.region && (!options.region || *options.region != *gpu.region)) continue;
        if (gpu.cloud_only) continue;
        std::optional<Recommendation> best,
            closest;  // closest: the nearest miss, shown when nothing fits
        for (const std::int64_t count : counts) {
            // Sizes no platform holds are not plans (eight Macs are not one box);
            // the first size tried is always kept, to say why it does not fit.
            if ((best || closest) && !options.platform && choose_platform(gpu, count) == nullptr &&
                !choose_nodes(gpu, count, options.gpus_per_node))
                break;
            Recommendation rec = evaluate_plan(slim, gpu, count, options, &single, false);
            if (!rec.fits) {
                if (!closest || rec.headroom_bytes > closest->headroom_bytes)
                    closest = std::move(rec);
                continue;
            }
            // Smallest fitting plan wins; a larger one only when ranking by
            // speed and it is clearly faster.
            if (!best) {
                best = std::move(rec);
                if (options.rank_by != RankBy::Speed) break;
            } else if (rec.score > best->score * kBiggerPlanMargin) {
                best = std::move(rec);
            }
        }
        Recommendation& kept = plans.emplace_back(best ? std::move(*best) : std::move(*closest));
        // Only the shown plans keep their rule hits and notes (they are
        // evaluated again with texts below); 100,000 cards must fit in memory.
        kept.fired = {};
        kept.memory.notes = {};
    }
    // Sort indices, not 500-byte plans.
    std::vector<std::size_t> order(plans.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const bool by_money = options.rank_by == RankBy::Value || options.rank_by == RankBy::Cost;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t ia, std::size_t ib) {
        const Recommendation& a = plans[ia];
        const Recommendation& b = plans[ib];
        if (a.fits != b.fits) return a.fits;
        if (a.fits && a.tight != b.tight && options.rank_by != RankBy::Speed) return b.tight;
        if (a.fits) {
            const bool pa = a.total_usd > 0, pb = b.total_usd > 0;
            if (by_money && pa != pb) return pa;
            if (a.score != b.score) return a.score > b.score;
        } else {
            // Misses that hold the model (a budget, a platform, software) come
            // first, cheapest first: the nearest thing a buyer could do. Then
            // the least memory short per GPU.
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
        return a.gpu->id < b.gpu->id;
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
    // A buyer does not pay more for a difference the model cannot resolve:
    // one pass of adjacent swaps moves a cheaper system above a dearer one
    // whose value is within kScoreTie (same fit class).
    if (by_money)
        for (std::size_t i = 0; i + 1 < out.size(); ++i) {
            Recommendation& a = out[i];
            Recommendation& b = out[i + 1];
            if (!a.fits || !b.fits || a.tight != b.tight || a.total_usd <= 0 || b.total_usd <= 0)
                continue;
            if (b.score >= a.score * (1.0 - kScoreTie) && b.total_usd < a.total_usd)
                std::swap(a, b);
        }
    // Second pass: the plans that are shown get their texts.
    const std::size_t shown = std::min(options.describe_top, out.size());
    for (std::size_t i = 0; i < shown; ++i) {
        Recommendation rec = evaluate_plan(slim, *out[i].gpu, out[i].count, options, &single, true);
        for (const auto& warning : workload.warnings) rec.warnings.push_back(warning);
        out[i] = std::move(rec);
    }
    // Comparative reasons: each shown plan against the next one.
    for (std::size_t i = 0; i + 1 < shown; ++i)
        if (auto line = compare_plans(out[i], out[i + 1], i + 1)) out[i].reasons.push_back(*line);
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
    pick.plan = evaluate_plan(workload, *gpu, count, options, nullptr, true);
    return pick;
}
std::vector<std::string> rank_by_choices() {
    return kRankBy.choices();
}

}  // namespace gpuadvise
