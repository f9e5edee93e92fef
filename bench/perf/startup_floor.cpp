// The floor for whole-process timing (bench/perf/process_bench.sh): a program
// that does no work but is linked like gpuadvise (the same static and shared
// libraries: libstdc++, fmt, spdlog), so process creation, the dynamic loader,
// relocations and static initialisers cost it what they cost gpuadvise. It
// prints one short line through the same stream gpuadvise uses.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>

int main(int argc, char**) {
    // Referenced so the linker keeps fmt and spdlog as dependencies even with
    // --as-needed; never called in a timed run (argc is 1).
    if (argc > 1000) {
        spdlog::warn("{}", fmt::format("{}", argc));
    }
    std::cout << "floor\n";
    return 0;
}
