// quoting.hpp against in-process oracles: a POSIX shell's word splitting
// (support/shell_split.hpp), YAML and TOML string decoding and Ollama's
// Modelfile reading (support/config_strings.hpp). The end-to-end test
// (tests/cli/emit_test.cpp) checks the same with /bin/sh and Python's parsers.
#include "gpuadvise/quoting.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "support/config_strings.hpp"
#include "support/shell_split.hpp"

using namespace gpuadvise;

namespace {

const std::vector<std::string>& hostile() {
    static const std::vector<std::string> v{
        "plain.gguf",
        "my model $(id).gguf",
        "it's.gguf",
        "say \"hi\".gguf",
        "`id`.gguf",
        "a;id.gguf",
        "a&id&&b.gguf",
        "a|id.gguf",
        "#hash.gguf",
        "star*?.gguf",
        "-dash.gguf",
        "~tilde.gguf",
        "new\nline.gguf",
        "tab\there.gguf",
        "esc\x1b[31mred.gguf",
        "cr\rfake.gguf",
        "bad\xff\xfe.gguf",
        "\xc3\x28.gguf",                  // an invalid two-byte sequence
        "\xe6\xa8\xa1\xe5\x9e\x8b.gguf",  // 模型
        "rtl\xe2\x80\xaegguf.txt",        // U+202E
        "nel\xc2\x85.gguf",               // U+0085
        "a=b.gguf",
        "back\\slash.gguf",
        "{brace}.gguf",
        "''",
        "\"\"\"x\"\"\"",
        std::string(250, 'x') + ".gguf",
    };
    return v;
}

}  // namespace

TEST_CASE("quoting: a shell word splits back into exactly its bytes") {
    for (const std::string& s : hostile()) {
        INFO(sanitize(s));
        const std::string word = shell_word(s);
        const auto split = shell_test::split("tool " + word + " --next");
        REQUIRE(split.error.empty());
        REQUIRE(split.commands.size() == 1);
        REQUIRE(split.commands[0].argv.size() == 3);
        CHECK(split.commands[0].argv[1] == s);
        // Printed, the word is plain text: nothing a terminal acts on.
        for (const char c : word) CHECK((static_cast<unsigned char>(c) >= 0x20 || c == '\n'));
        CHECK(valid_utf8(word));
    }
    CHECK(shell_word("plain.gguf") == "plain.gguf");
    CHECK(shell_word("it's") == "'it'\\''s'");
    CHECK(shell_word("") == "''");
    CHECK_THROWS_AS(shell_word(std::string("a\0b", 3)), InputError);
    const auto env = shell_test::split(shell_assignment("NAME", "a b") + " prog");
    REQUIRE(env.error.empty());
    REQUIRE(env.commands.at(0).env.size() == 1);
    CHECK(env.commands[0].env[0].second == "a b");
}

TEST_CASE("quoting: the shell oracle refuses what a shell would act on") {
    for (const char* line :
         {"a $(id)", "a `id`", "a | b", "a > f", "a * b", "#x", "~a", "a \"$(id)\"", "a \"\\x\""})
        CHECK_FALSE(shell_test::split(line).error.empty());
}

TEST_CASE("quoting: YAML and TOML strings decode to the same text") {
    for (const std::string& s : hostile()) {
        INFO(sanitize(s));
        const auto y = yaml_string(s);
        const auto t = toml_string(s);
        const auto j = json_string(s);
        if (!valid_utf8(s)) {
            CHECK_FALSE(y);
            CHECK_FALSE(t);
            CHECK_FALSE(j);
            continue;
        }
        REQUIRE(y);
        REQUIRE(t);
        REQUIRE(j);
        CHECK(config_test::yaml_unquote(*y) == s);
        CHECK(config_test::toml_unquote(*t) == s);
        CHECK(config_test::toml_unquote(*j) == s);  // JSON's escapes are a subset of TOML's here
    }
}

TEST_CASE("quoting: a Modelfile value reads back as ollama reads it, or is refused") {
    for (const std::string& s : hostile()) {
        INFO(sanitize(s));
        const auto v = modelfile_value(s);
        bool holdable = valid_utf8(s);
        for (std::size_t i = 0; holdable && i < s.size();) {
            std::uint32_t cp = 0;
            const std::size_t n = utf8_sequence(s, i, &cp);
            holdable = !is_terminal_unsafe(cp);
            i += n;
        }
        REQUIRE(v.has_value() == holdable);
        if (v) CHECK(config_test::modelfile_unquote(*v) == s);
    }
}

TEST_CASE("quoting: random bytes round-trip through every format that holds them") {
    std::mt19937 rng(20261203);
    std::uniform_int_distribution<int> len(0, 40), byte(0, 255);
    for (int n = 0; n < 4000; ++n) {
        std::string s;
        const int l = len(rng);
        for (int k = 0; k < l; ++k) s += static_cast<char>(byte(rng) == 0 ? 1 : byte(rng));
        s.erase(std::remove(s.begin(), s.end(), '\0'), s.end());
        if (s.empty()) continue;
        const auto split = shell_test::split("x " + shell_word(s));
        REQUIRE(split.error.empty());
        REQUIRE(split.commands.at(0).argv.size() == 2);
        CHECK(split.commands[0].argv[1] == s);
        if (const auto y = yaml_string(s)) CHECK(config_test::yaml_unquote(*y) == s);
        if (const auto t = toml_string(s)) CHECK(config_test::toml_unquote(*t) == s);
        if (const auto m = modelfile_value(s)) CHECK(config_test::modelfile_unquote(*m) == s);
    }
}
