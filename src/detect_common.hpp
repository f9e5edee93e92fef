#pragma once
// What the vendor-tool parsers of detect_*.cpp share: the tools' ways of
// writing "no value", sizes with units, PCI ids, and their JSON (parsed with
// the strict reader, after repairing invalid UTF-8 and skipping the warnings
// some tools print around it). Internal to the core; not a public header.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "gpuadvise/detect.hpp"
#include "gpuadvise/json.hpp"

namespace gpuadvise::detail {

// Control characters become spaces and long text is cut (on a UTF-8
// boundary), so a hostile name can neither break one-line messages nor grow them.
std::string printable(std::string_view s, std::size_t max = 200);
// nvidia-smi brackets "no value" ([N/A], [Not Supported]); the others print N/A or unknown.
bool is_na(std::string_view s);
std::string clean_name(std::string_view s);
std::optional<std::uint64_t> parse_u64(std::string_view s);
// A leading decimal number and the (trimmed, lowercased) rest: "16.0 GT/s".
std::optional<std::pair<double, std::string>> leading_number(std::string_view s);
void check_size(std::string_view text, std::string_view tool);
void check_count(std::size_t count, std::string_view tool);
std::uint64_t scaled(std::uint64_t value, std::uint64_t unit, std::string_view tool,
                     std::string_view text);
std::optional<std::uint64_t> nonzero(std::uint64_t bytes);
std::optional<std::uint64_t> unit_bytes(std::string_view unit);
std::optional<std::uint64_t> size_with_unit(std::string_view s, std::uint64_t bare_unit,
                                            std::string_view tool);
std::optional<int> pcie_gen_from_rate(double gts);
std::optional<int> small_int(std::string_view s, int lo, int hi, std::string_view tool,
                             std::string_view what);
// "0x74a1", "74A1" -> "74a1"; empty when not a 16-bit hex id. Revisions are 8-bit ("c8").
std::string hex_id(std::string_view s);
std::string hex_revision(std::string_view s);

// A tool's JSON output with the text it lives in (values are views into it).
struct ToolJson {
    std::string text;
    json::Document doc;
    json::Value root() const { return doc.root(); }
};
ToolJson parse_tool_json(std::string_view text, std::string_view tool);

std::optional<json::Value> member(const json::Value& o,
                                  std::initializer_list<std::string_view> keys);
std::string text_of(const std::optional<json::Value>& v);
std::optional<std::uint64_t> u64_of(const std::optional<json::Value>& v, std::string_view tool,
                                    std::string_view what);
std::optional<int> int_in(const std::optional<json::Value>& v, int lo, int hi,
                          std::string_view tool, std::string_view what);
void set_pci(LocalGpu& g, std::string_view vendor, std::string_view device,
             std::string_view revision = {});

}  // namespace gpuadvise::detail
