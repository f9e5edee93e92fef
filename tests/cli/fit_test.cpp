// `fit` over the user's own files (--gguf, --hf-config, --model-dir and a
// folder of GGUFs, --models-dir), its ranking (the quality proxy by family and
// release, the --min-speed floor), and the engine facts it and the plans rest
// on: one case per fact (docs/runtimes.md), each against the real binary.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/gguf_builder.hpp"
#include "support/run_gpuadvise.hpp"
#include "support/temp_files.hpp"

namespace {

using gguf_test::u32;
using gguf_test::u64;
using nlohmann::json;

json run_json(std::vector<std::string> args, int expect = 0) {
    return gpuadvise_test::run_json(std::move(args), {expect});
}

ProcessResult run(std::vector<std::string> args) {
    return gpuadvise_test::run(std::move(args));
}

// A Llama-style GGUF of real size: its header, and a sparse file as long as
// the tensors it lists (no data is written, the reader needs only the header).
struct LlamaShape {
    u64 hidden = 4096, layers = 32, ffn = 14336, heads = 32, kv_heads = 8, vocab = 128256;
    u64 context = 131072;
};

std::string write_gguf(const TempDir& dir, const std::string& file, const std::string& name,
                       const LlamaShape& s, u32 type, u32 pooling_type = 0) {
    gguf_test::GgufBuilder b;
    // llama.cpp's converter writes <arch>.pooling_type for models that pool (embeddings).
    if (pooling_type > 0) b.kv_u32("llama.pooling_type", pooling_type);
    b.kv_str("general.architecture", "llama")
        .kv_str("general.name", name)
        .kv_u32("llama.block_count", static_cast<u32>(s.layers))
        .kv_u64("llama.context_length", s.context)
        .kv_u32("llama.embedding_length", static_cast<u32>(s.hidden))
        .kv_u32("llama.feed_forward_length", static_cast<u32>(s.ffn))
        .kv_u32("llama.attention.head_count", static_cast<u32>(s.heads))
        .kv_u32("llama.attention.head_count_kv", static_cast<u32>(s.kv_heads))
        .kv_f32("llama.attention.layer_norm_rms_epsilon");
    const u64 kv = s.hidden / s.heads * s.kv_heads;
    b.tensor("token_embd.weight", {s.hidden, s.vocab}, type)
        .tensor("output_norm.weight", {s.hidden}, gguf_test::kF32)
        .tensor("output.weight", {s.hidden, s.vocab}, type);
    for (u64 l = 0; l < s.layers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        b.tensor(p + "attn_norm.weight", {s.hidden}, gguf_test::kF32)
            .tensor(p + "attn_q.weight", {s.hidden, s.hidden}, type)
            .tensor(p + "attn_k.weight", {s.hidden, kv}, type)
            .tensor(p + "attn_v.weight", {s.hidden, kv}, type)
            .tensor(p + "attn_output.weight", {s.hidden, s.hidden}, type)
            .tensor(p + "ffn_norm.weight", {s.hidden}, gguf_test::kF32)
            .tensor(p + "ffn_gate.weight", {s.hidden, s.ffn}, type)
            .tensor(p + "ffn_up.weight", {s.hidden, s.ffn}, type)
            .tensor(p + "ffn_down.weight", {s.ffn, s.hidden}, type);
    }
    const std::string path = dir.write(file, b.header());
    std::filesystem::resize_file(path, b.file_size());
    return path;
}

const LlamaShape kLlama2_7b{4096, 32, 11008, 32, 32, 32000, 4096};
const LlamaShape kLlama3_8b{4096, 32, 14336, 32, 8, 128256, 8192};
const LlamaShape kLlama31_8b{};
const LlamaShape kLlama31_70b{8192, 80, 28672, 64, 8, 128256, 131072};

const json* row(const json& doc, std::string_view model) {
    for (const json& r : doc.at("models"))
        if (r.at("model").get<std::string>() == model) return &r;
    return nullptr;
}

std::ptrdiff_t rank_of(const json& doc, std::string_view model) {
    const json& list = doc.at("models");
    for (std::size_t i = 0; i < list.size(); ++i)
        if (list[i].at("model").get<std::string>() == model) return static_cast<std::ptrdiff_t>(i);
    return -1;
}

bool left_out(const json& doc, std::string_view start, std::string_view holds) {
    for (const json& l : doc.at("left_out")) {
        const std::string t = l.get<std::string>();
        if (t.rfind(start, 0) == 0 && t.find(holds) != std::string::npos) return true;
    }
    return false;
}

bool any_of(const json& list, std::string_view holds) {
    for (const json& s : list)
        if (s.get<std::string>().find(holds) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE(
    "fit --models-dir: each model's best file that fits, newer releases first, the rest said") {
    TempDir dir;
    std::filesystem::create_directories(dir.path("lmstudio/bartowski/Llama-3.1"));
    write_gguf(dir, "lmstudio/bartowski/Llama-3.1/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
               "Meta Llama 3.1 8B Instruct", kLlama31_8b, gguf_test::kQ4_K);
    write_gguf(dir, "lmstudio/bartowski/Llama-3.1/Meta-Llama-3.1-8B-Instruct-Q8_0.gguf",
               "Meta Llama 3.1 8B Instruct", kLlama31_8b, gguf_test::kQ8_0);
    write_gguf(dir, "Meta-Llama-3-8B-Instruct-Q8_0.gguf", "Meta Llama 3 8B Instruct", kLlama3_8b,
               gguf_test::kQ8_0);
    write_gguf(dir, "llama-2-7b-chat.Q4_K_M.gguf", "LLaMA v2", kLlama2_7b, gguf_test::kQ4_K);
    write_gguf(dir, "Llama-3.1-70B-Instruct-Q8_0.gguf", "Meta Llama 3.1 70B Instruct", kLlama31_70b,
               gguf_test::kQ8_0);
    write_gguf(dir, "Llama-3.1-70B-Instruct-Q4_K_M.gguf", "Meta Llama 3.1 70B Instruct",
               kLlama31_70b, gguf_test::kQ4_K);
    dir.write("mmproj-model-f16.gguf", "GGUF");
    dir.write("big-00001-of-00002.gguf", "GGUF");
    dir.write("big-00002-of-00002.gguf", "GGUF");
    dir.write("broken.gguf", "not a gguf file at all");
    dir.write("readme.txt", "not a model");

    const json doc = run_json({"fit", "--models-dir", dir.path(""), "--gpu", "rtx-4090"});
    // The 3.1 8B's two files are one model: its Q8_0 fits with room and is kept.
    const json* l31 = row(doc, "Meta Llama 3.1 8B Instruct");
    REQUIRE(l31 != nullptr);
    CHECK(l31->at("quant") == "q8_0");
    CHECK_THAT(l31->at("file").get<std::string>(), Catch::EndsWith("Instruct-Q8_0.gguf"));
    CHECK(l31->at("released") == "2024-07");
    CHECK(l31->at("engine") == "llama.cpp");
    // Same size, the newer generation first: 3.1 (2024-07) above 3 (2024-04).
    const json* l3 = row(doc, "Meta Llama 3 8B Instruct");
    REQUIRE(l3 != nullptr);
    CHECK(l3->at("released") == "2024-04");
    CHECK(rank_of(doc, "Meta Llama 3.1 8B Instruct") < rank_of(doc, "Meta Llama 3 8B Instruct"));
    // A name that does not say its generation is recognised by its file name.
    const json* l2 = row(doc, "LLaMA v2");
    REQUIRE(l2 != nullptr);
    CHECK(l2->at("released") == "2023-07");
    CHECK(rank_of(doc, "Meta Llama 3 8B Instruct") < rank_of(doc, "LLaMA v2"));
    // The 70B does not fit 24 GiB; offloaded from its Q4_K_M file it is under reading speed.
    CHECK(row(doc, "Meta Llama 3.1 70B Instruct") == nullptr);
    CHECK(left_out(doc, "Meta Llama 3.1 70B Instruct",
                   "(Llama-3.1-70B-Instruct-Q4_K_M.gguf), under --min-speed 5"));
    // What is not a model is said, not silently dropped.
    CHECK(left_out(doc, "mmproj-model-f16.gguf", "vision projector"));
    CHECK(left_out(doc, "big-00001-of-00002.gguf", "split GGUF (00002 parts)"));
    CHECK(left_out(doc, "broken.gguf", "broken.gguf"));
    CHECK_FALSE(left_out(doc, "big-00002", ""));

    // The table says what it compared.
    const ProcessResult text = run({"fit", "--models-dir", dir.path(""), "--gpu", "rtx-4090"});
    CHECK(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("(3 of 7 models from your files") &&
                             Catch::Contains("Meta Llama 3.1 8B") &&
                             Catch::Contains("counted up for newer releases"));
    // --family filters the files' models by name.
    const json only = run_json(
        {"fit", "--models-dir", dir.path(""), "--gpu", "rtx-4090", "--family", "llama v2"});
    REQUIRE(only.at("models").size() == 1);
    CHECK(only.at("models")[0].at("model") == "LLaMA v2");
}

TEST_CASE("fit --models-dir: an embedding GGUF is named and left out, not ranked as a chat model") {
    TempDir dir;
    write_gguf(dir, "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "Meta Llama 3.1 8B Instruct",
               kLlama31_8b, gguf_test::kQ4_K);
    // pooling_type 3: last-token pooling, as Qwen3-Embedding's GGUFs carry.
    const std::string embed = write_gguf(dir, "Embedding-8B-Q4_K_M.gguf", "Embedding 8B",
                                         kLlama31_8b, gguf_test::kQ4_K, 3);
    const json doc = run_json({"fit", "--models-dir", dir.path(""), "--gpu", "rtx-4090"});
    CHECK(row(doc, "Meta Llama 3.1 8B Instruct") != nullptr);
    CHECK(row(doc, "Embedding 8B") == nullptr);
    CHECK(
        left_out(doc, "Embedding-8B-Q4_K_M.gguf", "an embedding model (the file's pooling_type)"));
    // Given alone, fit says where to size it; estimate sizes it as an embedding model.
    const ProcessResult alone = run({"fit", "--gguf", embed, "--gpu", "rtx-4090"});
    CHECK(alone.exit_code == 2);
    CHECK_THAT(alone.err, Catch::Contains("is an embedding model"));
    const json e = run_json({"estimate", "--gguf", embed, "--gpu", "rtx-4090"});
    CHECK(e.at("workload").at("architecture").at("task") == "embed");
    CHECK(e.at("plan").at("performance").at("sequences_per_s").get<double>() > 0);
}

TEST_CASE("fit --models-dir: a folder without models, or not a folder, is bad input") {
    TempDir dir;
    dir.write("readme.txt", "nothing here");
    const ProcessResult empty = run({"fit", "--models-dir", dir.path(""), "--gpu", "rtx-4090"});
    CHECK(empty.exit_code == 2);
    CHECK_THAT(empty.err, Catch::Contains("--models-dir") && Catch::Contains("holds no GGUF"));
    const ProcessResult file =
        run({"fit", "--models-dir", dir.path("readme.txt"), "--gpu", "rtx-4090"});
    CHECK(file.exit_code == 2);
    CHECK_THAT(file.err, Catch::Contains("is not a folder"));
    const ProcessResult both = run({"fit", "--models-dir", dir.path(""), "--gguf",
                                    dir.path("readme.txt"), "--gpu", "rtx-4090"});
    CHECK(both.exit_code == 2);
    CHECK_THAT(both.err, Catch::Contains("--models-dir and --gguf both name the models"));
}

TEST_CASE("fit --gguf, --hf-config and --model-dir: the user's own model") {
    TempDir dir;
    const std::string q4 =
        write_gguf(dir, "Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf", "Meta Llama 3.1 70B Instruct",
                   kLlama31_70b, gguf_test::kQ4_K);
    // A 70B Q4_K on a 24 GiB card: offloaded (llama.cpp --fit), as it is.
    const json g = run_json({"fit", "--gguf", q4, "--gpu", "rtx-4090", "--min-speed", "1"});
    REQUIRE(g.at("models").size() == 1);
    CHECK(g.at("models")[0].at("fit") == "offload");
    CHECK(g.at("models")[0].at("quant") == "q4_k");
    // A config.json: a shape, so fit walks the engine's ladder for it.
    const std::string config = dir.write(
        "config.json",
        R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
            "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072})");
    const json h = run_json({"fit", "--hf-config", config, "--gpu", "rtx-4090"});
    REQUIRE(h.at("models").size() == 1);
    CHECK(h.at("models")[0].at("quant") == "bf16");  // the ladder's first rung fits with room
    CHECK(h.at("models")[0].at("file").is_null());
    // A Hugging Face folder: its safetensors as they are, on a serving engine.
    std::filesystem::create_directories(dir.path("Qwen3-8B"));
    dir.write("Qwen3-8B/config.json",
              R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
                  "hidden_size": 4096, "intermediate_size": 12288, "num_hidden_layers": 36,
                  "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                  "vocab_size": 151936, "max_position_embeddings": 40960,
                  "tie_word_embeddings": false, "torch_dtype": "bfloat16"})");
    // One bf16 tensor of 8.19e9 values stands for the weights (the header is all that is read).
    const std::string header =
        R"({"model.embed_tokens.weight":{"dtype":"BF16","shape":[8190735360],"data_offsets":[0,16381470720]}})";
    std::string st;
    for (int i = 0; i < 8; ++i) st += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
    const std::string weights = dir.write("Qwen3-8B/model.safetensors", st + header);
    std::filesystem::resize_file(weights, 8 + header.size() + 16381470720ULL);
    const json d = run_json({"fit", "--model-dir", dir.path("Qwen3-8B"), "--gpu", "rtx-4090"});
    REQUIRE(d.at("models").size() == 1);
    CHECK(d.at("models")[0].at("released") == "2025-04");  // recognised by the folder's name
    CHECK(d.at("models")[0].at("engine") == "vllm");
}

TEST_CASE("fit: --min-speed defaults to reading speed, so a slow big model is not the top answer") {
    // An M3 Max with 96 GB (300 GB/s): a 70B at 8 bits fits but decodes at ~3 tok/s.
    const json doc = run_json({"fit", "--gpu", "apple-m3-max-30c-96gb"});
    REQUIRE_FALSE(doc.at("models").empty());
    for (const json& r : doc.at("models")) {
        INFO(r.at("model"));
        CHECK(r.at("decode_tokens_per_s").get<double>() >= 5.0);
    }
    // Asked for less, the 70B comes at the most bits that fit, under reading speed.
    const json slow = run_json(
        {"fit", "--gpu", "apple-m3-max-30c-96gb", "--min-speed", "1", "--family", "llama-3.1-70b"});
    REQUIRE(slow.at("models").size() == 1);
    CHECK(slow.at("models")[0].at("decode_tokens_per_s").get<double>() < 5.0);
    // By default that rung is too slow and gives way to one of fewer bits
    // that reads fast enough, or the model is left out saying why.
    const json fast =
        run_json({"fit", "--gpu", "apple-m3-max-30c-96gb", "--family", "llama-3.1-70b"});
    if (fast.at("models").empty()) {
        CHECK(left_out(fast, "llama-3.1-70b",
                       "under --min-speed 5 (the default: about reading speed)"));
    } else {
        CHECK(fast.at("models")[0].at("decode_tokens_per_s").get<double>() >= 5.0);
        CHECK(fast.at("models")[0].at("bits_per_weight").get<double>() <
              slow.at("models")[0].at("bits_per_weight").get<double>());
    }
}

TEST_CASE("fit: presets of one size rank the newer generation first") {
    const json doc = run_json({"fit", "--gpu", "rtx-4090", "--family", "llama-3", "--top", "50"});
    const auto l3 = rank_of(doc, "llama-3-8b"), l31 = rank_of(doc, "llama-3.1-8b");
    REQUIRE(l3 >= 0);
    REQUIRE(l31 >= 0);
    CHECK(l31 < l3);
    CHECK(row(doc, "llama-3.1-8b")->at("released") == "2024-07");
}

// ---------------------------------------------------------------- engine facts

TEST_CASE("engine fact: llama.cpp loads MXFP4, the format of gpt-oss's GGUFs") {
    const json e = run_json(
        {"estimate", "--model", "gpt-oss-20b", "--engine", "llama.cpp", "--gpu", "rtx-4090"});
    CHECK(e.at("plan").at("fits") == true);
    CHECK(e.at("workload").at("quant") == "mxfp4");
    // fit keeps the checkpoint's own MXFP4 and does not dequantize it to more bits.
    const json f = run_json({"fit", "--gpu", "rtx-4090", "--family", "gpt-oss"});
    const json* r = row(f, "gpt-oss-20b");
    REQUIRE(r != nullptr);
    CHECK(r->at("quant") == "mxfp4");
}

TEST_CASE("engine fact: vLLM serves FP8 checkpoints on Ampere as weight-only FP8-Marlin") {
    const json a = run_json({"check", "--model", "llama-3.1-8b", "--quant", "fp8", "--engine",
                             "vllm", "--gpu", "a100-80gb-sxm"});
    CHECK(a.at("plan").at("fits") == true);
    CHECK(any_of(a.at("plan").at("warnings"), "weight-only FP8 (W8A16"));
    CHECK(any_of(a.at("plan").at("warnings"), "slower"));
    // Below the kernel's compute capability 7.5 (Volta) it is still refused.
    const json v = run_json({"check", "--model", "llama-3.1-8b", "--quant", "fp8", "--engine",
                             "vllm", "--gpu", "v100-sxm2-32gb", "--precision", "fp16"},
                            1);
    CHECK(v.at("plan").at("fits") == false);
}

TEST_CASE("engine fact: vLLM serves AWQ and GPTQ on ROCm") {
    for (const char* quant : {"awq-int4", "gptq-int4"}) {
        INFO(quant);
        const json c = run_json({"check", "--model", "llama-3.1-8b", "--quant", quant, "--engine",
                                 "vllm", "--gpu", "mi300x"});
        CHECK(c.at("plan").at("fits") == true);
    }
}

TEST_CASE("engine fact: mlx-lm trains LoRA and QLoRA on Apple silicon, with a speed") {
    const json q = run_json({"check", "--model", "llama-3.1-8b", "--method", "qlora", "--gpu",
                             "apple-m2-ultra-76c-192gb"});
    CHECK(q.at("plan").at("fits") == true);
    CHECK(q.at("plan").at("engine") == "mlx");
    CHECK(q.at("workload").at("quant") == "mlx-4bit");
    CHECK(q.at("workload").at("optimizer") == "adamw");
    CHECK(q.at("plan").at("performance").at("train_tokens_per_s").get<double>() > 0);
    CHECK(any_of(q.at("plan").at("warnings"), "not fitted on mlx-lm runs"));
    const json l = run_json({"check", "--model", "llama-3.1-8b", "--method", "lora", "--gpu",
                             "apple-m2-ultra-76c-192gb"});
    CHECK(l.at("plan").at("engine") == "mlx");
    CHECK(l.at("plan").at("performance").at("train_tokens_per_s").get<double>() > 0);
}

TEST_CASE("engine fact: llama.cpp's --cpu-moe and --n-cpu-moe N are accepted as they are") {
    const std::vector<std::string> base = {"estimate",  "--model", "qwen3-30b-a3b",
                                           "--quant",   "q4_k_m",  "--engine",
                                           "llama.cpp", "--gpu",   "rtx-4090"};
    auto all = base;
    all.emplace_back("--cpu-moe");
    const json a = run_json(all);
    CHECK(a.at("plan").at("offload").at("mode") == "experts");
    CHECK(a.at("plan").at("offload").at("host_expert_layers") ==
          a.at("plan").at("offload").at("total_layers"));
    auto some = base;
    some.insert(some.end(), {"--n-cpu-moe", "12", "--emit", "llama-server"});
    const json s = run_json(some);
    CHECK(s.at("plan").at("offload").at("host_expert_layers") == 12);
    CHECK_THAT(s.at("launch").at("command").get<std::string>(), Catch::Contains("--n-cpu-moe 12"));
    auto spelled = base;
    spelled.insert(spelled.end(), {"--offload", "--n-cpu-moe=12"});
    CHECK(run_json(spelled).at("plan").at("offload").at("host_expert_layers") == 12);
    auto both = base;
    both.insert(both.end(), {"--cpu-moe", "--n-cpu-moe", "4"});
    const ProcessResult b = run(both);
    CHECK(b.exit_code == 2);
    CHECK_THAT(b.err, Catch::Contains("--cpu-moe and --n-cpu-moe both say"));
}

TEST_CASE("engine fact: Ollama's default context by VRAM and its reserve are applied") {
    const json e = run_json(
        {"estimate", "--model", "llama-3.1-8b", "--engine", "ollama", "--gpu", "rtx-4090"});
    CHECK(e.at("workload").at("seq") == 32768);  // 24 GiB: Ollama's 32768 tier
    CHECK(any_of(e.at("workload").at("assumed"), "Ollama's default for 24 GiB"));
    const json l = run_json(
        {"estimate", "--model", "llama-3.1-8b", "--engine", "llama.cpp", "--gpu", "rtx-4090"});
    CHECK(l.at("workload").at("seq") == 4096);
    CHECK(l.at("plan").at("usable_bytes").get<std::uint64_t>() -
              e.at("plan").at("usable_bytes").get<std::uint64_t>() ==
          457ULL << 20U);
    // A context given is kept.
    const json k = run_json({"estimate", "--model", "llama-3.1-8b", "--engine", "ollama", "--gpu",
                             "rtx-4090", "--seq", "8192"});
    CHECK(k.at("workload").at("seq") == 8192);
    // The default context is room the engine allocates, not a prompt each
    // request fills: on eight 24 GiB cards (256k tokens) the memory grows,
    // the decode speed stays the assumed 4096-token conversation's.
    const auto plan = [](std::vector<std::string> extra) {
        std::vector<std::string> args{"check", "--model",  "llama-3.1-70b", "--engine", "ollama",
                                      "--gpu", "rtx-4090", "--gpus",        "8"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_json(args);
    };
    const json roomy = plan({});
    const json exact = plan({"--seq", "4096"});
    CHECK(roomy.at("workload").at("seq") == 131072);  // 262144 cut to the trained length
    CHECK(roomy.at("workload").at("prompt") == 3584);
    CHECK(roomy.at("plan").at("per_gpu_bytes").get<double>() >
          exact.at("plan").at("per_gpu_bytes").get<double>() * 1.5);
    const double roomy_tps = roomy.at("plan").at("performance").at("decode_tokens_per_s");
    const double exact_tps = exact.at("plan").at("performance").at("decode_tokens_per_s");
    CHECK(roomy_tps == Approx(exact_tps).epsilon(0.05));
}

TEST_CASE("engine fact: Ollama downloads a model named without a format as its Q4_K_M tag") {
    const json o =
        run_json({"check", "--model", "llama-3.1-8b", "--engine", "ollama", "--gpu", "rtx-4060"});
    CHECK(o.at("workload").at("quant") == "q4_k_m");
    CHECK(any_of(o.at("workload").at("assumed"), "quant=q4_k_m (Ollama's download"));
    CHECK(o.at("plan").at("fits") == true);  // 4.6 GiB of weights on an 8 GB card
    // --quant names another tag; vLLM and llama.cpp load what they are given.
    const json q = run_json({"check", "--model", "llama-3.1-8b", "--engine", "ollama", "--quant",
                             "q8_0", "--gpu", "rtx-4090"});
    CHECK(q.at("workload").at("quant") == "q8_0");
    const json v =
        run_json({"estimate", "--model", "llama-3.1-8b", "--engine", "vllm", "--gpu", "rtx-4090"});
    CHECK(v.at("workload").at("quant") == "none");
    // A checkpoint's own format comes first (gpt-oss's MXFP4 experts), and an
    // embedding model's library file is 16-bit.
    const json g =
        run_json({"estimate", "--model", "gpt-oss-20b", "--engine", "ollama", "--gpu", "rtx-4090"});
    CHECK(g.at("workload").at("quant") != "q4_k_m");
    const json b =
        run_json({"estimate", "--model", "bge-m3", "--engine", "ollama", "--gpu", "rtx-4090"});
    CHECK(b.at("workload").at("quant") == "none");
}

TEST_CASE("limits: the longest context is probed at its own length, not the engine's default") {
    // Ollama sets num_ctx by VRAM when no context is given; a probe of the
    // longest context gives its own, so the limit is where memory runs out.
    const json o =
        run_json({"check", "--model", "llama-3.1-8b", "--engine", "ollama", "--gpu", "rtx-4060"});
    const auto longest = o.at("plan").at("limits").at("max_context_tokens").get<std::int64_t>();
    CHECK(longest > 4096);
    CHECK(longest < 131072);
    const auto at = [&](std::int64_t seq, int code) {
        return run_json({"check", "--model", "llama-3.1-8b", "--engine", "ollama", "--gpu",
                         "rtx-4060", "--seq", std::to_string(seq)},
                        code);
    };
    CHECK(at(longest, 0).at("plan").at("fits") == true);
    CHECK(at(longest + 2048, 1).at("plan").at("fits") == false);
}

TEST_CASE("engine fact: vision models default to fp16 on cards without bf16") {
    for (const char* gpu : {"v100-sxm2-32gb", "t4"}) {
        INFO(gpu);
        const json c = run_json({"check", "--model", "resnet50", "--method", "full", "--gpu", gpu});
        CHECK(c.at("plan").at("fits") == true);
    }
    // Asked for bf16, the V100 still says why not.
    const json b = run_json({"check", "--model", "resnet50", "--method", "full", "--precision",
                             "bf16", "--gpu", "v100-sxm2-32gb"},
                            1);
    CHECK(b.at("plan").at("fits") == false);
}

TEST_CASE(
    "engine fact: llama.cpp runs GGUFs on a Tesla P40 (no bf16), so fit lists models for it") {
    // Pascal has no bf16; llama.cpp computes in fp16 there, so nothing is refused for it.
    const json c = run_json({"check", "--model", "llama-3.1-8b", "--quant", "q4_k_m", "--engine",
                             "llama.cpp", "--gpu", "tesla-p40"});
    CHECK(c.at("plan").at("fits") == true);
    CHECK(c.at("workload").at("precision") == "fp16");
    CHECK(any_of(c.at("workload").at("assumed"), "pascal has no native bf16"));
    const json f = run_json({"fit", "--gpu", "tesla-p40", "--top", "50"});
    CHECK(f.at("models").size() >= 20);
    // vLLM still refuses bf16 there until told fp16, and says so.
    const json v =
        run_json({"check", "--model", "llama-3.1-8b", "--engine", "vllm", "--gpu", "tesla-p40"}, 1);
    CHECK(v.at("plan").at("fits") == false);
}

TEST_CASE("engine fact: --os windows warns about the driver's shared-memory fallback when tight") {
    // Llama 3.1 8B Q8_0 on a 12 GiB card, less Windows' 1.5 GiB: roomy at 8192 tokens, tight at
    // 16384, too large at 20000.
    const auto at = [](const char* seq, int code) {
        return run_json({"check", "--model", "llama-3.1-8b", "--quant", "q8_0", "--engine",
                         "llama.cpp", "--gpu", "rtx-3060-12gb", "--os", "windows", "--seq", seq},
                        code)
            .at("plan");
    };
    const json tight = at("16384", 0);
    REQUIRE(tight.at("fit") == "tight");
    CHECK(any_of(tight.at("warnings"), "near the end of the card's GPU memory"));
    CHECK(any_of(tight.at("warnings"), "'Prefer No Sysmem Fallback'"));
    CHECK(any_of(at("20000", 1).at("warnings"), "beyond the card's GPU memory"));
    CHECK_FALSE(any_of(at("8192", 0).at("warnings"), "Sysmem Fallback"));
    // The same tight plan on Linux: no such driver.
    const json linux = run_json({"check", "--model", "llama-3.1-8b", "--quant", "q8_0", "--engine",
                                 "llama.cpp", "--gpu", "rtx-3060-12gb", "--seq", "17900"},
                                {});
    CHECK_FALSE(any_of(linux.at("plan").at("warnings"), "Sysmem Fallback"));
}
