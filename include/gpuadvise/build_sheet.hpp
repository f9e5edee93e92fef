#pragma once
// What to buy around the cards: power supply, host slots and software stack.
// The document's rule (§4: a 450 W RTX 4090 wants an 850 W supply) is
// generalised: (GPU TDP x count + 200 W for CPU, board and drives) x 1.2,
// rounded up to a standard supply size; beyond 3 kW it is server power.
#include <cstdint>
#include <optional>
#include <string>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/platform.hpp"

namespace gpuadvise {

struct BuildSheet {
    std::optional<double> system_watts;  // estimated draw under load, null without a TDP
    std::optional<double> psu_watts;     // recommended supply (null beyond desktop sizes)
    std::string power_note;
    std::optional<std::int64_t> pcie_gen, pcie_lanes;
    std::int64_t slots = 0;  // PCIe slots, 0 for SXM/OAM modules on a baseboard
    std::string host_link_note;
    std::string software;
    std::string platform;  // what the cards go into, with its price and its basis
};

// `platform` (may be null) is the plan's host: its own power draw and the
// lanes it gives each card replace the desktop defaults.
BuildSheet build_sheet(const Gpu& gpu, std::int64_t count, const HostPlatform* platform = nullptr);

}  // namespace gpuadvise
