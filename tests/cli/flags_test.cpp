// Parsing argv from the tables: the command is found wherever it stands,
// every option is checked against the command before CLI11 runs, and
// registering only the options that are present (the fast path) gives the
// same request, or the same error, as registering all of them.
#include "cli/flags.hpp"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/error.hpp"

using namespace gpuadvise;
using namespace gpuadvise::cli;

namespace {

Invocation locate_args(std::vector<std::string> args) {
    args.insert(args.begin(), "gpuadvise");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return locate(static_cast<int>(argv.size()), argv.data());
}

// The request as text, or the error: what both registrations must agree on.
std::string outcome(const Invocation& inv, Registration registration) {
    try {
        const ParsedArgs parsed = parse_args(inv, registration);
        std::string out;
        for (std::size_t i = 0; i < kFieldCount; ++i) {
            const auto f = static_cast<Field>(i);
            if (const auto& g = parsed.request.get(f))
                out += std::string(spec(f).key) + "=" + g->text + " <" + g->origin + ">\n";
        }
        for (const auto& list : parsed.positionals)
            for (const auto& p : list) out += "positional " + p + "\n";
        return out;
    } catch (const InputError& e) {
        return std::string("error: ") + e.what();
    }
}

std::string locate_error(std::vector<std::string> args) {
    try {
        locate_args(std::move(args));
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("flags: the command is found before, between or after options") {
    CHECK(locate_args({"estimate", "--model", "8B"}).command->name == "estimate");
    CHECK(locate_args({"--json", "estimate", "--model", "8B"}).command->name == "estimate");
    // An option's value is never taken for a command.
    const Invocation main = locate_args({"--model", "estimate"});
    CHECK(main.command->name.empty());
    CHECK(main.args == std::vector<std::string>{"--model", "estimate"});
    CHECK(locate_args({"gpus", "show", "h100"}).command->name == "gpus show");
    CHECK(locate_args({"gpus", "--json"}).command->name == "gpus");
    CHECK(locate_args({"--help"}).help);
    CHECK(locate_args({"-V"}).version);
    CHECK_FALSE(locate_args({"estimate", "-V"}).version);  // only the main command has --version
}

TEST_CASE("flags: an unknown option gets a did-you-mean, another command's option its owners") {
    CHECK_THAT(locate_error({"--modle", "8B"}), Catch::Contains("unknown option '--modle'") &&
                                                    Catch::Contains("did you mean '--model'?"));
    CHECK_THAT(locate_error({"--zzzzzzzz"}), Catch::Contains("see 'gpuadvise --help'"));
    CHECK_THAT(locate_error({"estimate", "--top", "3", "--model", "8B"}),
               Catch::Contains("--top is not an option of 'gpuadvise estimate'") &&
                   Catch::Contains("belongs to gpuadvise"));
    CHECK_THAT(locate_error({"models", "--model", "8B"}),
               Catch::Contains("not an option of 'gpuadvise models'"));
    // A toggle's negative form is an option of the same field.
    CHECK(locate_error({"--model", "8B", "--method", "full", "--no-grad-ckpt"}).empty());
    // Short switches may be clustered; a value flag may not hide in a cluster.
    CHECK(locate_error({"--model", "8B", "-vv"}).empty());
    CHECK_FALSE(locate_error({"--model", "8B", "-vm"}).empty());
    // A negative number is a value, not an option.
    CHECK(locate_error({"--model", "8B", "--batch", "-1"}).empty());
}

TEST_CASE(
    "flags: values, toggles, switches and counts reach the request with their flag as origin") {
    const ParsedArgs p = parse_args(locate_args(
        {"--model=8B", "--method", "full", "--no-grad-ckpt", "--json", "-vv", "--batch", "4"}));
    REQUIRE(p.request.get(Field::Model));
    CHECK(p.request.get(Field::Model)->text == "8B");
    CHECK(p.request.get(Field::Model)->origin == "--model");
    CHECK(p.request.get(Field::GradCkpt)->text == "false");
    CHECK(p.request.get(Field::GradCkpt)->origin == "--no-grad-ckpt");
    CHECK(p.request.flag(Field::Json) == true);
    CHECK(p.request.get(Field::Verbose)->text == "2");
    CHECK(p.request.get(Field::Batch)->text == "4");
    CHECK_FALSE(p.request.has(Field::Seq));
    // A value option given twice with two values is refused (one would win
    // silently); the same value twice is harmless.
    CHECK_THROWS_WITH(parse_args(locate_args({"--model", "1B", "--model", "8B"})),
                      Catch::Contains("--model is given twice ('1B' and '8B')"));
    CHECK(parse_args(locate_args({"--model", "8B", "--model", "8B"}))
              .request.get(Field::Model)
              ->text == "8B");
    // Both forms of a toggle together are a contradiction.
    CHECK_THROWS_AS(parse_args(locate_args({"--model", "8B", "--grad-ckpt", "--no-grad-ckpt"})),
                    InputError);
    // A value flag at the end, without its value.
    CHECK_THROWS_AS(parse_args(locate_args({"--model"})), InputError);
}

TEST_CASE("flags: registering only the present options equals registering all of them") {
    const std::vector<std::vector<std::string>> cases{
        {"--model", "8B"},
        {"--model", "8B", "--method", "qlora", "--top", "3", "--json"},
        {"--model=70B", "--quant", "q4_k_m", "--gpus", "2", "--rank-by", "price"},
        {"--model", "8B", "--method", "full", "--grad-ckpt", "--seq", "4096", "-v"},
        {"--model", "8B", "--method", "full", "--no-flash-attn", "--optimizer", "adamw-8bit"},
        {"estimate", "--model", "8B", "--gpu", "rtx-4090", "--format", "csv"},
        {"check", "--gpu", "h100", "--model", "8B"},
        {"check", "--model", "8B"},  // --gpu is required: the same error both ways
        {"compare", "rtx-4090", "rtx-3090", "--model", "8B"},
        {"gpus", "--vendor", "amd", "--min-memory", "24GB", "--sort", "bandwidth"},
        {"gpus", "show", "h100", "--json"},
        {"models", "--json"},
        {"rules"},
        {"batch", "-"},
        {"completion", "bash"},
        {"completion"},              // a required positional missing
        {"gpus", "show", "a", "b"},  // one positional too many
        {"--model", "8B", "stray"},  // the main command takes no positional
        {"--model", "8B", "--batch"},
        {"--model", "8B", "--", "--batch", "4"},
    };
    for (const auto& args : cases) {
        std::string shown;
        for (const auto& a : args) shown += " " + a;
        INFO("gpuadvise" << shown);
        const Invocation inv = locate_args(args);
        CHECK(outcome(inv, Registration::Present) == outcome(inv, Registration::All));
    }
}
