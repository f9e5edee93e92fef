#pragma once
// One error type for everything a user can get wrong. The CLI catches it once
// and prints `message()` as a single stderr line with exit code 2; the core
// never prints, so every message must stand on its own and name the fix.
#include <stdexcept>
#include <string>

namespace gpuadvise {

class InputError : public std::runtime_error {
  public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace gpuadvise
