// The layout search of a multi-node training plan: every candidate of
// layout.cpp with ZeRO-1 and FSDP, the micro-batches per step within the
// global batch, the fastest fitting layout first.
#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/layout.hpp"
#include "plan_common.hpp"

namespace gpuadvise::plan_detail {

// The user's --tp/--pp/--cp/--ep/--vpp on `count` GPUs, or nullopt when the
// sizes do not divide the count (resolve_workload checked them on the model).
std::optional<Layout> fit_layout(const Workload& w, std::int64_t count) {
    Layout l = requested_layout_sizes(w.layout_request);
    const std::int64_t split = l.tp * l.pp * l.cp;
    if (count % split != 0) return std::nullopt;
    l.dp = count / split;
    if (!layout_problem(w.model.arch, w.seq, l).empty()) return std::nullopt;
    return l;
}
// Sets a layout and what it implies on a plan's workload: the sharding, and
// the micro-batches per step (--global-batch over the data-parallel ranks,
// --grad-accum, or kMicrobatchesPerStage per pipeline stage within
// kMaxGlobalBatchTokens).
void apply_layout(Workload& w, const Layout& l, Parallel sharding) {
    w.layout = l.splits_model() ? l : Layout{};
    w.parallel = sharding;
    if (w.global_batch)
        w.grad_accum = std::max<std::int64_t>(*w.global_batch / (l.dp * w.batch), 1);
    else if (!w.grad_accum_given && l.pp > 1) {
        const double per_micro = static_cast<double>(l.dp * w.batch * w.seq);
        const auto most = static_cast<std::int64_t>(kMaxGlobalBatchTokens / per_micro);
        w.grad_accum = std::max(l.pp, std::min(kMicrobatchesPerStage * l.pp, most));
    }
}
// Every layout of `count` GPUs (data parallel alone included), timed; the
// fitting ones first (comfortable before tight), fastest first (a simpler
// layout wins a tie), then the misses with the least memory first. Empty
// when the plan is one node.
std::vector<LayoutChoice> search_layouts(const Workload& w, const Gpu& gpu, std::int64_t count,
                                         const RankOptions& options, std::uint64_t usable,
                                         SharedEstimates& shared) {
    std::vector<LayoutChoice> out;
    if (options.platform) return out;
    const std::optional<NodeLayout> nodes = choose_nodes(gpu, count, options.gpus_per_node);
    if (!nodes) return out;
    const Network* network = options.network ? options.network : &default_network();
    // The NVLink domain tensor parallel stays in: the node's linked cards, or
    // the switched link's reach when it joins nodes (an NVL72 rack).
    const std::int64_t domain =
        gpu.has_fast_link() ? std::max(std::min<std::int64_t>(nodes->per_node, gpu.link.max_gpus),
                                       gpu.switch_domain())
                            : nodes->per_node;
    const auto consider = [&](const Layout& l, Parallel sharding) {
        Workload t = w;
        apply_layout(t, l, sharding);
        // A global batch smaller than one micro-batch per data-parallel rank
        // cannot be run with this layout.
        if (t.global_batch && *t.global_batch < l.dp * t.batch) return;
        const MemoryEstimate& m = shared.of(t);
        const Performance p =
            estimate_performance(t, m, gpu, options.job, std::nullopt, nodes->platform, usable,
                                 network, nodes->per_node);
        const double need = static_cast<double>(m.per_gpu_bytes);
        out.push_back({l, sharding, t.grad_accum, m.per_gpu_bytes,
                       p.train_tokens_per_s.value_or(0.0) / static_cast<double>(count),
                       m.per_gpu_bytes <= usable,
                       m.band && need * m.band->second > static_cast<double>(usable)});
    };
    // Without a batch from the user, a layout whose smallest global batch
    // (every data-parallel rank's micro-batch, pp of them per pipeline) is
    // beyond kMaxGlobalBatchTokens is not one a run would use: more data
    // parallel than the batch allows. Kept only when every layout is.
    const auto batch_ok = [&](const Layout& l) {
        if (w.grad_accum_given) return true;
        const double least =
            static_cast<double>(l.dp * std::max<std::int64_t>(l.pp, 1) * w.batch * w.seq);
        return least <= kMaxGlobalBatchTokens;
    };
    const std::vector<Layout> all = candidate_layouts(w.model.arch, w.seq, count, domain, {});
    const bool any_ok = std::any_of(all.begin(), all.end(), batch_ok);
    for (const Layout& l : all) {
        if (any_ok && !batch_ok(l)) continue;
        // Without data parallel there is nothing to shard: one sharding is enough.
        for (const Parallel sharding : {Parallel::Zero1, Parallel::Fsdp})
            if (sharding == Parallel::Zero1 || l.dp * l.cp > 1) consider(l, sharding);
    }
    const auto simpler = [](const LayoutChoice& c) {
        return c.layout.tp * c.layout.pp * c.layout.cp * c.layout.ep * c.layout.vpp;
    };
    std::stable_sort(out.begin(), out.end(), [&](const LayoutChoice& a, const LayoutChoice& b) {
        if (a.fits != b.fits) return a.fits;
        if (!a.fits) return a.per_gpu_bytes < b.per_gpu_bytes;
        // A comfortable fit before one within the estimate's uncertainty, as plans rank.
        if (a.tight != b.tight) return b.tight;
        if (std::fabs(a.tokens_per_s_per_gpu - b.tokens_per_s_per_gpu) >
            0.01 * std::max(a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu))
            return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
        return simpler(a) < simpler(b);
    });
    return out;
}

}  // namespace gpuadvise::plan_detail
