#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/units.hpp"
#include "support/request.hpp"

using namespace gpuadvise;

TEST_CASE("the JSON and the tables show the same numbers") {
    const Workload w = test::workload({{Field::Model, "8B"}, {Field::Method, "qlora"}});
    RankOptions o;
    o.describe_top = 5;
    const auto recs = rank(w, embedded::catalog(), o);
    const MemoryEstimate m = estimate(w);
    const auto doc = nlohmann::json::parse(recommend_json(w, m, recs, 5, o));
    const Table t = recommendations_table(w, recs, 5);
    REQUIRE(t.rows.size() == 5);
    REQUIRE(doc["recommendations"].size() == 5);
    for (std::size_t i = 0; i < 5; ++i) {
        const auto& j = doc["recommendations"][i];
        CHECK(t.rows[i][1] == j["gpu"].get<std::string>());
        CHECK(t.rows[i][2] == std::to_string(j["count"].get<int>()));
        CHECK(t.rows[i][8] == format_rate(j["performance"]["train_tokens_per_s"].get<double>()));
    }
    const Table mt = memory_table(m);
    // Every non-zero component is a row; the JSON has every component.
    std::size_t nonzero = 0;
    for (const auto b : m.bytes) nonzero += b > 0 ? 1 : 0;
    CHECK(mt.rows.size() >= nonzero + 2);
    CHECK(doc["memory"]["components"].size() == kComponentNames.size());
}

TEST_CASE("rates are rounded the same everywhere and never print a non-finite number") {
    CHECK(rounded_rate(1234.567) == 1235);
    CHECK(rounded_rate(0.012345) == Approx(0.0123));
    CHECK_FALSE(rounded_rate(std::numeric_limits<double>::infinity()));
    CHECK_FALSE(rounded_rate(std::nullopt));
    CHECK(format_rate(std::nullopt) == "-");
}

TEST_CASE("text reports sanitise names that came from files") {
    ModelInputs in;
    in.hf_config_text =
        R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"intermediate_size":128,"vocab_size":100})";
    in.hf_config_source = "evil\x1b[2Jname.json";
    const Workload w = test::workload({}, {}, in);
    const std::string text = workload_text(w);
    CHECK(text.find('\x1b') == std::string::npos);
    const auto doc = nlohmann::json::parse(estimate_json(w, estimate(w)));
    CHECK(doc["workload"]["model"] == "evil [2Jname.json");
}

TEST_CASE("rules list their thresholds in JSON and in the table") {
    const auto doc = nlohmann::json::parse(rules_json());
    bool found = false;
    for (const auto& r : doc["rules"])
        if (r["id"] == "thin-headroom") {
            found = true;
            CHECK(r["thresholds"][0]["value"] == 0.1);
        }
    CHECK(found);
    bool shown = false;
    for (const auto& row : rules_table().rows)
        shown = shown || row[2].find("min_headroom_share = 0.1") != std::string::npos;
    CHECK(shown);
}

namespace {
using gpuadvise::kGiB;
}
TEST_CASE("memory bars fill the cells by component and mark a need over the card") {
    MemoryEstimate m;
    const auto at = [](double gpuadvise::Components::*member) {
        for (std::size_t i = 0; i < gpuadvise::kComponentNames.size(); ++i)
            if (gpuadvise::kComponentNames[i].member == member) return i;
        return std::size_t{0};
    };
    m.bytes[at(&gpuadvise::Components::weights)] = 4 * kGiB;
    m.bytes[at(&gpuadvise::Components::kv_cache)] = 2 * kGiB;
    m.bytes[at(&gpuadvise::Components::runtime)] = 2 * kGiB;
    m.per_gpu_bytes = 8 * kGiB;
    CHECK(memory_bar(m, 20 * kGiB, Bars::Ascii) == "##=+......");
    CHECK(memory_bar(m, 16 * kGiB, Bars::None).empty());
    CHECK(memory_bar(m, 4 * kGiB, Bars::Ascii).back() == '!');
    const std::string u = memory_bar(m, 16 * kGiB, Bars::Unicode);
    CHECK(u.size() == 10 * 3);  // ten three-byte block characters
}
