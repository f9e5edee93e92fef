// Embedding and reranker models end to end: the ranking compares sequences a
// second, the JSON says what the model is for and how fast it embeds, a
// corpus becomes a job, an engine's launch serves pooling, and what only a
// generating model has is refused by name.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/run_gpuadvise.hpp"

using gpuadvise_test::run;
using gpuadvise_test::run_json;

TEST_CASE("embedding: estimate answers sequences a second, with no KV cache and no decode") {
    const auto doc = run_json({"estimate", "--model", "bge-m3", "--gpu", "rtx-4090"});
    const auto& w = doc.at("workload");
    CHECK(w.at("architecture").at("task") == "embed");
    CHECK(w.at("batch") == 32);
    CHECK(w.at("seq") == 512);
    CHECK(w.at("gen") == 0);
    CHECK(doc.at("memory").at("components").at("kv_cache_bytes") == 0);
    const auto& p = doc.at("plan").at("performance");
    CHECK(p.at("decode_tokens_per_s").is_null());
    CHECK(p.at("time_to_first_token_s").is_null());
    const double seqs = p.at("sequences_per_s").get<double>();
    const double batch = p.at("batch_seconds").get<double>();
    CHECK(seqs == Approx(32.0 / batch).epsilon(0.01));
    CHECK(p.at("prefill_tokens_per_s").get<double>() == Approx(seqs * 512).epsilon(0.01));
    // A generating model's JSON says so, with the new fields null.
    const auto chat = run_json({"estimate", "--model", "8B", "--gpu", "rtx-4090"});
    CHECK(chat.at("workload").at("architecture").at("task") == "generate");
    CHECK(chat.at("plan").at("performance").at("sequences_per_s").is_null());
    // The table names the speed it computed.
    const auto text = run({"estimate", "--model", "bge-m3", "--gpu", "rtx-4090"});
    CHECK(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("one forward per sequence (no KV cache)") &&
                             Catch::Contains("seq/s") && Catch::Contains("per batch"));
}

TEST_CASE("embedding: longer sequences cost more a sequence, more sequences fill the card") {
    const auto at = [](const char* seq, const char* batch) {
        return run_json({"estimate", "--model", "qwen3-embedding-8b", "--gpu", "h100-sxm5", "--seq",
                         seq, "--batch", batch})
            .at("plan");
    };
    const auto short_seq = at("512", "32"), long_seq = at("8192", "32");
    CHECK(long_seq.at("performance").at("sequences_per_s").get<double>() <
          short_seq.at("performance").at("sequences_per_s").get<double>() / 10);
    CHECK(long_seq.at("per_gpu_bytes").get<double>() > short_seq.at("per_gpu_bytes").get<double>());
    // No KV cache: a batch twice as large grows only the forward's activations.
    const auto big = at("512", "64");
    CHECK(big.at("per_gpu_bytes").get<double>() <
          1.2 * short_seq.at("per_gpu_bytes").get<double>());
}

TEST_CASE("embedding: the ranking compares sequences a second and a corpus is a job") {
    const auto text = run({"--model", "bge-m3", "--top", "3"});
    CHECK(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("seq/s") && Catch::Contains(" seq/s per $1k"));
    // --tokens: the corpus to embed, its hours and cost.
    const auto doc = run_json({"--model", "bge-m3", "--tokens", "1e9", "--top", "3"});
    const auto& r = doc.at("recommendations").at(0).at("performance");
    const double tokens_per_s = r.at("prefill_tokens_per_s").get<double>();
    CHECK(r.at("job_hours").get<double>() == Approx(1e9 / tokens_per_s / 3600).epsilon(0.01));
    CHECK(doc.at("recommendations").at(0).contains("curve"));
    CHECK(doc.at("recommendations").at(0).at("curve").is_null());
    CHECK(doc.at("recommendations").at(0).at("load").is_null());
}

TEST_CASE("embedding: the launch command serves a pooling model") {
    const auto vllm =
        run_json({"estimate", "--model", "bge-m3", "--gpu", "rtx-4090", "--emit", "vllm"});
    CHECK_THAT(vllm.at("launch").at("command").get<std::string>(),
               Catch::Contains("--runner pooling"));
    const auto llama = run_json({"estimate", "--model", "qwen3-embedding-0.6b", "--quant", "q8_0",
                                 "--seq", "2048", "--gpu", "rtx-4090", "--emit", "llama-server"});
    const std::string cmd = llama.at("launch").at("command").get<std::string>();
    CHECK_THAT(cmd, Catch::Contains("--embedding") && Catch::Contains("-ub 2048"));
    // A chat model's launch is unchanged.
    const auto chat =
        run_json({"estimate", "--model", "8B", "--gpu", "rtx-4090", "--emit", "vllm"});
    CHECK_THAT(chat.at("launch").at("command").get<std::string>(),
               !Catch::Contains("--runner pooling"));
}

TEST_CASE("embedding: a user's config.json of a reranker, and what does not apply") {
    const auto r = run({"estimate", "--model", "bge-m3", "--gen", "10"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--gen does not apply to an embedding model (bge-m3)"));
    const auto t = run({"estimate", "--model", "qwen3-embedding-4b", "--method", "lora"});
    CHECK(t.exit_code == 2);
    CHECK_THAT(t.err, Catch::Contains("training one") && Catch::Contains("is not modelled"));
    // A user's reranker config.json: XLMRobertaForSequenceClassification
    // scores each pair with its classification head.
    const std::string config =
        R"({"architectures":["XLMRobertaForSequenceClassification"],"model_type":"xlm-roberta",)"
        R"("num_hidden_layers":24,"hidden_size":1024,"intermediate_size":4096,)"
        R"("num_attention_heads":16,"vocab_size":250002,"max_position_embeddings":8194,)"
        R"("type_vocab_size":1,"id2label":{"0":"LABEL_0"}})";
    gpuadvise_test::Options o;
    o.stdin_text = config;
    const auto rr = run_json({"estimate", "--hf-config", "-", "--gpu", "rtx-4090"}, {0}, o);
    CHECK(rr.at("workload").at("architecture").at("task") == "rerank");
    CHECK(rr.at("workload").at("architecture").at("classifier_labels") == 1);
    CHECK(rr.at("workload").at("params") == 567755777);
    CHECK(rr.at("plan").at("performance").at("sequences_per_s").get<double>() > 0);
}
