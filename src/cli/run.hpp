#pragma once
// The command line's entry point: locates the command in the command table,
// parses its flags, folds in the settings, sets up output and logging,
// dispatches, and holds the single catch that turns a typed error into one
// stderr line and its exit code.
#include <cstddef>
#include <iosfwd>

#include "cli/settings.hpp"

namespace gpuadvise::cli {

struct RunOptions {
    Getenv getenv = nullptr;          // nullptr: std::getenv
    bool stdout_is_terminal = false;  // colour and table width follow it
    bool fast_exit = false;           // the real binary: std::_Exit once the answer is written
    std::size_t terminal_width = 0;   // the terminal's columns (0: unknown or not a terminal)
};

int run(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err,
        const RunOptions& options = {});

}  // namespace gpuadvise::cli
