#include <catch2/catch.hpp>
#include <cmath>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"

using namespace gpuadvise;

namespace {

// One card with round figures: 1000 GB/s, 100 dense TFLOPS bf16/fp16, 500 W, $10 000, PCIe 4 x16.
Gpu round_card() {
    const Catalog c = parse_catalog(R"({"gpus":[{"id":"round","vendor":"nvidia","name":"Round","segment":"datacenter",
        "arch_family":"hopper","memory_bytes":85899345920,"memory_bandwidth_gbps":1000,
        "tflops":{"bf16":100,"fp16":100},"tdp_watts":500,"pcie":{"gen":4,"lanes":16},
        "price":{"usd":10000,"kind":"msrp","source":"t"},"sources":["t"]}]})",
                                    "t");
    return c.gpus.front();
}

Workload make(WorkloadRequest r) { return resolve_workload(r, {}); }

}  // namespace

TEST_CASE("decode is bytes read over the engine's share of bandwidth plus per-layer cost") {
    WorkloadRequest r;
    r.model = "8B";
    r.prompt = "1";
    r.gen = "1";
    r.engine = "llama.cpp";
    const Workload w = make(r);
    const MemoryEstimate m = estimate_memory(w);
    const Gpu g = round_card();
    const Performance p = estimate_performance(w, m, g);
    const EngineProfile& e = engine_profile(Engine::LlamaCpp);
    const double kv_read = static_cast<double>(m.component("kv_cache_bytes")) * 1.5 / 2.0;  // prompt + gen/2 of 2 tokens
    const double step = (static_cast<double>(m.component("weights_bytes")) + kv_read) / (1000e9 * e.bandwidth_efficiency) +
                        32 * e.layer_overhead_s;
    REQUIRE(p.decode_tokens_per_s);
    CHECK(*p.decode_tokens_per_s == Approx(1.0 / step).epsilon(1e-9));
    CHECK(p.bound == "memory");
}

TEST_CASE("large batches make decode compute-bound") {
    WorkloadRequest r;
    r.model = "8B";
    r.batch = "4096";
    r.prompt = "1";
    r.gen = "1";
    const Workload w = make(r);
    const Performance p = estimate_performance(w, estimate_memory(w), round_card());
    CHECK(p.bound == "compute");
}

TEST_CASE("prefill is 2 x active parameters x prompt FLOPs plus causal attention") {
    WorkloadRequest r;
    r.model = "8B";
    r.prompt = "1000";
    r.gen = "1";
    r.engine = "vllm";
    const Workload w = make(r);
    const Performance p = estimate_performance(w, estimate_memory(w), round_card());
    const EngineProfile& e = engine_profile(Engine::Vllm);
    const double flops = 2.0 * 8e9 * 1000 + 2.0 * 32 * 1000.0 * 1000.0 * 4096;
    const double seconds = flops / (100e12 * e.prefill_efficiency) + 32 * e.layer_overhead_s;
    REQUIRE(p.prefill_tokens_per_s);
    CHECK(*p.prefill_tokens_per_s == Approx(1000.0 / seconds).epsilon(1e-9));
    CHECK(*p.time_to_first_token_s == Approx(seconds).epsilon(1e-9));
}

TEST_CASE("training is 6P (full) or 4P (LoRA) per token plus attention, at the width's MFU") {
    WorkloadRequest r;
    r.model = "8B";
    r.method = "full";
    r.batch = "1";
    r.seq = "1000";
    r.grad_ckpt = false;
    const Workload w = make(r);
    const Performance full = estimate_performance(w, estimate_memory(w), round_card());
    const double per_token = 6.0 * 8e9 + 12.0 * 32 * 4096 * 1000;
    const double step = 1000 * per_token / (100e12 * training_mfu(4096));
    REQUIRE(full.step_seconds);
    CHECK(*full.step_seconds == Approx(step).epsilon(1e-9));
    CHECK(*full.train_tokens_per_s == Approx(1000 / step).epsilon(1e-9));
    r.method = "lora";
    const Workload lw = make(r);
    const Performance lora = estimate_performance(lw, estimate_memory(lw), round_card());
    CHECK(*lora.step_seconds < *full.step_seconds);
    r.grad_ckpt = true;
    const Workload cw = make(r);
    CHECK(*estimate_performance(cw, estimate_memory(cw), round_card()).step_seconds > *lora.step_seconds);
    CHECK(training_mfu(4096) == Approx(0.88 * 4096 / 5696.0));
}

TEST_CASE("data-parallel plans add ring all-reduce time over the plan's link") {
    WorkloadRequest r;
    r.model = "1B";
    r.method = "full";
    r.batch = "1";
    r.seq = "1000";
    r.gpus = "4";
    r.parallel = "ddp";
    r.grad_ckpt = false;
    const Workload w = make(r);
    const MemoryEstimate m = estimate_memory(w);
    const Gpu g = round_card();
    const Performance p = estimate_performance(w, m, g);
    const double compute = 1000 * (6.0 * 1e9 + 12.0 * static_cast<double>(w.model.arch.layers) *
                                                   static_cast<double>(w.model.arch.hidden) * 1000) /
                           (100e12 * training_mfu(w.model.arch.hidden));
    const double comm = 2.0 * 3.0 / 4.0 * 1e9 * 2.0 / (31.504e9) * 0.5;  // PCIe 4 x16 per direction, half overlapped
    CHECK(*p.step_seconds == Approx(compute + comm).epsilon(1e-3));
}

TEST_CASE("job time, energy and cost follow from the rate") {
    WorkloadRequest r;
    r.model = "8B";
    r.method = "lora";
    const Workload w = make(r);
    JobOptions job;
    job.tokens = 1e9;
    job.kwh_price_usd = 0.2;
    job.amortize_years = 2;
    const Performance p = estimate_performance(w, estimate_memory(w), round_card(), job);
    REQUIRE(p.job_hours);
    const double hours = 1e9 / *p.train_tokens_per_s / 3600.0;
    CHECK(*p.job_hours == Approx(hours));
    CHECK(*p.energy_kwh == Approx(500 * 0.8 / 1000.0 * hours));
    CHECK(*p.job_cost_usd == Approx((10000.0 / (2 * 365 * 24) + 500 * 0.8 / 1000.0 * 0.2) * hours));
    CHECK(p.cost_basis == "purchase+energy");
    job.cloud_price_per_gpu_hour = 2.5;
    const Performance cloud = estimate_performance(w, estimate_memory(w), round_card(), job);
    CHECK(*cloud.job_cost_usd == Approx(2.5 * hours));
    CHECK(cloud.cost_basis == "cloud");
}

TEST_CASE("serving reports dollars per million generated tokens; no price means no cost, never NaN") {
    WorkloadRequest r;
    r.model = "8B";
    const Workload w = make(r);
    const Performance p = estimate_performance(w, estimate_memory(w), round_card());
    REQUIRE(p.usd_per_million_tokens);
    const double hourly = 10000.0 / (3 * 365 * 24) + 0.5 * 0.8 * 0.15;
    CHECK(*p.usd_per_million_tokens == Approx(hourly / (*p.decode_tokens_per_s * 3600) * 1e6));
    Gpu unpriced = round_card();
    unpriced.price.reset();
    unpriced.tdp_watts.reset();
    const Performance q = estimate_performance(w, estimate_memory(w), unpriced);
    CHECK_FALSE(q.usd_per_million_tokens);
    CHECK(std::isfinite(*q.decode_tokens_per_s));
}

TEST_CASE("fp32 matmuls use TF32 where the card has it") {
    Gpu g = round_card();
    g.tflops.tf32 = 50;
    g.tflops.fp32 = 10;
    WorkloadRequest r;
    r.model = "1B";
    r.precision = "fp32";
    CHECK(*compute_tflops(g, make(r)) == 50);
    g.tflops.tf32.reset();
    CHECK(*compute_tflops(g, make(r)) == 10);
}
