#pragma once
// Shell completions (bash, zsh, fish) and the man page, generated from the
// command table and the field table, so they cannot fall behind the flags;
// the README's flag table likewise.
#include <string>

namespace gpuadvise::cli {

std::string completion_script(const std::string& shell);
std::string man_page();
// The flags as one Markdown table (README.md's flag reference; the readme_flags
// test checks that the README holds exactly this).
std::string flags_markdown();

}  // namespace gpuadvise::cli
