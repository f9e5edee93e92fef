// Fuzzes the quantity parsers (units.hpp) on arbitrary text: every flag value
// a user types for a size, byte count, bandwidth, count or price goes through
// one of them. Checks the documented ranges of what they accept.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/units.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);

    accepts([&] {
        const std::uint64_t n = parse_param_count(text, "--model");
        if (n < 1 || n > 1'000'000'000'000'000ULL)
            finding("parse_param_count accepted '" + std::string(text) + "' as " +
                    std::to_string(n) + ", outside [1, 1e15]");
    });
    accepts([&] {
        const std::uint64_t b = parse_bytes(text, "--min-memory");
        if (b > 1'000'000'000'000'000'000ULL)
            finding("parse_bytes accepted '" + std::string(text) + "' as " + std::to_string(b) +
                    ", above 1e18");
    });
    accepts([&] {
        const double g = parse_bandwidth_gbps(text, "--min-bandwidth");
        if (!std::isfinite(g) || !(g > 0) || g > 1e6)
            finding("parse_bandwidth_gbps accepted '" + std::string(text) + "' as " +
                    std::to_string(g));
    });
    for (const std::int64_t max :
         {std::int64_t{8}, std::int64_t{4096}, std::numeric_limits<std::int64_t>::max()}) {
        accepts([&] {
            const std::int64_t v = parse_positive_int(text, "--batch", max);
            if (v < 1 || v > max)
                finding("parse_positive_int accepted '" + std::string(text) + "' as " +
                        std::to_string(v) + " with max " + std::to_string(max));
        });
    }
    accepts([&] {
        const double v = parse_positive_real(text, "--budget");
        if (!std::isfinite(v) || !(v > 0) || v > 1e12)
            finding("parse_positive_real accepted '" + std::string(text) + "' as " +
                    std::to_string(v));
    });
    return 0;
}
