// The text output at the widths people's terminals have: every line of the
// ranking (and what surrounds it) within COLUMNS at 80, 100 and 120, the
// memory bars' key only when the bars are shown; --wide prints the table
// whole, and a pipe without COLUMNS does too.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "gpuadvise/text.hpp"
#include "support/run_gpuadvise.hpp"

namespace {

std::size_t widest_line(const std::string& text) {
    std::size_t widest = 0, start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        widest = std::max(
            widest, gpuadvise::display_width(std::string_view(text).substr(start, end - start)));
        start = end + 1;
    }
    return widest;
}

// Serving (Engine, $/Mtok), training (Job $), images, a cluster, and compare
// with the chart.
const std::vector<std::vector<std::string>> kQuestions = {
    {"--model", "llama-3.1-70b", "--quant", "awq-int4"},
    {"--model", "llama-3.1-8b", "--method", "full", "--tokens", "1B"},
    {"--model", "sdxl"},
    {"--model", "70B", "--method", "full", "--max-gpus", "64", "--tokens", "1T"},
    {"compare", "rtx-4090", "rtx-3090", "h100-pcie", "mi300x", "--model", "llama-3.1-8b", "--plot"},
    {"gpus"},
};

}  // namespace

TEST_CASE("text output fits 80, 100 and 120 columns, and --wide or a pipe print whole", "[width]") {
    for (const auto& args : kQuestions) {
        std::size_t narrowest = 0;
        for (const std::size_t width : {80u, 100u, 120u}) {
            gpuadvise_test::Options o;
            o.env = {"COLUMNS=" + std::to_string(width), "LC_ALL=C.UTF-8"};
            const auto r = gpuadvise_test::run(args, o);
            INFO(gpuadvise_test::joined(args) << " at " << width << "\n" << r.out << r.err);
            REQUIRE(r.exit_code == 0);
            CHECK(widest_line(r.out) <= width);
            if (width == 80) narrowest = widest_line(r.out);
        }
        gpuadvise_test::Options o;
        o.env = {"COLUMNS=80", "LC_ALL=C.UTF-8"};
        std::vector<std::string> wide = args;
        wide.emplace_back("--wide");
        const auto whole = gpuadvise_test::run(wide, o);
        const auto piped = gpuadvise_test::run(args, {});
        INFO(gpuadvise_test::joined(wide));
        REQUIRE(whole.exit_code == 0);
        // The ranking is wider than 80 columns when nothing is left out.
        CHECK(widest_line(whole.out) > narrowest);
        CHECK(whole.out == piped.out);
    }
}
