#pragma once
// A table as data, rendered for people (aligned columns that fit a terminal),
// for spreadsheets (RFC 4180 CSV) or for READMEs and issues (Markdown). Every
// command builds its output as tables so the formats cannot drift apart.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpuadvise/enum_table.hpp"

namespace gpuadvise {

// Output formats of every command: tables for people, JSON for scripts, CSV
// for spreadsheets, Markdown for READMEs and issues.
enum class Format : std::uint8_t { Table, Json, Csv, Markdown };
inline constexpr auto kFormats = make_enum_table<Format>({{Format::Table, "table"},
                                                          {Format::Json, "json"},
                                                          {Format::Csv, "csv"},
                                                          {Format::Markdown, "markdown"}});
enum class ColorMode : std::uint8_t { Auto, Always, Never };
inline constexpr auto kColorModes = make_enum_table<ColorMode>(
    {{ColorMode::Auto, "auto"}, {ColorMode::Always, "always"}, {ColorMode::Never, "never"}});

struct Column {
    std::string header;
    bool right = false;  // numbers align right
    int drop_order = 0;  // 0 = never dropped; higher numbers go first when the terminal is narrow
    bool flexible = false;  // free text that may be truncated to fit (at most one, the last)
};

struct Table {
    std::vector<Column> columns;
    std::vector<std::vector<std::string>> rows;
};

// Memory bars in the ranked table: only on a terminal (a person looking),
// Unicode blocks unless --ascii or the locale is not UTF-8.
enum class Bars : std::uint8_t { None, Unicode, Ascii };
struct Style {
    std::size_t width = 0;  // 0 = unlimited (not a terminal)
    bool color = false;
    Bars bars = Bars::None;
};

std::string render_aligned(const Table& table, const Style& style);
std::string render_csv(const Table& table);
std::string render_markdown(const Table& table);
// Json is not a table format: commands print JSON documents instead.
std::string render(const Table& table, Format format, const Style& style);

// ANSI colour for a cell, applied after alignment so padding stays right.
std::string paint(const std::string& text, const char* ansi, bool enabled);

}  // namespace gpuadvise
