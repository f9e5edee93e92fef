// The one Catch2 main every test binary links (compiled once: it is the
// slowest file of the suite to build).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

// ctest splits a discovered test's name at ';' (and catch_discover_tests
// mangles '[' and '\\'): such a test becomes entries that match nothing and
// count as passed. Every binary checks its own test names.
TEST_CASE("test names: none holds a character ctest splits or mangles") {
    const auto& tests = Catch::getAllTestCasesSorted(*Catch::getCurrentContext().getConfig());
    REQUIRE(tests.size() > 1);
    for (const Catch::TestCase& t : tests) {
        INFO(t.name);
        CHECK(t.name.find_first_of(";[]\\") == std::string::npos);
    }
}
