#include "gpuadvise/quoting.hpp"

#include <fmt/format.h>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

bool shell_safe(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '@' || c == '%' || c == '+' || c == '=' || c == ':' || c == ',' || c == '.' ||
           c == '/' || c == '-';
}

// Walks `s` as UTF-8: calls `unit(bytes, code_point, valid)` for each code
// point, or for each byte that does not start a well-formed sequence
// (valid = false).
template <typename Unit>
void for_each_unit(std::string_view s, Unit unit) {
    for (std::size_t i = 0; i < s.size();) {
        std::uint32_t cp = 0;
        const std::size_t n = utf8_sequence(s, i, &cp);
        if (n == 0) {
            unit(s.substr(i, 1), static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])),
                 false);
            ++i;
        } else {
            unit(s.substr(i, n), cp, true);
            i += n;
        }
    }
}

// Double-quoted YAML, TOML and JSON share the shape: escape the quote and
// the backslash, then each code point the format (or a terminal) cannot show
// raw as the format's own escape.
template <typename Escape>
std::optional<std::string> double_quoted(std::string_view s, Escape escape) {
    if (!valid_utf8(s)) return std::nullopt;
    std::string out = "\"";
    for_each_unit(s, [&](std::string_view bytes, std::uint32_t cp, bool) {
        if (cp == '"')
            out += "\\\"";
        else if (cp == '\\')
            out += "\\\\";
        else if (!escape(out, cp))
            out += bytes;
    });
    out += '"';
    return out;
}

std::string u_escape(std::uint32_t cp) {
    return cp > 0xFFFF ? fmt::format("\\U{:08X}", cp) : fmt::format("\\u{:04X}", cp);
}

}  // namespace

bool is_terminal_unsafe(std::uint32_t cp) {
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0xAD || cp == 0x061C ||
           (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF || cp == 0xFFFE || cp == 0xFFFF;
}

std::string shell_word(std::string_view s) {
    if (s.find('\0') != std::string_view::npos)
        throw InputError("a NUL byte cannot be part of a command's argument");
    if (s.empty()) return "''";
    bool bare = true;
    for (const char c : s) bare = bare && shell_safe(c);
    if (bare) return std::string(s);
    // Runs of plain text go in single quotes; each unsafe byte (and a byte
    // that is not UTF-8) in a double-quoted printf, which the shell joins
    // into the same word.
    std::string out;
    bool open = false;  // inside '...'
    const auto close = [&] {
        if (open) out += '\'';
        open = false;
    };
    for_each_unit(s, [&](std::string_view bytes, std::uint32_t cp, bool valid) {
        if (valid && (cp == '\n' || !is_terminal_unsafe(cp))) {
            if (!open) out += '\'';
            open = true;
            if (cp == '\'')
                out += "'\\''";
            else
                out += bytes;
            return;
        }
        close();
        out += "\"$(printf '";
        for (const char b : bytes) out += fmt::format("\\{:03o}", static_cast<unsigned char>(b));
        out += "')\"";
    });
    close();
    return out;
}

std::string shell_assignment(std::string_view name, std::string_view value) {
    return std::string(name) + "=" + shell_word(value);
}

std::optional<std::string> yaml_string(std::string_view s) {
    return double_quoted(s, [](std::string& out, std::uint32_t cp) {
        switch (cp) {
            case '\n':
                out += "\\n";
                return true;
            case '\t':
                out += "\\t";
                return true;
            case 0x85:  // NEL is a line break in YAML: raw, it would fold into a space
                out += "\\N";
                return true;
            default:
                break;
        }
        if (!is_terminal_unsafe(cp)) return false;
        out += cp <= 0xFF ? fmt::format("\\x{:02X}", cp) : u_escape(cp);
        return true;
    });
}

std::optional<std::string> toml_string(std::string_view s) {
    return double_quoted(s, [](std::string& out, std::uint32_t cp) {
        switch (cp) {
            case '\n':
                out += "\\n";
                return true;
            case '\t':
                out += "\\t";
                return true;
            case '\r':
                out += "\\r";
                return true;
            default:
                break;
        }
        if (!is_terminal_unsafe(cp)) return false;
        out += u_escape(cp);
        return true;
    });
}

std::optional<std::string> json_string(std::string_view s) {
    return double_quoted(s, [](std::string& out, std::uint32_t cp) {
        switch (cp) {
            case '\n':
                out += "\\n";
                return true;
            case '\t':
                out += "\\t";
                return true;
            case '\r':
                out += "\\r";
                return true;
            default:
                break;
        }
        if (!is_terminal_unsafe(cp)) return false;
        // JSON's \u escapes are UTF-16: a code point above U+FFFF never
        // reaches here (none of them is unsafe).
        out += fmt::format("\\u{:04x}", cp);
        return true;
    });
}

std::optional<std::string> modelfile_value(std::string_view s) {
    if (s.empty() || !valid_utf8(s)) return std::nullopt;
    bool plain = true, holdable = true;
    for_each_unit(s, [&](std::string_view, std::uint32_t cp, bool) {
        if (is_terminal_unsafe(cp)) holdable = false;
        if (cp >= 0x80 || !shell_safe(static_cast<char>(cp))) plain = false;
    });
    if (!holdable) return std::nullopt;
    if (plain) return std::string(s);
    // The parser removes exactly three quotes from each end of a value that
    // starts with """ and ends with """ (at least six characters), whatever
    // lies between; the line ends the value, and there is no newline in it.
    return "\"\"\"" + std::string(s) + "\"\"\"";
}

}  // namespace gpuadvise
