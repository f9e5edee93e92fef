// The time a training offload adds to a step: every byte that crosses the
// card's PCIe link to and from pinned host memory, less what hides under the
// compute, and the optimizer step the host runs.
#include "gpuadvise/offload_training.hpp"

#include <algorithm>

namespace gpuadvise {
namespace {

// A step's backward is two thirds of its compute (forward 2 FLOPs, backward
// 4 FLOPs per weight and token: Kaplan et al. 2020, Narayanan et al. 2021):
// the gradients stream to the host under it.
constexpr double kBackwardShare = 2.0 / 3.0;

}  // namespace

TrainOffloadTime training_offload_time(const Workload& w, const MemoryEstimate& m, const Gpu& gpu,
                                       const HostPlatform* host, double micro_compute_seconds) {
    TrainOffloadTime t;
    if (!w.trains() || w.train_offload == TrainOffload::None) return t;
    const double n = static_cast<double>(std::max<std::int64_t>(w.gpus, 1));
    const double accum = static_cast<double>(std::max<std::int64_t>(w.grad_accum, 1));
    const double act = w.precision == Precision::Fp32 ? 4.0 : 2.0;
    const double trainable = static_cast<double>(m.trainable_params);
    // The card's link, narrowed by the platform's lanes per slot. Without a
    // PCIe generation in the catalog, 16 GB/s (Gen 4 x8 or Gen 3 x16) is
    // assumed.
    double link = gpu.pcie_gbps().value_or(16.0);
    if (host && host->lanes_per_gpu && gpu.pcie_lanes && *host->lanes_per_gpu < *gpu.pcie_lanes)
        link *= static_cast<double>(*host->lanes_per_gpu) / static_cast<double>(*gpu.pcie_lanes);
    t.link_gbps = link;
    // The GPUs one host holds share its memory bandwidth: the plan's, up to
    // what the platform takes (a multi-node plan's other GPUs have their own).
    const double gpus_on_host =
        host && host->max_gpus > 0 ? std::min(n, static_cast<double>(host->max_gpus)) : n;
    // The GPUs copy at once: the host's memory bandwidth bounds them together.
    const auto copy_seconds = [&](double bytes_per_gpu) {
        double s = bytes_per_gpu / (link * 1e9);
        if (host && host->ram_bandwidth_gbps)
            s = std::max(s, bytes_per_gpu * gpus_on_host / (*host->ram_bandwidth_gbps * 1e9));
        return s;
    };
    // Every micro-step each GPU sends its share of the 16-bit gradients to
    // the host (ZeRO-Offload copies each partition after its reduction;
    // FSDP's CPU offload moves the sharded gradients).
    const double grads = trainable / n * act;
    double h2d_micro = 0, h2d_step = 0;
    if (w.train_offload == TrainOffload::Params) {
        // The parameters are fetched layer by layer, in forward and again in
        // backward (FSDP reshards after forward; ZeRO-3 releases them), each
        // GPU copying its shard before the all-gather.
        h2d_micro = 2.0 * static_cast<double>(m.host_weight_bytes) / n;
    } else {
        // The updated 16-bit partition goes back once per optimizer step.
        h2d_step = trainable / n * act;
    }
    t.h2d_bytes = h2d_micro * accum + h2d_step;
    t.d2h_bytes = grads * accum;
    // Prefetched parameters stream under the compute; gradients under
    // backward; the update copy and the host step do not overlap (they wait
    // for the last gradient).
    const double exposed =
        std::max(0.0, copy_seconds(h2d_micro) - micro_compute_seconds) +
        std::max(0.0, copy_seconds(grads) - kBackwardShare * micro_compute_seconds);
    // DeepSpeedCPUAdam (and torch.optim's AdamW on the CPU) streams the fp32
    // master, both moments and the fp32 gradient in and the master, moments
    // and 16-bit copy out: 28 bytes plus the copy per parameter, bound by the
    // host's memory bandwidth (assumed: a vectorised loop over memory). Each
    // host steps the partitions of its own GPUs.
    if (host && host->ram_bandwidth_gbps)
        t.host_step_seconds =
            trainable * gpus_on_host / n * (28.0 + act) / (*host->ram_bandwidth_gbps * 1e9);
    t.seconds = accum * exposed + copy_seconds(h2d_step) + t.host_step_seconds;
    return t;
}

}  // namespace gpuadvise
