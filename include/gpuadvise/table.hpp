#pragma once
// A table as data, rendered for people (aligned columns that fit a terminal),
// for spreadsheets (RFC 4180 CSV) or for READMEs and issues (Markdown). Every
// command builds its output as tables so the formats cannot drift apart.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/enum_table.hpp"

namespace gpuadvise {

// Output formats of every command: tables for people, JSON for scripts, CSV
// for spreadsheets, Markdown for READMEs and issues, and one HTML page to
// share (the commands that rank: chart, memory bars and table).
enum class Format : std::uint8_t { Table, Json, Csv, Markdown, Html };
inline constexpr auto kFormats = make_enum_table<Format>({{Format::Table, "table"},
                                                          {Format::Json, "json"},
                                                          {Format::Csv, "csv"},
                                                          {Format::Markdown, "markdown"},
                                                          {Format::Html, "html"}});
enum class ColorMode : std::uint8_t { Auto, Always, Never };
inline constexpr auto kColorModes = make_enum_table<ColorMode>(
    {{ColorMode::Auto, "auto"}, {ColorMode::Always, "always"}, {ColorMode::Never, "never"}});

struct Column {
    std::string header;
    bool right = false;  // numbers align right; an empty cell is an unknown ("-")
    // Numbers in one unit: a cell holds the bare number ("14.3"), or "" when
    // unknown. People read "14.3 GiB", "$2699" (USD) and "-"; CSV keeps the
    // bare number, an empty cell for an unknown, and puts the unit in the
    // header ("Need/GPU (GiB)"), so a spreadsheet reads numbers. A unit equal
    // to the header ("tok/s") is not repeated in the cells. Empty: text.
    std::string unit = {};
    // The name the narrowing steps use ("" = the header), for a column whose
    // header changes with the workload ("tok/s", "img/s").
    std::string key = {};
    // How people read a cell whose number is exact in CSV: a parameter count
    // is "8030261248" in CSV and "8.03B" for people. nullptr: `unit` decides.
    std::string (*people)(std::string_view cell) = nullptr;
};

// How a table narrows to fit a width: steps in order, each taken only while
// the table is still too wide. Cut lets a text column shrink to `width` code
// points (it then takes whatever is left, ending in "..."); Drop removes a
// column; Shorten rewrites its cells with `shorten` (GPU ids without their
// vendor). Every table's steps are one table next to its columns; the
// ranking's order is documented in docs/output.md.
enum class Narrow : std::uint8_t { Cut, Drop, Shorten };
struct NarrowStep {
    std::string_view column;  // a Column's key
    Narrow action = Narrow::Drop;
    std::size_t width = 0;                               // Cut: the narrowest it may become
    std::string (*shorten)(std::string_view) = nullptr;  // Shorten
};

struct Table {
    std::vector<Column> columns;
    std::vector<std::vector<std::string>> rows;
    std::span<const NarrowStep> narrowing = {};  // none: printed whole however wide
};

// Memory bars in the ranked table: only on a terminal (a person looking),
// Unicode blocks unless --ascii or the locale is not UTF-8.
enum class Bars : std::uint8_t { None, Unicode, Ascii };
struct Style {
    std::size_t width = 0;  // 0 = unlimited (a pipe without COLUMNS, --wide, not a table)
    bool color = false;
    Bars bars = Bars::None;
    // Draw --plot with ASCII (--ascii, or a terminal whose locale is not UTF-8).
    bool ascii = false;
};

// The columns and steps a table keeps at `width` (0: all): for tests and
// docs, the same decision render_aligned makes.
std::vector<std::string> shown_columns(const Table& table, std::size_t width);

std::string render_aligned(const Table& table, const Style& style);
std::string render_csv(const Table& table);
std::string render_markdown(const Table& table);
// A <table> with a <thead> and one <tr> per row in <tbody>; every cell
// escaped, numbers in class "num" (for --format html's page).
std::string render_html(const Table& table);
// Json is not a table format: commands print JSON documents instead.
std::string render(const Table& table, Format format, const Style& style);

// ANSI colour for a cell, applied after alignment so padding stays right.
std::string paint(const std::string& text, const char* ansi, bool enabled);

}  // namespace gpuadvise
