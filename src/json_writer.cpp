// The JSON writer: a document streamed into a string, pretty or compact;
// strings escaped and repaired to UTF-8, numbers finite or refused.
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::json {

// ------------------------------------------------------------------- writing

namespace {

// Printable ASCII without a quote or backslash is written as it is. Nearly
// every string gpuadvise writes (ids, enums, messages) is, so this one pass
// over a table is what matters for `batch` throughput.
constexpr std::array<bool, 256> kPlainByte = [] {
    std::array<bool, 256> t{};
    for (int c = 0x20; c < 0x7F; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return t;
}();
// In valid UTF-8, the bytes written as they are: printable ASCII and every
// byte of a multi-byte character but 0xC2, which may start a C1 control
// (U+0080 to U+009F) that is escaped.
constexpr std::array<bool, 256> kKeptByte = [] {
    std::array<bool, 256> t = kPlainByte;
    for (int c = 0x80; c < 0x100; ++c) t[static_cast<std::size_t>(c)] = c != 0xC2;
    return t;
}();

// Appends `s` between two quotes with one growth of `out`, for the strings
// that need no escape.
void append_quoted(std::string& out, std::string_view s, std::string_view after = {}) {
    const std::size_t at = out.size();
    out.resize(at + s.size() + 2 + after.size());
    char* p = out.data() + at;
    *p++ = '"';
    if (!s.empty()) std::memcpy(p, s.data(), s.size());  // data() may be null when empty
    p += s.size();
    *p++ = '"';
    if (!after.empty()) std::memcpy(p, after.data(), after.size());
}

bool plain(std::string_view s) {
    for (const char c : s)
        if (!kPlainByte[static_cast<unsigned char>(c)]) return false;
    return true;
}

void escape_into(std::string& out, std::string_view s) {
    if (plain(s)) {
        append_quoted(out, s);
        return;
    }
    const bool clean = valid_utf8(s);
    const std::string sanitized = clean ? std::string() : repair_utf8(s);
    const std::string_view t = clean ? s : std::string_view(sanitized);
    out.push_back('"');
    static constexpr char kHex[] = "0123456789abcdef";
    std::size_t run = 0;  // start of a run of bytes that need no escape
    for (std::size_t i = 0; i < t.size(); ++i) {
        const auto c = static_cast<unsigned char>(t[i]);
        if (kKeptByte[c]) continue;
        const bool c1 = c == 0xC2 && i + 1 < t.size() &&
                        static_cast<unsigned char>(t[i + 1]) >= 0x80 &&
                        static_cast<unsigned char>(t[i + 1]) <= 0x9F;
        if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7F && !c1) continue;
        out.append(t.substr(run, i - run));
        if (c == '"')
            out += "\\\"";
        else if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (c == '\r')
            out += "\\r";
        else if (c1) {
            const auto c2 = static_cast<unsigned char>(t[i + 1]);
            out += "\\u00";
            out += kHex[c2 >> 4U];
            out += kHex[c2 & 0xFU];
            ++i;
        } else {
            out += "\\u00";
            out += kHex[c >> 4U];
            out += kHex[c & 0xFU];
        }
        run = i + 1;
    }
    out.append(t.substr(run));
    out.push_back('"');
}

}  // namespace

std::string quoted(std::string_view s) {
    std::string out;
    escape_into(out, s);
    return out;
}

void Writer::newline() {
    if (!pretty_) return;
    out_.push_back('\n');
    out_.append(first_.size() * 2, ' ');
}

void Writer::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
    newline();
}

Writer& Writer::begin_object() {
    before_value();
    out_.push_back('{');
    first_.push_back(true);
    return *this;
}

Writer& Writer::close(char bracket) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_.push_back(bracket);
    return *this;
}

Writer& Writer::end_object() {
    return close('}');
}

Writer& Writer::begin_array() {
    before_value();
    out_.push_back('[');
    first_.push_back(true);
    return *this;
}

Writer& Writer::end_array() {
    return close(']');
}

Writer& Writer::key(std::string_view k) {
    before_value();
    if (plain(k)) {
        append_quoted(out_, k, pretty_ ? ": " : ":");
    } else {
        escape_into(out_, k);
        out_ += pretty_ ? ": " : ":";
    }
    after_key_ = true;
    return *this;
}

Writer& Writer::value(std::string_view s) {
    before_value();
    escape_into(out_, s);
    return *this;
}

Writer& Writer::value(bool b) {
    before_value();
    out_ += b ? "true" : "false";
    return *this;
}

Writer& Writer::value(std::int64_t v) {
    before_value();
    const fmt::format_int text(v);
    out_.append(text.data(), text.size());
    return *this;
}

Writer& Writer::value(std::uint64_t v) {
    before_value();
    const fmt::format_int text(v);
    out_.append(text.data(), text.size());
    return *this;
}

Writer& Writer::value(double v) {
    if (!std::isfinite(v)) throw std::logic_error("a non-finite number reached the JSON writer");
    before_value();
    // fmt's shortest round-trip form, written to the stack first: appending
    // through a back_inserter costs a call per character.
    std::array<char, 32> text{};
    const char* end = fmt::format_to_n(text.data(), text.size(), "{}", v).out;
    out_.append(text.data(), static_cast<std::size_t>(end - text.data()));
    return *this;
}

Writer& Writer::null() {
    before_value();
    out_ += "null";
    return *this;
}

Writer& Writer::raw(std::string_view json_text) {
    before_value();
    if (!pretty_ || first_.empty()) {
        out_.append(json_text);
        return *this;
    }
    // Re-indent a pretty fragment written at depth 0.
    const std::string indent(first_.size() * 2, ' ');
    for (const char c : json_text) {
        out_.push_back(c);
        if (c == '\n') out_ += indent;
    }
    return *this;
}

}  // namespace gpuadvise::json
