#include "gpuadvise/gguf.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpuadvise/error.hpp"
#include "gpuadvise/model.hpp"
#include "support/gguf_builder.hpp"
#include "support/input_error.hpp"
using namespace gpuadvise;

namespace {

using namespace gguf_test;
using u64 = std::uint64_t;
using u32 = std::uint32_t;

GgufInfo parse(const GgufBuilder& b) {
    return parse_gguf(b.header(), b.file_size(), "m.gguf");
}

std::string error_of(const GgufBuilder& b) {
    return input_error([&] { parse(b); });
}

}  // namespace

TEST_CASE("the ggml type table matches ggml's block layouts") {
    // Bits per weight as documented next to each block struct in ggml-common.h:
    // an independent check of every block and type size in the table.
    const std::vector<std::pair<u32, double>> bpw = {
        {0, 32},      {1, 16},      {2, 4.5},     {3, 5},       {6, 5.5},     {7, 6},
        {8, 8.5},     {9, 9},       {10, 2.625},  {11, 3.4375}, {12, 4.5},    {13, 5.5},
        {14, 6.5625}, {15, 9.125},  {16, 2.0625}, {17, 2.3125}, {18, 3.0625}, {19, 1.5625},
        {20, 4.5},    {21, 3.4375}, {22, 2.5625}, {23, 4.25},   {24, 8},      {25, 16},
        {26, 32},     {27, 64},     {28, 64},     {29, 1.75},   {30, 16},     {34, 1.6875},
        {35, 2.0625}, {39, 4.25},   {40, 4.5},    {41, 1.125}};
    for (const auto& [id, bits] : bpw) {
        INFO("ggml type " << id);
        const GgmlType* t = ggml_type(id);
        REQUIRE(t != nullptr);
        CHECK(8.0 * t->type_size / t->block_size == Approx(bits));
    }
    CHECK(ggml_type(12)->name == "Q4_K");
    CHECK(ggml_type(39)->name == "MXFP4");
    CHECK(ggml_type(30)->name == "BF16");
    for (const u32 removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 42u, 1000u})
        CHECK(ggml_type(removed) == nullptr);
}

TEST_CASE("a GGUF v3 file yields its shape, exact parameter count and exact bytes") {
    const GgufInfo info = parse(tiny_llama(/*tied=*/false));
    CHECK(info.version == 3);
    CHECK(info.architecture == "llama");
    CHECK(info.name == "Tiny Llama");
    REQUIRE(info.file_type.has_value());
    CHECK(*info.file_type == 15);
    CHECK(info.tensor_count == 21);
    const Architecture& a = info.arch;
    CHECK(a.model_type == "llama");
    CHECK(a.layers == 2);
    CHECK(a.hidden == 256);
    CHECK(a.intermediate == 512);
    CHECK(a.heads == 4);
    CHECK(a.kv_heads == 2);
    CHECK(a.head_dim == 64);  // no key_length: hidden / heads
    CHECK(a.vocab == 1000);
    CHECK(a.max_position == 4096);
    CHECK(a.experts == 0);
    CHECK_FALSE(a.tied_embeddings);
    CHECK(a.mlp == MlpKind::Gated);
    CHECK(a.norm == NormKind::RmsNorm);
    CHECK(a.norms_per_layer == 2);

    // Embeddings 256x1000 twice, final norm 256; per layer 2 norms of 256,
    // q/o 256x256, k/v 256x128, gate/up/down 256x512.
    const u64 per_layer = 2 * 256 + 2 * 65536 + 2 * 32768 + 3 * 131072;
    CHECK(info.params == 2 * 256000 + 256 + 2 * per_layer);
    CHECK(info.params == count_params(a).total());

    // Q4_K: 144 bytes per 256 weights; Q6_K: 210; F32: 4 per weight.
    const u64 layer_bytes = 2 * 1024 + (65536 + 32768 + 65536 + 131072 + 131072) / 256 * 144 +
                            (32768 + 131072) / 256 * 210;
    const u64 bytes = 1000 * 144 + 1000 * 210 + 1024 + 2 * layer_bytes;
    CHECK(bytes == 1'107'152);
    CHECK(info.weight_bytes == bytes);
    CHECK(info.quantization == "Q4_K");
    CHECK(info.bits_per_weight == Approx(8.0 * 1'107'152 / 1'692'928));
    CHECK(info.type_bytes.at("Q4_K") == 144000 + 2 * 239616);
    CHECK(info.type_bytes.at("Q6_K") == 210000 + 2 * (26880 + 107520));
    CHECK(info.type_bytes.at("F32") == 5 * 1024);
}

TEST_CASE("GGUF v2 files read the same as v3") {
    const GgufInfo v2 = parse(tiny_llama(false, 2));
    const GgufInfo v3 = parse(tiny_llama(false, 3));
    CHECK(v2.version == 2);
    CHECK(v2.params == v3.params);
    CHECK(v2.weight_bytes == v3.weight_bytes);
    CHECK(v2.arch.kv_heads == v3.arch.kv_heads);
    CHECK(v2.quantization == v3.quantization);
}

TEST_CASE("a GGUF without output.weight has tied embeddings") {
    const GgufInfo tied = parse(tiny_llama(true));
    const GgufInfo untied = parse(tiny_llama(false));
    CHECK(tied.arch.tied_embeddings);
    CHECK_FALSE(untied.arch.tied_embeddings);
    CHECK(untied.params - tied.params == 256'000);
    CHECK(untied.weight_bytes - tied.weight_bytes == 1000 * 210);
    CHECK(tied.params == count_params(tied.arch).total());
}

TEST_CASE("exact tensor bytes for quantisation types") {
    // One extra 256x512 tensor of each type; its bytes are the difference.
    const GgufInfo base = parse(tiny_llama(true));
    const std::vector<std::pair<u32, u64>> expected = {
        {kQ4_K, 256 * 512 / 256 * 144},  // 73728
        {kQ6_K, 512 * 210},
        {kQ4_0, 256 * 512 / 32 * 18},
        {kQ5_0, 4096 * 22},
        {kQ8_0, 4096 * 34},
        {kIQ2_XXS, 512 * 66},
        {kIQ4_NL, 4096 * 18},
        {kTQ1_0, 512 * 54},
        {kMXFP4, 4096 * 17},
        {kBF16, 131072 * 2},
        {kF16, 131072 * 2},
        {kF32, 131072 * 4},
    };
    for (const auto& [type, bytes] : expected) {
        INFO("ggml type " << type);
        const GgufInfo info = parse(tiny_llama(true).tensor("extra.weight", {256, 512}, type));
        CHECK(info.weight_bytes - base.weight_bytes == bytes);
        CHECK(info.params - base.params == 131072);
        CHECK(info.type_bytes.at(std::string(ggml_type(type)->name)) >= bytes);
    }
    CHECK(tensor_bytes(256 * 512, kQ4_K) == 73728);
}

TEST_CASE("a mixture-of-experts GGUF: expert tensors decide the quantisation") {
    GgufBuilder b;
    b.kv_str("general.architecture", "qwen3moe")
        .kv_u32("qwen3moe.block_count", 2)
        .kv_u32("qwen3moe.context_length", 32768)
        .kv_u32("qwen3moe.embedding_length", 256)
        .kv_u32("qwen3moe.feed_forward_length", 768)
        .kv_u32("qwen3moe.expert_feed_forward_length", 256)
        .kv_u32("qwen3moe.expert_count", 8)
        .kv_u32("qwen3moe.expert_used_count", 2)
        .kv_u32("qwen3moe.attention.head_count", 4)
        .kv_u32("qwen3moe.attention.head_count_kv", 2)
        .kv_u32("qwen3moe.attention.key_length", 128)
        .kv_u32("qwen3moe.attention.value_length", 128)
        .kv_u32("qwen3moe.vocab_size", 500);
    b.tensor("token_embd.weight", {256, 500}, kQ8_0)
        .tensor("output.weight", {256, 500}, kQ8_0)
        .tensor("output_norm.weight", {256}, kF32);
    for (int l = 0; l < 2; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        b.tensor(p + "attn_norm.weight", {256}, kF32)
            .tensor(p + "attn_q.weight", {256, 512}, kQ8_0)
            .tensor(p + "attn_k.weight", {256, 256}, kQ8_0)
            .tensor(p + "attn_v.weight", {256, 256}, kQ8_0)
            .tensor(p + "attn_output.weight", {512, 256}, kQ8_0)
            .tensor(p + "attn_q_norm.weight", {128}, kF32)
            .tensor(p + "attn_k_norm.weight", {128}, kF32)
            .tensor(p + "ffn_norm.weight", {256}, kF32)
            .tensor(p + "ffn_gate_inp.weight", {256, 8}, kF32)
            .tensor(p + "ffn_gate_exps.weight", {256, 256, 8}, kQ4_K)
            .tensor(p + "ffn_up_exps.weight", {256, 256, 8}, kQ4_K)
            .tensor(p + "ffn_down_exps.weight", {256, 256, 8}, kQ4_K);
    }
    const GgufInfo info = parse(b);
    const Architecture& a = info.arch;
    CHECK(a.model_type == "qwen3moe");
    CHECK(a.experts == 8);
    CHECK(a.experts_per_token == 2);
    CHECK(a.moe_intermediate == 256);
    CHECK(a.intermediate == 768);
    CHECK(a.head_dim == 128);
    CHECK(a.vocab == 500);
    CHECK(a.qk_norm);
    CHECK(a.is_moe());
    CHECK(info.params == count_params(a).total());
    // Q8_0 holds more bytes of 2-D tensors, Q4_K more of all weight matrices.
    CHECK(info.type_bytes.at("Q8_0") == 2 * 136000 + 2 * (393216 / 32 * 34));
    CHECK(info.type_bytes.at("Q4_K") == 2 * 3 * (256 * 256 * 8 / 256 * 144));
    CHECK(info.quantization == "Q4_K");
}

TEST_CASE("the vocabulary size falls back to vocab_size, then to the embedding rows") {
    GgufBuilder b;
    b.kv_str("general.architecture", "llama")
        .kv_u32("llama.block_count", 1)
        .kv_u32("llama.embedding_length", 256)
        .kv_u32("llama.feed_forward_length", 512)
        .kv_u32("llama.attention.head_count", 4);
    b.tensor("token_embd.weight", {256, 777}, kF16).tensor("blk.0.ffn_up.weight", {256, 512}, kF16);
    const GgufInfo info = parse(b);
    CHECK(info.arch.vocab == 777);
    CHECK(info.arch.kv_heads == 4);          // absent head_count_kv: no grouping
    CHECK(info.arch.mlp == MlpKind::Plain);  // an up projection and no gate
    CHECK(info.quantization == "F16");
    CHECK(info.bits_per_weight == Approx(16.0));
    CHECK_FALSE(info.file_type.has_value());
    b.kv_u32("llama.vocab_size", 800);
    CHECK(parse(b).arch.vocab == 800);
}

TEST_CASE("the block structure follows the tensor names") {
    const auto model = [](const std::string& arch) {
        GgufBuilder b;
        b.kv_str("general.architecture", arch)
            .kv_u32(arch + ".block_count", 1)
            .kv_u32(arch + ".embedding_length", 256)
            .kv_u32(arch + ".feed_forward_length", 512)
            .kv_u32(arch + ".attention.head_count", 4)
            .kv_u32(arch + ".vocab_size", 100);
        return b;
    };
    // Phi-3: gate and up fused into one up projection of twice the FFN size.
    GgufBuilder phi3 = model("phi3");
    phi3.tensor("blk.0.attn_qkv.weight", {256, 768}, kF16)
        .tensor("blk.0.ffn_up.weight", {256, 1024}, kF16);
    CHECK(parse(phi3).arch.mlp == MlpKind::Gated);
    // GPT-2: learned positions, LayerNorm with bias, biases everywhere, plain MLP.
    GgufBuilder gpt2 = model("gpt2");
    gpt2.tensor("position_embd.weight", {256, 1024}, kF32)
        .tensor("blk.0.attn_norm.weight", {256}, kF32)
        .tensor("blk.0.attn_norm.bias", {256}, kF32)
        .tensor("blk.0.attn_qkv.bias", {768}, kF32)
        .tensor("blk.0.attn_output.bias", {256}, kF32)
        .tensor("blk.0.ffn_norm.weight", {256}, kF32)
        .tensor("blk.0.ffn_up.weight", {256, 512}, kF16)
        .tensor("blk.0.ffn_up.bias", {512}, kF32);
    const Architecture g = parse(gpt2).arch;
    CHECK(g.mlp == MlpKind::Plain);
    CHECK(g.norm == NormKind::LayerNorm);
    CHECK(g.learned_positions == 1024);
    CHECK(g.qkv_bias);
    CHECK(g.out_bias);
    CHECK(g.mlp_bias);
    CHECK(g.norms_per_layer == 2);
    CHECK(g.tied_embeddings);
}

TEST_CASE("a header cut short asks for more bytes until it has the whole metadata") {
    const GgufBuilder b = tiny_llama(false);
    const std::string header = b.header();
    const u64 size = b.file_size();
    std::size_t have = 16;
    int rounds = 0;
    while (true) {
        REQUIRE(rounds < 20);
        ++rounds;
        try {
            const GgufInfo info =
                parse_gguf(std::string_view(header).substr(0, have), size, "m.gguf");
            CHECK(info.weight_bytes == 1'107'152);
            break;
        } catch (const NeedMoreBytes& e) {
            CHECK_THAT(e.what(),
                       Catch::StartsWith("m.gguf: ") && Catch::Contains("read the first"));
            REQUIRE(e.needed > have);
            REQUIRE(e.needed <= size);
            have = std::min<std::size_t>(e.needed, header.size());
        }
    }
    CHECK(rounds > 2);
    CHECK(rounds <= 16);
}

TEST_CASE("corrupt GGUF headers are input errors naming the file and the problem") {
    SECTION("wrong magic") {
        GgufBuilder b = tiny_llama(true);
        b.magic = "GGML";
        CHECK_THAT(error_of(b),
                   Catch::StartsWith("m.gguf: ") && Catch::Contains("not a GGUF file"));
        CHECK_THAT(input_error([] { parse_gguf("GG", 2, "m.gguf"); }),
                   Catch::Contains("not a GGUF file"));
        CHECK_THAT(input_error([] { parse_gguf("", 0, "m.gguf"); }),
                   Catch::Contains("not a GGUF file"));
    }
    SECTION("unsupported versions") {
        GgufBuilder b = tiny_llama(true);
        b.version = 1;
        CHECK_THAT(error_of(b), Catch::Contains("version 1 is not supported"));
        b.version = 4;
        CHECK_THAT(error_of(b), Catch::Contains("unsupported GGUF version 4"));
        b.version = 0x03000000;
        CHECK_THAT(error_of(b), Catch::Contains("big-endian"));
    }
    SECTION("truncated at several points") {
        const GgufBuilder b = tiny_llama(false);
        const std::string header = b.header();
        for (const std::size_t cut :
             {std::size_t{5}, std::size_t{10}, std::size_t{20}, std::size_t{30}, std::size_t{100},
              header.size() / 2, b.header_end() - 1}) {
            INFO("cut at " << cut);
            CHECK_THAT(input_error([&] { parse_gguf(header.substr(0, cut), cut, "m.gguf"); }),
                       Catch::StartsWith("m.gguf: ") && Catch::Contains("truncated"));
        }
        // The whole header but no tensor data.
        CHECK_THAT(input_error([&] { parse_gguf(header, header.size(), "m.gguf"); }),
                   Catch::Contains("runs past the end of the file"));
        CHECK_THAT(input_error([&] {
                       parse_gguf(header.substr(0, b.header_end()), b.header_end(), "m.gguf");
                   }),
                   Catch::Contains("truncated"));
    }
    SECTION("tensor data beyond the file size") {
        const GgufBuilder b = tiny_llama(false);
        CHECK_THAT(input_error([&] { parse_gguf(b.header(), b.file_size() - 1, "m.gguf"); }),
                   Catch::Contains("'blk.1.ffn_down.weight'") &&
                       Catch::Contains("runs past the end of the file"));
    }
    SECTION("a huge string length") {
        std::string entry;
        put64(entry, u64{1} << 62);
        entry += "general.architecture";
        CHECK_THAT(error_of(tiny_llama(true).kv_raw(entry)),
                   Catch::Contains("needs 4611686018427387904 bytes") &&
                       Catch::Contains("truncated or corrupt"));
    }
    SECTION("a huge array length") {
        std::string entry;
        put_string(entry, "tokenizer.ggml.merges");
        put32(entry, 9);
        put32(entry, 8);
        put64(entry, u64{1} << 61);
        CHECK_THAT(error_of(tiny_llama(true).kv_raw(entry)),
                   Catch::Contains("claims 2305843009213693952 elements"));
    }
    SECTION("huge tensor and metadata counts") {
        GgufBuilder b = tiny_llama(true);
        b.tensor_count_override = u64{1} << 40;
        CHECK_THAT(error_of(b), Catch::Contains("claims 1099511627776 tensors"));
        b.tensor_count_override.reset();
        b.kv_count_override = ~u64{0};
        CHECK_THAT(error_of(b), Catch::Contains("metadata entries"));
    }
    SECTION("dimensions whose product overflows") {
        CHECK_THAT(
            error_of(
                tiny_llama(true).tensor("x", {u64{1} << 32, u64{1} << 32, u64{1} << 32}, kF32)),
            Catch::Contains("tensor 'x'") && Catch::Contains("more elements than fit in 64 bits"));
        CHECK_THAT(error_of(tiny_llama(true).tensor("x", {u64{1} << 63}, kF32)),
                   Catch::Contains("more elements than fit in 64 bits"));
        // Fits in elements, not in bytes.
        CHECK_THAT(error_of(tiny_llama(true).tensor("x", {u64{1} << 31, u64{1} << 31}, 28)),
                   Catch::Contains("more bytes than fit in 64 bits"));
    }
    SECTION("more than four dimensions") {
        CHECK_THAT(error_of(tiny_llama(true).tensor("x", {1, 1, 1, 1, 1}, kF32)),
                   Catch::Contains("tensor 'x' has 5 dimensions"));
    }
    SECTION("unknown or removed ggml types") {
        for (const u32 type : {4u, 31u, 42u, 1000u}) {
            INFO(type);
            CHECK_THAT(error_of(tiny_llama(true).tensor("x", {256}, type)),
                       Catch::Contains("tensor 'x' has unknown ggml type " + std::to_string(type)));
        }
    }
    SECTION("rows that are not whole blocks") {
        CHECK_THAT(error_of(tiny_llama(true).tensor("x", {100, 4}, kQ4_K)),
                   Catch::Contains("rows of 100 elements") && Catch::Contains("Q4_K"));
    }
    SECTION("misaligned tensor data") {
        CHECK_THAT(error_of(tiny_llama(true).tensor("x", {256}, kF32, 1)),
                   Catch::Contains("not a multiple of the alignment"));
    }
    SECTION("overlapping tensors claiming more than the file") {
        // A tensor over the embeddings' bytes: each fits, together they do not.
        CHECK_THAT(error_of(tiny_llama(true).tensor_at("x", {256, 100}, kF32, 0)),
                   Catch::Contains("overlapping tensors"));
    }
    SECTION("bad metadata") {
        CHECK_THAT(error_of(tiny_llama(true).kv_str("general.name", "again")),
                   Catch::Contains("duplicate metadata key 'general.name'"));
        CHECK_THAT(error_of(tiny_llama(true).tensor("output_norm.weight", {256}, kF32)),
                   Catch::Contains("duplicate tensor name 'output_norm.weight'"));
        std::string entry;
        put_string(entry, "x");
        put32(entry, 13);
        CHECK_THAT(error_of(tiny_llama(true).kv_raw(entry)),
                   Catch::Contains("unknown metadata value type 13"));
        GgufBuilder no_arch;
        no_arch.kv_u32("llama.block_count", 2).tensor("a", {256}, kF32);
        CHECK_THAT(error_of(no_arch), Catch::Contains("missing 'general.architecture'"));
        GgufBuilder no_layers;
        no_layers.kv_str("general.architecture", "llama").tensor("a", {256}, kF32);
        CHECK_THAT(error_of(no_layers), Catch::Contains("'llama.block_count' is missing"));
        GgufBuilder wrong_type;
        wrong_type.kv_str("general.architecture", "llama")
            .kv_str("llama.block_count", "two")
            .tensor("a", {256}, kF32);
        CHECK_THAT(error_of(wrong_type),
                   Catch::Contains("'llama.block_count' must be an integer (got a string)"));
        GgufBuilder no_tensors;
        no_tensors.kv_str("general.architecture", "llama");
        CHECK_THAT(error_of(no_tensors), Catch::Contains("no tensors"));
        GgufBuilder bad_align = tiny_llama(true);
        bad_align.kv_u32("general.alignment", 24);
        CHECK_THAT(error_of(bad_align), Catch::Contains("power of two"));
    }
    SECTION("a shape validate_architecture rejects") {
        GgufBuilder odd;
        odd.kv_str("general.architecture", "llama")
            .kv_u32("llama.block_count", 1)
            .kv_u32("llama.embedding_length", 256)
            .kv_u32("llama.feed_forward_length", 512)
            .kv_u32("llama.attention.head_count", 4)
            .kv_u32("llama.attention.head_count_kv", 3)
            .kv_u32("llama.vocab_size", 10)
            .tensor("a", {256}, kF32);
        CHECK_THAT(error_of(odd),
                   Catch::StartsWith("m.gguf: ") && Catch::Contains("not a multiple"));
    }
}

TEST_CASE("metadata past 256 MiB is refused rather than read") {
    // A 300 MiB key in a 1 GiB file: the reader must not ask for 300 MiB.
    std::string entry;
    put64(entry, 300 * kMiB);
    entry += "x";
    const GgufBuilder b = tiny_llama(true).kv_raw(entry);
    CHECK_THAT(input_error([&] { parse_gguf(b.header(), kGiB, "m.gguf"); }),
               Catch::Contains("256 MiB"));
}

TEST_CASE("a caller passing more bytes than the file size is a bug, not an input error") {
    CHECK_THROWS_AS(parse_gguf("GGUF", 2, "m.gguf"), std::invalid_argument);
}

TEST_CASE("every prefix and every single-byte corruption of a GGUF header fails cleanly") {
    const GgufBuilder b = tiny_llama(false, 3, 40);
    const std::string header = b.header();
    for (std::size_t cut = 0; cut < header.size(); ++cut) {
        // A file that really ends there is an input error; a longer file asks for more.
        CHECK_THROWS_AS(parse_gguf(header.substr(0, cut), cut, "m.gguf"), InputError);
        try {
            parse_gguf(header.substr(0, cut), b.file_size(), "m.gguf");
        } catch (const NeedMoreBytes& e) {
            CHECK(e.needed > cut);
        } catch (const InputError&) {
            // e.g. a cut inside the tensor table once the rest is known
        }
    }
    int failures = 0;
    for (std::size_t i = 0; i < header.size(); ++i) {
        for (const int mask : {0x01, 0x80, 0xFF}) {
            std::string corrupt = header;
            corrupt[i] = static_cast<char>(static_cast<unsigned char>(corrupt[i]) ^ mask);
            try {
                parse_gguf(corrupt, b.file_size(), "m.gguf");
            } catch (const InputError& e) {
                ++failures;
                CHECK_THAT(e.what(), Catch::StartsWith("m.gguf: "));
            }
        }
    }
    CHECK(failures > 0);
}
