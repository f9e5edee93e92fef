#include "gpuadvise/model.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"

using namespace gpuadvise;

namespace {
const ModelPreset& preset(const char* id) {
    const ModelPreset* p = find_preset(embedded::model_presets(), id);
    REQUIRE(p != nullptr);
    return *p;
}
}  // namespace

TEST_CASE("parameter counts from the shape match published exact counts") {
    // Exact totals of the checkpoints' safetensors as Hugging Face model pages
    // report them (and, for the first six, data/models.json's params).
    const std::pair<const char*, std::uint64_t> exact[] = {{"llama-3.1-8b", 8'030'261'248ULL},
                                                           {"llama-3.1-70b", 70'553'706'496ULL},
                                                           {"llama-3.2-1b", 1'235'814'400ULL},
                                                           {"llama-3.2-3b", 3'212'749'824ULL},
                                                           {"llama-3.3-70b", 70'553'706'496ULL},
                                                           {"pythia-6.9b", 6'857'302'016ULL},
                                                           {"llama-2-7b", 6'738'415'616ULL},
                                                           {"llama-2-13b", 13'015'864'320ULL},
                                                           {"mistral-7b-v0.1", 7'241'732'096ULL},
                                                           {"mixtral-8x7b", 46'702'792'704ULL},
                                                           {"qwen2.5-7b", 7'615'616'512ULL},
                                                           {"qwen2.5-0.5b", 494'032'768ULL},
                                                           {"tinyllama-1.1b", 1'100'048'384ULL},
                                                           {"phi-2", 2'779'683'840ULL},
                                                           {"gpt2", 124'439'808ULL},
                                                           {"gemma-2-9b", 9'241'705'984ULL}};
    for (const auto& [id, count] : exact) {
        INFO(id);
        CHECK(count_params(preset(id).arch).total() == count);
    }
}

// How far a published figure can be from the exact count by its rounding
// alone: half a unit of its last significant digit ("0.6B" is 0.55B-0.65B),
// relative to the figure.
double rounding_of(std::uint64_t published) {
    std::uint64_t unit = 1;
    while (published % (unit * 10) == 0) unit *= 10;
    return 0.5 * static_cast<double>(unit) / static_cast<double>(published);
}

TEST_CASE("every preset's shape lands within 0.5 % of its published count") {
    const auto& presets = embedded::model_presets();
    REQUIRE(presets.size() >= 55);
    int checked = 0, exact = 0;
    for (const auto& p : presets) {
        if (p.published_params == 0 || p.image) continue;  // image presets have no LLM shape
        INFO(p.id << " computed " << count_params(p.arch).total() << " published "
                  << p.published_params << " (" << p.params_note << ")");
        const double ratio = static_cast<double>(count_params(p.arch).total()) /
                             static_cast<double>(p.published_params);
        // 0.5 %, or the published figure's own rounding where it is coarser:
        // a figure published as "1.7B" cannot check a count to 0.5 %.
        CHECK(std::fabs(ratio - 1.0) <= std::max(0.005, rounding_of(p.published_params)));
        if (rounding_of(p.published_params) <= 0.005) ++exact;
        ++checked;
    }
    CHECK(checked >= 55);
    CHECK(exact >= 50);  // all but a few presets are checked to 0.5 % or better
}

TEST_CASE("mixture-of-experts models count all experts in total and the routed ones as active") {
    const ParamCounts mixtral = count_params(preset("mixtral-8x7b").arch);
    CHECK(mixtral.total() == Approx(46.7e9).epsilon(0.01));
    CHECK(mixtral.active() == Approx(12.9e9).epsilon(0.02));
    const ParamCounts qwen_moe = count_params(preset("qwen3-30b-a3b").arch);
    CHECK(qwen_moe.total() == Approx(30.5e9).epsilon(0.02));
    CHECK(qwen_moe.active() == Approx(3.3e9).epsilon(0.05));
    const ParamCounts v3 = count_params(preset("deepseek-v3").arch);
    CHECK(v3.total() == Approx(671e9).epsilon(0.01));
    CHECK(v3.active() == Approx(37e9).epsilon(0.05));
}

TEST_CASE("a hand-computed GPT-2 style config") {
    // n_layer 2, n_embd 64, n_head 4, vocab 100, n_positions 32, tied, biases, LayerNorm.
    const Architecture a = parse_hf_config(
        R"({"model_type":"gpt2","n_layer":2,"n_embd":64,"n_head":4,"vocab_size":100,"n_positions":32})",
        "t.json");
    CHECK(a.intermediate == 256);
    CHECK(a.tied_embeddings);
    // embeddings 100*64 + 32*64; per layer: attn 4*64*64 + biases 3*64 + 64; MLP 2*64*256 + 256 +
    // 64; 2 LayerNorms 2*(2*64); final LayerNorm 2*64.
    const std::uint64_t per_layer = 4 * 64 * 64 + 3 * 64 + 64 + 2 * 64 * 256 + 256 + 64 + 2 * 128;
    CHECK(count_params(a).total() == 100 * 64 + 32 * 64 + 2 * per_layer + 128);
}

TEST_CASE("config.json spellings and nesting") {
    const Architecture falcon = parse_hf_config(
        R"({"model_type":"falcon","hidden_size":4544,"num_hidden_layers":32,"num_attention_heads":71,"multi_query":true,"vocab_size":65024})",
        "f.json");
    CHECK(falcon.kv_heads == 1);
    CHECK(falcon.intermediate == 4 * 4544);
    const Architecture t5 = parse_hf_config(
        R"({"model_type":"t5","d_model":512,"d_ff":2048,"d_kv":64,"num_heads":8,"num_layers":6,"vocab_size":32128,"feed_forward_proj":"relu"})",
        "t5.json");
    CHECK(t5.encoder_decoder);
    CHECK(t5.total_layers() == 12);
    const Architecture nested = parse_hf_config(
        R"({"model_type":"gemma3","text_config":{"model_type":"gemma3_text","hidden_size":256,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":1,"head_dim":64,"intermediate_size":512,"vocab_size":1000}})",
        "g.json");
    CHECK(nested.hidden == 256);
    CHECK(nested.norms_per_layer == 4);
}

TEST_CASE("bad config.json files name the file and the field") {
    CHECK_THROWS_WITH(parse_hf_config("{not json", "c.json"),
                      Catch::Contains("c.json") && Catch::Contains("not valid JSON"));
    CHECK_THROWS_WITH(parse_hf_config("", "c.json"), Catch::Contains("empty"));
    CHECK_THROWS_WITH(parse_hf_config("[]", "c.json"), Catch::Contains("object"));
    CHECK_THROWS_WITH(parse_hf_config(R"({"model_type":"llama"})", "c.json"),
                      Catch::Contains("missing the model shape"));
    CHECK_THROWS_WITH(
        parse_hf_config(R"({"hidden_size":-5,"num_hidden_layers":2,"num_attention_heads":4})",
                        "c.json"),
        Catch::Contains("hidden_size"));
    CHECK_THROWS_WITH(
        parse_hf_config(
            R"({"hidden_size":1000000000,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10})",
            "c.json"),
        Catch::Contains("hidden_size") && Catch::Contains("implausibly large"));
    CHECK_THROWS_WITH(
        parse_hf_config(R"({"hidden_size":"4096","num_hidden_layers":2,"num_attention_heads":4})",
                        "c.json"),
        Catch::Contains("'hidden_size' must be an integer"));
    CHECK_THROWS_AS(
        parse_hf_config(
            R"({"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":3,"vocab_size":10})",
            "c.json"),
        InputError);
}

TEST_CASE("a shape inferred from a size is Llama-3-like and close to the size") {
    for (double size : {0.35e9, 1e9, 3e9, 8e9, 13e9, 70e9, 405e9}) {
        const Architecture a = infer_architecture(static_cast<std::uint64_t>(size));
        INFO(size);
        CHECK(a.inferred);
        CHECK(a.head_dim == 128);
        CHECK(static_cast<double>(count_params(a).total()) == Approx(size).epsilon(0.08));
        // Names round down (Llama 3.1 70B has 70.55B parameters): never fewer than asked.
        CHECK(static_cast<double>(count_params(a).total()) >= size);
        // From 1B the heads split over 2 or 4 GPUs of tensor parallelism.
        if (size >= 1e9) CHECK(a.heads % 4 == 0);
    }
    const Architecture eight = infer_architecture(8'000'000'000ULL);
    CHECK(eight.layers == 32);
    CHECK(eight.hidden == 4096);
    CHECK(eight.intermediate == 14336);
    // Llama 3's published 70B shape, not a 79-layer or 9216-wide near miss.
    const Architecture seventy = infer_architecture(70'000'000'000ULL);
    CHECK(seventy.layers == 80);
    CHECK(seventy.hidden == 8192);
    CHECK(seventy.intermediate == 28672);
}

TEST_CASE("preset lookup is forgiving and suggests near names") {
    const auto& presets = embedded::model_presets();
    CHECK(find_preset(presets, "Llama-3.1-8B") != nullptr);
    CHECK(find_preset(presets, "meta-llama/Llama-3.1-8B") != nullptr);
    CHECK(find_preset(presets, "llama 3.1 8b") != nullptr);
    CHECK(find_preset(presets, "8B") == nullptr);
    CHECK_THROWS_WITH(throw_unknown_model(presets, "llama-3.1-8x"),
                      Catch::Contains("did you mean 'llama-3.1-8b'"));
}

namespace {
// A small Llama-style shape to carry a quantization_config.
std::string with_quant(const std::string& quantization_config) {
    return R"({"model_type":"llama","hidden_size":256,"num_hidden_layers":2,"num_attention_heads":4,)"
           R"("intermediate_size":512,"vocab_size":1000,"quantization_config":)" +
           quantization_config + "}";
}
CheckpointQuant quant_of(const std::string& quantization_config) {
    const Architecture a = parse_hf_config(with_quant(quantization_config), "q.json");
    REQUIRE(a.quantization.has_value());
    return *a.quantization;
}
}  // namespace

TEST_CASE("quantization_config: each quant_method names a weight format") {
    const CheckpointQuant mx = quant_of(R"({"quant_method":"mxfp4"})");
    CHECK(mx.format == "mxfp4");
    CHECK(mx.scope.all());
    const CheckpointQuant awq =
        quant_of(R"({"quant_method":"awq","bits":4,"group_size":64,"zero_point":true})");
    CHECK(awq.format == "awq-int4");
    CHECK(awq.parameter == 64);
    const CheckpointQuant autoawq =
        quant_of(R"({"quant_method":"awq","w_bit":4,"q_group_size":32})");
    CHECK(autoawq.format == "awq-int4");
    CHECK(autoawq.parameter == 32);
    const CheckpointQuant gptq8 = quant_of(R"({"quant_method":"gptq","bits":8,"group_size":128})");
    CHECK(gptq8.format == "gptq-int8");
    CHECK(gptq8.parameter == 128);
    // group_size -1: one scale per output channel, the widest group a row allows.
    const CheckpointQuant gptq4 = quant_of(R"({"quant_method":"gptq","bits":4,"group_size":-1})");
    CHECK(gptq4.format == "gptq-int4");
    CHECK(gptq4.parameter == 4096);
    const CheckpointQuant fp8 = quant_of(
        R"({"quant_method":"fp8","fmt":"e4m3","activation_scheme":"dynamic","weight_block_size":[128,128]})");
    CHECK(fp8.format == "fp8");
    CHECK_THAT(fp8.detail, Catch::Contains("128 x 128"));
    CHECK(quant_of(R"({"quant_method":"fbgemm_fp8","activation_scale_ub":1200.0})").format ==
          "fp8");
    const CheckpointQuant nf4 = quant_of(
        R"({"quant_method":"bitsandbytes","load_in_4bit":true,"bnb_4bit_quant_type":"nf4","bnb_4bit_use_double_quant":true})");
    CHECK(nf4.format == "nf4");
    CHECK(nf4.double_quant);
    CHECK(quant_of(
              R"({"quant_method":"bitsandbytes","load_in_4bit":true,"bnb_4bit_quant_type":"fp4"})")
              .format == "fp4");
    CHECK(quant_of(R"({"quant_method":"bitsandbytes","load_in_8bit":true})").format == "int8");
    const CheckpointQuant ct = quant_of(
        R"({"quant_method":"compressed-tensors","format":"pack-quantized","config_groups":{"group_0":{"targets":["Linear"],)"
        R"("weights":{"num_bits":4,"type":"int","symmetric":true,"strategy":"group","group_size":128}}}})");
    CHECK(ct.format == "int4");
    CHECK(ct.parameter == 128);
    CHECK(
        quant_of(
            R"({"quant_method":"compressed-tensors","config_groups":{"group_0":{"targets":["Linear"],)"
            R"("weights":{"num_bits":8,"type":"float","strategy":"channel"}}}})")
            .format == "fp8");
    CHECK(
        quant_of(
            R"({"quant_method":"compressed-tensors","format":"nvfp4-pack-quantized","config_groups":{"group_0":{)"
            R"("targets":["Linear"],"weights":{"num_bits":4,"type":"float","group_size":16}}}})")
            .format == "nvfp4");
    CHECK(quant_of(R"({"quant_method":"modelopt","quant_algo":"NVFP4"})").format == "nvfp4");
    CHECK(quant_of(R"({"quant_method":"modelopt","quant_algo":"FP8"})").format == "fp8");
    // Methods without a row are read, not refused: sized as 16-bit with the reason.
    const CheckpointQuant hqq = quant_of(R"({"quant_method":"hqq","nbits":4})");
    CHECK_FALSE(hqq.modelled());
    CHECK_THAT(hqq.text(), Catch::Contains("hqq"));
    CHECK_FALSE(quant_of(R"({"quant_method":"gptq","bits":3})").modelled());
    CHECK_FALSE(quant_of(R"({"quant_method":"bitsandbytes"})").modelled());
    // No quantization_config: none; a malformed one names the field.
    CHECK_FALSE(
        parse_hf_config(
            R"({"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10})",
            "c.json")
            .quantization);
    CHECK_THROWS_WITH(parse_hf_config(with_quant(R"("fp8")"), "c.json"),
                      Catch::Contains("'quantization_config' must be an object"));
    CHECK_THROWS_WITH(
        parse_hf_config(with_quant(R"({"quant_method":"gptq","bits":"4"})"), "c.json"),
        Catch::Contains("'bits' must be an integer"));
}

TEST_CASE("quantization_config: modules left unconverted stay in 16-bit") {
    // gpt-oss keeps attention, router, embeddings and head in bf16: only the
    // experts are MXFP4.
    const CheckpointQuant gpt_oss =
        quant_of(R"({"quant_method":"mxfp4","modules_to_not_convert":["model.layers.*.self_attn",)"
                 R"("model.layers.*.mlp.router","model.embed_tokens","lm_head"]})");
    CHECK_FALSE(gpt_oss.scope.attention);
    CHECK(gpt_oss.scope.routed_experts);
    CHECK(gpt_oss.scope.dense_mlp);
    CHECK_THAT(gpt_oss.text(), Catch::Contains("attention kept in 16-bit"));
    // compressed-tensors' ignore, with regular expressions; bitsandbytes' spelling.
    const QuantScope ignore = scope_without({"lm_head", "re:.*mlp.gate$", "re:visual.*"});
    CHECK_FALSE(ignore.vision);
    CHECK(ignore.attention);
    CHECK(ignore.routed_experts);
    const CheckpointQuant bnb = quant_of(
        R"({"quant_method":"bitsandbytes","load_in_8bit":true,"llm_int8_skip_modules":["mlp.experts","shared_expert"]})");
    CHECK_FALSE(bnb.scope.routed_experts);
    CHECK_FALSE(bnb.scope.shared_experts);
    CHECK(bnb.scope.dense_mlp);
    // A whole MLP; one layer's module is not modelled per layer.
    CHECK_FALSE(scope_without({"model.layers.*.mlp"}).dense_mlp);
    CHECK(scope_without({"model.layers.0.self_attn"}).all());
}

TEST_CASE("a format's scope selects the linear weights it covers") {
    const Architecture a = parse_hf_config(
        R"({"model_type":"qwen2_moe","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,)"
        R"("intermediate_size":128,"moe_intermediate_size":32,"shared_expert_intermediate_size":64,)"
        R"("num_experts":4,"num_experts_per_tok":2,"vocab_size":100})",
        "moe.json");
    const ParamCounts c = count_params(a);
    CHECK(quantized_linear(c, {}) == c.block_linear);
    QuantScope experts_only;
    experts_only.attention = experts_only.dense_mlp = experts_only.shared_experts = false;
    CHECK(quantized_linear(c, experts_only) == c.routed_experts);
    CHECK(c.attention_linear == 2 * 4 * 64 * 64);
    CHECK(c.shared_experts == 2 * 3 * 64 * 64);
    CHECK(c.routed_experts == 2 * 4 * 3 * 64 * 32);
    // The shared expert's 1-wide gate: one weight per hidden unit and layer.
    CHECK(a.shared_expert_gate);
}

TEST_CASE("gpt-oss: alternating sliding attention, sinks, biased routers and experts") {
    const ModelPreset& p = preset("gpt-oss-20b");
    const Architecture& a = p.arch;
    CHECK(a.sliding_layers == 12);
    CHECK(a.sliding_window == 128);
    CHECK(a.attention_sinks);
    CHECK(a.router_bias);
    CHECK(a.expert_bias);
    // OpenAI's model card: 20.91B total, of which 19.12B MLP and 0.64B attention.
    const ParamCounts c = count_params(a);
    CHECK(c.total() == 20'914'757'184ULL);
    CHECK(a.quantization->format == "mxfp4");
    CHECK_FALSE(a.quantization->scope.attention);
    CHECK(count_params(preset("gpt-oss-120b").arch).total() == 116'829'156'672ULL);
}

TEST_CASE("Llama 4: interleaved MoE layers, a shared expert, chunked local attention") {
    const Architecture& scout = preset("llama-4-scout").arch;
    CHECK(scout.dense_layers == 0);
    CHECK(scout.shared_intermediate == 8192);
    CHECK(scout.moe_intermediate == 8192);
    CHECK(scout.sliding_window == 8192);  // attention_chunk_size
    CHECK(scout.sliding_layers == 36);    // every 4th layer is global NoPE
    const Architecture& maverick = preset("llama-4-maverick").arch;
    CHECK(maverick.dense_layers == 24);  // interleave_moe_layer_step 2
    CHECK(maverick.intermediate == 16384);
    CHECK(count_params(scout).total() == 107'769'861'120ULL);
    CHECK(count_params(maverick).total() == 400'711'848'960ULL);
    // moe_layers, when given, lists the MoE layers.
    const Architecture listed = parse_hf_config(
        R"({"model_type":"llama4_text","hidden_size":64,"num_hidden_layers":4,"num_attention_heads":4,)"
        R"("intermediate_size":32,"intermediate_size_mlp":128,"num_local_experts":4,)"
        R"("num_experts_per_tok":1,"moe_layers":[3],"vocab_size":100})",
        "l4.json");
    CHECK(listed.dense_layers == 3);
}

TEST_CASE("Qwen3-Next: Gated DeltaNet layers hold a fixed state, not a KV cache") {
    const Architecture& a = preset("qwen3-next-80b-a3b").arch;
    CHECK(a.linear_attention());
    CHECK(a.kv_free_layers == 36);  // full_attention_interval 4
    CHECK(a.kv_layers() == 12);
    CHECK(a.gated_attention);
    // (32 value heads x 128 x 128 + (2 x 16 x 128 + 32 x 128) x 3) values in bf16.
    CHECK(a.state_bytes_per_layer == 2 * (32 * 128 * 128 + 8192 * 3));
    CHECK(count_params(a).total() == 79'674'391'296ULL);
    // layer_types, when given, says which layers are linear.
    const Architecture typed = parse_hf_config(
        R"({"model_type":"qwen3_next","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,)"
        R"("num_key_value_heads":2,"head_dim":16,"intermediate_size":128,"vocab_size":100,)"
        R"("linear_num_key_heads":2,"linear_num_value_heads":4,"linear_key_head_dim":16,)"
        R"("linear_value_head_dim":16,"layer_types":["linear_attention","full_attention"]})",
        "next.json");
    CHECK(typed.kv_free_layers == 1);
}

TEST_CASE("vision towers count in the weights, not per text token") {
    // Gemma 3 27B: SigLIP and the projector add 423M (HF safetensors total).
    const ModelPreset& gemma = preset("gemma-3-27b");
    CHECK(gemma.arch.vision_model == "siglip_vision_model");
    const ParamCounts g = count_params(gemma.arch);
    CHECK(g.total() == 27'432'406'640ULL);
    // A Gemma 3 config.json that gives only widths and depths, as the 4B
    // checkpoint's does: Gemma3TextConfig's defaults fill the heads, KV heads,
    // head_dim and vocabulary, for the Hub's 4,300,079,472 of google/gemma-3-4b-it.
    const Architecture gemma4b = parse_hf_config(
        R"({"architectures":["Gemma3ForConditionalGeneration"],"model_type":"gemma3",)"
        R"("text_config":{"hidden_size":2560,"intermediate_size":10240,"model_type":"gemma3_text",)"
        R"("num_hidden_layers":34,"sliding_window":1024},"vision_config":{"hidden_size":1152,)"
        R"("image_size":896,"intermediate_size":4304,"model_type":"siglip_vision_model",)"
        R"("num_attention_heads":16,"num_hidden_layers":27,"patch_size":14,"vision_use_head":false}})",
        "gemma3-4b-shape.json");
    CHECK(gemma4b.heads == 8);
    CHECK(gemma4b.head_dim == 256);
    CHECK(count_params(gemma4b).total() == 4'300'079'472ULL);
    // Qwen2.5-VL 7B: the language model plus 676,550,144 of vision encoder.
    CHECK(count_params(preset("qwen2.5-vl-7b").arch).total() == 8'292'166'656ULL);
    // Mistral 3 (Pixtral + projector), Devstral Small 2: 24,011,361,280 as
    // Mistral Small 3.1/3.2 on the Hub.
    CHECK(count_params(preset("devstral-small-2").arch).total() == 24'011'361'280ULL);
    CHECK(g.vision_linear > 0);
    CHECK(g.active() < g.total());
    // Llama 3.2 Vision: cross-attention layers attend to the image's tokens.
    const Architecture& mllama = preset("llama-3.2-90b-vision").arch;
    CHECK(mllama.cross_attention_layers == 20);
    CHECK(mllama.kv_layers() == 80);
    CHECK(mllama.state_bytes_per_layer == 4 * (40 * 40 + 1) * 2 * 1024 * 2);
    // The 11B's shape (the same vision encoder, a 40-layer text model with 8
    // cross-attention layers) totals the Hub's 10,670,220,835.
    const Architecture mllama11 = parse_hf_config(
        R"({"model_type":"mllama","text_config":{"model_type":"mllama_text_model",)"
        R"("cross_attention_layers":[3,8,13,18,23,28,33,38],"hidden_size":4096,)"
        R"("intermediate_size":14336,"num_attention_heads":32,"num_hidden_layers":40,)"
        R"("num_key_value_heads":8,"tie_word_embeddings":false,"vocab_size":128256},)"
        R"("vision_config":{"model_type":"mllama_vision_model","hidden_size":1280,"image_size":560,)"
        R"("intermediate_size":5120,"max_num_tiles":4,"num_channels":3,"num_global_layers":8,)"
        R"("num_hidden_layers":32,"patch_size":14,"vision_output_dim":7680}})",
        "mllama11.json");
    CHECK(count_params(mllama11).total() == 10'670'220'835ULL);
    // A FP8 checkpoint that keeps its vision tower in 16-bit.
    CHECK_FALSE(preset("devstral-small-2").arch.quantization->scope.vision);
    // A vision_config of a family not counted is named.
    const Architecture unknown = parse_hf_config(
        R"({"model_type":"llava","text_config":{"model_type":"llama","hidden_size":64,)"
        R"("num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100},)"
        R"("vision_config":{"model_type":"clip_vision_model","hidden_size":64}})",
        "llava.json");
    CHECK(unknown.vision_unknown == "clip_vision_model");
    CHECK(unknown.vision_linear == 0);
}

TEST_CASE("issue 24 presets: Gemma 3 4B/12B, Mistral Small 3.1, Mistral Large 2, Command R/R+") {
    // Hub safetensors totals, reproduced to the parameter (vision towers included).
    CHECK(count_params(preset("gemma-3-4b").arch).total() == 4'300'079'472ULL);
    CHECK(count_params(preset("gemma-3-12b").arch).total() == 12'187'325'040ULL);
    CHECK(count_params(preset("mistral-small-3.1-24b").arch).total() == 24'011'361'280ULL);
    CHECK(preset("gemma-3-12b").arch.vision_model == "siglip_vision_model");
    CHECK(preset("mistral-small-3.1-24b").arch.vision_model == "pixtral");
    // Model-card figures (123B, 35B, 104B) against the shapes' exact counts.
    CHECK(count_params(preset("mistral-large-2").arch).total() == 122'610'069'504ULL);
    CHECK(count_params(preset("command-r").arch).total() == 34'980'831'232ULL);
    CHECK(count_params(preset("command-r-plus").arch).total() == 103'810'674'688ULL);
    for (const char* id : {"gemma-3-4b", "gemma-3-12b", "mistral-small-3.1-24b", "mistral-large-2",
                           "command-r", "command-r-plus"}) {
        INFO(id);
        const ModelPreset& p = preset(id);
        const double ratio = static_cast<double>(count_params(p.arch).total()) /
                             static_cast<double>(p.published_params);
        CHECK(std::fabs(ratio - 1.0) <= 0.005);
        CHECK_FALSE(p.generation.empty());
    }
    // Command R ties its head; R+ adds per-head q/k norms.
    CHECK(preset("command-r").arch.tied_embeddings);
    CHECK_FALSE(preset("command-r").arch.qk_norm);
    CHECK(preset("command-r-plus").arch.qk_norm_per_head);
    // Names find their generations.
    const ModelGenerations& g = embedded::model_generations();
    const auto gen = [&](std::string_view name) {
        const ModelGeneration* m = match_generation(g, name);
        return m ? m->id : std::string("-");
    };
    CHECK(gen("c4ai-command-r-plus-Q4_K_M.gguf") == "command-r-plus");
    CHECK(gen("c4ai-command-r-v01-Q4_K_M.gguf") == "command-r");
    CHECK(gen("Mistral-Small-3.1-24B-Instruct-2503-Q4_K_M") == "mistral-small-3.1");
    CHECK(gen("Mistral-Large-Instruct-2407-Q4_K_M.gguf") == "mistral-large-2");
    CHECK(gen("gemma-3-12b-it-Q4_K_M.gguf") == "gemma-3");
}

TEST_CASE("Command R+: one parallel block norm, per-head q/k norms, tied head") {
    const Architecture a = parse_hf_config(
        R"({"model_type":"cohere","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,)"
        R"("num_key_value_heads":2,"intermediate_size":128,"vocab_size":100,"use_qk_norm":true})",
        "cohere.json");
    CHECK(a.tied_embeddings);
    CHECK(a.norms_per_layer == 1);
    CHECK(a.qk_norm_per_head);
    // embeddings + 2 x (attention + MLP + one norm + q/k norms of (4 + 2) heads x 16) + final norm
    const std::uint64_t attention = 64 * 64 + 2 * 64 * 32 + 64 * 64;
    const std::uint64_t layer = attention + 3 * 64 * 128 + 64 + 6 * 16;
    CHECK(count_params(a).total() == 100 * 64 + 2 * layer + 64);
}

TEST_CASE("GLM-4.5 style MoE: q/k/v biases without an o_proj bias, q/k norms, a biased router") {
    const Architecture a = parse_hf_config(
        R"({"model_type":"glm4_moe","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,)"
        R"("num_key_value_heads":2,"head_dim":16,"intermediate_size":128,"moe_intermediate_size":32,)"
        R"("n_routed_experts":4,"num_experts_per_tok":2,"n_shared_experts":1,"first_k_dense_replace":1,)"
        R"("attention_bias":true,"use_qk_norm":true,"num_nextn_predict_layers":1,"vocab_size":100,)"
        R"("tie_word_embeddings":false})",
        "glm.json");
    CHECK(a.qkv_bias);
    CHECK_FALSE(a.out_bias);
    CHECK(a.qk_norm);
    CHECK(a.router_bias);
    CHECK(a.dense_layers == 1);
    CHECK(a.mtp_layers == 1);
    // embeddings and head 2 x 6400; attention 12288 + q/k/v biases 128 + q/k
    // norms 32 per layer; one dense MLP 24576; one MoE layer: 4 experts and a
    // shared one of 6144 each, router 256 + 4; norms 2 x 2 x 64 + 64.
    const std::uint64_t body =
        12800 + 2 * (12288 + 128 + 32) + 24576 + 4 * 6144 + 6144 + 260 + 256 + 64;
    // The multi-token-prediction layer the checkpoint stores: a MoE layer
    // (attention 12288 + 160, experts 5 x 6144, router 260, two norms 128),
    // eh_proj 2 x 64 x 64, its own embedding and head 2 x 6400, three norms 192.
    const std::uint64_t mtp = 12288 + 160 + 5 * 6144 + 260 + 128 + 8192 + 12800 + 192;
    const ParamCounts c = count_params(a);
    CHECK(c.total() == body + mtp);
    // It is weights, not a token's path: of it only its norms, biases and
    // router (in `other`, which active() always includes) count as active.
    Architecture without = a;
    without.mtp_layers = 0;
    CHECK(count_params(without).total() == body);
    CHECK(c.active() == count_params(without).active() + 160 + 260 + 128 + 192);
    // More MTP layers than layers is a broken file.
    CHECK_THROWS_WITH(
        parse_hf_config(R"({"model_type":"glm4_moe","hidden_size":64,"num_hidden_layers":2,)"
                        R"("num_attention_heads":4,"vocab_size":100,"num_nextn_predict_layers":3})",
                        "glm-mtp.json"),
        Catch::Contains("'num_nextn_predict_layers' = 3"));
}

TEST_CASE("issue 29 presets: GLM-4.5-Air counts the checkpoint's MTP layer, as the Hub does") {
    const ModelPreset& air = preset("glm-4.5-air");
    CHECK(air.arch.model_type == "glm4_moe");
    CHECK(air.arch.dense_layers == 1);
    CHECK(air.arch.mtp_layers == 1);
    CHECK(air.arch.qkv_bias);
    CHECK_FALSE(air.arch.out_bias);
    CHECK_FALSE(air.arch.qk_norm);
    const ParamCounts c = count_params(air.arch);
    // The Hub's safetensors total of zai-org/GLM-4.5-Air, to the parameter.
    CHECK(c.total() == 110'468'824'832ULL);
    CHECK(c.total() == air.published_params);
    // Without the MTP layer the shape is 106,852,251,264 (the model card's
    // "106B"); about 12B of it active per token, embeddings and head included.
    Architecture body = air.arch;
    body.mtp_layers = 0;
    CHECK(count_params(body).total() == 106'852'251'264ULL);
    CHECK(c.active() > count_params(body).active());
    CHECK(c.active() - count_params(body).active() < 1'000'000);  // its norms, router, biases
    CHECK(static_cast<double>(c.active()) == Approx(13.4e9).epsilon(0.01));
    CHECK(air.generation == "glm-4.5");
    const ModelGenerations& g = embedded::model_generations();
    const ModelGeneration* m = match_generation(g, "GLM-4.5-Air-Q4_K_M.gguf");
    REQUIRE(m != nullptr);
    CHECK(m->id == "glm-4.5");
}

TEST_CASE("generations: every language preset has a release, and names find their generation") {
    for (const ModelPreset& p : embedded::model_presets()) {
        INFO(p.id);
        // fit lists chat models only: not encoders, encoder-decoders or
        // embedding and reranker models.
        if (p.image || p.arch.encoder_only || p.arch.encoder_decoder || p.arch.pools()) continue;
        CHECK_FALSE(p.generation.empty());
        CHECK(release_months(p.released).has_value());
    }
    const ModelGenerations& g = embedded::model_generations();
    const auto gen = [&](std::string_view name) {
        const ModelGeneration* m = match_generation(g, name);
        return m ? m->id : std::string("-");
    };
    CHECK(gen("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf") == "llama-3.1");
    CHECK(gen("Meta Llama 3 8B Instruct") == "llama-3");
    CHECK(gen("llama-2-7b-chat.Q4_K_M.gguf") == "llama-2");
    CHECK(gen("Qwen2.5-Coder-7B-Instruct") == "qwen2.5");
    CHECK(gen("Qwen3-30B-A3B-Q4_K_M") == "qwen3");
    CHECK(gen("gemma-2b-it") == "gemma");
    CHECK(gen("gemma-2-9b-it") == "gemma-2");
    CHECK(gen("Phi-3.5-mini-instruct") == "phi-3.5");
    CHECK(gen("my-own-model.gguf") == "-");
    CHECK(release_months("2024-07") == 2024 * 12 + 6);
    CHECK_FALSE(release_months("2024-13").has_value());
    CHECK_FALSE(release_months("July 2024").has_value());
    CHECK(g.proxy.halving_months == 16);
    // A preset naming a generation that does not exist fails to parse.
    CHECK_THROWS_WITH(
        parse_model_presets(
            R"({"quality_proxy": {"reference": "2024-01", "halving_months": 16, "source": "t"},
                "generations": [], "models": [{"id": "m", "generation": "nope",
                "config": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
                "intermediate_size": 128, "vocab_size": 100}}]})",
            "models.json"),
        Catch::Contains("'nope' is not an id of \"generations\""));
}
