#pragma once
// Output settings from flags, settings and the terminal: colour only on a
// terminal and never with NO_COLOR (any non-empty value), unless --color says
// otherwise; tables fit the terminal's width, and are never cut when piped.
#include "cli/settings.hpp"
#include "gpuadvise/fields.hpp"
#include "gpuadvise/table.hpp"

namespace gpuadvise::cli {

struct Output {
    Format format = Format::Table;
    Style style;
};

Output resolve_output(const Request& request, bool stdout_is_terminal, Getenv getenv);

}  // namespace gpuadvise::cli
