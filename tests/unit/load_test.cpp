// Serving sized by its load: latency parsing, --users/--rps/--context as the
// batch and the context, and the curve of a plan over the batch.
#include "gpuadvise/load.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/units.hpp"
#include "support/request.hpp"

using namespace gpuadvise;

TEST_CASE(
    "latencies: seconds and milliseconds, and no unit, an unknown one or an extreme is refused") {
    CHECK(parse_latency_seconds("2s", "--ttft", "2s") == Approx(2.0));
    CHECK(parse_latency_seconds("500ms", "--ttft", "2s") == Approx(0.5));
    CHECK(parse_latency_seconds("50 ms", "--tpot", "50ms") == Approx(0.05));
    CHECK(parse_latency_seconds("1min", "--ttft", "2s") == Approx(60.0));
    for (const char* bad : {"5x", "50", "ms", "-5ms", "0s", "2h", "1e9s", "", "nan s"}) {
        INFO(bad);
        CHECK_THROWS_WITH(parse_latency_seconds(bad, "--tpot", "50ms"), Catch::Contains("--tpot"));
    }
}

TEST_CASE(
    "load: --users is the batch, --context the tokens each session holds, --rps by Little law") {
    const auto& presets = embedded::model_presets();
    const Workload a = test::workload({{Field::Model, "8B"},
                                       {Field::Users, "32"},
                                       {Field::Context, "8192"},
                                       {Field::Tpot, "50ms"}},
                                      presets);
    CHECK(a.batch == 32);
    CHECK(a.seq == 8192);
    CHECK(a.load.given);
    REQUIRE(a.load.min_user_tokens_per_s);
    CHECK(*a.load.min_user_tokens_per_s == Approx(20.0));
    CHECK(a.load.speed_target == "--tpot 50ms");
    // 2 requests a second, each 1 s to its first token and 512 tokens at 20 tok/s:
    // 2 x (1 + 25.6) = 53.2, so 54 sessions in flight.
    const Workload r = test::workload({{Field::Model, "8B"},
                                       {Field::Rps, "2"},
                                       {Field::Context, "4096"},
                                       {Field::Gen, "512"},
                                       {Field::Ttft, "1s"},
                                       {Field::TokSPerUser, "20"}},
                                      presets);
    CHECK(r.batch == 54);
    CHECK_THROWS_WITH(
        test::workload({{Field::Model, "8B"}, {Field::Users, "4"}, {Field::Batch, "4"}}),
        Catch::Contains("--users") && Catch::Contains("--batch"));
    CHECK_THROWS_WITH(
        test::workload({{Field::Model, "8B"}, {Field::Context, "4096"}, {Field::Seq, "4096"}}),
        Catch::Contains("--context") && Catch::Contains("--seq"));
    CHECK_THROWS_WITH(test::workload({{Field::Model, "8B"}, {Field::Rps, "2"}}),
                      Catch::Contains("--rps") && Catch::Contains("--tpot"));
    CHECK_THROWS_WITH(
        test::workload({{Field::Model, "8B"}, {Field::Tpot, "50ms"}, {Field::TokSPerUser, "20"}}),
        Catch::Contains("--tok-s-per-user"));
    CHECK_THROWS_WITH(
        test::workload({{Field::Model, "8B"}, {Field::Method, "lora"}, {Field::Users, "4"}}),
        Catch::Contains("--users"));
}

TEST_CASE(
    "a plan's curve: memory rises with the batch, each session's speed falls, and the last point "
    "is the largest batch that fits") {
    const Catalog& catalog = embedded::catalog();
    const Gpu& h100 = resolve_gpu(catalog, "h100-sxm5", "--gpu");
    Workload w = test::workload({{Field::Model, "llama-3.1-8b"}, {Field::Context, "8192"}},
                                embedded::model_presets());
    RankOptions o;
    Recommendation rec = evaluate_plan(w, h100, 1, o);
    REQUIRE(rec.fits);
    const std::vector<const Gpu*> cards{&h100};
    add_plan_curve(rec, w, cards, o);
    REQUIRE(rec.curve);
    const auto& c = *rec.curve;
    REQUIRE(c.size() > 3);
    for (std::size_t i = 1; i < c.size(); ++i) {
        INFO(c[i].batch);
        CHECK(c[i].batch > c[i - 1].batch);
        CHECK(c[i].fits);
        CHECK(c[i].per_gpu_bytes > c[i - 1].per_gpu_bytes);
        REQUIRE(c[i].per_user_tokens_per_s);
        CHECK(*c[i].per_user_tokens_per_s <= *c[i - 1].per_user_tokens_per_s);
        CHECK(c[i].decode_tokens_per_s >= c[i - 1].decode_tokens_per_s);
    }
    // One more session than the last point does not fit.
    Workload more = w;
    more.batch = c.back().batch + 1;
    CHECK_FALSE(evaluate_plan(more, h100, 1, o, nullptr, Detail::Numbers).fits);
    // A latency target caps the users the plan holds below what memory allows.
    Workload fast = test::workload(
        {{Field::Model, "llama-3.1-8b"}, {Field::Context, "8192"}, {Field::TokSPerUser, "60"}},
        embedded::model_presets());
    Recommendation capped = evaluate_plan(fast, h100, 1, o);
    add_plan_curve(capped, fast, cards, o);
    REQUIRE(capped.curve);
    CHECK(capped.curve->back().batch < c.back().batch);
    CHECK(*capped.curve->back().per_user_tokens_per_s >= 60.0);
}
