#pragma once
// The speed, time and cost model (docs/performance-model.md): decode steps are
// bound by the bytes they read (weights, the experts the batch touches, KV
// cache) at the engine's share of peak bandwidth plus its launch costs;
// prefill and training matmuls run at the card's attainable rate
// (data/attainable.json: measured, else estimated from its class and power),
// the bandwidth-bound kernels at its bandwidth; multi-GPU plans add
// communication over the plan's real links. Engine profiles live in
// data/engines.json.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuadvise/attainable.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/network.hpp"
#include "gpuadvise/offload.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// --chinchilla: the compute-optimal training set of Hoffmann et al. 2022
// ("Training Compute-Optimal Large Language Models", arXiv 2203.15556):
// about 20 tokens per parameter (Chinchilla: 70B parameters, 1.4T tokens).
// Applied to the total parameter count (for MoE models a convention: the
// paper fits dense models).
inline constexpr double kChinchillaTokensPerParam = 20.0;

// What a job is, for time and cost (all optional; without them only rates are reported).
struct JobOptions {
    std::optional<double> tokens;  // training tokens, or tokens to generate
    bool chinchilla = false;       // tokens = kChinchillaTokensPerParam x parameters
    std::optional<double> steps;   // optimizer steps (of --grad-accum micro-batches per GPU)
    std::optional<double> epochs;  // with dataset_tokens
    std::optional<double> dataset_tokens;
    double amortize_years = 3.0;                     // purchase price spread over this life
    double kwh_price_usd = 0.15;                     // energy price
    double utilisation = 0.8;                        // share of TDP drawn while the job runs
    std::optional<double> cloud_price_per_gpu_hour;  // rented instead of bought
    // --pue: the facility's power usage effectiveness; absent, data/energy.json's.
    std::optional<double> pue;
    // --deadline: a job that takes longer does not fit (its days are shown).
    std::optional<double> deadline_hours;
};

enum class Bound : std::uint8_t { Unknown, Memory, Compute };
inline constexpr auto kBounds = make_enum_table<Bound>(
    {{Bound::Unknown, "unknown"}, {Bound::Memory, "memory"}, {Bound::Compute, "compute"}});
enum class CostBasis : std::uint8_t { None, Purchase, Cloud };
inline constexpr auto kCostBases =
    make_enum_table<CostBasis>({{CostBasis::None, "none"},
                                {CostBasis::Purchase, "purchase+energy"},
                                {CostBasis::Cloud, "cloud"}});

// The links a multi-GPU plan communicates over, per direction.
struct PlanLinks {
    double gbps = 16;          // GB/s per direction between the plan's GPUs (the slowest hop)
    double latency_s = 20e-6;  // per message (one hop of a collective)
    // Whether a small all-reduce takes one step: over NVLink/NVSwitch, or
    // over PCIe with peer-to-peer between two cards, the engines' one-shot
    // all-reduce reads every peer at once (vLLM custom_all_reduce, NCCL
    // NVLS); otherwise NCCL runs a ring of 2(n-1) steps, each paying the
    // latency.
    bool one_shot = true;
};

// Speculative decoding (--draft) on a plan: the draft's K decode steps and
// the target's verification pass of K + 1 positions, the tokens a step
// yields at the acceptance rate, and the decode rate without the draft. An
// estimate that rests on the acceptance rate (docs/performance-model.md).
struct SpeculativeRate {
    std::int64_t draft_tokens = 0;
    double acceptance = 0;
    double tokens_per_step = 0;       // per sequence: (1 - a^(K+1)) / (1 - a)
    double draft_step_seconds = 0;    // one of the draft's K steps on the batch
    double verify_seconds = 0;        // the target's pass over K + 1 positions
    double step_seconds = 0;          // K x draft + verify
    double without_tokens_per_s = 0;  // the plan's decode rate without a draft
    double speedup = 0;               // with over without (below 1: the draft costs more)
};

struct Performance {
    Bound bound = Bound::Unknown;
    std::optional<double> decode_tokens_per_s;  // aggregate over the batch and the plan's GPUs
    // --draft: how the decode rate above was reached (nullopt without a
    // draft, and for plans whose speed model does not count it: offload and
    // mixed boxes).
    std::optional<SpeculativeRate> speculative;
    std::optional<double> prefill_tokens_per_s;
    std::optional<double> time_to_first_token_s;
    // Of the time to first token: the vision encoder over the request's
    // images (--images); nullopt without images.
    std::optional<double> image_encode_seconds;
    std::optional<double> train_tokens_per_s;
    // One optimizer step: --grad-accum micro-steps (+ communication).
    std::optional<double> step_seconds;
    // One micro-batch per GPU, forward + backward and what it communicates.
    std::optional<double> micro_step_seconds;
    // Paged optimizer state that does not fit beside the rest pages over PCIe
    // each step (out and back in); included in step_seconds. 0 when it fits.
    double paging_seconds = 0;
    // --train-offload: the PCIe copies and host optimizer step (offload_training.hpp).
    double offload_seconds = 0;
    std::optional<double> job_hours;
    std::optional<double> job_cost_usd;
    std::optional<double> energy_kwh;
    std::optional<double> usd_per_million_tokens;  // serving: cost per million generated tokens
    // Training: model FLOPs (6 x active parameters per token, plus attention)
    // over the plan's dense peak at the compute precision; GPU-hours of the job.
    std::optional<double> mfu;
    std::optional<double> gpu_hours;
    // The job's size in tokens (from --tokens, --chinchilla, --steps or the
    // dataset) and its wall-clock days.
    std::optional<double> job_tokens;
    std::optional<double> days;
    // A training job's share of its wall-clock spent training (job.cpp:
    // restarts, evaluation, checkpointing and input stalls take the rest);
    // job_hours, days, gpu_hours, energy and cost include the rest. Null
    // without a training job size.
    std::optional<double> goodput;
    // The power usage effectiveness energy_kwh and the purchase cost's energy
    // were multiplied by (with a job size or a serving cost).
    std::optional<double> pue;
    CostBasis cost_basis = CostBasis::None;
    // The matmul rate the estimate ran at (data/attainable.json): the kernel
    // path's dtype, the rate before the engine's share and the width's
    // efficiency, the datasheet peak it is stated against, and its basis
    // (measured, the class's share, power-limited, ...); nullopt where no
    // matmul rate is known or used (fixed workloads, no peak).
    std::optional<AttainableRate> matmul_rate;
    // measured / estimate at p10 and p90 of the phase's validation rows
    // (data/error_bands.json), for the range of each rate.
    std::optional<std::pair<double, double>> decode_band, prefill_band, train_band;
    // Image and vision workloads: images (or video frames) per second over
    // the plan's GPUs, one GPU's seconds per image at the batch, one step of
    // the denoiser at the batch, and for video the streams the compute holds.
    std::optional<double> images_per_s;
    std::optional<double> seconds_per_image;
    std::optional<double> denoise_step_seconds;
    std::optional<double> streams_max;
    // Video generation (--frames): one GPU's seconds per clip at the batch,
    // and the clips' frames per second over the plan's GPUs (images_per_s
    // and seconds_per_image stay null).
    std::optional<double> seconds_per_clip;
    std::optional<double> video_frames_per_s;
    std::optional<std::pair<double, double>> images_band;
    // Embedding and reranker models: sequences embedded (or pairs scored) a
    // second over the plan, and the seconds one forward of the batch takes
    // (its latency); prefill_tokens_per_s holds the tokens a second.
    std::optional<double> sequences_per_s;
    std::optional<double> batch_seconds;
    // The user's calibration that scaled these rates (gpuadvise calibrate).
    std::optional<CalibrationMatch> calibrated_from;
    // The headline rate used for ranking: decode tokens/s or training tokens/s
    // (tokens embedded a second for an embedding model).
    std::optional<double> tokens_per_s() const;
    // What ranking compares: images/s for image workloads, generated video
    // frames/s for video generation, sequences/s for an embedding or
    // reranker model, else tokens/s.
    std::optional<double> rate() const {
        return images_per_s         ? images_per_s
               : video_frames_per_s ? video_frames_per_s
               : sequences_per_s    ? sequences_per_s
                                    : tokens_per_s();
    }
};

// Share of the CUDA-calibrated efficiency a software platform reaches: Metal
// is fitted on the Apple rows of bench/data; ROCm, oneAPI and Habana have no
// measured rows there and carry documented assumptions.
double platform_efficiency(const Gpu& gpu);
bool platform_calibrated(const Gpu& gpu);

// The datasheet's dense tensor peak at a compute precision, in TFLOPS (TF32
// for fp32 where the card has it): what MFU is stated over. Speeds use the
// attainable rate instead (attainable.hpp).
std::optional<double> precision_tflops(const Gpu& gpu, Precision precision);
// Dense tensor throughput at the workload's compute precision, in TFLOPS.
std::optional<double> compute_tflops(const Gpu& gpu, const Workload& workload);

// FP8 training (--precision fp8) on a card: the recipe that runs there
// (Transformer Engine FP8 on Ada and Hopper, MXFP8 on Blackwell, ROCm's
// Transformer Engine on CDNA3/4, Intel Gaudi's on Gaudi 2/3), or nullopt.
std::optional<std::string_view> fp8_training_recipe(const Gpu& gpu);
// Why a card cannot train in FP8, one line with the fix ("" when it can).
std::string fp8_training_refusal(const Gpu& gpu);

// The links between `count` cards of `gpu` on one host, as the model uses them.
// `platform` (may be null) caps the PCIe lanes each card gets (x8/x8 desktops).
// Beyond `per_node` cards (a multi-node plan) collectives also cross
// `network` at its per-GPU bandwidth.
PlanLinks plan_links(const Gpu& gpu, std::int64_t count, const HostPlatform* platform = nullptr,
                     const Network* network = nullptr, std::int64_t per_node = 0);

// How a plan's cards are joined, for the JSON and the table: the kind of the
// slowest hop, whether cards reach each other's memory directly (P2P), and
// how many high-speed link domains the plan spans (1 when it is one).
enum class TopologyKind : std::uint8_t {
    Single,
    Switch,
    Mesh,
    Bridge,
    PcieP2p,
    PcieHost,
    Unified,
    Fabric
};
inline constexpr auto kTopologyKinds =
    make_enum_table<TopologyKind>({{TopologyKind::Single, "single"},
                                   {TopologyKind::Switch, "switch"},
                                   {TopologyKind::Mesh, "mesh"},
                                   {TopologyKind::Bridge, "bridge"},
                                   {TopologyKind::PcieP2p, "pcie-p2p"},
                                   {TopologyKind::PcieHost, "pcie-host"},
                                   {TopologyKind::Unified, "unified"},
                                   {TopologyKind::Fabric, "fabric"}});
struct Topology {
    TopologyKind kind = TopologyKind::Single;
    bool p2p = true;
    std::int64_t domains = 1;
};
Topology plan_topology(const Gpu& gpu, std::int64_t count);

// One stage of a layer split over different cards: the card and its share
// of the model's layers (the shares add up to 1).
struct SplitStage {
    const Gpu* gpu = nullptr;
    double share = 0;
};
// Inference with the layers split over `stages` (a mixed box, as llama.cpp's
// --tensor-split places them): a token passes every stage in turn, so decode
// and prefill times are the sum of the stages' times. `whole` is the one-GPU
// estimate of the workload; `price_usd` what the whole box costs.
Performance estimate_split_performance(const Workload& workload, const MemoryEstimate& whole,
                                       std::span<const SplitStage> stages,
                                       const JobOptions& job = {},
                                       std::optional<double> price_usd = std::nullopt);

// Inference with part of the model in host memory (--offload): the GPUs'
// share is read at their bandwidth, the host's at `host_gbps` (null: the host
// part cannot be timed, nor the decode rate); prefill runs on the GPU and
// streams the host-resident weights over PCIe once per micro-batch of
// kPrefillUbatch tokens, as llama.cpp does for batches of 32 or more.
inline constexpr double kPrefillUbatch = 512;  // llama.cpp's default n_ubatch
Performance estimate_offload_performance(const Workload& workload, const OffloadPlan& plan,
                                         const Gpu& gpu, std::optional<double> host_gbps,
                                         const JobOptions& job = {},
                                         std::optional<double> price_usd = std::nullopt,
                                         std::optional<double> host_share = std::nullopt);

// `workload.gpus` cards of `gpu`, with `memory` the per-GPU estimate;
// `price_usd` is what the whole plan costs (GPUs and host), for job costs;
// `host` (may be null) is the platform the cards go into; `usable_bytes`
// (0 = unknown) is each card's usable memory, for paged optimizer state.
Performance estimate_performance(const Workload& workload, const MemoryEstimate& memory,
                                 const Gpu& gpu, const JobOptions& job = {},
                                 std::optional<double> price_usd = std::nullopt,
                                 const HostPlatform* host = nullptr, std::uint64_t usable_bytes = 0,
                                 const Network* network = nullptr, std::int64_t per_node = 0);

}  // namespace gpuadvise
