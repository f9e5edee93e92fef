#include "cli/terminal.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <string_view>

#include "gpuadvise/error.hpp"

namespace gpuadvise::cli {

Output resolve_output(const Request& r, bool stdout_is_terminal, Getenv getenv) {
    Output o;
    const auto& format = r.get(Field::Format);
    if (r.flag(Field::Json).value_or(false)) {
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
    const auto& color = r.get(Field::Color);
    const ColorMode mode = color ? kColorModes.parse(color->text, color->origin) : ColorMode::Auto;
    const char* no_color = getenv("NO_COLOR");
    const bool no_color_set = no_color && *no_color;
    o.style.color = o.format == Format::Table &&
                    (mode == ColorMode::Always ||
                     (mode == ColorMode::Auto && stdout_is_terminal && !no_color_set));
    if (stdout_is_terminal && o.format == Format::Table) {
        std::size_t width = 0;
        winsize ws{};
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) width = ws.ws_col;
        if (const char* columns = getenv("COLUMNS"); width == 0 && columns) {
            const std::string_view c(columns);
            unsigned value = 0;
            const auto [ptr, ec] = std::from_chars(c.data(), c.data() + c.size(), value);
            if (ec == std::errc() && ptr == c.data() + c.size() && value >= 20 && value <= 1000)
                width = value;
        }
        o.style.width = width > 0 ? width : 80;
        // The locale decides whether the terminal draws UTF-8 blocks.
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
        o.style.bars = r.flag(Field::Ascii).value_or(false) || !utf8 ? Bars::Ascii : Bars::Unicode;
    }
    return o;
}

}  // namespace gpuadvise::cli
