#pragma once
// The command table (as ninja's kTools): every subcommand once, with the
// field groups it takes, its positional arguments and its handler. Parsing,
// --help, completions, the man page and dispatch all read it.
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/io.hpp"
#include "cli/settings.hpp"
#include "gpuadvise/calibration.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/fields.hpp"
#include "gpuadvise/table.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::cli {

inline constexpr int kExitOk = 0;        // answered (also when nothing fits)
inline constexpr int kExitNo = 1;        // a yes/no command answered no (check: does not fit)
inline constexpr int kExitInput = 2;     // bad usage or input
inline constexpr int kExitOutput = 3;    // the answer could not be written (stdout closed or full)
inline constexpr int kExitInternal = 4;  // a bug: reported as one line, never a crash

struct Context;

struct Positional {
    std::string_view name;
    std::string_view help;
    bool required = false;
    bool many = false;
    std::vector<std::string> (*choices)() = nullptr;
};

struct Command {
    std::string_view name;  // "estimate", "gpus show"; "" is the main command
    std::string_view help;
    std::uint16_t groups = 0;         // the field groups it takes (fields.hpp)
    std::span<const Field> extra;     // fields beyond those groups
    std::span<const Field> required;  // fields it cannot do without
    std::span<const Positional> positionals;
    bool hidden = false;  // left out of --help and completions (man)
    int (*run)(Context&) = nullptr;
};

std::span<const Command> commands();
const Command& main_command();
// The fields `command` takes, in table order.
std::vector<Field> accepted_fields(const Command& command);
bool accepts(const Command& command, Field field);

// What a handler works with.
struct Context {
    Context(const Command& c, Request r, std::vector<std::vector<std::string>> p,
            std::istream& input, std::ostream& output, std::ostream& errors, Getenv env)
        : command(c),
          request(std::move(r)),
          positionals(std::move(p)),
          in{input, {}},
          out(output),
          err(errors),
          getenv(env) {}

    const Command& command;
    Request request;
    std::vector<std::vector<std::string>> positionals;  // one list per Positional of the command
    Stdin in;
    std::ostream& out;
    std::ostream& err;
    Getenv getenv;
    Config config;
    // The measured runs estimates are corrected with (--calibration, or the
    // config folder's calibration.jsonl when it exists).
    std::optional<Calibration> calibration;
    // What resolve read for the model flags, kept for the probes that
    // resolve the request again (suggestions): stdin is read only once.
    std::optional<ModelInputs> inputs;
    Format format = Format::Table;
    Style style;
    int verbosity = 0;
    bool fast_exit = false;  // the real binary: exit without freeing once the answer is out

    bool json() const { return format == Format::Json; }
    // Cards made for this run (--vram on a catalog card, or a card of that size).
    std::deque<Gpu> made_gpus;
    // The catalog: embedded, or --catalog / --catalog-merge, with config prices.
    const Catalog& catalog();
    // Writes the answer, flushes and checks it reached the stream (throws
    // OutputError otherwise); returns `code`, or exits with it at once in the
    // real binary, skipping the destructors that would only free memory.
    int emit(const std::string& text, int code);

  private:
    std::optional<Catalog> catalog_;  // a user's catalog, or the embedded one with local prices
    const Catalog* catalog_view_ = nullptr;
};

}  // namespace gpuadvise::cli
