#include "cli/run.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <cstdlib>
#include <istream>
#include <ostream>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/terminal.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"

#ifndef GPUADVISE_VERSION
#define GPUADVISE_VERSION "0.0.0"
#endif

namespace gpuadvise::cli {
namespace {

const char* system_getenv(const char* name) {
    return std::getenv(name);
}

void setup_logging(std::ostream& err, int verbosity) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err);
    auto logger = std::make_shared<spdlog::logger>("gpuadvise", sink);
    logger->set_pattern("gpuadvise: %l: %v");
    logger->set_level(verbosity >= 2   ? spdlog::level::debug
                      : verbosity == 1 ? spdlog::level::info
                                       : spdlog::level::warn);
    spdlog::set_default_logger(logger);
}

// The contract is one line: whatever an exception carries is made one line.
std::string one_line(std::string_view s) {
    std::string out = sanitize(s, 2000);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

int dispatch(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err,
             const RunOptions& options) {
    const Getenv getenv = options.getenv ? options.getenv : system_getenv;
    const Invocation inv = locate(argc, argv);
    if (inv.help) {
        out << help_text(*inv.command);
        out.flush();
        return out ? kExitOk : kExitOutput;
    }
    if (inv.version) {
        out << "gpuadvise " << GPUADVISE_VERSION << " (catalog " << embedded::catalog().date
            << ")\n";
        out.flush();
        return out ? kExitOk : kExitOutput;
    }
    ParsedArgs parsed = parse_args(inv);
    Context ctx(*inv.command, std::move(parsed.request), std::move(parsed.positionals), in, out,
                err, getenv);
    ctx.fast_exit = options.fast_exit;
    if (const auto& v = ctx.request.get(Field::Verbose)) ctx.verbosity = std::atoi(v->text.c_str());
    setup_logging(err, ctx.verbosity);
    // Settings: only for the fields this command takes.
    const std::vector<Field> fields = accepted_fields(*inv.command);
    const bool needs_config =
        std::any_of(fields.begin(), fields.end(), [](Field f) { return spec(f).setting; }) ||
        accepts(*inv.command, Field::Catalog);
    if (needs_config) {
        ctx.config = load_config(getenv, ctx.in);
        apply_settings(ctx.request, fields, ctx.config, getenv, &ctx.config.applied);
        for (const auto& line : ctx.config.applied) spdlog::info("setting {}", line);
    }
    const Output o =
        resolve_output(ctx.request, options.stdout_is_terminal, options.terminal_width, getenv);
    // The page draws a ranking's chart: only the commands that rank (those
    // that take --plot) have one.
    if (o.format == Format::Html && !accepts(*inv.command, Field::Plot)) {
        const Given& f = *ctx.request.get(Field::Format);
        throw InputError(
            fmt::format("{} html: the page charts a ranking, and '{}' ranks nothing; use html with "
                        "'gpuadvise' or 'gpuadvise compare', or give --format markdown",
                        f.origin,
                        inv.command->name.empty() ? "gpuadvise"
                                                  : "gpuadvise " + std::string(inv.command->name)));
    }
    ctx.format = o.format;
    ctx.style = o.style;
    return inv.command->run(ctx);
}

}  // namespace

int run(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err,
        const RunOptions& options) {
    try {
        return dispatch(argc, argv, in, out, err, options);
    } catch (const InputError& e) {
        err << "gpuadvise: " << one_line(e.what()) << '\n';
        return kExitInput;
    } catch (const OutputError& e) {
        err << "gpuadvise: " << one_line(e.message) << '\n';
        return kExitOutput;
    } catch (const std::bad_alloc&) {
        err << "gpuadvise: out of memory (an input far larger than gpuadvise's documented "
               "limits?)\n";
        return kExitInternal;
    } catch (const std::exception& e) {
        // Not expected: a bug. Still one line and a distinct exit code, never a crash.
        err << "gpuadvise: internal error: " << one_line(e.what()) << " (please report it)\n";
        return kExitInternal;
    }
}

}  // namespace gpuadvise::cli
