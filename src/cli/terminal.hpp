#pragma once
// Output settings from flags, settings and the terminal: colour only on a
// terminal and never with NO_COLOR (any non-empty value), unless --color says
// otherwise. Tables fit a width: COLUMNS when it is a positive integer (a
// shell's own variable, so a bad value is ignored, not an error), else the
// terminal's; a pipe without COLUMNS, --wide, and every format but the
// aligned table print whole.
#include <cstddef>
#include <optional>
#include <string_view>

#include "cli/settings.hpp"
#include "gpuadvise/fields.hpp"
#include "gpuadvise/table.hpp"

namespace gpuadvise::cli {

struct Output {
    Format format = Format::Table;
    Style style;
};

// COLUMNS as a width: a positive decimal integer up to 10000; nullopt for
// anything else (unset, empty, "abc", "0", "-5", "80x").
std::optional<std::size_t> columns_width(const char* columns);

// `terminal_width` is the terminal's own (TIOCGWINSZ), 0 when unknown or not a terminal.
Output resolve_output(const Request& request, bool stdout_is_terminal, std::size_t terminal_width,
                      Getenv getenv);

// The width of the terminal on standard output (0: not a terminal or unknown).
std::size_t stdout_terminal_width();

}  // namespace gpuadvise::cli
