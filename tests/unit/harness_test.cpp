// The training harnesses (--harness) and the code-path mechanisms they switch
// (docs/memory-model.md, "Harnesses"): each default with its flag winning,
// and each mechanism's bytes on the toy model, restated by hand.
#include <catch2/catch.hpp>

#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "support/fixtures.hpp"

using namespace gpuadvise;
using test::Values;

namespace {

using test::toy;

double bytes(const MemoryEstimate& m, double Components::*c) {
    return static_cast<double>(m.get(c));
}

}  // namespace

TEST_CASE("a harness's defaults apply where no flag is given, and a flag wins") {
    const Workload trl = toy({{Field::Method, "lora"}, {Field::Harness, "trl"}});
    CHECK(trl.loss == Loss::Fused);  // sft_config.py loss_type chunked_nll
    CHECK(trl.ckpt_mode == CkptMode::Full);
    const Workload tt = toy({{Field::Method, "lora"}, {Field::Harness, "torchtune"}});
    CHECK(tt.loss == Loss::Chunked);
    CHECK(tt.mixed == MixedPrecision::Pure);
    CHECK(tt.optimizer_impl == OptimizerImpl::Fused);
    CHECK(tt.expandable_segments);  // torchtune/__init__.py sets it
    const Workload swift = toy({{Field::Method, "qlora"}, {Field::Harness, "ms-swift"}});
    CHECK(swift.lora_dropout == Approx(0.05));
    CHECK(swift.double_quant);
    const Workload own = toy({{Field::Method, "lora"},
                              {Field::Harness, "torchtune"},
                              {Field::Loss, "upcast"},
                              {Field::ExpandableSegments, "false"},
                              {Field::LoraDropout, "0.1"}});
    CHECK(own.loss == Loss::Upcast);
    CHECK_FALSE(own.expandable_segments);
    CHECK(own.lora_dropout == Approx(0.1));
    // No --harness: the document's defaults, as before harnesses existed.
    const Workload doc = toy({{Field::Method, "qlora"}});
    CHECK(doc.harness == Harness::Hf);
    CHECK(doc.loss == Loss::Upcast);
    CHECK(doc.double_quant);
    CHECK(doc.lora_dropout == 0);
}

TEST_CASE("prepare_model_for_kbit_training keeps the non-quantized parameters in fp32") {
    // hf runs PEFT's prepare_model_for_kbit_training; ms-swift does not. The
    // toy's non-linear parameters: embeddings 6400, head 6400, norms 2 x 2 x
    // 64 + 64 = 320; fp16 compute (the QLoRA default) -> fp32 is 2 bytes more each.
    const auto weights = [](const char* harness) {
        return bytes(estimate_memory(toy({{Field::Method, "qlora"},
                                          {Field::Harness, harness},
                                          {Field::DoubleQuant, "true"}})),
                     &Components::weights);
    };
    CHECK(weights("hf") - weights("ms-swift") == Approx(13120.0 * 2.0));
}

TEST_CASE("LoRA dropout gives every adapter its own dropped copy of its input and a mask") {
    // q,v adapters read the attention's input (64 wide): without dropout the
    // input itself is saved once (2 bytes a value); with it each of the two
    // adapters keeps a 16-bit copy and a bool mask: 2 x (2 + 1) bytes.
    const auto acts = [](const char* p) {
        return bytes(estimate_memory(toy({{Field::Method, "lora"},
                                          {Field::LoraTargets, "q,v"},
                                          {Field::LoraDropout, p},
                                          {Field::CkptMode, "none"},
                                          {Field::Batch, "1"},
                                          {Field::Seq, "10"}})),
                     &Components::activations);
    };
    const double per_token_layer = 64.0 * (2.0 * (2.0 + 1.0) - 2.0);
    CHECK(acts("0.05") - acts("0") == Approx(per_token_layer * 10.0 * 2.0));
}

TEST_CASE("bitsandbytes before 0.43.2 keeps each 4-bit layer's input, outside reentrant hooks") {
    const auto extra = [](const char* harness, const char* ckpt, const char* dropout = nullptr,
                          const char* reentrant = nullptr) {
        const auto acts = [&](const char* bnb) {
            Request r = test::request({{Field::Method, "qlora"},
                                       {Field::Harness, harness},
                                       {Field::Bitsandbytes, bnb},
                                       {Field::CkptMode, ckpt}});
            if (dropout) r.set(Field::LoraDropout, dropout, "--lora-dropout");
            if (reentrant) r.set(Field::CkptReentrant, reentrant, "--ckpt-reentrant");
            ModelInputs inputs;
            inputs.hf_config_text = test::kToyLlama;
            return bytes(estimate_memory(resolve_workload(r, inputs, {})),
                         &Components::activations);
        };
        return acts("0.41.1") - acts("0.45.0");
    };
    // Without checkpointing every layer keeps the inputs. Reentrant
    // checkpointing (HF's default) frees them with the layer's graph: only
    // the recomputed layer (1 of 2) has them; non-reentrant (TRL) hooks do
    // not see ctx.tensors, so every layer keeps them still.
    CHECK(extra("hf", "none") > 0);
    CHECK(extra("hf", "full") == Approx(extra("hf", "none") / 2.0));
    CHECK(extra("trl", "full", "0.05") == Approx(extra("trl", "none", "0.05")));
    CHECK(extra("trl", "full") > 0);
    // Where an adapter saves the same tensor (no dropout, 16-bit adapters),
    // running without checkpointing costs nothing more for that site, but
    // a non-reentrant run keeps it through ctx.tensors after the hooks
    // dropped the adapter's copy, in the stored layer and, beside the
    // recomputed copy, in the recomputed one: every site's input in both
    // layers, as without checkpointing where no site is shared (dropout).
    CHECK(extra("trl", "full") == Approx(extra("trl", "none", "0.05")));
    CHECK(extra("trl", "full") > extra("trl", "none"));
    // --ckpt-reentrant overrides the harness: ms-swift 1.x-2.x patched
    // torch.utils.checkpoint to use_reentrant=False; HF's default is True.
    CHECK(extra("ms-swift", "full", nullptr, "false") == Approx(extra("ms-swift", "none")));
    CHECK(extra("ms-swift", "full") == Approx(extra("ms-swift", "none") / 2.0));
    CHECK(extra("trl", "full", nullptr, "true") == Approx(extra("trl", "none") / 2.0));
    // litgpt's fit() keeps the previous step's logits, and with them that
    // step's graph and its ctx.tensors, through the next forward: twice
    // every layer's inputs without checkpointing (2 layers x 2 steps), where
    // reentrant checkpointing keeps only the recomputed layer's.
    CHECK(extra("litgpt", "full") > 0);
    CHECK(extra("litgpt", "none") == Approx(4.0 * extra("litgpt", "full")));
    CHECK_THROWS_AS(toy({{Field::Method, "qlora"}, {Field::Bitsandbytes, "0.41.x"}}), InputError);
    CHECK_THROWS_AS(toy({{Field::Method, "lora"}, {Field::Bitsandbytes, "0.41.1"}}), InputError);
    // 0.43.2 is the first release without the input.
    CHECK(toy({{Field::Method, "qlora"}, {Field::Bitsandbytes, "0.43.1"}}).bnb_keeps_input);
    CHECK_FALSE(toy({{Field::Method, "qlora"}, {Field::Bitsandbytes, "0.43.2"}}).bnb_keeps_input);
}

TEST_CASE("Unsloth's fused LoRA kernels save less than PEFT's layers") {
    const auto acts = [](const char* harness) {
        return bytes(estimate_memory(toy({{Field::Method, "lora"},
                                          {Field::Harness, harness},
                                          {Field::LoraTargets, "all-linear"},
                                          {Field::CkptMode, "none"}})),
                     &Components::activations);
    };
    CHECK(acts("unsloth") < acts("hf"));
}

TEST_CASE(
    "DeepSpeed ZeRO-2 allocates its gradient buckets at every backward, sized by its config") {
    // Qwen-1's finetune_qlora_single_gpu.sh runs DeepSpeed with
    // ds_config_zero2.json: contiguous_gradients and overlap_comm, so two
    // buffers of reduce_bucket_size = 2e8 elements in fp16 (stage_1_and_2.py
    // backward), 8e8 bytes whatever the model or the batch. The hf harness
    // runs no DeepSpeed engine on one GPU: no buckets.
    const auto workspace = [](const char* harness, const char* batch) {
        return bytes(
            estimate_memory(
                toy({{Field::Method, "qlora"}, {Field::Harness, harness}, {Field::Batch, batch}})),
            &Components::workspace);
    };
    const double qwen = workspace("qwen-finetune", "1");
    const double hf = workspace("hf", "1");
    CHECK(qwen - hf == Approx(2 * 2e8 * 2).margin(1e6));
    CHECK(hf < 1e6);
    CHECK(workspace("qwen-finetune", "8") == Approx(qwen).margin(1e6));
}
