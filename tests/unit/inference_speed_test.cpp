// The inference speed model's mechanisms on hand-checkable inputs: the SMs'
// limit on what decode kernels stream, the experts a batch reads, llama.cpp's
// pipelined prefill over a layer split, the engines' per-step and eager
// costs, and which all-reduce a tensor-parallel decode runs.
#include <catch2/catch.hpp>
#include <cmath>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/performance.hpp"
#include "support/fixtures.hpp"

using namespace gpuadvise;

namespace {

using test::round_card;
using V = test::Values;

double decode_seconds(const Workload& w, const Gpu& gpu) {
    const Performance p = estimate_performance(w, estimate_memory(w), gpu);
    REQUIRE(p.decode_tokens_per_s);
    return static_cast<double>(w.batch) / *p.decode_tokens_per_s;
}

// The workload with its engine's profile replaced by `e` (kept alive by the caller).
Workload with_engine(Workload w, const Engine& e) {
    w.engine = &e;
    return w;
}

}  // namespace

TEST_CASE("decode kernels stream at most the card's SMs times the engine's per-SM rate") {
    const Workload w = test::workload({{Field::Model, "70B"},
                                       {Field::Quant, "q4_k_m"},
                                       {Field::Engine, "llama.cpp"},
                                       {Field::Prompt, "1"},
                                       {Field::Gen, "1"}});
    const Engine& e = *find_engine("llama.cpp");
    REQUIRE(e.stream_gbps_per_sm);
    const Gpu plain = round_card();  // no SM count: the bandwidth share alone
    Gpu many = plain, few = plain;
    many.sm_count = 1000;  // far above the bandwidth: no limit
    // Half the bandwidth the engine's share gives.
    few.sm_count = static_cast<std::int64_t>(
        std::round(1000.0 * e.bandwidth_efficiency / 2.0 / *e.stream_gbps_per_sm));
    const double limit = static_cast<double>(*few.sm_count) * *e.stream_gbps_per_sm * 1e9;
    const double share = 1000e9 * e.bandwidth_efficiency;
    CHECK(decode_seconds(w, many) == Approx(decode_seconds(w, plain)).epsilon(1e-12));
    // The weights and the KV cache are streamed at the SMs' limit; the
    // element-wise traffic and the launches do not change.
    const MemoryEstimate m = estimate_memory(w);
    const double kv = static_cast<double>(m.get(&Components::kv_cache)) * 1.5 / 2.0;
    const double streamed = static_cast<double>(m.get(&Components::weights)) + kv;
    CHECK(decode_seconds(w, few) - decode_seconds(w, plain) ==
          Approx(streamed / limit - streamed / share).epsilon(1e-6));
    // Not on Apple parts, whose cores are not SMs.
    Gpu metal = few;
    metal.platform = SoftwarePlatform::Metal;
    Gpu metal_plain = plain;
    metal_plain.platform = SoftwarePlatform::Metal;
    CHECK(decode_seconds(w, metal) == Approx(decode_seconds(w, metal_plain)).epsilon(1e-12));
}

TEST_CASE(
    "pinned formula: an MoE decode step reads the experts its batch routes to, "
    "E (1 - (1 - k/E)^B) of them") {
    // Mixtral: 8 experts, 2 per token. Without the engine's fixed costs a
    // memory-bound step's time follows the bytes it reads.
    const auto at = [](const char* batch) {
        return test::workload({{Field::Model, "mixtral-8x7b"},
                               {Field::Engine, "vllm"},
                               {Field::Batch, batch},
                               {Field::Prompt, "1"},
                               {Field::Gen, "1"}},
                              embedded::model_presets());
    };
    Engine bare = *find_engine("vllm");
    bare.layer_overhead_s = 0;
    bare.step_overhead_s = 0;
    const Workload one = with_engine(at("1"), bare), eight = with_engine(at("8"), bare);
    const ParamCounts c = count_params(one.model.arch);
    const double routed = static_cast<double>(c.routed_experts) / static_cast<double>(c.total());
    const double e = 8, k = 2;
    const auto read = [&](double b) {
        return (1.0 - routed) + routed * (1.0 - std::pow(1.0 - k / e, b));
    };
    // 7.2 of 8 experts at batch 8: the step reads 2.9x the bytes of batch 1.
    CHECK(e * (1.0 - std::pow(1.0 - k / e, 8.0)) == Approx(7.2).epsilon(0.01));
    const Gpu gpu = round_card();
    const double ratio = decode_seconds(eight, gpu) / decode_seconds(one, gpu);
    // The KV cache and the element-wise traffic are a few per mille here.
    CHECK(ratio == Approx(read(8) / read(1)).epsilon(0.01));
    // So batch 8 gains 8 / 2.9 = 2.7x over batch 1, not 8x.
    CHECK(8.0 / ratio < 2.9);
}

TEST_CASE(
    "pinned formula: llama.cpp pipelines a batch's micro-batches through a layer split: u "
    "micro-batches over n GPUs take (u + n - 1) stage times") {
    const auto prefill = [](const char* prompt, const char* gpus) {
        const Workload w = test::workload({{Field::Model, "8B"},
                                           {Field::Quant, "q4_k_m"},
                                           {Field::Engine, "llama.cpp"},
                                           {Field::Prompt, prompt},
                                           {Field::Gen, "1"},
                                           {Field::Gpus, gpus},
                                           {Field::Parallel, "pp"}});
        const Performance p = estimate_performance(w, estimate_memory(w), round_card());
        REQUIRE(p.time_to_first_token_s);
        return *p.time_to_first_token_s;
    };
    const Engine& e = *find_engine("llama.cpp");
    REQUIRE(e.prefill_chunk == 512);
    REQUIRE(e.prefill_batch == 2048);
    // 4096 tokens: two batches of four 512-token micro-batches; on four GPUs
    // each batch takes (4 + 4 - 1) quarter-model stage times instead of 4
    // whole-model times: 8 / 3.5 = 2.29x.
    CHECK(prefill("4096", "1") / prefill("4096", "4") == Approx(8.0 / 3.5).epsilon(1e-6));
    // One micro-batch has nothing to pipeline: its stages run one after another.
    CHECK(prefill("512", "1") / prefill("512", "4") == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("an engine's per-step cost adds to a decode step, an eager engine's overlaps it") {
    const Workload w = test::workload(
        {{Field::Model, "8B"}, {Field::Engine, "vllm"}, {Field::Prompt, "1"}, {Field::Gen, "1"}});
    Engine quiet = *find_engine("vllm"), busy = quiet;
    quiet.step_overhead_s = 0;
    busy.step_overhead_s = 1e-3;
    const Gpu gpu = round_card();
    const double gpu_time = decode_seconds(with_engine(w, quiet), gpu) -
                            32 * quiet.layer_overhead_s;  // the 8B's 32 layers
    CHECK(decode_seconds(with_engine(w, busy), gpu) - decode_seconds(with_engine(w, quiet), gpu) ==
          Approx(1e-3).epsilon(1e-9));
    // Launched from Python without CUDA graphs (transformers), the host's time
    // overlaps the GPU's: the step is the longer of the two.
    Engine eager = *find_engine("transformers");
    eager.layer_overhead_s = 0;
    eager.step_overhead_s = 0.1;  // far longer than the GPU's step
    const Workload hf = with_engine(w, eager);
    CHECK(decode_seconds(hf, gpu) == Approx(0.1).epsilon(1e-9));
    CHECK(gpu_time < 0.1);
}

TEST_CASE(
    "vLLM's one-shot all-reduce runs over NVLink, or over PCIe with peer-to-peer between two "
    "cards: more PCIe cards run NCCL's ring") {
    const Gpu pcie = round_card();  // peer-to-peer, no NVLink
    CHECK(plan_links(pcie, 2).one_shot);
    CHECK_FALSE(plan_links(pcie, 4).one_shot);
    Gpu geforce = pcie;
    geforce.pcie_p2p = false;
    CHECK_FALSE(plan_links(geforce, 2).one_shot);
    // Four such cards pay 2 (n - 1) = 6 latencies per all-reduce, two per layer.
    const auto step = [&](const char* gpus) {
        const Workload w = test::workload({{Field::Model, "8B"},
                                           {Field::Engine, "vllm"},
                                           {Field::Gpus, gpus},
                                           {Field::Parallel, "tp"},
                                           {Field::Prompt, "1"},
                                           {Field::Gen, "1"}});
        return decode_seconds(w, pcie);
    };
    CHECK(step("4") > step("2") / 2.0);
}
