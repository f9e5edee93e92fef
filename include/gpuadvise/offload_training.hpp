#pragma once
// Training with host memory (--train-offload): the PCIe traffic of a step
// and the host's optimizer step, as the seconds they add to a training step
// (docs/memory-model.md, "Training with host memory"). The memory side (what
// moves to the host, the host bytes) is the memory model's (memory_shard.cpp).
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

struct TrainOffloadTime {
    double seconds = 0;            // added to one optimizer step
    double h2d_bytes = 0;          // per GPU per optimizer step, host to GPU
    double d2h_bytes = 0;          // per GPU per optimizer step, GPU to host
    double host_step_seconds = 0;  // the optimizer step on the CPU
    double link_gbps = 0;          // the card's PCIe link (payload GB/s per direction)
};

// `micro_compute_seconds` is one micro-batch's forward and backward compute;
// `host` gives the host memory bandwidth the CPU step and the GPUs' copies
// share (unknown: the link alone bounds the copies and the step is not
// priced). Zero without --train-offload.
TrainOffloadTime training_offload_time(const Workload& w, const MemoryEstimate& m, const Gpu& gpu,
                                       const HostPlatform* host, double micro_compute_seconds);

}  // namespace gpuadvise
