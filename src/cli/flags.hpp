#pragma once
// From argv to a command and a Request, through CLI11, registering the
// options from the field table. Only the running command's options are built,
// and only those that appear on the command line (all of them for --help):
// CLI11 compares each new option with every earlier one, so building the
// whole tree on every run was a third of gpuadvise's start-up.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "gpuadvise/fields.hpp"

namespace gpuadvise::cli {

struct Invocation {
    const Command* command = nullptr;
    std::vector<std::string> args;  // the command's own arguments, command words removed
    bool help = false;
    bool version = false;
};

// Finds the command and checks every option against the table: an unknown
// option gets a did-you-mean, an option of another command says whose it is.
Invocation locate(int argc, char** argv);

struct ParsedArgs {
    Request request;
    std::vector<std::vector<std::string>> positionals;
};

// Which of the command's options CLI11 is given: those on the command line
// (the fast path every run takes) or all of them (what the tests compare it
// with: both must give the same request or the same error).
enum class Registration : std::uint8_t { Present, All };

// Parses `inv.args` with CLI11; throws InputError with CLI11's message.
ParsedArgs parse_args(const Invocation& inv, Registration registration = Registration::Present);

// --help for a command, generated from the tables.
std::string help_text(const Command& command);

}  // namespace gpuadvise::cli
