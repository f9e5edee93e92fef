// The speed model pinned to its formulas on round numbers: these tests restate
// the model's arithmetic on purpose, so a change to it is a visible choice;
// bench/accuracy checks the model against measurements.
#include "gpuadvise/performance.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "gpuadvise/attainable.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/network.hpp"
#include "support/fixtures.hpp"

using namespace gpuadvise;

namespace {

using test::round_card;

using V = test::Values;
Workload make(V v) {
    return test::workload(v);
}

}  // namespace

namespace {

// Elements the element-wise kernels of one layer move per token in a
// forward, restated: two norms (2 x 2h), two residual adds (2 x 3h), rotary
// on q and k (2 (q + kv)), the gated MLP's product (3f), and every linear's
// output written for the next kernel (2 (q + 2kv + h + 2f + h)).
double forward_elements(const Architecture& a) {
    const double h = static_cast<double>(a.hidden), q = static_cast<double>(a.q_dim()),
                 kv = static_cast<double>(a.kv_dim()), f = static_cast<double>(a.intermediate);
    return 4.0 * h + 6.0 * h + 2.0 * (q + kv) + 3.0 * f + 2.0 * (q + 2.0 * kv + 2.0 * h + 2.0 * f);
}

}  // namespace

TEST_CASE(
    "pinned formula: decode streams the weights and the KV cache at the engine's share of "
    "bandwidth, then its element-wise traffic, plus per-layer and per-step costs") {
    const Workload w = make({{Field::Model, "8B"},
                             {Field::Prompt, "1"},
                             {Field::Gen, "1"},
                             {Field::Engine, "llama.cpp"}});
    const MemoryEstimate m = estimate_memory(w);
    const Performance p = estimate_performance(w, m, round_card());
    const Engine& e = *find_engine("llama.cpp");
    const Architecture& a = w.model.arch;
    const double bw = 1000e9 * e.bandwidth_efficiency;  // no SM count: no per-SM limit
    const double kv_read = static_cast<double>(m.get(&Components::kv_cache)) * 1.5 /
                           2.0;  // prompt + gen/2 of 2 tokens
    // llama.cpp keeps the embedding in host memory: its weights are all read.
    const double weights = static_cast<double>(m.get(&Components::weights));
    const double elementwise =
        (32.0 * forward_elements(a) * 2.0 + static_cast<double>(a.vocab) * 4.0 * 2.0) /
        (1000e9 * 0.8);
    const double step =
        weights / bw + kv_read / bw + elementwise + 32 * e.layer_overhead_s + e.step_overhead_s;
    REQUIRE(p.decode_tokens_per_s);
    CHECK(*p.decode_tokens_per_s == Approx(1.0 / step).epsilon(1e-9));
    CHECK(p.bound == Bound::Memory);
}

TEST_CASE("large batches make decode compute-bound") {
    const Workload w = make(
        {{Field::Model, "8B"}, {Field::Batch, "4096"}, {Field::Prompt, "1"}, {Field::Gen, "1"}});
    CHECK(estimate_performance(w, estimate_memory(w), round_card()).bound == Bound::Compute);
}

TEST_CASE(
    "pinned formula: prefill is 2 x the body's parameters x prompt FLOPs plus causal attention "
    "and the head for the sampled token, at the attainable rate, then its element-wise traffic") {
    const Workload w = make({{Field::Model, "8B"},
                             {Field::Prompt, "1000"},
                             {Field::Gen, "1"},
                             {Field::Engine, "vllm"}});
    const MemoryEstimate m = estimate_memory(w);
    const Performance p = estimate_performance(w, m, round_card());
    const Engine& e = *find_engine("vllm");
    const Architecture& a = w.model.arch;
    const AttainableRate r = attainable_rate(round_card(), RateDtype::Bf16);
    REQUIRE(r.tflops);
    // No measurement of this card: the measured share of its architecture's
    // full-rate cards (hopper).
    CHECK(r.basis == RateBasis::FamilyReach);
    CHECK(*r.tflops < 100);  // below its datasheet peak
    const double width = 4096.0 / (4096.0 + speed_fit("training_width"));
    // The embedding is a gather and the head runs for the last token only.
    const ParamCounts c = count_params(a);
    const double scale = 8e9 / static_cast<double>(c.active());
    const double head = static_cast<double>(c.lm_head) * scale;
    const double body = 8e9 - static_cast<double>(c.embedding + c.lm_head) * scale;
    const double flops = 2.0 * body * 1000 + 2.0 * 32 * 1000.0 * 1000.0 * 4096 + 2.0 * head;
    const double compute = flops / (*r.tflops * 1e12 * e.prefill_efficiency * width);
    const double elementwise =
        (1000.0 * 32 * forward_elements(a) * 2.0 + static_cast<double>(a.vocab) * 4.0 * 2.0) /
        (1000e9 * 0.8);
    const double seconds = compute + elementwise + 32 * e.layer_overhead_s + e.step_overhead_s;
    CHECK(compute > static_cast<double>(m.get(&Components::weights)) / (1000e9 * 0.8));
    REQUIRE(p.prefill_tokens_per_s);
    CHECK(*p.prefill_tokens_per_s == Approx(1000.0 / seconds).epsilon(1e-9));
    CHECK(*p.time_to_first_token_s == Approx(seconds).epsilon(1e-9));
}

TEST_CASE(
    "pinned formula: a training step is its matmuls at the attainable rate and the width's "
    "share, then its bandwidth-bound kernels and the optimizer step at the bandwidth") {
    const auto step = [](const char* method) {
        const Workload w = make({{Field::Model, "8B"},
                                 {Field::Method, method},
                                 {Field::Batch, "1"},
                                 {Field::Seq, "1000"},
                                 {Field::GradCkpt, "false"},
                                 {Field::Loss, "fused"}});
        return std::pair{w, estimate_performance(w, estimate_memory(w), round_card())};
    };
    const auto [w, full] = step("full");
    const double rate = *attainable_rate(round_card(), RateDtype::Bf16).tflops * 1e12;
    // The width's share: W is the fitted multiple of the card's FLOPs per byte.
    const double W = speed_fit("training_width_per_ridge") * rate / 1000e9;
    const double width = 4096.0 / (4096.0 + W);
    const double tokens = 1000;
    const double matmul = tokens * (6.0 * 8e9 + 12.0 * 32 * 4096 * 1000) / (rate * width);
    // Full training without a harness runs fused kernels: norms, residual
    // adds, rotary and the SwiGLU product each read and write once, 10 h + 3 f
    // + 2 (q + kv) elements per layer and token, 16-bit, forward and twice that
    // backward.
    REQUIRE(w.fused_kernels);
    const double elements = 10.0 * 4096 + 3.0 * 14336 + 2.0 * (4096 + 1024);
    const double bw = 1000e9 * 0.8;
    const double elementwise = tokens * 32 * elements * 2.0 * 3.0 / bw;
    // AdamW with fp32 master weights: 7 fp32 reads and writes per parameter.
    const double optimizer = static_cast<double>(estimate_memory(w).trainable_params) * 28.0 / bw;
    REQUIRE(full.step_seconds);
    CHECK(*full.step_seconds == Approx(matmul + elementwise + optimizer).epsilon(1e-6));
    CHECK(*full.train_tokens_per_s == Approx(1000 / *full.step_seconds).epsilon(1e-9));
    // LoRA skips the base's weight gradients and has a tiny optimizer step.
    CHECK(*step("lora").second.step_seconds < *full.step_seconds);
    // The upcast loss moves the fp32 logits: slower than the fused one.
    const Workload up = make({{Field::Model, "8B"},
                              {Field::Method, "full"},
                              {Field::Batch, "1"},
                              {Field::Seq, "1000"},
                              {Field::GradCkpt, "false"},
                              {Field::Loss, "upcast"}});
    CHECK(*estimate_performance(up, estimate_memory(up), round_card()).step_seconds >
          *full.step_seconds);
    // Checkpointing recomputes the forward.
    const Workload cw = make({{Field::Model, "8B"},
                              {Field::Method, "lora"},
                              {Field::Batch, "1"},
                              {Field::Seq, "1000"},
                              {Field::GradCkpt, "true"},
                              {Field::Loss, "fused"}});
    CHECK(*estimate_performance(cw, estimate_memory(cw), round_card()).step_seconds >
          *step("lora").second.step_seconds);
}

TEST_CASE("data-parallel plans add ring all-reduce time over the plan's link") {
    const auto plan = [](const char* gpus) {
        const Workload w = make({{Field::Model, "1B"},
                                 {Field::Method, "full"},
                                 {Field::Batch, "1"},
                                 {Field::Seq, "1000"},
                                 {Field::Gpus, gpus},
                                 {Field::Parallel, "ddp"},
                                 {Field::GradCkpt, "false"}});
        return *estimate_performance(w, estimate_memory(w), round_card()).step_seconds;
    };
    const double comm = 2.0 * 3.0 / 4.0 * 1e9 * 2.0 / (31.504e9) *
                        0.5;  // PCIe 4 x16 per direction, half overlapped
    CHECK(plan("4") - plan("1") == Approx(comm).epsilon(1e-3));
}

TEST_CASE("cards without peer-to-peer pay for traffic staged through host memory") {
    Gpu geforce = round_card();
    geforce.pcie_p2p = false;
    CHECK(plan_links(geforce, 4).gbps == Approx(plan_links(round_card(), 4).gbps / 2));
    // An NVLink bridge joins pairs: four cards fall back to PCIe.
    Gpu bridged = round_card();
    bridged.link = Link{LinkType::Nvlink, 112.5, 2, LinkTopology::Bridge};
    CHECK(plan_links(bridged, 2).gbps == Approx(56.25));
    CHECK(plan_links(bridged, 4).gbps == Approx(plan_links(round_card(), 4).gbps));
}

TEST_CASE(
    "pinned formula: eager element-wise kernels move each tensor once per op (Hugging Face's "
    "RMSNorm, rotary and SwiGLU as written)") {
    const auto step = [](const char* fused) {
        const Workload w = make({{Field::Model, "8B"},
                                 {Field::Method, "full"},
                                 {Field::Batch, "1"},
                                 {Field::Seq, "1000"},
                                 {Field::GradCkpt, "false"},
                                 {Field::Loss, "fused"},
                                 {Field::FusedKernels, fused}});
        return *estimate_performance(w, estimate_memory(w), round_card()).step_seconds;
    };
    // Per layer and token, forward, in bytes (h 4096, q 4096, kv 1024, f 14336):
    // RMSNorm 28 + 4 x 2 = 36 instead of 4 per element (two norms), rotary 10 x 2
    // instead of 2 x 2 per element of q and k, the SwiGLU 5 x 2 instead of 3 x 2
    // per element of f; the residual adds are the same. Forward once, backward twice.
    const double extra =
        2 * (36.0 - 4.0) * 4096 + (20.0 - 4.0) * (4096 + 1024) + (10.0 - 6.0) * 14336;
    const double seconds = 1000 * 32 * extra * 3.0 / (1000e9 * 0.8);
    CHECK(step("false") - step("true") == Approx(seconds).epsilon(1e-6));
}

TEST_CASE("job time, energy and cost follow from the rate and the plan's price") {
    const Workload w = make({{Field::Model, "8B"}, {Field::Method, "lora"}});
    JobOptions job;
    job.tokens = 1e9;
    job.kwh_price_usd = 0.2;
    job.amortize_years = 2;
    const Performance p = estimate_performance(w, estimate_memory(w), round_card(), job, 10000.0);
    REQUIRE(p.job_hours);
    // The run's wall-clock: its training time over the goodput (restarts,
    // evaluation and checkpoints take the rest).
    REQUIRE(p.goodput);
    CHECK(*p.goodput == Approx(0.9));
    const double hours = 1e9 / *p.train_tokens_per_s / 3600.0 / 0.9;
    CHECK(*p.job_hours == Approx(hours));
    CHECK(*p.gpu_hours == Approx(hours));
    // No host platform given: the card's draw, times the facility's PUE (data/energy.json).
    const double pue = 1.56;
    CHECK(*p.pue == pue);
    CHECK(*p.energy_kwh == Approx(500 * 0.8 / 1000.0 * pue * hours));
    CHECK(*p.job_cost_usd ==
          Approx((10000.0 / (2 * 365 * 24) + 500 * 0.8 / 1000.0 * pue * 0.2) * hours));
    CHECK(p.cost_basis == CostBasis::Purchase);
    job.cloud_price_per_gpu_hour = 2.5;
    const Performance cloud =
        estimate_performance(w, estimate_memory(w), round_card(), job, 10000.0);
    CHECK(*cloud.job_cost_usd == Approx(2.5 * hours));
    CHECK(cloud.cost_basis == CostBasis::Cloud);
    // Energy prices change the cost.
    job.cloud_price_per_gpu_hour.reset();
    job.kwh_price_usd = 10;
    CHECK(*estimate_performance(w, estimate_memory(w), round_card(), job, 10000.0).job_cost_usd >
          *p.job_cost_usd);
}

TEST_CASE(
    "serving reports dollars per million generated tokens, and no price means no cost, never NaN") {
    const Workload w = make({{Field::Model, "8B"}});
    const Performance p = estimate_performance(w, estimate_memory(w), round_card(), {}, 10000.0);
    REQUIRE(p.usd_per_million_tokens);
    const double hourly = 10000.0 / (3 * 365 * 24) + 0.5 * 0.8 * 1.56 * 0.15;
    CHECK(*p.usd_per_million_tokens == Approx(hourly / (*p.decode_tokens_per_s * 3600) * 1e6));
    Gpu unpowered = round_card();
    unpowered.tdp_watts.reset();
    const Performance q = estimate_performance(w, estimate_memory(w), unpowered);
    CHECK_FALSE(q.usd_per_million_tokens);
    CHECK(std::isfinite(*q.decode_tokens_per_s));
}

TEST_CASE("fp32 matmuls use TF32 where the card has it") {
    Gpu g = round_card();
    g.tflops.tf32 = 50;
    g.tflops.fp32 = 10;
    const Workload w = make({{Field::Model, "1B"}, {Field::Precision, "fp32"}});
    CHECK(*compute_tflops(g, w) == 50);
    g.tflops.tf32.reset();
    CHECK(*compute_tflops(g, w) == 10);
}

// ------------------------------------------------------------ FP8 training (issue 16)

namespace {

double train_rate(const Workload& w, const Gpu& g) {
    const Performance p = estimate_performance(w, estimate_memory(w), g);
    return p.train_tokens_per_s.value_or(0.0);
}

}  // namespace

TEST_CASE(
    "FP8 training speeds up the block matmuls only: 1.2-1.4x for an 8B model at 8k tokens on "
    "H100 and less at 32k where bf16 attention dominates") {
    const Gpu& h100 = resolve_gpu(embedded::catalog(), "h100-sxm5", "test");
    const auto job = [](const char* precision, const char* seq) {
        return make({{Field::Model, "8B"},
                     {Field::Method, "full"},
                     {Field::Precision, precision},
                     {Field::Seq, seq},
                     {Field::Batch, "1"},
                     {Field::CkptMode, "selective"},
                     {Field::Gpus, "8"},
                     {Field::Parallel, "fsdp"}});
    };
    const double at8k =
        train_rate(job("fp8", "8192"), h100) / train_rate(job("bf16", "8192"), h100);
    // Published: torchtitan 1.28x, torchao's table 1.25x (Llama 3 8B, 8 x H100, seq 8192).
    CHECK(at8k > 1.2);
    CHECK(at8k < 1.4);
    const double at32k =
        train_rate(job("fp8", "32768"), h100) / train_rate(job("bf16", "32768"), h100);
    CHECK(at32k > 1.0);
    CHECK(at32k < at8k);
    // MFU stays over the bf16 peak (torchtitan's convention): higher with FP8.
    const Workload w8 = job("fp8", "8192");
    CHECK(
        *estimate_performance(w8, estimate_memory(w8), h100).mfu >
        *estimate_performance(job("bf16", "8192"), estimate_memory(job("bf16", "8192")), h100).mfu);
}

TEST_CASE("FP8 training has no rate on a card without an FP8 path") {
    const Workload w =
        make({{Field::Model, "1B"}, {Field::Method, "full"}, {Field::Precision, "fp8"}});
    const Gpu& a100 = resolve_gpu(embedded::catalog(), "a100-80gb-sxm", "test");
    CHECK_FALSE(estimate_performance(w, estimate_memory(w), a100).train_tokens_per_s);
    CHECK_FALSE(fp8_training_refusal(a100).empty());
    CHECK(fp8_training_recipe(resolve_gpu(embedded::catalog(), "h100-sxm5", "test")));
    CHECK(fp8_training_recipe(resolve_gpu(embedded::catalog(), "b200", "test"))
              ->starts_with("MXFP8"));
    CHECK_FALSE(fp8_training_recipe(resolve_gpu(embedded::catalog(), "rx-9070-xt", "test")));
}

TEST_CASE("chinchilla job size: 20 tokens per parameter through the same path as --tokens") {
    const Workload w = make({{Field::Model, "8B"}, {Field::Method, "lora"}});
    JobOptions chinchilla;
    chinchilla.chinchilla = true;
    JobOptions tokens;
    tokens.tokens = 20 * 8e9;
    const Performance c =
        estimate_performance(w, estimate_memory(w), round_card(), chinchilla, 1e4);
    const Performance t = estimate_performance(w, estimate_memory(w), round_card(), tokens, 1e4);
    REQUIRE(c.job_tokens);
    CHECK(*c.job_tokens == Approx(160e9));
    CHECK(*c.job_hours == Approx(*t.job_hours));
    CHECK(*c.days == Approx(*c.job_hours / 24));
    CHECK(*c.gpu_hours == Approx(*t.gpu_hours));
    CHECK(*c.energy_kwh == Approx(*t.energy_kwh));
    CHECK(*c.job_cost_usd == Approx(*t.job_cost_usd));
}

TEST_CASE(
    "job energy counts the GPUs, the hosts and a multi-node fabric at the job's utilisation, "
    "times the PUE") {
    const Workload w = make({{Field::Model, "8B"},
                             {Field::Method, "full"},
                             {Field::Gpus, "16"},
                             {Field::Parallel, "fsdp"}});
    const Gpu& h100 = resolve_gpu(embedded::catalog(), "h100-sxm5", "test");
    const NodeLayout nodes = *choose_nodes(h100, 16);
    JobOptions job;
    job.tokens = 1e9;
    job.pue = 1.2;
    const Performance p = estimate_performance(w, estimate_memory(w), h100, job, std::nullopt,
                                               nodes.platform, 0, &default_network(), 8);
    REQUIRE(p.job_hours);
    // 16 x 700 W GPUs and 2 x 4600 W hosts at 0.8, 16 x 55 W of fabric, x 1.2.
    const double watts = ((16 * 700.0 + 2 * 4600.0) * 0.8 + 16 * 55.0) * 1.2;
    CHECK(*p.energy_kwh == Approx(watts / 1000.0 * *p.job_hours));
    CHECK(*p.pue == 1.2);
}

TEST_CASE("a plan says which matmul rate its speeds rest on") {
    const Workload w = make({{Field::Model, "8B"}, {Field::Method, "lora"}});
    const Performance p = estimate_performance(w, estimate_memory(w), round_card());
    REQUIRE(p.matmul_rate);
    // No measurement of the made-up card: its architecture's share of the peak.
    CHECK(p.matmul_rate->basis == RateBasis::FamilyReach);
    CHECK(p.matmul_rate->dtype == RateDtype::Bf16);
    CHECK(*p.matmul_rate->tflops == Approx(*attainable_rate(round_card(), RateDtype::Bf16).tflops));
    CHECK(p.matmul_rate->peak == Approx(100.0));
}

TEST_CASE("the measured rates' bisection finds what a scan finds, for every card and dtype") {
    const AttainableData sorted = embedded::attainable();
    REQUIRE(sorted.measured_sorted);
    AttainableData scanned = sorted;
    scanned.measured_sorted = false;
    std::size_t measured = 0;
    for (const Gpu& g : embedded::catalog().gpus)
        for (const RateDtype d : {RateDtype::Fp32, RateDtype::Tf32, RateDtype::Fp16,
                                  RateDtype::Bf16, RateDtype::Fp8, RateDtype::Int8}) {
            const AttainableRate a = attainable_rate(g, d, Accumulate::Fp32, sorted);
            const AttainableRate b = attainable_rate(g, d, Accumulate::Fp32, scanned);
            CHECK(a.tflops == b.tflops);
            CHECK(a.basis == b.basis);
            measured += a.basis == RateBasis::Measured ? 1 : 0;
        }
    // Most measured rows name a card of the catalog: the lookup is exercised.
    CHECK(measured > sorted.measured.size() / 2);
}
