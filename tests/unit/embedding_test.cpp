// Embedding and reranker models (docs/models.md, "Embedding and reranker
// models"): what the checkpoint's class says about its head and its count,
// the workload's batch of sequences, one forward in memory (no KV cache) and
// its sequences a second, pinned to the formulas on round numbers.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/workload.hpp"
#include "support/fixtures.hpp"
#include "support/request.hpp"

using namespace gpuadvise;

namespace {

// XLM-RoBERTa large with 8194 positions (BGE-M3's shape), as `architectures` says.
std::string xlmr(std::string_view architectures, std::string_view extra = "") {
    return fmt::format(
        R"({{"architectures":["{}"],"model_type":"xlm-roberta","num_hidden_layers":24,)"
        R"("hidden_size":1024,"intermediate_size":4096,"num_attention_heads":16,)"
        R"("vocab_size":250002,"max_position_embeddings":8194,"type_vocab_size":1{}}})",
        architectures, extra);
}

const ModelPreset& preset(std::string_view id) {
    const ModelPreset* p = find_preset(embedded::model_presets(), id);
    REQUIRE(p != nullptr);
    return *p;
}

}  // namespace

TEST_CASE("the checkpoint's class says what the model is for and which head it holds") {
    const Architecture embed = parse_hf_config(xlmr("XLMRobertaModel"), "c.json");
    CHECK(embed.task == ModelTask::Embed);
    CHECK(embed.pools());
    CHECK_FALSE(embed.has_lm_head());
    // XLMRobertaModel with its pooler: 250002 x 1024 + 8194 x 1024 embeddings,
    // 24 blocks of 12,596,224, the embedding LayerNorm, one token type and the
    // pooler: the 567,754,752 parameters of BAAI/bge-m3.
    CHECK(count_params(embed).total() == 567'754'752ULL);
    // A cross-encoder: RoBERTa's classification head (dense + out_proj of one
    // label) replaces the pooler: 1,025 more, bge-reranker-v2-m3's shape.
    const Architecture rerank = parse_hf_config(
        xlmr("XLMRobertaForSequenceClassification", R"(,"id2label":{"0":"LABEL_0"})"), "c.json");
    CHECK(rerank.task == ModelTask::Rerank);
    CHECK(rerank.classifier_labels == 1);
    CHECK(count_params(rerank).total() == 567'755'777ULL);
    // No labels named: PretrainedConfig's two.
    CHECK(
        parse_hf_config(xlmr("XLMRobertaForSequenceClassification"), "c.json").classifier_labels ==
        2);
    // Generative classes stay generative, *LMHeadModel and ChatGLMModel included.
    for (const char* name : {"LlamaForCausalLM", "QWenLMHeadModel", "GPT2LMHeadModel",
                             "ChatGLMModel", "BertForMaskedLM", "T5Model"}) {
        INFO(name);
        const std::string config =
            fmt::format(R"({{"architectures":["{}"],"hidden_size":64,"num_hidden_layers":2,)"
                        R"("num_attention_heads":4,"vocab_size":100{}}})",
                        name, std::string_view(name) == "T5Model" ? R"(,"model_type":"t5")" : "");
        CHECK(parse_hf_config(config, "c.json").task == ModelTask::Generate);
    }
    // A decoder's bare *Model (e5-mistral's MistralModel) has no LM head.
    const std::string mistral =
        R"({"architectures":["MistralModel"],"model_type":"mistral","hidden_size":64,)"
        R"("num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100,"intermediate_size":128})";
    const Architecture base = parse_hf_config(mistral, "m.json");
    CHECK(base.task == ModelTask::Embed);
    CHECK(count_params(base).lm_head == 0);
    // A decoder's sequence classifier: `score`, hidden -> labels, no bias.
    std::string classifier = mistral;
    classifier.replace(classifier.find("MistralModel"), 12, "MistralForSequenceClassification");
    classifier.insert(classifier.size() - 1, R"(,"num_labels":3)");
    const Architecture scored = parse_hf_config(classifier, "m.json");
    CHECK(scored.task == ModelTask::Rerank);
    CHECK(count_params(scored).total() == count_params(base).total() + 64 * 3);
    CHECK_THROWS_WITH(parse_hf_config(R"({"architectures":[7],"hidden_size":64,)"
                                      R"("num_hidden_layers":2,"num_attention_heads":4})",
                                      "c.json"),
                      Catch::Contains("'architectures' must be a list of strings"));
}

TEST_CASE("embedding presets: Qwen3-Embedding holds no LM head, whatever its config names") {
    // MTEB's n_parameters (the checkpoints' own counts) to the parameter.
    CHECK(count_params(preset("qwen3-embedding-0.6b").arch).total() == 595'776'512ULL);
    CHECK(count_params(preset("qwen3-embedding-4b").arch).total() == 4'021'774'336ULL);
    CHECK(count_params(preset("qwen3-embedding-8b").arch).total() == 7'567'295'488ULL);
    CHECK(count_params(preset("bge-m3").arch).total() == 567'754'752ULL);
    for (const char* id : {"qwen3-embedding-0.6b", "qwen3-embedding-8b", "bge-m3"})
        CHECK(preset(id).arch.task == ModelTask::Embed);
}

TEST_CASE("reranker and decoder-embedding presets hold the heads their checkpoints hold") {
    // bge-reranker-v2-m3: BGE-M3's encoder with RoBERTa's one-label classifier
    // in place of the pooler (its config's id2label names one label).
    const Architecture& bge = preset("bge-reranker-v2-m3").arch;
    CHECK(bge.task == ModelTask::Rerank);
    CHECK(bge.classifier_labels == 1);
    CHECK(count_params(bge).total() == 567'755'777ULL);
    CHECK(count_params(bge).total() - count_params(preset("bge-m3").arch).total() == 1'025ULL);
    // Qwen3-Reranker scores with its LM head's "yes"/"no" logits: a causal
    // model kept whole, tied to the embedding, MTEB's n_parameters exactly.
    const Architecture& qwen = preset("qwen3-reranker-0.6b").arch;
    CHECK(qwen.task == ModelTask::Rerank);
    CHECK(qwen.has_lm_head());
    CHECK(count_params(qwen).total() == 595'776'512ULL);
    // e5-mistral is a MistralModel: Mistral 7B v0.1's blocks without the head,
    // 32,000 x 4,096 embedding parameters (MTEB's n_embedding_parameters).
    const Architecture& e5 = preset("e5-mistral-7b-instruct").arch;
    CHECK(e5.task == ModelTask::Embed);
    CHECK_FALSE(e5.has_lm_head());
    CHECK(count_params(e5).lm_head == 0);
    CHECK(count_params(e5).total() ==
          count_params(preset("mistral-7b-v0.1").arch).total() - 32'000ULL * 4'096ULL);
    // The same config without the preset's task is a causal LM with its head.
    const Architecture& a = preset("qwen3-embedding-8b").arch;
    Architecture causal = a;
    causal.task = ModelTask::Generate;
    CHECK(count_params(causal).total() - count_params(a).total() == 151'665ULL * 4096ULL);
}

TEST_CASE("an embedding workload is a batch of sequences, one forward each") {
    const Workload w = test::workload({{Field::Model, "bge-m3"}}, embedded::model_presets());
    CHECK(w.embeds());
    CHECK(w.batch == 32);  // sentence-transformers' encode default
    CHECK(w.seq == 512);
    CHECK(w.prompt == 512);
    CHECK(w.gen == 0);
    CHECK(w.engine->id == "vllm");
    const Workload longer =
        test::workload({{Field::Model, "bge-m3"}, {Field::Seq, "8192"}}, embedded::model_presets());
    CHECK(longer.seq == 8192);
    // A model with fewer positions than the default chunk gets its own limit.
    Request short_model = test::request({{Field::Batch, "4"}});
    ModelInputs in;
    in.hf_config_text =
        R"({"architectures":["BertModel"],"model_type":"bert","num_hidden_layers":2,)"
        R"("hidden_size":64,"num_attention_heads":4,"vocab_size":100,"max_position_embeddings":128})";
    const Workload small = resolve_workload(short_model, in, embedded::model_presets());
    CHECK(small.seq == 128);
    CHECK(small.batch == 4);
    // What applies to generation is refused by name, with what to give instead.
    const auto fails = [](test::Values v, const char* text) {
        Request r = test::request(v);
        r.set(Field::Model, "bge-m3", "--model");
        CHECK_THROWS_WITH(resolve_workload(r, {}, embedded::model_presets()),
                          Catch::Contains(text));
    };
    fails({{Field::Gen, "64"}}, "--gen does not apply to an embedding model");
    fails({{Field::Prompt, "64"}}, "use --seq");
    fails({{Field::KvDtype, "fp8"}}, "keeps no KV cache");
    fails({{Field::Draft, "1B"}}, "speculative decoding");
    fails({{Field::Users, "8"}}, "use --batch");
    fails({{Field::Method, "lora"}}, "is not modelled: use --method inference");
}

TEST_CASE("the fields of generation are refused for a pooling model, each with its fix") {
    // The whole message, for the fields the case above does not reach.
    const auto message = [](const char* model, Field f, const char* value) -> std::string {
        Request r = test::request({{f, value}});
        r.set(Field::Model, model, "--model");
        try {
            resolve_workload(r, {}, embedded::model_presets());
        } catch (const InputError& e) {
            return e.what();
        }
        return "accepted";
    };
    struct Refused {
        Field field;
        const char* value;
        const char* flag;
        const char* fix;
    };
    const Refused cases[] = {
        {Field::Rps, "2", "--rps", "use --batch for the sequences run at once"},
        {Field::Ttft, "2s", "--ttft",
         "there is no first token; the JSON's batch_seconds is a batch's latency"},
        {Field::Tpot, "50ms", "--tpot", "nothing is decoded; the speed is sequences a second"},
        {Field::TokSPerUser, "20", "--tok-s-per-user",
         "nothing is decoded; the speed is sequences a second"},
        {Field::DraftTokens, "4", "--draft-tokens", "speculative decoding applies to generation"},
        {Field::DraftAcceptance, "0.7", "--draft-acceptance",
         "speculative decoding applies to generation"},
        {Field::Images, "1", "--images", "the model reads text only"},
        {Field::ImageSize, "512", "--image-size", "the model reads text only"},
    };
    for (const Refused& c : cases)
        CHECK(message("bge-m3", c.field, c.value) ==
              fmt::format("{} does not apply to an embedding model (bge-m3): {}", c.flag, c.fix));
    CHECK_THAT(message("qwen3-reranker-0.6b", Field::Tpot, "50ms"),
               Catch::StartsWith("--tpot does not apply to a reranker model "
                                 "(qwen3-reranker-0.6b): nothing is decoded; "
                                 "the speed is sequences a second"));
    // The rows that say so are these thirteen, and what pools takes the rest.
    std::vector<Field> refused;
    for (const FieldSpec& s : field_specs())
        if (!s.generating_only.empty()) refused.push_back(s.field);
    CHECK(refused == std::vector<Field>{Field::KvDtype, Field::Prompt, Field::Gen, Field::Images,
                                        Field::ImageSize, Field::Users, Field::Rps, Field::Ttft,
                                        Field::Tpot, Field::TokSPerUser, Field::Draft,
                                        Field::DraftTokens, Field::DraftAcceptance});
    CHECK(message("bge-m3", Field::Seq, "256") == "accepted");
    CHECK(message("bge-m3", Field::Context, "256") == "accepted");
}

TEST_CASE("pinned formula: an embedding forward keeps no KV cache, one layer's peak") {
    const Workload w =
        test::workload({{Field::Model, "bge-m3"}, {Field::Batch, "8"}, {Field::Seq, "256"}},
                       embedded::model_presets());
    const MemoryEstimate m = estimate_memory(w);
    CHECK(m.get(&Components::kv_cache) == 0);
    // 8 x 256 tokens x 2 bytes x (2h + 2q + 2kv + 3 x FFN) with h = q = kv = 1024, FFN 4096.
    const double per_token = 2.0 * (2 * 1024 + 2 * 1024 + 2 * 1024 + 3 * 4096);
    CHECK(static_cast<double>(m.get(&Components::activations)) ==
          Approx(8 * 256 * per_token).epsilon(1e-9));
    // The pooled vectors: 8 x 1024 x (2 + 4) bytes.
    CHECK(m.get(&Components::logits) == 8U * 1024U * 6U);
    // llama.cpp runs whole sequences per micro-batch of 512 tokens: two at once.
    const Workload l = test::workload({{Field::Model, "bge-m3"},
                                       {Field::Batch, "8"},
                                       {Field::Seq, "256"},
                                       {Field::Engine, "llama.cpp"}},
                                      embedded::model_presets());
    CHECK(pooled_sequences_at_once(l) == 2);
    const Workload one = test::workload(
        {{Field::Model, "bge-m3"}, {Field::Seq, "2048"}, {Field::Engine, "llama.cpp"}},
        embedded::model_presets());
    CHECK(pooled_sequences_at_once(one) == 1);
}

TEST_CASE("pinned formula: sequences a second are the batch over one forward's time") {
    const Workload w = test::workload({{Field::Model, "bge-m3"},
                                       {Field::Batch, "64"},
                                       {Field::Seq, "512"},
                                       {Field::Engine, "vllm"}},
                                      embedded::model_presets());
    const MemoryEstimate m = estimate_memory(w);
    const Gpu gpu = test::round_card();
    const Performance p = estimate_performance(w, m, gpu);
    REQUIRE(p.sequences_per_s);
    REQUIRE(p.batch_seconds);
    CHECK(*p.sequences_per_s == Approx(64.0 / *p.batch_seconds));
    CHECK(*p.prefill_tokens_per_s == Approx(64.0 * 512.0 / *p.batch_seconds));
    CHECK_FALSE(p.decode_tokens_per_s);
    CHECK_FALSE(p.time_to_first_token_s);
    CHECK(p.rate() == p.sequences_per_s);
    CHECK(p.tokens_per_s() == p.prefill_tokens_per_s);
    // Compute-bound: 2 FLOPs per block weight per token (the embedding table
    // is a lookup) and attention both ways, 4 s^2 d per layer per sequence.
    CHECK(p.bound == Bound::Compute);
    const double linear = 24.0 * (4.0 * 1024 * 1024 + 2.0 * 1024 * 4096);
    const double flops = 64.0 * (2.0 * linear * 512 + 4.0 * 24 * 512.0 * 512.0 * 1024);
    // The engine's host time: its cost per layer and per forward.
    const Engine& vllm = *find_engine("vllm");
    const double host = 24 * vllm.layer_overhead_s + vllm.step_overhead_s;
    const double seconds_per_flop = (*p.batch_seconds - host) / flops;
    // The same model at twice the sequences takes twice the matmul time.
    const Workload twice = test::workload({{Field::Model, "bge-m3"},
                                           {Field::Batch, "128"},
                                           {Field::Seq, "512"},
                                           {Field::Engine, "vllm"}},
                                          embedded::model_presets());
    const Performance q = estimate_performance(twice, estimate_memory(twice), gpu);
    CHECK((*q.batch_seconds - host) / (2.0 * flops) == Approx(seconds_per_flop).epsilon(1e-9));
    // A decoder's causal attention costs half of an encoder's per pair.
    const Workload dec = test::workload({{Field::Model, "qwen3-embedding-0.6b"},
                                         {Field::Batch, "1"},
                                         {Field::Seq, "4096"},
                                         {Field::Engine, "vllm"}},
                                        embedded::model_presets());
    CHECK_FALSE(dec.model.arch.encoder_only);
    CHECK(estimate_performance(dec, estimate_memory(dec), gpu).sequences_per_s);
}
