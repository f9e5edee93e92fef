// ggml's tensor types: one table, indexed by the id a GGUF file stores.
#include <array>

#include "gpuadvise/gguf.hpp"

namespace gpuadvise {
namespace {

// ggml's tensor types, indexed by id. Ids: enum ggml_type in ggml/include/ggml.h;
// block sizes: the type_traits table in ggml/src/ggml.c; type sizes: sizeof of
// the block structs in ggml/src/ggml-common.h, whose static_asserts spell out
// each sum (llama.cpp, ggml-org/llama.cpp, 2025). Empty names are ids removed
// from GGUF files: Q4_2/Q4_3 (4, 5) and the repacked Q4_0_x_x and IQ4_NL_x_x
// layouts (31-33, 36-38), which llama.cpp now builds at load time instead.
constexpr std::array<GgmlType, kGgmlTypeCount> kGgmlTypes = {{
    {"F32", 1, 4},         // 0
    {"F16", 1, 2},         // 1
    {"Q4_0", 32, 18},      // 2: fp16 scale + 16 bytes of nibbles
    {"Q4_1", 32, 20},      // 3: fp16 scale and min + 16
    {"", 0, 0},            // 4
    {"", 0, 0},            // 5
    {"Q5_0", 32, 22},      // 6: 2 + 4 (fifth bits) + 16
    {"Q5_1", 32, 24},      // 7: 4 + 4 + 16
    {"Q8_0", 32, 34},      // 8: 2 + 32
    {"Q8_1", 32, 36},      // 9: 4 + 32
    {"Q2_K", 256, 84},     // 10: 16 scales + 64 quants + 4
    {"Q3_K", 256, 110},    // 11: 32 hmask + 64 + 12 scales + 2
    {"Q4_K", 256, 144},    // 12: 4 + 12 scales + 128
    {"Q5_K", 256, 176},    // 13: 4 + 12 + 32 high bits + 128
    {"Q6_K", 256, 210},    // 14: 128 + 64 + 16 scales + 2
    {"Q8_K", 256, 292},    // 15: fp32 scale + 256 + 32 (bsums)
    {"IQ2_XXS", 256, 66},  // 16: 2 + 64
    {"IQ2_XS", 256, 74},   // 17: 2 + 64 + 8
    {"IQ3_XXS", 256, 98},  // 18: 2 + 96
    {"IQ1_S", 256, 50},    // 19: 2 + 32 + 16
    {"IQ4_NL", 32, 18},    // 20: 2 + 16
    {"IQ3_S", 256, 110},   // 21: 2 + 13 * 8 + 4
    {"IQ2_S", 256, 82},    // 22: 2 + 64 + 16
    {"IQ4_XS", 256, 136},  // 23: 2 + 2 + 4 + 128
    {"I8", 1, 1},          // 24
    {"I16", 1, 2},         // 25
    {"I32", 1, 4},         // 26
    {"I64", 1, 8},         // 27
    {"F64", 1, 8},         // 28
    {"IQ1_M", 256, 56},    // 29: 32 + 16 + 8
    {"BF16", 1, 2},        // 30
    {"", 0, 0},            // 31
    {"", 0, 0},            // 32
    {"", 0, 0},            // 33
    {"TQ1_0", 256, 54},    // 34: 48 + 4 + 2
    {"TQ2_0", 256, 66},    // 35: 64 + 2
    {"", 0, 0},            // 36
    {"", 0, 0},            // 37
    {"", 0, 0},            // 38
    {"MXFP4", 32, 17},     // 39: E8M0 scale + 16
    {"NVFP4", 64, 36},     // 40: 4 UE4M3 scales + 32
    {"Q1_0", 128, 18},     // 41: 2 + 16
}};

}  // namespace

const GgmlType* ggml_type(std::uint32_t id) {
    if (id >= kGgmlTypes.size() || kGgmlTypes[id].block_size == 0) return nullptr;
    return &kGgmlTypes[id];
}

}  // namespace gpuadvise
