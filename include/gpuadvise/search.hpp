#pragma once
// The one search over a number the planners share (limits.cpp: the longest
// context and largest batch of a plan; suggest.cpp: the batch, context or
// cards that make a miss fit). Every probe there is a whole plan evaluation,
// so the search keeps probes few: it gallops up from the low end, since the
// answer is usually far below the cap (a 1M-token bound, a 4k context), and
// bisects between the last yes and the first no.
#include <cstdint>
#include <optional>

namespace gpuadvise {

// The largest n in [low, high] with ok(n), or nullopt when ok(low) fails.
// ok is monotone for the memory model; where a rule makes it not, the answer
// is still a value whose probe said yes.
template <typename Ok>
std::optional<std::int64_t> largest_where(std::int64_t low, std::int64_t high, const Ok& ok) {
    if (low > high || !ok(low)) return std::nullopt;
    std::int64_t yes = low, no = high, step = 1;
    bool refused = false;  // a probe in (yes, high] said no: `no` is it
    while (step <= high - yes) {
        if (!ok(yes + step)) {
            no = yes + step;
            refused = true;
            break;
        }
        yes += step;
        if (step > INT64_MAX / 2) break;
        step *= 2;
    }
    // The gallop stopped short of high without a no: high itself decides.
    if (!refused && (yes == high || ok(high))) return high;
    while (no - yes > 1) {
        const std::int64_t mid = yes + (no - yes) / 2;
        if (ok(mid))
            yes = mid;
        else
            no = mid;
    }
    return yes;
}

}  // namespace gpuadvise
