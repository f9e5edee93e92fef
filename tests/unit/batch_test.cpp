#include "gpuadvise/batch.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gpuadvise/embedded.hpp"

using namespace gpuadvise;

namespace {

nlohmann::json line(std::string_view text, std::size_t number = 1) {
    const BatchLineResult r =
        run_batch_line(text, number, embedded::catalog(), embedded::model_presets());
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
        run_batch_line("{", 1, embedded::catalog(), embedded::model_presets());
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
