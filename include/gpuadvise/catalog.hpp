#pragma once
// The GPU catalog: data/gpus.json (compiled into the binary as constant data
// by src/tools/gen_data.cpp) or a user's file, validated on load so a wrong
// figure fails loudly with its JSON path. Hardware facts are enums parsed
// once here; the questions rules ask are methods of Gpu, answered in one place.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"

namespace gpuadvise {

enum class Vendor : std::uint8_t { Nvidia, Amd, Intel, Apple };
enum class Segment : std::uint8_t { Consumer, Workstation, Datacenter };
// The GPU-to-GPU link beside PCIe.
enum class LinkType : std::uint8_t { None, Nvlink, InfinityFabric, XeLink, Ethernet };
// How the link joins cards: bridges join small groups (an RTX 3090's NVLink
// bridge joins a pair); a switch (NVSwitch on HGX boards) joins every GPU of
// the baseboard at full speed; a mesh links every pair directly (MI300X xGMI).
enum class LinkTopology : std::uint8_t { None, Bridge, Switch, Mesh };
enum class SoftwarePlatform : std::uint8_t { Cuda, Rocm, Oneapi, Habana, Metal };
// card: a PCIe board in a slot; module: SXM/OAM/superchip on a vendor
// baseboard; soc: the GPU shares the host's memory and package (Apple, MI300A);
// laptop: a mobile GPU soldered into a laptop, with its own memory.
enum class FormFactor : std::uint8_t { Card, Module, Soc, Laptop };
// A passive card has no fan: it needs a server's front-to-back airflow.
enum class Cooling : std::uint8_t { Active, Passive };
enum class PriceKind : std::uint8_t { Msrp, Street, Used, List, Estimate };
enum class Confidence : std::uint8_t { High, Medium, Low };

inline constexpr auto kVendors = make_enum_table<Vendor>({{Vendor::Nvidia, "nvidia"},
                                                          {Vendor::Amd, "amd"},
                                                          {Vendor::Intel, "intel"},
                                                          {Vendor::Apple, "apple"}});
inline constexpr auto kSegments = make_enum_table<Segment>({{Segment::Consumer, "consumer"},
                                                            {Segment::Workstation, "workstation"},
                                                            {Segment::Datacenter, "datacenter"}});
inline constexpr auto kLinkTypes =
    make_enum_table<LinkType>({{LinkType::None, "none"},
                               {LinkType::Nvlink, "nvlink"},
                               {LinkType::InfinityFabric, "infinity-fabric"},
                               {LinkType::XeLink, "xe-link"},
                               {LinkType::Ethernet, "ethernet"}});
inline constexpr auto kLinkTopologies =
    make_enum_table<LinkTopology>({{LinkTopology::None, "none"},
                                   {LinkTopology::Bridge, "bridge"},
                                   {LinkTopology::Switch, "switch"},
                                   {LinkTopology::Mesh, "mesh"}});
inline constexpr auto kPlatforms =
    make_enum_table<SoftwarePlatform>({{SoftwarePlatform::Cuda, "cuda"},
                                       {SoftwarePlatform::Rocm, "rocm"},
                                       {SoftwarePlatform::Oneapi, "oneapi"},
                                       {SoftwarePlatform::Habana, "habana"},
                                       {SoftwarePlatform::Metal, "metal"}});
inline constexpr auto kFormFactors = make_enum_table<FormFactor>({{FormFactor::Card, "card"},
                                                                  {FormFactor::Module, "module"},
                                                                  {FormFactor::Soc, "soc"},
                                                                  {FormFactor::Laptop, "laptop"}});
inline constexpr auto kCoolings =
    make_enum_table<Cooling>({{Cooling::Active, "active"}, {Cooling::Passive, "passive"}});
inline constexpr auto kPriceKinds =
    make_enum_table<PriceKind>({{PriceKind::Msrp, "msrp"},
                                {PriceKind::Street, "street"},
                                {PriceKind::Used, "used"},
                                {PriceKind::List, "list"},
                                {PriceKind::Estimate, "street-estimate"}});
inline constexpr auto kConfidences = make_enum_table<Confidence>(
    {{Confidence::High, "high"}, {Confidence::Medium, "medium"}, {Confidence::Low, "low"}});

inline std::string_view to_string(Vendor v) {
    return kVendors.name(v);
}
// The vendor as its products are named ("NVIDIA GeForce RTX 4090").
inline std::string_view brand(Vendor v) {
    constexpr std::array<std::string_view, 4> kBrands{"NVIDIA", "AMD", "Intel", "Apple"};
    return kBrands[static_cast<std::size_t>(v)];
}
inline std::string_view to_string(Segment v) {
    return kSegments.name(v);
}
inline std::string_view to_string(LinkType v) {
    return kLinkTypes.name(v);
}
inline std::string_view to_string(LinkTopology v) {
    return kLinkTopologies.name(v);
}
inline std::string_view to_string(SoftwarePlatform v) {
    return kPlatforms.name(v);
}
inline std::string_view to_string(FormFactor v) {
    return kFormFactors.name(v);
}
inline std::string_view to_string(PriceKind v) {
    return kPriceKinds.name(v);
}
inline std::string_view to_string(Confidence v) {
    return kConfidences.name(v);
}

// Dense tensor/matrix throughput; int8 in TOPS; nullopt = no such path or unknown.
struct Tflops {
    std::optional<double> fp32, tf32, fp16, bf16, fp8, fp4, int8;
};

struct Price {
    double usd = 0;
    PriceKind kind = PriceKind::Msrp;
    std::string_view date;  // "2025-03"
    std::string_view source;
};

// The power a GPU may be configured to run at (a laptop GPU's TGP range set by
// the laptop maker, a module's power modes, an APU's cTDP) and the power its
// TFLOPS and clocks are stated at.
struct PowerRange {
    double min_watts = 0;
    double max_watts = 0;
    double tflops_at_watts = 0;
    std::string_view source;
};

// What a GPU that shares its memory with the CPU may use of it: the share it
// gets without changing anything, the most the setting allows where that is
// documented, and the setting that moves it (iogpu.wired_limit_mb on macOS,
// amdgpu.gttsize / ttm.pages_limit or the BIOS carve-out on AMD APUs).
struct UnifiedPool {
    double default_share = 1;
    std::optional<double> max_share;
    std::string_view setting;
    std::string_view source;
};

struct Link {
    LinkType type = LinkType::None;
    std::optional<double> gbps;  // bidirectional per GPU, as vendors quote it
    std::int64_t max_gpus = 1;   // GPUs one link domain joins
    LinkTopology topology = LinkTopology::None;
};

// Every text field is a view: into static data for the embedded catalog, into
// the file (kept alive by Catalog::storage) for a user's catalog.
struct Gpu {
    std::string_view id;
    Vendor vendor = Vendor::Nvidia;
    std::string_view name;
    std::span<const std::string_view> aliases;
    Segment segment = Segment::Consumer;
    std::string_view architecture;
    std::string_view arch_family;  // volta, ampere, ada, hopper, cdna3, xe-hpg, ...
    std::optional<std::int64_t> launch_year;
    std::uint64_t memory_bytes = 0;
    std::string_view memory_type;
    double memory_bandwidth_gbps = 0;
    bool unified_memory = false;
    std::optional<UnifiedPool> unified_pool;  // unified-memory parts whose pool the OS shares
    std::optional<bool> ecc;
    Tflops tflops;
    double sparsity_multiplier = 1;
    std::optional<double> tdp_watts;
    std::optional<PowerRange> power;  // a configurable power range; tdp_watts is its maximum
    std::optional<std::int64_t> pcie_gen, pcie_lanes;
    // Peer-to-peer over PCIe: false where the driver disables it (GeForce),
    // so multi-card traffic bounces through host memory; nullopt = unknown.
    std::optional<bool> pcie_p2p;
    Link link;
    FormFactor form = FormFactor::Card;
    Cooling cooling = Cooling::Active;
    std::string_view form_factor;  // free text, as the vendor describes it
    SoftwarePlatform platform = SoftwarePlatform::Cuda;
    std::optional<std::string_view> compute_capability, gfx_target, min_stack;
    std::optional<bool> av1_encode;
    std::optional<std::int64_t> nvenc;
    std::optional<Price> price;         // the price used for value and cost
    std::optional<Price> launch_price;  // kept for reference when `price` is a later street price
    // Sold only in one region ("cn": the China-market SKUs made for export
    // rules) or only as a cloud instance; ranked only when asked for.
    std::optional<std::string_view> region;
    bool cloud_only = false;
    std::span<const std::string_view> pci_ids;  // "10de:2684", "1002:744c:c8" (with revision)
    std::span<const std::string_view> sources;
    Confidence confidence = Confidence::Medium;
    std::string_view notes;
    // Streaming multiprocessors (NVIDIA): decode kernels keep a bounded
    // number of bytes in flight per SM, so the bandwidth they reach at small
    // batches is at most SMs x the engine's per-SM rate (engines.hpp,
    // stream_gbps_per_sm); nullopt: not in the catalog.
    std::optional<std::int64_t> sm_count;

    bool has_fast_link() const { return link.type != LinkType::None; }
    // GPUs one switched GPU link joins (an NVL72 rack: 72, beyond the 4 of a
    // compute tray); 1 when the card has no switched link.
    std::int64_t switch_domain() const {
        return has_fast_link() && link.topology == LinkTopology::Switch ? link.max_gpus : 1;
    }
    bool is_module() const { return form == FormFactor::Module; }
    bool shares_host_memory() const { return form == FormFactor::Soc; }
    bool is_laptop() const { return form == FormFactor::Laptop; }
    bool is_apple() const { return vendor == Vendor::Apple; }
    // Host link bandwidth per direction in GB/s from PCIe generation and lanes.
    std::optional<double> pcie_gbps() const;
    // Per-direction bandwidth of the fast link in GB/s.
    std::optional<double> link_gbps_per_direction() const;
};

// A normalised name (normalize_name of an id, name or alias) and its card.
struct NameEntry {
    std::string_view key;
    std::uint32_t gpu = 0;
};

struct Catalog {
    std::string source;  // "embedded data/gpus.json" or a path
    std::string_view date;
    std::vector<Gpu> gpus;
    std::vector<NameEntry> names;         // sorted by key, for lookup
    std::shared_ptr<const void> storage;  // owns what the views of a parsed catalog point into
    // Strings given after parsing (set_price's labels); shared, so the views
    // stay valid in every copy of the catalog.
    std::shared_ptr<std::deque<std::string>> added = std::make_shared<std::deque<std::string>>();
};

// Parses and validates; throws InputError "<source>: /gpus/3/memory_bytes: ...".
// The catalog keeps a copy of `text`; views into it stay valid for its life.
Catalog parse_catalog(std::string_view text, std::string_view source);
// The same, keeping `text` itself rather than a copy (a 1 GB file is read once).
Catalog parse_catalog_kept(std::string&& text, std::string_view source);
// The same, with `text` owned by `owner` (a mapped file), which the catalog keeps.
Catalog parse_catalog_kept(std::shared_ptr<const void> owner, std::string_view text,
                           std::string_view source);

// Applies `overlay` to `base`: entries whose id exists replace the fields they
// give (a local price, say); new ids are added. The result is validated whole.
Catalog merge_catalogs(std::string_view base_text, std::string_view base_source,
                       std::string_view overlay_text, std::string_view overlay_source);

// A copy of `catalog` with one card's price replaced (a user's local price).
// The card is looked up forgivingly; `label` says where the price came from.
void set_price(Catalog& catalog, std::string_view gpu_name, double usd, std::string_view label);

// `gpuadvise gpus`: the cards that pass every filter, in the chosen order.
struct GpuFilter {
    std::optional<Vendor> vendor;
    std::optional<Segment> segment;
    std::uint64_t min_memory_bytes = 0;
    double min_bandwidth_gbps = 0;
    std::string supports;  // "" or one of the --supports choices
    std::string sort = "id";
};
std::vector<const Gpu*> filter_gpus(const Catalog& catalog, const GpuFilter& filter);
// The --supports features and --sort keys filter_gpus knows, from its tables.
std::vector<std::string> supports_choices();
std::vector<std::string> sort_choices();

// Forgiving lookup: "4090", "RTX 4090", "rtx-4090", "nvidia-rtx-4090". Throws
// InputError for unknown names (with a suggestion) and ambiguous ones (listing
// the candidates, as "a100"). `what` names the flag or key in messages.
const Gpu& resolve_gpu(const Catalog& catalog, std::string_view name,
                       std::string_view what = "--gpu");

// The compiled-in catalog (data/gpus.json, generated at build time by
// src/tools/gen_data.cpp through parse_catalog): its JSON text, and the
// catalog as constant data (no parsing at start-up).
namespace embedded {
std::string_view gpus_json();
Catalog build_catalog();
const Catalog& catalog();
inline constexpr std::string_view kGpusSource = "embedded data/gpus.json";
}  // namespace embedded

}  // namespace gpuadvise
