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
