// End-to-end: --gguf, --safetensors and --model-dir on files the test writes.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/gguf_builder.hpp"
#include "support/run_gpuadvise.hpp"
#include "support/run_process.hpp"
#include "support/safetensors_builder.hpp"
#include "support/temp_files.hpp"

namespace {

ProcessResult run_cli(std::vector<std::string> args) {
    return gpuadvise_test::run(std::move(args));
}

using safetensors_test::safetensors;

}  // namespace

TEST_CASE("GGUF files: --gguf reads the shape and exact weight bytes from the file header") {
    TempDir dir;
    const auto b = gguf_test::tiny_llama(false);
    const std::string path =
        dir.write("tiny.gguf", b.header() + std::string(b.file_size() - b.header().size(), '\0'));
    const auto r = run_cli({"estimate", "--gguf", path, "--json"});
    REQUIRE(r.exit_code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["workload"]["model_origin"] == "gguf");
    CHECK(doc["workload"]["architecture"]["layers"] == 2);
    CHECK(doc["workload"]["architecture"]["kv_heads"] == 2);
    CHECK(doc["workload"]["engine"] == "llama.cpp");
    // llama.cpp keeps the token embedding (256 x 1000 of the file's weights) on the host.
    const double file = doc["workload"]["weight_bytes"].get<double>();
    const double device = doc["memory"]["components"]["weights_bytes"].get<double>();
    CHECK(device < file);
    CHECK(device > 0.5 * file);
    CHECK(doc["workload"]["file_quantization"] == "Q4_K");
    // corrupt and truncated files are one-line input errors
    const std::string bad = dir.write("bad.gguf", "GGUX" + std::string(64, '\0'));
    const auto wrong = run_cli({"--gguf", bad});
    CHECK(wrong.exit_code == 2);
    CHECK(std::count(wrong.err.begin(), wrong.err.end(), '\n') == 1);
    CHECK_THAT(wrong.err, Catch::Contains("bad.gguf"));
    const std::string cut = dir.write("cut.gguf", b.header().substr(0, 40));
    CHECK(run_cli({"--gguf", cut}).exit_code == 2);
    CHECK(run_cli({"--gguf", dir.path("missing.gguf")}).exit_code == 2);
    CHECK(run_cli({"--gguf", path, "--method", "lora"}).exit_code == 2);
    CHECK(run_cli({"--gguf", path, "--model", "8B"}).exit_code == 2);
}

TEST_CASE(
    "safetensors files: --safetensors and --model-dir count parameters and bytes from the "
    "headers") {
    TempDir dir;
    nlohmann::json h;
    h["__metadata__"] = {{"format", "pt"}};
    h["a.weight"] = {{"dtype", "BF16"}, {"shape", {1000, 64}}, {"data_offsets", {0, 128000}}};
    h["b.weight"] = {{"dtype", "BF16"}, {"shape", {64}}, {"data_offsets", {128000, 128128}}};
    const std::string file = dir.write("model.safetensors", safetensors(h, 128128));
    const auto r = run_cli({"estimate", "--safetensors", file, "--json"});
    REQUIRE(r.exit_code == 0);
    auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["workload"]["params"] == 64064);
    CHECK(doc["workload"]["weight_bytes"] == 128128);
    dir.write(
        "config.json",
        R"({"model_type":"llama","num_hidden_layers":1,"hidden_size":64,"num_attention_heads":4,
        "intermediate_size":128,"vocab_size":100})");
    const auto folder = run_cli({"estimate", "--model-dir", dir.path(""), "--json"});
    REQUIRE(folder.exit_code == 0);
    doc = nlohmann::json::parse(folder.out);
    CHECK(doc["workload"]["architecture"]["hidden"] == 64);
    CHECK(doc["workload"]["architecture"]["inferred"] == false);
    CHECK(doc["memory"]["components"]["weights_bytes"] == 128128);
    // a header that claims more bytes than the file holds
    const std::string lying = dir.write("lying.safetensors", safetensors(h, 10));
    const auto e = run_cli({"--safetensors", lying});
    CHECK(e.exit_code == 2);
    CHECK_THAT(e.err, Catch::Contains("lying.safetensors"));
    CHECK(run_cli({"--model-dir", dir.path("nothing-here")}).exit_code == 2);
}
