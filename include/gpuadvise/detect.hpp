#pragma once
// Which accelerators this machine has. The parsers read the text that vendor
// tools print (recorded samples in the tests) and the matcher maps what they
// report onto catalog ids. Pure, like the rest of the core: running the tools
// and reading /sys lives in src/cli/detect_runner.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"

namespace gpuadvise {

struct LocalGpu {
    std::string source;  // nvidia-smi | rocm-smi | amd-smi | xpu-smi | sysfs
    std::string name;    // as reported; empty when the tool said N/A
    std::optional<std::uint64_t> memory_bytes;
    std::optional<int> pcie_gen, pcie_width;  // the link's maximum, not its current state
    std::string pci_id;                       // "1002:74a1" when the source gives it
    std::string pci_revision;                 // "c8" when the source gives it (AMD ids need it)
    std::string pci_name;    // the catalog card(s) with that PCI id, set by match_to_catalog
    std::string catalog_id;  // empty when no catalog entry matches
    std::string match_note;  // how the match was made, or why there is none
};

// Largest tool output a parser accepts; the runner stops reading there too.
inline constexpr std::size_t kMaxToolOutputBytes = 4U << 20U;
// More GPUs than any single machine has: a sign of garbage, not hardware.
inline constexpr std::size_t kMaxLocalGpus = 1024;

// `nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.max,pcie.link.width.max
// --format=csv,noheader` (also accepts `nounits`). Each parser throws
// InputError with a one-line message on malformed input.
std::vector<LocalGpu> parse_nvidia_smi_csv(std::string_view text);

// `rocm-smi --showproductname --showmeminfo vram --json`.
std::vector<LocalGpu> parse_rocm_smi_json(std::string_view text);

// `amd-smi static --asic --bus --vram --json`: a list of GPUs, or an object
// with "gpu_data" (newer releases).
std::vector<LocalGpu> parse_amd_smi_json(std::string_view text);

// `xpu-smi discovery -j` (a "device_list"; the list carries no memory size)
// or `xpu-smi discovery -d N -j` (one device with memory and PCIe details).
std::vector<LocalGpu> parse_xpu_smi_json(std::string_view text);
// The device ids of a `xpu-smi discovery -j` list, in list order, so the
// runner can ask for each device's details.
std::vector<int> xpu_smi_device_ids(std::string_view text);

// What /sys/class/drm/cardN/device/ holds for one card (file contents as read).
struct SysfsDrmCard {
    std::string vendor;                         // "0x10de\n"
    std::string device;                         // "0x2684\n"
    std::optional<std::string> revision;        // "0xc8\n"
    std::optional<std::string> vram_total;      // mem_info_vram_total (amdgpu only), bytes
    std::optional<std::string> max_link_speed;  // "16.0 GT/s PCIe"
    std::optional<std::string> max_link_width;  // "16"
};
// Keeps NVIDIA (10de), AMD (1002) and Intel (8086) devices; others (a BMC's
// display chip, virtio) are skipped.
std::vector<LocalGpu> parse_sysfs_drm(const std::vector<SysfsDrmCard>& cards);

// The catalog cards whose pci_ids list this device (data/gpus.json: pci.ids
// for NVIDIA, libdrm's amdgpu.ids for AMD, where the revision tells Radeon
// SKUs apart). Ids are hex, with or without "0x".
std::vector<const Gpu*> cards_with_pci_id(const Catalog& catalog, std::string_view vendor,
                                          std::string_view device, std::string_view revision = {});

// Sets pci_name, catalog_id and match_note on each GPU. Names are compared without
// vendor and marketing words ("NVIDIA GeForce RTX 4090" is "rtx 4090"); where
// several catalog SKUs share a name (A100 40/80 GB), the reported memory picks
// the one within 10 %. Ambiguous or unknown cards keep an empty catalog_id.
void match_to_catalog(std::vector<LocalGpu>& gpus, const Catalog& catalog);

}  // namespace gpuadvise
