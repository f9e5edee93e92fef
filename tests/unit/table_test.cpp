#include "gpuadvise/table.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/text.hpp"

using namespace gpuadvise;

namespace {
Table sample() {
    Table t;
    t.columns = {{"#", true, 0},
                 {"GPU", false, 0},
                 {"Price", true, 2},
                 {"Bandwidth", true, 1},
                 {"Reason", false, 3, true}};
    t.rows = {{"1", "nvidia-rtx-4090", "$1599", "1008 GB/s",
               "fits with 13.4 GiB headroom, \"fast\"; ~1000 tok/s"},
              {"10", "amd-mi300x", "-", "5300 GB/s", "needs 151.5 GiB per GPU | card has 192 GiB"}};
    return t;
}
}  // namespace

TEST_CASE("CSV has a header row and RFC 4180 quoting") {
    const std::string csv = render_csv(sample());
    CHECK(csv.rfind("#,GPU,Price,Bandwidth,Reason\r\n", 0) == 0);
    CHECK(csv.find("\"fits with 13.4 GiB headroom, \"\"fast\"\"; ~1000 tok/s\"") !=
          std::string::npos);
    CHECK(csv.find("10,amd-mi300x,-,5300 GB/s,needs 151.5 GiB per GPU | card has 192 GiB\r\n") !=
          std::string::npos);
}

TEST_CASE("Markdown renders as a table and escapes pipes") {
    const std::string md = render_markdown(sample());
    CHECK(md.rfind("| # | GPU | Price | Bandwidth | Reason |\n|---:|---|---:|---:|---|\n", 0) == 0);
    CHECK(md.find("needs 151.5 GiB per GPU \\| card has 192 GiB") != std::string::npos);
}

TEST_CASE("aligned tables fit a narrow terminal by dropping columns, never wrapping") {
    const std::string wide = render_aligned(sample(), {});
    CHECK(wide.find("Bandwidth") != std::string::npos);
    for (std::size_t width : {80u, 60u, 40u}) {
        INFO(width);
        const std::string narrow = render_aligned(sample(), {width, false});
        std::size_t start = 0, lines = 0;
        while (start < narrow.size()) {
            const std::size_t end = narrow.find('\n', start);
            CHECK(display_width(narrow.substr(start, end - start)) <= width);
            start = end + 1;
            ++lines;
        }
        CHECK(lines == 3);  // header + 2 rows: nothing wrapped
        CHECK(narrow.find("nvidia-rtx-4090") != std::string::npos);  // never-dropped columns stay
    }
    CHECK(render_aligned(sample(), {40, false}).find("Reason") == std::string::npos);
}

TEST_CASE("colour codes only when asked") {
    Table t;
    t.columns = {{"Fits"}};
    t.rows = {{"yes"}, {"no"}};
    CHECK(render_aligned(t, {0, false}).find('\033') == std::string::npos);
    const std::string colored = render_aligned(t, {0, true});
    CHECK(colored.find("\033[32myes") != std::string::npos);
    CHECK(colored.find("\033[31mno") != std::string::npos);
}
