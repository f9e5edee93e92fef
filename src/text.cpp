#include "gpuadvise/text.hpp"

#include <algorithm>
#include <cstdint>

namespace gpuadvise {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool is_control(std::uint32_t cp) {
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

}  // namespace

std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t* code_point) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        *code_point = b0;
        return 1;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
        cp = b0 & 0x1FU;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        cp = b0 & 0x0FU;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        cp = b0 & 0x07U;
    } else {
        return 0;
    }
    if (i + len > s.size()) return 0;
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0U) != 0x80U) return 0;
        cp = (cp << 6U) | (b & 0x3FU);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    *code_point = cp;
    return len;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool valid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {  // ASCII: the common case, one compare
            ++i;
            continue;
        }
        std::uint32_t cp = 0;
        const std::size_t n = utf8_sequence(s, i, &cp);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string sanitize(std::string_view s, std::size_t max_chars) {
    // Printable ASCII within the limit needs no work (table cells, ids).
    if (max_chars == 0 || s.size() <= max_chars) {
        bool plain = true;
        for (const char ch : s) {
            const auto c = static_cast<unsigned char>(ch);
            plain = plain && c >= 0x20 && c < 0x7F;
        }
        if (plain) return std::string(s);
    }
    std::string out;
    out.reserve(s.size());
    std::size_t chars = 0;
    for (std::size_t i = 0; i < s.size();) {
        if (max_chars > 0 && chars == max_chars) {
            out += "...";
            break;
        }
        std::uint32_t cp = 0;
        const std::size_t n = utf8_sequence(s, i, &cp);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
            ++i;
        } else if (is_control(cp)) {
            out += ' ';
            i += n;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
        ++chars;
    }
    return out;
}

std::string repair_utf8(std::string_view s) {
    if (valid_utf8(s)) return std::string(s);
    std::string out;
    out.reserve(s.size() + 16);
    for (std::size_t i = 0; i < s.size();) {
        std::uint32_t cp = 0;
        const std::size_t n = utf8_sequence(s, i, &cp);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::string quote(std::string_view s) {
    constexpr std::size_t kMax = 80;
    std::string out = "'";
    std::size_t chars = 0;
    for (std::size_t i = 0; i < s.size();) {
        if (chars == kMax) {
            out += "...";
            break;
        }
        std::uint32_t cp = 0;
        const std::size_t n = utf8_sequence(s, i, &cp);
        if (n == 0) {
            static constexpr char kHex[] = "0123456789abcdef";
            const auto b = static_cast<unsigned char>(s[i]);
            out += "\\x";
            out += kHex[b >> 4U];
            out += kHex[b & 0xFU];
            ++i;
        } else if (cp == '\n') {
            out += "\\n";
            i += n;
        } else if (cp == '\r') {
            out += "\\r";
            i += n;
        } else if (cp == '\t') {
            out += "\\t";
            i += n;
        } else if (is_control(cp)) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += cp >= 0x80 ? "\\u00" : "\\x";
            out += kHex[(cp >> 4U) & 0xFU];
            out += kHex[cp & 0xFU];
            i += n;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
        ++chars;
    }
    return out + "'";
}

std::size_t display_width(std::string_view text) {
    std::size_t n = 0;
    for (char c : text)
        if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
    return n;
}

std::string truncate_display(std::string_view text, std::size_t width) {
    if (display_width(text) <= width) return std::string(text);
    if (width <= 3) return std::string(width, '.');
    std::string out;
    std::size_t n = 0;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c & 0xC0U) != 0x80U) {
            if (n == width - 3) break;
            ++n;
        }
        out.push_back(ch);
    }
    return out + "...";
}

namespace {

// The byte offset of the code point after `count` code points of `s`.
std::size_t offset_of(std::string_view s, std::size_t count) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0U) != 0x80U) {
            if (n == count) return i;
            ++n;
        }
    return s.size();
}

void wrap_line(std::string_view line, std::size_t width, std::string& out) {
    if (display_width(line) <= width) {
        out.append(line);
        return;
    }
    const std::size_t lead = line.find_first_not_of(' ');
    // The hanging indent: under the text after the label's gap, else two
    // columns in from the line's own indent; never more than half the width.
    std::size_t hang = lead == std::string_view::npos ? 0 : lead + 2;
    if (lead != std::string_view::npos) {
        const std::size_t gap = line.find("  ", lead);
        if (gap != std::string_view::npos) {
            const std::size_t text = line.find_first_not_of(' ', gap);
            if (text != std::string_view::npos) hang = display_width(line.substr(0, text));
        }
    }
    if (hang > width / 2)
        hang = std::min<std::size_t>(lead == std::string_view::npos ? 0 : lead, width / 2);
    std::string_view rest = line;
    bool first = true;
    while (!rest.empty()) {
        const std::size_t indent = first ? 0 : hang;
        const std::size_t room = width > indent ? width - indent : 1;
        if (!first) out += std::string(indent, ' ');
        if (display_width(rest) <= room) {
            out.append(rest);
            break;
        }
        // The last space that keeps the piece within the room; a word
        // longer than the room is split.
        const std::size_t limit = offset_of(rest, room);
        std::size_t cut = rest.substr(0, limit + 1).rfind(' ');
        const std::size_t start = first ? rest.find_first_not_of(' ') : 0;
        if (cut == std::string_view::npos || cut <= start) cut = limit;
        std::string_view piece = rest.substr(0, cut);
        while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
        out.append(piece);
        out += '\n';
        rest = rest.substr(cut);
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        first = false;
    }
}

}  // namespace

std::string wrap(std::string_view text, std::size_t width) {
    if (width == 0) return std::string(text);
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        const std::size_t stop = end == std::string_view::npos ? text.size() : end;
        wrap_line(text.substr(start, stop - start), width, out);
        if (end == std::string_view::npos) break;
        out += '\n';
        start = end + 1;
    }
    return out;
}

std::string escape_html(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

}  // namespace gpuadvise
