#include "gpuadvise/performance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/bands.hpp"
#include "gpuadvise/energy.hpp"
#include "gpuadvise/offload_training.hpp"
#include "performance_common.hpp"

namespace gpuadvise {

using namespace performance_detail;

namespace {

// A calibration record's speed factor (calibration.hpp): every rate, and
// every time divided by it.
void scale_rates(Performance& p, double f) {
    for (auto* v : {&p.decode_tokens_per_s, &p.prefill_tokens_per_s, &p.train_tokens_per_s,
                    &p.images_per_s, &p.streams_max, &p.mfu, &p.video_frames_per_s})
        if (*v) **v *= f;
    for (auto* v :
         {&p.step_seconds, &p.micro_step_seconds, &p.time_to_first_token_s, &p.image_encode_seconds,
          &p.seconds_per_image, &p.denoise_step_seconds, &p.seconds_per_clip, &p.job_hours,
          &p.gpu_hours, &p.job_cost_usd, &p.energy_kwh, &p.usd_per_million_tokens})
        if (*v) **v /= f;
    p.paging_seconds /= f;
}

// Collective launch latency: about 10 us over NVLink and 20 us over PCIe
// (NCCL measurements), 14 us for a host-bounced copy between two RTX 5090s
// without P2P (p2pBandwidthLatencyTest, research notes in docs/performance-model.md).
constexpr double kLinkLatency = 10e-6;
constexpr double kPcieLatency = 20e-6;
// Without peer-to-peer (GeForce), traffic between cards is staged through
// host memory: two RTX 7900 XTX without P2P copied at 28-29 GB/s one way over
// PCIe 4.0 x16 (31.5 GB/s), two 5090s at x8 Gen5 at 24 of 31.5 GB/s. NCCL's
// shared-memory path for collectives crosses PCIe twice per hop, so we take
// half of the link per direction.
constexpr double kHostBounceShare = 0.5;
// llama.cpp's CPU decode reaches about 0.8 of peak DRAM bandwidth on desktop
// CPUs: Mixtral Q8_0 (13.7 GB read per token) at 3.37 tok/s on a 7950X and
// 3.58 tok/s on a 5900X, both with two channels at 3600 MT/s (57.6 GB/s):
// 46 and 49 GB/s (ggml-org/llama.cpp#4716; bench/data/host_decode.csv).
constexpr double kHostBandwidthShare = 0.8;
// Each FP8 matmul casts its 16-bit operands first (the input and the weight
// forward, the output gradient backward): a read of two bytes and a write of
// one per element, the amax reduction fused into the same pass
// (Transformer Engine's cast-transpose kernels; torch.compile fuses torchao's).
// The casts are memory-bound (elementwise_bandwidth).
constexpr double kFp8CastBytes = 3.0;

// FP8 training: how much a micro-step's compute time changes when the block
// linear layers' matmuls (forward, backward and the recomputed forward) run
// at the card's FP8 peak instead of bf16. Attention, norms, element-wise
// work, the optimizer and communication stay in bf16; the embedding and the
// output layer stay in bf16 too (torchtitan's float8 filter skips `output`,
// Megatron keeps it in bf16). Each FP8 matmul first casts its 16-bit operands.
// `bf16_seconds` is the micro-step's bf16 compute time, which bounds the
// matmul time it contains.
double fp8_delta_seconds(const Workload& w, const Gpu& gpu, double tokens, double bf16_seconds,
                         double rate16) {
    const Architecture& a = w.model.arch;
    const ParamCounts c = count_params(a);
    const double scale = c.active() > 0 ? static_cast<double>(w.model.active_params) /
                                              static_cast<double>(c.active())
                                        : 1.0;
    const double linear = static_cast<double>(c.active_linear) * scale;
    // Forward 2, backward 4 (frozen LoRA bases skip the weight gradient: 2),
    // recompute 2 FLOPs per weight and token.
    const double passes = (w.method == Method::Full ? 6.0 : 4.0) + (w.grad_ckpt ? 2.0 : 0.0);
    const double flops = tokens * passes * linear;
    // Both at the width's share of their attainable rates (data/attainable.json:
    // measured FP8 matmuls where a source measured them, else the card's or
    // its class's 16-bit share times the measured FP8-over-16-bit ratio).
    const AttainableRate r8 = attainable_rate(gpu, RateDtype::Fp8);
    const double rate8 = r8.tflops ? *r8.tflops * 1e12 * compute_platform_factor(gpu, r8) : 0.0;
    if (!(rate8 > 0)) return 0.0;
    // Each at its own rate's width efficiency: the part of a layer that is
    // not its matmuls costs the same in both.
    const double hidden = static_cast<double>(a.hidden);
    const double gemm16 =
        std::min(flops / (rate16 * training_width_efficiency(hidden, gpu, rate16)), bf16_seconds);
    const double gemm8 = flops / (rate8 * training_width_efficiency(hidden, gpu, rate8));
    // Elements cast per token and layer: each distinct linear input (q/k/v
    // share one, gate/up share one; again in a recomputed forward) and each
    // linear's output gradient; every weight once per micro-step.
    const auto [h, q, kv, f] = layer_widths(a);
    const double up = a.mlp == MlpKind::Gated ? 2.0 * f : f;
    const double inputs = 2.0 * h + q + f;
    const double grads = (q + 2.0 * kv) + h + up + h;
    const double layers = static_cast<double>(a.total_layers());
    const double elements = tokens * layers * (inputs * (w.grad_ckpt ? 2.0 : 1.0) + grads) + linear;
    const double casts = elements * kFp8CastBytes / elementwise_bandwidth(gpu);
    return gemm8 + casts - gemm16;
}

// The user's measured speed (gpuadvise calibrate) for workloads of the same key.
void calibrate_rates(Performance& perf, const Workload& w) {
    if (!w.calibration) return;
    const auto m = match_calibration(*w.calibration, w);
    if (!m || m->speed_records == 0) return;
    scale_rates(perf, m->speed_factor);
    perf.calibrated_from = m;
}

}  // namespace

double platform_efficiency(const Gpu& gpu) {
    switch (gpu.platform) {
        case SoftwarePlatform::Metal:
            // Fitted on llama.cpp's decode rows on Apple parts
            // (data/attainable.json); PyTorch's MPS backend is taken to reach the same.
            return speed_fit("metal_llamacpp_bandwidth_share");
        case SoftwarePlatform::Rocm:
            return 0.7;  // assumed
        case SoftwarePlatform::Oneapi:
            return 0.5;  // assumed
        case SoftwarePlatform::Habana:
            return 0.6;  // assumed
        case SoftwarePlatform::Cuda:
            return 1.0;
    }
    return 1.0;
}

bool platform_calibrated(const Gpu& gpu) {
    return gpu.platform == SoftwarePlatform::Cuda || gpu.platform == SoftwarePlatform::Metal;
}

std::optional<std::string_view> fp8_training_recipe(const Gpu& gpu) {
    if (!gpu.tflops.fp8 || !gpu.tflops.bf16) return std::nullopt;
    const std::string_view cc = gpu.compute_capability.value_or("");
    switch (gpu.platform) {
        case SoftwarePlatform::Cuda:
            // Transformer Engine: FP8 from compute capability 8.9 (Ada) and 9.0
            // (Hopper); MXFP8 block scaling on 10.x and 12.x (Blackwell).
            if (cc == "8.9" || cc == "9.0") return "Transformer Engine FP8 (per-tensor scaling)";
            if (cc.starts_with("10.") || cc.starts_with("12."))
                return "MXFP8 (Transformer Engine, 32-element block scales)";
            return std::nullopt;
        case SoftwarePlatform::Rocm:
            // ROCm/TransformerEngine supports gfx942 (MI300) and gfx950 (MI350).
            if (gpu.arch_family == "cdna3" || gpu.arch_family == "cdna4")
                return "ROCm Transformer Engine FP8";
            return std::nullopt;
        case SoftwarePlatform::Habana:
            return "Intel Gaudi Transformer Engine FP8";
        case SoftwarePlatform::Oneapi:
        case SoftwarePlatform::Metal:
            return std::nullopt;
    }
    return std::nullopt;
}

std::string fp8_training_refusal(const Gpu& gpu) {
    if (fp8_training_recipe(gpu)) return {};
    if (!gpu.tflops.fp8)
        return fmt::format("{} has no FP8 tensor cores; train with --precision bf16",
                           gpu.arch_family);
    return fmt::format(
        "no FP8 training library runs on {} (Transformer Engine: Ada, Hopper, Blackwell; ROCm: "
        "CDNA3/4; Gaudi 2/3); train with --precision bf16",
        gpu.arch_family);
}

std::optional<double> Performance::tokens_per_s() const {
    if (sequences_per_s) return prefill_tokens_per_s;  // tokens embedded (or scored) a second
    return train_tokens_per_s ? train_tokens_per_s : decode_tokens_per_s;
}

std::optional<double> precision_tflops(const Gpu& gpu, Precision precision) {
    switch (precision) {
        case Precision::Bf16:
            return gpu.tflops.bf16 ? gpu.tflops.bf16 : gpu.tflops.fp16;
        // FP8 training runs its other work in bf16 (fp8_seconds adds the FP8
        // matmuls), and reports MFU over the bf16 peak, as torchtitan does.
        case Precision::Fp8:
            return gpu.tflops.bf16;
        case Precision::Fp16:
            return gpu.tflops.fp16;
        // fp32 matmuls run as TF32 on cards that have it: NVIDIA's NGC
        // containers enable it by default and Lightning/HF recommend it
        // (torch.set_float32_matmul_precision("high")); document §2.3.
        case Precision::Fp32:
            return gpu.tflops.tf32 ? gpu.tflops.tf32 : gpu.tflops.fp32;
    }
    return std::nullopt;
}

std::optional<double> compute_tflops(const Gpu& gpu, const Workload& w) {
    if (w.quant.format && w.quant.format->tensor_path == "fp8" && gpu.tflops.fp8)
        return gpu.tflops.fp8;
    return precision_tflops(gpu, w.precision);
}

namespace performance_detail {

double elementwise_bandwidth(const Gpu& gpu) {
    return gpu.memory_bandwidth_gbps * 1e9 * kElementwiseShare * platform_efficiency(gpu);
}

RateDtype matmul_dtype(const Gpu& gpu, const Workload& w) {
    if (w.quant.format && w.quant.format->tensor_path == "fp8" && gpu.tflops.fp8)
        return RateDtype::Fp8;
    switch (w.precision) {
        case Precision::Bf16:
        case Precision::Fp8:  // FP8 training's other work runs in bf16 (fp8_delta_seconds)
            return RateDtype::Bf16;
        case Precision::Fp16:
            return RateDtype::Fp16;
        case Precision::Fp32:
            return gpu.tflops.tf32 ? RateDtype::Tf32 : RateDtype::Fp32;
    }
    return RateDtype::Bf16;
}

AttainableRate workload_rate(const Gpu& gpu, const Workload& w) {
    return attainable_rate(gpu, matmul_dtype(gpu, w));
}

double compute_platform_factor(const Gpu& gpu, const AttainableRate& rate) {
    if (rate.basis == RateBasis::Measured || rate.basis == RateBasis::CardReach) return 1.0;
    for (const ReachClass& c : embedded::attainable().reach)
        if (c.id == attainable_class(gpu)) return 1.0;
    return platform_efficiency(gpu);
}

}  // namespace performance_detail

PlanLinks plan_links(const Gpu& gpu, std::int64_t count, const HostPlatform* platform,
                     const Network* network, std::int64_t per_node) {
    if (network && per_node > 0 && count > per_node && count > gpu.switch_domain()) {
        // Collectives run at the slowest hop: the fabric between nodes (unless
        // the GPU link's switches join every node of the plan, as in an NVL72
        // rack). NCCL's rings pass data inside a node over its GPU link and
        // cross to the next node once per ring, one ring per NIC (rail), so a
        // ring collective over whole nodes moves at the node's NICs together,
        // up to the GPU link: eight 100 Gb/s NICs gave two A100 nodes about
        // 600 Gb/s of all-reduce bus bandwidth (NVIDIA/nccl#495), and "more
        // NICs ... more bandwidth, up to ... the NVLink intra-node bandwidth"
        // (NCCL maintainer, NVIDIA/nccl#412). An all-to-all cannot aggregate
        // NICs (NVIDIA/nccl-tests#267): layout_step keeps it at one NIC.
        PlanLinks l = plan_links(gpu, per_node, platform);
        l.gbps = std::min(l.gbps, network->per_gpu_gbps * static_cast<double>(per_node));
        l.latency_s = std::max(l.latency_s, kPcieLatency);
        l.one_shot = false;
        return l;
    }
    PlanLinks l;
    double pcie = gpu.pcie_gbps().value_or(16.0);
    if (platform && platform->lanes_per_gpu && gpu.pcie_lanes &&
        *platform->lanes_per_gpu < *gpu.pcie_lanes)
        pcie *=
            static_cast<double>(*platform->lanes_per_gpu) / static_cast<double>(*gpu.pcie_lanes);
    l.gbps = gpu.pcie_p2p.value_or(true) ? pcie : pcie * kHostBounceShare;
    l.latency_s = kPcieLatency;
    // Over PCIe the one-shot all-reduce reads every peer directly, so it
    // needs peer-to-peer, and vLLM runs it for two GPUs only ("Custom
    // allreduce is disabled because it's not supported on more than two
    // PCIe-only GPUs", vllm/distributed/device_communicators/
    // custom_all_reduce.py); more cards run NCCL's ring.
    l.one_shot = gpu.pcie_p2p.value_or(true) && count <= 2;
    const auto fast = gpu.link_gbps_per_direction();
    // A bridge joins `max_gpus` cards (pairs for an RTX 3090); a plan beyond
    // one bridge group crosses PCIe, and collectives run at the slowest hop.
    const bool within = count <= gpu.link.max_gpus;
    if (fast && within) {
        l.gbps = *fast;
        l.latency_s = kLinkLatency;
        l.one_shot = true;
    }
    return l;
}

Topology plan_topology(const Gpu& gpu, std::int64_t count) {
    Topology t;
    if (count <= 1) return t;
    if (gpu.shares_host_memory()) {
        t.kind = TopologyKind::Unified;
        return t;
    }
    if (gpu.has_fast_link()) {
        const std::int64_t group = std::max<std::int64_t>(gpu.link.max_gpus, 1);
        t.domains = (count + group - 1) / group;
        if (t.domains == 1) {
            switch (gpu.link.topology) {
                case LinkTopology::Switch:
                    t.kind = TopologyKind::Switch;
                    break;
                case LinkTopology::Mesh:
                    t.kind = TopologyKind::Mesh;
                    break;
                case LinkTopology::Bridge:
                case LinkTopology::None:
                    t.kind = TopologyKind::Bridge;
                    break;
            }
            return t;
        }
    } else {
        t.domains = count;  // every card is its own domain
    }
    // Beyond one link domain the slowest hop is PCIe.
    t.p2p = gpu.pcie_p2p.value_or(true);
    t.kind = t.p2p ? TopologyKind::PcieP2p : TopologyKind::PcieHost;
    return t;
}

Performance estimate_split_performance(const Workload& w, const MemoryEstimate& whole,
                                       std::span<const SplitStage> stages, const JobOptions& job,
                                       std::optional<double> price_usd) {
    Performance perf;
    if (w.trains() || w.is_fixed() || !w.engine || stages.empty()) return perf;
    const Engine& e = *w.engine;
    const Architecture& a = w.model.arch;
    const double active = static_cast<double>(w.model.active_params);
    const double total = static_cast<double>(std::max<std::uint64_t>(w.model.params, 1));
    const double b = static_cast<double>(w.batch);
    const double layers = static_cast<double>(a.total_layers());
    const double h = static_cast<double>(a.hidden);
    const double weights = static_cast<double>(whole.get(&Components::weights)) * (active / total);
    const double avg_ctx = static_cast<double>(w.prompt) + static_cast<double>(w.gen) / 2.0;
    const double kv = static_cast<double>(whole.get(&Components::kv_cache)) *
                      (w.seq > 0 ? avg_ctx / static_cast<double>(w.seq) : 1.0);
    const double prompt = static_cast<double>(w.prompt);
    const MatmulParams mp = matmul_params(w);
    const double prefill_flops =
        (2.0 * mp.body * prompt + 2.0 * layers * prompt * prompt * h) * b + 2.0 * mp.head * b;
    // The first stage's platform stands for the box's launch costs.
    const double host = layers * e.layer_cost(stages.front().gpu->platform) + e.step_overhead_s;
    double decode = host, prefill = host;
    bool encoded = false;  // the images run on the first stage's card
    double watts = 0, hop_gbps = 1e300;
    bool compute_bound = false, timed_prefill = true;
    for (const SplitStage& s : stages) {
        const Gpu& g = *s.gpu;
        const double bw = stream_bandwidth(g, e);
        const double memory_time = s.share * (weights + kv) / bw;
        const AttainableRate path = engine_rate(w, e, g);
        double compute_time = 0;
        if (path.tflops) {
            const double rate = *forward_rate(path, g, e);
            compute_time = 2.0 * (mp.body + mp.head) * b * s.share / rate;
            prefill += s.share * prefill_flops / rate;
            if (!encoded && w.images.any()) {
                const double encode = image_encode_seconds(
                    w, static_cast<double>(whole.get(&Components::weights)), rate, 1.0, bw);
                prefill += encode;
                perf.image_encode_seconds = encode;
            }
            encoded = true;
        } else {
            timed_prefill = false;
        }
        compute_bound = compute_bound || compute_time > memory_time;
        decode += std::max(memory_time, compute_time);
        watts += g.tdp_watts.value_or(0.0);
        hop_gbps = std::min(hop_gbps, plan_links(g, 2).gbps);
    }
    // One activation hand-off per stage boundary, over the slowest card's link.
    const double n = static_cast<double>(stages.size());
    decode += (n - 1.0) * (kPcieLatency + b * h * 2.0 / (hop_gbps * 1e9));
    perf.bound = compute_bound ? Bound::Compute : Bound::Memory;
    perf.decode_tokens_per_s = b / decode;
    if (timed_prefill) {
        perf.prefill_tokens_per_s = prompt * b / prefill;
        perf.time_to_first_token_s = prefill;
    }
    Workload box = w;
    box.gpus = static_cast<std::int64_t>(stages.size());
    finish_job(perf, box, job, price_usd, watts, *perf.decode_tokens_per_s * 3600.0);
    return perf;
}

Performance estimate_offload_performance(const Workload& w, const OffloadPlan& plan, const Gpu& gpu,
                                         std::optional<double> host_gbps, const JobOptions& job,
                                         std::optional<double> price_usd,
                                         std::optional<double> host_share) {
    Performance perf;
    if (w.trains() || w.is_fixed() || !w.engine) return perf;
    const Engine& e = *w.engine;

    const double b = static_cast<double>(w.batch);
    const double layers = static_cast<double>(w.model.arch.total_layers());
    const double h = static_cast<double>(w.model.arch.hidden);
    const double gpu_bw = stream_bandwidth(gpu, e);
    const AttainableRate path = engine_rate(w, e, gpu);
    if (path.tflops) perf.matmul_rate = path;
    const double rate = forward_rate(path, gpu, e).value_or(0.0);
    const MatmulParams mp = matmul_params(w);
    const double compute_time = rate > 0 ? 2.0 * (mp.body + mp.head) * b / rate : 0.0;
    double step = std::max(plan.gpu_read_bytes / gpu_bw, compute_time) +
                  layers * e.layer_cost(gpu.platform) + e.step_overhead_s;
    const bool host_part = plan.host_read_bytes > 0;
    if (host_part) {
        if (!host_gbps || !(*host_gbps > 0)) return perf;
        step +=
            plan.host_read_bytes / (*host_gbps * 1e9 * host_share.value_or(kHostBandwidthShare));
        const double hop = kPcieLatency + b * h * 2.0 / (gpu.pcie_gbps().value_or(16.0) * 1e9);
        step += static_cast<double>(plan.handoffs) * hop;
    }
    perf.bound = Bound::Memory;
    perf.decode_tokens_per_s = b / step;
    if (rate > 0) {
        const double prompt = static_cast<double>(w.prompt);
        const double flops =
            (2.0 * mp.body * prompt + 2.0 * layers * prompt * prompt * h) * b + 2.0 * mp.head * b;
        const double ubatches = std::ceil(prompt * b / kPrefillUbatch);
        const double pcie = gpu.pcie_gbps().value_or(16.0) * 1e9;
        const double encode = image_encode_seconds(w, plan.gpu_read_bytes, rate, 1.0, gpu_bw);
        const double seconds = flops / rate + ubatches * plan.host_weight_bytes / pcie +
                               layers * e.layer_cost(gpu.platform) + e.step_overhead_s + encode;
        if (w.images.any()) perf.image_encode_seconds = encode;
        perf.prefill_tokens_per_s = prompt * b / seconds;
        perf.time_to_first_token_s = seconds;
    }
    finish_job(perf, w, job, price_usd, gpu.tdp_watts.value_or(0.0) * static_cast<double>(w.gpus),
               *perf.decode_tokens_per_s * 3600.0);
    return perf;
}

Performance estimate_performance(const Workload& w, const MemoryEstimate& memory, const Gpu& gpu,
                                 const JobOptions& job, std::optional<double> price_usd,
                                 const HostPlatform* host, std::uint64_t usable_bytes,
                                 const Network* network, std::int64_t per_node) {
    Performance perf;
    if (w.is_fixed()) return perf;  // no model to time
    if (w.is_image()) {
        image_performance(perf, w, gpu, plan_links(gpu, w.gpus, host, network, per_node));
        calibrate_rates(perf, w);
        return perf;
    }
    const Architecture& a = w.model.arch;
    const double n = static_cast<double>(w.gpus);
    const double active = static_cast<double>(w.model.active_params);
    const double b = static_cast<double>(w.batch);
    const double layers = static_cast<double>(a.total_layers());
    const double h = static_cast<double>(a.hidden);
    const PlanLinks links = plan_links(gpu, w.gpus, host, network, per_node);
    const auto peak = compute_tflops(gpu, w);  // the datasheet figure MFU is stated over
    const AttainableRate attainable = workload_rate(gpu, w);
    double tokens_per_hour = 0;  // for serving cost

    if (w.embeds() && w.engine) {
        tokens_per_hour = embedding_inference(perf, w, memory, gpu);
    } else if (!w.trains() && w.engine) {
        tokens_per_hour = language_inference(perf, w, memory, gpu, links);
    } else if (w.trains() && attainable.tflops && peak) {
        const double rate = *attainable.tflops * 1e12 * compute_platform_factor(gpu, attainable);
        const double s = static_cast<double>(w.seq);
        const double tokens = b * s;
        MicroStep micro = training_micro_step(w, memory, gpu, rate);
        if (w.precision == Precision::Fp8) {
            if (!fp8_training_recipe(gpu)) {
                // No FP8 path: no speed to report (the precision-fp8 rule rejects the plan).
                return perf;
            }
            micro.matmul += fp8_delta_seconds(w, gpu, tokens, micro.matmul, rate);
        }
        perf.matmul_rate = attainable;
        double compute_seconds = micro.seconds();
        double comm_seconds = 0, step_comm = 0;
        const double accum = static_cast<double>(w.grad_accum);
        double step_tokens = tokens * accum * n;  // every GPU's micro-batches of one step
        if (w.gpus > 1 && w.layout.splits_model()) {
            const LayoutStep t =
                layout_step(w, memory, gpu, compute_seconds, links, network, per_node, host);
            compute_seconds = t.micro_seconds;
            step_comm = t.step_seconds - accum * t.micro_seconds;
            step_tokens = t.tokens;
        } else if (w.gpus > 1) {
            const double link = links.gbps * 1e9;
            // Ring all-reduce (or reduce-scatter + all-gather) moves 2(N-1)/N
            // of the 16-bit gradients per GPU: once per optimizer step for DDP
            // and ZeRO-1/2 (no_sync accumulates locally), every micro-step for
            // FSDP/ZeRO-3, which reduce-scatter as they go.
            const double grads =
                2.0 * (n - 1.0) / n * static_cast<double>(memory.trainable_params) * 2.0;
            const bool sharded = w.parallel == Parallel::Fsdp || w.parallel == Parallel::Zero3;
            double bytes = sharded ? grads : 0.0;
            if (!sharded) step_comm = grads / link * (1.0 - kCommOverlap);
            // Sharded plans also all-gather every layer's weights in forward
            // and again in backward, every micro-step.
            if (sharded)
                bytes += 2.0 * (n - 1.0) * static_cast<double>(memory.get(&Components::weights));
            comm_seconds = bytes / link * (1.0 - kCommOverlap);
            // Pipeline bubble (p-1)/m with m = 8 micro-batches per step
            // (Narayanan et al. 2021, §2.2).
            if (w.parallel == Parallel::Pp) compute_seconds *= 1.0 + (n - 1.0) / 8.0;
        }
        // Paged optimizer state (bitsandbytes paged AdamW) lives in unified
        // memory: what does not fit beside the rest is paged out and back in
        // over PCIe every optimizer step.
        if (usable_bytes > 0 && memory.paged_optimizer_bytes > 0) {
            const double spare = usable_bytes > memory.per_gpu_bytes
                                     ? static_cast<double>(usable_bytes - memory.per_gpu_bytes)
                                     : 0.0;
            const double spill = static_cast<double>(memory.paged_optimizer_bytes) - spare;
            const double pcie = gpu.pcie_gbps().value_or(16.0) * 1e9;
            if (spill > 0) perf.paging_seconds = 2.0 * spill / pcie;
        }
        // The optimizer step, once per optimizer step, over each GPU's share of
        // the trainable weights (sharded state: 1/N of them).
        const bool sharded_state =
            w.gpus > 1 && (w.layout.splits_model() ||
                           (w.parallel != Parallel::Ddp && w.parallel != Parallel::None));
        // With --train-offload the host runs it (offload_seconds counts that).
        if (w.train_offload == TrainOffload::None)
            step_comm += optimizer_step_seconds(w, memory, gpu, sharded_state ? n : 1.0);
        perf.micro_step_seconds = compute_seconds + comm_seconds;
        perf.offload_seconds = training_offload_time(w, memory, gpu, host, compute_seconds).seconds;
        perf.step_seconds = accum * *perf.micro_step_seconds + step_comm + perf.paging_seconds +
                            perf.offload_seconds;
        perf.train_tokens_per_s = step_tokens / *perf.step_seconds;
        perf.bound = Bound::Compute;
        // MFU as large runs report it: 6 N (forward + backward, no recompute)
        // plus attention's 12 L h s per token, over the dense peak.
        const double model_flops = 6.0 * active + 12.0 * layers * h * s;
        perf.mfu = *perf.train_tokens_per_s * model_flops / (n * *peak * 1e12);
    }

    // The hosts: one platform per node of a multi-node plan, else the one box.
    double host_watts = 0, fabric_watts = 0;
    if (host) {
        const bool multi = network && per_node > 0 && w.gpus > per_node;
        const double nodes = multi ? std::ceil(n / static_cast<double>(per_node)) : 1.0;
        host_watts = host->host_watts.value_or(kSystemBaseWatts) * nodes;
        if (multi) fabric_watts = energy_data().fabric_watts_per_gpu * n;
    }
    finish_job(perf, w, job, price_usd, gpu.tdp_watts.value_or(0.0) * n, tokens_per_hour,
               host_watts, fabric_watts);
    calibrate_rates(perf, w);
    return perf;
}

}  // namespace gpuadvise
