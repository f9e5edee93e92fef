#pragma once
// JSON in and out, strict and fast, for every JSON gpuadvise reads or writes.
//
// Why its own reader, not nlohmann's: speed and memory at the scale of the
// inputs. A 100,000-card catalog (169 MB) streams its "gpus" array and keeps
// views into the text, so it peaks at ~2.4 KB per card beyond the text;
// strings without escapes are views and the tree is one flat array of nodes,
// so a 194 KB catalog parses in 280 us against nlohmann's DOM at 2,232 us
// (docs/performance.md), and `batch` reads 100,000+ lines a second. Beside
// that, it refuses what nlohmann lets through: duplicate keys (nlohmann keeps
// the last), a NUL byte after the value, nesting deeper than a limit, and
// documents whose shape would cost more memory than their size (Limits).
// Every JSON the product reads goes through it (safetensors headers too);
// nlohmann is the tests' oracle (tests/fuzz/fuzz_json.cpp compares the two).
//
// Reading: `Document::parse(text, source)` keeps views into `text`, which must
// outlive the document (and every string_view taken from it). `ObjectReader`
// gives typed getters that know their JSON path and reject keys nobody read.
// Writing: `Writer` streams a document into a string, pretty or compact.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise::json {

enum class Type : std::uint8_t { Null, Bool, Number, String, Array, Object };
std::string_view type_name(Type t);

class Document;

// A view of one value inside a Document (cheap to copy).
class Value {
  public:
    Value() = default;
    Type type() const;
    bool is_null() const { return type() == Type::Null; }
    bool is_bool() const { return type() == Type::Bool; }
    bool is_number() const { return type() == Type::Number; }
    bool is_string() const { return type() == Type::String; }
    bool is_array() const { return type() == Type::Array; }
    bool is_object() const { return type() == Type::Object; }

    bool boolean() const;           // the value of true/false
    std::string_view text() const;  // a string's (unescaped) text, or a number's literal
    // Numbers: nullopt when the literal is not representable (1e999, a
    // fraction read as an integer, an integer out of range).
    std::optional<double> number() const;
    std::optional<std::int64_t> int64() const;
    std::optional<std::uint64_t> uint64() const;
    bool is_integer_literal() const;  // no fraction, no exponent

    // Containers: elements and members in document order.
    std::size_t size() const;
    class Iterator;
    struct Range {
        Iterator begin() const;
        Iterator end() const;
        const Document* doc;
        std::uint32_t first;
    };
    Range items() const;  // array elements or object member values
    std::optional<Value> find(std::string_view key) const;
    std::string_view key() const;  // the member name, when this value is a member of an object

    std::size_t offset() const;  // byte offset of the value in the input
    // The value as compact JSON text (for messages), at most `max` bytes.
    std::string dump(std::size_t max = 60) const;

  private:
    friend class Document;
    friend class Parser;
    Value(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}
    const Document* doc_ = nullptr;
    std::uint32_t index_ = 0;
};

class Value::Iterator {
  public:
    Value operator*() const { return Value(doc_, index_); }
    Iterator& operator++();
    bool operator!=(const Iterator& o) const { return index_ != o.index_; }

  private:
    friend struct Value::Range;
    Iterator(const Document* doc, std::uint32_t index) : doc_(doc), index_(index) {}
    const Document* doc_;
    std::uint32_t index_;
};

// What one document may hold, so that memory is bounded by the input's size
// and not by its shape: a 200 MB file of one long array would otherwise cost
// gigabytes of tree. The defaults are far above any real catalog, config or
// batch line (a 100,000-card catalog streams its cards, and each card is a
// few hundred values); a streamed array's elements count one at a time.
struct Limits {
    std::size_t max_depth = 64;
    std::size_t max_values = 8'000'000;               // nodes of the tree held at once
    std::size_t max_string_bytes = 16ULL << 20U;      // one string
    std::size_t max_unescaped_bytes = 256ULL << 20U;  // strings copied to remove escapes
    // Stop after the first value and ignore what follows (vendor tools print
    // warnings after their JSON); `Document::consumed` says where it ended.
    bool allow_trailing = false;
};

// Streams the elements of one array member of the root object to a callback
// instead of keeping them, so a 100,000-entry catalog never exists as one tree
// (the views the callback keeps into the text and into `Document::strings`
// stay valid). In the document the array is then empty.
struct Stream {
    std::string_view key;
    std::function<void(Value element, std::size_t index)> element;
};

class Document {
  public:
    // Throws InputError "<source>: not valid JSON at line L, column C: <why>".
    // An empty input is "<source>: the file is empty; expected <expected>".
    static Document parse(std::string_view text, std::string_view source,
                          std::string_view expected = "JSON", Limits limits = {},
                          const Stream* stream = nullptr);
    Value root() const { return Value(this, 0); }
    std::size_t consumed() const { return consumed_; }

    Document() = default;
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;
    Document(Document&&) = default;
    Document& operator=(Document&&) = default;

    // The strings that had escapes, which views may point into; moving them
    // out lets a caller keep them while the tree is freed.
    std::deque<std::string> take_strings() && { return std::move(unescaped_); }

  private:
    friend class Value;
    friend class Parser;
    struct Node {
        std::string_view text;    // string contents, or a number's literal
        std::string_view key;     // member name when inside an object
        std::uint32_t next = 0;   // next sibling (0 = none; node 0 is always the root)
        std::uint32_t first = 0;  // first child
        std::uint32_t count = 0;  // children
        std::uint32_t offset = 0;
        Type type = Type::Null;
        bool flag = false;  // bool value; for numbers: an integer literal
    };
    std::vector<Node> nodes_;
    std::deque<std::string> unescaped_;  // strings that had escapes (stable addresses)
    std::size_t consumed_ = 0;
};

// A value's accessors, inline: a 100,000-card catalog's reading calls them
// tens of millions of times.
inline Type Value::type() const {
    return doc_ ? doc_->nodes_[index_].type : Type::Null;
}
inline bool Value::boolean() const {
    return doc_ && doc_->nodes_[index_].flag;
}
inline std::string_view Value::text() const {
    return doc_ ? doc_->nodes_[index_].text : std::string_view();
}
inline std::string_view Value::key() const {
    return doc_ ? doc_->nodes_[index_].key : std::string_view();
}
inline std::size_t Value::offset() const {
    return doc_ ? doc_->nodes_[index_].offset : 0;
}
inline bool Value::is_integer_literal() const {
    return is_number() && doc_->nodes_[index_].flag;
}
inline std::size_t Value::size() const {
    return doc_ ? doc_->nodes_[index_].count : 0;
}
inline Value::Iterator& Value::Iterator::operator++() {
    index_ = doc_->nodes_[index_].next;
    return *this;
}
inline Value::Iterator Value::Range::begin() const {
    return Iterator(doc, first);
}
inline Value::Iterator Value::Range::end() const {
    return Iterator(doc, 0);
}
inline Value::Range Value::items() const {
    if (!doc_ || (!is_array() && !is_object()) || size() == 0) return Range{doc_, 0};
    return Range{doc_, doc_->nodes_[index_].first};
}

// A JSON path, built only when a message needs it: "/gpus/3/memory_bytes".
struct Path {
    const Path* parent = nullptr;
    std::string_view key;
    std::size_t index = 0;
    bool is_index = false;
    std::string str() const;
};

// Typed, path-aware access to one object; `finish()` rejects members nobody
// read, so a misspelt "memory_bandwith_gbps" is not silently ignored.
class ObjectReader {
  public:
    // Throws when `value` is not an object.
    ObjectReader(Value value, std::string_view source, const Path* path = nullptr);

    [[noreturn]] void fail(std::string_view key, std::string_view what) const;
    [[noreturn]] void fail_here(std::string_view what) const;

    // nullopt when absent or null.
    std::optional<Value> get(std::string_view key);
    Value required(std::string_view key);
    bool has(std::string_view key);

    std::string_view str(std::string_view key);  // non-empty string
    std::optional<std::string_view> opt_str(std::string_view key);
    std::string_view str_or(std::string_view key, std::string_view fallback);
    double number(std::string_view key, double min, double max);
    std::optional<double> opt_number(std::string_view key, double min, double max);
    std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);
    std::optional<std::int64_t> opt_integer(std::string_view key, std::int64_t min,
                                            std::int64_t max);
    std::optional<bool> opt_bool(std::string_view key);
    std::vector<std::string_view> strings(std::string_view key);  // absent = empty
    // One of `choices` (exact spelling).
    std::string_view one_of(std::string_view key, std::initializer_list<std::string_view> choices);

    // Reader of a member object; `path_storage` must outlive it.
    ObjectReader child(std::string_view key, Path& path_storage);
    // The path of a member, for messages and child readers.
    Path member_path(std::string_view key) const { return Path{path_, key}; }

    void finish() const;
    std::string_view source() const { return source_; }
    const Path* path() const { return path_; }
    Value value() const { return value_; }

  private:
    std::optional<Value> lookup(std::string_view key);
    // The typed checks of a member already found (one lookup a getter).
    std::string_view str_of(std::string_view key, Value v) const;
    double number_of(std::string_view key, Value v, double min, double max) const;
    std::int64_t integer_of(std::string_view key, Value v, std::int64_t min,
                            std::int64_t max) const;
    Value value_;
    std::string_view source_;
    const Path* path_;
    struct Member {
        Value value;
        std::string_view key;  // compared without a lookup each
        bool read = false;     // asked for
    };
    std::vector<Member> members_;  // one allocation a reader (a card has eight)
    std::size_t cursor_ = 0;       // members are usually read in document order
    // One bit per key's length and ends (key_bit): most optional keys a
    // reader asks for are absent, and this answers them without a scan.
    std::uint64_t key_bits_ = 0;
};

// Streams JSON into a string. Keys and values are escaped; text that is not
// valid UTF-8 or holds control characters is sanitised (text.hpp). Numbers
// must be finite: a NaN or infinity here is a bug, reported by std::logic_error
// rather than written as null.
class Writer {
  public:
    explicit Writer(std::string& out, bool pretty = true) : out_(out), pretty_(pretty) {}
    Writer& begin_object();
    Writer& end_object();
    Writer& begin_array();
    Writer& end_array();
    Writer& key(std::string_view k);
    Writer& value(std::string_view s);
    Writer& value(const char* s) { return value(std::string_view(s)); }
    Writer& value(const std::string& s) { return value(std::string_view(s)); }
    Writer& value(bool b);
    Writer& value(std::int64_t v);
    Writer& value(std::uint64_t v);
    Writer& value(int v) { return value(static_cast<std::int64_t>(v)); }
    Writer& value(double v);
    Writer& null();
    template <typename T>
    Writer& value(const std::optional<T>& v) {
        return v ? value(*v) : null();
    }
    // key + value in one call.
    template <typename T>
    Writer& field(std::string_view k, const T& v) {
        key(k);
        return value(v);
    }
    // Inserts JSON text already produced by another Writer (same style).
    Writer& raw(std::string_view json_text);

  private:
    void before_value();
    void newline();
    Writer& close(char bracket);
    std::string& out_;
    bool pretty_;
    bool after_key_ = false;
    std::vector<bool> first_;  // per open container: nothing written yet
};

// A string as a JSON string literal (escaped, sanitised), quotes included.
std::string quoted(std::string_view s);

// What the views of data parsed from a file point into: the text, the
// strings that had escapes, and the lists (aliases, sources) of its rows.
struct Storage {
    std::string text;
    std::deque<std::string> strings;
    std::deque<std::vector<std::string_view>> lists;
    std::span<const std::string_view> keep(std::vector<std::string_view> list) {
        if (list.empty()) return {};
        lists.push_back(std::move(list));
        return lists.back();
    }
};

}  // namespace gpuadvise::json

namespace gpuadvise {
// Rows parsed from a data file, with the storage their views point into.
template <typename T>
struct Parsed {
    std::vector<T> rows;
    std::shared_ptr<const void> storage;
};
}  // namespace gpuadvise
