#include "cli/flags.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <array>
#include <memory>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise::cli {
namespace {

constexpr const char* kExitCodesHelp =
    "Exit codes: 0 answered (also when nothing fits), 1 a yes/no command answered no (check: does "
    "not fit),\n"
    "2 bad usage or input (one line on stderr says which value and how to fix it), 3 the answer "
    "could not be\n"
    "written (stdout closed or full), 4 an internal error (a bug; please report it).";

bool is_help(std::string_view t) {
    return t == "-h" || t == "--help";
}
bool is_version(std::string_view t) {
    return t == "-V" || t == "--version";
}

// The field a long or short option names, if any.
const FieldSpec* by_flag(std::string_view name) {
    for (const FieldSpec& s : field_specs()) {
        if (s.flag == name || (!s.short_flag.empty() && s.short_flag == name)) return &s;
        if (s.kind == FieldKind::Toggle && s.negative_flag() == name) return &s;
    }
    return nullptr;
}

const Command* command_named(std::string_view name) {
    for (const Command& c : commands())
        if (!c.name.empty() && c.name == name) return &c;
    return nullptr;
}

std::string command_label(const Command& c) {
    return c.name.empty() ? "gpuadvise" : fmt::format("gpuadvise {}", c.name);
}

[[noreturn]] void unknown_option(std::string_view token, const Command& command) {
    std::vector<std::string> flags;
    for (const Field f : accepted_fields(command)) {
        flags.emplace_back(spec(f).flag);
        if (spec(f).kind == FieldKind::Toggle) flags.push_back(spec(f).negative_flag());
    }
    const auto near = closest_name(token, flags, 2);
    throw InputError(fmt::format("unknown option {} for '{}'{}", quote(token),
                                 command_label(command),
                                 near ? fmt::format("; did you mean '{}'?", *near)
                                      : fmt::format(" (see '{} --help')", command_label(command))));
}

}  // namespace

Invocation locate(int argc, char** argv) {
    Invocation inv;
    std::vector<std::string> tokens(argv + 1, argv + argc);
    // The command is the first word that is not an option or an option's
    // value; options may come before it ("gpuadvise --json estimate ...").
    const Command* command = &main_command();
    std::vector<std::size_t> command_words;
    bool options_done = false;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string& t = tokens[i];
        if (t == "--") break;
        if (t.size() > 1 && t[0] == '-' && !options_done) {
            const std::string name = t.substr(0, t.find('='));
            const FieldSpec* s = by_flag(name);
            if (s && s->kind == FieldKind::Value && t.find('=') == std::string::npos)
                ++i;  // its value
            continue;
        }
        if (command_words.empty() && command == &main_command()) {
            if (const Command* c = command_named(t)) {
                command = c;
                command_words.push_back(i);
                continue;
            }
            break;  // a positional of the main command: CLI11 reports it
        }
        // "gpus show": a command with a second word.
        if (command_words.size() == 1) {
            if (const Command* c = command_named(fmt::format("{} {}", command->name, t))) {
                command = c;
                command_words.push_back(i);
            }
        }
        break;
    }
    inv.command = command;
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (std::find(command_words.begin(), command_words.end(), i) == command_words.end())
            inv.args.push_back(tokens[i]);
    // Every option must be one of this command's.
    for (std::size_t i = 0; i < inv.args.size(); ++i) {
        const std::string& t = inv.args[i];
        if (t == "--") break;
        if (is_help(t)) inv.help = true;
        if (is_version(t) && command == &main_command()) inv.version = true;
        if (t.size() < 2 || t[0] != '-' || is_help(t) || is_version(t)) continue;
        if (t[1] >= '0' && t[1] <= '9') continue;  // a negative number, as a value
        const std::string name = t.substr(0, t.find('='));
        const FieldSpec* s = by_flag(name);
        if (s == nullptr && t[1] != '-' && t.size() > 2) {
            // A cluster of short switches: -vv.
            bool all = true;
            for (std::size_t k = 1; k < t.size(); ++k) {
                const FieldSpec* one = by_flag(std::string("-") + t[k]);
                all = all && one && one->kind != FieldKind::Value && accepts(*command, one->field);
            }
            if (all) continue;
        }
        if (s == nullptr) unknown_option(name, *command);
        if (!accepts(*command, s->field)) {
            std::string owners;
            for (const Command& c : commands())
                if (!c.hidden && accepts(c, s->field))
                    owners += (owners.empty() ? "" : ", ") + command_label(c);
            throw InputError(
                fmt::format("{} is not an option of '{}'{}", name, command_label(*command),
                            owners.empty() ? "" : fmt::format("; it belongs to {}", owners)));
        }
        if (s->kind == FieldKind::Value && t.find('=') == std::string::npos) ++i;
    }
    return inv;
}

ParsedArgs parse_args(const Invocation& inv, Registration registration) {
    const Command& command = *inv.command;
    CLI::App app{std::string(command.help), command_label(command)};
    app.set_help_flag();  // help is ours (help_text), never CLI11's
    // Which fields appear: only those are registered.
    std::vector<bool> present(kFieldCount, registration == Registration::All);
    for (const std::string& t : inv.args) {
        if (t == "--") break;
        if (t.size() < 2 || t[0] != '-') continue;
        if (const FieldSpec* s = by_flag(t.substr(0, t.find('='))))
            present[static_cast<std::size_t>(s->field)] = true;
        if (t[1] != '-')
            for (std::size_t k = 1; k < t.size(); ++k)
                if (const FieldSpec* s = by_flag(std::string("-") + t[k]))
                    present[static_cast<std::size_t>(s->field)] = true;
    }
    for (const Field f : command.required) present[static_cast<std::size_t>(f)] = true;
    struct Bound {
        Field field;
        CLI::Option* on = nullptr;
        CLI::Option* off = nullptr;
    };
    std::vector<Bound> bound;
    std::array<std::string, kFieldCount> values;
    std::array<int, kFieldCount> counts{};
    for (const Field f : accepted_fields(command)) {
        if (!present[static_cast<std::size_t>(f)]) continue;
        const FieldSpec& s = spec(f);
        const std::size_t i = static_cast<std::size_t>(f);
        const std::string names =
            s.short_flag.empty() ? std::string(s.flag) : fmt::format("{},{}", s.short_flag, s.flag);
        Bound b{f};
        switch (s.kind) {
            case FieldKind::Value:
                // Every occurrence is kept, so a flag given twice with two
                // values is refused below rather than one silently winning.
                b.on = app.add_option(names, values[i])
                           ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
                break;
            case FieldKind::Switch:  // a count, read as given or not
            case FieldKind::Count:
                b.on = app.add_flag(names, counts[i]);
                break;
            case FieldKind::Toggle:
                b.on = app.add_flag(names);
                b.off = app.add_flag(s.negative_flag());
                b.on->excludes(b.off);
                break;
        }
        if (std::find(command.required.begin(), command.required.end(), f) !=
            command.required.end())
            b.on->required();
        bound.push_back(b);
    }
    ParsedArgs out;
    out.positionals.resize(command.positionals.size());
    for (std::size_t k = 0; k < command.positionals.size(); ++k) {
        const Positional& p = command.positionals[k];
        CLI::Option* o = p.many
                             ? app.add_option(std::string(p.name), out.positionals[k])
                             : app.add_option(std::string(p.name), out.positionals[k])->expected(1);
        if (p.required) o->required();
    }
    std::vector<std::string> reversed(inv.args.rbegin(), inv.args.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        std::string message = e.what();
        for (char& c : message)
            if (c == '\n') c = ' ';
        throw InputError(fmt::format("{} (see '{} --help')", sanitize(trim(message), 300),
                                     command_label(command)));
    }
    for (const Bound& b : bound) {
        const FieldSpec& s = spec(b.field);
        const std::size_t i = static_cast<std::size_t>(b.field);
        switch (s.kind) {
            case FieldKind::Value: {
                if (b.on->count() == 0) break;
                // results() holds every occurrence in order; the same value
                // twice is harmless.
                const auto& all = b.on->results();
                for (const std::string& other : all)
                    if (other != values[i])
                        throw InputError(fmt::format("{} is given twice ({} and {}); give it once",
                                                     s.flag, quote(all.front()),
                                                     quote(all.back())));
                out.request.set(b.field, values[i], std::string(s.flag));
                break;
            }
            case FieldKind::Switch:
                if (counts[i] > 0) out.request.set(b.field, "true", std::string(s.flag));
                break;
            case FieldKind::Count:
                if (counts[i] > 0)
                    out.request.set(b.field, std::to_string(counts[i]), std::string(s.flag));
                break;
            case FieldKind::Toggle:
                if (b.on->count() > 0)
                    out.request.set(b.field, "true", std::string(s.flag));
                else if (b.off->count() > 0)
                    out.request.set(b.field, "false", s.negative_flag());
                break;
        }
    }
    return out;
}

std::string help_text(const Command& command) {
    std::string out =
        fmt::format("{}\n\nUsage: {} [OPTIONS]", command.help, command_label(command));
    for (const Positional& p : command.positionals)
        out += p.required ? fmt::format(" {}{}", p.name, p.many ? "..." : "")
                          : fmt::format(" [{}]", p.name);
    out += "\n";
    if (command.name.empty()) {
        out += "\nCommands:\n";
        for (const Command& c : commands())
            if (!c.name.empty() && !c.hidden) out += fmt::format("  {:<12}  {}\n", c.name, c.help);
    }
    if (!command.positionals.empty()) {
        out += "\nArguments:\n";
        for (const Positional& p : command.positionals)
            out += fmt::format("  {:<28}  {}\n", p.name, p.help);
    }
    static constexpr std::pair<std::uint16_t, const char*> kSections[] = {
        {kModelGroup, "The model"},       {kGpuGroup, "The card"},
        {kWorkloadGroup, "The workload"}, {kJobGroup, "Time and cost"},
        {kHostGroup, "The host"},         {kRankGroup, "Ranking"},
        {kFilterGroup, "Filters"},        {kFitGroup, "Which models"},
        {kOutputGroup, "Output"},         {kCatalogGroup, "The catalog"}};
    const auto fields = accepted_fields(command);
    for (const auto& [group, title] : kSections) {
        std::string section;
        for (const Field f : fields) {
            const FieldSpec& s = spec(f);
            if ((s.group & group) == 0) continue;
            std::string names = s.short_flag.empty() ? std::string(s.flag)
                                                     : fmt::format("{}, {}", s.short_flag, s.flag);
            if (s.kind == FieldKind::Toggle) names += fmt::format(", {}", s.negative_flag());
            if (!s.value_name.empty()) names += " " + std::string(s.value_name);
            section += fmt::format("  {:<28}  {}\n", names, s.help_text());
        }
        if (!section.empty()) out += fmt::format("\n{}:\n{}", title, section);
    }
    out += fmt::format("\n  {:<28}  {}\n", "-h, --help", "Print this help and exit");
    if (command.name.empty())
        out += fmt::format("  {:<28}  {}\n", "-V, --version", "Print the version and exit");
    if (command.name.empty())
        out +=
            "\nExamples:\n  gpuadvise --model 8B --method qlora\n"
            "  gpuadvise --model llama-3.1-70b --quant int4 --json\n"
            "  gpuadvise check --gpu rtx-4090 --model 8B --method lora\n";
    return out + "\n" + kExitCodesHelp + "\n";
}

}  // namespace gpuadvise::cli
