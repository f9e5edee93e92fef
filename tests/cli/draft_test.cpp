// Speculative decoding end to end (--draft, issue 24): a target with a draft
// model and with its own MTP layers, the draft as its own memory component
// in the table and the JSON, the speed with and without it, and each bad
// input one stderr line naming its flag (exit 2).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/run_gpuadvise.hpp"

using gpuadvise_test::run;
using gpuadvise_test::run_json;
using nlohmann::json;

namespace {

const std::vector<std::string> kTarget{"estimate", "--model", "llama-3.1-70b", "--gpu",
                                       "h100-sxm5"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

TEST_CASE("draft: 70B with a Llama 3.2 1B draft on an H100: the draft's memory and speed") {
    const json plain = run_json(kTarget);
    const json drafted = run_json(with(kTarget, {"--draft", "llama-3.2-1b"}));
    const json& d = drafted.at("workload").at("draft");
    CHECK(d.at("model") == "llama-3.2-1b");
    CHECK(d.at("kind") == "draft-model");
    CHECK(d.at("draft_tokens") == 5);  // vLLM has no default: assumed, and said so
    CHECK(d.at("draft_tokens_assumed").get<bool>());
    CHECK(d.at("acceptance").get<double>() == Approx(0.71));
    CHECK_THAT(d.at("acceptance_basis").get<std::string>(), Catch::Contains("Leviathan"));
    CHECK(plain.at("workload").at("draft").is_null());

    // Memory: the draft is its own component; everything else is unchanged.
    const json& with_c = drafted.at("memory").at("components");
    const json& without_c = plain.at("memory").at("components");
    const auto draft_bytes = with_c.at("draft_bytes").get<std::uint64_t>();
    CHECK(without_c.at("draft_bytes") == 0);
    // 1.24B parameters in bf16 plus its KV cache: 2.3 to 3 GiB.
    CHECK(draft_bytes > 2'400'000'000ULL);
    CHECK(draft_bytes < 3'300'000'000ULL);
    CHECK(with_c.at("weights_bytes") == without_c.at("weights_bytes"));
    CHECK(with_c.at("kv_cache_bytes") == without_c.at("kv_cache_bytes"));
    CHECK(drafted.at("memory").at("per_gpu_bytes").get<std::uint64_t>() >=
          plain.at("memory").at("per_gpu_bytes").get<std::uint64_t>() + draft_bytes);

    // Speed: faster at batch 1 (memory-bound), with the rate without it reported.
    const json& spec = drafted.at("performance").at("speculative");
    const double with_rate = drafted.at("performance").at("decode_tokens_per_s").get<double>();
    const double without_rate = plain.at("performance").at("decode_tokens_per_s").get<double>();
    CHECK(spec.at("decode_tokens_per_s_without_draft").get<double>() ==
          Approx(without_rate).epsilon(0.01));
    CHECK(with_rate > 1.5 * without_rate);
    CHECK(spec.at("tokens_per_step").get<double>() == Approx(3.01).epsilon(0.01));
    CHECK(plain.at("performance").at("speculative").is_null());

    // The table shows the component and both rates.
    const ProcessResult text = run(with(kTarget, {"--draft", "llama-3.2-1b"}));
    CHECK(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("  draft      llama-3.2-1b") &&
                             Catch::Contains("without draft") && Catch::Contains("an estimate"));
}

TEST_CASE("draft: --draft-acceptance and --draft-tokens are used as given") {
    const json low = run_json(with(kTarget, {"--draft", "1B", "--draft-acceptance", "0.3",
                                             "--draft-tokens", "3", "--quant", "fp8"}));
    const json high = run_json(with(kTarget, {"--draft", "1B", "--draft-acceptance", "0.9",
                                              "--draft-tokens", "3", "--quant", "fp8"}));
    CHECK(low.at("workload").at("draft").at("acceptance_given").get<bool>());
    CHECK(low.at("performance").at("speculative").at("draft_tokens") == 3);
    CHECK(high.at("performance").at("decode_tokens_per_s").get<double>() >
          low.at("performance").at("decode_tokens_per_s").get<double>());
    // The memory does not depend on the acceptance rate.
    CHECK(low.at("memory").at("per_gpu_bytes") == high.at("memory").at("per_gpu_bytes"));
}

TEST_CASE("draft: a checkpoint's MTP layers, counted in its weights or not") {
    // DeepSeek-V3's published 671B leaves its MTP module out: the draft adds it.
    const json ds = run_json({"estimate", "--model", "deepseek-v3", "--draft", "mtp", "--gpu",
                              "h200-sxm", "--gpus", "8"});
    const json& d = ds.at("workload").at("draft");
    CHECK(d.at("kind") == "mtp");
    CHECK(d.at("draft_tokens") == 1);  // vLLM: the checkpoint's num_nextn_predict_layers
    CHECK_FALSE(d.at("draft_tokens_assumed").get<bool>());
    CHECK_FALSE(d.at("weights_in_model").get<bool>());
    CHECK(d.at("acceptance").get<double>() == Approx(0.85));
    // About 13.5B parameters in FP8 over 8 GPUs: over a GiB each.
    CHECK(ds.at("memory").at("components").at("draft_bytes").get<std::uint64_t>() > 1'000'000'000);
    // GLM-4.5-Air's count holds its MTP layer: only its one layer of KV cache is added.
    const json glm = run_json({"estimate", "--model", "glm-4.5-air", "--draft", "mtp"});
    CHECK(glm.at("workload").at("draft").at("weights_in_model").get<bool>());
    CHECK(glm.at("memory").at("components").at("draft_bytes").get<std::uint64_t>() < 50'000'000);
}

TEST_CASE("draft: llama.cpp drafts its documented 16 tokens") {
    const json doc = run_json({"estimate", "--model", "llama-3.1-70b", "--quant", "q4_k_m",
                               "--engine", "llama.cpp", "--draft", "llama-3.2-1b"});
    CHECK(doc.at("workload").at("draft").at("draft_tokens") == 16);
    CHECK_FALSE(doc.at("workload").at("draft").at("draft_tokens_assumed").get<bool>());
}

TEST_CASE("draft: bad input is one line naming the flag, exit 2") {
    struct Case {
        std::vector<std::string> args;
        std::string expect;
    };
    const std::vector<Case> cases{
        {{"estimate", "--model", "llama-3.1-70b", "--draft", "mtp"}, "--draft mtp"},
        {{"estimate", "--model", "llama-3.1-70b", "--draft", "llama-3.2-1bb"},
         "did you mean 'llama-3.2-1b'"},
        {{"estimate", "--model", "1B", "--draft", "8B"}, "--draft '8B'"},
        {{"estimate", "--model", "8B", "--draft", "1B", "--method", "lora"}, "--draft applies"},
        {{"estimate", "--model", "8B", "--draft-tokens", "4"}, "--draft-tokens"},
        {{"estimate", "--model", "8B", "--draft", "1B", "--draft-tokens", "0"}, "--draft-tokens"},
        {{"estimate", "--model", "8B", "--draft", "1B", "--draft-tokens", "500"}, "--draft-tokens"},
        {{"estimate", "--model", "8B", "--draft", "1B", "--draft-acceptance", "1.5"},
         "--draft-acceptance"},
        {{"estimate", "--model", "8B", "--draft", "1B", "--engine", "ollama"}, "--draft '1B'"},
        {{"estimate", "--model", "deepseek-v3", "--quant", "q4_k_m", "--engine", "llama.cpp",
          "--draft", "mtp"},
         "llama.cpp runs no multi-token-prediction drafting"},
        {{"estimate", "--model", "sdxl", "--draft", "1B"}, "--draft"},
        {{"fit", "--gpu", "rtx-4090", "--draft", "1B"}, "--draft"},
    };
    for (const Case& c : cases) {
        INFO(gpuadvise_test::joined(c.args));
        const ProcessResult r = run(c.args);
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK_THAT(r.err, Catch::StartsWith("gpuadvise: ") && Catch::Contains(c.expect));
    }
}
