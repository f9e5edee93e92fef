// The strict JSON parser: text to the flat tree of a json::Document, or one
// streamed array's elements to a callback, refusing duplicate keys, NUL bytes,
// bad UTF-8, excess depth and documents over their Limits, with line:column in
// every message. Reading the tree's values is json_value.cpp.
#include "gpuadvise/json.hpp"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::json {

// ------------------------------------------------------------------ parsing

namespace {

// Objects with fewer members than this find duplicate keys by a scan.
constexpr std::size_t kLinearKeys = 64;

// A Bloom-style summary of an object's keys (length, ends and middle byte,
// 2 bits of 256): a key whose bits are not all set is certainly new.
struct KeyFilter {
    std::uint64_t words[4] = {0, 0, 0, 0};
    static std::uint32_t hash(std::string_view key) {
        std::uint32_t h = static_cast<std::uint32_t>(key.size()) * 0x9E3779B1U;
        if (!key.empty())
            h ^= (static_cast<std::uint32_t>(static_cast<unsigned char>(key.front())) << 16U) ^
                 (static_cast<std::uint32_t>(static_cast<unsigned char>(key.back())) << 8U) ^
                 static_cast<std::uint32_t>(static_cast<unsigned char>(key[key.size() / 2]));
        return h * 0x85EBCA6BU;
    }
    bool may_hold(std::string_view key) const {
        const std::uint32_t h = hash(key);
        const std::uint32_t a = h >> 24U, b = (h >> 16U) & 0xFFU;
        return ((words[a >> 6U] >> (a & 63U)) & 1U) != 0 &&
               ((words[b >> 6U] >> (b & 63U)) & 1U) != 0;
    }
    void add(std::string_view key) {
        const std::uint32_t h = hash(key);
        const std::uint32_t a = h >> 24U, b = (h >> 16U) & 0xFFU;
        words[a >> 6U] |= std::uint64_t{1} << (a & 63U);
        words[b >> 6U] |= std::uint64_t{1} << (b & 63U);
    }
};

}  // namespace

class Parser {
  public:
    Parser(Document& doc, std::string_view text, std::string_view source, Limits limits,
           const Stream* stream)
        : doc_(doc), text_(text), source_(source), limits_(limits), stream_(stream) {}

    void run() {
        // A UTF-8 byte order mark, as some Windows editors write, is not JSON
        // but harmless: skip it.
        if (starts_with(text_, "\xEF\xBB\xBF")) pos_ = 3;
        if (stream_ == nullptr) doc_.nodes_.reserve(text_.size() / 16 + 4);
        skip_ws();
        parse_value(0);
        doc_.consumed_ = pos_;
        if (limits_.allow_trailing) return;
        skip_ws();
        if (pos_ < text_.size()) {
            if (text_[pos_] == '\0') fail("a NUL byte after the JSON value");
            fail("unexpected text after the JSON value");
        }
    }

  private:
    [[noreturn]] void fail_at(std::size_t at, std::string_view why) const {
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i < at && i < text_.size(); ++i) {
            if (text_[i] == '\n') {
                ++line;
                column = 1;
            } else if ((static_cast<unsigned char>(text_[i]) & 0xC0U) != 0x80U) {
                ++column;
            }
        }
        throw InputError(fmt::format("{}: not valid JSON at line {}, column {}: {}; fix the file",
                                     source_, line, column, why));
    }
    [[noreturn]] void fail(std::string_view why) const { fail_at(pos_, why); }
    // Valid JSON, but beyond what one document may hold (Limits).
    [[noreturn]] void too_large(std::string_view why) const {
        throw InputError(fmt::format(
            "{}: too large to read ({}, by byte {}); a file of this kind is far smaller", source_,
            why, pos_));
    }

    void skip_ws() {
        // One shift and test a byte: a pretty-printed catalog is a fifth
        // indentation.
        constexpr std::uint64_t kSpace = (std::uint64_t{1} << ' ') | (std::uint64_t{1} << '\n') |
                                         (std::uint64_t{1} << '\r') | (std::uint64_t{1} << '\t');
        while (pos_ < text_.size()) {
            const auto c = static_cast<unsigned char>(text_[pos_]);
            if (c > ' ' || ((kSpace >> c) & 1U) == 0) return;
            ++pos_;
        }
    }

    std::uint32_t add_node(Type type) {
        if (doc_.nodes_.size() >=
            std::min<std::size_t>(limits_.max_values, std::numeric_limits<std::uint32_t>::max()))
            too_large(fmt::format("more than {} values at once", limits_.max_values));
        Document::Node n;
        n.type = type;
        n.offset = static_cast<std::uint32_t>(pos_);
        doc_.nodes_.push_back(n);
        return static_cast<std::uint32_t>(doc_.nodes_.size() - 1);
    }

    std::uint32_t parse_value(std::size_t depth) {
        if (pos_ >= text_.size()) fail("the text ends where a value should start");
        const char c = text_[pos_];
        switch (c) {
            case '{':
                return parse_object(depth);
            case '[':
                return parse_array(depth);
            case '"': {
                const std::uint32_t n = add_node(Type::String);
                const std::string_view s = parse_string();
                doc_.nodes_[n].text = s;
                return n;
            }
            case 't':
                return literal("true", Type::Bool, true);
            case 'f':
                return literal("false", Type::Bool, false);
            case 'n':
                return literal("null", Type::Null, false);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
                if (c == '\0') fail("a NUL byte where a value should be");
                fail("expected a value (an object, array, string, number, true, false or null)");
        }
    }

    std::uint32_t literal(std::string_view word, Type type, bool flag) {
        if (text_.substr(pos_, word.size()) != word)
            fail("expected a value (true, false or null are spelt lowercase)");
        const std::uint32_t n = add_node(type);
        doc_.nodes_[n].flag = flag;
        pos_ += word.size();
        return n;
    }

    std::uint32_t parse_number() {
        const std::size_t start = pos_;
        const std::uint32_t n = add_node(Type::Number);
        bool integer = true;
        if (text_[pos_] == '-') ++pos_;
        const auto digits = [&] {
            const std::size_t from = pos_;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
            return pos_ - from;
        };
        if (pos_ < text_.size() && text_[pos_] == '0') {
            ++pos_;
        } else if (digits() == 0) {
            fail("a number needs digits");
        }
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            integer = false;
            if (digits() == 0) fail("a number needs digits after the decimal point");
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            integer = false;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
            if (digits() == 0) fail("a number needs digits in its exponent");
        }
        if (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
            fail("a number may not have leading zeros");
        doc_.nodes_[n].text = text_.substr(start, pos_ - start);
        doc_.nodes_[n].flag = integer;
        return n;
    }

    std::string too_long() const {
        return fmt::format("a string longer than {} MiB", limits_.max_string_bytes >> 20U);
    }

    // Returns the string's contents (a view into the input when it has no
    // escapes); pos_ ends after the closing quote.
    std::string_view parse_string() {
        ++pos_;  // opening quote
        const std::size_t start = pos_;
        while (true) {
            skip_plain_bytes();  // to the first byte that needs a look
            if (pos_ >= text_.size()) fail_at(start - 1, "a string is not closed");
            const auto c = static_cast<unsigned char>(text_[pos_]);
            if (c == '"') {
                const std::string_view s = text_.substr(start, pos_ - start);
                if (s.size() > limits_.max_string_bytes) too_large(too_long());
                ++pos_;
                return s;
            }
            if (c == '\\') break;
            if (c < 0x20)
                fail(c == 0 ? "a NUL byte inside a string"
                            : "a control character inside a string (escape it)");
            if (c >= 0x80)
                utf8();
            else
                ++pos_;
        }
        // Slow path: the string has escapes.
        std::string out(text_.substr(start, pos_ - start));
        while (true) {
            if (pos_ >= text_.size()) fail_at(start - 1, "a string is not closed");
            const auto c = static_cast<unsigned char>(text_[pos_]);
            if (c == '"') {
                if (out.size() > limits_.max_string_bytes) too_large(too_long());
                unescaped_bytes_ += out.size();
                if (unescaped_bytes_ > limits_.max_unescaped_bytes)
                    too_large(fmt::format("more than {} MiB of strings with escapes",
                                          limits_.max_unescaped_bytes >> 20U));
                ++pos_;
                doc_.unescaped_.push_back(std::move(out));
                return doc_.unescaped_.back();
            }
            if (c == '\\') {
                escape(out);
            } else if (c < 0x20) {
                fail(c == 0 ? "a NUL byte inside a string"
                            : "a control character inside a string (escape it)");
            } else if (c >= 0x80) {
                const std::size_t from = pos_;
                utf8();
                out.append(text_.substr(from, pos_ - from));
            } else {
                out.push_back(static_cast<char>(c));
                ++pos_;
            }
        }
    }

    // Moves pos_ past a run of printable ASCII other than '"' and '\\', eight
    // bytes at a time (the bytes of a word tested at once, as in Mycroft's
    // zero-byte test): most of a catalog is such text, and the caller checks
    // whatever stopped the run. In each test the lowest flagged byte is
    // exact (a false flag only follows a true one, by the borrow), so the
    // run ends at the first byte that needs a look, not at its word.
    void skip_plain_bytes() {
        constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
        constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
        const auto zero_byte = [](std::uint64_t x) { return (x - kOnes) & ~x & kHighs; };
        while (pos_ + 8 <= text_.size()) {
            std::uint64_t w = 0;
            std::memcpy(&w, text_.data() + pos_, 8);
            // A byte >= 0x80, below 0x20 (w - 0x20 borrows into bit 7 of a
            // byte only where it was below 0x20, or where it was >= 0x80),
            // a quote or a backslash.
            const std::uint64_t stop = (w & kHighs) | ((w - kOnes * 0x20) & ~w & kHighs) |
                                       zero_byte(w ^ (kOnes * '"')) | zero_byte(w ^ (kOnes * '\\'));
            if (stop != 0) {
                // The first byte in memory is the word's lowest on a
                // little-endian machine; elsewhere the caller's loop walks it.
                if constexpr (std::endian::native == std::endian::little)
                    pos_ += static_cast<std::size_t>(std::countr_zero(stop)) / 8;
                return;
            }
            pos_ += 8;
        }
    }

    // Checks one UTF-8 sequence at pos_ and moves past it.
    void utf8() {
        std::uint32_t cp = 0;
        const std::size_t n = utf8_sequence(text_, pos_, &cp);
        if (n == 0) fail("text that is not valid UTF-8");
        pos_ += n;
    }

    std::uint32_t hex4() {
        if (pos_ + 4 > text_.size()) fail("a \\u escape needs four hex digits");
        std::uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            const char h = text_[pos_++];
            v <<= 4U;
            if (h >= '0' && h <= '9')
                v |= static_cast<std::uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f')
                v |= static_cast<std::uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                v |= static_cast<std::uint32_t>(h - 'A' + 10);
            else
                fail("a \\u escape needs four hex digits");
        }
        return v;
    }

    void escape(std::string& out) {
        ++pos_;  // backslash
        if (pos_ >= text_.size()) fail("a string ends inside an escape");
        const char e = text_[pos_++];
        switch (e) {
            case '"':
                out.push_back('"');
                return;
            case '\\':
                out.push_back('\\');
                return;
            case '/':
                out.push_back('/');
                return;
            case 'b':
                out.push_back('\b');
                return;
            case 'f':
                out.push_back('\f');
                return;
            case 'n':
                out.push_back('\n');
                return;
            case 'r':
                out.push_back('\r');
                return;
            case 't':
                out.push_back('\t');
                return;
            case 'u':
                break;
            default:
                fail("an unknown escape in a string");
        }
        std::uint32_t cp = hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) fail("an unpaired surrogate in a \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (text_.substr(pos_, 2) != "\\u") fail("an unpaired surrogate in a \\u escape");
            pos_ += 2;
            const std::uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("an unpaired surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10U) + (low - 0xDC00);
        }
        if (cp == 0) fail("a NUL character (\\u0000) inside a string");
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0U | (cp >> 6U)));
            out.push_back(static_cast<char>(0x80U | (cp & 0x3FU)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0U | (cp >> 12U)));
            out.push_back(static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU)));
            out.push_back(static_cast<char>(0x80U | (cp & 0x3FU)));
        } else {
            out.push_back(static_cast<char>(0xF0U | (cp >> 18U)));
            out.push_back(static_cast<char>(0x80U | ((cp >> 12U) & 0x3FU)));
            out.push_back(static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU)));
            out.push_back(static_cast<char>(0x80U | (cp & 0x3FU)));
        }
    }

    void enter(std::size_t depth) const {
        if (depth >= limits_.max_depth)
            fail(fmt::format("nesting deeper than {} levels", limits_.max_depth));
    }

    // Links `child` after `prev` under `parent`.
    void link(std::uint32_t parent, std::uint32_t& prev, std::uint32_t child) {
        auto& nodes = doc_.nodes_;
        if (nodes[parent].count == 0)
            nodes[parent].first = child;
        else
            nodes[prev].next = child;
        if (nodes[parent].count == std::numeric_limits<std::uint32_t>::max())
            fail("too many elements");
        ++nodes[parent].count;
        prev = child;
    }

    std::uint32_t parse_array(std::size_t depth, bool streamed = false) {
        enter(depth);
        const std::uint32_t self = add_node(Type::Array);
        ++pos_;
        skip_ws();
        if (pos_ < text_.size() && text_[pos_] == ']') {
            ++pos_;
            return self;
        }
        std::uint32_t prev = 0;
        std::size_t index = 0;
        while (true) {
            skip_ws();
            const std::uint32_t child = parse_value(depth + 1);
            if (streamed) {
                stream_->element(Value(&doc_, child), index++);
                doc_.nodes_.resize(child);  // the element's nodes are done with
            } else {
                link(self, prev, child);
            }
            skip_ws();
            if (pos_ >= text_.size()) fail("an array is not closed (expected ',' or ']')");
            const char c = text_[pos_];
            if (c == ',') {
                ++pos_;
                continue;
            }
            if (c == ']') {
                ++pos_;
                return self;
            }
            fail("expected ',' or ']' in an array");
        }
    }

    std::uint32_t parse_object(std::size_t depth) {
        enter(depth);
        const std::uint32_t self = add_node(Type::Object);
        ++pos_;
        skip_ws();
        if (pos_ < text_.size() && text_[pos_] == '}') {
            ++pos_;
            return self;
        }
        // Duplicate keys: a linear scan for the usual small objects, a hash
        // set once an object has many members. Before the scan, a 256-bit
        // summary of the keys so far (KeyFilter) rules most keys out at once:
        // a card's 30 to 40 members would otherwise scan each other.
        const std::size_t keys_start = keys_.size();
        std::unordered_set<std::string_view> many;
        KeyFilter filter;
        std::uint32_t prev = 0;
        while (true) {
            skip_ws();
            if (pos_ >= text_.size() || text_[pos_] != '"')
                fail("expected a member name in double quotes");
            const std::size_t key_at = pos_;
            const std::string_view key = parse_string();
            const std::size_t count = keys_.size() - keys_start;
            bool duplicate = false;
            if (count < kLinearKeys) {
                if (filter.may_hold(key))
                    for (std::size_t i = keys_start; i < keys_.size() && !duplicate; ++i)
                        duplicate = keys_[i].size() == key.size() &&
                                    (key.empty() || keys_[i].back() == key.back()) &&
                                    keys_[i] == key;
                filter.add(key);
                if (count == kLinearKeys - 1 && !duplicate)
                    many.insert(keys_.begin() + static_cast<std::ptrdiff_t>(keys_start),
                                keys_.end());
            } else {
                duplicate = many.count(key) > 0;
            }
            if (duplicate)
                fail_at(key_at, fmt::format("the key {} appears twice in one object", quote(key)));
            keys_.push_back(key);
            if (count >= kLinearKeys - 1) many.insert(key);
            skip_ws();
            if (pos_ >= text_.size() || text_[pos_] != ':')
                fail("expected ':' after a member name");
            ++pos_;
            skip_ws();
            const bool streamed = stream_ != nullptr && depth == 0 && key == stream_->key &&
                                  pos_ < text_.size() && text_[pos_] == '[';
            const std::uint32_t child =
                streamed ? parse_array(depth + 1, true) : parse_value(depth + 1);
            doc_.nodes_[child].key = key;
            link(self, prev, child);
            skip_ws();
            if (pos_ >= text_.size()) fail("an object is not closed (expected ',' or '}')");
            const char c = text_[pos_];
            if (c == ',') {
                ++pos_;
                continue;
            }
            if (c == '}') {
                ++pos_;
                keys_.resize(keys_start);
                return self;
            }
            fail("expected ',' or '}' in an object");
        }
    }

    Document& doc_;
    std::string_view text_;
    std::string_view source_;
    Limits limits_;
    const Stream* stream_;
    std::size_t unescaped_bytes_ = 0;
    std::size_t pos_ = 0;
    std::vector<std::string_view> keys_;  // member names of the objects being parsed
};

Document Document::parse(std::string_view text, std::string_view source, std::string_view expected,
                         Limits limits, const Stream* stream) {
    if (trim(text).empty() && text.find('\0') == std::string_view::npos)
        throw InputError(fmt::format("{}: the file is empty; expected {}", source, expected));
    if (text.size() >= std::numeric_limits<std::uint32_t>::max())
        throw InputError(
            fmt::format("{}: larger than 4 GiB; not a JSON file gpuadvise reads", source));
    Document doc;
    Parser(doc, text, source, limits, stream).run();
    return doc;
}

}  // namespace gpuadvise::json
