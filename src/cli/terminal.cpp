#include "cli/terminal.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <string_view>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::cli {

std::optional<std::size_t> columns_width(const char* columns) {
    if (columns == nullptr) return std::nullopt;
    const std::string_view c(columns);
    std::size_t value = 0;
    const auto [ptr, ec] = std::from_chars(c.data(), c.data() + c.size(), value);
    if (c.empty() || ec != std::errc() || ptr != c.data() + c.size() || value == 0 || value > 10000)
        return std::nullopt;
    return value;
}

std::size_t stdout_terminal_width() {
    winsize ws{};
    if (isatty(STDOUT_FILENO) != 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0;
}

Output resolve_output(const Request& r, bool stdout_is_terminal, std::size_t terminal_width,
                      Getenv getenv) {
    Output o;
    const auto& format = r.get(Field::Format);
    const bool json = r.flag(Field::Json).value_or(false);
    if (json) {
        // --json and a --format flag must agree; a format from the environment
        // or config file is only a default, so the flag wins over it.
        if (format && format->origin == "--format" &&
            kFormats.parse(format->text, format->origin) != Format::Json)
            throw InputError(
                fmt::format("--json and --format {} disagree; give one", format->text));
        o.format = Format::Json;
    } else if (format) {
        o.format = kFormats.parse(format->text, format->origin);
    }
    if (r.flag(Field::Plot).value_or(false) && o.format != Format::Table &&
        o.format != Format::Markdown) {
        const std::string given =
            json ? "--json" : fmt::format("{} {}", format->origin, quote(format->text));
        throw InputError(fmt::format(
            "--plot draws the chart as text, which {} does not print: drop --plot{}", given,
            o.format == Format::Html ? " (the HTML page has the chart)"
                                     : ", or give --format table or markdown"));
    }
    const auto& color = r.get(Field::Color);
    const ColorMode mode = color ? kColorModes.parse(color->text, color->origin) : ColorMode::Auto;
    const char* no_color = getenv("NO_COLOR");
    const bool no_color_set = no_color && *no_color;
    o.style.color = o.format == Format::Table &&
                    (mode == ColorMode::Always ||
                     (mode == ColorMode::Auto && stdout_is_terminal && !no_color_set));
    // The locale decides whether a terminal draws UTF-8 blocks and lines; a
    // pipe gets UTF-8 (a file or a pager) unless --ascii.
    std::string_view locale;
    for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"})
        if (const char* v = getenv(name); v && *v) {
            locale = v;
            break;
        }
    const bool utf8 = locale.find("UTF-8") != std::string_view::npos ||
                      locale.find("utf8") != std::string_view::npos ||
                      locale.find("UTF8") != std::string_view::npos ||
                      locale.find("utf-8") != std::string_view::npos;
    const bool ascii = r.flag(Field::Ascii).value_or(false);
    o.style.ascii = ascii || (stdout_is_terminal && !utf8);
    if (o.format != Format::Table) return o;  // Markdown, CSV, JSON and HTML are never narrowed
    const char* columns = getenv("COLUMNS");
    const auto from_columns = columns_width(columns);
    if (columns != nullptr && *columns != '\0' && !from_columns)
        spdlog::info("COLUMNS={} is not a positive width; ignored", quote(columns));
    std::size_t width = from_columns.value_or(stdout_is_terminal ? terminal_width : 0);
    if (stdout_is_terminal && width == 0) width = 80;
    if (r.flag(Field::Wide).value_or(false)) width = 0;
    o.style.width = width;
    if (stdout_is_terminal) o.style.bars = ascii || !utf8 ? Bars::Ascii : Bars::Unicode;
    return o;
}

}  // namespace gpuadvise::cli
