#pragma once
// The command line: parses flags with CLI11, reads files, calls the core and
// prints. The single catch that turns errors into one stderr line and exit
// code 2 lives in run().
#include <iosfwd>

namespace gpuadvise::cli {

inline constexpr int kExitOk = 0;        // answered (also when nothing fits)
inline constexpr int kExitNo = 1;        // a yes/no command answered no (check: does not fit)
inline constexpr int kExitInput = 2;     // bad usage or input

int run(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace gpuadvise::cli
