#include "gpuadvise/workload.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "support/request.hpp"

using namespace gpuadvise;
using test::Values;

TEST_CASE("QLoRA defaults follow the document's recipe and are all reported") {
    const Workload w = test::workload({{Field::Model, "8B"}, {Field::Method, "qlora"}});
    CHECK(w.quant.text() == "nf4");
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
    const Workload w =
        test::workload({{Field::Model, "8B"}, {Field::Seq, "1000"}, {Field::Gen, "100"}});
    CHECK(w.prompt == 900);
    CHECK(w.seq == 1000);
}

TEST_CASE("contradictory or meaningless combinations are errors that say how to fix them") {
    const auto fails = [](Values values, const char* text) {
        Request r = test::request(values);
        if (!r.has(Field::Model)) r.set(Field::Model, "8B", "--model");
        CHECK_THROWS_WITH(resolve_workload(r, {}, embedded::model_presets()),
                          Catch::Contains(text));
    };
    fails({{Field::Method, "qlora"}, {Field::Quant, "none"}}, "needs a quantized base");
    fails({{Field::Method, "full"}, {Field::LoraRank, "8"}}, "--lora-rank");
    fails({{Field::Method, "full"}, {Field::Quant, "nf4"}}, "cannot be combined");
    fails({{Field::Gpus, "3"}, {Field::Parallel, "tp"}}, "heads to divide evenly");
    fails({{Field::Optimizer, "adamw"}}, "applies to training");
    fails({{Field::Method, "qlorra"}}, "did you mean 'qlora'");
    fails({{Field::Batch, "0"}}, "--batch '0'");
    fails({{Field::Batch, "-1"}}, "--batch '-1'");
    fails({{Field::Seq, "abc"}}, "--seq 'abc'");
    fails({{Field::Prompt, "10"}, {Field::Gen, "10"}, {Field::Seq, "30"}}, "give two of the three");
    fails({{Field::LoraTargets, "q,,v"}, {Field::Method, "lora"}}, "empty entry");
    fails({{Field::Model, "0"}}, "positive");
    fails({{Field::Model, "1e30B"}}, "over 1e15");
    fails({{Field::Quant, "q4_k_m"}, {Field::Engine, "tensorrt-llm"}}, "does not load");
    fails({{Field::KvDtype, "q4_0"}, {Field::Engine, "vllm"}}, "not a KV cache type vLLM offers");
    fails({{Field::Quant, "exl2:99"}}, "from 2 to 8");
    fails({{Field::Method, "qlora"}, {Field::Quant, "q4_0"}}, "cannot be the frozen base");
    ModelInputs in;
    in.hf_config_text = "{}";
    CHECK_THROWS_WITH(resolve_workload(test::request({{Field::Model, "8B"}}), in, {}),
                      Catch::Contains("give only one"));
}

TEST_CASE("an image model refuses every language-model field by name") {
    // The SDXL row of the document's table is an image generation model now:
    // the table's language-model fields are refused, by name.
    const auto& presets = embedded::model_presets();
    int refused = 0;
    for (const FieldSpec& s : field_specs()) {
        if (s.models != Models::Language || (s.group & (kWorkloadGroup | kJobGroup)) == 0) continue;
        INFO(s.flag);
        Request r = test::request({{Field::Task, "sdxl"}});
        r.set(s.field, s.kind == FieldKind::Value ? "1" : "true", std::string(s.flag));
        CHECK_THROWS_WITH(resolve_workload(r, {}, presets), Catch::Contains(std::string(s.flag)));
        ++refused;
    }
    CHECK(refused >= 10);
    const Workload w = resolve_workload(test::request({{Field::Task, "sdxl"}}), {}, presets);
    CHECK(w.is_diffusion());
    CHECK(w.image.width == 1024);
}

TEST_CASE("fields for another kind of workload are refused with the fix") {
    CHECK_THROWS_WITH(
        test::workload({{Field::Model, "8B"}, {Field::Method, "full"}, {Field::KvDtype, "fp8"}}),
        Catch::Contains("--kv-dtype applies to --method inference"));
    CHECK_THROWS_WITH(
        test::workload({{Field::Model, "8B"}, {Field::Method, "full"}, {Field::Engine, "vllm"}}),
        Catch::Contains("--engine applies to --method inference"));
    CHECK_THROWS_WITH(test::workload({{Field::Model, "8B"}, {Field::GradCkpt, "true"}}),
                      Catch::Contains("--grad-ckpt applies to training"));
    CHECK_THROWS_WITH(test::workload({{Field::Model, "8B"}, {Field::LoraRank, "8"}}),
                      Catch::Contains("--lora-rank applies to --method lora or qlora"));
}

TEST_CASE("origins other than flags appear in messages") {
    Request r;
    r.set(Field::Model, "8B", "\"model\"");
    r.set(Field::Batch, "18446744073709551615", "\"batch\"");
    CHECK_THROWS_WITH(resolve_workload(r, {}, {}),
                      Catch::Contains("\"batch\" '18446744073709551615' is too large"));
}

TEST_CASE("LoRA targets accept Hugging Face module names and all-linear") {
    CHECK(test::workload({{Field::Model, "8B"},
                          {Field::Method, "lora"},
                          {Field::LoraTargets, "q_proj,k_proj,gate_proj"}})
              .lora_targets.size() == 3);
    CHECK(test::workload(
              {{Field::Model, "8B"}, {Field::Method, "lora"}, {Field::LoraTargets, "all-linear"}})
              .lora_targets.size() == 7);
}

TEST_CASE("the engine follows the weights when not given") {
    CHECK(test::workload({{Field::Model, "8B"}, {Field::Quant, "q4_k_m"}}).engine->id ==
          "llama.cpp");
    CHECK(test::workload({{Field::Model, "8B"}}).engine->id == "vllm");
    CHECK_FALSE(test::workload({{Field::Model, "8B"}}).engine_given);
    CHECK(test::workload({{Field::Model, "8B"}, {Field::Engine, "LM Studio"}}).engine->id ==
          "lm-studio");
}

TEST_CASE("the checkpoint's quantization_config decides the weights, --quant overrides it") {
    const auto& presets = embedded::model_presets();
    const auto assumed = [](const Workload& w, const char* text) {
        for (const auto& a : w.assumed)
            if (a.find(text) != std::string::npos) return true;
        return false;
    };
    const Workload own = test::workload({{Field::Model, "gpt-oss-120b"}}, presets);
    CHECK(own.quant.text() == "mxfp4");
    CHECK(assumed(own, "the checkpoint's quantization_config"));
    const Workload over =
        test::workload({{Field::Model, "gpt-oss-120b"}, {Field::Quant, "q4_k_m"}}, presets);
    CHECK(over.quant.text() == "q4_k_m");
    CHECK(assumed(over, "overriding the checkpoint's quantization_config"));
    // FP8 checkpoints (DeepSeek-R1: 128 x 128 blocks).
    CHECK(test::workload({{Field::Model, "deepseek-r1"}}, presets).quant.text() == "fp8");
    // Training takes 16-bit weights: the checkpoint's format is said, not used.
    const Workload full =
        test::workload({{Field::Model, "deepseek-r1"}, {Field::Method, "full"}}, presets);
    CHECK(full.quant.none());
    CHECK(assumed(full, "dequantized"));
    // QLoRA on a GPTQ checkpoint trains on its own 4-bit base.
    ModelInputs gptq;
    gptq.hf_config_text =
        R"({"model_type":"llama","hidden_size":256,"num_hidden_layers":2,"num_attention_heads":4,)"
        R"("intermediate_size":512,"vocab_size":1000,)"
        R"("quantization_config":{"quant_method":"gptq","bits":4,"group_size":32}})";
    const Workload qlora = test::workload({{Field::Method, "qlora"}}, {}, gptq);
    CHECK(qlora.quant.text() == "gptq-int4:32");
    // A method without a row is sized in 16-bit, with a warning that says so.
    ModelInputs hqq;
    hqq.hf_config_text =
        R"({"model_type":"llama","hidden_size":256,"num_hidden_layers":2,"num_attention_heads":4,)"
        R"("intermediate_size":512,"vocab_size":1000,"quantization_config":{"quant_method":"hqq"}})";
    const Workload unknown = test::workload({}, {}, hqq);
    CHECK(unknown.quant.none());
    REQUIRE_FALSE(unknown.warnings.empty());
    CHECK_THAT(unknown.warnings.front(), Catch::Contains("not modelled"));
}

namespace {
const Gpu& card(const char* id) {
    return resolve_gpu(embedded::catalog(), id);
}
bool assumed(const Workload& w, std::string_view text) {
    for (const auto& a : w.assumed)
        if (a.find(text) != std::string::npos) return true;
    return false;
}
}  // namespace

TEST_CASE("card defaults: vision models compute in fp16 on cards without bf16") {
    Workload w = test::workload({{Field::Model, "resnet50"}, {Field::Method, "full"}},
                                embedded::model_presets());
    REQUIRE(w.precision == Precision::Bf16);
    CHECK(apply_card_defaults(w, card("v100-sxm2-32gb"), 1));
    CHECK(w.precision == Precision::Fp16);
    CHECK(assumed(w, "precision=fp16 (volta has no native bf16"));
    CHECK_FALSE(apply_card_defaults(w, card("v100-sxm2-32gb"), 1));  // once
    // A card with bf16 keeps it; so does a precision the user gave.
    Workload ampere = test::workload({{Field::Model, "resnet50"}, {Field::Method, "full"}},
                                     embedded::model_presets());
    CHECK_FALSE(apply_card_defaults(ampere, card("a100-80gb-sxm"), 1));
    Workload given = test::workload(
        {{Field::Model, "resnet50"}, {Field::Method, "full"}, {Field::Precision, "bf16"}},
        embedded::model_presets());
    CHECK_FALSE(apply_card_defaults(given, card("t4"), 1));
    CHECK(given.precision == Precision::Bf16);
    // A language model keeps bf16 on vLLM, which refuses it on Volta rather than cast.
    Workload llm = test::workload({{Field::Model, "1B"}});
    CHECK_FALSE(apply_card_defaults(llm, card("v100-sxm2-32gb"), 1));
    // llama.cpp computes in fp16 on a P40 whatever the checkpoint: no bf16 to refuse.
    Workload gguf = test::workload({{Field::Model, "8B"}, {Field::Quant, "q4_k_m"}});
    REQUIRE(gguf.engine->id == "llama.cpp");
    CHECK(apply_card_defaults(gguf, card("tesla-p40"), 1));
    CHECK(gguf.precision == Precision::Fp16);
    CHECK(assumed(gguf, "precision=fp16 (pascal has no native bf16; llama.cpp computes"));
}

TEST_CASE("card defaults: Ollama's context by total VRAM, cut to the trained length") {
    const auto ollama = [](Values extra = {}) {
        Request r = test::request({{Field::Model, "llama-3.1-8b"}, {Field::Engine, "ollama"}});
        for (const auto& [f, v] : extra) r.set(f, v, std::string(spec(f).flag));
        return resolve_workload(r, {}, embedded::model_presets());
    };
    Workload w24 = ollama();
    REQUIRE(w24.seq == 4096);
    CHECK(apply_card_defaults(w24, card("rtx-4090"), 1));  // 24 GiB: from 23 GiB up
    CHECK(w24.seq == 32768);
    // The KV cache is the default context's; the request stays the one assumed.
    CHECK(w24.prompt == 3584);
    CHECK(w24.gen == 512);
    CHECK(assumed(w24, "seq=32768 context"));
    CHECK(assumed(w24, "Ollama's default for 24 GiB"));
    CHECK(assumed(w24, "speed at prompt 3584 + gen 512"));
    // --prompt and --gen say what a request holds: the engine still allocates its default.
    Workload asked = ollama({{Field::Prompt, "1000"}, {Field::Gen, "200"}});
    CHECK(apply_card_defaults(asked, card("rtx-4090"), 1));
    CHECK(asked.seq == 32768);
    CHECK(asked.prompt == 1000);
    // A request longer than the default sets the context (--emit writes it as num_ctx).
    Workload longer = ollama({{Field::Prompt, "40000"}, {Field::Gen, "200"}});
    CHECK_FALSE(apply_card_defaults(longer, card("rtx-4090"), 1));
    CHECK(longer.seq == 40200);
    Workload w48 = ollama();  // two 24 GiB cards: 48 GiB, 262144, cut to 131072
    CHECK(apply_card_defaults(w48, card("rtx-4090"), 2));
    CHECK(w48.seq == 131072);
    CHECK(assumed(w48, "cut to the model's trained context"));
    Workload w8 = ollama();
    CHECK_FALSE(apply_card_defaults(w8, card("rtx-4060"), 1));
    CHECK(w8.seq == 4096);
    Workload given = ollama({{Field::Seq, "8192"}});
    CHECK_FALSE(apply_card_defaults(given, card("rtx-4090"), 1));
    CHECK(given.seq == 8192);
    // Another engine has no such default.
    Workload llamacpp = test::workload(
        {{Field::Model, "llama-3.1-8b"}, {Field::Engine, "llama.cpp"}}, embedded::model_presets());
    CHECK_FALSE(apply_card_defaults(llamacpp, card("rtx-4090"), 1));
}

TEST_CASE("card defaults: Ollama keeps its reserve free on each card") {
    const Gpu& g = card("rtx-4090");
    const Engine* ollama = find_engine("ollama");
    REQUIRE(ollama != nullptr);
    CHECK(usable_memory(g, Os::Linux) - usable_memory(g, Os::Linux, ollama) == 457ULL << 20U);
    CHECK(usable_memory(g, Os::Linux, find_engine("llama.cpp")) == usable_memory(g, Os::Linux));
    const Gpu& mac = card("apple-m3-max-40c-128gb");
    CHECK(usable_memory(mac, Os::Linux) - usable_memory(mac, Os::Linux, ollama) == 512ULL << 20U);
}

TEST_CASE("card defaults: mlx-lm trains LoRA and QLoRA on Apple silicon") {
    const Gpu& mac = card("apple-m2-ultra-76c-192gb");
    Workload q = test::workload({{Field::Model, "8B"}, {Field::Method, "qlora"}});
    REQUIRE(q.quant.text() == "nf4");
    CHECK(apply_card_defaults(q, mac, 1));
    REQUIRE(q.engine != nullptr);
    CHECK(q.engine->id == "mlx");
    CHECK(q.quant.text() == "mlx-4bit");
    CHECK_FALSE(q.double_quant);
    CHECK(q.optimizer == Optimizer::AdamW);
    CHECK(assumed(q, "trainer=mlx"));
    CHECK_FALSE(assumed(q, "double-quant=on"));
    Workload l = test::workload({{Field::Model, "8B"}, {Field::Method, "lora"}});
    CHECK(apply_card_defaults(l, mac, 1));
    CHECK(l.engine->id == "mlx");
    CHECK(l.quant.none());
    // Full fine-tunes stay on PyTorch; so does a bitsandbytes optimizer the user chose.
    Workload full = test::workload({{Field::Model, "1B"}, {Field::Method, "full"}});
    CHECK_FALSE(apply_card_defaults(full, mac, 1));
    Workload paged = test::workload(
        {{Field::Model, "8B"}, {Field::Method, "qlora"}, {Field::Optimizer, "paged-adamw-8bit"}});
    CHECK_FALSE(apply_card_defaults(paged, mac, 1));
    // CUDA trains with PyTorch as before.
    Workload cuda = test::workload({{Field::Model, "8B"}, {Field::Method, "qlora"}});
    CHECK_FALSE(apply_card_defaults(cuda, card("rtx-4090"), 1));
    CHECK(cuda.engine == nullptr);
}

TEST_CASE("the models column decides the refusals by kind, in whole messages") {
    const auto& presets = embedded::model_presets();
    const auto message = [&](test::Values given) {
        try {
            (void)resolve_workload(test::request(given), {}, presets);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    // Language: refused by an image model, --seq with the image field to use.
    CHECK(message({{Field::Model, "resnet50"}, {Field::Seq, "256"}}) ==
          "--seq applies to language models; resnet50 is a vision model (use --resolution for "
          "the image size)");
    CHECK(message({{Field::Task, "sdxl"}, {Field::Engine, "vllm"}}) ==
          "--engine applies to language models; sdxl is an image generation model");
    // Diffusion: refused by a vision model; Image and Diffusion: by a language model.
    CHECK(message({{Field::Model, "resnet50"}, {Field::VaeTiling, "true"}}) ==
          "--vae-tiling applies to image generation models such as sdxl");
    CHECK(message({{Field::Model, "8B"}, {Field::Fps, "30"}}) ==
          "--fps applies to image generation and vision models (e.g. --model sdxl or --model "
          "resnet50)");
    CHECK(message({{Field::Model, "8B"}, {Field::Frames, "81"}}) ==
          "--frames applies to image generation and vision models (e.g. --model sdxl or --model "
          "resnet50)");
    // Any: taken by both.
    CHECK(message({{Field::Model, "resnet50"}, {Field::Batch, "8"}}) == "accepted");
}
