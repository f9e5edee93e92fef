// The caching allocator's pool beyond the allocated peak
// (torch.cuda.max_memory_reserved - max_memory_allocated), from the
// allocator's own rules (memory_allocator.hpp) replayed over what a training
// run asks of it (docs/memory-model.md, "The allocator's pool"):
// - loading: every weight matrix in its stored format, in module order; a
//   base that bitsandbytes or torchao quantises as it loads (QLoRA from a
//   16-bit checkpoint) first lands in 16 bits, is quantised next to it and
//   freed (bitsandbytes Params4bit.cuda -> quantize_4bit; torchao to_nf4);
//   PEFT's fp32 casts; the adapters;
// - each step: every layer's forward tensors, kept or recomputed as the
//   checkpointing mode says, the loss's tensors, then backward in reverse
//   with the gradients it makes, and the optimizer's state at its first
//   step (with foreach AdamW's temporary);
// - FSDP: flat shards per unit, each unit gathered for its forward and again
//   for its backward, the next one prefetched;
// - shapes: fixed (packing or padding to the maximum length) repeat one step
//   shape; padded variable lengths see shorter batches before the run's
//   longest (assumed: a run of many steps meets its longest batch late,
//   after batches of 1/2, 3/4 and 7/8 of its length).
// The pool is the simulation's reserved peak over its allocated peak: what
// the allocator keeps that the tensors do not use. Every layer is replayed:
// the pool is not linear in depth (which freed block a request reuses shifts
// with it), and carrying the growth from 8 to 16 layers to a 70B's 80 moved
// its pool by 5 GiB.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <vector>

#include "memory_allocator.hpp"
#include "memory_common.hpp"

namespace gpuadvise::memory_detail {
namespace {

// Inference on a PyTorch-allocator engine: the pool beyond the allocated peak
// is taken as 8 % of it (assumed: a typical reserved/allocated gap; not
// simulated: a generate loop's requests depend on the engine's cache).
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

// One layer's weight matrices, attention then MLP (every expert's weights
// stacked per projection in MoE layers), with the LoRA target each is.
struct Matrix {
    double in = 0, out = 0;
    LoraTarget target = LoraTarget::Q;
    double params() const { return in * out; }
};
std::vector<Matrix> layer_matrices(const Architecture& a) {
    const double h = static_cast<double>(a.hidden), q = static_cast<double>(a.q_dim()),
                 kv = static_cast<double>(a.kv_dim());
    const double inner = a.is_moe() ? static_cast<double>(a.experts * a.moe_intermediate)
                                    : static_cast<double>(a.intermediate);
    std::vector<Matrix> m{{h, q, LoraTarget::Q},
                          {h, kv, LoraTarget::K},
                          {h, kv, LoraTarget::V},
                          {q, h, LoraTarget::O}};
    if (a.mlp == MlpKind::Gated) m.push_back({h, inner, LoraTarget::Gate});
    m.push_back({h, inner, LoraTarget::Up});
    m.push_back({inner, h, LoraTarget::Down});
    return m;
}

double layer_params(const std::vector<Matrix>& mats) {
    double p = 0;
    for (const Matrix& m : mats) p += m.params();
    return p;
}

// A run's allocator requests as a value: an allocation's handle is its
// index among the allocations, so two runs that ask the same of the
// allocator have equal Ops, whatever workload fields produced them.
class Ops {
  public:
    // An 8B's run makes some 9,000 requests and releases; a 70B's, more.
    Ops() { ops_.reserve(std::size_t{1} << 14); }
    int allocate(double bytes) {
        // Sizes are kept as their bits: equal requests, equal words.
        push(std::bit_cast<std::uint64_t>(bytes > 0 ? bytes : 0.0));
        return allocations_++;
    }
    void release(int handle) {
        if (handle >= 0) push(kRelease | static_cast<std::uint64_t>(handle));
    }
    // The hash first: traces of one model share their loading's words, and
    // a search's probes differ only after them.
    bool operator==(const Ops&) const = default;

    AllocatorPool replay(bool expandable) const {
        CachingAllocator alloc(expandable);
        std::vector<int> blocks;
        blocks.reserve(static_cast<std::size_t>(allocations_));
        for (const std::uint64_t op : ops_) {
            if (op & kRelease)
                alloc.release(blocks[static_cast<std::size_t>(op & ~kRelease)]);
            else
                blocks.push_back(alloc.allocate(std::bit_cast<double>(op)));
        }
        const double pinned = std::max(0.0, alloc.peak_pinned() - alloc.peak_allocated());
        return {pinned, std::max(0.0, alloc.peak_reserved() - alloc.peak_allocated() - pinned)};
    }

  private:
    // A non-negative double's sign bit is clear: set, the word is a release.
    static constexpr std::uint64_t kRelease = 1ULL << 63;
    void push(std::uint64_t op) {
        ops_.push_back(op);
        hash_ = (hash_ ^ op) * 0x100000001b3ULL;  // FNV-1a's prime, a word at a time
    }
    std::uint64_t hash_ = 0xcbf29ce484222325ULL;
    std::vector<std::uint64_t> ops_;
    int allocations_ = 0;
};

// The replays this process made, newest last. The plans of one ranking ask
// the allocator the same of many workloads (data parallel at any count is
// one card's run; cards whose defaults change nothing the trace reads), and
// a replay costs some 3 M instructions for an 8B. Keyed by the requests
// themselves, so a hit is exact by construction. Bounded: a search over
// contexts or batches makes new traces that never repeat.
class ReplayMemo {
  public:
    AllocatorPool pool(Ops ops, bool expandable) {
        {
            const std::lock_guard lock(mutex_);
            for (const Entry& e : entries_)
                if (e.expandable == expandable && e.ops == ops) return e.pool;
        }
        const AllocatorPool pool = ops.replay(expandable);
        const std::lock_guard lock(mutex_);
        if (entries_.size() >= kEntries) entries_.erase(entries_.begin());
        entries_.push_back({std::move(ops), expandable, pool});
        return pool;
    }

  private:
    static constexpr std::size_t kEntries = 16;
    struct Entry {
        Ops ops;
        bool expandable = false;
        AllocatorPool pool;
    };
    std::mutex mutex_;
    std::vector<Entry> entries_;
};

class Trace {
  public:
    Trace(const Workload& w, std::int64_t layers)
        : w_(w),
          d_(train_dtypes(w)),
          layers_(layers),
          mats_(layer_matrices(w.model.arch)),
          unit_(layer_params(mats_)),
          per_token_(layer_saved_per_token(w)) {}

    // The run's requests and releases, in order.
    Ops ops() && {
        load();
        const double tokens = static_cast<double>(w_.batch) * static_cast<double>(w_.seq);
        std::vector<double> steps{tokens, tokens};
        if (!w_.packing) steps = {tokens / 2.0, tokens * 3.0 / 4.0, tokens * 7.0 / 8.0, tokens};
        for (const double t : steps) step(t);
        return std::move(ops_);
    }

  private:
    int a(double bytes) { return ops_.allocate(bytes); }
    void f(int h) { ops_.release(h); }
    void f(std::vector<int>& hs) {
        for (const int h : hs) f(h);
        hs.clear();
    }
    double n() const { return w_.gpus > 1 && sharded() ? static_cast<double>(w_.gpus) : 1.0; }
    bool sharded() const { return w_.parallel == Parallel::Fsdp || w_.parallel == Parallel::Zero3; }
    bool full() const { return w_.method == Method::Full; }
    // Bytes a stored weight takes: its format, or the trained dtype.
    double stored(double params) const {
        if (!w_.quant.none())
            return params * weight_bytes_per_param(w_.quant, w_.precision, w_.double_quant);
        const bool amp = w_.mixed == MixedPrecision::Amp && w_.precision != Precision::Fp32;
        return params * (full() && amp && !d_.deepspeed ? 4.0 : d_.act);
    }
    bool quantised_at_load() const {
        const QuantFamily q = w_.quant.family();
        return q == QuantFamily::Bnb4 || q == QuantFamily::Bnb8;
    }

    void load() {
        const Architecture& arch = w_.model.arch;
        const double h = static_cast<double>(arch.hidden), v = static_cast<double>(arch.vocab);
        for (std::int64_t l = 0; l < layers_; ++l) {
            if (sharded() && n() > 1) {
                // One flat shard per unit (FSDP FlatParameter, ZeRO-3 partition).
                keep_.push_back(a(stored(unit_) / n()));
            } else {
                for (const Matrix& m : mats_) load_matrix(m.params());
            }
            if (w_.uses_lora())
                for (const Matrix& m : mats_)
                    if (w_.targets(m.target)) {
                        const double r = static_cast<double>(w_.lora_rank);
                        keep_.push_back(a(r * m.in * d_.lora));   // lora_A
                        keep_.push_back(a(m.out * r * d_.lora));  // lora_B
                    }
        }
        // The embedding and the head, in 16 bits (fp32 for an fp32 master or
        // PEFT's fp32 casts, which cast the 16-bit copy and free it).
        const double emb = v * h / n();
        const bool fp32 = d_.kbit_fp32 || (full() && d_.resid == 4.0);
        for (int k = 0; k < (arch.tied_embeddings ? 1 : 2); ++k) {
            if (d_.kbit_fp32) {
                const int half = a(emb * d_.act);
                keep_.push_back(a(emb * 4.0));
                f(half);
            } else {
                keep_.push_back(a(emb * (fp32 ? 4.0 : d_.act)));
            }
        }
    }

    // One weight matrix as it is loaded. A base quantised at load lands in
    // 16 bits first; bitsandbytes' quantize_4bit then allocates the fp32
    // absmax of every 64 weights and the packed output, and with double
    // quantisation the 8-bit absmax and its fp32 scales, freeing the fp32
    // absmax; then the 16-bit copy is freed.
    void load_matrix(double params) {
        if (!quantised_at_load()) {
            keep_.push_back(a(stored(params)));
            return;
        }
        const bool four_bit = w_.quant.family() == QuantFamily::Bnb4;
        const int w16 = a(params * d_.act);
        const int absmax = a(params / 64.0 * 4.0);
        keep_.push_back(a(params * (four_bit ? 0.5 : 1.0)));
        if (four_bit && w_.double_quant) {
            keep_.push_back(a(params / 64.0));
            keep_.push_back(a(params / 64.0 / 256.0 * 4.0));
            f(absmax);
        } else {
            keep_.push_back(absmax);
        }
        f(w16);
    }

    // A training step of `tokens` tokens.
    void step(double tokens) {
        const Architecture& arch = w_.model.arch;
        const double h = static_cast<double>(arch.hidden);
        const double temps = layer_temporaries_per_token(w_, d_) * tokens;
        const bool ckpt = w_.ckpt_mode != CkptMode::None;
        const double input = tokens * h * d_.resid;
        const double gathered = w_.quant.none() ? d_.act * unit_ : stored(unit_);
        // The step's handle lists are members: their storage serves every step.
        auto& saved = saved_;
        saved.resize(static_cast<std::size_t>(layers_));
        int gather = -1;
        // Forward.
        for (std::int64_t l = 0; l < layers_; ++l) {
            auto& s = saved[static_cast<std::size_t>(l)];
            if (sharded() && n() > 1) {
                const int next = a(gathered);
                if (gather >= 0) f(gather);
                gather = next;
            }
            if (ckpt) {
                // Under checkpointing the forward keeps no graph: each op's
                // tensors go as the next op runs (the layer's largest moment,
                // its temporaries, at once), and the layer's output (the next
                // layer's input, the one tensor kept) comes last.
                const int dq = dequantised();
                const int t = a(temps);
                f(t);
                f(dq);
                // Offloaded checkpointing keeps two inputs on the GPU (the one
                // in use and the one in flight); the rest go to the host.
                if (w_.ckpt_mode == CkptMode::Offload && l >= 2)
                    f(saved[static_cast<std::size_t>(l - 2)]);
                s.push_back(a(input));
            } else {
                for (const double b : per_token_) {
                    const int dq = dequantised();
                    s.push_back(a(b * tokens));
                    f(dq);
                }
                const int t = a(temps);
                f(t);
            }
        }
        if (gather >= 0) f(gather), gather = -1;
        // The loss.
        auto& loss = loss_;
        for (const TensorGroup& g : loss_tensors(w_, tokens))
            for (int k = 0; k < static_cast<int>(g.count); ++k) loss.push_back(a(g.bytes));
        // Backward, layer by layer in reverse, after the loss's tensors.
        int grad_in = a(input);
        f(loss);
        auto& grads = grads_;
        for (std::int64_t l = layers_ - 1; l >= 0; --l) {
            auto& s = saved[static_cast<std::size_t>(l)];
            if (sharded() && n() > 1) {
                const int next = a(gathered);
                if (gather >= 0) f(gather);
                gather = next;
            }
            auto& recompute = recompute_;
            if (ckpt)
                for (const double b : per_token_) {
                    const int dq = dequantised();
                    recompute.push_back(a(b * tokens));
                    f(dq);
                }
            // The backward's matmuls dequantise the weights again, each next
            // to the input gradient it makes.
            const int dq = dequantised();
            const int out = a(input);
            f(dq);
            f(grad_in);
            grad_in = out;
            if (full()) {
                if (sharded() && n() > 1) {
                    const int unsharded = a(d_.act * unit_);
                    grads.push_back(a(stored(unit_) / n()));
                    f(unsharded);
                } else {
                    for (const Matrix& m : mats_) grads.push_back(a(stored(m.params())));
                }
            }
            f(recompute);
            f(s);
        }
        if (gather >= 0) f(gather);
        f(grad_in);
        optimizer_step(grads);
    }

    // bitsandbytes runs a 4-bit or 8-bit matmul on a dequantised 16-bit copy
    // of the weight (MatMul4Bit: linear(A, dequantize_4bit(B))), made before
    // the output and freed after it: one matrix a tensor, the layer's
    // matrices in turn. GPTQ and AWQ kernels read the packed weight.
    int dequantised() {
        if (!quantised_at_load()) return -1;
        const Matrix& m = mats_[next_matrix_++ % mats_.size()];
        return a(m.params() * d_.act);
    }

    // The first step allocates the optimizer's state (two moments of every
    // trained tensor for AdamW); foreach AdamW adds a temporary of one
    // moment per tensor during the step; zero_grad(set_to_none) frees the
    // gradients.
    void optimizer_step(std::vector<int>& grads) {
        if (full() && !state_made_) {
            const int moments = w_.optimizer == Optimizer::AdamW ? 2 : 0;
            for (std::int64_t l = 0; l < layers_; ++l)
                for (const Matrix& m : mats_)
                    for (int k = 0; k < moments; ++k) keep_.push_back(a(stored(m.params()) / n()));
        }
        state_made_ = true;
        if (full() && w_.optimizer == Optimizer::AdamW &&
            w_.optimizer_impl == OptimizerImpl::Foreach) {
            std::vector<int> tmp;
            for (std::int64_t l = 0; l < layers_; ++l)
                for (const Matrix& m : mats_) tmp.push_back(a(stored(m.params()) / n()));
            f(tmp);
        }
        f(grads);
    }

    const Workload& w_;
    TrainDtypes d_;
    Ops ops_;
    std::int64_t layers_;
    std::vector<Matrix> mats_;       // one layer's weight matrices
    double unit_;                    // their parameters
    std::vector<double> per_token_;  // what a layer saves for backward, bytes a token
    std::vector<int> keep_;
    std::vector<std::vector<int>> saved_;  // a layer's saved tensors
    std::vector<int> loss_, grads_, recompute_;
    bool state_made_ = false;
    std::size_t next_matrix_ = 0;
};

}  // namespace

AllocatorPool allocator_pool(const Workload& w, double allocated) {
    // llama.cpp allocates exact ggml buffers: no caching allocator.
    if (!w.trains() && w.engine && w.engine->memory == MemoryPolicy::LlamaCpp) return {};
    if (!w.trains()) return {kAllocatorReserve * allocated, 0.0};
    // Not replayed: image workloads, layouts that split the model (Megatron's
    // own buffers), and training with the weights or state in host memory.
    if (w.is_image() || (w.gpus > 1 && w.layout.splits_model()) ||
        w.train_offload != TrainOffload::None)
        return {};
    static ReplayMemo memo;
    return memo.pool(Trace(w, std::max<std::int64_t>(w.model.arch.total_layers(), 1)).ops(),
                     w.expandable_segments);
}

}  // namespace gpuadvise::memory_detail
