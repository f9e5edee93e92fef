#pragma once
// The one search over a number the planners share (limits.cpp: the longest
// context and largest batch of a plan; suggest.cpp: the batch, context or
// cards that make a miss fit). Every probe there is a whole plan evaluation,
// so the search keeps probes few: it gallops up from the low end, since the
// answer is usually far below the cap (a 1M-token bound, a 4k context), and
// bisects between the last yes and the first no.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace gpuadvise {

// What a guided probe says about n: whether it is a yes, and the room it
// leaves, a number that falls about linearly in n and is negative past the
// last yes when memory is what stops it (the bytes a plan has to spare; NaN
// when the probe cannot say, as when a rule refused it).
struct Probe {
    bool ok = false;
    double slack = std::numeric_limits<double>::quiet_NaN();
};

// largest_where for probes that also report their slack: the next probe is
// where the line through the last two slacks crosses zero (a plan's memory
// grows about linearly in its context and batch), kept inside the bracket
// of the last yes and the first no, and a bisection whenever that failed to
// halve the bracket, so a slack that is not linear, or not known, costs at
// most about twice largest_where's probes. The answer is exact: the search
// ends with the last yes next to the first no (or at high).
template <typename P>
std::optional<std::int64_t> largest_where_guided(std::int64_t low, std::int64_t high,
                                                 const P& probe) {
    if (low > high) return std::nullopt;
    const Probe first = probe(low);
    if (!first.ok) return std::nullopt;
    std::int64_t yes = low, no = high;  // `no` is a probed no once `refused`
    bool refused = false, bisect = false;
    struct Point {
        std::int64_t n = 0;
        double slack = 0;
    };
    std::optional<Point> older, newer;
    if (std::isfinite(first.slack)) newer = Point{low, first.slack};
    // The first step doubles low, so the first two slacks are far enough
    // apart to give a slope (memory rounds to allocation granules).
    std::int64_t step = std::max<std::int64_t>(low, 1);
    while (refused ? no - yes > 1 : yes < high) {
        const std::int64_t top = refused ? no - 1 : high;  // the largest n still possible
        std::optional<std::int64_t> guess;
        if (older && newer && older->slack != newer->slack) {
            const double root = static_cast<double>(newer->n) +
                                newer->slack * static_cast<double>(newer->n - older->n) /
                                    (older->slack - newer->slack);
            // Before the first no, only a root ahead of the last yes leads.
            if (std::isfinite(root) && (refused || std::floor(root) > static_cast<double>(yes)))
                guess = static_cast<std::int64_t>(std::clamp(
                    std::floor(root), static_cast<double>(yes + 1), static_cast<double>(top)));
        }
        const bool use_guess = guess && !(refused && bisect);
        std::int64_t n = 0;
        if (use_guess)
            n = *guess;
        else if (refused)
            n = yes + (no - yes) / 2;
        else
            n = step <= top - yes ? yes + step : top;  // gallop up while no no is known
        const std::int64_t before = refused ? no - yes : 0;
        const Probe p = probe(n);
        if (p.ok) {
            yes = n;
        } else {
            no = n;
            refused = true;
        }
        if (step <= INT64_MAX / 2) step *= 2;
        // A guess that did not halve the bracket is followed by a bisection.
        bisect = use_guess && before > 0 && no - yes > before / 2;
        if (std::isfinite(p.slack)) {
            older = newer;
            newer = Point{n, p.slack};
        }
    }
    return yes;
}

// The largest n in [low, high] with ok(n), or nullopt when ok(low) fails:
// the guided search with probes that give no slack (a gallop up from low,
// then bisection). ok is monotone for the memory model; where a rule makes
// it not, the answer is still a value whose probe said yes.
template <typename Ok>
std::optional<std::int64_t> largest_where(std::int64_t low, std::int64_t high, const Ok& ok) {
    return largest_where_guided(low, high, [&](std::int64_t n) { return Probe{.ok = ok(n)}; });
}

}  // namespace gpuadvise
