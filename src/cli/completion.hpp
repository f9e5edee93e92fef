#pragma once
// Shell completions (bash, zsh, fish) and the man page, generated from the
// CLI11 definition itself so they cannot fall behind the flags.
#include <string>

namespace CLI {
class App;
}

namespace gpuadvise::cli {

std::string completion_script(const CLI::App& app, const std::string& shell);
std::string man_page(const CLI::App& app);

}  // namespace gpuadvise::cli
