#pragma once
// A table as data, rendered for people (aligned columns that fit a terminal),
// for spreadsheets (RFC 4180 CSV) or for READMEs and issues (Markdown). Every
// command builds its output as tables so the formats cannot drift apart.
#include <cstddef>
#include <string>
#include <vector>

namespace gpuadvise {

enum class Format { Table, Json, Csv, Markdown };

struct Column {
    std::string header;
    bool right = false;   // numbers align right
    int drop_order = 0;   // 0 = never dropped; higher numbers go first when the terminal is narrow
    bool flexible = false;  // free text that may be truncated to fit (at most one, the last)
};

struct Table {
    std::vector<Column> columns;
    std::vector<std::vector<std::string>> rows;
};

struct Style {
    std::size_t width = 0;  // 0 = unlimited (not a terminal)
    bool color = false;
};

std::string render_aligned(const Table& table, const Style& style);
std::string render_csv(const Table& table);
std::string render_markdown(const Table& table);
std::string render(const Table& table, Format format, const Style& style);

// Display width of UTF-8 text (code points; the tables hold no wide characters).
std::size_t display_width(const std::string& text);

// ANSI colour for a cell, applied after alignment so padding stays right.
std::string paint(const std::string& text, const char* ansi, bool enabled);

}  // namespace gpuadvise
