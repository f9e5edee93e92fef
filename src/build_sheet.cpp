#include "gpuadvise/build_sheet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace gpuadvise {
namespace {

constexpr double kPsuHeadroom = 1.2;  // transient spikes and efficiency sweet spot
constexpr std::array<double, 12> kPsuSizes{450,  550,  650,  750,  850,  1000,
                                           1200, 1300, 1500, 1600, 2000, 2400};

}  // namespace

BuildSheet build_sheet(const Gpu& g, std::int64_t count, const HostPlatform* platform) {
    BuildSheet b;
    const double n = static_cast<double>(count);
    if (platform) {
        b.platform = std::string(platform->name);
        if (platform->usd)
            b.platform +=
                *platform->usd > 0
                    ? fmt::format(" (${:.0f} without GPUs, {}: {})", *platform->usd,
                                  kPriceKinds.name(platform->price_kind), platform->usd_basis)
                    : std::string(" (") + std::string(platform->usd_basis) + ")";
        else
            b.platform += fmt::format(" (price unknown: {})", platform->usd_basis);
    }
    const double host_watts =
        platform && platform->host_watts ? *platform->host_watts : kSystemBaseWatts;
    if (g.is_apple()) {
        b.power_note = "integrated in the Mac; no separate supply";
        b.host_link_note = "unified memory, no PCIe card";
        b.software = "macOS with Metal (PyTorch MPS, MLX, llama.cpp)";
        return b;
    }
    if (g.tdp_watts) {
        b.system_watts = *g.tdp_watts * n + host_watts;
        const double wanted = *b.system_watts * kPsuHeadroom;
        for (double size : kPsuSizes)
            if (size >= wanted && !g.is_module()) {
                b.psu_watts = size;
                break;
            }
        b.power_note =
            b.psu_watts
                ? fmt::format(
                      "{:.0f} W supply for ~{:.0f} W under load (GPUs {:.0f} W + system {:.0f} W, "
                      "x{:.1f} headroom)",
                      *b.psu_watts, *b.system_watts, *g.tdp_watts * n, host_watts, kPsuHeadroom)
                : fmt::format("~{:.0f} W under load: server power (redundant supplies)",
                              *b.system_watts);
    } else {
        b.power_note = "TDP unknown in the catalog";
    }
    b.pcie_gen = g.pcie_gen;
    b.pcie_lanes = g.pcie_lanes;
    if (platform && platform->lanes_per_gpu && b.pcie_lanes)
        b.pcie_lanes = std::min(*b.pcie_lanes, *platform->lanes_per_gpu);
    if (g.is_module()) {
        b.slots = 0;
        b.host_link_note = fmt::format("{} module{} on a vendor baseboard (HGX/OAM server)", count,
                                       count > 1 ? "s" : "");
    } else {
        b.slots = count;
        b.host_link_note =
            g.pcie_gen ? fmt::format(
                             "{} PCIe {}.0 x{} slot{} (x16 mechanical; a x8 card still needs the "
                             "slot's bandwidth for host-resident data)",
                             count, *g.pcie_gen, b.pcie_lanes.value_or(16), count > 1 ? "s" : "")
                       : fmt::format("{} PCIe slot{}", count, count > 1 ? "s" : "");
        if (count > 1 && g.link.type == LinkType::Nvlink && g.link.topology == LinkTopology::Bridge)
            b.host_link_note += g.link.max_gpus == 2 ? "; NVLink bridges join pairs"
                                                     : "; NVLink bridges join small groups";
    }
    switch (g.platform) {
        case SoftwarePlatform::Cuda:
            b.software = "NVIDIA driver + CUDA";
            break;
        case SoftwarePlatform::Rocm:
            b.software = "ROCm";
            break;
        case SoftwarePlatform::Oneapi:
            b.software = "Intel oneAPI / PyTorch XPU";
            break;
        case SoftwarePlatform::Habana:
            b.software = "Intel Gaudi software (SynapseAI)";
            break;
        case SoftwarePlatform::Metal:
            b.software = "macOS with Metal";
            break;
    }
    if (g.compute_capability)
        b.software += fmt::format(", compute capability {}", *g.compute_capability);
    if (g.gfx_target) b.software += fmt::format(", {}", *g.gfx_target);
    if (g.min_stack) b.software += fmt::format(" ({})", *g.min_stack);
    return b;
}

}  // namespace gpuadvise
