#pragma once
// The parallel layout of a training plan beyond plain data parallel, as
// Megatron-LM, NeMo and torchtitan lay a large run out: tensor parallel (tp)
// inside the NVLink domain, context parallel (cp) splitting long sequences,
// pipeline parallel (pp) across nodes, data parallel (dp) over the rest, so
// that tp x cp x pp x dp is the plan's GPUs; expert parallel (ep) splits an
// MoE model's routed experts over ranks of dp x cp. How dp shards its state
// (DDP, ZeRO-1/2/3, FSDP) stays the workload's `parallel`.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/model.hpp"

namespace gpuadvise {

struct Layout {
    std::int64_t tp = 1, pp = 1, cp = 1, ep = 1, dp = 1;
    // Model chunks per pipeline rank (Megatron's interleaved 1F1B schedule,
    // --num-layers-per-virtual-pipeline-stage): the bubble shrinks by this factor.
    std::int64_t vpp = 1;

    // More than data parallel: the model itself is split.
    bool splits_model() const { return tp > 1 || pp > 1 || cp > 1 || ep > 1; }
    std::int64_t gpus() const { return tp * cp * pp * dp; }
    friend bool operator==(const Layout&, const Layout&) = default;
};

// What the user fixed of a layout (--tp, --pp, --cp, --ep, --vpp); the rest is searched.
struct LayoutRequest {
    std::optional<std::int64_t> tp, pp, cp, ep, vpp;
    bool any() const { return tp || pp || cp || ep || vpp; }
};

// "tp8 pp16 dp128" (the sizes above 1; "dp64" for plain data parallel).
std::string layout_label(const Layout& l);

// Why `a` cannot be split as `l` for sequences of `seq` tokens, naming the
// dimension and the fix, or "" when it can: tensor parallel needs the
// attention heads and KV heads to divide, pipeline parallel at least one layer
// per stage (per chunk with interleaving; uneven splits put the remainder on
// fewer stages, as Llama 3's did), context parallel 2 x cp chunks of the sequence (the load-
// balanced split of Megatron and torchtitan), expert parallel the routed
// experts to divide and ep to divide dp x cp.
std::string layout_problem(const Architecture& a, std::int64_t seq, const Layout& l);

// The layouts worth trying on `count` GPUs in domains of `domain` GPUs joined
// by NVLink/xGMI (a node): tp in powers of two within the domain, cp for
// sequences of 16K tokens or more, pp in powers of two (and any divisor the
// count leaves, for counts such as 1,536), interleaving where the layers
// divide, ep for MoE models; each respects `fixed` and layout_problem.
std::vector<Layout> candidate_layouts(const Architecture& a, std::int64_t seq, std::int64_t count,
                                      std::int64_t domain, const LayoutRequest& fixed);

// The layout `fixed` asks for on `count` GPUs (unfixed sizes 1, dp the rest);
// throws InputError naming `what` when the sizes do not divide the count or
// the model.
Layout requested_layout(const Architecture& a, std::int64_t seq, std::int64_t count,
                        const LayoutRequest& fixed, std::string_view what);

// The sizes `fixed` names, the rest 1 (dp too).
Layout requested_layout_sizes(const LayoutRequest& fixed);

// Layers held by the most loaded pipeline stage: ceil(layers / pp) (Megatron
// places an uneven remainder on the first and last stages).
std::int64_t stage_layers(const Architecture& a, const Layout& l);

// The share of an architecture's parameters in routed experts (0 for a
// dense model): the part expert parallel splits further.
double routed_expert_share(const Architecture& a);

// Micro-batches per optimizer step a pipeline needs when the user does not
// say: 4 per stage, so the 1F1B bubble (pp - 1) / (m x vpp) stays under a
// quarter (published Megatron and NeMo runs use 4 to 24 per stage).
inline constexpr std::int64_t kMicrobatchesPerStage = 4;
// ... but no more than keeps the global batch within 16M tokens, the largest
// published dense pre-training batch (Llama 3 405B, arXiv 2407.21783 §3.4.1),
// and never fewer than the stages (1F1B fills the pipeline with pp).
inline constexpr double kMaxGlobalBatchTokens = 16.0 * 1024 * 1024;

}  // namespace gpuadvise
