// The JSON contract as schemas: every --json output of the real binary,
// over many workloads, validates against its file in docs/schema/; the
// schema files are complete and agree with each other; and the validator
// itself rejects what it must.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "json_schema_validator.hpp"
#include "support/run_gpuadvise.hpp"
#include "support/run_process.hpp"
#include "support/temp_files.hpp"

namespace {

using gpuadvise_test::JsonSchemaValidator;
using nlohmann::json;
using Args = std::vector<std::string>;

const std::filesystem::path kSchemaDir =
    std::filesystem::path(GPUADVISE_SOURCE_DIR) / "docs" / "schema";

const std::vector<std::string> kSchemaNames{"recommend", "estimate", "estimate-gpu", "check",
                                            "gpus",      "gpu-show", "models",       "rules",
                                            "detect",    "fit"};

json read_json_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    INFO("reading " << path.string());
    REQUIRE(in.good());
    return json::parse(in);
}

const JsonSchemaValidator& schema(const std::string& name) {
    static std::map<std::string, JsonSchemaValidator> cache;
    auto it = cache.find(name);
    if (it == cache.end())
        it = cache
                 .emplace(name,
                          JsonSchemaValidator(read_json_file(kSchemaDir / (name + ".schema.json"))))
                 .first;
    return it->second;
}

std::string joined(const Args& args) {
    std::string out = "gpuadvise";
    for (const auto& a : args) out += " " + a;
    return out;
}

// Runs gpuadvise and parses stdout (support/run_gpuadvise.hpp); the exit
// code must be one of `codes`.
json run_json(const Args& args, const std::set<int>& codes = {0},
              const std::string& stdin_text = "") {
    gpuadvise_test::Options o;
    o.stdin_text = stdin_text;
    Args with_json = args;
    // The shared helper adds --json; these argument lists already hold it
    // where the document needs it, so it is taken out first.
    with_json.erase(std::remove(with_json.begin(), with_json.end(), "--json"), with_json.end());
    return gpuadvise_test::run_json(with_json, codes, o);
}

void check_valid(const std::string& schema_name, const json& doc, const Args& args) {
    const auto errors = schema(schema_name).validate(doc);
    INFO(joined(args) << "\nagainst docs/schema/" << schema_name << ".schema.json:\n"
                      << JsonSchemaValidator::describe(errors));
    CHECK(errors.empty());
}

json run_and_validate(const std::string& schema_name, const Args& args,
                      const std::set<int>& codes = {0}, const std::string& stdin_text = "") {
    json doc = run_json(args, codes, stdin_text);
    check_valid(schema_name, doc, args);
    return doc;
}

Args cat(Args a, const Args& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Workloads that reach every branch of the workload and memory schemas:
// inference, full, LoRA, QLoRA, fixed task needs, both estimators, MoE,
// encoder-only and encoder-decoder presets, GGUF on llama.cpp, multi-GPU
// plans, jobs with time and cost, and edge values.
const std::vector<Args> kWorkloads{
    {"--model", "8B"},
    {"--model", "8B", "--method", "qlora"},
    {"--model", "8B", "--method", "lora"},
    {"--model", "8B", "--method", "full"},
    {"--model", "8B", "--method", "full", "--gpus", "4", "--parallel", "fsdp"},
    {"--model", "13B", "--method", "full", "--gpus", "8", "--parallel", "zero3"},
    {"--model", "70B", "--gpus", "4", "--parallel", "tp"},
    {"--model", "70B", "--gpus", "4", "--parallel", "pp"},
    {"--task", "sdxl"},
    {"--task", "video"},
    {"--model", "wan2.1-t2v-14b", "--frames", "81", "--resolution", "832x480"},
    {"--model", "wan2.2-t2v-a14b", "--cpu-offload", "model"},
    {"--task", "qlora-7b"},
    {"--task", "serve-70b"},
    {"--model", "8B", "--tokens", "1B"},
    {"--model", "8B", "--method", "full", "--tokens", "1B"},
    {"--model", "8B", "--method", "qlora", "--tokens", "1B", "--cloud-price-per-gpu-hour", "2"},
    {"--model", "8B", "--method", "full", "--steps", "1000"},
    {"--model", "8B", "--method", "lora", "--epochs", "2", "--dataset-tokens", "50M"},
    {"--model", "8B", "--quant", "q4_k_m", "--engine", "llama.cpp"},
    {"--model", "llama-3.1-8b", "--quant", "q8_0", "--engine", "llama.cpp", "--tokens", "1B"},
    {"--model", "8B", "--quant", "awq-int4", "--engine", "autoawq"},
    {"--model", "8B", "--quant", "fp8", "--kv-dtype", "fp8"},
    {"--model", "llama-3.1-8b", "--users", "32", "--context", "8192", "--tpot", "50ms"},
    {"--model", "8B", "--rps", "2", "--ttft", "2s", "--tok-s-per-user", "20"},
    {"--model", "8B", "--method", "full", "--precision", "fp16", "--estimator", "doc"},
    {"--model", "8B", "--method", "lora", "--estimator", "doc"},
    {"--model", "mixtral-8x7b"},
    {"--model", "deepseek-v3", "--quant", "int4"},
    {"--model", "bert-large-uncased"},
    {"--model", "flan-t5-large", "--method", "full"},
    {"--model", "qwen3-30b-a3b", "--method", "lora", "--lora-targets", "all-linear", "--lora-rank",
     "16"},
    {"--model", "8B", "--method", "full", "--optimizer", "adamw-8bit", "--chunked-loss",
     "--optimizer-in-backward", "--no-grad-ckpt", "--mixed-precision", "pure", "--precision",
     "bf16"},
    {"--model", "8B", "--mixed-precision", "amp"},
    {"--model", "8B", "--seq", "1", "--batch", "64", "--no-flash-attn"},
    {"--model", "405B", "--method", "full"},
    {"--model", "8B", "--parallel", "tp"},
    // Speculative decoding: a draft model, a checkpoint's MTP layers, llama.cpp's draft.
    {"--model", "llama-3.1-70b", "--draft", "llama-3.2-1b"},
    {"--model", "deepseek-v3", "--draft", "mtp", "--draft-acceptance", "0.9"},
    {"--model", "8B", "--quant", "q4_k_m", "--engine", "llama.cpp", "--draft", "1B",
     "--draft-tokens", "8"},
    // A vision-language request's images (issue 24): workload.images, image_encode_seconds.
    {"--model", "qwen2.5-vl-7b", "--images", "4", "--image-size", "1280x720"},
    {"--model", "llama-3.2-90b-vision", "--method", "lora", "--images", "2", "--image-size",
     "1120x560"},
};

// One card of each vendor, platform, link and form factor, and one without a price.
const std::vector<std::string> kCards{
    "4090", "h100-sxm5", "mi300x", "arc-a770-16gb", "apple-m2-ultra-76c-192gb", "b200"};

}  // namespace

// --- the schema files ---------------------------------------------------

TEST_CASE("schema: every schema file loads, is draft 2020-12, closed and describes every field") {
    for (const auto& name : kSchemaNames) {
        INFO(name);
        const json doc = read_json_file(kSchemaDir / (name + ".schema.json"));
        REQUIRE_NOTHROW(JsonSchemaValidator(doc));
        CHECK(doc["$schema"] == "https://json-schema.org/draft/2020-12/schema");
        CHECK(doc["required"].front() == "schema");
        const auto& defs = doc["$defs"];
        CHECK(defs["schema_version"]["const"] == 1);
        CHECK(defs["schema_version"]["type"] == "integer");

        // Every object with properties is closed, and every property has a
        // description, on itself or on the $defs entry it refers to.
        std::vector<std::pair<std::string, const json*>> todo{{"#", &doc}};
        while (!todo.empty()) {
            const auto [where, node] = todo.back();
            todo.pop_back();
            if (node->is_object()) {
                if (node->contains("properties")) {
                    INFO(where);
                    CHECK(node->value("additionalProperties", json(true)) == false);
                    for (const auto& [key, sub] : (*node)["properties"].items()) {
                        bool described = sub.contains("description");
                        if (!described && sub.contains("$ref")) {
                            const json::json_pointer target(
                                sub["$ref"].get<std::string>().substr(1));
                            described =
                                doc.contains(target) && doc.at(target).contains("description");
                        }
                        INFO("property " << key);
                        CHECK(described);
                    }
                }
                for (const auto& [key, sub] : node->items())
                    if (key != "enum" && key != "const") todo.emplace_back(where + "/" + key, &sub);
            } else if (node->is_array()) {
                for (std::size_t i = 0; i < node->size(); ++i)
                    todo.emplace_back(where + "/" + std::to_string(i), &(*node)[i]);
            }
        }
    }
}

TEST_CASE("schema: a $defs entry shared by several files is the same in each") {
    std::map<std::string, std::pair<std::string, json>>
        seen;  // def name -> (first file, definition)
    for (const auto& name : kSchemaNames) {
        const json doc = read_json_file(kSchemaDir / (name + ".schema.json"));
        for (const auto& [def, body] : doc["$defs"].items()) {
            const auto [it, inserted] = seen.emplace(def, std::make_pair(name, body));
            if (inserted) continue;
            INFO("$defs/" << def << " differs between " << it->second.first << ".schema.json and "
                          << name << ".schema.json");
            CHECK(body == it->second.second);
        }
    }
    for (const char* shared :
         {"workload", "memory", "performance", "recommendation", "build_sheet", "gpu"})
        CHECK(seen.count(shared) == 1);
}

TEST_CASE("schema: the enums of formats, engines and GPU fields are the data files' ids") {
    // One source of truth: data/quants.json and data/engines.json define the
    // values; the schema files must list exactly those.
    const auto ids = [](const json& list) {
        std::set<std::string> out;
        for (const auto& e : list) out.insert(e.at("id").get<std::string>());
        return out;
    };
    const std::filesystem::path data = std::filesystem::path(GPUADVISE_SOURCE_DIR) / "data";
    const std::set<std::string> quants = ids(read_json_file(data / "quants.json")["formats"]);
    std::set<std::string> engines;  // --engine takes the engines, not the libraries
    const json engine_file = read_json_file(data / "engines.json");
    for (const auto& e : engine_file["engines"])
        if (!e.value("library", false)) engines.insert(e.at("id").get<std::string>());
    REQUIRE(quants.size() > 40);
    REQUIRE(engines.size() > 10);
    std::size_t checked = 0;
    for (const auto& name : kSchemaNames) {
        const json doc = read_json_file(kSchemaDir / (name + ".schema.json"));
        const json& defs = doc["$defs"];
        if (defs.contains("quant")) {
            INFO(name << ".schema.json $defs/quant");
            CHECK(defs["quant"]["anyOf"][0]["enum"].get<std::set<std::string>>() == quants);
            ++checked;
        }
        if (defs.contains("engine")) {
            INFO(name << ".schema.json $defs/engine");
            CHECK(defs["engine"]["enum"].get<std::set<std::string>>() == engines);
            ++checked;
        }
    }
    CHECK(checked >= 8);
}

TEST_CASE("schema: docs/schema holds exactly the listed files and the README names each") {
    std::set<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(kSchemaDir)) {
        const std::string file = entry.path().filename().string();
        if (file.size() > 12 && file.substr(file.size() - 12) == ".schema.json") files.insert(file);
    }
    std::set<std::string> expected;
    for (const auto& name : kSchemaNames) expected.insert(name + ".schema.json");
    CHECK(files == expected);
    std::ifstream in(kSchemaDir / "README.md");
    REQUIRE(in.good());
    std::stringstream readme;
    readme << in.rdbuf();
    for (const auto& file : expected) {
        INFO(file);
        CHECK(readme.str().find("`" + file + "`") != std::string::npos);
    }
}

// --- the real outputs ---------------------------------------------------

// Every workload's ranking, a quarter of kWorkloads per test case so that
// ctest runs them side by side.
static void recommend_workloads(std::size_t part) {
    constexpr std::size_t kParts = 4;
    for (std::size_t i = part; i < kWorkloads.size(); i += kParts)
        if (gpuadvise_test::sampled(i / kParts, part))
            run_and_validate("recommend", cat(kWorkloads[i], {"--json", "--top", "1000"}));
}

TEST_CASE("schema: recommend --json validates for every workload (part 1 of 4)") {
    recommend_workloads(0);
}
TEST_CASE("schema: recommend --json validates for every workload (part 2 of 4)") {
    recommend_workloads(1);
}
TEST_CASE("schema: recommend --json validates for every workload (part 3 of 4)") {
    recommend_workloads(2);
}
TEST_CASE("schema: recommend --json validates for every workload (part 4 of 4)") {
    recommend_workloads(3);
}

TEST_CASE("schema: recommend --json validates for every ranking and filter") {
    for (const char* by : {"speed", "cost", "power", "memory"}) {
        run_and_validate("recommend", {"--model", "8B", "--method", "qlora", "--rank-by", by,
                                       "--json", "--top", "1000"});
        run_and_validate("recommend",
                         {"--model", "8B", "--tokens", "1B", "--rank-by", by, "--json"});
    }
    // Filters, OS reservation, budget rejections, plan limits and --format json.
    run_and_validate("recommend", {"--model", "8B", "--os", "windows", "--budget", "500", "--json",
                                   "--top", "1000"});
    run_and_validate("recommend",
                     {"--model", "70B", "--vendor", "amd", "--max-gpus", "2", "--json"});
    run_and_validate("recommend",
                     {"--model", "8B", "--segment", "workstation", "--format", "json"});
    const json none = run_and_validate(
        "recommend", {"--model", "8B", "--vendor", "apple", "--segment", "datacenter", "--json"});
    CHECK(none["recommendations"].empty());
}

TEST_CASE("schema: compare --json validates against the recommend schema") {
    for (std::size_t i = 0; i < kWorkloads.size(); ++i) {
        if (!gpuadvise_test::sampled(i)) continue;
        const Args& w = kWorkloads[i];
        const json doc = run_and_validate(
            "recommend", cat(Args{"compare", "4090", "l40s", "mi300x", "arc-a770-16gb",
                                  "apple-m2-ultra-76c-192gb", "b200"},
                             cat(w, {"--json"})));
        CHECK(doc["recommendations"].size() == 6);
    }
}

TEST_CASE("schema: estimate --json validates for every workload") {
    for (const auto& w : kWorkloads)
        run_and_validate("estimate", cat({"estimate"}, cat(w, {"--json"})));
    // A model read from a Hugging Face config.json on stdin.
    const std::string config = R"({"model_type":"llama","hidden_size":2048,"intermediate_size":5632,
        "num_hidden_layers":22,"num_attention_heads":32,"num_key_value_heads":4,"vocab_size":32000,
        "max_position_embeddings":2048})";
    const json doc =
        run_and_validate("estimate", {"estimate", "--hf-config", "-", "--json"}, {0}, config);
    CHECK(doc["workload"]["model_origin"] == "hf-config");
    run_and_validate("recommend", {"--hf-config", "-", "--method", "qlora", "--json"}, {0}, config);
}

TEST_CASE("schema: estimate --gpu --json validates for every workload and card") {
    for (std::size_t i = 0; i < kWorkloads.size(); ++i)
        for (std::size_t j = 0; j < kCards.size(); ++j)
            if (gpuadvise_test::sampled(i, j))
                run_and_validate(
                    "estimate-gpu",
                    cat({"estimate"}, cat(kWorkloads[i], {"--gpu", kCards[j], "--json"})));
}

TEST_CASE("schema: check --json validates whether the plan fits or not") {
    bool saw_fit = false, saw_miss = false;
    for (std::size_t i = 0; i < kWorkloads.size(); ++i)
        for (std::size_t j = 0; j < kCards.size(); ++j) {
            if (!gpuadvise_test::sampled(i, j)) continue;
            const json doc = run_and_validate(
                "check", cat({"check", "--gpu", kCards[j]}, cat(kWorkloads[i], {"--json"})),
                {0, 1});
            (doc["check"]["fits"] == true ? saw_fit : saw_miss) = true;
        }
    CHECK(saw_fit);
    CHECK(saw_miss);
}

TEST_CASE("schema: a miss's suggestions validate in check, estimate --gpu and recommend") {
    const Args miss{"--gpu", "rtx-4090", "--model",  "llama-3.1-8b", "--prompt", "120000",
                    "--gen", "2000",     "--engine", "llama.cpp",    "--json"};
    const json check = run_and_validate("check", cat({"check"}, miss), {1});
    CHECK(check["plan"]["suggestions"].size() >= 3);
    CHECK(check["check"]["suggestions"] == check["plan"]["suggestions"]);
    const json estimate = run_and_validate("estimate-gpu", cat({"estimate"}, miss));
    CHECK_FALSE(estimate["plan"]["suggestions"].empty());
    const json train = run_and_validate(
        "check",
        {"check", "--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--method", "full", "--json"},
        {1});
    CHECK_FALSE(train["plan"]["suggestions"].empty());
    const json none = run_and_validate(
        "recommend", {"--model", "llama-3.1-405b", "--method", "full", "--json", "--top", "5"});
    CHECK_FALSE(none["recommendations"][0]["suggestions"].empty());
}

TEST_CASE("schema: gpus, gpus show, models and rules --json validate") {
    const json all = run_and_validate("gpus", {"gpus", "--json"});
    CHECK(all["gpus"].size() >= 100);
    run_and_validate("gpus", {"gpus", "--json", "--vendor", "amd", "--sort", "bandwidth"});
    run_and_validate("gpus", {"gpus", "--json", "--supports", "fp8", "--sort", "price"});
    const json empty = run_and_validate("gpus", {"gpus", "--json", "--min-memory", "10TB"});
    CHECK(empty["gpus"].empty());
    for (const auto& g : all["gpus"])
        run_and_validate("gpu-show", {"gpus", "show", g["id"].get<std::string>(), "--json"});
    run_and_validate("models", {"models", "--json"});
    run_and_validate("rules", {"rules", "--json"});
}

TEST_CASE("schema: fit, --offload, limits and --emit validate") {
    for (const Args& a : std::vector<Args>{
             {"fit", "--gpu", "rtx-4090", "--json", "--top", "100"},
             {"fit", "--gpu", "rtx-3060-12gb", "--json", "--top", "100", "--min-context", "32768"},
             {"fit", "--gpu", "rtx-3090,rtx-3060-12gb", "--json"},
             {"fit", "--gpu", "apple-m4-max-40c", "--json", "--rank-by", "speed"},
             {"fit", "--gpu", "rtx-4090", "--json", "--method", "qlora"},
             {"fit", "--gpu", "rtx-4090", "--json", "--offload", "none", "--family", "qwen"}}) {
        const json doc = run_and_validate("fit", a);
        CHECK_FALSE(doc["models"].empty());
    }
    for (const Args& a : std::vector<Args>{
             {"estimate", "--model", "llama-3.1-70b", "--quant", "q4_k_m", "--engine", "llama.cpp",
              "--gpu", "rtx-4090", "--offload", "auto", "--json"},
             {"estimate", "--model", "qwen3-30b-a3b", "--quant", "q4_k_m", "--engine", "llama.cpp",
              "--gpu", "rtx-3060-12gb", "--offload", "auto", "--emit", "auto", "--json"}}) {
        const json doc = run_and_validate("estimate-gpu", a);
        CHECK(doc["plan"]["offload"].is_object());
        CHECK(doc["plan"]["limits"].is_object());
    }
    run_and_validate("check", {"check", "--gpu", "rtx-3090,rtx-3060-12gb", "--model", "13B",
                               "--engine", "llama.cpp", "--emit", "auto", "--json"});
    run_and_validate("recommend", {"--model", "llama-3.1-70b", "--quant", "awq-int4", "--engine",
                                   "vllm", "--emit", "auto", "--json"});
    // Issue 16: FP8 training, the chinchilla job size, the torchtitan and NeMo configs.
    for (const char* tool : {"torchtitan", "nemo", "megatron"})
        run_and_validate("estimate-gpu",
                         {"estimate", "--model",     "llama-3.1-70b", "--method",
                          "full",     "--gpu",       "h100-sxm5",     "--gpus",
                          "64",       "--seq",       "8192",          "--batch",
                          "1",        "--precision", "fp8",           "--chinchilla",
                          "--pue",    "1.2",         "--emit",        tool,
                          "--json"});
}

TEST_CASE("schema: a minimal user catalog still produces valid output") {
    TempDir dir;
    const std::string path =
        dir.write("mine.json", R"({"schema":1,"gpus":[{"id":"my-card","vendor":"nvidia",
        "name":"Mine","segment":"consumer","arch_family":"ada","memory_bytes":25769803776,
        "memory_bandwidth_gbps":1000,"software":{"platform":"cuda"},"sources":["me"]}]})");
    run_and_validate("gpus", {"gpus", "--catalog", path, "--json"});
    run_and_validate("gpu-show", {"gpus", "show", "my-card", "--catalog", path, "--json"});
    run_and_validate("recommend", {"--model", "1B", "--catalog", path, "--json"});
    run_and_validate("check",
                     {"check", "--gpu", "my-card", "--model", "1B", "--precision", "fp16",
                      "--catalog", path, "--json"},
                     {0, 1});
    run_and_validate("gpus", {"gpus", "--catalog-merge", path, "--json"});
}

// --- the validator rejects what it must ------------------------------------

namespace {

bool has_error(const std::vector<gpuadvise_test::SchemaError>& errors, const std::string& path,
               const std::string& text) {
    for (const auto& e : errors)
        if (e.path == path && e.message.find(text) != std::string::npos) return true;
    return false;
}

// Validates a changed copy of a real document and returns the errors.
std::vector<gpuadvise_test::SchemaError> errors_after(const std::string& schema_name, json doc,
                                                      const std::function<void(json&)>& change) {
    REQUIRE(schema(schema_name).is_valid(doc));
    change(doc);
    const auto errors = schema(schema_name).validate(doc);
    INFO(JsonSchemaValidator::describe(errors));
    CHECK_FALSE(errors.empty());
    return errors;
}

}  // namespace

TEST_CASE(
    "schema: real output with a wrong type, a missing or extra field or a wrong const is "
    "rejected") {
    const json rec = run_json({"--model", "8B", "--method", "qlora", "--json", "--top", "3"});
    const json est = run_json({"estimate", "--model", "8B", "--json"});
    const json gpus = run_json({"gpus", "--json", "--vendor", "nvidia"});

    SECTION("wrong type") {
        auto e = errors_after("recommend", rec,
                              [](json& d) { d["recommendations"][0]["memory_bytes"] = "24GB"; });
        CHECK(has_error(e, "/recommendations/0/memory_bytes", "expected integer, got string"));
        // A byte count written as a float breaks the contract's "byte counts are integers".
        e = errors_after("estimate", est, [](json& d) { d["memory"]["per_gpu_bytes"] = 1.5e10; });
        CHECK(has_error(e, "/memory/per_gpu_bytes", "expected integer, got number"));
        // A rate that became NaN is printed as null: a non-nullable number must reject it.
        e = errors_after("recommend", rec,
                         [](json& d) { d["recommendations"][0]["score"] = nullptr; });
        CHECK(has_error(e, "/recommendations/0/score", "expected number, got null"));
        e = errors_after("recommend", rec, [](json& d) { d["recommendations"][0]["fits"] = 1; });
        CHECK(has_error(e, "/recommendations/0/fits", "expected boolean"));
        e = errors_after("gpus", gpus, [](json& d) { d["gpus"][0]["tflops"]["bf16"] = "fast"; });
        CHECK(has_error(e, "/gpus/0/tflops/bf16", "expected number or null"));
        e = errors_after("recommend", rec,
                         [](json& d) { d["recommendations"][0]["headroom_bytes"] = 2.5; });
        CHECK(has_error(e, "/recommendations/0/headroom_bytes", "expected integer"));
    }
    SECTION("missing required field") {
        auto e = errors_after("estimate", est, [](json& d) { d["memory"].erase("per_gpu_bytes"); });
        CHECK(has_error(e, "/memory", "required property 'per_gpu_bytes' is missing"));
        e = errors_after("recommend", rec,
                         [](json& d) { d["recommendations"][1]["performance"].erase("bound"); });
        CHECK(
            has_error(e, "/recommendations/1/performance", "required property 'bound' is missing"));
        e = errors_after("recommend", rec, [](json& d) { d.erase("rank_by"); });
        CHECK(has_error(e, "", "required property 'rank_by' is missing"));
        // A training field missing from a QLoRA workload.
        e = errors_after("recommend", rec, [](json& d) { d["workload"].erase("optimizer"); });
        CHECK(has_error(e, "/workload", "required property 'optimizer' is missing"));
    }
    SECTION("extra or renamed field") {
        auto e = errors_after("recommend", rec,
                              [](json& d) { d["recommendations"][0]["memory_gb"] = 24; });
        CHECK(has_error(e, "/recommendations/0", "property 'memory_gb' is not allowed"));
        e = errors_after("estimate", est, [](json& d) {
            d["memory"]["components"]["kv_bytes"] = d["memory"]["components"]["kv_cache_bytes"];
            d["memory"]["components"].erase("kv_cache_bytes");
        });
        CHECK(has_error(e, "/memory/components", "property 'kv_bytes' is not allowed"));
        CHECK(has_error(e, "/memory/components", "required property 'kv_cache_bytes' is missing"));
        e = errors_after("estimate", est, [](json& d) { d["debug"] = true; });
        CHECK(has_error(e, "", "property 'debug' is not allowed"));
        // An inference workload may not carry training fields.
        e = errors_after("estimate", est, [](json& d) { d["workload"]["optimizer"] = "adamw"; });
        CHECK(has_error(e, "/workload", "property 'optimizer' is not allowed"));
    }
    SECTION("wrong const or enum value") {
        auto e = errors_after("recommend", rec, [](json& d) { d["schema"] = 2; });
        CHECK(has_error(e, "/schema", "expected 1, got 2"));
        e = errors_after("gpus", gpus, [](json& d) { d["schema"] = "1"; });
        CHECK(has_error(e, "/schema", "expected integer, got string"));
        e = errors_after("recommend", rec,
                         [](json& d) { d["recommendations"][0]["plan"]["strategy"] = "fsdp2"; });
        CHECK(has_error(e, "/recommendations/0/plan/strategy", "is not one of"));
        e = errors_after("recommend", rec,
                         [](json& d) { d["recommendations"][0]["performance"]["bound"] = "disk"; });
        CHECK(has_error(e, "/recommendations/0/performance/bound", "is not one of"));
        e = errors_after("estimate", est, [](json& d) { d["workload"]["quant"] = "q4_k_x"; });
        CHECK(has_error(e, "/workload/quant", "is not one of"));
        e = errors_after("estimate", est, [](json& d) { d["memory"]["estimator"] = "heuristic"; });
        CHECK(has_error(e, "/memory", "matches none of the 3 oneOf schemas"));
    }
    SECTION("negative byte count") {
        auto e = errors_after("estimate", est, [](json& d) { d["memory"]["total_bytes"] = -1; });
        CHECK(has_error(e, "/memory/total_bytes", "below the minimum 0"));
    }
}

TEST_CASE("schema validator: the supported keywords behave as the draft says") {
    const JsonSchemaValidator v(json::parse(R"({
        "type": "object",
        "properties": {
            "n": {"type": ["integer", "null"], "minimum": 1},
            "big": {"type": "integer", "minimum": -5},
            "x": {"type": "number", "minimum": 0.5},
            "s": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"},
            "list": {"type": "array", "items": {"$ref": "#/$defs/item"}, "minItems": 1},
            "either": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 10}]},
            "any": {"anyOf": [{"const": "a"}, {"enum": [1, 2, null]}]},
            "free": {"type": "object", "additionalProperties": {"type": "boolean"}},
            "never": false
        },
        "required": ["n"],
        "additionalProperties": false,
        "$defs": {"item": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"],
                           "additionalProperties": false}}
    })"));
    CHECK(v.is_valid(json::parse(R"({"n": null})")));
    CHECK(v.is_valid(json::parse(
        R"({"n": 1, "big": 18446744073709551615, "x": 0.5, "s": "ab", "list": [{"id": "a"}],
                                     "either": 3, "any": null, "free": {"a": true}})")));
    CHECK_FALSE(v.is_valid(json::parse(R"({})")));          // required
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 0})")));    // minimum
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1.0})")));  // integer literal only
    CHECK_FALSE(
        v.is_valid(json::parse(R"({"n": 1, "big": -6})")));  // negative below a negative minimum
    CHECK(v.is_valid(json::parse(R"({"n": 1, "big": -5})")));
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "x": 0.4})")));
    CHECK(v.is_valid(json::parse(R"({"n": 1, "x": 1})")));          // an integer is a number
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "s": "a"})")));  // minLength
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "s": "\u00e9\u00e9"})")));  // pattern: not a-z
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "s": "aB"})")));            // pattern
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "list": []})")));           // minItems
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "list": [{"id": 3}]})")));  // items through $ref
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "list": [{"id": "a", "x": 1}]})")));
    CHECK_FALSE(
        v.is_valid(json::parse(R"({"n": 1, "either": 12})")));  // oneOf: both branches match
    CHECK(v.is_valid(json::parse(R"({"n": 1, "either": 12.5})")));
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "either": 2.5})")));  // oneOf: none matches
    CHECK(v.is_valid(json::parse(R"({"n": 1, "any": "a"})")));
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "any": 3})")));  // anyOf
    CHECK_FALSE(
        v.is_valid(json::parse(R"({"n": 1, "free": {"a": 1}})")));    // additionalProperties schema
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "never": 1})")));  // false schema
    CHECK_FALSE(v.is_valid(json::parse(R"({"n": 1, "other": 1})")));  // additionalProperties false

    const JsonSchemaValidator length(json::parse(R"({"type": "string", "minLength": 2})"));
    CHECK(length.is_valid(json("\u00e9\u00e9")));  // two characters in four bytes
    CHECK_FALSE(length.is_valid(json("\u00e9")));

    const auto errors = v.validate(json::parse(R"({"n": "x", "list": [{"id": 3}]})"));
    CHECK(has_error(errors, "/n", "expected integer or null, got string"));
    CHECK(has_error(errors, "/list/0/id", "expected string, got integer"));
}

TEST_CASE("schema validator: a schema it cannot fully check is refused") {
    CHECK_THROWS_AS(JsonSchemaValidator(json::parse(R"({"type": "string", "maxLength": 3})")),
                    std::invalid_argument);
    CHECK_THROWS_AS(
        JsonSchemaValidator(json::parse(R"({"properties": {"a": {"format": "date"}}})")),
        std::invalid_argument);
    CHECK_THROWS_AS(JsonSchemaValidator(json::parse(R"({"$ref": "#/$defs/missing"})")),
                    std::invalid_argument);
    CHECK_THROWS_AS(JsonSchemaValidator(json::parse(R"({"$ref": "other.json#/x"})")),
                    std::invalid_argument);
    CHECK_THROWS_AS(JsonSchemaValidator(json::parse(R"({"type": "float"})")),
                    std::invalid_argument);
    CHECK_THROWS_AS(JsonSchemaValidator(json::parse(R"({"pattern": "("})")), std::invalid_argument);
    CHECK_THROWS_AS(JsonSchemaValidator(json::parse(R"({"oneOf": []})")), std::invalid_argument);
    CHECK_THROWS_AS(JsonSchemaValidator(json::parse(R"({"required": "a"})")),
                    std::invalid_argument);
    // A $ref cycle is reported, not followed forever.
    const JsonSchemaValidator cycle(
        json::parse(R"({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}})"));
    CHECK(has_error(cycle.validate(json(1)), "", "nested too deeply"));
}

TEST_CASE("detect output matches its schema, with and without accelerators") {
    // A fake nvidia-smi on a private PATH answers like a two-GPU machine.
    const auto dir = std::filesystem::temp_directory_path() / "gpuadvise-detect-schema";
    std::filesystem::create_directories(dir);
    const auto tool = dir / "nvidia-smi";
    {
        std::ofstream script(tool);
        script << "#!/bin/sh\nprintf 'NVIDIA GeForce RTX 4090, 24564 MiB, 4, 16\\nNVIDIA "
                  "A100-SXM4-80GB, 81920 MiB, 4, 16\\n'\n";
    }
    std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
    const auto found =
        run_process({GPUADVISE_BIN, "detect", "--json"}, "", {"PATH=" + dir.string()});
    REQUIRE(found.exit_code == 0);
    const json doc = json::parse(found.out);
    check_valid("detect", doc, {"detect", "--json"});
    REQUIRE(doc["gpus"].size() == 2);
    CHECK(doc["gpus"][0]["catalog_id"] == "nvidia-rtx-4090");
    CHECK(doc["gpus"][1]["catalog_id"] == "nvidia-a100-80gb-sxm");
    const auto check = run_process({GPUADVISE_BIN, "check", "--gpu", "local", "--model", "8B"}, "",
                                   {"PATH=" + dir.string()});
    CHECK(check.exit_code == 0);
    CHECK_THAT(check.out, Catch::Contains("nvidia-rtx-4090"));
    const auto none = run_process({GPUADVISE_BIN, "detect", "--json"}, "", {"PATH=/nonexistent"});
    CHECK(none.exit_code == 1);
    check_valid("detect", json::parse(none.out), {"detect", "--json"});
    std::filesystem::remove_all(dir);
}
