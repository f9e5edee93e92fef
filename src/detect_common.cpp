#include "detect_common.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise::detail {

std::string printable(std::string_view s, std::size_t max) {
    return sanitize(s, max);
}

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

std::optional<std::pair<double, std::string>> leading_number(std::string_view s) {
    s = trim(s);
    double v = 0;
    const auto [ptr, ec] =
        std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
    if (s.empty() || ec != std::errc() || !std::isfinite(v) || v < 0) return std::nullopt;
    return std::pair{
        v, lower(trim(std::string_view(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr))))};
}

void check_size(std::string_view text, std::string_view tool) {
    if (text.size() > kMaxToolOutputBytes)
        throw InputError(
            fmt::format("{} printed more than {} MiB; that is not the output of a GPU query", tool,
                        kMaxToolOutputBytes >> 20U));
}

void check_count(std::size_t count, std::string_view tool) {
    if (count >= kMaxLocalGpus)
        throw InputError(
            fmt::format("{} lists more than {} GPUs; that is not the output of one machine", tool,
                        kMaxLocalGpus));
}

std::uint64_t scaled(std::uint64_t value, std::uint64_t unit, std::string_view tool,
                     std::string_view text) {
    if (value > std::numeric_limits<std::uint64_t>::max() / unit)
        throw InputError(fmt::format("{}: memory size {} is out of range", tool, quote(text)));
    return value * unit;
}

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

std::optional<std::uint64_t> size_with_unit(std::string_view s, std::uint64_t bare_unit,
                                            std::string_view tool) {
    s = trim(s);
    const std::size_t digits_end = std::min(s.find_first_not_of("0123456789"), s.size());
    const auto whole = parse_u64(s.substr(0, digits_end));
    const std::string_view rest = trim(s.substr(digits_end));
    const auto unit = rest.empty() ? std::optional<std::uint64_t>(bare_unit) : unit_bytes(rest);
    if (!whole || !unit) return std::nullopt;
    return scaled(*whole, *unit, tool, s);
}

std::optional<int> pcie_gen_from_rate(double gts) {
    static constexpr double kRates[] = {2.5, 5, 8, 16, 32, 64, 128};
    for (std::size_t i = 0; i < std::size(kRates); ++i)
        if (std::fabs(gts - kRates[i]) < 0.3) return static_cast<int>(i) + 1;
    return std::nullopt;
}

std::optional<int> small_int(std::string_view s, int lo, int hi, std::string_view tool,
                             std::string_view what) {
    if (is_na(s)) return std::nullopt;
    const auto v = parse_u64(s);
    if (!v || *v < static_cast<std::uint64_t>(lo) || *v > static_cast<std::uint64_t>(hi))
        throw InputError(
            fmt::format("{}: {} {} is not a number from {} to {}", tool, what, quote(s), lo, hi));
    return static_cast<int>(*v);
}

namespace {

std::string hex_of(std::string_view s, std::size_t width) {
    s = trim(s);
    if (starts_with(s, "0x") || starts_with(s, "0X")) s.remove_prefix(2);
    if (s.empty() || s.size() > width) return {};
    std::string out(width - s.size(), '0');
    for (const char c : s) {
        const char l = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        if (!((l >= '0' && l <= '9') || (l >= 'a' && l <= 'f'))) return {};
        out.push_back(l);
    }
    return out;
}

}  // namespace

std::string hex_id(std::string_view s) {
    return hex_of(s, 4);
}
std::string hex_revision(std::string_view s) {
    return hex_of(s, 2);
}

// The tools print warnings around their JSON ("WARNING: AMD GPU device(s)
// is/are in a low-power state"), so parse the first value that starts a line
// and ignore what follows it.
ToolJson parse_tool_json(std::string_view raw, std::string_view tool) {
    check_size(raw, tool);
    ToolJson out;
    out.text = repair_utf8(raw);
    const std::string_view text = out.text;
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
        throw InputError(fmt::format("{}: its output holds no JSON: {}", tool, quote(trim(text))));
    std::string first_error;
    json::Limits limits;
    limits.allow_trailing = true;
    for (const std::size_t start : starts) {
        try {
            out.doc = json::Document::parse(text.substr(start), tool, "JSON", limits);
            return out;
        } catch (const InputError& e) {
            if (first_error.empty()) first_error = e.what();
        }
    }
    throw InputError(first_error);
}

std::optional<json::Value> member(const json::Value& o,
                                  std::initializer_list<std::string_view> keys) {
    if (!o.is_object()) return std::nullopt;
    for (const auto key : keys)
        if (const auto v = o.find(key); v && !v->is_null()) return v;
    return std::nullopt;
}

std::string text_of(const std::optional<json::Value>& v) {
    if (!v) return {};
    if (v->is_string() || v->is_number()) return std::string(v->text());
    return {};
}

// A non-negative integer given as a JSON number or a decimal string; N/A is
// nullopt and anything else is malformed.
std::optional<std::uint64_t> u64_of(const std::optional<json::Value>& v, std::string_view tool,
                                    std::string_view what) {
    if (!v) return std::nullopt;
    if (v->is_number()) {
        if (const auto u = v->uint64()) return u;
        if (const auto d = v->number(); d && *d >= 0 && *d < 1.8e19)
            return static_cast<std::uint64_t>(std::llround(*d));
    } else if (v->is_string()) {
        if (is_na(v->text())) return std::nullopt;
        if (auto n = parse_u64(v->text())) return n;
    }
    throw InputError(
        fmt::format("{}: {} is {}, not a whole number", tool, what, quote(v->dump(40))));
}

std::optional<int> int_in(const std::optional<json::Value>& v, int lo, int hi,
                          std::string_view tool, std::string_view what) {
    const auto n = u64_of(v, tool, what);
    if (!n) return std::nullopt;
    if (*n < static_cast<std::uint64_t>(lo) || *n > static_cast<std::uint64_t>(hi))
        throw InputError(fmt::format("{}: {} {} is not from {} to {}", tool, what, *n, lo, hi));
    return static_cast<int>(*n);
}

void set_pci(LocalGpu& g, std::string_view vendor, std::string_view device,
             std::string_view revision) {
    const std::string v = hex_id(vendor), d = hex_id(device);
    if (v.empty() || d.empty()) return;
    g.pci_id = v + ":" + d;
    g.pci_revision = hex_revision(revision);
}

}  // namespace gpuadvise::detail
