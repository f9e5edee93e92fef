#pragma once
// The GPU catalog: data/gpus.json (embedded at build time) or a user's file,
// validated on load so a wrong figure fails loudly with its JSON path.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise {

struct Tflops {  // dense tensor/matrix throughput; int8 in TOPS; nullopt = no such path or unknown
    std::optional<double> fp32, tf32, fp16, bf16, fp8, int8;
};

struct Price {
    double usd = 0;
    std::string kind;  // msrp | street-estimate
    std::string date;
    std::string source;
};

struct Gpu {
    std::string id;
    std::string vendor;  // nvidia | amd | intel | apple
    std::string name;
    std::vector<std::string> aliases;
    std::string segment;  // consumer | workstation | datacenter
    std::string architecture;
    std::string arch_family;  // volta, ampere, ada, hopper, cdna3, xe-hpg, ...
    std::optional<std::int64_t> launch_year;
    std::uint64_t memory_bytes = 0;
    std::string memory_type;
    double memory_bandwidth_gbps = 0;
    bool unified_memory = false;
    std::optional<bool> ecc;
    Tflops tflops;
    double sparsity_multiplier = 1;
    std::optional<double> tdp_watts;
    std::optional<std::int64_t> pcie_gen, pcie_lanes;
    std::string interconnect_type = "none";  // nvlink | infinity-fabric | xe-link | ethernet | none
    std::optional<double> interconnect_gbps;
    std::int64_t interconnect_max_gpus = 1;
    std::string form_factor;
    std::string software_platform;  // cuda | rocm | oneapi | habana | metal
    std::optional<std::string> compute_capability, gfx_target, min_stack;
    std::optional<bool> av1_encode;
    std::optional<std::int64_t> nvenc;
    std::optional<Price> price;
    std::vector<std::string> sources;
    std::string confidence;
    std::string notes;

    // Host link bandwidth per direction in GB/s from PCIe generation and lanes.
    std::optional<double> pcie_gbps() const;
};

struct Catalog {
    std::string source;  // "embedded data/gpus.json" or a path
    std::string date;
    std::vector<Gpu> gpus;
};

// Parses and validates; throws InputError "<source>: /gpus/3/memory_bytes: ...".
Catalog parse_catalog(std::string_view text, std::string_view source);

// Applies `overlay` to `base`: entries whose id exists replace the fields they
// give (a local price, say); new ids are added. The result is validated whole.
Catalog merge_catalogs(std::string_view base_text, std::string_view base_source, std::string_view overlay_text,
                       std::string_view overlay_source);

// Forgiving lookup: "4090", "RTX 4090", "rtx-4090", "nvidia-rtx-4090". Throws
// InputError for unknown names (with a suggestion) and ambiguous ones (listing
// the candidates, as "a100").
const Gpu& resolve_gpu(const Catalog& catalog, std::string_view name);

}  // namespace gpuadvise
