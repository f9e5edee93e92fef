// The bad-input matrix: every case must exit 2, print exactly one line on
// stderr that names the bad value, print nothing on stdout, and finish
// within a second.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "run_process.hpp"
#include "temp_files.hpp"

namespace {

struct Case {
    std::vector<std::string> args;  // "{dir}" is replaced by the fixture folder
    std::string expect;             // must appear in the stderr line
    std::string stdin_text = "";
};

const char* kValidGpu = R"({"id":"x","vendor":"nvidia","name":"X","segment":"consumer","arch_family":"ada",)"
                        R"("memory_bytes":25769803776,"memory_bandwidth_gbps":1000,"sources":["s"]})";

std::vector<Case> cases() {
    const std::string m = "--model";
    return {
        // --model
        {{m, "8Q"}, "'8Q'"},
        {{m, "-7B"}, "'-7B'"},
        {{m, "0"}, "'0'"},
        {{m, "1e30B"}, "'1e30B'"},
        {{m, ""}, "unknown model ''"},
        {{m, "nan"}, "'nan'"},
        {{m, "inf"}, "'inf'"},
        {{m, "1e308"}, "'1e308'"},
        {{m, "8BB"}, "'8BB'"},
        {{m, "llama-3.1-8x"}, "did you mean 'llama-3.1-8b'"},
        {{m, "ラマ"}, "unknown model"},
        {{m, std::string(5000, 'x')}, "unknown model"},
        {{m, "99999999999999999999999999B"}, "over 1e15"},
        {{}, "no model given"},
        // enums
        {{m, "8B", "--method", "qlorra"}, "did you mean 'qlora'"},
        {{m, "8B", "--method", ""}, "unknown --method ''"},
        {{m, "8B", "--precision", "bf17"}, "did you mean 'bf16'"},
        {{m, "8B", "--quant", "nf5"}, "did you mean 'nf4'"},
        {{m, "8B", "--method", "full", "--optimizer", "adamw8bit2"}, "--optimizer"},
        {{m, "8B", "--kv-dtype", "fp9"}, "--kv-dtype"},
        {{m, "8B", "--estimator", "docs"}, "did you mean 'doc'"},
        {{m, "8B", "--rank-by", "speeed"}, "did you mean 'speed'"},
        {{m, "8B", "--os", "macos"}, "--os 'macos'"},
        {{m, "8B", "--vendor", "nvida"}, "did you mean 'nvidia'"},
        {{m, "8B", "--segment", "gaming"}, "--segment 'gaming'"},
        {{m, "8B", "--gpus", "2", "--parallel", "tpp"}, "did you mean 'tp'"},
        // numbers
        {{m, "8B", "--batch", "0"}, "--batch '0'"},
        {{m, "8B", "--batch", "-1"}, "--batch '-1'"},
        {{m, "8B", "--batch", "1.5"}, "--batch '1.5'"},
        {{m, "8B", "--batch", "18446744073709551617"}, "--batch"},
        {{m, "8B", "--seq", "abc"}, "--seq 'abc'"},
        {{m, "8B", "--seq", ""}, "--seq ''"},
        {{m, "8B", "--seq", "1e9"}, "--seq '1e9'"},
        {{m, "8B", "--prompt", "0"}, "--prompt '0'"},
        {{m, "8B", "--gen", "NaN"}, "--gen 'NaN'"},
        {{m, "8B", "--gpus", "0"}, "--gpus '0'"},
        {{m, "8B", "--max-gpus", "-2"}, "--max-gpus '-2'"},
        {{m, "8B", "--budget", "-100"}, "--budget '-100'"},
        {{m, "8B", "--budget", "inf"}, "--budget 'inf'"},
        {{m, "8B", "--method", "lora", "--lora-rank", "0"}, "--lora-rank '0'"},
        {{m, "8B", "--top", "0"}, "--top"},
        // job and cost
        {{m, "8B", "--kwh-price", "abc"}, "--kwh-price 'abc'"},
        {{m, "8B", "--kwh-price", "-0.1"}, "--kwh-price '-0.1'"},
        {{m, "8B", "--tokens", "0"}, "--tokens '0'"},
        {{m, "8B", "--steps", "-5"}, "--steps '-5'"},
        {{m, "8B", "--epochs", "2"}, "--epochs needs --dataset-tokens"},
        {{m, "8B", "--tokens", "1B", "--steps", "10"}, "give the job size once"},
        {{m, "8B", "--cloud-price-per-gpu-hour", "0"}, "--cloud-price-per-gpu-hour '0'"},
        {{m, "8B", "--amortize-years", "nan"}, "--amortize-years 'nan'"},
        {{m, "8B", "--engine", "vlm"}, "did you mean 'vllm'"},
        {{m, "8B", "--quant", "q4_k_m", "--engine", "vllm"}, "only llama.cpp runs"},
        {{m, "8B", "--method", "lora", "--engine", "vllm"}, "--engine applies to --method inference"},
        {{m, "8B", "--task", "serve-7b"}, "did you mean 'serve-70b'"},
        // conflicting or meaningless combinations
        {{m, "8B", "--method", "qlora", "--quant", "none"}, "needs a quantized base"},
        {{m, "8B", "--method", "full", "--lora-rank", "8"}, "--lora-rank"},
        {{m, "8B", "--method", "full", "--quant", "int4"}, "cannot be combined"},
        {{m, "8B", "--gpus", "3", "--parallel", "tp"}, "divide evenly"},
        {{m, "8B", "--optimizer", "adamw"}, "applies to training"},
        {{m, "8B", "--grad-ckpt", "--no-grad-ckpt"}, "excludes"},
        {{m, "8B", "--seq", "100", "--prompt", "60", "--gen", "60"}, "give two of the three"},
        {{m, "8B", "--hf-config", "{dir}/ok.json"}, "give only one"},
        {{m, "8B", "--method", "lora", "--lora-targets", "q,x"}, "--lora-targets module 'x'"},
        {{m, "8B", "--double-quant"}, "--double-quant"},
        // unknown flags and commands
        {{m, "8B", "--bogus"}, "--bogus"},
        {{m, "8B", "stray"}, "stray"},
        {{"check", m, "8B"}, "--gpu is required"},
        {{"check", "--gpu", "rtx4900", m, "8B"}, "did you mean 'nvidia-rtx-4090'"},
        {{"check", "--gpu", "a100", m, "8B"}, "ambiguous"},
        {{"gpus", "show", "nope-9000"}, "unknown GPU 'nope-9000'"},
        {{"gpus", "--min-memory", "48QB"}, "'48QB'"},
        {{"gpus", "--min-bandwidth", "-1TB/s"}, "'-1TB/s'"},
        {{"gpus", "--supports", "fp7"}, "did you mean"},
        {{"gpus", "--sort", "speed"}, "--sort 'speed'"},
        // files
        {{m, "8B", "--catalog", "{dir}/missing.json"}, "missing.json' cannot be read"},
        {{m, "8B", "--catalog", "{dir}/empty.json"}, "empty"},
        {{m, "8B", "--catalog", "{dir}/malformed.json"}, "not valid JSON"},
        {{m, "8B", "--catalog", "{dir}/wrongtype.json"}, "/gpus/0/memory_bytes"},
        {{m, "8B", "--catalog", "{dir}/deep.json"}, "/gpus/0/tflops/bf16"},
        {{m, "8B", "--catalog", "{dir}/unknownkey.json"}, "/gpus/0/colour"},
        {{m, "8B", "--catalog", "{dir}/dupe.json"}, "appears twice"},
        {{m, "8B", "--catalog", "{dir}"}, "is a directory"},
        {{m, "8B", "--catalog-merge", "{dir}/noid.json"}, "/gpus/0/id"},
        {{"--hf-config", "{dir}/missing.json"}, "cannot be read"},
        {{"--hf-config", "{dir}/malformed.json"}, "not valid JSON"},
        {{"--hf-config", "{dir}/noshape.json"}, "missing the model shape"},
        {{"--hf-config", "{dir}/negative.json"}, "'hidden_size' must not be negative"},
        {{"--hf-config", "{dir}/huge.json"}, "implausibly large"},
        {{"--hf-config", "{dir}/strtype.json"}, "'num_hidden_layers' must be an integer"},
        {{"--hf-config", "-"}, "empty", ""},
        {{"--hf-config", "-"}, "not valid JSON", "{\"a\":"},
    };
}

}  // namespace

TEST_CASE("bad input: exit 2, one line on stderr naming the value, nothing on stdout") {
    TempDir dir;
    dir.write("ok.json", R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":100})");
    dir.write("empty.json", "");
    dir.write("malformed.json", "{\"gpus\": [");
    dir.write("wrongtype.json", std::string(R"({"gpus":[)") + kValidGpu + "]}");
    // replace memory_bytes with a string in wrongtype.json
    dir.write("wrongtype.json", R"({"gpus":[{"id":"x","vendor":"nvidia","name":"X","segment":"consumer","arch_family":"ada","memory_bytes":"24GB","memory_bandwidth_gbps":1000,"sources":["s"]}]})");
    dir.write("deep.json", R"({"gpus":[{"id":"x","vendor":"nvidia","name":"X","segment":"consumer","arch_family":"ada","memory_bytes":1,"memory_bandwidth_gbps":1000,"tflops":{"bf16":"fast"},"sources":["s"]}]})");
    dir.write("unknownkey.json", R"({"gpus":[{"id":"x","vendor":"nvidia","name":"X","segment":"consumer","arch_family":"ada","memory_bytes":1,"memory_bandwidth_gbps":1000,"colour":"green","sources":["s"]}]})");
    dir.write("dupe.json", std::string(R"({"gpus":[)") + kValidGpu + "," + kValidGpu + "]}");
    dir.write("noid.json", R"({"gpus":[{"name":"no id"}]})");
    dir.write("noshape.json", R"({"model_type":"llama"})");
    dir.write("negative.json", R"({"num_hidden_layers":2,"hidden_size":-64,"num_attention_heads":4})");
    dir.write("huge.json", R"({"num_hidden_layers":2,"hidden_size":1000000000,"num_attention_heads":4,"vocab_size":10})");
    dir.write("strtype.json", R"({"num_hidden_layers":"32","hidden_size":64,"num_attention_heads":4})");
    const std::string root = dir.path("");
    std::size_t count = 0;
    for (auto c : cases()) {
        std::vector<std::string> args{GPUADVISE_BIN};
        for (auto a : c.args) {
            if (const auto p = a.find("{dir}/"); p != std::string::npos) a.replace(p, 6, root);
            else if (a == "{dir}") a = root;
            args.push_back(a);
        }
        std::string shown;
        for (std::size_t i = 1; i < args.size(); ++i) shown += " " + args[i].substr(0, 40);
        INFO("gpuadvise" << shown);
        const ProcessResult r = run_process(args, c.stdin_text);
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK_THAT(r.err, Catch::StartsWith("gpuadvise: ") && Catch::Contains(c.expect));
        CHECK_THAT(r.err, !Catch::Contains("runtime error") && !Catch::Contains("Sanitizer"));
        CHECK(r.seconds < 1.0);
        ++count;
    }
    CHECK(count >= 60);
}
