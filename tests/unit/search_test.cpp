#include "gpuadvise/search.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <set>

using gpuadvise::largest_where;

TEST_CASE("largest_where finds the last yes of a monotone predicate") {
    for (const std::int64_t answer : {1, 2, 3, 7, 8, 9, 100, 999, 1000}) {
        std::set<std::int64_t> probed;
        const auto ok = [&](std::int64_t n) {
            probed.insert(n);
            return n <= answer;
        };
        CHECK(largest_where(1, 1000, ok) == answer);
        // Galloping then bisecting: about two probes per bit of the answer.
        CHECK(probed.size() <= 24);
    }
}

TEST_CASE("largest_where's ends: nothing, everything, one value") {
    const auto never = [](std::int64_t) { return false; };
    const auto always = [](std::int64_t) { return true; };
    CHECK_FALSE(largest_where(1, 10, never).has_value());
    CHECK(largest_where(1, 10, always) == 10);
    CHECK(largest_where(5, 5, always) == 5);
    CHECK_FALSE(largest_where(6, 5, always).has_value());
    // Near the top of the range nothing overflows.
    constexpr std::int64_t kTop = INT64_MAX;
    CHECK(largest_where(kTop - 3, kTop, always) == kTop);
    CHECK(largest_where(1, kTop, [](std::int64_t n) { return n <= 12345; }) == 12345);
}

TEST_CASE("largest_where answers a value whose probe said yes when ok is not monotone") {
    // A rule can refuse one value in the middle; the answer still fitted.
    const auto holes = [](std::int64_t n) { return n <= 40 && n != 17; };
    const auto got = largest_where(1, 64, holes);
    REQUIRE(got.has_value());
    CHECK(holes(*got));
}

namespace {

using gpuadvise::largest_where_guided;
using gpuadvise::Probe;

// A probe counting its calls, with a memory-like slack: `room` minus `per`
// for each n, and optionally a rule that refuses from `rule_from` on.
struct Counted {
    double room = 0, per = 1, curve = 0;
    std::int64_t rule_from = INT64_MAX;
    bool slack_known = true;
    mutable int calls = 0;
    Probe operator()(std::int64_t n) const {
        ++calls;
        const double x = static_cast<double>(n);
        const double slack = room - per * x - curve * x * x;
        const bool rule_ok = rule_from == INT64_MAX || n < rule_from;  // INT64_MAX: no rule
        Probe p;
        p.ok = slack >= 0 && rule_ok;
        if (slack_known && rule_ok) p.slack = slack;
        return p;
    }
};

std::int64_t brute(const Counted& c, std::int64_t low, std::int64_t high) {
    std::int64_t last = 0;
    for (std::int64_t n = low; n <= high; ++n)
        if (c(n).ok)
            last = n;
        else
            break;
    return last;
}

}  // namespace

TEST_CASE("largest_where_guided is exact and needs few probes when the slack is linear") {
    // A context search: 2,000 bytes a token, 100 MB to spare at the start.
    Counted c{1e8, 2000.0};
    const auto got = largest_where_guided(257, 131072, c);
    REQUIRE(got.has_value());
    CHECK(*got == 50000);  // 1e8 / 2000
    CHECK(c.calls <= 6);
    // The plain search takes about twice the bits of the answer.
    int plain = 0;
    largest_where(257, 131072, [&](std::int64_t n) {
        ++plain;
        return c(n).ok;
    });
    CHECK(plain >= 20);
}

TEST_CASE("largest_where_guided stays exact when the slack misleads or is unknown") {
    for (const double curve : {0.0, 0.01, 0.5})
        for (const std::int64_t rule_from : {std::int64_t{30}, std::int64_t{700}, INT64_MAX})
            for (const bool known : {true, false}) {
                Counted c{1e6, 7.0, curve, rule_from, known};
                const std::int64_t want = brute(c, 1, 5000);
                c.calls = 0;
                const auto got = largest_where_guided(1, 5000, c);
                CAPTURE(curve, rule_from, known);
                REQUIRE(got.has_value());
                CHECK(*got == want);
                // Never much worse than bisection's two probes a bit.
                CHECK(c.calls <= 40);
            }
    Counted never{-1.0, 1.0};
    CHECK_FALSE(largest_where_guided(1, 10, never).has_value());
    Counted always{1e18, 0.0};
    CHECK(largest_where_guided(1, INT64_MAX, always) == INT64_MAX);
}
