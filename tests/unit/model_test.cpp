#include "gpuadvise/model.hpp"

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

TEST_CASE("every preset's shape lands within 3 % of its published count") {
    const auto& presets = embedded::model_presets();
    REQUIRE(presets.size() >= 40);
    int checked = 0;
    for (const auto& p : presets) {
        if (p.published_params == 0 || p.image) continue;  // image presets have no LLM shape
        INFO(p.id << " computed " << count_params(p.arch).total() << " published "
                  << p.published_params);
        const double ratio = static_cast<double>(count_params(p.arch).total()) /
                             static_cast<double>(p.published_params);
        // Gemma 3 27B's published figure includes its vision tower (0.4B).
        CHECK(std::fabs(ratio - 1.0) < 0.03);
        ++checked;
    }
    CHECK(checked >= 40);
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
    }
    const Architecture eight = infer_architecture(8'000'000'000ULL);
    CHECK(eight.layers == 32);
    CHECK(eight.hidden == 4096);
    CHECK(eight.intermediate == 14336);
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
