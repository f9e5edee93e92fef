#pragma once
// Error bands: how wrong the estimate was on the measured rows of
// bench/data, per method (memory) and phase (speed). bench/accuracy writes
// data/error_bands.json (the 10th and 90th percentile of measured / estimate
// for each group); the binary embeds it, so every estimate carries the range
// its own validation supports, with no hand-typed numbers.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"

namespace gpuadvise {

enum class BandQuantity : std::uint8_t { Memory, Decode, Prefill, Train, Images };
inline constexpr auto kBandQuantities =
    make_enum_table<BandQuantity>({{BandQuantity::Memory, "memory"},
                                   {BandQuantity::Decode, "decode"},
                                   {BandQuantity::Prefill, "prefill"},
                                   {BandQuantity::Train, "train"},
                                   {BandQuantity::Images, "images"}});

struct ErrorBand {
    BandQuantity quantity = BandQuantity::Memory;
    std::string group;         // method (inference, lora, qlora, full) for memory; "all" for speed
    double low = 1, high = 1;  // measured / estimate at the 10th and 90th percentile
    std::int64_t rows = 0;
};

struct ErrorBands {
    std::string source;  // what made the file
    std::vector<ErrorBand> bands;
    // The band of `group`, else the quantity's "all" band; nullptr when none.
    const ErrorBand* find(BandQuantity q, std::string_view group) const;
    // The band of `group` only; nullptr when it has none.
    const ErrorBand* find_exact(BandQuantity q, std::string_view group) const;
};

ErrorBands parse_error_bands(std::string_view text, std::string_view source);

// The embedded data/error_bands.json.
const ErrorBands& error_bands();

// A value's range from a band: [value x low, value x high].
struct Range {
    double low = 0, high = 0;
};
inline Range band_range(double value, const ErrorBand& b) {
    return {value * b.low, value * b.high};
}

// The compiled-in error bands (data/error_bands.json, written by bench/accuracy).
namespace embedded {
std::string_view error_bands_json();
}  // namespace embedded

}  // namespace gpuadvise
