// Speculative decoding (--draft): Leviathan et al.'s tokens per step on known
// values, the data file's checks, the draft's memory component, and the
// properties that must hold whatever the numbers: a higher acceptance rate is
// never slower, and a draft never makes a plan fit that did not fit without it.
#include "gpuadvise/speculative.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/rank.hpp"
#include "support/request.hpp"

using namespace gpuadvise;

namespace {

Workload make(test::Values v) {
    return test::workload(v, embedded::model_presets());
}

const Gpu& card(std::string_view id) {
    return resolve_gpu(embedded::catalog(), id, "test");
}

}  // namespace

TEST_CASE("tokens per step: (1 - a^(K+1)) / (1 - a), Leviathan et al. 2023 eq. 1") {
    // a = 0.5, K = 1: 1 + 0.5.
    CHECK(expected_tokens_per_step(0.5, 1) == Approx(1.5));
    // a = 0.5, K = 3: 1 + 0.5 + 0.25 + 0.125.
    CHECK(expected_tokens_per_step(0.5, 3) == Approx(1.875));
    // a = 0.8, K = 4: (1 - 0.8^5) / 0.2 = 3.3616.
    CHECK(expected_tokens_per_step(0.8, 4) == Approx(3.3616));
    // The paper's Figure 2 reading: a = 0.71 (LaMDA 137B / 2B), K = 5: 3.0145.
    CHECK(expected_tokens_per_step(0.71, 5) == Approx((1.0 - std::pow(0.71, 6)) / 0.29));
    // The limits: nothing accepted is one token (the target's own); all
    // accepted is K + 1; no draft tokens is one.
    CHECK(expected_tokens_per_step(0.0, 5) == Approx(1.0));
    CHECK(expected_tokens_per_step(1.0, 5) == Approx(6.0));
    CHECK(expected_tokens_per_step(0.7, 0) == Approx(1.0));
    // Continuous at 1.
    CHECK(expected_tokens_per_step(0.999999, 5) == Approx(6.0).epsilon(1e-4));
}

TEST_CASE("a step's rate: batch x tokens per step over K draft steps plus the verification") {
    // K = 4 draft steps of 1 ms and a 20 ms verification: 24 ms for 3.3616 tokens.
    CHECK(speculative_tokens_per_s(1, 4, 0.8, 0.001, 0.020) == Approx(3.3616 / 0.024));
    CHECK(speculative_tokens_per_s(8, 4, 0.8, 0.001, 0.020) == Approx(8 * 3.3616 / 0.024));
    CHECK(speculative_tokens_per_s(1, 4, 0.8, 0, 0) == 0.0);
}

TEST_CASE("the embedded data: acceptance rows with sources, engine defaults") {
    const SpeculativeData& d = speculative_data();
    for (const AcceptanceRow& row : d.acceptance) {
        CHECK_FALSE(row.source.empty());
        CHECK(row.alpha > 0);
        CHECK(row.alpha < 1);
    }
    // A 70B target with a 1.24B draft (57x) takes the LaMDA 137B / 2B row (68x).
    const AcceptanceRow* row = typical_acceptance(d, DraftKind::Model, 70.55e9, 1.236e9);
    REQUIRE(row != nullptr);
    CHECK(row->draft == "LaMDA 2B");
    CHECK(row->alpha == Approx(0.71));
    // 8B with a 1B draft (8x) is nearest the 137B / 8B row (17x).
    CHECK(typical_acceptance(d, DraftKind::Model, 8e9, 1e9)->alpha == Approx(0.75));
    CHECK(typical_acceptance(d, DraftKind::Mtp, 671e9, 0)->alpha == Approx(0.85));
    REQUIRE(d.engine("llama.cpp") != nullptr);
    CHECK(d.engine("llama.cpp")->draft_tokens == 16);
    REQUIRE(d.engine("vllm") != nullptr);
    CHECK_FALSE(d.engine("vllm")->draft_tokens);
    CHECK(d.engine("vllm")->mtp_tokens_from_checkpoint);
    CHECK(d.engine("ollama") == nullptr);
}

TEST_CASE("the data parser refuses a row without its source or out of range") {
    const std::string ok_engines =
        R"("engines": [], "assumed_draft_tokens": 5, "assumed_draft_tokens_source": "s")";
    const auto doc = [&](const std::string& rows) {
        return "{\"acceptance\": [" + rows + "], " + ok_engines + "}";
    };
    const std::string mtp =
        R"({"method": "mtp", "target": "t", "draft": "d", "alpha": 0.8, "sampling": "s", )"
        R"("cite": "c", "source": "s"})";
    const std::string model =
        R"({"method": "draft-model", "target": "t", "target_params": 1e10, "draft": "d", )"
        R"("draft_params": 1e9, "alpha": 0.7, "sampling": "s", "cite": "c", "source": "s"})";
    CHECK_NOTHROW(parse_speculative(doc(mtp + "," + model), "x.json"));
    CHECK_THROWS_AS(parse_speculative(doc(mtp), "x.json"), InputError);  // no draft-model row
    std::string no_source = model;
    no_source.replace(no_source.find(R"(, "source": "s")"), 15, "");
    CHECK_THROWS_AS(parse_speculative(doc(mtp + "," + no_source), "x.json"), InputError);
    std::string one = model;
    one.replace(one.find("0.7"), 3, "1.0");
    CHECK_THROWS_AS(parse_speculative(doc(mtp + "," + one), "x.json"), InputError);
}

TEST_CASE("the draft's memory: its weights and KV cache, and the target's K extra positions") {
    using F = Field;
    const Workload plain = make({{F::Model, "llama-3.1-70b"}});
    const Workload w = make({{F::Model, "llama-3.1-70b"}, {F::Draft, "llama-3.2-1b"}});
    REQUIRE(w.speculation);
    CHECK(w.speculation->tokens == 5);
    CHECK(w.speculation->tokens_assumed);
    const DraftMemory d = draft_memory(w);
    // Llama 3.2 1B: 1,235,814,400 parameters in bf16 (its embedding tied).
    CHECK(d.weights == Approx(1235814400.0 * 2.0).epsilon(0.01));
    // Its KV cache: 16 layers x 8 KV heads x 64 dims x K and V x 2 bytes x 4096 tokens.
    CHECK(d.kv_cache == Approx(16.0 * 8 * 64 * 2 * 2 * 4096));
    // The target's: 80 layers x 8 x 128 x 2 x 2 bytes for each of the 5 drafted positions.
    CHECK(d.lookahead_kv == Approx(80.0 * 8 * 128 * 2 * 2 * 5));
    const MemoryEstimate with = estimate(w), without = estimate(plain);
    CHECK(static_cast<double>(with.get(&Components::draft)) == Approx(d.total()).epsilon(1e-6));
    CHECK(without.get(&Components::draft) == 0);
    CHECK(with.get(&Components::weights) == without.get(&Components::weights));
    // Tensor parallel splits the draft as the target.
    const Workload tp = make({{F::Model, "llama-3.1-70b"},
                              {F::Draft, "llama-3.2-1b"},
                              {F::Gpus, "4"},
                              {F::Parallel, "tp"}});
    CHECK(static_cast<double>(estimate(tp).get(&Components::draft)) ==
          Approx(d.total() / 4.0).epsilon(1e-6));
    // In the plan's format: FP8 for the linear weights (the embedding stays 16-bit).
    const Workload fp8 =
        make({{F::Model, "llama-3.1-70b"}, {F::Quant, "fp8"}, {F::Draft, "llama-3.2-1b"}});
    CHECK(draft_memory(fp8).weights < 0.65 * d.weights);
}

TEST_CASE("MTP: DeepSeek-V3's module is added, GLM-4.5's is already in the weights") {
    using F = Field;
    const Workload ds = make({{F::Model, "deepseek-v3"}, {F::Draft, "mtp"}});
    REQUIRE(ds.speculation);
    CHECK(ds.speculation->mtp());
    CHECK_FALSE(ds.speculation->weights_in_target);
    CHECK(ds.speculation->tokens == 1);
    // The module as the checkpoint stores it: about 14B (DeepSeek-V3's model
    // card: "685B ... includes 671B of the Main Model weights and 14B of the
    // Multi-Token Prediction (MTP) Module weights").
    CHECK(static_cast<double>(ds.speculation->draft.params) == Approx(13.5e9).epsilon(0.05));
    CHECK(draft_memory(ds).weights > 0);
    const Workload glm = make({{F::Model, "glm-4.5-air"}, {F::Draft, "mtp"}});
    CHECK(glm.speculation->weights_in_target);
    const DraftMemory g = draft_memory(glm);
    CHECK(g.weights == 0);
    CHECK(g.read_weights > 0);  // a draft step still reads the layer
    // One layer's KV cache: a 47th of the model's 46 layers' and its own.
    const Workload plain = make({{F::Model, "glm-4.5-air"}});
    CHECK(g.kv_cache == Approx(static_cast<double>(estimate(plain).get(&Components::kv_cache)) /
                               static_cast<double>(plain.model.arch.kv_layers()))
                            .epsilon(0.01));
}

TEST_CASE("property: a higher acceptance rate never decodes slower") {
    using F = Field;
    const Gpu& h100 = card("h100-sxm5");
    for (const char* batch : {"1", "8", "64"})
        for (const char* k : {"1", "4", "8"}) {
            double last = 0;
            for (const char* p : {"0", "0.2", "0.5", "0.7", "0.9", "1"}) {
                const Workload w = make({{F::Model, "llama-3.1-8b"},
                                         {F::Draft, "llama-3.2-1b"},
                                         {F::Batch, batch},
                                         {F::DraftTokens, k},
                                         {F::DraftAcceptance, p}});
                const Performance perf = estimate_performance(w, estimate(w), h100);
                INFO("batch " << batch << ", K " << k << ", acceptance " << p);
                REQUIRE(perf.decode_tokens_per_s);
                CHECK(*perf.decode_tokens_per_s >= last);
                last = *perf.decode_tokens_per_s;
            }
        }
}

TEST_CASE("property: the gain shrinks with the batch, as verification turns compute-bound") {
    using F = Field;
    const Gpu& h100 = card("h100-sxm5");
    double last = 1e9;
    for (const char* batch : {"1", "16", "128", "512"}) {
        const Workload w = make({{F::Model, "llama-3.1-8b"},
                                 {F::Draft, "llama-3.2-1b"},
                                 {F::Batch, batch},
                                 {F::Seq, "1024"}});
        const Performance perf = estimate_performance(w, estimate(w), h100);
        REQUIRE(perf.speculative);
        INFO("batch " << batch);
        CHECK(perf.speculative->speedup <= last);
        last = perf.speculative->speedup;
    }
    CHECK(last < 1.0);  // at 512 sequences the draft costs more than it saves
}

TEST_CASE("property: a draft never makes a plan fit that did not fit without it") {
    using F = Field;
    RankOptions options;
    for (const char* model : {"llama-3.1-8b", "llama-3.1-70b", "qwen2.5-32b"})
        for (const char* quant : {"none", "fp8", "awq-int4"})
            for (const char* gpu : {"rtx-4090", "l40s", "h100-sxm5", "a100-80gb-pcie"})
                for (std::int64_t count : {1, 2, 4}) {
                    const Workload plain = make({{F::Model, model}, {F::Quant, quant}});
                    const Workload drafted =
                        make({{F::Model, model}, {F::Quant, quant}, {F::Draft, "1B"}});
                    const Recommendation a = evaluate_plan(plain, card(gpu), count, options);
                    const Recommendation b = evaluate_plan(drafted, card(gpu), count, options);
                    INFO(model << " " << quant << " on " << count << " x " << gpu);
                    CHECK(b.memory.per_gpu_bytes >= a.memory.per_gpu_bytes);
                    if (b.fits) CHECK(a.fits);
                }
}

TEST_CASE("the draft's defaults are said, with their sources") {
    using F = Field;
    const Workload w = make({{F::Model, "llama-3.1-70b"}, {F::Draft, "llama-3.2-1b"}});
    const auto said = [&](std::string_view what) {
        for (const auto& a : w.assumed)
            if (a.find(what) != std::string::npos) return true;
        return false;
    };
    CHECK(said("draft-tokens=5 (assumed"));
    CHECK(said("draft-acceptance=0.71"));
    CHECK(said("Leviathan"));
    // A size is a draft of the target's family: its vocabulary.
    const Workload sized = make({{F::Model, "llama-3.1-70b"}, {F::Draft, "1B"}});
    CHECK(sized.speculation->draft.arch.vocab == sized.model.arch.vocab);
    // A preset with another tokenizer is accepted with a warning.
    const Workload other = make({{F::Model, "llama-3.1-70b"}, {F::Draft, "qwen2.5-0.5b"}});
    bool warned = false;
    for (const auto& x : other.warnings)
        warned = warned || x.find("tokenizer") != std::string::npos;
    CHECK(warned);
}
