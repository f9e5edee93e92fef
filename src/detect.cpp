#include "gpuadvise/detect.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gpuadvise/error.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

using ojson = nlohmann::ordered_json;  // keeps the tool's card order

constexpr std::size_t kMaxNameLength = 200;
constexpr int kMaxJsonDepth = 64;
constexpr double kMemoryTolerance = 0.10;

// ---------------------------------------------------------------- text helpers

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char to_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = to_lower(c);
    return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Control characters become spaces and long text is cut (on a UTF-8 boundary),
// so a hostile name can neither break the one-line messages nor grow them.
std::string printable(std::string_view s, std::size_t max = kMaxNameLength) {
    std::string out;
    for (char c : s) {
        if (out.size() >= max) break;
        out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c);
    }
    if (s.size() > max) {
        while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0U) == 0x80U) out.pop_back();
        if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0U) out.pop_back();
        out += "...";
    }
    return out;
}

// The tools' ways of saying "no value": nvidia-smi brackets them ([N/A],
// [Not Supported], [Unknown Error]); the others print N/A or unknown.
bool is_na(std::string_view s) {
    s = trim(s);
    if (s.empty() || (s.front() == '[' && s.back() == ']')) return true;
    const std::string l = lower(s);
    return l == "n/a" || l == "na" || l == "unknown" || l == "not supported" || l == "none";
}

std::string clean_name(std::string_view s) {
    s = trim(s);
    if (is_na(s)) return {};
    return std::string(trim(printable(s)));
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
    s = trim(s);
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

// A leading decimal number and the (trimmed, lowercased) rest: "16.0 GT/s".
std::optional<std::pair<double, std::string>> split_number(std::string_view s) {
    s = trim(s);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
    if (s.empty() || ec != std::errc() || !std::isfinite(v) || v < 0) return std::nullopt;
    return std::pair{v, lower(trim(std::string_view(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr))))};
}

void check_size(std::string_view text, std::string_view tool) {
    if (text.size() > kMaxToolOutputBytes)
        throw InputError(fmt::format("{} printed more than {} MiB; that is not the output of a GPU query", tool,
                                     kMaxToolOutputBytes >> 20U));
}

void check_count(std::size_t count, std::string_view tool) {
    if (count >= kMaxLocalGpus)
        throw InputError(fmt::format("{} lists more than {} GPUs; that is not the output of one machine", tool,
                                     kMaxLocalGpus));
}

std::uint64_t scaled(std::uint64_t value, std::uint64_t unit, std::string_view tool, std::string_view text) {
    if (value > std::numeric_limits<std::uint64_t>::max() / unit)
        throw InputError(fmt::format("{}: memory size '{}' is out of range", tool, printable(text, 40)));
    return value * unit;
}

// Memory of zero means the tool could not tell; treat it as unknown.
std::optional<std::uint64_t> nonzero(std::uint64_t bytes) {
    return bytes == 0 ? std::nullopt : std::optional<std::uint64_t>(bytes);
}

std::optional<std::uint64_t> unit_bytes(std::string_view unit) {
    // AMD and NVIDIA both print binary units (amd-smi's "MB" is MiB: an MI210
    // reports 65520 MB for its 64 GiB).
    const std::string u = lower(trim(unit));
    if (u == "b" || u == "bytes") return 1;
    if (u == "kb" || u == "kib") return kKiB;
    if (u == "mb" || u == "mib") return kMiB;
    if (u == "gb" || u == "gib") return kGiB;
    return std::nullopt;
}

// "24564 MiB", "65520 MB" or a bare whole number in `bare_unit`; nullopt when
// malformed (the caller names the tool and the field).
std::optional<std::uint64_t> size_with_unit(std::string_view s, std::uint64_t bare_unit, std::string_view tool) {
    s = trim(s);
    const std::size_t digits_end = std::min(s.find_first_not_of("0123456789"), s.size());
    const auto whole = parse_u64(s.substr(0, digits_end));
    const std::string_view rest = trim(s.substr(digits_end));
    const auto unit = rest.empty() ? std::optional<std::uint64_t>(bare_unit) : unit_bytes(rest);
    if (!whole || !unit) return std::nullopt;
    return scaled(*whole, *unit, tool, s);
}

// Gen from the link's rate: 2.5, 5, 8, 16, 32, 64 GT/s are gens 1 to 6.
std::optional<int> pcie_gen_from_rate(double gts) {
    static constexpr double kRates[] = {2.5, 5, 8, 16, 32, 64, 128};
    for (std::size_t i = 0; i < std::size(kRates); ++i)
        if (std::fabs(gts - kRates[i]) < 0.3) return static_cast<int>(i) + 1;
    return std::nullopt;
}

std::optional<int> small_int(std::string_view s, int lo, int hi, std::string_view tool, std::string_view what) {
    if (is_na(s)) return std::nullopt;
    const auto v = parse_u64(s);
    if (!v || *v < static_cast<std::uint64_t>(lo) || *v > static_cast<std::uint64_t>(hi))
        throw InputError(fmt::format("{}: {} '{}' is not a number from {} to {}", tool, what, printable(s, 40), lo, hi));
    return static_cast<int>(*v);
}

// "0x74a1", "74A1" -> "74a1"; empty when not a 16-bit hex id.
std::string hex_id(std::string_view s) {
    s = trim(s);
    if (starts_with(s, "0x") || starts_with(s, "0X")) s.remove_prefix(2);
    if (s.empty() || s.size() > 4) return {};
    std::string out(4 - s.size(), '0');
    for (char c : s) {
        const char l = to_lower(c);
        if (!is_digit(l) && !(l >= 'a' && l <= 'f')) return {};
        out.push_back(l);
    }
    return out;
}

// ---------------------------------------------------------------------- JSON

// The tools print warnings around their JSON ("WARNING: AMD GPU device(s) is/are
// in a low-power state"), so parse the first value that starts a line and
// ignore what follows it. Nesting is bounded before nlohmann sees it.
ojson parse_tool_json(std::string_view text, std::string_view tool) {
    check_size(text, tool);
    std::vector<std::size_t> starts;  // lines that open an object or a list
    for (std::size_t pos = 0; pos < text.size() && starts.size() < 8;) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) eol = text.size();
        const std::string_view line = trim(text.substr(pos, eol - pos));
        if (!line.empty() && (line.front() == '{' || line.front() == '['))
            starts.push_back(static_cast<std::size_t>(line.data() - text.data()));
        pos = eol + 1;
    }
    if (starts.empty())
        throw InputError(fmt::format("{}: its output holds no JSON: '{}'", tool, printable(trim(text), 80)));
    std::string first_error;
    for (const std::size_t start : starts) {
        const std::string_view body = text.substr(start);
        int depth = 0;
        bool in_string = false, escaped = false;
        for (char c : body) {
            if (in_string) {
                if (escaped) escaped = false;
                else if (c == '\\') escaped = true;
                else if (c == '"') in_string = false;
            } else if (c == '"') {
                in_string = true;
            } else if (c == '{' || c == '[') {
                if (++depth > kMaxJsonDepth)
                    throw InputError(
                        fmt::format("{}: JSON nested deeper than {} levels; not a GPU listing", tool, kMaxJsonDepth));
            } else if ((c == '}' || c == ']') && --depth <= 0) {
                break;  // the end of the first value
            }
        }
        try {
            // Stream extraction reads one value and leaves the rest (a
            // trailing warning) alone, unlike parse().
            std::istringstream in{std::string(body)};
            ojson value;
            in >> value;
            return value;
        } catch (const ojson::parse_error& e) {
            if (first_error.empty())
                first_error = fmt::format("{}: not valid JSON (at byte {} of its output)", tool, start + e.byte);
        } catch (const ojson::exception&) {
            if (first_error.empty()) first_error = fmt::format("{}: not valid JSON", tool);
        }
    }
    throw InputError(first_error);
}

const ojson* member(const ojson& o, std::initializer_list<std::string_view> keys) {
    if (!o.is_object()) return nullptr;
    for (auto key : keys) {
        const auto it = o.find(std::string(key));
        if (it != o.end() && !it->is_null()) return &*it;
    }
    return nullptr;
}

std::string text_of(const ojson* v) {
    if (v == nullptr) return {};
    if (v->is_string()) return v->get<std::string>();
    if (v->is_number_unsigned()) return std::to_string(v->get<std::uint64_t>());
    if (v->is_number_integer()) return std::to_string(v->get<std::int64_t>());
    if (v->is_number_float()) return fmt::format("{}", v->get<double>());
    return {};
}

// A non-negative integer given as a JSON number or a decimal string; N/A is
// nullopt and anything else is malformed.
std::optional<std::uint64_t> u64_of(const ojson* v, std::string_view tool, std::string_view what) {
    if (v == nullptr) return std::nullopt;
    if (v->is_number_unsigned()) return v->get<std::uint64_t>();
    if (v->is_number_integer()) {
        const auto i = v->get<std::int64_t>();
        if (i >= 0) return static_cast<std::uint64_t>(i);
    } else if (v->is_number_float()) {
        const double d = v->get<double>();
        if (std::isfinite(d) && d >= 0 && d < 1.8e19) return static_cast<std::uint64_t>(std::llround(d));
    } else if (v->is_string()) {
        const auto s = v->get<std::string>();
        if (is_na(s)) return std::nullopt;
        if (auto n = parse_u64(s)) return n;
    }
    throw InputError(fmt::format("{}: {} is {}, not a whole number", tool, what, printable(v->dump(), 40)));
}

std::optional<int> int_in(const ojson* v, int lo, int hi, std::string_view tool, std::string_view what) {
    const auto n = u64_of(v, tool, what);
    if (!n) return std::nullopt;
    if (*n < static_cast<std::uint64_t>(lo) || *n > static_cast<std::uint64_t>(hi))
        throw InputError(fmt::format("{}: {} {} is not from {} to {}", tool, what, *n, lo, hi));
    return static_cast<int>(*n);
}

void set_pci(LocalGpu& g, std::string_view vendor, std::string_view device, std::string_view revision = {}) {
    const std::string v = hex_id(vendor), d = hex_id(device);
    if (v.empty() || d.empty()) return;
    g.pci_id = v + ":" + d;
    g.pci_name = pci_device_name(v, d, revision);
}

// ------------------------------------------------------------------- the PCI table

struct PciEntry {
    std::uint16_t vendor, device;
    int revision;  // -1: any
    std::string_view name;
};

// NVIDIA: pci.ids (github.com/pciutils/pciids), the bracketed marketing name,
// for the cards the catalog knows, with "Rev. A" / "Lite Hash Rate" suffixes
// dropped. AMD: libdrm's data/amdgpu.ids (device, revision, name).
constexpr PciEntry kPciTable[] = {
    {0x10de, 0x1db1, -1, "NVIDIA Tesla V100 SXM2 16GB"},
    {0x10de, 0x1db4, -1, "NVIDIA Tesla V100 PCIe 16GB"},
    {0x10de, 0x1db5, -1, "NVIDIA Tesla V100 SXM2 32GB"},
    {0x10de, 0x1db6, -1, "NVIDIA Tesla V100 PCIe 32GB"},
    {0x10de, 0x1df5, -1, "NVIDIA Tesla V100 SXM2 16GB"},
    {0x10de, 0x1e02, -1, "NVIDIA TITAN RTX"},
    {0x10de, 0x1e04, -1, "NVIDIA GeForce RTX 2080 Ti"},
    {0x10de, 0x1e07, -1, "NVIDIA GeForce RTX 2080 Ti"},
    {0x10de, 0x1e30, -1, "NVIDIA Quadro RTX 6000 / Quadro RTX 8000"},
    {0x10de, 0x1eb8, -1, "NVIDIA Tesla T4"},
    {0x10de, 0x20b0, -1, "NVIDIA A100 SXM4 40GB"},
    {0x10de, 0x20b1, -1, "NVIDIA A100 PCIe 40GB"},
    {0x10de, 0x20b2, -1, "NVIDIA A100 SXM4 80GB"},
    {0x10de, 0x20b5, -1, "NVIDIA A100 PCIe 80GB"},
    {0x10de, 0x20b7, -1, "NVIDIA A30 PCIe"},
    {0x10de, 0x20f1, -1, "NVIDIA A100 PCIe 40GB"},
    {0x10de, 0x2203, -1, "NVIDIA GeForce RTX 3090 Ti"},
    {0x10de, 0x2204, -1, "NVIDIA GeForce RTX 3090"},
    {0x10de, 0x2206, -1, "NVIDIA GeForce RTX 3080"},
    {0x10de, 0x2208, -1, "NVIDIA GeForce RTX 3080 Ti"},
    {0x10de, 0x220a, -1, "NVIDIA GeForce RTX 3080 12GB"},
    {0x10de, 0x2216, -1, "NVIDIA GeForce RTX 3080"},
    {0x10de, 0x2230, -1, "NVIDIA RTX A6000"},
    {0x10de, 0x2231, -1, "NVIDIA RTX A5000"},
    {0x10de, 0x2235, -1, "NVIDIA A40"},
    {0x10de, 0x2236, -1, "NVIDIA A10"},
    {0x10de, 0x2237, -1, "NVIDIA A10G"},
    {0x10de, 0x2329, -1, "NVIDIA H20"},
    {0x10de, 0x2330, -1, "NVIDIA H100 SXM5 80GB"},
    {0x10de, 0x2331, -1, "NVIDIA H100 PCIe"},
    {0x10de, 0x2335, -1, "NVIDIA H200 SXM 141GB"},
    {0x10de, 0x233b, -1, "NVIDIA H200 NVL"},
    {0x10de, 0x2342, -1, "NVIDIA GH200 120GB / 480GB"},
    {0x10de, 0x2348, -1, "NVIDIA GH200 144G HBM3e"},
    {0x10de, 0x2484, -1, "NVIDIA GeForce RTX 3070"},
    {0x10de, 0x2487, -1, "NVIDIA GeForce RTX 3060"},
    {0x10de, 0x2488, -1, "NVIDIA GeForce RTX 3070"},
    {0x10de, 0x24b0, -1, "NVIDIA RTX A4000"},
    {0x10de, 0x2503, -1, "NVIDIA GeForce RTX 3060"},
    {0x10de, 0x2504, -1, "NVIDIA GeForce RTX 3060"},
    {0x10de, 0x2509, -1, "NVIDIA GeForce RTX 3060 12GB"},
    {0x10de, 0x2544, -1, "NVIDIA GeForce RTX 3060"},
    {0x10de, 0x25b6, -1, "NVIDIA A2 / A16"},
    {0x10de, 0x2684, -1, "NVIDIA GeForce RTX 4090"},
    {0x10de, 0x2689, -1, "NVIDIA GeForce RTX 4070 Ti SUPER"},
    {0x10de, 0x26b1, -1, "NVIDIA RTX 6000 Ada Generation"},
    {0x10de, 0x26b2, -1, "NVIDIA RTX 5000 Ada Generation"},
    {0x10de, 0x26b5, -1, "NVIDIA L40"},
    {0x10de, 0x26b9, -1, "NVIDIA L40S"},
    {0x10de, 0x2702, -1, "NVIDIA GeForce RTX 4080 SUPER"},
    {0x10de, 0x2703, -1, "NVIDIA GeForce RTX 4080 SUPER"},
    {0x10de, 0x2704, -1, "NVIDIA GeForce RTX 4080"},
    {0x10de, 0x2705, -1, "NVIDIA GeForce RTX 4070 Ti SUPER"},
    {0x10de, 0x2709, -1, "NVIDIA GeForce RTX 4070"},
    {0x10de, 0x2782, -1, "NVIDIA GeForce RTX 4070 Ti"},
    {0x10de, 0x2783, -1, "NVIDIA GeForce RTX 4070 SUPER"},
    {0x10de, 0x2786, -1, "NVIDIA GeForce RTX 4070"},
    {0x10de, 0x2788, -1, "NVIDIA GeForce RTX 4060 Ti"},
    {0x10de, 0x27b2, -1, "NVIDIA RTX 4000 Ada Generation"},
    {0x10de, 0x27b8, -1, "NVIDIA L4"},
    {0x10de, 0x2803, -1, "NVIDIA GeForce RTX 4060 Ti"},
    {0x10de, 0x2805, -1, "NVIDIA GeForce RTX 4060 Ti 16GB"},
    {0x10de, 0x2901, -1, "NVIDIA B200"},
    {0x10de, 0x2b85, -1, "NVIDIA GeForce RTX 5090"},
    {0x10de, 0x2bb1, -1, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"},
    {0x10de, 0x2c02, -1, "NVIDIA GeForce RTX 5080"},
    {0x10de, 0x2c05, -1, "NVIDIA GeForce RTX 5070 Ti"},
    {0x10de, 0x2d04, -1, "NVIDIA GeForce RTX 5060 Ti"},
    {0x10de, 0x2f04, -1, "NVIDIA GeForce RTX 5070"},
    {0x1002, 0x738c, 0x01, "AMD Instinct MI100"},
    {0x1002, 0x73a3, 0x00, "AMD Radeon Pro W6800"},
    {0x1002, 0x73af, 0xc0, "AMD Radeon RX 6900 XT"},
    {0x1002, 0x73bf, 0xc0, "AMD Radeon RX 6900 XT"},
    {0x1002, 0x73bf, 0xc1, "AMD Radeon RX 6800 XT"},
    {0x1002, 0x73bf, 0xc3, "AMD Radeon RX 6800"},
    {0x1002, 0x7408, 0x00, "AMD Instinct MI250X"},
    {0x1002, 0x740c, 0x01, "AMD Instinct MI250X / MI250"},
    {0x1002, 0x740f, 0x02, "AMD Instinct MI210"},
    {0x1002, 0x7448, 0x00, "AMD Radeon Pro W7900"},
    {0x1002, 0x7449, 0x00, "AMD Radeon Pro W7800 48GB"},
    {0x1002, 0x744c, 0xc8, "AMD Radeon RX 7900 XTX"},
    {0x1002, 0x744c, 0xcc, "AMD Radeon RX 7900 XT"},
    {0x1002, 0x744c, 0xce, "AMD Radeon RX 7900 GRE"},
    {0x1002, 0x744c, 0xcf, "AMD Radeon RX 7900M"},
    {0x1002, 0x745e, 0xcc, "AMD Radeon Pro W7800"},
    {0x1002, 0x747e, 0xc8, "AMD Radeon RX 7800 XT"},
    {0x1002, 0x747e, 0xd8, "AMD Radeon RX 7800M"},
    {0x1002, 0x747e, 0xdb, "AMD Radeon RX 7700"},
    {0x1002, 0x747e, 0xff, "AMD Radeon RX 7700 XT"},
    {0x1002, 0x74a0, 0x00, "AMD Instinct MI300A"},
    {0x1002, 0x74a1, 0x00, "AMD Instinct MI300X"},
    {0x1002, 0x74a5, 0x00, "AMD Instinct MI325X"},
    {0x1002, 0x7550, 0xc0, "AMD Radeon RX 9070 XT"},
    {0x1002, 0x7550, 0xc2, "AMD Radeon RX 9070 GRE"},
    {0x1002, 0x7550, 0xc3, "AMD Radeon RX 9070"},
    {0x1002, 0x75a0, 0x00, "AMD Instinct MI350X"},
    {0x1002, 0x75a3, 0x00, "AMD Instinct MI355X"},
};

// --------------------------------------------------------------------- matching

// A name reduced to what identifies the card: "NVIDIA A100-SXM4-80GB" is core
// "a100", form "sxm4", memory 80 GiB.
struct NameKey {
    std::string core;
    std::vector<std::string> forms;          // pcie, sxm*, nvl*, oam
    std::optional<std::uint64_t> memory;     // from a "80GB" word
};

bool is_noise_word(std::string_view t) {
    static constexpr std::string_view kWords[] = {
        "nvidia", "geforce", "amd",    "ati",     "radeon",      "instinct",  "intel", "apple",
        "graphics", "data",  "center", "gpu",     "tesla",       "corporation", "generation"};
    return std::find(std::begin(kWords), std::end(kWords), t) != std::end(kWords);
}

bool is_memory_type(std::string_view t) { return starts_with(t, "hbm") || starts_with(t, "gddr"); }

bool is_form(std::string_view t) {
    const auto digits_after = [&](std::string_view prefix) {
        return starts_with(t, prefix) && std::all_of(t.begin() + static_cast<std::ptrdiff_t>(prefix.size()), t.end(), is_digit);
    };
    return t == "pcie" || t == "oam" || digits_after("sxm") || digits_after("nvl");
}

bool forms_compatible(std::string_view a, std::string_view b) {
    if (a == b) return true;
    for (std::string_view family : {"sxm", "nvl"})
        if (starts_with(a, family) && starts_with(b, family) && (a == family || b == family)) return true;
    return false;
}

// "80gb", "144g", "94gib" -> bytes (the GB in card names is binary).
std::optional<std::uint64_t> memory_word(std::string_view t) {
    std::size_t i = 0;
    while (i < t.size() && is_digit(t[i])) ++i;
    if (i == 0 || i > 4) return std::nullopt;
    const std::string_view unit = t.substr(i);
    if (unit != "gb" && unit != "g" && unit != "gib") return std::nullopt;
    return *parse_u64(t.substr(0, i)) * kGiB;
}

std::string without_marks(std::string s) {
    for (std::string_view mark : {"(r)", "(tm)", "\xc2\xae", "\xe2\x84\xa2"})
        for (auto p = s.find(mark); p != std::string::npos; p = s.find(mark)) s.erase(p, mark.size());
    return s;
}

// Parenthesised remarks are not part of the name: "Instinct MI250X (one GCD,
// as seen by software)", "A10G (AWS)".
std::string without_parentheses(std::string_view s) {
    std::string out;
    int depth = 0;
    for (char c : s) {
        if (c == '(') ++depth;
        else if (c == ')' && depth > 0) --depth;
        else if (depth == 0) out.push_back(c);
    }
    return out;
}

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == '.' || c == '\'') continue;  // "Rev." and "Ti." are one word
        if (is_alnum(c)) {
            cur.push_back(to_lower(c));
        } else if (!cur.empty()) {
            out.push_back(std::move(cur));
            cur.clear();
        }
    }
    if (!cur.empty()) out.push_back(std::move(cur));
    return out;
}

// One name can list several cards: pci.ids style "Navi 31 [Radeon RX 7900
// XT/7900 XTX]" or "Instinct MI250X / MI250". Later alternatives that start
// with a number borrow the first one's leading words ("7900 XTX" becomes
// "radeon rx 7900 xtx").
std::vector<std::string> name_variants(std::string_view name) {
    std::string s = without_parentheses(without_marks(lower(name)));
    const auto open = s.find('[');
    const auto close = s.find(']', open == std::string::npos ? 0 : open);
    if (open != std::string::npos && close != std::string::npos) s = s.substr(open + 1, close - open - 1);
    std::vector<std::string> parts;
    for (std::size_t pos = 0; pos <= s.size() && parts.size() < 8;) {
        auto slash = s.find('/', pos);
        if (slash == std::string::npos) slash = s.size();
        const std::string_view part = trim(std::string_view(s).substr(pos, slash - pos));
        if (!part.empty()) parts.emplace_back(part);
        pos = slash + 1;
    }
    if (parts.size() > 1) {
        std::vector<std::string> first;
        for (std::size_t pos = 0; pos < parts[0].size();) {
            auto sp = parts[0].find(' ', pos);
            if (sp == std::string::npos) sp = parts[0].size();
            if (sp > pos) first.push_back(parts[0].substr(pos, sp - pos));
            pos = sp + 1;
        }
        std::size_t numbered = 0;
        while (numbered < first.size() && !is_digit(first[numbered].front())) ++numbered;
        if (numbered > 0 && numbered < first.size()) {
            std::string prefix;
            for (std::size_t i = 0; i < numbered; ++i) prefix += first[i] + " ";
            for (std::size_t i = 1; i < parts.size(); ++i)
                if (is_digit(parts[i].front())) parts[i] = prefix + parts[i];
        }
    }
    return parts;
}

NameKey make_key(std::string_view variant) {
    NameKey key;
    for (const auto& w : words(variant)) {
        if (is_noise_word(w) || is_memory_type(w)) continue;
        if (auto m = memory_word(w)) {
            if (!key.memory) key.memory = m;
            continue;
        }
        if (is_form(w)) {
            key.forms.push_back(w);
            continue;
        }
        key.core += w;
    }
    return key;
}

struct CatalogKeys {
    std::vector<std::vector<NameKey>> per_gpu;  // id, name and aliases of each GPU
};

CatalogKeys index_catalog(const Catalog& catalog) {
    CatalogKeys index;
    index.per_gpu.reserve(catalog.gpus.size());
    for (const auto& g : catalog.gpus) {
        std::vector<NameKey> keys;
        std::vector<std::string> names{g.id, g.name};
        names.insert(names.end(), g.aliases.begin(), g.aliases.end());
        for (const auto& n : names)
            for (const auto& v : name_variants(n)) {
                NameKey k = make_key(v);
                if (!k.core.empty()) keys.push_back(std::move(k));
            }
        index.per_gpu.push_back(std::move(keys));
    }
    return index;
}

double relative_gap(std::uint64_t reported, std::uint64_t catalog) {
    return std::fabs(static_cast<double>(catalog) - static_cast<double>(reported)) / static_cast<double>(catalog);
}

struct Candidate {
    std::size_t gpu;
    bool plain = false;               // matched by a key that names no form factor
    std::vector<std::string> forms;   // forms of the keys that matched
};

std::string ids_of(const Catalog& catalog, const std::vector<Candidate>& cands) {
    std::vector<std::string> ids;
    ids.reserve(cands.size());
    for (const auto& c : cands) ids.push_back(catalog.gpus[c.gpu].id);
    return fmt::format("{}", fmt::join(ids, ", "));
}

struct Decision {
    bool found_name = false;  // some catalog entry shares the name
    std::string catalog_id;
    std::string note;
};

Decision decide(const LocalGpu& gpu, std::string_view name, const Catalog& catalog, const CatalogKeys& index) {
    Decision d;
    std::vector<NameKey> keys;
    for (const auto& v : name_variants(name)) {
        NameKey k = make_key(v);
        if (!k.core.empty()) keys.push_back(std::move(k));
    }
    std::vector<Candidate> cands;
    std::vector<std::string> unknown_variants;
    std::vector<std::string> reported_forms;
    std::optional<std::uint64_t> name_memory;
    for (const auto& key : keys) {
        bool any = false;
        for (std::size_t i = 0; i < index.per_gpu.size(); ++i)
            for (const auto& k : index.per_gpu[i]) {
                if (k.core != key.core) continue;
                any = true;
                auto it = std::find_if(cands.begin(), cands.end(), [&](const Candidate& c) { return c.gpu == i; });
                if (it == cands.end()) {
                    cands.push_back({i, false, {}});
                    it = cands.end() - 1;
                }
                if (k.forms.empty()) it->plain = true;
                it->forms.insert(it->forms.end(), k.forms.begin(), k.forms.end());
            }
        if (!any) unknown_variants.push_back(key.core);
        reported_forms.insert(reported_forms.end(), key.forms.begin(), key.forms.end());
        if (!name_memory) name_memory = key.memory;
    }
    if (cands.empty()) return d;
    d.found_name = true;

    // The form factor in the name ("SXM4", "PCIe") narrows the SKUs; NVIDIA
    // names its PCIe and NVL cards as such, so a name without one ("H100 80GB
    // HBM3", "H200") is the SXM part.
    std::string form_note;
    std::vector<Candidate> kept;
    if (!reported_forms.empty()) {
        for (const auto& c : cands)
            if (std::any_of(c.forms.begin(), c.forms.end(), [&](const std::string& f) {
                    return std::any_of(reported_forms.begin(), reported_forms.end(),
                                       [&](const std::string& r) { return forms_compatible(f, r); });
                }))
                kept.push_back(c);
    } else {
        for (const auto& c : cands)
            if (c.plain || std::any_of(c.forms.begin(), c.forms.end(),
                                       [](const std::string& f) { return f != "pcie" && !starts_with(f, "nvl"); }))
                kept.push_back(c);
        if (!kept.empty() && kept.size() < cands.size()) form_note = "; no PCIe/NVL in the name, so the SXM part";
    }
    if (!kept.empty()) cands = std::move(kept);
    else form_note.clear();

    const std::optional<std::uint64_t> measured = gpu.memory_bytes;
    const std::optional<std::uint64_t> target = measured ? measured : name_memory;
    std::string memory_note;
    if (target && cands.size() > 1) {
        const std::string before = ids_of(catalog, cands);
        double best = std::numeric_limits<double>::infinity();
        for (const auto& c : cands) best = std::min(best, relative_gap(*target, catalog.gpus[c.gpu].memory_bytes));
        if (best <= kMemoryTolerance) {
            std::vector<Candidate> closest;
            for (const auto& c : cands)
                if (relative_gap(*target, catalog.gpus[c.gpu].memory_bytes) <= best + 1e-9) closest.push_back(c);
            if (closest.size() < cands.size())
                memory_note = fmt::format("; {} of memory picked it among {}", format_gib(*target), before);
            cands = std::move(closest);
        } else if (measured) {
            d.note = fmt::format("'{}' has {} of memory, which fits none of {}", printable(name),
                                 format_gib(*measured), before);
            return d;
        }
    }
    if (cands.size() > 1) {
        d.note = fmt::format("ambiguous: '{}' could be {}{}", printable(name), ids_of(catalog, cands),
                             measured ? "" : " (no memory size to tell them apart)");
        return d;
    }
    const Gpu& match = catalog.gpus[cands.front().gpu];
    if (!unknown_variants.empty()) {
        d.note = fmt::format("ambiguous: '{}' could be {} or a card the catalog lacks", printable(name), match.id);
        return d;
    }
    if (measured && relative_gap(*measured, match.memory_bytes) > kMemoryTolerance) {
        // The name says one size, the card another, the catalog a third: a SKU
        // the catalog does not have (a W7800 48GB is not the 32 GB W7800).
        if (name_memory && relative_gap(*name_memory, match.memory_bytes) > kMemoryTolerance) {
            d.note = fmt::format("'{}' ({}) is not a catalog SKU; the nearest, {}, has {}", printable(name),
                                 format_gib(*measured), match.id, format_gib(match.memory_bytes));
            return d;
        }
        d.catalog_id = match.id;
        d.note = fmt::format("matched by name, but it reports {} and the catalog {}; check the SKU (or a partition)",
                             format_gib(*measured), format_gib(match.memory_bytes));
        return d;
    }
    d.catalog_id = match.id;
    d.note = "matched by name" + memory_note + form_note;
    return d;
}

}  // namespace

// ------------------------------------------------------------------ parsers

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
            throw InputError(fmt::format("nvidia-smi line {}: expected 'name, memory, PCIe gen, PCIe width', got '{}'",
                                         line_no, printable(line, 80)));
        check_count(out.size(), tool);
        LocalGpu g;
        g.source = tool;
        g.name = clean_name(fields[0]);
        if (!is_na(fields[1])) {
            // A bare number is MiB (--format=csv,nounits).
            const auto bytes = size_with_unit(fields[1], kMiB, tool);
            if (!bytes)
                throw InputError(fmt::format("nvidia-smi line {}: memory '{}' is not like '24564 MiB'", line_no,
                                             printable(fields[1], 40)));
            g.memory_bytes = nonzero(*bytes);
        }
        g.pcie_gen = small_int(fields[2], 1, 8, tool, fmt::format("line {}: PCIe generation", line_no));
        g.pcie_width = small_int(fields[3], 1, 32, tool, fmt::format("line {}: PCIe width", line_no));
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<LocalGpu> parse_rocm_smi_json(std::string_view text) {
    constexpr std::string_view tool = "rocm-smi";
    const ojson root = parse_tool_json(text, tool);
    if (!root.is_object()) throw InputError("rocm-smi: expected a JSON object with one entry per card");
    std::vector<std::pair<std::uint64_t, const ojson*>> cards;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string& key = it.key();
        if (!starts_with(key, "card")) continue;  // "system" holds the driver version
        const auto index = parse_u64(std::string_view(key).substr(4));
        if (!index || key.size() > 10) continue;
        if (!it->is_object()) throw InputError(fmt::format("rocm-smi: '{}' is not an object", printable(key, 20)));
        check_count(cards.size(), tool);
        cards.emplace_back(*index, &*it);
    }
    std::stable_sort(cards.begin(), cards.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<LocalGpu> out;
    for (const auto& [index, card] : cards) {
        LocalGpu g;
        g.source = tool;
        // Releases differ: "Card series"/"Card model" (5.x; the model is a
        // name or the subsystem id), "Card Series"/"Card Model" (6.x; the
        // model is the PCI device id), "Device Name"/"Device ID" (6.2+).
        for (const ojson* v : {member(*card, {"Card Series", "Card series"}), member(*card, {"Device Name"}),
                               member(*card, {"Card Model", "Card model"})}) {
            const std::string n = clean_name(text_of(v));
            if (!n.empty() && hex_id(n).empty()) {
                g.name = n;
                break;
            }
        }
        std::string device = text_of(member(*card, {"Device ID"}));
        if (hex_id(device).empty()) device = text_of(member(*card, {"Card Model"}));
        set_pci(g, "1002", device, text_of(member(*card, {"Device Rev"})));
        g.memory_bytes = u64_of(member(*card, {"VRAM Total Memory (B)"}), tool,
                                fmt::format("card{} VRAM Total Memory (B)", index));
        if (g.memory_bytes) g.memory_bytes = nonzero(*g.memory_bytes);
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<LocalGpu> parse_amd_smi_json(std::string_view text) {
    constexpr std::string_view tool = "amd-smi";
    const ojson root = parse_tool_json(text, tool);
    const ojson* list = nullptr;
    ojson single = ojson::array();
    if (root.is_array()) {
        list = &root;
    } else if (const ojson* data = member(root, {"gpu_data"}); data != nullptr && data->is_array()) {
        list = data;
    } else if (member(root, {"asic"}) != nullptr) {
        single.push_back(root);
        list = &single;
    } else {
        throw InputError("amd-smi: expected a list of GPUs (or an object with \"gpu_data\")");
    }
    std::vector<LocalGpu> out;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const ojson& item = (*list)[i];
        if (!item.is_object()) throw InputError(fmt::format("amd-smi: GPU entry {} is not an object", i));
        check_count(out.size(), tool);
        LocalGpu g;
        g.source = tool;
        const ojson* asic = member(item, {"asic"});
        g.name = clean_name(text_of(asic ? member(*asic, {"market_name"}) : nullptr));
        if (asic)
            set_pci(g, text_of(member(*asic, {"vendor_id"})), text_of(member(*asic, {"device_id"})),
                    text_of(member(*asic, {"rev_id"})));
        if (const ojson* vram = member(item, {"vram"}); vram != nullptr) {
            const ojson* size = member(*vram, {"size"});
            const std::string what = fmt::format("GPU {} vram size", i);
            if (size != nullptr && size->is_object()) {  // {"value": 196592, "unit": "MB"}
                const auto v = u64_of(member(*size, {"value"}), tool, what);
                const std::string unit_text = text_of(member(*size, {"unit"}));
                const auto unit = unit_text.empty() ? std::optional<std::uint64_t>(kMiB) : unit_bytes(unit_text);
                if (v && !unit)
                    throw InputError(fmt::format("amd-smi: {} has an unknown unit '{}'", what, printable(unit_text, 20)));
                if (v) g.memory_bytes = nonzero(scaled(*v, *unit, tool, std::to_string(*v)));
            } else if (size != nullptr && !(size->is_string() && is_na(size->get<std::string>()))) {  // "65520 MB"
                const std::string s = text_of(size);
                const auto bytes = size_with_unit(s, kMiB, tool);
                if (!bytes)
                    throw InputError(fmt::format("amd-smi: {} '{}' is not like '65520 MB'", what, printable(s, 40)));
                g.memory_bytes = nonzero(*bytes);
            }
        }
        if (const ojson* bus = member(item, {"bus"}); bus != nullptr) {
            g.pcie_width = int_in(member(*bus, {"max_pcie_width"}), 1, 32, tool, fmt::format("GPU {} max_pcie_width", i));
            const ojson* speed = member(*bus, {"max_pcie_speed"});  // {"value": 32, "unit": "GT/s"} or "32 GT/s"
            const std::string rate = text_of(speed != nullptr && speed->is_object() ? member(*speed, {"value"}) : speed);
            if (auto r = split_number(rate)) g.pcie_gen = pcie_gen_from_rate(r->first);
            if (!g.pcie_gen) {  // "Gen 5"
                const std::string v = lower(text_of(member(*bus, {"pcie_interface_version"})));
                if (starts_with(v, "gen")) g.pcie_gen = small_int(trim(std::string_view(v).substr(3)), 1, 8, tool,
                                                                  fmt::format("GPU {} pcie_interface_version", i));
            }
        }
        out.push_back(std::move(g));
    }
    return out;
}

namespace {

// The device objects of `xpu-smi discovery -j` or of one device's details.
std::vector<const ojson*> xpu_devices(const ojson& root) {
    if (!root.is_object()) throw InputError("xpu-smi: expected a JSON object with \"device_list\"");
    std::vector<const ojson*> out;
    if (const ojson* list = member(root, {"device_list"}); list != nullptr) {
        if (!list->is_array()) throw InputError("xpu-smi: \"device_list\" is not a list");
        for (const auto& item : *list) {
            if (!item.is_object()) throw InputError("xpu-smi: a \"device_list\" entry is not an object");
            check_count(out.size(), "xpu-smi");
            out.push_back(&item);
        }
    } else if (member(root, {"device_name"}) != nullptr || member(root, {"device_id"}) != nullptr) {
        out.push_back(&root);
    } else {
        throw InputError("xpu-smi: expected \"device_list\" or one device's details");
    }
    return out;
}

}  // namespace

std::vector<LocalGpu> parse_xpu_smi_json(std::string_view text) {
    constexpr std::string_view tool = "xpu-smi";
    const ojson root = parse_tool_json(text, tool);
    std::vector<LocalGpu> out;
    for (const ojson* dev : xpu_devices(root)) {
        LocalGpu g;
        g.source = tool;
        g.name = clean_name(text_of(member(*dev, {"device_name"})));
        g.memory_bytes = u64_of(member(*dev, {"memory_physical_size_byte"}), tool, "memory_physical_size_byte");
        if (g.memory_bytes) g.memory_bytes = nonzero(*g.memory_bytes);
        g.pcie_gen = int_in(member(*dev, {"pcie_generation"}), 1, 8, tool, "pcie_generation");
        g.pcie_width = int_in(member(*dev, {"pcie_max_link_width"}), 1, 32, tool, "pcie_max_link_width");
        const std::string vendor = text_of(member(*dev, {"pci_vendor_id"}));
        set_pci(g, vendor.empty() ? "8086" : vendor, text_of(member(*dev, {"pci_device_id"})));
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<int> xpu_smi_device_ids(std::string_view text) {
    const ojson root = parse_tool_json(text, "xpu-smi");
    std::vector<int> ids;
    for (const ojson* dev : xpu_devices(root)) {
        const auto id = u64_of(member(*dev, {"device_id"}), "xpu-smi", "device_id");
        ids.push_back(id && *id < 100000 ? static_cast<int>(*id) : -1);
    }
    return ids;
}

std::vector<LocalGpu> parse_sysfs_drm(const std::vector<SysfsDrmCard>& cards) {
    check_count(cards.size(), "/sys/class/drm");
    std::vector<LocalGpu> out;
    for (std::size_t i = 0; i < cards.size(); ++i) {
        const auto& c = cards[i];
        const std::string vendor = hex_id(c.vendor), device = hex_id(c.device);
        if (vendor.empty() || device.empty())
            throw InputError(fmt::format("/sys/class/drm card {}: vendor '{}' and device '{}' are not PCI ids like 0x10de",
                                         i, printable(trim(c.vendor), 20), printable(trim(c.device), 20)));
        if (vendor != "10de" && vendor != "1002" && vendor != "8086") continue;
        LocalGpu g;
        g.source = "sysfs";
        set_pci(g, vendor, device, c.revision ? std::string_view(*c.revision) : std::string_view());
        g.name = g.pci_name.empty() ? "PCI " + g.pci_id : g.pci_name;
        // These files are the kernel's, so an odd value means "unknown", not bad input.
        if (c.vram_total)
            if (auto v = parse_u64(*c.vram_total)) g.memory_bytes = nonzero(*v);
        if (c.max_link_speed)
            if (auto r = split_number(*c.max_link_speed)) g.pcie_gen = pcie_gen_from_rate(r->first);
        if (c.max_link_width)
            if (auto w = parse_u64(*c.max_link_width); w && *w >= 1 && *w <= 32) g.pcie_width = static_cast<int>(*w);
        out.push_back(std::move(g));
    }
    return out;
}

std::string pci_device_name(std::string_view vendor, std::string_view device, std::string_view revision) {
    const std::string v = hex_id(vendor), d = hex_id(device), r = hex_id(revision);
    if (v.empty() || d.empty()) return {};
    const auto value = [](const std::string& hex) { return static_cast<int>(std::stoul(hex, nullptr, 16)); };
    const int vi = value(v), di = value(d), ri = r.empty() ? -1 : value(r);
    std::vector<std::string_view> exact, any;
    for (const auto& e : kPciTable) {
        if (e.vendor != vi || e.device != di) continue;
        if (std::find(any.begin(), any.end(), e.name) == any.end()) any.push_back(e.name);
        if (ri >= 0 && (e.revision == ri || e.revision < 0)) exact.push_back(e.name);
    }
    return fmt::format("{}", fmt::join(exact.empty() ? any : exact, " / "));
}

void match_to_catalog(std::vector<LocalGpu>& gpus, const Catalog& catalog) {
    const CatalogKeys index = index_catalog(catalog);
    for (auto& g : gpus) {
        g.catalog_id.clear();
        g.match_note.clear();
        Decision by_name;
        if (!g.name.empty()) by_name = decide(g, g.name, catalog, index);
        if (!by_name.catalog_id.empty() || (by_name.found_name && g.pci_name.empty())) {
            g.catalog_id = by_name.catalog_id;
            g.match_note = by_name.note;
            continue;
        }
        // The reported name can be a board code ("AMD INSTINCT MI200 (MCM) OAM
        // LC MBA HPE C2"); the PCI id then still names the card.
        if (!g.pci_name.empty() && g.pci_name != g.name) {
            Decision by_id = decide(g, g.pci_name, catalog, index);
            if (by_id.found_name) {
                g.catalog_id = by_id.catalog_id;
                g.match_note = by_id.catalog_id.empty() ? by_id.note
                                                        : fmt::format("by PCI id {} ({}); {}", g.pci_id, g.pci_name, by_id.note);
                continue;
            }
        }
        if (by_name.found_name) {
            g.match_note = by_name.note;
        } else if (g.name.empty()) {
            g.match_note = "the tool reported no name";
        } else {
            g.match_note = fmt::format("'{}' is not in the catalog (see 'gpuadvise gpus')", printable(g.name));
        }
    }
}

}  // namespace gpuadvise
