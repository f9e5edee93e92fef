#include "gpuadvise/text.hpp"

#include <catch2/catch.hpp>

using namespace gpuadvise;

TEST_CASE("sanitize makes outside text safe for a terminal and JSON") {
    CHECK(sanitize("RTX 4090") == "RTX 4090");
    CHECK(sanitize("a\x1b[31mred") ==
          "a [31mred");  // ESC becomes a space: no terminal escape survives
    CHECK(sanitize("two\nlines\r") == "two lines ");
    CHECK(sanitize("bad\xff"
                   "byte") ==
          "bad\xEF\xBF\xBD"
          "byte");  // U+FFFD
    CHECK(sanitize("\xC2\x85"
                   "c1") == " c1");     // C1 control (NEL)
    CHECK(sanitize("ラマ") == "ラマ");  // valid UTF-8 kept
    CHECK(sanitize("abcdef", 3) == "abc...");
    CHECK(sanitize("\xED\xA0\x80") ==
          "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate is not UTF-8
}

TEST_CASE("quote shows a value as it was typed, on one line") {
    CHECK(quote("8Q") == "'8Q'");
    CHECK(quote("a\rb") == "'a\\rb'");
    CHECK(quote("x\ny") == "'x\\ny'");
    CHECK(quote("\x1b") == "'\\x1b'");
    CHECK(quote("\xff") == "'\\xff'");
    CHECK(quote(std::string(200, 'x')).size() == 80 + 2 + 3);
}

TEST_CASE("UTF-8 validation follows RFC 3629") {
    CHECK(valid_utf8("plain"));
    CHECK(valid_utf8("\xE2\x82\xAC"));
    CHECK_FALSE(valid_utf8("\xC0\x80"));          // overlong
    CHECK_FALSE(valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
    CHECK_FALSE(valid_utf8("\xE2\x82"));          // truncated
    CHECK(repair_utf8("a\xff") == "a\xEF\xBF\xBD");
    CHECK(repair_utf8("keep\ttabs") == "keep\ttabs");
}

TEST_CASE("display helpers count code points") {
    CHECK(display_width("ü") == 1);
    CHECK(truncate_display("abcdefgh", 5) == "ab...");
    CHECK(truncate_display("abc", 5) == "abc");
    CHECK(trim("  x \n") == "x");
    CHECK(lower("RTX") == "rtx");
    CHECK(starts_with("gpuadvise", "gpu"));
    CHECK(ends_with("config.json", ".json"));
}
