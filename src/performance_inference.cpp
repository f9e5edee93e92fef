// A language model's inference on one plan: a decode step reads the weights
// its batch touches (for MoE the distinct experts of the batch) and the KV
// cache at the engine's share of bandwidth, or computes at the attainable
// matmul rate of the engine's kernel path, whichever is slower, plus the
// engine's launch costs; prefill is FLOPs at that path's rate
// (docs/performance-model.md, "Inference").
#include <algorithm>
#include <array>
#include <cmath>

#include "gpuadvise/layout.hpp"
#include "performance_common.hpp"

namespace gpuadvise::performance_detail {

namespace {

// Engines that launch every kernel from Python each step, without CUDA
// graphs: Hugging Face generate (eager PyTorch; CUDA graphs only with a
// static cache and torch.compile, transformers docs "LLM inference
// optimization"), litgpt's generate (eager unless --compile) and AutoAWQ (its
// fused modules are PyTorch modules). Their host cost per layer overlaps the
// GPU's work, so a step takes the longer of the two; the other engines (vLLM,
// SGLang and TensorRT-LLM with CUDA graphs, gpt-fast's torch.compile with
// reduce-overhead, llama.cpp's own launches and CUDA graphs, MLX's compiled
// graphs) leave only the gaps between kernels, which add to the GPU's time.
constexpr std::array<std::string_view, 3> kEagerEngines{"transformers", "litgpt", "autoawq"};

// Hugging Face's MoE blocks (Mixtral, Qwen2/3-MoE, transformers 4.4x-4.5x)
// loop over every expert in Python (`for expert_idx in range(num_experts)`),
// each iteration a torch.where that syncs with the device and the expert's
// three linears, empty or not.
bool per_expert_loop(const Engine& e, const Architecture& a) {
    return e.id == "transformers" && a.is_moe();
}

// The weight-only formats whose kernels dequantise the weights to 16-bit
// before a 16-bit GEMM, and from how many tokens per step: bitsandbytes'
// matmul_4bit for any input but a single token (gemv_4bit), AutoAWQ's GEMM
// module from 1024 tokens (its FP16_MATMUL_HEURISTIC_CONDITION), which
// transformers also loads AWQ checkpoints with (integrations/awq.py replaces
// the linears with AutoAWQ's WQLinear_GEMM). The others fuse the
// dequantisation into their GEMM (Marlin, llama.cpp's MMQ, ExLlama) or
// compute in the format (FP8).
std::optional<double> dequant_from_tokens(const Workload& w, const Engine& e) {
    if (w.quant.family() == QuantFamily::Bnb4) return 2.0;
    if (w.quant.family() == QuantFamily::Awq && (e.id == "autoawq" || e.id == "transformers"))
        return 1024.0;
    return std::nullopt;
}

}  // namespace

bool eager(const Engine& e) {
    return std::find(kEagerEngines.begin(), kEagerEngines.end(), e.id) != kEagerEngines.end();
}

double decode_platform_share(const Gpu& gpu, const Engine& e) {
    // MLX is Metal's own: its profile is its share (data/engines.json).
    if (gpu.platform == SoftwarePlatform::Metal && e.id == "mlx") return 1.0;
    return platform_efficiency(gpu);
}

double stream_bandwidth(const Gpu& gpu, const Engine& e) {
    double bw =
        gpu.memory_bandwidth_gbps * 1e9 * e.bandwidth_efficiency * decode_platform_share(gpu, e);
    if (gpu.platform == SoftwarePlatform::Cuda && gpu.sm_count && e.stream_gbps_per_sm)
        bw = std::min(bw, static_cast<double>(*gpu.sm_count) * *e.stream_gbps_per_sm * 1e9);
    return bw;
}

// The matmul path of an engine's prefill (and batched decode) on a card.
AttainableRate engine_rate(const Workload& w, const Engine& e, const Gpu& gpu) {
    // llama.cpp's and MLX's own Metal kernels: the measured Apple rates are
    // PyTorch MPS's torch.mm, not their path, so they are stated over the
    // datasheet peak (the engine's prefill share is fitted on that basis).
    if (gpu.platform == SoftwarePlatform::Metal &&
        (e.memory == MemoryPolicy::LlamaCpp || e.id == "mlx")) {
        AttainableRate r;
        r.dtype = RateDtype::Fp16;
        if (const auto peak = peak_tflops(gpu, RateDtype::Fp16)) {
            r.tflops = *peak;
            r.low = r.high = r.peak = *peak;
            r.basis = RateBasis::Peak;
        }
        return r;
    }
    if (e.memory == MemoryPolicy::LlamaCpp && gpu.platform == SoftwarePlatform::Cuda) {
        // llama.cpp's CUDA backend: quantised GGUF weights run its MMQ kernels
        // on int8 tensor cores (Turing, compute capability 7.5, and later);
        // F16 weights run cuBLAS with CUBLAS_COMPUTE_16F, FP16 accumulation,
        // which GeForce parts run at twice their FP32-accumulate rate
        // (ggml-cuda's ggml_cuda_op_mul_mat_cublas, ggml_cuda_should_use_mmq).
        if (w.quant.is_gguf() && compute_capability_at_least(gpu, 7, 5) && gpu.tflops.int8) {
            // The MMQ kernels dequantise in the tile and reach a share of the
            // int8 rate fitted on llama.cpp's quantised prefill rows
            // (data/attainable.json "llamacpp_mmq_share"), over the engine's
            // 16-bit prefill share.
            AttainableRate r = attainable_rate(gpu, RateDtype::Int8);
            const double share = speed_fit("llamacpp_mmq_share") / e.prefill_efficiency;
            if (r.tflops) {
                r.tflops = *r.tflops * share;
                r.low *= share;
                r.high *= share;
            }
            return r;
        }
        return attainable_rate(gpu, RateDtype::Fp16, Accumulate::Fp16);
    }
    return workload_rate(gpu, w);
}

// A forward's matmul rate in FLOP/s: the engine's attainable rate on the
// card at its prefill efficiency; nullopt when the card's peak is unknown.
std::optional<double> forward_rate(const AttainableRate& path, const Gpu& gpu, const Engine& e) {
    if (!path.tflops) return std::nullopt;
    const double share = gpu.platform == SoftwarePlatform::Metal && e.metal_prefill_efficiency
                             ? *e.metal_prefill_efficiency
                             : e.prefill_efficiency;
    return *path.tflops * 1e12 * compute_platform_factor(gpu, path) * share;
}

MatmulParams matmul_params(const Workload& w) {
    const ParamCounts c = count_params(w.model.arch);
    const double active = static_cast<double>(w.model.active_params);
    if (c.active() == 0) return {active, 0.0};
    const double scale = active / static_cast<double>(c.active());
    // A tied model's head is its embedding matrix.
    const double head = static_cast<double>(c.lm_head > 0 ? c.lm_head : c.embedding) * scale;
    const double body = active - static_cast<double>(c.embedding + c.lm_head) * scale;
    return {std::max(body, 0.0), head};
}

double distinct_experts(double experts, double per_token, double tokens) {
    if (experts <= 0) return 0.0;
    return experts * (1.0 - std::pow(1.0 - std::min(per_token / experts, 1.0), tokens));
}

double weights_read_share(const Architecture& a, double tokens) {
    if (!a.is_moe()) return 1.0;
    const double routed = routed_expert_share(a);
    const double e = static_cast<double>(a.experts);
    const double k = static_cast<double>(a.experts_per_token);
    return (1.0 - routed) + routed * distinct_experts(e, k, tokens) / e;
}

namespace {

// Bytes each attention score moves in a prefill without a fused attention
// kernel: QK^T writes it, the softmax reads and writes it, the product with
// V reads it, in 16 bits (counted from the ops).
constexpr double kScoreBytes = 8.0;

}  // namespace

// A forward's host time: the engine's launches per layer and its cost per
// forward (scheduler, sampler, generate loop), and Hugging Face's
// per-expert Python loop and FP8 linears where they apply.
double host_seconds(const Workload& w, const Gpu& gpu) {
    const Engine& e = *w.engine;
    const Architecture& a = w.model.arch;
    double host =
        static_cast<double>(a.total_layers()) * e.layer_cost(gpu.platform) + e.step_overhead_s;
    if (per_expert_loop(e, a)) {
        const double moe_layers = static_cast<double>(a.layers - a.dense_layers);
        // An FP8 checkpoint's experts are fine-grained FP8 linears, each
        // launching its input quantisation and block GEMM for every expert,
        // tokens or none (its own coefficient: an empty expert's call is
        // shorter than a dense layer's).
        double iteration = speed_fit("hf_expert_iteration_s");
        if (w.quant.format && w.quant.format->tensor_path == "fp8")
            iteration += 3.0 * speed_fit("hf_fp8_expert_linear_s");
        host += moe_layers * static_cast<double>(a.experts) * iteration;
    } else if (e.id == "transformers" && w.quant.format && w.quant.format->tensor_path == "fp8") {
        // Transformers' fine-grained FP8 linears quantise each input and run a
        // Triton block GEMM: launches beyond the 16-bit linear's.
        host += static_cast<double>(a.layers) * 7.0 * speed_fit("hf_fp8_linear_s");
    }
    return host;
}

namespace {

// Elements the element-wise kernels of one layer move per token in a
// forward (16-bit activations): two norms (read x, write y), two residual
// adds (read two, write one), rotary embedding of q and k (read and write),
// the MLP's activation (a gated MLP reads gate and up and writes the
// product), and each linear's output written for the next kernel to read
// (q, k, v, o, the MLP's up and down). Counted from the ops' shapes.
double forward_elementwise_elements(const Architecture& a) {
    const auto [h, q, kv, f] = layer_widths(a);
    const double activation = a.mlp == MlpKind::Gated ? 3.0 * f : 2.0 * f;
    const double outputs = 2.0 * (q + 2.0 * kv + h + (a.mlp == MlpKind::Gated ? 2.0 : 1.0) * f + h);
    return 2.0 * 2.0 * h + 2.0 * 3.0 * h + 2.0 * (q + kv) + activation + outputs;
}

// Bytes a forward of `tokens` tokens moves through the element-wise kernels
// on one GPU holding `layer_share` of the layers: the layers' element-wise
// traffic (2-byte activations) and the logits (fp32, written by the head
// and read by the sampler) of the tokens whose next token is drawn.
double elementwise_bytes(const Architecture& a, double tokens, double sampled, double layer_share) {
    return tokens * static_cast<double>(a.total_layers()) * layer_share *
               forward_elementwise_elements(a) * 2.0 +
           sampled * static_cast<double>(a.vocab) * 4.0 * 2.0;
}

// Weight bytes a forward does not read: the token embedding of an untied
// model (one row per token is gathered; a tied model reads it as the
// output head) and a vision tower (run once per image, counted apart).
// llama.cpp keeps the embedding in host memory, so its weights lack it.
double unread_weight_bytes(const Workload& w, double weight_bytes) {
    const Architecture& a = w.model.arch;
    const ParamCounts c = count_params(a);
    if (c.total() == 0) return 0.0;
    const double total = static_cast<double>(c.total());
    const double vision = static_cast<double>(c.vision_linear + c.vision_other) / total;
    double embedding = 0.0;
    if (c.lm_head > 0 && !(w.engine && w.engine->memory == MemoryPolicy::LlamaCpp))
        embedding = static_cast<double>(c.embedding) / total;
    return weight_bytes * (vision + embedding);
}

struct DecodeStep {
    double seconds = 0;
    bool compute_bound = false;
};

// One forward of the plan's batch at `positions` tokens per sequence, with
// `weight_bytes` and `kv_bytes` the weights and KV cache one GPU reads: a
// decode step at 1, speculative decoding's verification pass at K + 1
// (the same weights and cache read once for every position; the matmuls
// grow with the positions, so a large batch turns it compute-bound). The
// step runs as its kernels do: each linear layer's GEMM streams its weights
// while it multiplies (the longer of the two), the attention streams the KV
// cache, the element-wise kernels and a dequantisation move their bytes at
// the card's bandwidth, one after another.
DecodeStep decode_step(const Workload& w, const Gpu& gpu, const PlanLinks& links,
                       double weight_bytes, double kv_bytes, double positions) {
    const Engine& e = *w.engine;
    const Architecture& a = w.model.arch;
    const double n = static_cast<double>(w.gpus);
    const double b = static_cast<double>(w.batch);
    const double tokens = b * positions;
    const double layers = static_cast<double>(a.total_layers());
    const double h = static_cast<double>(a.hidden);
    const double bw = stream_bandwidth(gpu, e);
    const AttainableRate path = engine_rate(w, e, gpu);
    const std::optional<double> rate = forward_rate(path, gpu, e);
    const auto dequant_tokens = dequant_from_tokens(w, e);
    const ParamCounts counts = count_params(a);
    const double linear = static_cast<double>(counts.active_linear);
    // A dequantising kernel reads the packed weights and writes their 16-bit copy.
    const double dequant_bytes = weight_bytes + 2.0 * linear / n;

    // A step reads the weights the batch touches and the KV cache (half full
    // on average over the generation).
    const double avg_ctx = static_cast<double>(w.prompt) + static_cast<double>(w.gen) / 2.0;
    const double kv_read = kv_bytes * (w.seq > 0 ? avg_ctx / static_cast<double>(w.seq) : 1.0);
    // Hugging Face's SDPA path and litgpt's attention expand grouped K and V
    // to every query head before the kernel (transformers' repeat_kv in
    // integrations/sdpa_attention.py; litgpt's k.expand for n_query_groups):
    // each step writes the expanded copy and the kernel reads it. Hugging
    // Face's DynamicCache also concatenates each step's K and V to the cache
    // (torch.cat: the whole cache read and written again); litgpt
    // preallocates its cache.
    const double groups = a.kv_heads > 0 && a.heads > a.kv_heads
                              ? static_cast<double>(a.heads) / static_cast<double>(a.kv_heads)
                              : 1.0;
    const double expansion = groups > 1.0 ? 1.0 + 2.0 * groups : 1.0;
    double kv_passes = 1.0;
    if (e.id == "transformers") kv_passes = 2.0 + expansion;
    if (e.id == "litgpt") kv_passes = expansion;
    const double read =
        (weight_bytes - unread_weight_bytes(w, weight_bytes)) * weights_read_share(a, tokens);
    const double weight_time = read / bw;
    const MatmulParams mp = matmul_params(w);
    const double compute_time = rate ? 2.0 * (mp.body + mp.head) * tokens / n / *rate : 0.0;
    const double kv_time = kv_read * kv_passes / bw;
    // Pipeline stages hold 1/n of the layers each; tensor-parallel shards
    // 1/n of every layer: either way 1/n of the element-wise traffic.
    double memory_time = elementwise_bytes(a, tokens, tokens, 1.0 / n) / elementwise_bandwidth(gpu);
    if (dequant_tokens && tokens >= *dequant_tokens)
        memory_time += dequant_bytes / elementwise_bandwidth(gpu);
    // Pipeline stages run one after another; tensor-parallel shards at once.
    const double stages = w.parallel == Parallel::Pp ? n : 1.0;
    // Tensor parallel: two all-reduces of the layer's activations per layer
    // and step, each paying its steps' latency plus the bytes over the link
    // (the alpha-beta model of a collective).
    double comm = 0;
    if (w.parallel == Parallel::Tp && w.gpus > 1) {
        const double msg = 2.0 * (n - 1.0) / n * tokens * h * 2.0;
        const double steps = links.one_shot ? 1.0 : 2.0 * (n - 1.0);
        comm = 2.0 * layers * (steps * links.latency_s + msg / (links.gbps * 1e9));
    } else if (w.parallel == Parallel::Pp && w.gpus > 1) {
        comm = (n - 1.0) * (links.latency_s + tokens * h * 2.0 / (links.gbps * 1e9));
    }
    const double host = host_seconds(w, gpu);
    const double gpu_time = (std::max(weight_time, compute_time) + kv_time + memory_time) * stages;
    DecodeStep out;
    out.seconds = eager(e) ? std::max(gpu_time, host) + comm : gpu_time + host + comm;
    out.compute_bound = compute_time > weight_time + kv_time;
    return out;
}

// Speculative decoding (--draft): each step the draft runs K decode steps
// one after another on the batch, then the target verifies K + 1 positions
// per sequence in one pass; a step yields (1 - a^(K+1)) / (1 - a) tokens per
// sequence (speculative.hpp). `plain` is the plan's decode step without it.
void speculative_decode(Performance& perf, const Workload& w, const Gpu& gpu,
                        const PlanLinks& links, double weight_bytes, double kv_bytes,
                        double plain_step) {
    const Speculation& s = *w.speculation;
    const DraftMemory d = draft_memory(w);
    const bool split = w.gpus > 1 && (w.parallel == Parallel::Tp || w.parallel == Parallel::Pp);
    const double n = split ? static_cast<double>(w.gpus) : 1.0;
    Workload draft = w;
    draft.model = s.draft;
    draft.speculation.reset();
    // The draft's forwards run inside the engine's step: the scheduler and
    // the sampler's cost per step is paid once, by the verification.
    Engine draft_engine = *w.engine;
    draft_engine.step_overhead_s = 0.0;
    draft.engine = &draft_engine;
    const DecodeStep verify =
        decode_step(w, gpu, links, weight_bytes, kv_bytes, static_cast<double>(s.tokens) + 1.0);
    const DecodeStep propose =
        decode_step(draft, gpu, links, d.read_weights / n, d.kv_cache / n, 1.0);
    const double b = static_cast<double>(w.batch);
    SpeculativeRate r;
    r.draft_tokens = s.tokens;
    r.acceptance = s.acceptance;
    r.tokens_per_step = expected_tokens_per_step(s.acceptance, s.tokens);
    r.draft_step_seconds = propose.seconds;
    r.verify_seconds = verify.seconds;
    r.step_seconds = static_cast<double>(s.tokens) * propose.seconds + verify.seconds;
    r.without_tokens_per_s = b / plain_step;
    perf.decode_tokens_per_s =
        speculative_tokens_per_s(b, s.tokens, s.acceptance, propose.seconds, verify.seconds);
    r.speedup = *perf.decode_tokens_per_s / r.without_tokens_per_s;
    perf.bound = verify.compute_bound ? Bound::Compute : Bound::Memory;
    perf.speculative = r;
}

}  // namespace

double image_step_flops(const Workload& w) {
    if (!w.images.any()) return 0.0;
    const Architecture& a = w.model.arch;
    const double b = static_cast<double>(w.batch);
    const double images = static_cast<double>(w.images.count);
    double flops = b * images * image_encode_flops(a, w.images.each);
    // QK^T and AV of every prompt token over the images' keys in each
    // cross-attention layer (Llama 3.2 Vision).
    flops += 4.0 * b * static_cast<double>(a.cross_attention_layers) *
             static_cast<double>(w.trains() ? w.seq : w.prompt) *
             static_cast<double>(w.images.cross_tokens()) * static_cast<double>(a.q_dim());
    return flops;
}

double image_encode_seconds(const Workload& w, double weight_bytes, double rate, double speedup,
                            double bandwidth) {
    if (!w.images.any() || !(rate > 0)) return 0.0;
    const Architecture& a = w.model.arch;
    const double width = static_cast<double>(std::max<std::int64_t>(a.vision.hidden, 1));
    const double compute = image_step_flops(w) / (rate * width_efficiency(width) * speedup);
    // The tower's share of the weights, read once per encoder pass.
    const ParamCounts counts = count_params(a);
    const double share = counts.total() > 0
                             ? static_cast<double>(counts.vision_linear + counts.vision_other) /
                                   static_cast<double>(counts.total())
                             : 0.0;
    const bool one_at_a_time = w.engine && w.engine->memory == MemoryPolicy::LlamaCpp;
    const double passes = one_at_a_time ? static_cast<double>(w.batch * w.images.count) : 1.0;
    const double reads = passes * weight_bytes * share / bandwidth;
    return std::max(compute, reads);
}

double language_inference(Performance& perf, const Workload& w, const MemoryEstimate& memory,
                          const Gpu& gpu, const PlanLinks& links) {
    const Engine& e = *w.engine;
    const Architecture& a = w.model.arch;
    const double n = static_cast<double>(w.gpus);
    const double b = static_cast<double>(w.batch);
    const double layers = static_cast<double>(a.total_layers());
    const double h = static_cast<double>(a.hidden);
    const double bw = stream_bandwidth(gpu, e);
    const AttainableRate path = engine_rate(w, e, gpu);
    if (path.tflops) perf.matmul_rate = path;
    const std::optional<double> rate = forward_rate(path, gpu, e);
    const auto dequant_tokens = dequant_from_tokens(w, e);
    const ParamCounts counts = count_params(a);
    const double linear = static_cast<double>(counts.active_linear);
    const double weight_bytes = static_cast<double>(memory.get(&Components::weights));
    // A dequantising kernel reads the packed weights and writes their 16-bit copy.
    const double dequant_bytes = weight_bytes + 2.0 * linear / n;

    const double kv = static_cast<double>(memory.get(&Components::kv_cache));
    const DecodeStep step = decode_step(w, gpu, links, weight_bytes, kv, 1.0);
    perf.bound = step.compute_bound ? Bound::Compute : Bound::Memory;
    perf.decode_tokens_per_s = b / step.seconds;
    if (w.speculation) speculative_decode(perf, w, gpu, links, weight_bytes, kv, step.seconds);
    const double host = host_seconds(w, gpu);

    if (rate) {
        // Prefill: 2 FLOPs per active weight per token, plus causal attention
        // (QK^T and AV over half the prompt on average), at the width's
        // efficiency. Engines with a prefill chunk (llama.cpp's n_ubatch)
        // run the prompt chunk by chunk: each chunk's GEMMs stream the
        // weights while they multiply (the longer of the two), then its
        // element-wise kernels, and its launches.
        const double prompt = static_cast<double>(w.prompt);
        const double tokens = prompt * b;
        const double ew = elementwise_bandwidth(gpu);
        const double tp = w.parallel == Parallel::Tp ? n : 1.0;
        const bool split = w.parallel == Parallel::Pp && w.gpus > 1;
        const double chunk =
            e.prefill_chunk > 0 ? std::min(tokens, static_cast<double>(e.prefill_chunk)) : tokens;
        const double chunks = std::max(1.0, std::ceil(tokens / chunk));
        const MatmulParams mp = matmul_params(w);
        const double flops =
            (2.0 * mp.body * prompt + 2.0 * layers * prompt * prompt * h) * b + 2.0 * mp.head * b;
        const double compute = flops / (*rate * width_efficiency(h) * tp) / chunks;
        // A layer split's stages each read their own layers, one after another.
        const double stages = split ? n : 1.0;
        const double read = (weight_bytes - unread_weight_bytes(w, weight_bytes)) * stages *
                            weights_read_share(a, chunk) / bw;
        double memory_time = elementwise_bytes(a, chunk, 0.0, 1.0 / tp) / ew;
        if (dequant_tokens && chunk >= *dequant_tokens) memory_time += stages * dequant_bytes / ew;
        const double gpu_chunk = std::max(compute, read) + memory_time;
        const double per_chunk = eager(e) ? std::max(gpu_chunk, host) : gpu_chunk + host;
        double work = chunks * per_chunk;
        // llama.cpp splits a prompt into n_batch-token batches of n_ubatch
        // chunks and, over a layer split, pipelines a batch's chunks through
        // the GPUs (llama.cpp pull request 6017, "pipeline parallelism"):
        // u chunks over n stages take (u + n - 1) stage times, not u x n.
        if (split && e.prefill_batch > 0 && chunks > 1) {
            const double batch = std::min(tokens, static_cast<double>(e.prefill_batch));
            const double batches = std::ceil(tokens / batch);
            const double u = std::ceil(batch / chunk);
            work = batches * (u + n - 1.0) * per_chunk / n;
        }
        // Attention without a fused kernel writes every score, the softmax
        // reads and writes it, the product with V reads it.
        if (!w.flash_attn)
            work += layers * static_cast<double>(a.heads) * b * prompt * prompt / 2.0 *
                    kScoreBytes / tp / ew;
        // The sampler reads each sequence's last logits.
        work += elementwise_bytes(a, 0.0, b, 0.0) / ew;
        // The vision encoder runs on the images before the prefill reads their tokens.
        const double encode = image_encode_seconds(w, weight_bytes, *rate, tp, bw);
        const double seconds = work + encode;
        if (w.images.any()) perf.image_encode_seconds = encode;
        perf.prefill_tokens_per_s = tokens / seconds;
        perf.time_to_first_token_s = seconds;
    }
    return *perf.decode_tokens_per_s * 3600.0;
}

}  // namespace gpuadvise::performance_detail
