#pragma once
// Runs the real gpuadvise binary with arguments and optional stdin, capturing
// stdout, stderr, the exit code and the wall time. A run that takes longer
// than the limit is killed and reported as exit code -1.
#include <chrono>
#include <string>
#include <vector>

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
    double seconds = 0;
};

ProcessResult run_process(const std::vector<std::string>& args, const std::string& stdin_text = "",
                          const std::vector<std::string>& env = {}, double timeout_seconds = 10);
