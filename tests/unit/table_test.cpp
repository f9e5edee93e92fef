#include "gpuadvise/table.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/text.hpp"
#include "support/csv.hpp"

using namespace gpuadvise;

namespace {
constexpr NarrowStep kSampleNarrowing[] = {
    {"Reason", Narrow::Cut, 12}, {"Reason"}, {"Price"}, {"Bandwidth"}};
Table sample() {
    Table t;
    t.columns = {
        {"#", true}, {"GPU"}, {"Price", true, "USD"}, {"Bandwidth", true, "GB/s"}, {"Reason"}};
    t.narrowing = kSampleNarrowing;
    t.rows = {{"1", "nvidia-rtx-4090", "1599", "1008",
               "fits with 13.4 GiB headroom, \"fast\"; ~1000 tok/s"},
              {"10", "amd-mi300x", "", "5300", "needs 151.5 GiB per GPU | card has 192 GiB"}};
    return t;
}
}  // namespace

TEST_CASE("CSV has bare numbers, units in the header, empty unknowns and RFC 4180 quoting") {
    const std::string csv = render_csv(sample());
    CHECK(csv.rfind("#,GPU,Price (USD),Bandwidth (GB/s),Reason\r\n", 0) == 0);
    CHECK(csv.find("1,nvidia-rtx-4090,1599,1008,\"fits with 13.4 GiB headroom, \"\"fast\"\"; ~1000 "
                   "tok/s\"\r\n") != std::string::npos);
    // An unknown price is an empty cell, never 0 or "-".
    CHECK(csv.find("10,amd-mi300x,,5300,needs 151.5 GiB per GPU | card has 192 GiB\r\n") !=
          std::string::npos);
    // A line break in a cell cannot start a record: cells are one line.
    Table t;
    t.columns = {{"Name"}};
    t.rows = {{"two\nlines, \"quoted\""}};
    CHECK(render_csv(t) == "Name\r\n\"two lines, \"\"quoted\"\"\"\r\n");
}

TEST_CASE("people read the units in the cells and a dash for an unknown") {
    const std::string text = render_aligned(sample(), {});
    CHECK(text.find("$1599  1008 GB/s") != std::string::npos);
    CHECK(text.find("amd-mi300x           -  5300 GB/s") != std::string::npos);
    // A unit that is the header is not repeated in the cells.
    Table t;
    t.columns = {{"tok/s", true, "tok/s"}};
    t.rows = {{"18.2"}, {""}};
    CHECK(render_aligned(t, {}) == "tok/s\n 18.2\n    -\n");
    CHECK(render_csv(t) == "tok/s\r\n18.2\r\n\r\n");
}

TEST_CASE("Markdown renders as a table and escapes pipes") {
    const std::string md = render_markdown(sample());
    CHECK(md.rfind("| # | GPU | Price | Bandwidth | Reason |\n|---:|---|---:|---:|---|\n", 0) == 0);
    CHECK(md.find("needs 151.5 GiB per GPU \\| card has 192 GiB") != std::string::npos);
    CHECK(md.find("| $1599 | 1008 GB/s |") != std::string::npos);
}

TEST_CASE("HTML tables escape every cell and mark numbers") {
    Table t;
    t.columns = {{"Name"}, {"Price", true, "USD"}};
    t.rows = {{"<script>alert('x')</script> & \"q\"", "12"}};
    const std::string html = render_html(t);
    CHECK(html ==
          "<table>\n<thead><tr><th>Name</th><th class=\"num\">Price</th></tr></thead>\n<tbody>\n"
          "<tr><td>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;</td><td "
          "class=\"num\">$12</td></tr>\n</tbody>\n</table>\n");
}

TEST_CASE("aligned tables fit a narrow terminal by their steps in order and never wrap") {
    const std::string wide = render_aligned(sample(), {});
    CHECK(wide.find("Bandwidth") != std::string::npos);
    for (std::size_t width : {80u, 60u, 40u, 30u}) {
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
        CHECK(narrow.find("nvidia-rtx-4090") != std::string::npos);  // columns without a step stay
    }
    // Each step is taken only while the table is too wide: first the Reason
    // is cut, then dropped, then Price, then Bandwidth.
    using V = std::vector<std::string>;
    CHECK(shown_columns(sample(), 0) == V{"#", "GPU", "Price", "Bandwidth", "Reason"});
    CHECK(shown_columns(sample(), 80) == V{"#", "GPU", "Price", "Bandwidth", "Reason"});
    CHECK(shown_columns(sample(), 51) == V{"#", "GPU", "Price", "Bandwidth", "Reason"});
    CHECK(shown_columns(sample(), 50) == V{"#", "GPU", "Price", "Bandwidth"});
    CHECK(shown_columns(sample(), 37) == V{"#", "GPU", "Price", "Bandwidth"});
    CHECK(shown_columns(sample(), 36) == V{"#", "GPU", "Bandwidth"});
    CHECK(shown_columns(sample(), 20) == V{"#", "GPU"});
    // A cut column takes whatever is left and ends in "...".
    const std::string cut = render_aligned(sample(), {60, false});
    CHECK(cut.find("fits with 13.4 GiB...\n") != std::string::npos);
    // A Shorten step rewrites the cells when it is reached.
    static constexpr NarrowStep kShorten[] = {{"GPU", Narrow::Shorten, 0, [](std::string_view s) {
                                                   return std::string(s.substr(0, 3));
                                               }}};
    Table t = sample();
    t.narrowing = kShorten;
    CHECK(render_aligned(t, {40, false}).find("\n 1  nvi  ") != std::string::npos);
    CHECK(render_aligned(t, {200, false}).find("nvidia-rtx-4090") != std::string::npos);
    // A shortener that cuts inside a character still leaves valid UTF-8.
    t.rows[0][1] = "\xC3\xA9\xC3\xA9\xC3\xA9-long-enough-to-narrow";
    CHECK(valid_utf8(render_aligned(t, {40, false})));
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

TEST_CASE("CSV reads back, cell for cell, with an RFC 4180 reader") {
    Table t;
    t.columns = {{"Name"}, {"Price", true, "USD"}, {"Note"}};
    t.rows = {{"plain", "1599", "commas, \"quotes\" and ; semicolons"},
              {"", "", "\xC3\xA9t\xC3\xA9 \xE2\x80\x94 UTF-8"},
              {"two\nlines", "0.5", "tab\there"},
              {"short row"}};
    const auto records = gpuadvise_test::parse_csv(render_csv(t));
    REQUIRE(records.size() == 5);
    CHECK(records[0] == gpuadvise_test::CsvRecord{"Name", "Price (USD)", "Note"});
    // Cells come back as sanitize() leaves them (a line break or tab is a
    // space: a record is one line), a missing cell as an empty one.
    for (std::size_t r = 0; r < t.rows.size(); ++r)
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
            INFO(r << "," << c);
            const std::string cell = c < t.rows[r].size() ? sanitize(t.rows[r][c]) : "";
            CHECK(records[r + 1].at(c) == cell);
        }
}

TEST_CASE("a column's people form leaves CSV's exact number") {
    Table t;
    t.columns = {{"Params", true, "", "", [](std::string_view s) { return std::string(s) + "!"; }}};
    t.rows = {{"8030261248"}, {""}};
    CHECK(render_aligned(t, {}) == "     Params\n8030261248!\n          -\n");
    CHECK(render_csv(t) == "Params\r\n8030261248\r\n\r\n");
}
