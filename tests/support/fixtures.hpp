#pragma once
// Small, hand-checkable inputs several test files share: a toy Llama whose
// byte counts can be restated by hand, and one card with round figures.
#include "gpuadvise/catalog.hpp"
#include "support/request.hpp"

namespace gpuadvise::test {

// A toy Llama: 2 layers, hidden 64, 4 heads / 2 KV heads of 16, FFN 128, vocab 100, untied.
inline constexpr const char* kToyLlama =
    R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,)"
    R"("intermediate_size":128,"vocab_size":100,"tie_word_embeddings":false})";

inline Workload toy(Values values) {
    ModelInputs inputs;
    inputs.hf_config_text = kToyLlama;
    return workload(values, {}, inputs);
}

// One card with round figures: 1000 GB/s, 100 dense TFLOPS bf16/fp16, 500 W,
// PCIe 4 x16 (31.5 GB/s per direction).
inline Gpu round_card() {
    static const Catalog c = parse_catalog(
        R"({"gpus":[{"id":"round","vendor":"nvidia","name":"Round","segment":"datacenter",
        "arch_family":"hopper","memory_bytes":85899345920,"memory_bandwidth_gbps":1000,
        "tflops":{"bf16":100,"fp16":100},"tdp_watts":500,"pcie":{"gen":4,"lanes":16,"p2p":true},
        "software":{"platform":"cuda"},"price":{"usd":10000,"kind":"msrp","source":"t"},"sources":["t"]}]})",
        "t");
    return c.gpus.front();
}

}  // namespace gpuadvise::test
