#include "gpuadvise/names.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/enum_table.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/platform.hpp"

using namespace gpuadvise;

TEST_CASE("names normalise case, spaces, dashes, underscores and dots") {
    CHECK(normalize_name("RTX 4090") == "rtx4090");
    CHECK(normalize_name("rtx_40-90.") == "rtx4090");
}

TEST_CASE("edit distance counts transpositions and stops at its cap") {
    CHECK(edit_distance("4090", "4900") == 1);
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("a", "bcdefghijk", 3) == 4);
    CHECK(edit_distance("", "") == 0);
}

TEST_CASE("closest names and choices say what to type") {
    CHECK(closest_name("qlorra", {"lora", "qlora", "full"}) == "qlora");
    CHECK_FALSE(closest_name("zzzzzz", {"lora", "qlora"}));
    CHECK(parse_choice("QLoRA", "--method", {"lora", "qlora"}) == "qlora");
    CHECK_THROWS_WITH(parse_choice("qlorra", "--method", {"lora", "qlora"}),
                      Catch::Contains("did you mean 'qlora'"));
    CHECK_THROWS_WITH(parse_choice("x", "--method", {"lora", "qlora"}),
                      Catch::Contains("choose one of: lora, qlora"));
}

TEST_CASE("enum tables list visible names and accept hidden aliases") {
    CHECK(kOses.parse("WSL2", "--os") == Os::Wsl);
    CHECK(kOses.name(Os::Wsl) == "wsl");
    CHECK(kOses.choices() == std::vector<std::string>{"linux", "windows", "wsl"});
    CHECK_THROWS_WITH(kOses.parse("macos", "--os"), Catch::Contains("--os 'macos'"));
}

TEST_CASE("name tokens split words and where letters meet digits") {
    CHECK(name_tokens("RTX A6000") == std::vector<std::string>{"rtx", "a", "6000"});
    CHECK(name_tokens("rtx-a6000") == std::vector<std::string>{"rtx", "a", "6000"});
    CHECK(name_tokens("H100-SXM5 80GB") ==
          std::vector<std::string>{"h", "100", "sxm", "5", "80", "gb"});
    CHECK(name_tokens("M3 Max, 40-core GPU, 64GB") ==
          std::vector<std::string>{"m", "3", "max", "40", "core", "gpu", "64", "gb"});
    CHECK(name_tokens("Ryzen AI Max+ 395").back() == "395");
    CHECK(name_tokens(" -- ").empty());
}
