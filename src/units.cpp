#include "gpuadvise/units.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

// Splits "1.5B" into 1.5 and "b". The number must be a plain decimal (with an
// optional exponent) and must be finite; what follows is returned lowercased.
struct NumberWithSuffix {
    double value;
    std::string suffix;
};

NumberWithSuffix split_number(std::string_view text, std::string_view flag,
                              std::string_view example) {
    const std::string_view t = trim(text);
    double value = 0;
    const char* begin = t.data();
    const char* end = t.data() + t.size();
    auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::general);
    if (t.empty() || ec != std::errc() || !std::isfinite(value)) {
        if (ec == std::errc::result_out_of_range)
            throw InputError(fmt::format("{} {} is out of range; use a value like {}", flag,
                                         quote(text), example));
        throw InputError(
            fmt::format("{} {} is not a number; use a value like {}", flag, quote(text), example));
    }
    std::string suffix = lower(trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr))));
    return {value, suffix};
}

}  // namespace

std::uint64_t parse_param_count(std::string_view text, std::string_view flag) {
    constexpr std::string_view example = "8B, 1.5B or 350M";
    auto [value, suffix] = split_number(text, flag, example);
    double scale = 1;
    if (suffix == "t")
        scale = 1e12;
    else if (suffix == "b")
        scale = 1e9;
    else if (suffix == "m")
        scale = 1e6;
    else if (suffix == "k")
        scale = 1e3;
    else if (!suffix.empty())
        throw InputError(
            fmt::format("{} {} has an unknown suffix {}; use a size like {} (K, M, B or T)", flag,
                        quote(text), quote(suffix), example));
    const double count = value * scale;
    if (!(count >= 1))
        throw InputError(
            fmt::format("{} {} must be a positive count, like {}", flag, quote(text), example));
    if (count > 1e15)
        throw InputError(fmt::format("{} {} is over 1e15 parameters; use a size like {}", flag,
                                     quote(text), example));
    return static_cast<std::uint64_t>(std::llround(count));
}

std::uint64_t parse_bytes(std::string_view text, std::string_view flag) {
    constexpr std::string_view example = "24GB, 24GiB or 512MiB";
    auto [value, suffix] = split_number(text, flag, example);
    double scale = 0;
    if (suffix.empty() || suffix == "b")
        scale = 1;
    else if (suffix == "kb")
        scale = 1e3;
    else if (suffix == "mb")
        scale = 1e6;
    else if (suffix == "gb" || suffix == "g")
        scale = 1e9;
    else if (suffix == "tb" || suffix == "t")
        scale = 1e12;
    else if (suffix == "kib")
        scale = static_cast<double>(kKiB);
    else if (suffix == "mib")
        scale = static_cast<double>(kMiB);
    else if (suffix == "gib")
        scale = static_cast<double>(kGiB);
    else if (suffix == "tib")
        scale = static_cast<double>(kGiB) * 1024.0;
    else
        throw InputError(fmt::format("{} {} has an unknown unit {}; use a size like {}", flag,
                                     quote(text), quote(suffix), example));
    const double bytes = value * scale;
    if (!(bytes >= 1))
        throw InputError(
            fmt::format("{} {} must be at least one byte, like {}", flag, quote(text), example));
    if (bytes > 1e18)
        throw InputError(
            fmt::format("{} {} is too large; use a size like {}", flag, quote(text), example));
    return static_cast<std::uint64_t>(std::llround(bytes));
}

double parse_bandwidth_gbps(std::string_view text, std::string_view flag) {
    constexpr std::string_view example = "900GB/s or 1TB/s";
    auto [value, suffix] = split_number(text, flag, example);
    double scale = 0;
    if (suffix == "gb" || suffix == "tb" || suffix == "mb" || suffix == "gib" || suffix == "tib" ||
        suffix == "mib")
        throw InputError(fmt::format("{} {} is a size, not a rate; give a bandwidth like {}", flag,
                                     quote(text), example));
    if (suffix.empty() || suffix == "gb/s" || suffix == "gbps")
        scale = 1;
    else if (suffix == "tb/s" || suffix == "tbps")
        scale = 1e3;
    else if (suffix == "mb/s")
        scale = 1e-3;
    else
        throw InputError(fmt::format("{} {} has an unknown unit {}; use a bandwidth like {}", flag,
                                     quote(text), quote(suffix), example));
    const double gbps = value * scale;
    if (!(gbps > 0) || gbps > 1e6)
        throw InputError(
            fmt::format("{} {} must be a positive bandwidth, like {}", flag, quote(text), example));
    return gbps;
}

double parse_duration_hours(std::string_view text, std::string_view flag) {
    constexpr std::string_view example = "30d or 720h";
    auto [value, suffix] = split_number(text, flag, example);
    struct Unit {
        std::string_view names[3];
        double hours;
    };
    static constexpr Unit kUnits[] = {{{"h", "hour", "hours"}, 1.0},
                                      {{"d", "day", "days"}, 24.0},
                                      {{"w", "week", "weeks"}, 24.0 * 7.0},
                                      {{"y", "year", "years"}, 24.0 * 365.0}};
    if (suffix.empty())
        throw InputError(
            fmt::format("{} {} has no unit; give a duration like {}", flag, quote(text), example));
    for (const Unit& u : kUnits)
        for (const std::string_view name : u.names)
            if (suffix == name) {
                const double hours = value * u.hours;
                // A minute to a century: shorter is not a training job, longer a typo.
                if (!(hours >= 1.0 / 60.0) || hours > 24.0 * 365.0 * 100.0)
                    throw InputError(
                        fmt::format("{} {} must be between a minute and 100 years, like {}", flag,
                                    quote(text), example));
                return hours;
            }
    throw InputError(fmt::format("{} {} has an unknown unit {}; use h, d, w or y, like {}", flag,
                                 quote(text), quote(suffix), example));
}

double parse_latency_seconds(std::string_view text, std::string_view flag,
                             std::string_view example) {
    auto [value, suffix] = split_number(text, flag, example);
    struct Unit {
        std::string_view names[3];
        double seconds;
    };
    static constexpr Unit kUnits[] = {{{"us", "usec", "microseconds"}, 1e-6},
                                      {{"ms", "msec", "milliseconds"}, 1e-3},
                                      {{"s", "sec", "seconds"}, 1.0},
                                      {{"min", "minute", "minutes"}, 60.0}};
    if (suffix.empty())
        throw InputError(
            fmt::format("{} {} has no unit; give a time like {}", flag, quote(text), example));
    for (const Unit& u : kUnits)
        for (const std::string_view name : u.names)
            if (suffix == name) {
                const double seconds = value * u.seconds;
                if (!(seconds >= 1e-4) || seconds > 3600.0)
                    throw InputError(
                        fmt::format("{} {} must be between 0.1 ms and an hour, like {}", flag,
                                    quote(text), example));
                return seconds;
            }
    throw InputError(fmt::format("{} {} has an unknown unit {}; use ms or s, like {}", flag,
                                 quote(text), quote(suffix), example));
}

std::int64_t parse_positive_int(std::string_view text, std::string_view flag, std::int64_t max) {
    const std::string_view t = trim(text);
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (t.empty() || ec == std::errc::invalid_argument || ptr != t.data() + t.size())
        throw InputError(
            fmt::format("{} {} is not a whole number; use a positive integer", flag, quote(text)));
    if (ec == std::errc::result_out_of_range || value > max)
        throw InputError(fmt::format("{} {} is too large; use at most {}", flag, quote(text), max));
    if (value <= 0) throw InputError(fmt::format("{} {} must be at least 1", flag, quote(text)));
    return value;
}

double parse_positive_real(std::string_view text, std::string_view flag) {
    auto [value, suffix] = split_number(text, flag, "0.15");
    if (!suffix.empty())
        throw InputError(
            fmt::format("{} {} is not a number; use a value like 0.15", flag, quote(text)));
    if (!(value > 0) || value > 1e12)
        throw InputError(fmt::format("{} {} must be a positive number", flag, quote(text)));
    return value;
}

std::string format_gib(std::uint64_t bytes) {
    return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / static_cast<double>(kGiB));
}

std::string format_count(std::uint64_t count) {
    const double c = static_cast<double>(count);
    if (c >= 1e12) return fmt::format("{:.2f}T", c / 1e12);
    if (c >= 1e9) return fmt::format("{:.2f}B", c / 1e9);
    if (c >= 1e6) return fmt::format("{:.0f}M", c / 1e6);
    if (c >= 1e3) return fmt::format("{:.0f}K", c / 1e3);
    return fmt::format("{}", count);
}

std::uint64_t to_bytes(double value) {
    if (!(value > 0)) return 0;
    if (!(value < 1.8e19)) return std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(std::round(value));
}

}  // namespace gpuadvise

namespace gpuadvise {

double parse_real_in(std::string_view text, std::string_view flag, double min, double max,
                     std::string_view example) {
    auto [value, suffix] = split_number(text, flag, example);
    if (!suffix.empty())
        throw InputError(
            fmt::format("{} {} is not a number; use a value like {}", flag, quote(text), example));
    if (!(value >= min) || !(value <= max))
        throw InputError(fmt::format("{} {} is out of range; use a number from {} to {}", flag,
                                     quote(text), min, max));
    return value;
}

}  // namespace gpuadvise
