// The JSON writer: a document streamed into a string, pretty or compact;
// strings escaped and repaired to UTF-8, numbers finite or refused.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
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

void escape_into(std::string& out, std::string_view s) {
    std::size_t plain = 0;
    while (plain < s.size() && kPlainByte[static_cast<unsigned char>(s[plain])]) ++plain;
    if (plain == s.size()) {
        out.push_back('"');
        out.append(s);
        out.push_back('"');
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
    escape_into(out_, k);
    out_ += pretty_ ? ": " : ":";
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
    fmt::format_to(std::back_inserter(out_), "{}", v);
    return *this;
}

Writer& Writer::value(std::uint64_t v) {
    before_value();
    fmt::format_to(std::back_inserter(out_), "{}", v);
    return *this;
}

Writer& Writer::value(double v) {
    if (!std::isfinite(v)) throw std::logic_error("a non-finite number reached the JSON writer");
    before_value();
    fmt::format_to(std::back_inserter(out_), "{}", v);
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
