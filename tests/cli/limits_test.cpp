// A plan's limits are what `check` answers: the longest context fits and one
// token more does not; the largest batch fits and one more does not. Also
// for offloaded plans (--offload auto re-plans the split at each size, as
// `check` does) and training plans.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/run_gpuadvise.hpp"

using gpuadvise_test::run;
using gpuadvise_test::run_json;

namespace {

// The plan's arguments with `flag` set to `value` (replaced when given).
std::vector<std::string> with(std::vector<std::string> a, const std::string& flag,
                              std::int64_t value) {
    const auto at = std::find(a.begin(), a.end(), flag);
    if (at != a.end()) {
        *(at + 1) = std::to_string(value);
        return a;
    }
    a.push_back(flag);
    a.push_back(std::to_string(value));
    return a;
}

}  // namespace

TEST_CASE("limits agree with check: the maximum fits and one more does not") {
    const std::vector<std::vector<std::string>> plans{
        {"check", "--model", "llama-3.1-8b", "--gpu", "rtx-4090"},
        {"check", "--model", "llama-3.1-70b", "--quant", "q4_k_m", "--engine", "llama.cpp", "--gpu",
         "rtx-3090", "--gpus", "2"},
        {"check", "--model", "qwen3-30b-a3b", "--quant", "q4_k_m", "--engine", "llama.cpp", "--gpu",
         "rtx-4060ti-8gb", "--offload", "auto", "--seq", "8192"},
        {"check", "--model", "llama-3.1-8b", "--method", "lora", "--gpu", "rtx-4090", "--batch",
         "2"},
    };
    for (const auto& plan : plans) {
        INFO(gpuadvise_test::joined(plan));
        const auto doc = run_json(plan);
        REQUIRE(doc.at("plan").at("fits") == true);
        const auto& limits = doc.at("plan").at("limits");
        const std::int64_t context = limits.at("max_context_tokens").get<std::int64_t>();
        const std::int64_t batch = limits.at("max_batch").get<std::int64_t>();
        REQUIRE(context > 0);  // a plan that fits has a context that fits
        REQUIRE(batch > 0);
        CHECK(run(with(plan, "--seq", context)).exit_code == 0);
        if (!limits.at("context_capped_by_model").get<bool>())
            CHECK(run(with(plan, "--seq", context + 1)).exit_code == 1);
        CHECK(run(with(plan, "--batch", batch)).exit_code == 0);
        if (batch < 65536) CHECK(run(with(plan, "--batch", batch + 1)).exit_code == 1);
    }
}
