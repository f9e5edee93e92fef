#include <catch2/catch.hpp>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/units.hpp"

using namespace gpuadvise;

namespace {

// A toy Llama: 2 layers, hidden 64, 4 heads / 2 KV heads of 16, FFN 128, vocab 100, untied.
const char* kToy =
    R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,)"
    R"("intermediate_size":128,"vocab_size":100,"tie_word_embeddings":false})";

Workload toy(WorkloadRequest r) {
    r.hf_config_text = kToy;
    return resolve_workload(r, {});
}

double runtime_for(std::uint64_t allocated) { return 0.75 * static_cast<double>(kGiB) + 0.08 * static_cast<double>(allocated); }

}  // namespace

TEST_CASE("the toy model's parameters are counted by hand") {
    const Workload w = toy({});
    // embeddings 6400 + head 6400 + 2 x (attention 12288 + MLP 24576 + norms 128) + final norm 64
    CHECK(w.model.params == 86'848);
}

TEST_CASE("component estimator: inference arithmetic on a hand-computed case") {
    WorkloadRequest r;
    r.method = "inference";
    r.precision = "bf16";
    r.batch = "2";
    r.prompt = "6";
    r.gen = "2";
    const MemoryEstimate m = estimate(toy(r));
    CHECK(m.component("weights_bytes") == 86'848 * 2);
    CHECK(m.component("kv_cache_bytes") == 2 * (2 * 32) * 8 * 2 * 2);  // layers x (K+V) x ctx x batch x bf16
    CHECK(m.component("activations_bytes") == 2 * 6 * 2 * (2 * 64 + 2 * 64 + 2 * 32 + 3 * 128));
    CHECK(m.component("logits_bytes") == 2 * 100 * 6);
    CHECK(m.allocated_bytes == 173'696 + 4'096 + 16'896 + 1'200);
    CHECK(m.component("runtime_bytes") == to_bytes(runtime_for(m.allocated_bytes)));
    std::uint64_t sum = 0;
    for (const auto& c : m.components) sum += c.bytes;
    CHECK(sum == m.per_gpu_bytes);
}

TEST_CASE("component estimator: LoRA adapters, gradients and AdamW state by hand") {
    WorkloadRequest r;
    r.method = "lora";
    r.lora_rank = "4";
    r.lora_targets = "q,v";
    const MemoryEstimate m = estimate(toy(r));
    // r x (64 + 64) for q plus r x (64 + 32) for v, per layer, 2 layers = 1792 parameters in fp32 (AMP).
    CHECK(m.trainable_params == 1'792);
    CHECK(m.component("adapters_bytes") == 1'792 * 4);
    CHECK(m.component("gradients_bytes") == 1'792 * 4);
    CHECK(m.component("optimizer_bytes") == 1'792 * 8);
    CHECK(m.component("weights_bytes") == 86'848 * 2);
}

TEST_CASE("full fine-tune with AMP AdamW costs 16 bytes per parameter plus 16-bit copies") {
    WorkloadRequest r;
    r.model = "8B";
    r.method = "full";
    const MemoryEstimate m = estimate(resolve_workload(r, {}));
    CHECK(m.component("weights_bytes") == 32'000'000'000ULL);
    CHECK(m.component("gradients_bytes") == 32'000'000'000ULL);
    CHECK(m.component("optimizer_bytes") == 64'000'000'000ULL);
    CHECK(m.component("workspace_bytes") == 16'000'000'000ULL);
}

TEST_CASE("the document's estimator reproduces its 21.6 GB worked example exactly") {
    WorkloadRequest r;
    r.model = "8B";
    r.method = "full";
    r.precision = "fp16";
    r.estimator = "doc";
    const MemoryEstimate m = estimate(resolve_workload(r, {}));
    CHECK(m.per_gpu_bytes == 21'600'000'000ULL);
    CHECK(m.component("weights_bytes") == 16'000'000'000ULL);
    CHECK(m.component("activations_bytes") == 2'400'000'000ULL);
}

TEST_CASE("quantised formats count their scale overhead") {
    CHECK(weight_bytes_per_param(Quant::Nf4, Precision::Bf16, false) == Approx(0.5625));
    CHECK(weight_bytes_per_param(Quant::Nf4, Precision::Bf16, true) == Approx(0.5 + 1.0 / 64 + 4.0 / 16384));
    CHECK(weight_bytes_per_param(Quant::GptqInt4, Precision::Fp16, false) == Approx(0.51953125));
    CHECK(weight_bytes_per_param(Quant::None, Precision::Fp32, false) == 4.0);
}

TEST_CASE("grouped-query attention shrinks the KV cache by the group factor") {
    WorkloadRequest gqa;
    gqa.model = "llama-3.1-8b";
    gqa.seq = "8192";
    const MemoryEstimate m = estimate(resolve_workload(gqa, embedded::model_presets()));
    // 32 layers x 2 x 8 KV heads x 128 x 8192 tokens x 2 bytes = 1 GiB
    CHECK(m.component("kv_cache_bytes") == 32ULL * 2 * 8 * 128 * 8192 * 2);
}

TEST_CASE("multi-GPU modes divide what each GPU holds") {
    WorkloadRequest base;
    base.model = "8B";
    base.method = "full";
    const MemoryEstimate one = estimate(resolve_workload(base, {}));
    const auto with = [&](const char* parallel) {
        WorkloadRequest r = base;
        r.gpus = "4";
        r.parallel = parallel;
        return estimate(resolve_workload(r, {}));
    };
    const MemoryEstimate ddp = with("ddp"), zero2 = with("zero2"), fsdp = with("fsdp"), tp = with("tp"), pp = with("pp");
    CHECK(ddp.component("weights_bytes") == one.component("weights_bytes"));
    CHECK(ddp.component("workspace_bytes") > one.component("workspace_bytes"));  // gradient buckets
    CHECK(zero2.component("gradients_bytes") == one.component("gradients_bytes") / 4);
    CHECK(zero2.component("weights_bytes") == 16'000'000'000ULL);  // 16-bit replica, fp32 master sharded
    CHECK(fsdp.component("weights_bytes") == one.component("weights_bytes") / 4);
    CHECK(fsdp.component("optimizer_bytes") == one.component("optimizer_bytes") / 4);
    CHECK(tp.component("activations_bytes") < one.component("activations_bytes"));
    CHECK(pp.component("weights_bytes") == one.component("weights_bytes") / 4);
    CHECK(fsdp.total_bytes == fsdp.per_gpu_bytes * 4);
    CHECK(fsdp.per_gpu_bytes < zero2.per_gpu_bytes);
    CHECK(zero2.per_gpu_bytes < ddp.per_gpu_bytes);
}

TEST_CASE("gradient checkpointing and flash attention lower training activations") {
    WorkloadRequest r;
    r.model = "8B";
    r.method = "lora";
    r.seq = "2048";
    const auto act = [&](bool ckpt, bool flash) {
        WorkloadRequest x = r;
        x.grad_ckpt = ckpt;
        x.flash_attn = flash;
        return estimate(resolve_workload(x, {})).component("activations_bytes");
    };
    CHECK(act(true, true) < act(false, true));
    CHECK(act(false, true) < act(false, false));
}
