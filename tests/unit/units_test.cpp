#include "gpuadvise/units.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/error.hpp"

using namespace gpuadvise;

TEST_CASE("parameter counts parse as people write them") {
    CHECK(parse_param_count("8B", "--model") == 8'000'000'000ULL);
    CHECK(parse_param_count("1.5B", "--model") == 1'500'000'000ULL);
    CHECK(parse_param_count("350M", "--model") == 350'000'000ULL);
    CHECK(parse_param_count("70b", "--model") == 70'000'000'000ULL);
    CHECK(parse_param_count("7e9", "--model") == 7'000'000'000ULL);
    CHECK(parse_param_count(" 125k ", "--model") == 125'000ULL);
}

TEST_CASE("bad parameter counts are input errors naming the value") {
    for (const char* bad : {"8Q", "-7B", "0", "1e30B", "", "abc", "B", "nan", "inf", "1e400"}) {
        INFO(bad);
        CHECK_THROWS_AS(parse_param_count(bad, "--model"), InputError);
    }
    CHECK_THROWS_WITH(parse_param_count("8Q", "--model"),
                      Catch::Contains("'8Q'") && Catch::Contains("suffix"));
}

TEST_CASE("byte sizes distinguish GB from GiB") {
    CHECK(parse_bytes("24GB", "--min-memory") == 24'000'000'000ULL);
    CHECK(parse_bytes("24GiB", "--min-memory") == 24ULL * kGiB);
    CHECK(parse_bytes("512MiB", "--min-memory") == 512ULL * kMiB);
    CHECK_THROWS_AS(parse_bytes("24GQ", "--min-memory"), InputError);
    CHECK_THROWS_AS(parse_bytes("-1GB", "--min-memory"), InputError);
    CHECK(parse_bandwidth_gbps("1TB/s", "--min-bandwidth") == Approx(1000));
    CHECK(parse_bandwidth_gbps("900", "--min-bandwidth") == Approx(900));
}

TEST_CASE("positive integers reject zero, negatives, junk and overflow") {
    CHECK(parse_positive_int("4", "--batch", 100) == 4);
    for (const char* bad : {"0", "-1", "abc", "4x", "", "99999999999999999999999", "101"}) {
        INFO(bad);
        CHECK_THROWS_AS(parse_positive_int(bad, "--batch", 100), InputError);
    }
}

TEST_CASE("to_bytes saturates instead of overflowing") {
    CHECK(to_bytes(-5) == 0);
    CHECK(to_bytes(1.5) == 2);
    CHECK(to_bytes(1e30) == UINT64_MAX);
}

TEST_CASE(
    "durations: hours, days, weeks and years, and no unit, an unknown one or an extreme is "
    "refused") {
    CHECK(parse_duration_hours("30d", "--deadline") == Approx(720));
    CHECK(parse_duration_hours("720h", "--deadline") == Approx(720));
    CHECK(parse_duration_hours("6 weeks", "--deadline") == Approx(1008));
    CHECK(parse_duration_hours("1.5y", "--deadline") == Approx(1.5 * 8760));
    for (const char* bad : {"30", "30m", "d", "-3d", "0h", "nan d", "1e9y", "", "3dd"}) {
        INFO(bad);
        CHECK_THROWS_WITH(parse_duration_hours(bad, "--deadline"), Catch::Contains("--deadline"));
    }
}
