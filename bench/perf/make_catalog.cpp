// Writes a synthetic catalog of N entries to stdout (bench/perf/scale_bench.sh).
//   gpuadvise_make_catalog N > catalog.json
#include <cstdlib>
#include <iostream>

#include "synthetic.hpp"

int main(int argc, char** argv) {
    const long n = argc == 2 ? std::strtol(argv[1], nullptr, 10) : 0;
    if (n < 1 || n > 10'000'000) {
        std::cerr << "usage: gpuadvise_make_catalog N (1 to 10,000,000 entries)\n";
        return 2;
    }
    std::cout << bench::synthetic_catalog(static_cast<std::size_t>(n)) << "\n";
    return std::cout ? 0 : 1;
}
