#pragma once
// Runs the real gpuadvise binary with arguments and optional stdin, capturing
// stdout, stderr, the exit code and the wall time. The child starts from a
// clean slate: no GPUADVISE_* variables, no NO_COLOR, and a config folder that
// does not exist, so the user's own settings never leak into a test. A run
// that takes longer than the limit is killed and reported as exit code -1.
#include <chrono>
#include <string>
#include <vector>

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
    double seconds = 0;
};

enum class Stdout { Pipe, DevFull, Closed };

// The gpuadvise binary the end-to-end tests run: $GPUADVISE_TEST_BIN when set,
// else the one this build made.
std::string gpuadvise_test_binary();

// `cwd`: the folder the child starts in ("" = this process's).
ProcessResult run_process(const std::vector<std::string>& args, const std::string& stdin_text = "",
                          const std::vector<std::string>& env = {}, double timeout_seconds = 20,
                          Stdout stdout_mode = Stdout::Pipe, const std::string& cwd = "");
