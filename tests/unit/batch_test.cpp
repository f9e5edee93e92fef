#include "gpuadvise/batch.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gpuadvise/calibration.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/workload.hpp"

using namespace gpuadvise;

namespace {

nlohmann::json line(std::string_view text, std::size_t number = 1) {
    const BatchLineResult r =
        run_batch_line(text, number, {embedded::catalog(), embedded::model_presets()});
    return nlohmann::json::parse(r.json);
}

}  // namespace

TEST_CASE("a batch line is the CLI's workload, keyed by the field table") {
    const auto j = line(R"({"model":"8B","method":"qlora","lora_rank":16,"grad_ckpt":false})");
    CHECK(j["schema"] == 1);
    CHECK(j["line"] == 1);
    CHECK(j["workload"]["lora_rank"] == 16);
    CHECK(j["workload"]["grad_ckpt"] == false);
    CHECK(j["memory"]["per_gpu_bytes"].get<std::uint64_t>() > 0);
    CHECK_FALSE(j.contains("recommendations"));
}

TEST_CASE("gpu checks one card and top ranks the catalog") {
    const auto j = line(R"({"model":"8B","gpu":"rtx-4090","top":3})");
    CHECK(j["check"]["gpu"] == "nvidia-rtx-4090");
    CHECK(j["recommendations"].size() == 3);
}

TEST_CASE("a bad line is an error object naming the key, and the line goes on being one line") {
    CHECK_THAT(line(R"({"model":"8B","bacth":4})", 7)["error"].get<std::string>(),
               Catch::Contains("unknown key 'bacth'") && Catch::Contains("did you mean \"batch\""));
    CHECK(line(R"({"model":"8B","bacth":4})", 7)["line"] == 7);
    CHECK_THAT(line(R"({"model":"8B","batch":18446744073709551615})")["error"].get<std::string>(),
               Catch::Contains("\"batch\" '18446744073709551615' is too large"));
    CHECK_THAT(line(R"({"model":"8B","model":"9B"})")["error"].get<std::string>(),
               Catch::Contains("appears twice"));
    CHECK_THAT(line("[1]")["error"].get<std::string>(), Catch::Contains("JSON object"));
    CHECK_THAT(line(R"({"model":"8B","grad_ckpt":"yes"})")["error"].get<std::string>(),
               Catch::Contains("true or false"));
    CHECK_THAT(line(R"({"hf_config":"x.json"})")["error"].get<std::string>(),
               Catch::Contains("unknown key 'hf_config'"));
    const BatchLineResult r =
        run_batch_line("{", 1, {embedded::catalog(), embedded::model_presets()});
    CHECK_FALSE(r.ok);
    CHECK(r.json.find('\n') == std::string::npos);
}

TEST_CASE("the batch keys are the batchable fields of the table") {
    const auto keys = batch_keys();
    for (const char* k : {"model", "method", "batch", "gpu", "top", "rank_by", "os", "task",
                          "max_gpus", "kwh_price"})
        CHECK(std::find(keys.begin(), keys.end(), k) != keys.end());
    for (const char* k : {"hf_config", "gguf", "format", "json", "verbose"})
        CHECK(std::find(keys.begin(), keys.end(), k) == keys.end());
}

TEST_CASE("a batch line's gpu is the box check answers for: lists, vram, limits") {
    const auto mixed = line(
        R"({"model":"8B","gpu":"rtx-3090,rtx-3060-12gb","engine":"llama.cpp","quant":"q4_k_m"})");
    REQUIRE(mixed.contains("check"));
    CHECK(mixed["check"]["count"] == 2);
    CHECK(mixed["check"]["placement"].size() == 2);
    const auto one = line(R"({"model":"8B","gpu":"rtx-4090"})");
    REQUIRE(one["check"]["fits"] == true);
    CHECK(one["check"]["limits"]["max_context_tokens"].get<std::int64_t>() > 4096);
    CHECK(one["check"]["limits"]["max_batch"].get<std::int64_t>() >= 1);
    // The same card with less memory: the laptop variant does not hold it.
    const auto small = line(R"({"model":"8B","gpu":"rtx-4090","vram":"12GB"})");
    CHECK(small["check"]["usable_bytes"].get<double>() <
          one["check"]["usable_bytes"].get<double>());
    CHECK(small["check"]["fits"] == false);
}

TEST_CASE("a key a batch line would ignore is an error of the line") {
    const auto error = [](std::string_view text) {
        const auto j = line(text);
        REQUIRE(j.contains("error"));
        return j["error"].get<std::string>();
    };
    CHECK_THAT(error(R"({"model":"8B","emit":"vllm"})"), Catch::Contains("\"emit\""));
    CHECK_THAT(error(R"({"model":"8B","budget":1000})"),
               Catch::Contains("\"budget\" applies to the ranking"));
    CHECK_THAT(error(R"({"model":"8B","rank_by":"speed"})"), Catch::Contains("add \"top\""));
    CHECK_THAT(error(R"({"model":"8B","vram":"12GB"})"), Catch::Contains("add \"gpu\""));
    CHECK_THAT(error(R"({"model":"8B","max_gpus":4})"), Catch::Contains("\"max_gpus\""));
    CHECK_THAT(error(R"({"model":"8B","gpu":"local"})"), Catch::Contains("name their cards"));
    // With "top" the ranking keys apply.
    CHECK(line(R"({"model":"8B","budget":3000,"top":2})")["recommendations"].size() <= 2);
}

TEST_CASE("a batch line applies the calibration the flags would") {
    Calibration cal;
    cal.source = "cal.jsonl";
    const std::string_view text = R"({"model":"llama-3.1-8b","method":"lora"})";
    const auto plain = line(text);
    Request r;
    r.set(Field::Model, "llama-3.1-8b", "--model");
    r.set(Field::Method, "lora", "--method");
    const Workload w = resolve_workload(r, {}, embedded::model_presets());
    CalibrationRecord rec;
    rec.key = calibration_key(w);
    rec.metric = MemoryMetric::Allocated;
    rec.measured_bytes = 1e10;
    rec.estimated_bytes = 1e10;
    rec.memory_factor = 0.8;
    cal.records.push_back(rec);
    const BatchLineResult calibrated =
        run_batch_line(text, 1, {embedded::catalog(), embedded::model_presets(), &cal});
    const auto j = nlohmann::json::parse(calibrated.json);
    CHECK(j["memory"]["per_gpu_bytes"].get<double>() <
          plain["memory"]["per_gpu_bytes"].get<double>());
}

TEST_CASE("a line that asks again is answered from the run's memo, as if new") {
    BatchMemo memo;
    const BatchContext with{embedded::catalog(), embedded::model_presets(), nullptr, &memo};
    const BatchContext without{embedded::catalog(), embedded::model_presets()};
    const std::string a = R"({"model":"8B","gpu":"rtx-4090"})";
    const std::string b = R"({"model":"8B","gpu":"rtx-3090"})";
    const std::string c = R"({"model":"8B","gpu":"rtx-4090","context":8192})";
    // Each line, its second asking and a run without a memo give the same
    // text, but for the line number.
    for (const std::string& text : {a, b, c, a, b, c}) {
        const BatchLineResult fresh = run_batch_line(text, 7, without);
        const BatchLineResult kept = run_batch_line(text, 7, with);
        REQUIRE(fresh.ok);
        CHECK(kept.json == fresh.json);
    }
    const auto first = nlohmann::json::parse(run_batch_line(a, 1, with).json);
    const auto again = nlohmann::json::parse(run_batch_line(a, 2, with).json);
    CHECK(again["line"] == 2);
    CHECK(again["check"] == first["check"]);
    // Lines that differ in a member are different questions.
    const auto other = nlohmann::json::parse(run_batch_line(c, 3, with).json);
    CHECK(other["check"] != first["check"]);
    // A line that fails is not kept: it fails again, with its own number.
    const BatchLineResult bad = run_batch_line(R"({"model":"8B","gpu":"no-such-card"})", 4, with);
    CHECK_FALSE(bad.ok);
    CHECK(run_batch_line(R"({"model":"8B","gpu":"no-such-card"})", 5, with).json ==
          run_batch_line(R"({"model":"8B","gpu":"no-such-card"})", 5, without).json);
}
