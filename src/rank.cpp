#include "gpuadvise/rank.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

const std::vector<std::pair<RankBy, std::string>>& rank_by_table() {
    static const std::vector<std::pair<RankBy, std::string>> t{{RankBy::Value, "value"},
                                                               {RankBy::Speed, "speed"},
                                                               {RankBy::Cost, "cost"},
                                                               {RankBy::Power, "power"},
                                                               {RankBy::Memory, "memory"}};
    return t;
}

// The strategy a plan of `count` cards uses when the user did not choose:
// data parallel when one card holds the training job, sharding when it does
// not; tensor parallel for inference over a fast link or when heads divide,
// pipeline over slow links.
Parallel choose_strategy(const Workload& w, const Gpu& gpu, std::int64_t count, bool fits_one) {
    if (count == 1 || w.is_fixed()) return Parallel::None;
    if (w.trains()) return fits_one ? Parallel::Ddp : Parallel::Fsdp;
    // Tensor parallel needs an all-reduce per layer: fine over NVLink or a
    // full PCIe 4.0 x16 link, too slow below that, where pipeline stages
    // (one activation hand-off per stage) do better.
    const bool heads_divide = w.model.arch.heads % count == 0;
    const bool fast = gpu.interconnect_type != "none" || gpu.pcie_gbps().value_or(0.0) >= 30.0;
    if (fast && heads_divide) return Parallel::Tp;
    return count <= w.model.arch.total_layers() ? Parallel::Pp : Parallel::Tp;
}

double safe_ratio(double a, double b) { return b > 0 && std::isfinite(a / b) ? a / b : 0.0; }

}  // namespace

std::string to_string(RankBy r) {
    for (const auto& [k, name] : rank_by_table())
        if (k == r) return name;
    return "?";
}

const std::vector<std::string>& rank_by_choices() {
    static const std::vector<std::string> v = [] {
        std::vector<std::string> out;
        for (const auto& entry : rank_by_table()) out.push_back(entry.second);
        return out;
    }();
    return v;
}

RankBy parse_rank_by(const std::string& text) {
    const std::string chosen = parse_choice(text, "--rank-by", rank_by_choices());
    for (const auto& [k, name] : rank_by_table())
        if (name == chosen) return k;
    return RankBy::Value;
}

Recommendation evaluate_plan(const Workload& base, const Gpu& gpu, std::int64_t count, const RankOptions& options,
                             const MemoryEstimate* single) {
    Workload w = base;
    w.gpus = count;
    const std::uint64_t usable = usable_memory(gpu, options.os);
    if (options.parallel) {
        w.parallel = count == 1 ? Parallel::None : *options.parallel;
    } else if (count == 1) {
        w.parallel = Parallel::None;
    } else {
        std::optional<MemoryEstimate> computed;
        if (!single) {
            Workload one = base;
            one.gpus = 1;
            one.parallel = Parallel::None;
            computed = estimate(one);
            single = &*computed;
        }
        w.parallel = choose_strategy(base, gpu, count, single->per_gpu_bytes <= usable);
    }
    if (w.parallel == Parallel::Tp && w.model.arch.heads % count != 0) w.parallel = Parallel::Pp;
    if (w.parallel == Parallel::Pp && count > w.model.arch.total_layers()) w.parallel = Parallel::Tp;

    Recommendation rec;
    rec.gpu = &gpu;
    rec.count = count;
    rec.strategy = w.parallel;
    rec.memory = estimate(w);
    rec.performance = estimate_performance(w, rec.memory, gpu, options.job);
    rec.usable_bytes = usable;
    rec.headroom_bytes = static_cast<std::int64_t>(usable) - static_cast<std::int64_t>(rec.memory.per_gpu_bytes);
    const PlanContext context{w, gpu, rec.memory, rec.performance, usable, options.task, options.budget_usd};
    rec.fired = evaluate_rules(context);
    rec.fits = true;
    double factor = 1.0;
    for (const auto& hit : rec.fired) {
        switch (hit.kind) {
            case RuleKind::Reject:
                rec.fits = false;
                rec.reasons.push_back(hit.message);
                break;
            case RuleKind::Warn: rec.warnings.push_back(hit.message); break;
            case RuleKind::Tip: rec.tips.push_back(hit.message); break;
            case RuleKind::Score: factor *= hit.score_factor; break;
        }
    }
    for (const auto& warning : w.warnings) rec.warnings.push_back(warning);

    // Scores: higher is better for every --rank-by.
    // A fixed requirement has no model to time; memory bandwidth stands in
    // for speed, as in the document's own picks (§6).
    const double speed = w.is_fixed() ? gpu.memory_bandwidth_gbps : rec.performance.tokens_per_s().value_or(0.0);
    const double price = gpu.price ? gpu.price->usd * static_cast<double>(count) : 0.0;
    const double watts = gpu.tdp_watts.value_or(0.0) * static_cast<double>(count);
    switch (options.rank_by) {
        case RankBy::Value: rec.score = safe_ratio(speed, price) * 1000.0; break;  // tokens/s per $1000
        case RankBy::Speed: rec.score = speed; break;
        case RankBy::Cost:
            // Cheapest job when one is described, else cheapest purchase.
            rec.score = rec.performance.job_cost_usd ? safe_ratio(1e6, *rec.performance.job_cost_usd) : safe_ratio(1e6, price);
            break;
        case RankBy::Power: rec.score = safe_ratio(speed, watts); break;
        case RankBy::Memory: rec.score = static_cast<double>(std::max<std::int64_t>(rec.headroom_bytes, 0)) / 1e9; break;
    }
    rec.score *= factor;
    if (!std::isfinite(rec.score) || !rec.fits) rec.score = 0;  // a miss has no score to compare

    if (rec.fits) {
        std::string why = fmt::format("fits with {:.1f} GiB headroom", static_cast<double>(rec.headroom_bytes) / kGiB);
        if (count > 1) why += fmt::format(" on {} GPUs ({})", count, to_string(rec.strategy));
        const char* unit = w.is_fixed() ? "GB/s" : "tok/s";
        if (speed > 0) why += fmt::format("; ~{:.0f} {}", speed, unit);
        if (options.rank_by == RankBy::Value && price > 0) why += fmt::format(", {:.1f} {} per $1k", rec.score / factor, unit);
        if (factor != 1.0) why += fmt::format(" (x{:.2f} ecosystem)", factor);
        if (!w.is_fixed() && !platform_calibrated(gpu)) why += "; speed uncalibrated on this platform";
        rec.reasons.insert(rec.reasons.begin(), why);
    }
    return rec;
}

std::vector<Recommendation> rank(const Workload& workload, const Catalog& catalog, const RankOptions& options) {
    std::vector<std::int64_t> counts;
    if (workload.is_fixed()) {
        counts.push_back(1);  // a task preset's requirement is for one card
    } else if (options.fixed_gpus) {
        counts.push_back(*options.fixed_gpus);
    } else {
        for (std::int64_t c = 1; c <= options.max_gpus; c *= 2) counts.push_back(c);
        if (counts.empty()) counts.push_back(1);
    }
    // Plans copy the workload; the texts that describe it are not needed there
    // (the workload's own warnings are added to the chosen plans below).
    Workload slim = workload;
    slim.assumed.clear();
    slim.warnings.clear();
    // The one-GPU estimate depends on the workload only: compute it once.
    Workload one = slim;
    one.gpus = 1;
    one.parallel = Parallel::None;
    const MemoryEstimate single = estimate(one);
    std::vector<Recommendation> out;
    out.reserve(catalog.gpus.size());
    for (const Gpu& gpu : catalog.gpus) {
        if (options.vendor && normalize_name(gpu.vendor) != normalize_name(*options.vendor)) continue;
        if (options.segment && normalize_name(gpu.segment) != normalize_name(*options.segment)) continue;
        std::optional<Recommendation> best;
        Recommendation largest_try;  // shown when nothing fits: the closest miss
        for (std::size_t i = 0; i < counts.size(); ++i) {
            Recommendation rec = evaluate_plan(slim, gpu, counts[i], options, &single);
            if (!rec.fits) {
                if (i == 0 || rec.headroom_bytes > largest_try.headroom_bytes) largest_try = std::move(rec);
                continue;
            }
            // Smallest fitting plan wins; a larger one only when ranking by
            // speed and it is faster.
            if (!best) {
                best = std::move(rec);
                if (options.rank_by != RankBy::Speed) break;
            } else if (rec.score > best->score * 1.05) {
                best = std::move(rec);
            }
        }
        out.push_back(best ? std::move(*best) : std::move(largest_try));
        for (const auto& warning : workload.warnings) out.back().warnings.push_back(warning);
    }
    std::stable_sort(out.begin(), out.end(), [&](const Recommendation& a, const Recommendation& b) {
        if (a.fits != b.fits) return a.fits;
        if (a.fits) {
            const bool priced_a = a.gpu->price.has_value(), priced_b = b.gpu->price.has_value();
            const bool by_money = options.rank_by == RankBy::Value || options.rank_by == RankBy::Cost;
            if (by_money && priced_a != priced_b) return priced_a;
            if (a.score != b.score) return a.score > b.score;
        } else {
            // Closest misses first: the least memory short per GPU.
            if (a.headroom_bytes != b.headroom_bytes) return a.headroom_bytes > b.headroom_bytes;
        }
        return a.gpu->id < b.gpu->id;
    });
    return out;
}

}  // namespace gpuadvise
