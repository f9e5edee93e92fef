#pragma once
// The one way end-to-end tests run the binary under test (GPUADVISE_BIN: this
// build's, or $GPUADVISE_TEST_BIN): `run` returns what it printed, `run_json`
// adds --json, requires the exit code and parses stdout.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/run_process.hpp"

namespace gpuadvise_test {

struct Options {
    std::vector<std::string> env;  // NAME=value for the child
    std::string cwd;               // the folder it starts in ("" = this one)
    std::string stdin_text;
    double timeout_seconds = 20;
};

inline Options in_folder(std::string cwd) {
    Options o;
    o.cwd = std::move(cwd);
    return o;
}

inline std::string joined(const std::vector<std::string>& args) {
    std::string out = "gpuadvise";
    for (const auto& a : args) out += " " + a;
    return out;
}

// How many of a test's combinations of workloads and cards run: all of them,
// or with GPUADVISE_TEST_SAMPLE=N one in N. scripts/test.sh samples the
// sanitizer build's run (its binary is about ten times slower) and runs
// every combination against the release binary. The i-th workload on the
// j-th card runs when (i + j) % N == 0, so every workload and every card
// still runs under the sanitizers.
inline std::size_t sample_every() {
    const char* text = std::getenv("GPUADVISE_TEST_SAMPLE");
    if (text == nullptr || *text == '\0') return 1;
    const long n = std::strtol(text, nullptr, 10);
    return n > 1 ? static_cast<std::size_t>(n) : 1;
}
inline bool sampled(std::size_t workload, std::size_t card = 0) {
    return (workload + card) % sample_every() == 0;
}

inline ProcessResult run(std::vector<std::string> args, const Options& o = {}) {
    args.insert(args.begin(), GPUADVISE_BIN);
    return run_process(args, o.stdin_text, o.env, o.timeout_seconds, Stdout::Pipe, o.cwd);
}

// --json appended; the exit code must be one of `codes`.
inline nlohmann::json run_json(std::vector<std::string> args, const std::set<int>& codes = {0},
                               const Options& o = {}) {
    args.emplace_back("--json");
    const ProcessResult r = run(args, o);
    INFO(joined(args) << "\nexit " << r.exit_code << "\nstderr: " << r.err);
    REQUIRE(codes.count(r.exit_code) == 1);
    REQUIRE_FALSE(r.out.empty());
    nlohmann::json doc;
    REQUIRE_NOTHROW(doc = nlohmann::json::parse(r.out));
    return doc;
}

}  // namespace gpuadvise_test
