// nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv
#include <fmt/format.h>

#include <algorithm>

#include "detect_common.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {

using namespace detail;

std::vector<LocalGpu> parse_nvidia_smi_csv(std::string_view text) {
    constexpr std::string_view tool = "nvidia-smi";
    check_size(text, tool);
    std::vector<LocalGpu> out;
    std::size_t line_no = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) eol = text.size();
        const std::string_view line = trim(text.substr(pos, eol - pos));
        pos = eol + 1;
        ++line_no;
        if (line.empty() || lower(line) == "no devices were found") continue;
        std::string_view fields[4];
        std::size_t count = 0;
        for (std::size_t p = 0; p <= line.size() && count <= 4;) {
            auto comma = line.find(',', p);
            if (comma == std::string_view::npos) comma = line.size();
            if (count < 4) fields[count] = trim(line.substr(p, comma - p));
            ++count;
            p = comma + 1;
        }
        if (count != 4)
            throw InputError(fmt::format(
                "nvidia-smi line {}: expected 'name, memory, PCIe gen, PCIe width', got {}",
                line_no, quote(line)));
        check_count(out.size(), tool);
        LocalGpu g;
        g.source = tool;
        g.name = clean_name(fields[0]);
        if (!is_na(fields[1])) {
            // A bare number is MiB (--format=csv,nounits).
            const auto bytes = size_with_unit(fields[1], kMiB, tool);
            if (!bytes)
                throw InputError(
                    fmt::format("nvidia-smi line {}: memory {} is not like '24564 MiB'", line_no,
                                quote(fields[1])));
            g.memory_bytes = nonzero(*bytes);
        }
        g.pcie_gen =
            small_int(fields[2], 1, 8, tool, fmt::format("line {}: PCIe generation", line_no));
        g.pcie_width =
            small_int(fields[3], 1, 32, tool, fmt::format("line {}: PCIe width", line_no));
        out.push_back(std::move(g));
    }
    return out;
}

}  // namespace gpuadvise
