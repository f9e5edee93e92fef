#include "gpuadvise/json.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gpuadvise/error.hpp"

using namespace gpuadvise;

namespace {

json::Document parse(std::string_view text) {
    return json::Document::parse(text, "t.json");
}

std::string fails(std::string_view text) {
    try {
        parse(text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("the reader parses every JSON type, keeps order and views into the text") {
    const std::string text =
        R"({"b": [1, -2.5e3, true, false, null], "a": {"s": "x\u00e9\n"}, "n": 18446744073709551615})";
    const json::Document d = parse(text);
    const json::Value root = d.root();
    REQUIRE(root.is_object());
    std::vector<std::string_view> keys;
    for (const json::Value v : root.items()) keys.push_back(v.key());
    CHECK(keys == std::vector<std::string_view>{"b", "a", "n"});
    const json::Value b = *root.find("b");
    REQUIRE(b.size() == 5);
    std::vector<json::Value> items;
    for (const json::Value v : b.items()) items.push_back(v);
    CHECK(*items[0].int64() == 1);
    CHECK(*items[1].number() == -2500);
    CHECK_FALSE(items[1].is_integer_literal());
    CHECK(items[2].boolean());
    CHECK(items[4].is_null());
    CHECK(root.find("a")->find("s")->text() == "x\xC3\xA9\n");
    CHECK(*root.find("n")->uint64() == 18446744073709551615ULL);
    CHECK_FALSE(root.find("n")->int64());
    CHECK_FALSE(root.find("missing"));
}

TEST_CASE("the reader rejects what a permissive parser would let through") {
    CHECK_THAT(fails(R"({"a":1,"a":2})"), Catch::Contains("'a' appears twice"));
    CHECK_THAT(fails(std::string("{}\0garbage", 10)), Catch::Contains("NUL"));
    CHECK_THAT(fails("{} {}"), Catch::Contains("after the JSON value"));
    CHECK_THAT(fails("{\"a\":\"\xff\"}"), Catch::Contains("UTF-8"));
    CHECK_THAT(fails(R"(["\ud800"])"), Catch::Contains("surrogate"));
    CHECK_THAT(fails(R"(["\u0000"])"), Catch::Contains("NUL"));
    CHECK_THAT(fails("[01]"), Catch::Contains("leading zeros"));
    CHECK_THAT(fails("[1.]"), Catch::Contains("digits"));
    CHECK_THAT(fails("{\"a\":1,}"), Catch::Contains("member name"));
    CHECK_THAT(fails("[\"a\tb\"]"), Catch::Contains("control character"));
    CHECK_THAT(fails(std::string(100, '[')), Catch::Contains("deeper than 64"));
    CHECK_THAT(fails("   "), Catch::Contains("empty"));
    CHECK_THAT(fails("{\n  \"a\": tru\n}"), Catch::Contains("line 2, column 8"));
    // Many keys: the duplicate check stays linear.
    std::string many = "{";
    for (int i = 0; i < 5000; ++i) many += "\"k" + std::to_string(i) + "\":1,";
    CHECK_NOTHROW(parse(many + "\"end\":1}"));
    CHECK_THAT(fails(many + "\"k17\":1}"), Catch::Contains("'k17' appears twice"));
}

TEST_CASE("numbers beyond double range are values the reader refuses to use") {
    const json::Document d = parse("[1e999]");
    CHECK_FALSE(d.root().items().begin().operator*().number());
}

TEST_CASE("object readers name the path and reject unread keys") {
    const json::Document d = parse(R"({"gpus":[{"id":"x","memory":"24GB","typo":1}]})");
    const json::Value gpu = *d.root().find("gpus")->items().begin();
    const json::Path list{nullptr, "gpus"};
    const json::Path path{&list, {}, 0, true};
    json::ObjectReader r(gpu, "c.json", &path);
    CHECK(r.str("id") == "x");
    CHECK_THROWS_WITH(r.integer("memory", 1, 10),
                      Catch::Contains("c.json: /gpus/0/memory: must be an integer"));
    CHECK_THROWS_WITH(r.finish(), Catch::Contains("/gpus/0/typo: is not a known field"));
}

TEST_CASE("the writer emits valid, escaped JSON and refuses non-finite numbers") {
    std::string out;
    json::Writer w(out);
    w.begin_object()
        .field("s", "q\"\\\n\x01\xff")
        .field("n", 1.5)
        .field("i", std::int64_t{-3})
        .key("e")
        .begin_array()
        .end_array();
    w.key("o").begin_object().end_object().field("nul", std::optional<double>()).end_object();
    const auto parsed = nlohmann::json::parse(out);
    CHECK(parsed["s"] == "q\"\\\n\x01\xEF\xBF\xBD");
    CHECK(parsed["n"] == 1.5);
    CHECK(parsed["e"].empty());
    CHECK(parsed["nul"].is_null());
    std::string bad;
    json::Writer b(bad);
    b.begin_array();
    CHECK_THROWS_AS(b.value(std::numeric_limits<double>::infinity()), std::logic_error);
    // The same document round-trips through the reader.
    CHECK_NOTHROW(parse(out));
}

TEST_CASE("streaming an array member keeps only one element at a time") {
    std::size_t seen = 0;
    json::Stream stream{"gpus", [&](json::Value element, std::size_t index) {
                            CHECK(index == seen);
                            CHECK(element.find("id")->text() == std::to_string(seen));
                            ++seen;
                        }};
    const json::Document d = json::Document::parse(
        R"({"date":"x","gpus":[{"id":"0"},{"id":"1"},{"id":"2"}],"after":true})", "t", "JSON", {},
        &stream);
    CHECK(seen == 3);
    CHECK(d.root().find("after")->boolean());
}

TEST_CASE("a vendor tool's JSON with trailing text parses with allow_trailing") {
    json::Limits l;
    l.allow_trailing = true;
    const json::Document d =
        json::Document::parse("{\"a\":1}\nWARNING: low power", "tool", "JSON", l);
    CHECK(d.consumed() == 7);
}

TEST_CASE("a document's size is bounded by limits, not by its shape") {
    json::Limits small;
    small.max_values = 100;
    small.max_string_bytes = 64;
    small.max_unescaped_bytes = 100;
    std::string many = "[";
    for (int i = 0; i < 200; ++i) many += i ? ",1" : "1";
    many += "]";
    CHECK_THROWS_WITH(
        json::Document::parse(many, "many.json", "JSON", small),
        Catch::Contains("many.json: too large to read") && Catch::Contains("more than 100 values"));
    CHECK_NOTHROW(json::Document::parse(many, "many.json"));  // the default limits hold it
    CHECK_THROWS_WITH(
        json::Document::parse("\"" + std::string(65, 'x') + "\"", "long.json", "JSON", small),
        Catch::Contains("a string longer than"));
    std::string escaped = "[";
    for (int i = 0; i < 20; ++i) escaped += std::string(i ? "," : "") + "\"\\nabcdefghij\"";
    escaped += "]";
    CHECK_THROWS_WITH(json::Document::parse(escaped, "esc.json", "JSON", small),
                      Catch::Contains("strings with escapes"));
    // A streamed array counts its elements one at a time: 200 of them pass.
    std::size_t seen = 0;
    const json::Stream stream{"a", [&](json::Value, std::size_t) { ++seen; }};
    std::string doc = "{\"a\":[";
    for (int i = 0; i < 200; ++i) doc += std::string(i ? "," : "") + "[1,2,3]";
    doc += "]}";
    CHECK_NOTHROW(json::Document::parse(doc, "stream.json", "JSON", small, &stream));
    CHECK(seen == 200);
}

TEST_CASE("strings are checked whole at every alignment of the word-at-a-time scan") {
    // A byte that stops the fast scan (a quote, a backslash, a control
    // character, a multi-byte character, an invalid byte) at each offset of
    // a long string: the parser finds it wherever it falls in a word.
    for (std::size_t at = 0; at < 20; ++at) {
        const std::string head(at, 'a'), tail(19 - at, 'b');
        INFO("offset " << at);
        // The documents keep views into their texts, which must outlive them.
        const std::string escaped_text = "[\"" + head + "\\n" + tail + "\"]";
        const json::Document escaped = parse(escaped_text);
        CHECK((*escaped.root().items().begin()).text() == head + "\n" + tail);
        const std::string utf8_text = "[\"" + head + "\xC3\xA9" + tail + "\"]";
        const json::Document utf8 = parse(utf8_text);
        CHECK((*utf8.root().items().begin()).text() == head + "\xC3\xA9" + tail);
        CHECK(fails("[\"" + head + "\x01" + tail + "\"]").find("control character") !=
              std::string::npos);
        CHECK(fails("[\"" + head + '\x1f' + tail + "\"]").find("control character") !=
              std::string::npos);
        CHECK(fails("[\"" + head + "\xff" + tail + "\"]").find("not valid UTF-8") !=
              std::string::npos);
        CHECK(fails("[\"" + head + "\x7f" + tail + "\"]").empty());  // DEL is allowed text
        const std::string two = "[\"" + head + "\",\"" + tail + "\"]";
        const json::Document quote_end = parse(two);
        CHECK(quote_end.root().size() == 2);
        CHECK(fails("[\"" + head + tail).find("not closed") != std::string::npos);
    }
}

TEST_CASE("an object reader answers absent and present keys alike in any order") {
    const json::Document d = parse(R"({"alpha":1,"beta":2,"gamma":3,"delta":null})");
    json::ObjectReader r(d.root(), "t.json");
    CHECK(r.opt_integer("gamma", 0, 9) == 3);
    CHECK(r.opt_integer("alpha", 0, 9) == 1);
    CHECK_FALSE(r.opt_integer("epsilon", 0, 9).has_value());
    CHECK_FALSE(r.opt_integer("alphb", 0, 9).has_value());  // same length and ends as no key
    CHECK_FALSE(r.opt_integer("delta", 0, 9).has_value());  // null reads as absent
    CHECK(r.opt_integer("beta", 0, 9) == 2);
    CHECK_NOTHROW(r.finish());
}

TEST_CASE("a duplicate key is found at every object size, at its own position") {
    // Below 64 members a scan behind a key summary finds it, above a hash set.
    for (int n = 1; n <= 80; ++n) {
        std::string text = "{";
        for (int i = 0; i < n; ++i) text += "\"k" + std::to_string(i) + "\":1,";
        CHECK_NOTHROW(parse(text + "\"end\":1}"));
        const std::string dup = "k" + std::to_string(n / 2);
        const std::string bad = text + "\"" + dup + "\":1}";
        CHECK_THAT(fails(bad), Catch::Contains("column " + std::to_string(text.size() + 1) +
                                               ": the key '" + dup + "' appears twice"));
    }
}
