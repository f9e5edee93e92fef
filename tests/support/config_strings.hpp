#pragma once
// Oracles for quoted strings in emitted configs, in-process: the double-quoted
// scalars of YAML 1.2 (7.3.1) and the basic strings of TOML 1.0, decoded with
// the escapes either format defines that an emitted value may use, and the
// value of an Ollama Modelfile instruction read as ollama's parser/parser.go
// reads it. A raw byte a terminal would act on is an error: emitted text must
// be plain. The end-to-end tests check the same configs with real parsers
// (Python's yaml and tomllib).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace config_test {

inline void put_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

inline std::optional<std::uint32_t> hex(std::string_view s) {
    std::uint32_t v = 0;
    for (const char c : s) {
        v <<= 4U;
        if (c >= '0' && c <= '9')
            v |= static_cast<std::uint32_t>(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= static_cast<std::uint32_t>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= static_cast<std::uint32_t>(c - 'A' + 10);
        else
            return std::nullopt;
    }
    return v;
}

// `text` is one quoted string ("..."), the whole of it; nullopt when it is
// not, or holds a raw control byte or an escape the format lacks.
inline std::optional<std::string> unquote(std::string_view text, bool yaml) {
    if (text.size() < 2 || text.front() != '"' || text.back() != '"') return std::nullopt;
    const std::string_view body = text.substr(1, text.size() - 2);
    std::string out;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const auto c = static_cast<unsigned char>(body[i]);
        if (c < 0x20 || c == 0x7F) return std::nullopt;
        if (c == '"') return std::nullopt;  // would have ended the string
        if (c != '\\') {
            out += static_cast<char>(c);
            continue;
        }
        if (++i >= body.size()) return std::nullopt;
        const char e = body[i];
        std::size_t digits = 0;
        switch (e) {
            case '\\':
            case '"':
                out += e;
                continue;
            case 'n':
                out += '\n';
                continue;
            case 't':
                out += '\t';
                continue;
            case 'r':
                out += '\r';
                continue;
            case 'N':
                if (!yaml) return std::nullopt;
                put_utf8(out, 0x85);
                continue;
            case 'x':
                if (!yaml) return std::nullopt;
                digits = 2;
                break;
            case 'u':
                digits = 4;
                break;
            case 'U':
                digits = 8;
                break;
            default:
                return std::nullopt;
        }
        if (i + 1 + digits > body.size()) return std::nullopt;
        const auto cp = hex(body.substr(i + 1, digits));
        if (!cp || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return std::nullopt;
        put_utf8(out, *cp);
        i += digits;
    }
    return out;
}

inline std::optional<std::string> yaml_unquote(std::string_view text) {
    return unquote(text, true);
}
inline std::optional<std::string> toml_unquote(std::string_view text) {
    return unquote(text, false);
}

// The value of a Modelfile line's argument (the text after "FROM "), as
// ollama's parser returns it: trimmed, then one pair of """ or " removed.
inline std::optional<std::string> modelfile_unquote(std::string_view text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return std::nullopt;
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    if (text.substr(0, 3) == "\"\"\"") {
        if (text.size() < 6 || text.substr(text.size() - 3) != "\"\"\"") return std::nullopt;
        return std::string(text.substr(3, text.size() - 6));
    }
    if (!text.empty() && text.front() == '"') {
        if (text.size() < 2 || text.back() != '"') return std::nullopt;
        return std::string(text.substr(1, text.size() - 2));
    }
    return std::string(text);
}

}  // namespace config_test
