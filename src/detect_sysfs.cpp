// /sys/class/drm/cardN/device: PCI ids, amdgpu VRAM size and the PCIe link
#include <fmt/format.h>

#include <algorithm>

#include "detect_common.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {

using namespace detail;

std::vector<LocalGpu> parse_sysfs_drm(const std::vector<SysfsDrmCard>& cards) {
    check_count(cards.size(), "/sys/class/drm");
    std::vector<LocalGpu> out;
    for (std::size_t i = 0; i < cards.size(); ++i) {
        const auto& c = cards[i];
        const std::string vendor = hex_id(c.vendor), device = hex_id(c.device);
        if (vendor.empty() || device.empty())
            throw InputError(fmt::format(
                "/sys/class/drm card {}: vendor {} and device {} are not PCI ids like 0x10de", i,
                quote(trim(c.vendor)), quote(trim(c.device))));
        if (vendor != "10de" && vendor != "1002" && vendor != "8086") continue;
        LocalGpu g;
        g.source = "sysfs";
        set_pci(g, vendor, device, c.revision ? std::string_view(*c.revision) : std::string_view());
        // The name comes from the catalog's PCI ids when matched (match_to_catalog).
        // These files are the kernel's, so an odd value means "unknown", not bad input.
        if (c.vram_total)
            if (auto v = parse_u64(*c.vram_total)) g.memory_bytes = nonzero(*v);
        if (c.max_link_speed)
            if (auto r = leading_number(*c.max_link_speed))
                g.pcie_gen = pcie_gen_from_rate(r->first);
        if (c.max_link_width)
            if (auto w = parse_u64(*c.max_link_width); w && *w >= 1 && *w <= 32)
                g.pcie_width = static_cast<int>(*w);
        out.push_back(std::move(g));
    }
    return out;
}

}  // namespace gpuadvise
