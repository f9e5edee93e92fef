// Fuzzes the table renderer with arbitrary cells (names from a user's
// catalog, a config.json, a GGUF header reach the tables): every format and
// width must give valid UTF-8 with no control characters but the newline,
// the same number of lines for any width, and CSV with one record per row.
#include <algorithm>
#include <cstddef>
#include <span>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/table.hpp"
#include "gpuadvise/text.hpp"

using namespace gpuadvise;
using fuzz::finding;

namespace {

void check_clean(const std::string& out, const char* format) {
    if (!valid_utf8(out)) finding(std::string(format) + " output is not valid UTF-8");
    for (const char c : out)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f)
            finding(std::string(format) + " output holds a control character");
}

std::size_t lines(const std::string& s) {
    std::size_t n = 0;
    for (const char c : s) n += c == '\n' ? 1 : 0;
    return n;
}

std::string first_half(std::string_view s) {
    return std::string(s.substr(0, s.size() / 2));
}

// Every kind of step, on columns that may or may not exist; the input picks
// where in the list narrowing starts.
constexpr NarrowStep kSteps[] = {{"col5", Narrow::Cut, 4},
                                 {"col2"},
                                 {"col4", Narrow::Shorten, 0, first_half},
                                 {"col1", Narrow::Cut, 8},
                                 {"col3"},
                                 {"col0", Narrow::Cut, 1},
                                 {"col1"},
                                 {"nothing"}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    if (size < 2) return 0;
    const std::size_t columns = 1 + data[0] % 6;
    const std::size_t width = data[1];
    Table t;
    for (std::size_t c = 0; c < columns; ++c)
        t.columns.push_back(
            {"col" + std::to_string(c), c % 2 == 1, c % 3 == 2 ? "GiB" : "", c == 4 ? "col4" : ""});
    t.narrowing = std::span<const NarrowStep>(kSteps).subspan((data[0] / 6U) % 4U);
    // Cells are separated by 0x1f, rows by 0x1e.
    std::vector<std::string> row;
    std::string cell;
    const auto flush_row = [&] {
        row.push_back(cell);
        cell.clear();
        row.resize(columns);
        t.rows.push_back(row);
        row.clear();
    };
    for (std::size_t i = 2; i < size; ++i) {
        const char ch = static_cast<char>(data[i]);
        if (ch == '\x1f') {
            row.push_back(cell);
            cell.clear();
        } else if (ch == '\x1e') {
            flush_row();
        } else {
            cell += ch;
        }
    }
    flush_row();
    if (t.rows.size() > 64) return 0;
    const std::string wide = render(t, Format::Table, Style{0, false});
    const std::string narrow = render(t, Format::Table, Style{width, false});
    check_clean(wide, "table");
    check_clean(narrow, "narrow table");
    if (lines(wide) != lines(narrow)) finding("the table's line count depends on the width");
    check_clean(render(t, Format::Markdown, Style{}), "markdown");
    const std::string csv = render(t, Format::Csv, Style{});
    if (!valid_utf8(csv)) finding("csv output is not valid UTF-8");
    // HTML: every '<' is one of the table's own tags, never a cell's.
    const std::string html = render(t, Format::Html, Style{});
    const std::size_t tags = 8 + 2 * columns + t.rows.size() * (2 + 2 * columns);
    if (static_cast<std::size_t>(std::count(html.begin(), html.end(), '<')) != tags)
        finding("a cell's text made a tag in the HTML table");
    // Wrapped text keeps every line within the width.
    if (width > 0) {
        std::string text;
        for (const auto& r : t.rows)
            for (const auto& c : r) text += sanitize(c) + (c.size() % 3 == 0 ? "\n" : " ");
        const std::string wrapped = wrap(text, width);
        std::size_t start = 0;
        while (start <= wrapped.size()) {
            const std::size_t end = std::min(wrapped.find('\n', start), wrapped.size());
            if (display_width(std::string_view(wrapped).substr(start, end - start)) > width)
                finding("wrap left a line wider than the width");
            start = end + 1;
        }
    }
    return 0;
}
