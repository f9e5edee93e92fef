#include <unistd.h>

#include <iostream>

#include "cli/run.hpp"
#include "cli/terminal.hpp"

int main(int argc, char** argv) {
    return gpuadvise::cli::run(
        argc, argv, std::cin, std::cout, std::cerr,
        {nullptr, isatty(STDOUT_FILENO) != 0, true, gpuadvise::cli::stdout_terminal_width()});
}
