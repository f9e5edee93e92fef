// Serving sized by its load, end to end: every plan that fits meets the
// targets it was ranked under, a box's curve ends at the users it holds (one
// more does not fit), and a bad latency is one line naming its flag.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/run_gpuadvise.hpp"

using gpuadvise_test::run;
using gpuadvise_test::run_json;
using nlohmann::json;

TEST_CASE("load: 32 users at 8k context and 50 ms per token: every fitting plan meets it") {
    const json doc = run_json(
        {"--model", "llama-3.1-8b", "--users", "32", "--context", "8192", "--tpot", "50ms"});
    std::size_t fitting = 0;
    for (const auto& r : doc.at("recommendations")) {
        if (!r.at("fits").get<bool>()) continue;
        ++fitting;
        INFO(r.at("gpu").get<std::string>() << " x" << r.at("count").get<int>());
        const json& load = r.at("load");
        if (load.is_null()) continue;  // not a shown plan
        CHECK(load.at("meets").get<bool>());
        CHECK(load.at("users") == 32);
        CHECK(load.at("context_tokens") == 8192);
        if (load.at("per_user_tokens_per_s").is_number())
            CHECK(load.at("per_user_tokens_per_s").get<double>() >= 20.0);
        REQUIRE(r.at("curve").is_array());
        const json& last = r.at("curve").back();
        CHECK(last.at("fits").get<bool>());
        CHECK(last.at("batch").get<int>() >= 32);
    }
    CHECK(fitting > 0);
}

TEST_CASE("load: a box's curve ends at the users it holds at 8k context") {
    const std::vector<std::string> ask{"estimate", "--gpu", "h100-sxm5", "--model", "llama-3.1-70b",
                                       "--quant",  "fp8",   "--context", "8192"};
    const json doc = run_json(ask);
    const json& plan = doc.at("plan");
    REQUIRE(plan.at("curve").is_array());
    const json& curve = plan.at("curve");
    REQUIRE_FALSE(curve.empty());
    const json& last = curve.back();
    REQUIRE(last.at("fits").get<bool>());
    // The last point is the largest batch: the limits' max_batch, and one more misses.
    CHECK(last.at("batch") == plan.at("limits").at("max_batch"));
    for (std::size_t i = 1; i < curve.size(); ++i) {
        CHECK(curve[i].at("per_gpu_bytes").get<double>() >
              curve[i - 1].at("per_gpu_bytes").get<double>());
        CHECK(curve[i].at("per_user_tokens_per_s").get<double>() <=
              curve[i - 1].at("per_user_tokens_per_s").get<double>());
    }
    std::vector<std::string> more = ask;
    more.insert(more.end(), {"--users", std::to_string(last.at("batch").get<int>() + 1)});
    CHECK_FALSE(run_json(more).at("plan").at("fits").get<bool>());
    // The text says it too.
    const auto text = run(ask);
    CHECK(text.out.find("holds " + std::to_string(last.at("batch").get<int>()) + " user") !=
          std::string::npos);
}

TEST_CASE("load: a bad --tpot is exit 2 with one stderr line naming it") {
    const auto r = run({"--model", "llama-3.1-8b", "--users", "8", "--tpot", "5x"});
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("--tpot") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
