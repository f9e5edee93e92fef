#include <catch2/catch.hpp>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/workload.hpp"

using namespace gpuadvise;

TEST_CASE("QLoRA defaults follow the document's recipe and are all reported") {
    WorkloadRequest r;
    r.model = "8B";
    r.method = "qlora";
    const Workload w = resolve_workload(r, {});
    CHECK(w.quant == Quant::Nf4);
    CHECK(w.double_quant);
    CHECK(w.precision == Precision::Fp16);
    CHECK(w.lora_rank == 64);
    CHECK(w.lora_targets == std::vector<LoraTarget>{LoraTarget::Q, LoraTarget::V});
    CHECK(w.optimizer == Optimizer::PagedAdamW32bit);
    CHECK(w.grad_ckpt);
    CHECK(w.batch == 4);
    CHECK(w.model.params == 8'000'000'000ULL);
    CHECK(w.assumed.size() >= 8);
}

TEST_CASE("inference splits the context into prompt and generated tokens") {
    WorkloadRequest r;
    r.model = "8B";
    r.seq = "1000";
    r.gen = "100";
    const Workload w = resolve_workload(r, {});
    CHECK(w.prompt == 900);
    CHECK(w.seq == 1000);
}

TEST_CASE("contradictory or meaningless combinations are errors that say how to fix them") {
    const auto fails = [](WorkloadRequest r, const char* text) {
        if (!r.model && !r.hf_config_text) r.model = "8B";
        CHECK_THROWS_WITH(resolve_workload(r, embedded::model_presets()), Catch::Contains(text));
    };
    WorkloadRequest r;
    r.method = "qlora";
    r.quant = "none";
    fails(r, "needs a quantized base");
    r = {};
    r.method = "full";
    r.lora_rank = "8";
    fails(r, "--lora-rank");
    r = {};
    r.method = "full";
    r.quant = "nf4";
    fails(r, "cannot be combined");
    r = {};
    r.gpus = "3";
    r.parallel = "tp";
    fails(r, "heads to divide evenly");
    r = {};
    r.optimizer = "adamw";
    fails(r, "applies to training");
    r = {};
    r.method = "qlorra";
    fails(r, "did you mean 'qlora'");
    r = {};
    r.batch = "0";
    fails(r, "--batch '0'");
    r = {};
    r.batch = "-1";
    fails(r, "--batch '-1'");
    r = {};
    r.seq = "abc";
    fails(r, "--seq 'abc'");
    r = {};
    r.prompt = "10";
    r.gen = "10";
    r.seq = "30";
    fails(r, "give two of the three");
    r = {};
    r.model = "8B";
    r.hf_config_text = "{}";
    fails(r, "give only one");
    r = {};
    r.lora_targets = "q,,v";
    r.method = "lora";
    fails(r, "empty entry");
    r = {};
    r.model = "0";
    fails(r, "positive");
    r = {};
    r.model = "1e30B";
    fails(r, "over 1e15");
}

TEST_CASE("LoRA targets accept Hugging Face module names and all-linear") {
    WorkloadRequest r;
    r.model = "8B";
    r.method = "lora";
    r.lora_targets = "q_proj,k_proj,gate_proj";
    CHECK(resolve_workload(r, {}).lora_targets.size() == 3);
    r.lora_targets = "all-linear";
    CHECK(resolve_workload(r, {}).lora_targets.size() == 7);
}
