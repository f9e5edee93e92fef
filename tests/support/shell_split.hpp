#pragma once
// An oracle for emitted command lines, in-process (the fuzz harness cannot
// start a shell per input): a POSIX shell's token recognition and quote
// removal (POSIX.1-2017 XCU 2.2-2.3, 2.6.3, 2.10) for the constructs a
// quoted command may hold, and nothing more:
//   - words of unquoted characters that are not special to the shell;
//   - '...' (every byte literal);
//   - "..." holding plain characters, $NAME, ${NAME} and $(printf 'OCTAL')
//     command substitutions of \ooo escapes only;
//   - NAME=value assignments before a command;
//   - the operators &, && and ; between commands.
//   - a backslash keeping the next character outside quotes.
// Any other character that a shell would act on, unquoted ($ ` | < > ( )
// * ? [ ] { }, # or ~ at a word's start, a newline), is a failure: an emitted
// command must never hold one. The tests that can start processes check the
// same lines with /bin/sh itself.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shell_test {

struct Command {
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<std::string> argv;
    std::string then;  // "&", "&&", ";" or "" for the last
};

struct Split {
    std::vector<Command> commands;
    std::string error;  // empty when the line is within the subset
};

inline bool is_name(std::string_view s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (const char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    return true;
}

inline Split split(std::string_view line, const std::map<std::string, std::string>& vars = {}) {
    Split out;
    Command cmd;
    std::size_t i = 0;
    const auto fail = [&](std::string why) {
        out.error = why + " at byte " + std::to_string(i);
        return out;
    };
    const auto end_command = [&](std::string then) {
        cmd.then = std::move(then);
        out.commands.push_back(std::move(cmd));
        cmd = {};
    };
    while (i < line.size()) {
        const char c = line[i];
        if (c == ' ') {
            ++i;
            continue;
        }
        if (c == '&' || c == ';') {
            if (cmd.argv.empty()) return fail("an operator without a command");
            const bool both = c == '&' && i + 1 < line.size() && line[i + 1] == '&';
            i += both ? 2 : 1;
            end_command(both ? "&&" : c == '&' ? "&" : ";");
            continue;
        }
        if (c == '#' || c == '~') return fail(std::string("an unquoted '") + c + "' starts a word");
        // One word: concatenated unquoted, single- and double-quoted parts.
        std::string word;
        bool quoted = false;
        std::size_t equals = std::string::npos;  // an unquoted '=' (an assignment's)
        while (i < line.size() && line[i] != ' ' && line[i] != '&' && line[i] != ';') {
            const char d = line[i];
            if (d == '\'') {
                const std::size_t close = line.find('\'', i + 1);
                if (close == std::string_view::npos) return fail("an unclosed '");
                word.append(line.substr(i + 1, close - i - 1));
                quoted = true;
                i = close + 1;
            } else if (d == '"') {
                quoted = true;
                ++i;
                while (true) {
                    if (i >= line.size()) return fail("an unclosed \"");
                    const char e = line[i];
                    if (e == '"') {
                        ++i;
                        break;
                    }
                    if (e == '\\' || e == '`') return fail("a \\ or ` inside \"...\"");
                    if (e != '$') {
                        word += e;
                        ++i;
                        continue;
                    }
                    // $(printf '\ooo...')
                    const std::string_view sub = "$(printf '";
                    if (line.substr(i, sub.size()) == sub) {
                        i += sub.size();
                        while (i < line.size() && line[i] == '\\') {
                            if (i + 4 > line.size()) return fail("a short octal escape");
                            int v = 0;
                            for (std::size_t k = 1; k <= 3; ++k) {
                                const char o = line[i + k];
                                if (o < '0' || o > '7') return fail("a bad octal escape");
                                v = v * 8 + (o - '0');
                            }
                            word += static_cast<char>(v);
                            i += 4;
                        }
                        if (line.substr(i, 2) != "')") return fail("a command substitution");
                        i += 2;
                        continue;
                    }
                    // $NAME or ${NAME}
                    std::size_t start = i + 1, stop = start;
                    const bool braced = start < line.size() && line[start] == '{';
                    if (braced) ++start;
                    stop = start;
                    while (stop < line.size() && is_name(line.substr(start, stop - start + 1)))
                        ++stop;
                    if (stop == start) return fail("a $ that is not a variable");
                    if (braced && (stop >= line.size() || line[stop] != '}'))
                        return fail("an unclosed ${");
                    const std::string name(line.substr(start, stop - start));
                    const auto v = vars.find(name);
                    if (v == vars.end()) return fail("an unset variable " + name);
                    word += v->second;
                    i = braced ? stop + 1 : stop;
                }
            } else if (d == '\\') {
                // Outside quotes a backslash keeps the next character ('\'' in '...'\''...').
                if (i + 1 >= line.size() || line[i + 1] == '\n')
                    return fail("a backslash at the end or before a newline");
                word += line[i + 1];
                quoted = true;
                i += 2;
            } else {
                const std::string_view special = "$`|<>()*?[]{}\n\t\"'";
                if (special.find(d) != std::string_view::npos)
                    return fail(std::string("an unquoted special character '") + d + "'");
                if (d == '=' && !quoted && equals == std::string::npos) equals = word.size();
                word += d;
                ++i;
            }
        }
        // Before the program's name, NAME=value is an assignment.
        if (cmd.argv.empty() && equals != std::string::npos &&
            is_name(std::string_view(word).substr(0, equals)))
            cmd.env.emplace_back(word.substr(0, equals), word.substr(equals + 1));
        else
            cmd.argv.push_back(std::move(word));
    }
    if (!cmd.argv.empty() || !cmd.env.empty()) end_command("");
    if (!out.commands.empty() && out.commands.back().argv.empty())
        return fail("assignments without a command");
    return out;
}

}  // namespace shell_test
