#pragma once
// Quantities as people type them ("8B" parameters, "24GB" of memory, "1TB/s")
// and as gpuadvise prints them. Parsers throw InputError naming the flag.
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuadvise {

inline constexpr std::uint64_t kKiB = 1024ULL;
inline constexpr std::uint64_t kMiB = 1024ULL * kKiB;
inline constexpr std::uint64_t kGiB = 1024ULL * kMiB;

// The most gpuadvise reports per GPU: 1 EiB. Any workload beyond it is
// rejected with a message rather than wrapped or saturated into a "fit".
inline constexpr double kMaxEstimateBytes = 1152921504606846976.0;  // 2^60
inline constexpr double kGB = 1e9;

// A parameter count: "8B", "1.5B", "350M", "70b", "125k", "7e9", "8000000000".
// Rejects zero, negatives, junk suffixes and counts above 1e15 (no model has
// a quadrillion parameters; such input is a typo, not a workload).
std::uint64_t parse_param_count(std::string_view text, std::string_view flag);

// A byte size: "24GB" (10^9), "24GiB" (2^30), "512MiB", "1.5TB", plain bytes.
std::uint64_t parse_bytes(std::string_view text, std::string_view flag);

// A bandwidth in GB/s: "1TB/s", "900GB/s", "900" (GB/s implied).
double parse_bandwidth_gbps(std::string_view text, std::string_view flag);

// A duration in hours: "30d", "720h", "6w", "1y" (365 days), "1.5d"; a bare
// number has no unit and is refused (hours or days is the user's to say).
double parse_duration_hours(std::string_view text, std::string_view flag);
// A latency in seconds: "2s", "500ms", "50 ms", "1min"; a bare number has no
// unit and is refused (50 could be seconds or milliseconds). Between 0.1 ms
// and an hour: shorter is no engine's step, longer not a latency.
double parse_latency_seconds(std::string_view text, std::string_view flag,
                             std::string_view example);

// A strictly positive integer no larger than `max` ("--batch 0" is an error).
std::int64_t parse_positive_int(std::string_view text, std::string_view flag, std::int64_t max);

// A strictly positive, finite real number.
double parse_positive_real(std::string_view text, std::string_view flag);
// A finite real number in [min, max] (bounds documented with each flag).
double parse_real_in(std::string_view text, std::string_view flag, double min, double max,
                     std::string_view example);

// "21.6 GiB" style, one decimal; bytes are always shown with their unit.
std::string format_gib(std::uint64_t bytes);
// "8.03B" / "350M" style parameter counts.
std::string format_count(std::uint64_t count);
// Integer byte count from a double, saturating and never negative: estimates
// are computed in double and stored as integers in every output.
std::uint64_t to_bytes(double value);

}  // namespace gpuadvise
