// rocm-smi --showproductname --showmeminfo vram --json and amd-smi static --asic --bus --vram
// --json
#include <fmt/format.h>

#include <algorithm>

#include "detect_common.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {

using namespace detail;

std::vector<LocalGpu> parse_rocm_smi_json(std::string_view text) {
    constexpr std::string_view tool = "rocm-smi";
    const ToolJson parsed = parse_tool_json(text, tool);
    const json::Value root = parsed.root();
    if (!root.is_object())
        throw InputError("rocm-smi: expected a JSON object with one entry per card");
    std::vector<std::pair<std::uint64_t, json::Value>> cards;
    for (const json::Value item : root.items()) {
        const std::string_view key = item.key();
        if (!starts_with(key, "card")) continue;  // "system" holds the driver version
        const auto index = parse_u64(key.substr(4));
        if (!index || key.size() > 10) continue;
        if (!item.is_object())
            throw InputError(fmt::format("rocm-smi: {} is not an object", quote(key)));
        check_count(cards.size(), tool);
        cards.emplace_back(*index, item);
    }
    std::stable_sort(cards.begin(), cards.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<LocalGpu> out;
    for (const auto& [index, card] : cards) {
        LocalGpu g;
        g.source = tool;
        // Releases differ: "Card series"/"Card model" (5.x; the model is a
        // name or the subsystem id), "Card Series"/"Card Model" (6.x; the
        // model is the PCI device id), "Device Name"/"Device ID" (6.2+).
        for (const auto& v :
             {member(card, {"Card Series", "Card series"}), member(card, {"Device Name"}),
              member(card, {"Card Model", "Card model"})}) {
            const std::string n = clean_name(text_of(v));
            if (!n.empty() && hex_id(n).empty()) {
                g.name = n;
                break;
            }
        }
        std::string device = text_of(member(card, {"Device ID"}));
        if (hex_id(device).empty()) device = text_of(member(card, {"Card Model"}));
        set_pci(g, "1002", device, text_of(member(card, {"Device Rev"})));
        g.memory_bytes = u64_of(member(card, {"VRAM Total Memory (B)"}), tool,
                                fmt::format("card{} VRAM Total Memory (B)", index));
        if (g.memory_bytes) g.memory_bytes = nonzero(*g.memory_bytes);
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<LocalGpu> parse_amd_smi_json(std::string_view text) {
    constexpr std::string_view tool = "amd-smi";
    const ToolJson parsed = parse_tool_json(text, tool);
    const json::Value root = parsed.root();
    std::vector<json::Value> list;
    if (root.is_array()) {
        for (const json::Value v : root.items()) list.push_back(v);
    } else if (const auto data = member(root, {"gpu_data"}); data && data->is_array()) {
        for (const json::Value v : data->items()) list.push_back(v);
    } else if (member(root, {"asic"})) {
        list.push_back(root);
    } else {
        throw InputError("amd-smi: expected a list of GPUs (or an object with \"gpu_data\")");
    }
    std::vector<LocalGpu> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json::Value& item = list[i];
        if (!item.is_object())
            throw InputError(fmt::format("amd-smi: GPU entry {} is not an object", i));
        check_count(out.size(), tool);
        LocalGpu g;
        g.source = tool;
        const auto asic = member(item, {"asic"});
        g.name = clean_name(text_of(asic ? member(*asic, {"market_name"}) : std::nullopt));
        if (asic)
            set_pci(g, text_of(member(*asic, {"vendor_id"})), text_of(member(*asic, {"device_id"})),
                    text_of(member(*asic, {"rev_id"})));
        if (const auto vram = member(item, {"vram"})) {
            const auto size = member(*vram, {"size"});
            const std::string what = fmt::format("GPU {} vram size", i);
            if (size && size->is_object()) {  // {"value": 196592, "unit": "MB"}
                const auto v = u64_of(member(*size, {"value"}), tool, what);
                const std::string unit_text = text_of(member(*size, {"unit"}));
                const auto unit =
                    unit_text.empty() ? std::optional<std::uint64_t>(kMiB) : unit_bytes(unit_text);
                if (v && !unit)
                    throw InputError(
                        fmt::format("amd-smi: {} has an unknown unit {}", what, quote(unit_text)));
                if (v) g.memory_bytes = nonzero(scaled(*v, *unit, tool, std::to_string(*v)));
            } else if (size && !(size->is_string() && is_na(size->text()))) {  // "65520 MB"
                const std::string s = text_of(size);
                const auto bytes = size_with_unit(s, kMiB, tool);
                if (!bytes)
                    throw InputError(
                        fmt::format("amd-smi: {} {} is not like '65520 MB'", what, quote(s)));
                g.memory_bytes = nonzero(*bytes);
            }
        }
        if (const auto bus = member(item, {"bus"})) {
            g.pcie_width = int_in(member(*bus, {"max_pcie_width"}), 1, 32, tool,
                                  fmt::format("GPU {} max_pcie_width", i));
            const auto speed =
                member(*bus, {"max_pcie_speed"});  // {"value": 32, "unit": "GT/s"} or "32 GT/s"
            const std::string rate =
                text_of(speed && speed->is_object() ? member(*speed, {"value"}) : speed);
            if (auto r = leading_number(rate)) g.pcie_gen = pcie_gen_from_rate(r->first);
            if (!g.pcie_gen) {  // "Gen 5"
                const std::string v = lower(text_of(member(*bus, {"pcie_interface_version"})));
                if (starts_with(v, "gen"))
                    g.pcie_gen = small_int(trim(std::string_view(v).substr(3)), 1, 8, tool,
                                           fmt::format("GPU {} pcie_interface_version", i));
            }
        }
        out.push_back(std::move(g));
    }
    return out;
}

}  // namespace gpuadvise
