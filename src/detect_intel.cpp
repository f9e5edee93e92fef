// xpu-smi discovery -j (the device list) and xpu-smi discovery -d N -j (one device)
#include <fmt/format.h>

#include <algorithm>

#include "detect_common.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {

using namespace detail;

namespace {

// The device objects of `xpu-smi discovery -j` or of one device's details.
std::vector<json::Value> xpu_devices(const json::Value& root) {
    if (!root.is_object()) throw InputError("xpu-smi: expected a JSON object with \"device_list\"");
    std::vector<json::Value> out;
    if (const auto list = member(root, {"device_list"})) {
        if (!list->is_array()) throw InputError("xpu-smi: \"device_list\" is not a list");
        for (const json::Value item : list->items()) {
            if (!item.is_object())
                throw InputError("xpu-smi: a \"device_list\" entry is not an object");
            check_count(out.size(), "xpu-smi");
            out.push_back(item);
        }
    } else if (member(root, {"device_name"}) || member(root, {"device_id"})) {
        out.push_back(root);
    } else {
        throw InputError("xpu-smi: expected \"device_list\" or one device's details");
    }
    return out;
}

}  // namespace

std::vector<LocalGpu> parse_xpu_smi_json(std::string_view text) {
    constexpr std::string_view tool = "xpu-smi";
    const ToolJson parsed = parse_tool_json(text, tool);
    std::vector<LocalGpu> out;
    for (const json::Value& dev : xpu_devices(parsed.root())) {
        LocalGpu g;
        g.source = tool;
        g.name = clean_name(text_of(member(dev, {"device_name"})));
        g.memory_bytes =
            u64_of(member(dev, {"memory_physical_size_byte"}), tool, "memory_physical_size_byte");
        if (g.memory_bytes) g.memory_bytes = nonzero(*g.memory_bytes);
        g.pcie_gen = int_in(member(dev, {"pcie_generation"}), 1, 8, tool, "pcie_generation");
        g.pcie_width =
            int_in(member(dev, {"pcie_max_link_width"}), 1, 32, tool, "pcie_max_link_width");
        const std::string vendor = text_of(member(dev, {"pci_vendor_id"}));
        set_pci(g, vendor.empty() ? "8086" : vendor, text_of(member(dev, {"pci_device_id"})));
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<int> xpu_smi_device_ids(std::string_view text) {
    const ToolJson parsed = parse_tool_json(text, "xpu-smi");
    std::vector<int> ids;
    for (const json::Value& dev : xpu_devices(parsed.root())) {
        const auto id = u64_of(member(dev, {"device_id"}), "xpu-smi", "device_id");
        ids.push_back(id && *id < 100000 ? static_cast<int>(*id) : -1);
    }
    return ids;
}

}  // namespace gpuadvise
