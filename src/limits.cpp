// A plan's limits: the longest context and the largest batch that still fit,
// found by a search over the plan's own verdict that steers by the memory it
// has to spare (largest_where_guided); and a serving plan's curve over the
// batch, by doubling and bisection.
#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/error.hpp"
#include "gpuadvise/search.hpp"
#include "plan_common.hpp"

namespace gpuadvise {

std::optional<Limits> plan_limits(const Workload& base, const Recommendation& rec,
                                  std::span<const Gpu* const> cards, const RankOptions& options) {
    Limits out;
    if (base.is_fixed()) return out;
    if (!base.is_language())
        return std::nullopt;             // context and batch limits are a language model's
    if (!rec.fits) return std::nullopt;  // no context fits a plan that does not
    RankOptions o = options;
    o.describe_top = 0;
    o.parallel = rec.count > 1 ? std::optional<Parallel>(rec.strategy) : std::nullopt;
    // The offload request stays the user's: with --offload auto a longer
    // context moves more of the model to the host, as `check` with that
    // context would, so the limits and `check` agree.
    // So does a training plan's layout, with its micro-batches per step.
    Workload plan = base;
    const Layout& l = rec.layout;
    if (rec.micro_batch > 0 && l.splits_model()) {
        plan.layout_request = {l.tp, l.pp, l.cp, l.ep, l.vpp};
        plan.grad_accum = rec.micro_batches;
        plan.grad_accum_given = true;
        plan.global_batch.reset();
    }
    // The plan's own verdict, and the bytes it has to spare (what the search
    // steers by: memory grows about linearly in the context and the batch).
    const auto probe = [&](const Workload& w) {
        Probe verdict;
        try {
            // The card's memory and the host's (an offloaded cache grows in
            // host memory) and every reject rule.
            const Recommendation r = evaluate_box(w, cards, o, Detail::Verdict);
            double slack = static_cast<double>(r.headroom_bytes);
            bool held = true;
            for (const Placement& p : r.placement) {
                slack = std::min(
                    slack, static_cast<double>(p.usable_bytes) - static_cast<double>(p.bytes));
                held = held && p.bytes <= p.usable_bytes;
            }
            verdict.ok = held && r.fits;
            // A plan refused with memory to spare was refused by a rule: its
            // slack says nothing about where memory runs out.
            if (verdict.ok || slack < 0) verdict.slack = slack;
        } catch (const InputError&) {
            verdict.ok = false;  // beyond the estimate's bound: certainly not a fit
        }
        return verdict;
    };
    // The largest n in [low, high] whose probe fits, or 0 when low does not.
    const auto largest = [](std::int64_t low, std::int64_t high, const auto& probe_n) {
        return largest_where_guided(low, high, probe_n).value_or(0);
    };
    const std::int64_t trained = base.model.arch.max_position;
    const std::int64_t cap = trained > 0 ? trained : kMaxLimitTokens;
    const auto with_context = [&](std::int64_t ctx) {
        Workload w = plan;
        // The probe's context is given: an engine's default (Ollama's num_ctx
        // by VRAM) must not replace it, or every probe fits at the default.
        w.context_given = true;
        if (w.trains()) {
            // Context parallel splits a sequence into 2 x cp equal chunks.
            const std::int64_t chunks =
                2 * std::max<std::int64_t>(plan.layout_request.cp.value_or(1), 1);
            w.seq = chunks > 2 ? std::max(ctx - ctx % chunks, chunks) : ctx;
        } else {
            w.gen = std::min(base.gen, std::max<std::int64_t>(ctx - 1, 0));
            w.prompt = ctx - w.gen;
            w.seq = ctx;
        }
        return w;
    };
    // A context holds the images' tokens (--images) and one text token at least.
    const std::int64_t floor = base.images.tokens() + (base.trains() ? 1 : base.gen + 1);
    out.max_context_tokens =
        largest(floor, cap, [&](std::int64_t ctx) { return probe(with_context(ctx)); });
    if (const std::int64_t chunks = 2 * plan.layout_request.cp.value_or(1);
        base.trains() && chunks > 2 && out.max_context_tokens >= chunks)
        out.max_context_tokens -= out.max_context_tokens % chunks;
    out.context_capped_by_model = trained > 0 && out.max_context_tokens == trained;
    out.at_batch = base.batch;
    out.at_context_tokens = base.seq;  // the KV cache's context (an engine's default included)
    out.max_batch = largest(1, kMaxLimitBatch, [&](std::int64_t b) {
        Workload w = plan;
        w.batch = b;
        return probe(w);
    });
    return out;
}

void add_plan_curve(Recommendation& rec, const Workload& base, std::span<const Gpu* const> cards,
                    const RankOptions& options) {
    // Serving sessions decode; an embedding model's batch is a forward, not users.
    if (base.trains() || !base.is_language() || base.embeds() || cards.empty()) return;
    // An offloaded plan's speed is the host's: its batch is not what the card holds.
    if (rec.offload && rec.offload->mode != OffloadMode::Gpu) return;
    RankOptions o = options;
    o.describe_top = 0;
    o.parallel = rec.count > 1 ? std::optional<Parallel>(rec.strategy) : std::nullopt;
    const auto point = [&](std::int64_t batch) {
        Workload w = base;
        w.batch = batch;
        CurvePoint p;
        p.batch = batch;
        try {
            const Recommendation r = evaluate_box(w, cards, o, Detail::Numbers);
            p.per_gpu_bytes = r.memory.per_gpu_bytes;
            p.fits =
                r.fits && std::all_of(r.placement.begin(), r.placement.end(),
                                      [](const Placement& q) { return q.bytes <= q.usable_bytes; });
            p.decode_tokens_per_s = r.performance.decode_tokens_per_s;
            if (const auto c = check_load(w, r.performance)) {
                p.per_user_tokens_per_s = c->per_user_tokens_per_s;
                p.ttft_s = c->ttft_s;
            }
        } catch (const InputError&) {
            p.fits = false;  // beyond the estimate's bound: certainly not a fit
        }
        return p;
    };
    std::vector<CurvePoint> curve{point(1)};
    // Doubling until the first miss, then bisecting between the last power
    // of two that fits and that miss: the last point is the largest batch.
    std::optional<CurvePoint> miss;
    while (curve.back().fits) {
        if (curve.back().batch >= kMaxLimitBatch) break;
        CurvePoint next = point(curve.back().batch * 2);
        if (!next.fits) {
            miss = next;
            break;
        }
        curve.push_back(next);
    }
    if (miss) {
        std::optional<CurvePoint> best;
        std::int64_t yes = curve.back().batch, no = miss->batch;
        while (no - yes > 1) {
            const std::int64_t mid = yes + (no - yes) / 2;
            CurvePoint p = point(mid);
            if (p.fits) {
                yes = mid;
                best = p;
            } else {
                no = mid;
            }
        }
        if (best) curve.push_back(*best);
    }
    const CurvePoint& last = curve.back();
    if (last.fits)
        rec.reasons.push_back(fmt::format(
            "holds {} {} at {} tokens{}", last.batch, last.batch == 1 ? "user" : "users", base.seq,
            last.per_user_tokens_per_s
                ? fmt::format(", {:.3g} tok/s each", *last.per_user_tokens_per_s)
                : std::string()));
    rec.curve = std::move(curve);
}

}  // namespace gpuadvise
