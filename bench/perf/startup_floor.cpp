// The floor for whole-process timing (bench/perf/process_bench.sh): a program
// that does no real work but is linked like gpuadvise (gpuadvise_cli and its
// libraries: libstdc++, fmt, spdlog) and does the least any gpuadvise run
// does: CLI11 parses one flag, one JSON value is written, one line printed.
// Process creation, the dynamic loader, relocations and static initialisers
// cost it what they cost gpuadvise, so "gpuadvise / floor" is the cost of
// gpuadvise's own work.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "gpuadvise/json.hpp"

int main(int argc, char** argv) {
    CLI::App app{"floor"};
    std::string model = "8B";
    app.add_option("--model", model);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    // Referenced so the linker keeps spdlog as a dependency even with
    // --as-needed; never called in a timed run.
    if (argc > 1000) spdlog::warn("{}", argc);
    std::string out;
    gpuadvise::json::Writer w(out, false);
    w.begin_object().field("floor", model).end_object();
    std::cout << out << "\n";
    return 0;
}
