// Training with host memory (--train-offload): what moves to the host, what
// stays on the GPU, and the PCIe time a step pays for it. The byte counts
// restate ZeRO-Offload's layout on purpose (Ren et al. 2021, §4.1: fp16
// parameters on the GPU; fp32 master, momentum, variance and gradients on
// the CPU), so a change to it is a visible choice.
#include "gpuadvise/offload_training.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/units.hpp"
#include "support/fixtures.hpp"

using namespace gpuadvise;

namespace {

using test::round_card;

MemoryEstimate full_8b(const char* offload, const char* gpus = "1", const char* parallel = "") {
    if (*parallel)
        return estimate_memory(test::workload({{Field::Model, "8B"},
                                               {Field::Method, "full"},
                                               {Field::Gpus, gpus},
                                               {Field::Parallel, parallel},
                                               {Field::TrainOffload, offload}}));
    return estimate_memory(test::workload(
        {{Field::Model, "8B"}, {Field::Method, "full"}, {Field::TrainOffload, offload}}));
}

double per_param(std::uint64_t bytes) {
    return static_cast<double>(bytes) / 8e9;
}

}  // namespace

TEST_CASE("ZeRO-Offload keeps 16-bit weights on the GPU and 16 bytes a parameter on the host") {
    const MemoryEstimate none = full_8b("none");
    const MemoryEstimate opt = full_8b("optimizer");
    CHECK(none.host_bytes == 0);
    // fp32 master 4 + AdamW moments 8 + fp32 gradients 4 (DeepSpeedCPUAdam
    // steps with fp32 gradients).
    CHECK(per_param(opt.host_bytes) == Approx(16.0).epsilon(1e-6));
    CHECK(per_param(opt.get(&Components::weights)) == Approx(2.0).epsilon(1e-6));
    CHECK(opt.get(&Components::optimizer) == 0);
    // The GPU keeps one reduce bucket of 16-bit gradients (reduce_bucket_size
    // = 5e8 elements).
    CHECK(static_cast<double>(opt.get(&Components::gradients)) == Approx(5e8 * 2.0).epsilon(1e-6));
    CHECK(opt.per_gpu_bytes < none.per_gpu_bytes / 4);
}

TEST_CASE("parameter offload also moves the 16-bit parameters, and streams them per layer") {
    const MemoryEstimate opt = full_8b("optimizer");
    const MemoryEstimate params = full_8b("params");
    CHECK(per_param(params.host_bytes) == Approx(18.0).epsilon(1e-6));
    CHECK(per_param(params.host_weight_bytes) == Approx(2.0).epsilon(1e-6));
    CHECK(params.get(&Components::weights) == 0);
    CHECK(params.get(&Components::workspace) > 0);  // two gathered layers and a unit's gradients
    CHECK(params.per_gpu_bytes < opt.per_gpu_bytes);
}

TEST_CASE("sharded plans keep each rank's partition on the one host") {
    const MemoryEstimate one = full_8b("optimizer");
    const MemoryEstimate four = full_8b("optimizer", "4", "zero2");
    // The host holds every rank's optimizer partition: the same bytes as one GPU's.
    CHECK(static_cast<double>(four.host_bytes) ==
          Approx(static_cast<double>(one.host_bytes)).epsilon(1e-6));
    // FSDP's CPU offload moves the gradients too, and its sharded fp32
    // FlatParameter is the master itself (cast to 16 bits on all-gather): 4
    // + 8 + 4 bytes. ZeRO-3's offload_param keeps a 16-bit copy besides the
    // optimizer's fp32 master: 2 more.
    const MemoryEstimate fsdp = full_8b("params", "4", "fsdp");
    CHECK(fsdp.get(&Components::gradients) == 0);
    CHECK(per_param(fsdp.host_bytes) == Approx(16.0).epsilon(1e-6));
    const MemoryEstimate zero3 = full_8b("params", "4", "zero3");
    CHECK(per_param(zero3.host_bytes) == Approx(18.0).epsilon(1e-6));
}

TEST_CASE("FSDP + QLoRA of a 70B with CPU offload fits two 24 GB cards") {
    // ms-swift's example examples/pytorch/llm/scripts/llama2_70b_chat/
    // qlora_fsdp/sft.sh ("2 GPU * 24G"): Llama-2-70B, 4-bit, bf16, LoRA rank
    // 8, batch 1, max_length 2048, checkpointing, accelerate's FSDP config
    // with offload_params; Answer.AI's FSDP+QLoRA release (2024-03-06)
    // trains the same model on two 24 GB cards with CPU offload.
    const MemoryEstimate m = estimate_memory(test::workload({{Field::Model, "llama-2-70b"},
                                                             {Field::Method, "qlora"},
                                                             {Field::Precision, "bf16"},
                                                             {Field::Gpus, "2"},
                                                             {Field::Parallel, "fsdp"},
                                                             {Field::TrainOffload, "params"},
                                                             {Field::Harness, "ms-swift"},
                                                             {Field::Seq, "2048"},
                                                             {Field::Batch, "1"},
                                                             {Field::LoraRank, "8"},
                                                             {Field::LoraTargets, "q,k,v"}},
                                                            embedded::model_presets()));
    CHECK(m.per_gpu_bytes < 24ULL * kGiB);
    // The 4-bit base (about 35 GiB) lives in host memory.
    CHECK(m.host_weight_bytes > 30ULL * kGiB);
    CHECK(m.host_weight_bytes < 45ULL * kGiB);
}

TEST_CASE("pinned formula: the offload's PCIe time is what the compute does not hide") {
    const Gpu gpu = round_card();
    const double link = *gpu.pcie_gbps() * 1e9;
    Workload w = test::workload({{Field::Model, "8B"},
                                 {Field::Method, "full"},
                                 {Field::TrainOffload, "optimizer"},
                                 {Field::GradAccum, "2"}});
    MemoryEstimate m;
    m.trainable_params = 1'000'000'000;
    const double compute = 0.03;
    const TrainOffloadTime t = training_offload_time(w, m, gpu, nullptr, compute);
    const double grads = 1e9 * 2.0;  // 16-bit gradients, every micro-step
    CHECK(t.d2h_bytes == Approx(2 * grads));
    CHECK(t.h2d_bytes == Approx(grads));  // the updated 16-bit weights, once a step
    // Gradients stream under backward (two thirds of the compute); the
    // update copy waits for the step. No host: the CPU step is not priced.
    const double exposed = grads / link - 2.0 / 3.0 * compute;
    CHECK(t.host_step_seconds == 0);
    CHECK(t.seconds == Approx(2 * exposed + grads / link));

    // A long enough micro-step hides the gradient copies entirely.
    CHECK(training_offload_time(w, m, gpu, nullptr, 10.0).seconds == Approx(grads / link));

    // The host's memory bandwidth bounds the CPU step: 28 bytes of fp32 state
    // and gradient in and out plus the 16-bit copy, per parameter.
    HostPlatform host;
    host.ram_bandwidth_gbps = 100.0;
    const TrainOffloadTime h = training_offload_time(w, m, gpu, &host, 10.0);
    CHECK(h.host_step_seconds == Approx(1e9 * 30.0 / 100e9));

    w.train_offload = TrainOffload::None;
    CHECK(training_offload_time(w, m, gpu, nullptr, compute).seconds == 0);
}

TEST_CASE("training offload is priced in the step") {
    const Gpu gpu = round_card();
    const Workload w = test::workload(
        {{Field::Model, "8B"}, {Field::Method, "full"}, {Field::TrainOffload, "optimizer"}});
    const Performance p = estimate_performance(w, estimate_memory(w), gpu);
    CHECK(p.offload_seconds > 0);
    REQUIRE(p.step_seconds);
    REQUIRE(p.micro_step_seconds);
    CHECK(*p.step_seconds ==
          Approx(static_cast<double>(w.grad_accum) * *p.micro_step_seconds + p.offload_seconds)
              .epsilon(1e-6));
}

TEST_CASE("training offload names the strategies that implement it") {
    const auto with = [](const char* offload, const char* parallel) {
        return test::workload({{Field::Model, "8B"},
                               {Field::Method, "full"},
                               {Field::Gpus, "2"},
                               {Field::Parallel, parallel},
                               {Field::TrainOffload, offload}});
    };
    CHECK_THROWS_AS(with("optimizer", "fsdp"), InputError);  // FSDP offloads params with it
    CHECK_THROWS_AS(with("optimizer", "ddp"), InputError);
    CHECK_THROWS_AS(with("params", "zero2"), InputError);
    CHECK_NOTHROW(with("optimizer", "zero2"));
    CHECK_NOTHROW(with("params", "zero3"));
    CHECK_NOTHROW(with("params", "fsdp"));
    // bitsandbytes' optimizers step on the GPU.
    CHECK_THROWS_AS(test::workload({{Field::Model, "8B"},
                                    {Field::Method, "qlora"},
                                    {Field::Optimizer, "paged-adamw-8bit"},
                                    {Field::TrainOffload, "optimizer"}}),
                    InputError);
    const Workload q = test::workload(
        {{Field::Model, "8B"}, {Field::Method, "qlora"}, {Field::TrainOffload, "optimizer"}});
    CHECK(q.optimizer == Optimizer::AdamW);  // the recipe's paged optimizer replaced, and said so
}
