// Where the table's width comes from: COLUMNS (a positive integer; anything
// else is ignored, as shells set it loosely), else the terminal's own width,
// else nothing (a pipe prints whole); --wide and the formats that are not
// the aligned table never narrow. --plot only where the chart is text.
#include "cli/terminal.hpp"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "gpuadvise/error.hpp"
#include "support/request.hpp"

using namespace gpuadvise;
using namespace gpuadvise::cli;

namespace {

// The environment of one check: COLUMNS and a UTF-8 locale, nothing else.
const char* g_columns = nullptr;
const char* fake_env(const char* name) {
    if (std::strcmp(name, "COLUMNS") == 0) return g_columns;
    if (std::strcmp(name, "LANG") == 0) return "C.UTF-8";
    return nullptr;
}

std::size_t width_of(const Request& r, const char* columns, bool terminal, std::size_t tty_width) {
    g_columns = columns;
    return resolve_output(r, terminal, tty_width, fake_env).style.width;
}

}  // namespace

TEST_CASE("COLUMNS is a width only when it is a positive integer") {
    CHECK(columns_width("80") == 80u);
    CHECK(columns_width("120") == 120u);
    CHECK(columns_width("10000") == 10000u);
    for (const char* bad : {"", "0", "-5", "80x", " 80", "abc", "10001", "99999999999999999999"}) {
        INFO(bad);
        CHECK_FALSE(columns_width(bad).has_value());
    }
    CHECK_FALSE(columns_width(nullptr).has_value());
}

TEST_CASE("tables take COLUMNS, else the terminal width, and a pipe or --wide print whole") {
    const Request none;
    CHECK(width_of(none, "100", true, 132) == 100);  // COLUMNS wins over the tty
    CHECK(width_of(none, nullptr, true, 132) == 132);
    CHECK(width_of(none, nullptr, true, 0) == 80);  // a terminal of unknown width
    CHECK(width_of(none, "abc", true, 90) == 90);   // a bad COLUMNS is ignored
    CHECK(width_of(none, nullptr, false, 0) == 0);  // a pipe: the full table
    CHECK(width_of(none, "80", false, 0) == 80);    // unless COLUMNS asks for a width
    const Request wide = test::request({{Field::Wide, "true"}});
    CHECK(width_of(wide, "80", true, 80) == 0);
    for (const char* format : {"csv", "markdown", "json", "html"}) {
        INFO(format);
        CHECK(width_of(test::request({{Field::Format, format}}), "80", true, 80) == 0);
    }
}

TEST_CASE("plot draws text: --plot is refused with the formats that are not") {
    g_columns = nullptr;
    const auto plot = [](const char* format) {
        return resolve_output(test::request({{Field::Plot, "true"}, {Field::Format, format}}), true,
                              80, fake_env);
    };
    CHECK_NOTHROW(plot("table"));
    CHECK_NOTHROW(plot("markdown"));
    CHECK_THROWS_AS(plot("csv"), InputError);
    CHECK_THROWS_WITH(plot("html"), Catch::Contains("the HTML page has the chart"));
    CHECK_THROWS_AS(resolve_output(test::request({{Field::Plot, "true"}, {Field::Json, "true"}}),
                                   true, 80, fake_env),
                    InputError);
}

TEST_CASE("ascii: --ascii and a locale without UTF-8 draw the bars and the chart in ASCII") {
    g_columns = nullptr;
    const Output unicode = resolve_output(Request{}, true, 80, fake_env);
    CHECK(unicode.style.bars == Bars::Unicode);
    CHECK_FALSE(unicode.style.ascii);
    const Output ascii =
        resolve_output(test::request({{Field::Ascii, "true"}}), true, 80, fake_env);
    CHECK(ascii.style.bars == Bars::Ascii);
    CHECK(ascii.style.ascii);
    // A pipe: no bars (no one is looking), the chart in UTF-8 unless --ascii.
    const Output piped = resolve_output(Request{}, false, 0, fake_env);
    CHECK(piped.style.bars == Bars::None);
    CHECK_FALSE(piped.style.ascii);
}
