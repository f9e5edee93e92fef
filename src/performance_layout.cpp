// The step of a 3D training layout (tensor, context, pipeline, expert and
// data parallel) as Megatron-LM runs it: docs/performance-model.md, "3D layouts".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/layout.hpp"
#include "gpuadvise/network.hpp"
#include "performance_common.hpp"

namespace gpuadvise::performance_detail {

// Seconds to move `bytes` per rank through an all-reduce over `ranks` on
// `k`: a ring moves 2 (n-1)/n of them in 2 (n-1) steps (the alpha-beta model;
// an all-gather or a reduce-scatter is half of it).
double all_reduce_seconds(const PlanLinks& k, double ranks, double bytes) {
    if (ranks <= 1) return 0.0;
    return 2.0 * (ranks - 1.0) / ranks * bytes / (k.gbps * 1e9) + 2.0 * (ranks - 1.0) * k.latency_s;
}

LayoutStep layout_step(const Workload& w, const MemoryEstimate& memory, const Gpu& gpu,
                       double one_gpu_compute, const PlanLinks& links, const Network* network,
                       std::int64_t per_node, const HostPlatform* host) {
    const Layout& l = w.layout;
    const Architecture& a = w.model.arch;
    const double tp = static_cast<double>(l.tp), pp = static_cast<double>(l.pp),
                 cp = static_cast<double>(l.cp), ep = static_cast<double>(l.ep),
                 dp = static_cast<double>(l.dp), vpp = static_cast<double>(l.vpp);
    const double layers = static_cast<double>(std::max<std::int64_t>(a.total_layers(), 1));
    const double stage = static_cast<double>(stage_layers(a, l));
    const double b = static_cast<double>(w.batch), s = static_cast<double>(w.seq),
                 h = static_cast<double>(a.hidden), m = static_cast<double>(w.grad_accum);
    const double act = w.precision == Precision::Fp32 ? 4.0 : 2.0;
    // A group is inside the NVLink domain when its span fits a node or the
    // GPU link's switched domain (an NVL72 rack spans 18 trays of 4).
    const std::int64_t domain = std::max(per_node, gpu.switch_domain());
    const bool spans_nodes = network && per_node > 0 && w.gpus > domain;
    const PlanLinks intra = spans_nodes ? plan_links(gpu, domain, host) : links;
    const double node = spans_nodes ? static_cast<double>(domain) : 1e300;
    // A group of `size` ranks `stride` apart: inside the NVLink domain, or
    // across the fabric, where a ring collective moves at the NICs of the
    // group's members in each node together (plan_links), one NIC for a group
    // with one member per node, and an all-to-all at one NIC whatever the group.
    const auto link = [&](double stride, double size, bool ring = true) -> PlanLinks {
        if (stride * size <= node) return intra;
        PlanLinks k = links;
        const double members = ring ? std::max(1.0, std::floor(node / stride)) : 1.0;
        if (network) k.gbps = std::min(intra.gbps, network->per_gpu_gbps * members);
        return k;
    };
    // The most loaded stage's share of the model's compute on one GPU: its
    // layers, and on the last stage the output layer (vocab x hidden per
    // token, a layer's worth or more for large vocabularies), which an even
    // split by layers leaves there.
    const double head =
        l.pp > 1 ? std::min(static_cast<double>(a.vocab) * h /
                                std::max(static_cast<double>(w.model.active_params), 1.0),
                            0.5)
                 : 0.0;
    const double share = ((1.0 - head) * stage / layers + head) / (tp * cp);
    double micro = one_gpu_compute * share;
    // Tensor parallel with sequence parallel: around attention and around the
    // MLP an all-gather and a reduce-scatter (together an all-reduce of the
    // layer's b x s x h activations), in forward, in backward and in a
    // recomputed forward; on the critical path, as Megatron runs them unless
    // --tp-comm-overlap is set.
    if (l.tp > 1) {
        const double passes = 4.0 + (w.ckpt_mode == CkptMode::Full ? 2.0 : 0.0);
        micro += stage * passes * all_reduce_seconds(link(1, tp), tp, b * s / cp * h * act);
    }
    // Context parallel (ring attention): each rank's K and V travel round the
    // cp ranks in forward, and K, V and their gradients in backward, while
    // attention computes on the chunk at hand: half hidden, as the data-
    // parallel overlap is.
    if (l.cp > 1) {
        const PlanLinks k = link(tp, cp, false);
        const double kv = 2.0 * b * s / cp * static_cast<double>(a.kv_dim()) * act;
        micro +=
            stage * 3.0 * (cp - 1.0) * (kv / (k.gbps * 1e9) + k.latency_s) * (1.0 - kCommOverlap);
    }
    // Expert parallel: each MoE layer sends its tokens to their experts and
    // back (an all-to-all each way, in forward and in backward), every token
    // to experts_per_token experts, (ep - 1) / ep of them to other ranks.
    if (l.ep > 1 && a.is_moe()) {
        const PlanLinks k = link(tp * cp, ep, false);
        const double moe_layers =
            stage * static_cast<double>(a.layers - a.dense_layers) / static_cast<double>(a.layers);
        const double bytes = b * s / (cp * tp) * static_cast<double>(a.experts_per_token) * h * act;
        micro += moe_layers * 4.0 * ((ep - 1.0) / ep * bytes / (k.gbps * 1e9) + k.latency_s);
    }
    // Stage hand-offs: a micro-batch's activations forward and their
    // gradients backward, once per model chunk (vpp chunks interleaved).
    if (l.pp > 1) {
        const PlanLinks k = link(tp * cp * dp, 2.0, false);
        micro += 2.0 * vpp * (b * s / (cp * tp) * h * act / (k.gbps * 1e9) + k.latency_s);
    }
    // 1F1B: the step is m micro-batches plus the fill and drain bubble of
    // (pp - 1) / vpp micro-batch times (Narayanan et al. 2021, §2.2).
    double step = (m + (l.pp > 1 ? (pp - 1.0) / vpp : 0.0)) * micro;
    // Data parallel over dp x cp: this GPU's share of the 16-bit gradients is
    // reduced (and, with a sharded optimizer, the updated weights gathered)
    // once per step, half behind the last backward; FSDP/ZeRO-3 gathers the
    // weights in forward and backward and reduce-scatters the gradients every
    // micro-batch instead.
    const double ranks = dp * cp;
    if (ranks > 1) {
        const PlanLinks k = link(tp, ranks);
        const double experts = routed_expert_share(a);
        const double local = static_cast<double>(memory.trainable_params) * stage / layers / tp *
                             (1.0 - experts + experts / ep) * 2.0;
        const bool fsdp = w.parallel == Parallel::Fsdp || w.parallel == Parallel::Zero3;
        if (fsdp)
            step += m * 1.5 * all_reduce_seconds(k, ranks, local) * (1.0 - kCommOverlap);
        else
            step += all_reduce_seconds(k, ranks, local) * (1.0 - kCommOverlap);
    }
    return {micro, step, dp * m * b * s};
}

}  // namespace gpuadvise::performance_detail
