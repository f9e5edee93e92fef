// Fuzzes the parsers of the vendor tools' output (nvidia-smi CSV, rocm-smi
// and amd-smi JSON, xpu-smi JSON) and the match to the catalog: a tool may
// print anything, and what gpuadvise shows of it must be one clean line per
// field (no control characters, valid UTF-8), with no exception but InputError.
#include <cstddef>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/detect.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/text.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

namespace {

void check_clean(const std::string& s, const char* field) {
    if (!valid_utf8(s)) finding(std::string(field) + " is not valid UTF-8");
    for (const char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            finding(std::string(field) + " holds a control character");
}

void check(std::vector<LocalGpu> gpus) {
    match_to_catalog(gpus, embedded::catalog());
    for (const LocalGpu& g : gpus) {
        check_clean(g.name, "name");
        check_clean(g.match_note, "match note");
        check_clean(g.pci_id, "pci id");
        if (!g.catalog_id.empty()) {
            bool known = false;
            for (const Gpu& c : embedded::catalog().gpus) known = known || c.id == g.catalog_id;
            if (!known) finding("matched to an id the catalog lacks: " + g.catalog_id);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    if (size == 0) return 0;
    // The first byte picks the parser, so one corpus covers all four.
    const std::string_view text = fuzz::as_text(data + 1, size - 1);
    switch (data[0] % 5) {
        case 0:
            accepts([&] { check(parse_nvidia_smi_csv(text)); });
            break;
        case 1:
            accepts([&] { check(parse_rocm_smi_json(text)); });
            break;
        case 2:
            accepts([&] { check(parse_amd_smi_json(text)); });
            break;
        case 3:
            accepts([&] { check(parse_xpu_smi_json(text)); });
            break;
        default:
            accepts([&] { (void)xpu_smi_device_ids(text); });
            break;
    }
    return 0;
}
