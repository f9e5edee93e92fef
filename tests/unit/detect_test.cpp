#include "gpuadvise/detect.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/units.hpp"

using namespace gpuadvise;

namespace {

// ------------------------------------------------------------ recorded samples
// Shaped like the tools' real output; sources in the comments.

// An HGX A100 80GB node (8 GPUs), as `nvidia-smi --query-gpu=... --format=csv,noheader` prints it.
const std::string kNvidiaHgxA100 =
    "NVIDIA A100-SXM4-80GB, 81920 MiB, 4, 16\n"
    "NVIDIA A100-SXM4-80GB, 81920 MiB, 4, 16\n"
    "NVIDIA A100-SXM4-80GB, 81920 MiB, 4, 16\n"
    "NVIDIA A100-SXM4-80GB, 81920 MiB, 4, 16\n"
    "NVIDIA A100-SXM4-80GB, 81920 MiB, 4, 16\n"
    "NVIDIA A100-SXM4-80GB, 81920 MiB, 4, 16\n"
    "NVIDIA A100-SXM4-80GB, 81920 MiB, 4, 16\n"
    "NVIDIA A100-SXM4-80GB, 81920 MiB, 4, 16\n";

// A workstation with two different cards, written on Windows (CRLF), with
// the fields a T4 does not support.
const std::string kNvidiaMixed =
    "NVIDIA GeForce RTX 4090, 24564 MiB, 4, 16\r\n"
    "NVIDIA GeForce RTX 3090,   24576 MiB ,  4 , 16\r\n"
    "Tesla T4, 15360 MiB, [Not Supported], [Not Supported]\r\n"
    "\r\n";

// rocm-smi 6.x (ROCm issue rocm_smi_lib#159 and marimo#9237 show these keys):
// an MI250X reports a board code as its series, and a low-power warning
// precedes the JSON.
const std::string kRocmMi250x =
    R"~(WARNING: AMD GPU device(s) is/are in a low-power state. Check power control/runtime_status

{
  "card0": {
    "VRAM Total Memory (B)": "68702699520",
    "VRAM Total Used Memory (B)": "10960896",
    "Card Series": "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2",
    "Card Model": "0x7408",
    "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",
    "Card SKU": "D65201",
    "Subsystem ID": "0x0b0c",
    "Device Rev": "0x00",
    "Node ID": "7",
    "GUID": "58294",
    "GFX Version": "gfx90a"
  },
  "card1": {
    "VRAM Total Memory (B)": "68702699520",
    "VRAM Total Used Memory (B)": "10960896",
    "Card Series": "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2",
    "Card Model": "0x7408",
    "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",
    "Card SKU": "D65201",
    "Subsystem ID": "0x0b0c",
    "Device Rev": "0x00",
    "Node ID": "8",
    "GUID": "11592",
    "GFX Version": "gfx90a"
  },
  "system": {
    "Driver version": "6.7.0"
  }
}
)~";

// rocm-smi 6.x on a Radeon RX 7900 XT (marimo-team/marimo#9237).
const std::string kRocm7900xt = R"~({
  "card0": {
    "GPU use (%)": "0",
    "VRAM Total Memory (B)": "21458059264",
    "VRAM Total Used Memory (B)": "27856896",
    "Card Series": "Radeon RX 7900 XT",
    "Card Model": "0x744c",
    "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",
    "Card SKU": "D70401XT",
    "Subsystem ID": "0x471e",
    "Device Rev": "0xcc",
    "Node ID": "1",
    "GUID": "26967",
    "GFX Version": "gfx1100"
  }
})~";

// rocm-smi 5.x spelling (easybuild-framework#3978): "Card series" in pci.ids
// style, "Card model" the subsystem id. Card order is numeric, not textual.
const std::string kRocmOldMi100 = R"~({
  "card10": {"Card series": "Arcturus GL-XL [AMD Instinct MI100]", "Card model": "0x0c34",
             "Card vendor": "Advanced Micro Devices, Inc. [AMD/ATI]", "Card SKU": "D34316",
             "VRAM Total Memory (B)": "34342961152", "VRAM Total Used Memory (B)": "6905856"},
  "card2": {"Card series": "Arcturus GL-XL [AMD Instinct MI100]", "Card model": "0x0c34",
            "Card vendor": "Advanced Micro Devices, Inc. [AMD/ATI]", "Card SKU": "D34316",
            "VRAM Total Memory (B)": "34342961152", "VRAM Total Used Memory (B)": "6905856"}
})~";

// amd-smi static --json, newer releases (wrapped in "gpu_data"), an MI210
// (from a ROCm device-metrics-exporter test), trimmed to the asked sections.
const std::string kAmdSmiMi210 = R"~({
    "gpu_data": [
        {
            "gpu": 0,
            "asic": {
                "market_name": "AMD Instinct MI210",
                "vendor_id": "0x1002",
                "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                "subvendor_id": "0x1002",
                "device_id": "0x740f",
                "subsystem_id": "0x0c34",
                "rev_id": "0x02",
                "asic_serial": "0xD1CE7A1F00000000",
                "oam_id": "N/A",
                "num_compute_units": 104,
                "target_graphics_version": "gfx90a"
            },
            "bus": {
                "bdf": "0000:83:00.0",
                "max_pcie_width": 16,
                "max_pcie_speed": {"value": 16, "unit": "GT/s"},
                "pcie_interface_version": "Gen 4",
                "slot_type": "OAM"
            },
            "vram": {
                "type": "HBM",
                "vendor": "HYNIX",
                "size": {"value": 65520, "unit": "MB"},
                "bit_width": 4096,
                "max_bandwidth": {"value": "N/A", "unit": "GB/s"}
            }
        }
    ]
})~";

// amd-smi static --json, older releases (a bare list), two MI300X, one of them
// without a market name.
const std::string kAmdSmiMi300x = R"~([
    {
        "gpu": 0,
        "asic": {"market_name": "AMD Instinct MI300X", "vendor_id": "0x1002", "device_id": "0x74a1", "rev_id": "0x00"},
        "bus": {"bdf": "0000:0c:00.0", "max_pcie_width": 16, "max_pcie_speed": {"value": 32, "unit": "GT/s"},
                "pcie_interface_version": "Gen 5", "slot_type": "OAM"},
        "vram": {"type": "HBM", "vendor": "N/A", "size": {"value": 196592, "unit": "MB"}}
    },
    {
        "gpu": 1,
        "asic": {"market_name": "N/A", "vendor_id": "0x1002", "device_id": "0x74a1", "rev_id": "0x00"},
        "bus": {"bdf": "0000:22:00.0", "max_pcie_width": "N/A", "max_pcie_speed": "N/A",
                "pcie_interface_version": "Gen 5", "slot_type": "OAM"},
        "vram": {"type": "HBM", "vendor": "N/A", "size": "196592 MB"}
    }
])~";

// xpu-smi discovery -j (the list: names, no memory), keys as in intel/xpumanager.
const std::string kXpuList = R"~({
    "device_list": [
        {
            "device_function_type": "physical",
            "device_id": 0,
            "device_name": "Intel(R) Data Center GPU Max 1550",
            "device_type": "GPU",
            "drm_device": "/dev/dri/card1",
            "pci_bdf_address": "0000:29:00.0",
            "pci_device_id": "0xbd5",
            "uuid": "01000000-0000-0000-0000-000000290000",
            "vendor_name": "Intel(R) Corporation"
        },
        {
            "device_function_type": "physical",
            "device_id": 1,
            "device_name": "Intel(R) Graphics [0x020a]",
            "device_type": "GPU",
            "drm_device": "/dev/dri/card2",
            "pci_bdf_address": "0000:4d:00.0",
            "pci_device_id": "0x20a",
            "uuid": "00000000-0000-0000-0000-020a00008086",
            "vendor_name": "Intel(R) Corporation"
        }
    ]
})~";

// xpu-smi discovery -d 0 -j: one device's details (values are strings).
const std::string kXpuDetail = R"~({
    "device_id": 0,
    "device_name": "Intel(R) Data Center GPU Max 1550",
    "device_type": "GPU",
    "pci_bdf_address": "0000:29:00.0",
    "pci_device_id": "0xbd5",
    "pcie_generation": "5",
    "pcie_max_link_width": "16",
    "memory_physical_size_byte": "137438953472",
    "memory_ecc_state": "enabled",
    "number_of_tiles": "2",
    "vendor_name": "Intel(R) Corporation"
})~";

const Catalog& catalog() {
    return embedded::catalog();
}

// One GPU matched against the real catalog.
LocalGpu matched(const std::string& name, std::optional<std::uint64_t> memory = std::nullopt) {
    std::vector<LocalGpu> gpus(1);
    gpus[0].source = "test";
    gpus[0].name = name;
    gpus[0].memory_bytes = memory;
    match_to_catalog(gpus, catalog());
    return gpus[0];
}

std::string id_of(const std::string& name, std::optional<std::uint64_t> memory = std::nullopt) {
    return matched(name, memory).catalog_id;
}

constexpr std::uint64_t MiB(std::uint64_t n) {
    return n * kMiB;
}

bool one_line(const std::string& s) {
    return !s.empty() && s.find('\n') == std::string::npos;
}

template <typename Parse>
void check_input_error(Parse parse, const std::string& text, const std::string& expected) {
    INFO(text.substr(0, 120));
    try {
        parse(text);
        FAIL("no InputError");
    } catch (const InputError& e) {
        const std::string msg = e.what();
        CHECK(one_line(msg));
        CHECK_THAT(msg, Catch::Contains(expected));
    }
}

}  // namespace

// ------------------------------------------------------------------- nvidia-smi

TEST_CASE("nvidia-smi CSV: an 8-GPU node") {
    const auto gpus = parse_nvidia_smi_csv(kNvidiaHgxA100);
    REQUIRE(gpus.size() == 8);
    for (const auto& g : gpus) {
        CHECK(g.source == "nvidia-smi");
        CHECK(g.name == "NVIDIA A100-SXM4-80GB");
        CHECK(g.memory_bytes == MiB(81920));
        CHECK(g.pcie_gen == 4);
        CHECK(g.pcie_width == 16);
        CHECK(g.catalog_id.empty());  // matching is a separate step
    }
}

TEST_CASE("nvidia-smi CSV: CRLF, extra spaces, Not Supported fields, blank lines") {
    const auto gpus = parse_nvidia_smi_csv(kNvidiaMixed);
    REQUIRE(gpus.size() == 3);
    CHECK(gpus[0].name == "NVIDIA GeForce RTX 4090");
    CHECK(gpus[0].memory_bytes == MiB(24564));
    CHECK(gpus[1].name == "NVIDIA GeForce RTX 3090");
    CHECK(gpus[1].memory_bytes == MiB(24576));
    CHECK(gpus[1].pcie_gen == 4);
    CHECK(gpus[2].name == "Tesla T4");
    CHECK_FALSE(gpus[2].pcie_gen);
    CHECK_FALSE(gpus[2].pcie_width);
}

TEST_CASE("nvidia-smi CSV: N/A values, nounits, empty output") {
    auto gpus = parse_nvidia_smi_csv("[N/A], [N/A], [N/A], [N/A]\n");
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0].name.empty());
    CHECK_FALSE(gpus[0].memory_bytes);
    gpus = parse_nvidia_smi_csv(
        "NVIDIA L4, 23034, 4, 16");  // --format=csv,noheader,nounits; no final newline
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0].memory_bytes == MiB(23034));
    CHECK(parse_nvidia_smi_csv("").empty());
    CHECK(parse_nvidia_smi_csv("  \r\n\n").empty());
    CHECK(parse_nvidia_smi_csv("No devices were found\n").empty());
}

TEST_CASE("nvidia-smi CSV: malformed output is one InputError line") {
    check_input_error(parse_nvidia_smi_csv,
                      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                      "driver. Make sure that "
                      "the latest NVIDIA driver is installed and running.\n",
                      "nvidia-smi line 1: expected 'name, memory, PCIe gen, PCIe width'");
    check_input_error(parse_nvidia_smi_csv, "NVIDIA GeForce RTX 4090, 24564 MiB, 4\n", "line 1");
    check_input_error(parse_nvidia_smi_csv, "a, 1 MiB, 4, 16\nb, 2 MiB, 4, 16, extra\n", "line 2");
    check_input_error(parse_nvidia_smi_csv, "NVIDIA GeForce RTX 4090, lots, 4, 16\n",
                      "memory 'lots'");
    check_input_error(parse_nvidia_smi_csv, "NVIDIA GeForce RTX 4090, 24564 parsecs, 4, 16\n",
                      "memory");
    check_input_error(parse_nvidia_smi_csv,
                      "NVIDIA GeForce RTX 4090, 99999999999999999999 MiB, 4, 16\n", "memory");
    check_input_error(parse_nvidia_smi_csv,
                      "NVIDIA GeForce RTX 4090, 18446744073709551615 MiB, 4, 16\n", "out of range");
    check_input_error(parse_nvidia_smi_csv, "NVIDIA GeForce RTX 4090, 24564 MiB, 99, 16\n",
                      "PCIe generation '99'");
    check_input_error(parse_nvidia_smi_csv, "NVIDIA GeForce RTX 4090, 24564 MiB, 4, x16\n",
                      "PCIe width");
    check_input_error(parse_nvidia_smi_csv, std::string(kMaxToolOutputBytes + 1, 'x'),
                      "more than 4 MiB");
    std::string many;
    for (int i = 0; i < 1100; ++i) many += "NVIDIA L4, 23034 MiB, 4, 16\n";
    check_input_error(parse_nvidia_smi_csv, many, "more than 1024 GPUs");
}

TEST_CASE("nvidia-smi CSV: control characters in a name cannot break the one-line messages") {
    const auto gpus = parse_nvidia_smi_csv(std::string("NVIDIA\x1b[31m Evil\x07, 1 MiB, 4, 16\n"));
    REQUIRE(gpus.size() == 1);
    for (char c : gpus[0].name) CHECK(static_cast<unsigned char>(c) >= 0x20);
    auto copy = gpus;
    match_to_catalog(copy, catalog());
    CHECK(one_line(copy[0].match_note));
}

// --------------------------------------------------------------------- rocm-smi

TEST_CASE("rocm-smi JSON: warning preamble, board-code series, the system entry") {
    auto gpus = parse_rocm_smi_json(kRocmMi250x);
    REQUIRE(gpus.size() == 2);
    CHECK(gpus[0].source == "rocm-smi");
    CHECK(gpus[0].name == "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2");
    CHECK(gpus[0].memory_bytes == 68702699520ULL);
    CHECK(gpus[0].pci_id == "1002:7408");
    // The board code names no card; the PCI id does, and one GCD's memory picks the SKU.
    match_to_catalog(gpus, catalog());
    CHECK(gpus[0].pci_name == "Instinct MI250X");
    CHECK(gpus[0].catalog_id == "amd-mi250x-1gcd");
    CHECK_THAT(gpus[0].match_note, Catch::Contains("PCI id 1002:7408"));
}

TEST_CASE("rocm-smi JSON: a Radeon card") {
    auto gpus = parse_rocm_smi_json(kRocm7900xt);
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0].name == "Radeon RX 7900 XT");
    match_to_catalog(gpus, catalog());
    CHECK(gpus[0].pci_name == "Radeon RX 7900 XT");  // revision 0xcc
    CHECK(gpus[0].catalog_id == "amd-rx-7900-xt");
    // Warnings after the JSON, or before it in brackets, are not part of it.
    CHECK(parse_rocm_smi_json(kRocm7900xt + "\nWARNING: [card0] is in a low-power state {1}\n")
              .size() == 1);
    CHECK(parse_rocm_smi_json("[WARNING] low-power state\n" + kRocm7900xt).size() == 1);
}

TEST_CASE("rocm-smi JSON: 5.x spelling, pci.ids-style series, numeric card order") {
    auto gpus = parse_rocm_smi_json(kRocmOldMi100);
    REQUIRE(gpus.size() == 2);
    CHECK(gpus[0].name == "Arcturus GL-XL [AMD Instinct MI100]");
    CHECK(gpus[0].pci_id.empty());  // 5.x "Card model" is the subsystem id, not the device
    match_to_catalog(gpus, catalog());
    CHECK(gpus[0].catalog_id == "amd-mi100");
    CHECK(gpus[1].catalog_id == "amd-mi100");
}

TEST_CASE("rocm-smi JSON: malformed output") {
    check_input_error(parse_rocm_smi_json, "WARNING: No JSON data to report\n", "no JSON");
    check_input_error(parse_rocm_smi_json, R"~({"card0": {"Card Series": )~", "not valid JSON");
    check_input_error(parse_rocm_smi_json, R"~([1, 2, 3])~", "expected a JSON object");
    check_input_error(parse_rocm_smi_json, R"~({"card0": [1, 2]})~", "'card0' is not an object");
    check_input_error(parse_rocm_smi_json, R"~({"card0": {"VRAM Total Memory (B)": "lots"}})~",
                      "not a whole number");
    check_input_error(parse_rocm_smi_json, std::string(5000, '[') + std::string(5000, ']'),
                      "nesting deeper");
    CHECK(parse_rocm_smi_json(R"~({"system": {"Driver version": "6.7.0"}})~").empty());
}

// ---------------------------------------------------------------------- amd-smi

TEST_CASE("amd-smi JSON: gpu_data wrapper, value/unit sizes, PCIe from GT/s") {
    auto gpus = parse_amd_smi_json(kAmdSmiMi210);
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0].source == "amd-smi");
    CHECK(gpus[0].name == "AMD Instinct MI210");
    CHECK(gpus[0].memory_bytes == MiB(65520));
    CHECK(gpus[0].pcie_gen == 4);
    CHECK(gpus[0].pcie_width == 16);
    CHECK(gpus[0].pci_id == "1002:740f");
    match_to_catalog(gpus, catalog());
    CHECK(gpus[0].catalog_id == "amd-mi210");
}

TEST_CASE("amd-smi JSON: a bare list, N/A fields, a string size, a missing name") {
    auto gpus = parse_amd_smi_json(kAmdSmiMi300x);
    REQUIRE(gpus.size() == 2);
    CHECK(gpus[0].pcie_gen == 5);
    CHECK(gpus[1].name.empty());
    CHECK_FALSE(gpus[1].pcie_width);
    CHECK(gpus[1].pcie_gen == 5);  // from "Gen 5"
    CHECK(gpus[1].memory_bytes == MiB(196592));
    match_to_catalog(gpus, catalog());
    CHECK(gpus[0].catalog_id == "amd-mi300x");
    CHECK(gpus[1].catalog_id == "amd-mi300x");  // by its PCI id
}

TEST_CASE("amd-smi JSON: malformed output") {
    check_input_error(parse_amd_smi_json, R"~({"cpu_data": []})~", "expected a list of GPUs");
    check_input_error(parse_amd_smi_json, R"~([1])~", "GPU entry 0 is not an object");
    check_input_error(parse_amd_smi_json,
                      R"~([{"vram": {"size": {"value": 1, "unit": "parsec"}}}])~", "unknown unit");
    check_input_error(parse_amd_smi_json, R"~([{"vram": {"size": "many"}}])~",
                      "not like '65520 MB'");
    check_input_error(parse_amd_smi_json, R"~([{"bus": {"max_pcie_width": 512}}])~",
                      "max_pcie_width 512");
    CHECK(parse_amd_smi_json("[]").empty());
}

// ---------------------------------------------------------------------- xpu-smi

TEST_CASE("xpu-smi JSON: the device list and one device's details") {
    auto list = parse_xpu_smi_json(kXpuList);
    REQUIRE(list.size() == 2);
    CHECK(list[0].name == "Intel(R) Data Center GPU Max 1550");
    CHECK_FALSE(list[0].memory_bytes);
    CHECK(list[0].pci_id == "8086:0bd5");
    CHECK(xpu_smi_device_ids(kXpuList) == std::vector<int>{0, 1});

    auto detail = parse_xpu_smi_json(kXpuDetail);
    REQUIRE(detail.size() == 1);
    CHECK(detail[0].memory_bytes == 137438953472ULL);
    CHECK(detail[0].pcie_gen == 5);
    CHECK(detail[0].pcie_width == 16);
    CHECK(xpu_smi_device_ids(kXpuDetail) == std::vector<int>{0});

    match_to_catalog(list, catalog());
    CHECK(list[0].catalog_id == "intel-max-1550");
    CHECK(list[1].catalog_id.empty());
    CHECK_THAT(list[1].match_note, Catch::Contains("not in the catalog"));
}

TEST_CASE("xpu-smi JSON: malformed output") {
    check_input_error(parse_xpu_smi_json, R"~({"device_list": 5})~", "not a list");
    check_input_error(parse_xpu_smi_json, R"~({"something": 1})~", "expected \"device_list\"");
    check_input_error(parse_xpu_smi_json,
                      R"~({"device_list": [{"device_name": "x", "pcie_generation": "fast"}]})~",
                      "pcie_generation");
    CHECK(parse_xpu_smi_json(R"~({"device_list": []})~").empty());
}

// ------------------------------------------------------------------------ sysfs

TEST_CASE("sysfs: vendors kept, others skipped, names from the catalog's PCI ids") {
    std::vector<SysfsDrmCard> cards(6);
    cards[0] = {"0x1a03\n",   "0x2000\n",   std::nullopt,
                std::nullopt, std::nullopt, std::nullopt};  // ASPEED BMC
    cards[1] = {"0x10de\n", "0x2684\n", "0xa1\n", std::nullopt, "16.0 GT/s PCIe\n", "16\n"};
    cards[2] = {"0x1002\n", "0x744c\n", "0xc8\n", "25753026560\n", "16.0 GT/s PCIe\n", "16\n"};
    cards[3] = {"0x1002\n", "0x744c\n", std::nullopt, "25753026560\n", "Unknown\n", "255\n"};
    cards[4] = {"0x8086\n",   "0xa780\n",   "0x04\n",
                std::nullopt, std::nullopt, std::nullopt};  // an iGPU
    cards[5] = {"0x10de\n", "0x1234\n", std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    auto gpus = parse_sysfs_drm(cards);
    REQUIRE(gpus.size() == 5);
    CHECK(gpus[0].source == "sysfs");
    CHECK(gpus[0].pcie_gen == 4);
    CHECK(gpus[0].pcie_width == 16);
    CHECK(gpus[1].memory_bytes == 25753026560ULL);
    CHECK_FALSE(gpus[2].pcie_gen);
    CHECK_FALSE(gpus[2].pcie_width);

    match_to_catalog(gpus, catalog());
    CHECK(gpus[0].name == "NVIDIA GeForce RTX 4090");
    CHECK(gpus[1].name == "AMD Radeon RX 7900 XTX");
    CHECK(gpus[3].name == "PCI 8086:a780");
    CHECK(gpus[4].name == "PCI 10de:1234");
    CHECK(gpus[0].catalog_id == "nvidia-rtx-4090");
    CHECK(gpus[1].catalog_id == "amd-rx-7900-xtx");
    // Without the revision the device id covers three catalog cards; the memory picks one.
    CHECK(gpus[2].catalog_id == "amd-rx-7900-xtx");
    CHECK_THAT(gpus[2].match_note,
               Catch::Contains("by PCI id 1002:744c") && Catch::Contains("memory picked it"));
    CHECK(gpus[3].catalog_id.empty());
    CHECK(gpus[4].catalog_id.empty());
}

TEST_CASE("sysfs: an AMD GCD of an MI250X by device id and memory") {
    std::vector<SysfsDrmCard> cards{
        {"0x1002", "0x740c", "0x01", "68702699520", std::nullopt, std::nullopt}};
    auto gpus = parse_sysfs_drm(cards);
    REQUIRE(gpus.size() == 1);
    match_to_catalog(gpus, catalog());
    CHECK(gpus[0].pci_name == "Instinct MI250 / Instinct MI250X");
    CHECK(gpus[0].catalog_id == "amd-mi250x-1gcd");
}

TEST_CASE("sysfs: a vendor file that is not a PCI id") {
    const std::vector<SysfsDrmCard> cards{
        {"banana", "0x2684", std::nullopt, std::nullopt, std::nullopt, std::nullopt}};
    check_input_error([&](const std::string&) { return parse_sysfs_drm(cards); }, "",
                      "not PCI ids");
}

TEST_CASE(
    "PCI ids of the catalog: exact revisions, every card of the device otherwise, unknown ids") {
    const auto ids = [](std::string_view v, std::string_view d, std::string_view r = {}) {
        std::vector<std::string> out;
        for (const Gpu* g : cards_with_pci_id(catalog(), v, d, r)) out.emplace_back(g->id);
        std::sort(out.begin(), out.end());
        return out;
    };
    CHECK(ids("10de", "2684") == std::vector<std::string>{"nvidia-rtx-4090"});
    CHECK(ids("0x10DE", "0x2330") == std::vector<std::string>{"nvidia-h100-sxm5"});
    CHECK(ids("0x1002", "0x744c", "0xc8") == std::vector<std::string>{"amd-rx-7900-xtx"});
    CHECK(ids("1002", "744c") ==
          std::vector<std::string>{"amd-rx-7900-gre", "amd-rx-7900-xt", "amd-rx-7900-xtx"});
    CHECK(ids("1002", "744c", "0x99").empty());
    CHECK(ids("10de", "ffff").empty());
    CHECK(ids("zz", "2684").empty());
    CHECK(ids("10de", "12345").empty());
    // Every id the catalog lists is well formed and belongs to its vendor.
    for (const Gpu& g : catalog().gpus)
        for (const auto id : g.pci_ids) {
            INFO(g.id << " " << id);
            CHECK(id.substr(0, 4) == (g.vendor == Vendor::Nvidia ? "10de"
                                      : g.vendor == Vendor::Amd  ? "1002"
                                                                 : "8086"));
        }
}

// --------------------------------------------------------------------- matching

TEST_CASE("matching: NVIDIA names as nvidia-smi prints them") {
    CHECK(id_of("NVIDIA A100-SXM4-80GB", MiB(81920)) == "nvidia-a100-80gb-sxm");
    CHECK(id_of("NVIDIA A100-SXM4-40GB", MiB(40960)) == "nvidia-a100-sxm4-40gb");
    CHECK(id_of("NVIDIA A100-PCIE-40GB", MiB(40960)) == "nvidia-a100-40gb-pcie");
    CHECK(id_of("NVIDIA A100 80GB PCIe", MiB(81920)) == "nvidia-a100-80gb-pcie");
    CHECK(id_of("NVIDIA GeForce RTX 4090", MiB(24564)) == "nvidia-rtx-4090");
    CHECK(id_of("NVIDIA GeForce RTX 3090", MiB(24576)) == "nvidia-rtx-3090");
    CHECK(id_of("NVIDIA H100 PCIe", MiB(81559)) == "nvidia-h100-pcie");
    CHECK(id_of("NVIDIA H100 NVL", MiB(95830)) == "nvidia-h100-nvl");
    CHECK(id_of("NVIDIA H200", MiB(143771)) == "nvidia-h200-sxm");
    CHECK(id_of("NVIDIA H200 NVL", MiB(143771)) == "nvidia-h200-nvl");
    CHECK(id_of("NVIDIA GH200 480GB", MiB(97871)) == "nvidia-gh200-96gb");
    CHECK(id_of("NVIDIA B200", MiB(183359)) == "nvidia-b200");
    CHECK(id_of("Tesla V100-SXM2-16GB", MiB(16160)) == "nvidia-v100-sxm2-16gb");
    CHECK(id_of("Tesla V100-SXM2-32GB", MiB(32510)) == "nvidia-v100-sxm2-32gb");
    CHECK(id_of("Tesla V100-PCIE-32GB", MiB(32510)) == "nvidia-v100-pcie-32gb");
    CHECK(id_of("Tesla T4", MiB(15360)) == "nvidia-t4");
    CHECK(id_of("NVIDIA L4", MiB(23034)) == "nvidia-l4");
    CHECK(id_of("NVIDIA L40S", MiB(46068)) == "nvidia-l40s");
    CHECK(id_of("NVIDIA A10G", MiB(23028)) == "nvidia-a10g");
    CHECK(id_of("NVIDIA A10", MiB(23028)) == "nvidia-a10");
    CHECK(id_of("NVIDIA RTX A6000", MiB(49140)) == "nvidia-rtx-a6000");
    CHECK(id_of("NVIDIA RTX 6000 Ada Generation", MiB(49140)) == "nvidia-rtx-6000-ada");
    CHECK(id_of("Quadro RTX 8000", MiB(49152)) == "nvidia-quadro-rtx-8000");
    CHECK(id_of("NVIDIA TITAN RTX", MiB(24576)) == "nvidia-titan-rtx");
    CHECK(id_of("NVIDIA GeForce RTX 5090", MiB(32607)) == "nvidia-rtx-5090");
    CHECK(id_of("NVIDIA GeForce RTX 4070 Ti SUPER", MiB(16376)) == "nvidia-rtx-4070-ti-super");
    CHECK(id_of("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", MiB(97887)) ==
          "nvidia-rtx-pro-6000-blackwell");
}

TEST_CASE("matching: memory picks the SKU among cards that share a name") {
    CHECK(id_of("NVIDIA GeForce RTX 3080", MiB(10240)) == "nvidia-rtx-3080-10gb");
    CHECK(id_of("NVIDIA GeForce RTX 3080", MiB(12288)) == "nvidia-rtx-3080-12gb");
    CHECK(id_of("NVIDIA GeForce RTX 4060 Ti", MiB(16380)) == "nvidia-rtx-4060ti-16gb");
    CHECK(id_of("NVIDIA GeForce RTX 4060 Ti", MiB(8188)) == "nvidia-rtx-4060ti-8gb");
    CHECK(id_of("Intel(R) Arc(TM) A770 Graphics", 16ULL * kGiB) == "intel-arc-a770-16gb");
    CHECK(id_of("Intel(R) Arc(TM) A770 Graphics", 8ULL * kGiB) == "intel-arc-a770-8gb");
    const LocalGpu g = matched("NVIDIA A100-SXM4-80GB", MiB(81920));
    CHECK_THAT(g.match_note, Catch::Contains("80.0 GiB of memory picked it"));
}

TEST_CASE("matching: a name without a form factor is the SXM part") {
    const LocalGpu g = matched("NVIDIA H100 80GB HBM3", MiB(81559));
    CHECK(g.catalog_id == "nvidia-h100-sxm5");
    CHECK_THAT(g.match_note, Catch::Contains("SXM"));
    CHECK(id_of("NVIDIA H100 80GB HBM3") == "nvidia-h100-sxm5");  // without a memory size too
}

TEST_CASE("matching: AMD and Intel names") {
    CHECK(id_of("AMD Instinct MI300X", 206141652992ULL) == "amd-mi300x");
    CHECK(id_of("AMD Instinct MI325X", 274877906944ULL) == "amd-mi325x");
    CHECK(id_of("AMD Radeon RX 7900 XTX", 25753026560ULL) == "amd-rx-7900-xtx");
    CHECK(id_of("AMD Radeon PRO W7900", 51522830336ULL) == "amd-radeon-pro-w7900");
    CHECK(id_of("Navi 31 [Radeon RX 7900 XT/7900 XTX]", 25753026560ULL) == "amd-rx-7900-xtx");
    CHECK(id_of("Intel(R) Data Center GPU Max 1100", 48ULL * kGiB) == "intel-max-1100");
    CHECK(id_of("Intel(R) Data Center GPU Flex 170") == "intel-flex-170");
}

TEST_CASE("matching: unknown, ambiguous and mismatched cards keep an empty id with a reason") {
    LocalGpu g = matched("NVIDIA GeForce RTX 3070 Ti", MiB(8192));
    CHECK(g.catalog_id.empty());
    CHECK_THAT(g.match_note, Catch::Contains("not in the catalog"));
    CHECK(id_of("NVIDIA A800 40GB Active", MiB(40960)).empty());
    CHECK(id_of("NVIDIA GeForce RTX 3080 Ti Laptop GPU", MiB(16384)).empty());
    // Cards the catalog has since gained are found, the laptop part apart from the desktop one.
    CHECK(id_of("NVIDIA GeForce RTX 4090 D", MiB(24564)) == "nvidia-rtx-4090d");
    CHECK(id_of("NVIDIA A800-SXM4-80GB", MiB(81920)) == "nvidia-a800-80gb-sxm");
    CHECK(id_of("NVIDIA GeForce RTX 4090 Laptop GPU", MiB(16376)) == "nvidia-rtx-4090-laptop");

    g = matched("NVIDIA GeForce RTX 3080");  // no memory: 10 or 12 GB?
    CHECK(g.catalog_id.empty());
    CHECK_THAT(g.match_note, Catch::Contains("ambiguous"));
    CHECK_THAT(g.match_note, Catch::Contains("nvidia-rtx-3080-10gb"));

    g = matched("NVIDIA A100-SXM4-80GB", MiB(20480));  // a size no A100 has
    CHECK(g.catalog_id.empty());
    CHECK_THAT(g.match_note, Catch::Contains("fits none"));

    // The name and the card agree on 48 GB; the catalog's W7800 has 32: another SKU.
    g = matched("AMD Radeon Pro W7800 48GB", 48ULL * kGiB);
    CHECK(g.catalog_id.empty());
    CHECK_THAT(g.match_note, Catch::Contains("not a catalog SKU"));

    // A partitioned MI300X (CPX) shows an eighth of its memory: still the card.
    g = matched("AMD Instinct MI300X", 25769803776ULL);
    CHECK(g.catalog_id == "amd-mi300x");
    CHECK_THAT(g.match_note, Catch::Contains("check the SKU"));

    g = matched("");
    CHECK(g.catalog_id.empty());
    CHECK(g.match_note == "the tool reported no name");
    CHECK(id_of("NVIDIA").empty());
    CHECK(id_of("[[[[////]]]]").empty());
}

TEST_CASE("matching: the PCI id stands in for a board code") {
    std::vector<LocalGpu> gpus(1);
    gpus[0].source = "test";
    gpus[0].name = "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2";
    gpus[0].memory_bytes = 68702699520ULL;
    gpus[0].pci_id = "1002:7408";
    match_to_catalog(gpus, catalog());
    CHECK(gpus[0].catalog_id == "amd-mi250x-1gcd");
}

TEST_CASE("matching: every catalog entry finds itself by its own name and memory") {
    std::vector<LocalGpu> gpus;
    for (const auto& gpu : catalog().gpus) {
        LocalGpu g;
        g.name = gpu.name;
        g.memory_bytes = gpu.memory_bytes;
        gpus.push_back(g);
    }
    match_to_catalog(gpus, catalog());
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        INFO(gpus[i].name << ": " << gpus[i].match_note);
        CHECK(gpus[i].catalog_id == catalog().gpus[i].id);
    }
}

// ---------------------------------------------------------------- robustness

TEST_CASE("parsers: cut or corrupted samples give InputError or a result, nothing else") {
    const std::vector<std::pair<std::string, std::vector<LocalGpu> (*)(std::string_view)>> samples{
        {kNvidiaMixed, parse_nvidia_smi_csv}, {kRocmMi250x, parse_rocm_smi_json},
        {kRocmOldMi100, parse_rocm_smi_json}, {kAmdSmiMi210, parse_amd_smi_json},
        {kAmdSmiMi300x, parse_amd_smi_json},  {kXpuList, parse_xpu_smi_json},
        {kXpuDetail, parse_xpu_smi_json}};
    std::mt19937 rng(12345);
    const std::string bytes = std::string("{}[]\",:0123456789.-eE nN/A\\\n") + '\0' + '\xff';
    std::size_t results = 0, errors = 0;
    for (const auto& [text, parse] : samples) {
        std::vector<std::string> inputs;
        for (std::size_t cut = 0; cut <= text.size(); cut += 7)
            inputs.push_back(text.substr(0, cut));
        for (int i = 0; i < 300; ++i) {
            std::string t = text;
            for (int k = 0; k < 3; ++k) {
                const std::size_t at =
                    std::uniform_int_distribution<std::size_t>(0, t.size() - 1)(rng);
                t[at] = bytes[std::uniform_int_distribution<std::size_t>(0, bytes.size() - 1)(rng)];
            }
            inputs.push_back(t);
        }
        // Most corruptions parse to a list already matched; matching is a
        // function of the list, so each distinct list is matched once.
        std::set<std::string> matched;
        for (const auto& input : inputs) {
            try {
                auto gpus = parse(input);
                std::string key;
                for (const auto& g : gpus)
                    key += g.source + '\x1f' + g.name + '\x1f' +
                           std::to_string(g.memory_bytes.value_or(0)) + '\x1f' +
                           std::to_string(g.memory_bytes.has_value()) + '\x1f' +
                           std::to_string(g.pcie_gen.value_or(-1)) + '\x1f' +
                           std::to_string(g.pcie_width.value_or(-1)) + '\x1f' + g.pci_id + '\x1f' +
                           g.pci_revision + '\x1e';
                if (matched.insert(key).second) {
                    match_to_catalog(gpus, catalog());
                    for (const auto& g : gpus)
                        CHECK((g.match_note.empty() || one_line(g.match_note)));
                }
                ++results;
            } catch (const InputError& e) {
                CHECK(one_line(e.what()));
                ++errors;
            }
        }
    }
    CHECK(results > 0);
    CHECK(errors > 0);
}
