// The caching allocator's pool beyond the allocated peak
// (torch.cuda.max_memory_reserved - max_memory_allocated), from what
// c10/cuda/CUDACachingAllocator.cpp does with a training step's tensors
// (docs/memory-model.md, "The allocator's pool"):
// - a freed block stays cached for its stream and serves a later request of
//   at most its size (best fit, split when the rest is over 1 MiB); it goes
//   back to the driver only on an out-of-memory retry or empty_cache();
// - freed neighbours in a segment merge, so the same sequence of requests
//   reuses the same blocks: a step of the same shapes as the last needs no
//   new memory, and the pool is what its own history left unusable;
// - with expandable_segments a segment grows by mapping pages at its end, so
//   a request larger than any free block extends the segment over the free
//   tail instead of stranding it.
#include <algorithm>
#include <cmath>
#include <vector>

#include "memory_common.hpp"

namespace gpuadvise::memory_detail {
namespace {

// Inference on a PyTorch-allocator engine: the pool beyond the allocated peak
// is taken as 8 % of it (assumed: a typical reserved/allocated gap; vLLM's
// up-front reservation is sized by --gpu-memory-utilization, not modelled here).
constexpr double kAllocatorReserve = 0.08;

// The temporaries a block's forward frees before the next layer runs (not
// saved for backward), at the largest moment: RoPE's products of q and k
// (q * cos, rotate_half(q), * sin beside the pre-rotation q), or a norm's
// fp32 x.pow(2) / normalised product next to a projection's output and the
// residual sum. Bytes per token.
double layer_temporaries_per_token(const Workload& w, const TrainDtypes& d) {
    const Architecture& a = w.model.arch;
    const double h = static_cast<double>(a.hidden);
    const double q = static_cast<double>(a.q_dim());
    const double kv = static_cast<double>(a.kv_dim());
    return std::max(3.0 * d.act * (q + kv), 4.0 * h + d.act * h + d.resid * h);
}

// CUDACachingAllocator's size classes: requests round up to 512 bytes; a
// request of at most 1 MiB (kSmallSize) is served from 2 MiB segments
// (kSmallBuffer), one under 10 MiB (kMinLargeAlloc) from 20 MiB segments
// (kLargeBuffer), a larger one from a segment of its size rounded up to
// 2 MiB (kRoundLarge). A block is split when the rest is at least 512 bytes
// (small pool) or over 1 MiB (large pool); an unsplit rest stays in the block
// and counts as allocated.
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kSmallSize = kMiB, kSmallBuffer = 2 * kMiB, kMinLargeAlloc = 10 * kMiB,
                 kLargeBuffer = 20 * kMiB, kRoundLarge = 2 * kMiB;

// What `count` tensors of `bytes` each, allocated one after another, reserve
// beyond their blocks: the segments' free rests. Tensors of one kind are
// requested at the same point of every layer and step, so they are taken to
// fill segments of their own (assumed: a rest is not reused by another
// kind's request, which would need a request of at most its size between).
double packing_waste(double bytes, double count) {
    if (!(bytes > 0) || !(count > 0)) return 0.0;
    const double x = std::ceil(bytes / 512.0) * 512.0;
    if (x <= kSmallSize || x < kMinLargeAlloc) {
        const double segment = x <= kSmallSize ? kSmallBuffer : kLargeBuffer;
        const double per = std::max(1.0, std::floor(segment / x));
        const double segments = std::ceil(count / per);
        return segments * segment - count * x;
    }
    const double rest = std::ceil(x / kRoundLarge) * kRoundLarge - x;
    return rest > kSmallSize ? count * rest : 0.0;  // an unsplit rest is allocated
}

// The persistent tensors' rests: every weight matrix of every layer in its
// storage bytes (a 4-bit matrix as its packed bytes), the embedding and the
// head, and a full fine-tune's gradients and AdamW moments of the same
// shapes. Sharded plans keep flat buffers of a unit's size instead (one rest
// each).
double persistent_waste(const Workload& w, const TrainDtypes& d) {
    if (w.gpus > 1 && w.parallel != Parallel::None && w.parallel != Parallel::Ddp) return 0.0;
    const Architecture& a = w.model.arch;
    const double h = static_cast<double>(a.hidden), q = static_cast<double>(a.q_dim()),
                 kv = static_cast<double>(a.kv_dim()), i = static_cast<double>(a.intermediate),
                 vocab = static_cast<double>(a.vocab);
    const double layers = static_cast<double>(a.total_layers());
    const double stored = w.quant.none()
                              ? (w.method == Method::Full ? (d.autocast ? 4.0 : d.act) : d.act)
                              : weight_bytes_per_param(w.quant, w.precision, w.double_quant);
    std::vector<double> matrices{h * q, h * kv, h * kv, q * h, h * i, i * h};
    if (a.mlp == MlpKind::Gated) matrices.push_back(h * i);
    if (a.is_moe()) matrices = {h * q, h * kv, h * kv, q * h};
    double waste = 0;
    const double copies = w.method == Method::Full ? 1.0 + 1.0 + 2.0 : 1.0;  // + grads, moments
    for (const double m : matrices) waste += copies * packing_waste(m * stored, layers);
    waste += copies * packing_waste(vocab * h * (w.method == Method::Full ? stored : d.act),
                                    a.tied_embeddings ? 1.0 : 2.0);
    return waste;
}

}  // namespace

double allocator_pool(const Workload& w, const Components& c, double allocated) {
    // llama.cpp allocates exact ggml buffers: no caching allocator.
    if (!w.trains() && w.engine && w.engine->memory == MemoryPolicy::LlamaCpp) return 0.0;
    if (!w.trains()) return kAllocatorReserve * allocated;
    if (w.is_image()) return 0.0;
    // Expandable segments extend over their free tail: what a step frees is
    // taken back by the next larger request (page rounding aside).
    if (w.expandable_segments) return 0.0;
    const TrainDtypes d = train_dtypes(w);
    const double tokens = static_cast<double>(w.batch) * static_cast<double>(w.seq);
    // The segments' rests: the persistent tensors', and those of the tensors
    // a step allocates again (in steady state every step reuses the blocks
    // the first one carved, so its rests stay).
    double pool = persistent_waste(w, d);
    for (const TensorGroup& g : step_tensors(w)) pool += packing_waste(g.bytes, g.count);
    // Without checkpointing a layer's temporaries are freed as its forward
    // ends and stay cached while the loss asks for larger blocks (the logits,
    // b x s x vocab, outgrow every per-layer tensor). With checkpointing the
    // forward runs the whole layer as temporaries, and the recompute in
    // backward reuses exactly those blocks: that layer's set is the
    // recompute set the activations already count.
    if (w.ckpt_mode == CkptMode::None) pool += layer_temporaries_per_token(w, d) * tokens;
    // Batches padded to their own longest sample change shape every step. The
    // longest batch of a run comes after batches nearly as long (assumed: a
    // run of many steps), whose blocks are cached. Each of its activations
    // is a little larger than the cached block of its kind, so best fit
    // carves it out of the cached logits blocks, the only larger ones; its
    // logits then outgrow every free block and take new segments. What the
    // activations did not take of the old logits region stays stranded; the
    // old activation blocks serve its smaller requests or go back on an
    // out-of-memory retry (release_cached_blocks frees whole free segments).
    if (!w.packing) pool += std::max(0.0, c.logits - c.activations);
    return pool;
}

}  // namespace gpuadvise::memory_detail
