// Partial offload as llama.cpp places it (docs/runtimes.md), against cases
// computed by hand from the placement rules.
#include "gpuadvise/offload.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/bands.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/units.hpp"
#include "support/request.hpp"

using namespace gpuadvise;

namespace {

Workload llama(const char* model, const char* quant = "q4_k_m") {
    return test::workload(
        {{Field::Model, model}, {Field::Quant, quant}, {Field::Engine, "llama.cpp"}},
        embedded::model_presets());
}

constexpr std::uint64_t k24 = 24ULL << 30U;

}  // namespace

TEST_CASE(
    "offload: -ngl counts layers from the output end, and the output layer needs layers + 1") {
    const Workload w = llama("llama-3.1-8b");
    const MemoryEstimate m = estimate(w);
    const std::int64_t L = w.model.arch.total_layers();
    REQUIRE(L == 32);
    const OffloadPlan all = plan_offload(w, m, k24, 1, {OffloadKind::Layers, L + 1});
    CHECK(all.mode == OffloadMode::Gpu);
    CHECK(all.output_on_gpu);
    CHECK(all.ngl() == L + 1);
    const OffloadPlan no_output = plan_offload(w, m, k24, 1, {OffloadKind::Layers, L});
    CHECK(no_output.mode == OffloadMode::Layers);
    CHECK_FALSE(no_output.output_on_gpu);
    CHECK(no_output.gpu_layers == L);
    CHECK(no_output.gpu_bytes < all.gpu_bytes);
    CHECK_THROWS_AS(plan_offload(w, m, k24, 1, {OffloadKind::Layers, L + 2}), InputError);
}

TEST_CASE("offload: weights are conserved between the GPU and the host, the embedding stays home") {
    const Workload w = llama("llama-3.1-8b");
    const MemoryEstimate m = estimate(w);
    const double weights = static_cast<double>(m.get(&Components::weights));
    const double kv = static_cast<double>(m.get(&Components::kv_cache));
    const double fixed = static_cast<double>(m.per_gpu_bytes) - weights - kv;
    const ParamCounts p = count_params(w.model.arch);
    // The estimate's weights are the device's: the file without its embedding.
    const double embedding =
        weights * static_cast<double>(p.embedding) / static_cast<double>(p.total() - p.embedding);
    for (const std::int64_t n : {0, 1, 7, 16, 31, 32, 33}) {
        const OffloadPlan o = plan_offload(w, m, k24, 1, {OffloadKind::Layers, n});
        INFO("ngl " << n);
        const double on_gpu = static_cast<double>(o.gpu_bytes) - fixed;
        // GPU share + host share = the whole file and the whole cache.
        CHECK(on_gpu + static_cast<double>(o.host_bytes) ==
              Approx(weights + embedding + kv).epsilon(1e-6));
        CHECK(static_cast<double>(o.host_bytes) >= embedding * 0.999);
    }
    // -ngl 0: every layer in host memory; the GPU keeps only its buffers.
    const OffloadPlan none = plan_offload(w, m, k24, 1, {OffloadKind::Layers, 0});
    CHECK(static_cast<double>(none.gpu_bytes) == Approx(fixed).epsilon(1e-9));
    // Fully on the GPU, the host still keeps the embedding and nothing else.
    const OffloadPlan all = plan_offload(w, m, k24, 1, {OffloadKind::Layers, 33});
    CHECK(static_cast<double>(all.host_bytes) == Approx(embedding).epsilon(1e-6));
    CHECK(all.gpu_bytes == m.per_gpu_bytes);
    CHECK(none.gpu_read_bytes == Approx(0.0).margin(1.0));
}

TEST_CASE(
    "offload: auto keeps llama.cpp's 1 GiB margin and puts on the GPU as many layers as fit") {
    const Workload w = llama("llama-3.1-70b");
    const MemoryEstimate m = estimate(w);
    const OffloadPlan a = plan_offload(w, m, k24, 1, {OffloadKind::Auto, 0});
    REQUIRE(a.mode == OffloadMode::Layers);
    CHECK(a.gpu_bytes + kFitMarginBytes <= k24);
    const OffloadPlan more = plan_offload(w, m, k24, 1, {OffloadKind::Layers, a.gpu_layers + 1});
    CHECK(more.gpu_bytes + kFitMarginBytes > k24);
    // A small model fits whole: auto changes nothing.
    const Workload small = llama("llama-3.1-8b");
    CHECK(plan_offload(small, estimate(small), k24, 1, {OffloadKind::Auto, 0}).mode ==
          OffloadMode::Gpu);
    // Two cards hold twice the layers.
    const OffloadPlan two = plan_offload(w, m, k24, 2, {OffloadKind::Auto, 0});
    CHECK(two.gpu_layers >= std::min<std::int64_t>(a.gpu_layers * 2 - 2, two.total_layers));
}

TEST_CASE("offload: a MoE keeps its experts on the host first (as --cpu-moe) and reads k of E") {
    const Workload w = llama("qwen3-30b-a3b");
    const MemoryEstimate m = estimate(w);
    const Architecture& a = w.model.arch;
    REQUIRE(a.is_moe());
    const OffloadPlan e = plan_offload(w, m, k24, 1, {OffloadKind::Experts, 0});
    CHECK(e.mode == OffloadMode::Experts);
    CHECK(e.gpu_layers == e.total_layers);
    CHECK(e.host_expert_layers == e.total_layers);
    // The host holds the experts: most of a 30B-A3B's weights.
    CHECK(static_cast<double>(e.host_bytes) >
          0.8 * static_cast<double>(m.get(&Components::weights)));
    // A token reads k/E of them.
    const double share = static_cast<double>(a.experts_per_token) / static_cast<double>(a.experts);
    CHECK(e.host_read_bytes == Approx((e.host_weight_bytes - 0) * share).epsilon(0.1));
    // Auto on a 12 GiB card: experts of some layers on the host, every layer's rest on the GPU.
    const OffloadPlan fit = plan_offload(w, m, 12ULL << 30U, 1, {OffloadKind::Auto, 0});
    CHECK(fit.mode == OffloadMode::Experts);
    CHECK(fit.gpu_layers == fit.total_layers);
    CHECK(fit.host_expert_layers > 0);
    CHECK(fit.host_expert_layers < fit.total_layers);
    CHECK(fit.gpu_bytes + kFitMarginBytes <= (12ULL << 30U));
}

TEST_CASE("offload: decode slows with the host's share and is bound by host bandwidth at -ngl 0") {
    Workload w = llama("llama-3.1-8b");
    const MemoryEstimate m = estimate(w);
    Gpu g;
    g.id = "g";
    g.memory_bandwidth_gbps = 1000;
    g.tflops.bf16 = g.tflops.fp16 = 100;
    g.pcie_gen = 4;
    g.pcie_lanes = 16;
    double last = 1e300;
    for (const std::int64_t n : {33, 24, 16, 8, 0}) {
        const OffloadPlan o = plan_offload(w, m, k24, 1, {OffloadKind::Layers, n});
        const Performance p = estimate_offload_performance(w, o, g, 80.0);
        REQUIRE(p.decode_tokens_per_s);
        CHECK(*p.decode_tokens_per_s < last * 1.0001);
        last = *p.decode_tokens_per_s;
    }
    // At -ngl 0 the host reads every layer: no faster than 80 GB/s over those bytes.
    const OffloadPlan cpu = plan_offload(w, m, k24, 1, {OffloadKind::Layers, 0});
    CHECK(last < 80e9 / cpu.host_read_bytes);
    // Without a host bandwidth the speed is not invented.
    CHECK_FALSE(estimate_offload_performance(w, cpu, g, std::nullopt).decode_tokens_per_s);
}

TEST_CASE("limits: the largest context fits and one more token does not") {
    Workload w = llama("llama-3.1-8b");
    Gpu g;
    g.id = "g";
    g.name = "G";
    g.memory_bytes = 12ULL << 30U;
    g.memory_bandwidth_gbps = 500;
    g.tflops.bf16 = g.tflops.fp16 = 100;
    g.pcie_gen = 4;
    g.pcie_lanes = 16;
    const Gpu* box[] = {&g};
    const Recommendation rec = evaluate_box(w, box, {});
    const Limits l = plan_limits(w, rec, box, {}).value();
    REQUIRE(l.max_context_tokens > w.gen);
    REQUIRE(l.max_context_tokens < w.model.arch.max_position);
    const auto need = [&](std::int64_t ctx) {
        Workload x = w;
        x.gen = std::min(w.gen, ctx - 1);
        x.prompt = ctx - x.gen;
        x.seq = ctx;
        return estimate(x).per_gpu_bytes;
    };
    CHECK(need(l.max_context_tokens) <= rec.usable_bytes);
    CHECK(need(l.max_context_tokens + 1) > rec.usable_bytes);
    Workload b = w;
    b.batch = l.max_batch;
    CHECK(estimate(b).per_gpu_bytes <= rec.usable_bytes);
    b.batch = l.max_batch + 1;
    CHECK(estimate(b).per_gpu_bytes > rec.usable_bytes);
}

TEST_CASE("bands: every method and phase has one from bench/accuracy, and estimates carry it") {
    const ErrorBands& b = error_bands();
    for (const char* method : {"inference", "lora", "qlora", "full", "all"}) {
        const ErrorBand* band = b.find(BandQuantity::Memory, method);
        REQUIRE(band != nullptr);
        CHECK(band->group == method);
        CHECK(band->low <= band->high);
        CHECK(band->rows >= 10);
    }
    for (const BandQuantity q : {BandQuantity::Decode, BandQuantity::Prefill, BandQuantity::Train})
        CHECK(b.find(q, "all") != nullptr);
    const Workload w = llama("llama-3.1-8b");
    const MemoryEstimate m = estimate(w);
    REQUIRE(m.band);
    CHECK(m.band->second == b.find(BandQuantity::Memory, "inference")->high);
    CHECK_THROWS_AS(parse_error_bands(R"({"source":"t","bands":[{"quantity":"memory","group":"x",
        "low":2,"high":1,"rows":3}]})",
                                      "t"),
                    InputError);
}

TEST_CASE("offload: llama.cpp's own spellings --cpu-moe, --n-cpu-moe N and -ngl N are accepted") {
    const auto parsed = [](const char* text) { return parse_offload(text, "--offload"); };
    for (const char* all : {"experts", "cpu-moe", "--cpu-moe", "-cmoe"}) {
        INFO(all);
        CHECK(parsed(all).kind == OffloadKind::Experts);
        CHECK(parsed(all).host_expert_layers == 0);
    }
    for (const char* first : {"--n-cpu-moe 20", "--n-cpu-moe=20", "n-cpu-moe:20", "-ncmoe 20"}) {
        INFO(first);
        CHECK(parsed(first).kind == OffloadKind::Experts);
        CHECK(parsed(first).host_expert_layers == 20);
    }
    CHECK(parsed("--n-cpu-moe 0").kind == OffloadKind::None);
    for (const char* layers : {"-ngl 30", "--n-gpu-layers=30", "30"}) {
        INFO(layers);
        CHECK(parsed(layers).kind == OffloadKind::Layers);
        CHECK(parsed(layers).gpu_layers == 30);
    }
    CHECK_THROWS_WITH(parsed("--n-cpu-moe lots"), Catch::Contains("--offload '--n-cpu-moe lots'") &&
                                                      Catch::Contains("number of layers"));
    CHECK_THROWS_WITH(parsed("half"), Catch::Contains("n-cpu-moe N"));
    // The flags themselves: --cpu-moe and --n-cpu-moe N, one of them with --offload at most.
    const auto request = [](test::Values v) { return offload_request(test::request(v)); };
    CHECK(request({{Field::CpuMoe, "true"}})->kind == OffloadKind::Experts);
    CHECK(request({{Field::NCpuMoe, "12"}})->host_expert_layers == 12);
    CHECK_FALSE(request({}).has_value());
    CHECK_THROWS_WITH(request({{Field::Offload, "auto"}, {Field::NCpuMoe, "12"}}),
                      Catch::Contains("--offload and --n-cpu-moe both say"));
    CHECK_THROWS_WITH(request({{Field::NCpuMoe, "-3"}}), Catch::Contains("--n-cpu-moe '-3'"));
}

TEST_CASE("offload: --n-cpu-moe N keeps the experts of the first N layers on the host") {
    const Workload w = llama("qwen3-30b-a3b");
    const MemoryEstimate m = estimate(w);
    const std::int64_t L = w.model.arch.total_layers();
    const OffloadPlan all = plan_offload(w, m, k24, 1, {OffloadKind::Experts, 0});
    const OffloadPlan ten = plan_offload(w, m, k24, 1, {OffloadKind::Experts, 0, 10});
    CHECK(ten.mode == OffloadMode::Experts);
    CHECK(ten.host_expert_layers == 10);
    CHECK(ten.gpu_layers == L);
    // A quarter of the layers' experts on the host: less there than with --cpu-moe.
    CHECK(ten.host_bytes < all.host_bytes);
    CHECK(ten.gpu_bytes > all.gpu_bytes);
    CHECK_THROWS_WITH(plan_offload(w, m, k24, 1, {OffloadKind::Experts, 0, L + 1}),
                      Catch::Contains("--n-cpu-moe " + std::to_string(L + 1)));
}
