#include "gpuadvise/safetensors.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpuadvise/error.hpp"
#include "support/input_error.hpp"
using namespace gpuadvise;

namespace {

using u64 = std::uint64_t;

// A safetensors file's leading bytes: the header length, then the header.
std::string st_header(std::string_view json) {
    std::string out;
    for (int i = 0; i < 8; ++i) out += static_cast<char>((json.size() >> (8 * i)) & 0xFF);
    out += json;
    return out;
}

// Parses a header whose tensor data is `data` bytes long.
SafetensorsInfo parse(std::string_view json, u64 data) {
    const std::string bytes = st_header(json);
    return parse_safetensors_header(bytes, bytes.size() + data, "m.safetensors");
}

std::string error_of(std::string_view json, u64 data) {
    return input_error([&] { parse(json, data); });
}

const char* const kTwoTensors =
    R"({"__metadata__":{"format":"pt"},)"
    R"("model.embed.weight":{"dtype":"F16","shape":[4,8],"data_offsets":[0,64]},)"
    R"("model.norm.weight":{"dtype":"BF16","shape":[8],"data_offsets":[64,80]}})";

}  // namespace

TEST_CASE("a safetensors header yields exact parameter and byte counts per dtype") {
    const SafetensorsInfo info = parse(kTwoTensors, 80);
    CHECK(info.tensors == 2);
    CHECK(info.params == 40);
    CHECK(info.bytes == 80);
    CHECK(info.dtype_counts.at("F16") == 32);
    CHECK(info.dtype_counts.at("BF16") == 8);
}

TEST_CASE("safetensors dtypes of every width, in any order, with padding") {
    // FP8 weights with F32 scales (DeepSeek V3 style), packed F4, a scalar,
    // an empty tensor, unknown tensor fields, and the space padding writers add.
    const std::string json =
        R"({"w":{"dtype":"F8_E4M3","shape":[16,16],"data_offsets":[8,264]},)"
        R"("w_scale":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
        R"("packed":{"dtype":"F4","shape":[6],"data_offsets":[264,267],"extra":{"a":[1,2]}},)"
        R"("step":{"dtype":"I64","shape":[],"data_offsets":[267,275]},)"
        R"("empty":{"dtype":"U8","shape":[0,5],"data_offsets":[275,275]}})"
        "        ";
    const SafetensorsInfo info =
        parse(json, 280);  // trailing bytes after the last tensor are tolerated
    CHECK(info.tensors == 5);
    CHECK(info.params == 256 + 2 + 6 + 1);
    CHECK(info.bytes == 275);
    CHECK(info.dtype_counts.at("F8_E4M3") == 256);
    CHECK(info.dtype_counts.at("F4") == 6);
    CHECK(info.dtype_counts.at("U8") == 0);
    // A header without tensors is no model, as GGUF files without tensors are refused.
    CHECK_THROWS_WITH(parse("{}", 0), Catch::Contains("lists no tensors"));
}

TEST_CASE("shards sum and the index lists each shard once") {
    const SafetensorsInfo a = parse(kTwoTensors, 80);
    const SafetensorsInfo b =
        parse(R"({"lm_head.weight":{"dtype":"F16","shape":[10,8],"data_offsets":[0,160]}})", 160);
    const SafetensorsInfo total = merge_safetensors({a, b});
    CHECK(total.tensors == 3);
    CHECK(total.params == 120);
    CHECK(total.bytes == 240);
    CHECK(total.dtype_counts.at("F16") == 112);
    CHECK(total.dtype_counts.at("BF16") == 8);
    CHECK(merge_safetensors({}).params == 0);

    const auto files = parse_safetensors_index(R"({"metadata":{"total_size":240},"weight_map":{
        "lm_head.weight":"model-00002-of-00002.safetensors",
        "model.embed.weight":"model-00001-of-00002.safetensors",
        "model.norm.weight":"model-00001-of-00002.safetensors"}})",
                                               "index.json");
    CHECK(files == std::vector<std::string>{"model-00001-of-00002.safetensors",
                                            "model-00002-of-00002.safetensors"});
}

TEST_CASE("bad safetensors indexes are input errors") {
    const auto err = [](std::string_view json) {
        return input_error([&] { parse_safetensors_index(json, "i.json"); });
    };
    CHECK_THAT(err(""), Catch::StartsWith("i.json: ") && Catch::Contains("empty"));
    CHECK_THAT(err("{"), Catch::Contains("not valid JSON"));
    CHECK_THAT(err(R"({"weight_map":{},"metadata":{"total_size":1e999}})"),
               Catch::Contains("lists no tensors"));
    CHECK_THAT(err(R"({"weight_map":{"a":"x.safetensors","a":"y.safetensors"}})"),
               Catch::Contains("appears twice"));
    CHECK_THAT(err("[]"), Catch::Contains("expected a JSON object"));
    CHECK_THAT(err(R"({"metadata":{}})"), Catch::Contains("'weight_map'"));
    CHECK_THAT(err(R"({"weight_map":{}})"), Catch::Contains("lists no tensors"));
    CHECK_THAT(err(R"({"weight_map":{"a":3}})"),
               Catch::Contains("/weight_map/a") && Catch::Contains("file name"));
    for (const char* bad :
         {"../secret", "/etc/passwd", "sub/dir.safetensors", "..", "a\\\\b", ""}) {
        INFO(bad);
        CHECK_THAT(err(std::string(R"({"weight_map":{"a":")") + bad + "\"}}"),
                   Catch::Contains("not a plain file name"));
    }
}

TEST_CASE("a header longer than the bytes read asks for exactly the header") {
    const std::string bytes = st_header(kTwoTensors);
    const u64 size = bytes.size() + 80;
    try {
        parse_safetensors_header(std::string_view(bytes).substr(0, 20), size, "m.safetensors");
        FAIL("expected NeedMoreBytes");
    } catch (const NeedMoreBytes& e) {
        CHECK(e.needed == bytes.size());
        CHECK_THAT(e.what(), Catch::StartsWith("m.safetensors: "));
    }
    try {
        parse_safetensors_header(std::string_view(bytes).substr(0, 3), size, "m.safetensors");
        FAIL("expected NeedMoreBytes");
    } catch (const NeedMoreBytes& e) {
        CHECK(e.needed == 8);
    }
    CHECK(parse_safetensors_header(bytes, size, "m.safetensors").params == 40);
}

TEST_CASE("corrupt safetensors headers are input errors naming the file and the problem") {
    SECTION("truncated files and absurd header lengths") {
        CHECK_THAT(
            input_error([] { parse_safetensors_header("abc", 3, "m.safetensors"); }),
            Catch::StartsWith("m.safetensors: ") && Catch::Contains("not a safetensors file"));
        const std::string bytes = st_header(kTwoTensors);
        CHECK_THAT(input_error(
                       [&] { parse_safetensors_header(bytes.substr(0, 30), 30, "m.safetensors"); }),
                   Catch::Contains("not a safetensors file") && Catch::Contains("30-byte file"));
        std::string huge = st_header("{}");
        huge[5] = '\x01';  // length 2^40 + 2
        CHECK_THAT(
            input_error([&] { parse_safetensors_header(huge, huge.size(), "m.safetensors"); }),
            Catch::Contains("not a safetensors file"));
        // 200 MiB header in a 1 GiB file: refused without asking to read it.
        std::string big;
        for (int i = 0; i < 8; ++i) big += static_cast<char>(((200 * kMiB) >> (8 * i)) & 0xFF);
        CHECK_THAT(input_error([&] { parse_safetensors_header(big, kGiB, "m.safetensors"); }),
                   Catch::Contains("100 MiB limit"));
        CHECK_THAT(input_error([] {
                       parse_safetensors_header(std::string_view("GGUF\3\0\0\0", 8), 100,
                                                "m.safetensors");
                   }),
                   Catch::Contains("GGUF file"));
    }
    SECTION("tensor data beyond the file") {
        CHECK_THAT(error_of(kTwoTensors, 79), Catch::Contains("'model.norm.weight'") &&
                                                  Catch::Contains("run past the end of the file"));
    }
    SECTION("bad JSON") {
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16",)", 0), Catch::Contains("not valid JSON"));
        CHECK_THAT(error_of("{} x", 0), Catch::Contains("not valid JSON"));
        CHECK_THAT(error_of("", 0), Catch::Contains("empty"));
        // Metadata is not read: a number beyond double range there is no error.
        CHECK_THAT(error_of(R"({"__metadata__":{"x":1e999}})", 0),
                   Catch::Contains("lists no tensors"));
        CHECK_THAT(error_of("[]", 0), Catch::Contains("must be a JSON object"));
        CHECK_THAT(error_of("3", 0), Catch::Contains("must be a JSON object"));
        CHECK_THAT(error_of(std::string(100, '[') + std::string(100, ']'), 0),
                   Catch::Contains("nesting deeper than"));
        CHECK_THAT(
            error_of(R"({"a":{"x":)" + std::string(100, '[') + std::string(100, ']') + "}}", 0),
            Catch::Contains("nesting deeper than"));
    }
    SECTION("bad tensor entries") {
        CHECK_THAT(error_of(R"({"a":{"dtype":"F17","shape":[2],"data_offsets":[0,4]}})", 4),
                   Catch::Contains("tensor 'a' has unknown dtype 'F17'"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,8]}})", 8),
                   Catch::Contains("data_offsets [0, 8] hold 8 bytes but F16 [2] needs 4 bytes"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[4,0]}})", 8),
                   Catch::Contains("end before they begin"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 8),
                   Catch::Contains("do not fill whole bytes"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16","shape":[2]}})", 8),
                   Catch::Contains("tensor 'a' has no 'data_offsets'"));
        CHECK_THAT(error_of(R"({"a":{"shape":[2],"data_offsets":[0,4]}})", 8),
                   Catch::Contains("has no 'dtype'"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16","data_offsets":[0,4]}})", 8),
                   Catch::Contains("has no 'shape'"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4,8]}})", 8),
                   Catch::Contains("two integers"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0]}})", 8),
                   Catch::Contains("two integers"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16","shape":[-2],"data_offsets":[0,4]}})", 8),
                   Catch::Contains("'shape' must be an array of non-negative integers"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16","shape":[2.5],"data_offsets":[0,4]}})", 8),
                   Catch::Contains("'shape' must be"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"F16","shape":"2","data_offsets":[0,4]}})", 8),
                   Catch::Contains("'shape' must be"));
        CHECK_THAT(error_of(R"({"a":{"dtype":16,"shape":[2],"data_offsets":[0,4]}})", 8),
                   Catch::Contains("'dtype' must be a string"));
        CHECK_THAT(
            error_of(R"({"a":{"dtype":"F16","dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 8),
            Catch::Contains("the key 'dtype' appears twice"));
        CHECK_THAT(error_of(R"({"a":[1,2]})", 8), Catch::Contains("tensor 'a' must be an object"));
        CHECK_THAT(error_of(R"({"__metadata__":3})", 8),
                   Catch::Contains("'__metadata__' must be an object"));
        CHECK_THAT(error_of(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                            R"("a":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
                            8),
                   Catch::Contains("the key 'a' appears twice"));
    }
    SECTION("shapes whose product overflows") {
        CHECK_THAT(
            error_of(
                R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 8),
            Catch::Contains("more elements than fit in 64 bits"));
        CHECK_THAT(
            error_of(R"({"a":{"dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,4]}})",
                     8),
            Catch::Contains("more elements than fit in 64 bits"));
    }
    SECTION("overlapping tensors") {
        CHECK_THAT(error_of(R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                            R"("b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
                            8),
                   Catch::Contains("tensors 'a' and 'b' overlap"));
    }
    SECTION("control characters in names do not reach the message") {
        const std::string msg =
            error_of(R"({"a\u001b[31m":{"dtype":"F17","shape":[2],"data_offsets":[0,4]}})", 4);
        CHECK(msg.find('\x1b') == std::string::npos);
        CHECK_THAT(msg, Catch::Contains("'a?[31m'"));
    }
}

TEST_CASE("a caller passing more bytes than the file size is a bug in the caller") {
    CHECK_THROWS_AS(parse_safetensors_header("12345678", 4, "m.safetensors"),
                    std::invalid_argument);
}

TEST_CASE("every prefix and every single-byte corruption of a safetensors header fails cleanly") {
    const std::string bytes = st_header(kTwoTensors);
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        CHECK_THROWS_AS(parse_safetensors_header(bytes.substr(0, cut), cut, "m.safetensors"),
                        InputError);
        CHECK_THROWS_AS(
            parse_safetensors_header(bytes.substr(0, cut), bytes.size() + 80, "m.safetensors"),
            NeedMoreBytes);
    }
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        for (const int mask : {0x01, 0x20, 0x80}) {
            std::string corrupt = bytes;
            corrupt[i] = static_cast<char>(static_cast<unsigned char>(corrupt[i]) ^ mask);
            try {
                parse_safetensors_header(corrupt, bytes.size() + 80, "m.safetensors");
            } catch (const InputError& e) {
                CHECK_THAT(e.what(), Catch::StartsWith("m.safetensors: "));
            }
        }
    }
}

TEST_CASE("MXFP4 blocks count two values a byte, their scales no parameters") {
    // gpt-oss's experts: U8 "_blocks" of 16 bytes (32 values) per block and a
    // U8 E8M0 "_scales" byte per block; the bias stays BF16.
    const std::string json =
        R"({"experts.gate_up_proj_blocks":{"dtype":"U8","shape":[2,4,1,16],"data_offsets":[0,128]},)"
        R"("experts.gate_up_proj_scales":{"dtype":"U8","shape":[2,4,1],"data_offsets":[128,136]},)"
        R"("experts.gate_up_proj_bias":{"dtype":"BF16","shape":[2,4],"data_offsets":[136,152]}})";
    const SafetensorsInfo info = parse(json, 152);
    CHECK(info.params == 2 * 4 * 32 + 8);
    CHECK(info.bytes == 152);
    CHECK(info.dtype_counts.at("MXFP4") == 256);
    CHECK(info.dtype_counts.at("U8") == 0);  // the scales: bytes, no parameters
}
