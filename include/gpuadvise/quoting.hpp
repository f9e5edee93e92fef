#pragma once
// Quoting for the formats `--emit` writes: POSIX shell words, YAML and TOML
// strings, JSON strings and the value of an Ollama Modelfile instruction.
// Each function spells a value so that the reader of that format gives back
// exactly the same bytes: a POSIX shell splitting the command line, a YAML or
// TOML parser, a JSON parser, Ollama's Modelfile parser. Nothing that came
// from the user or a file (a model path, a catalog id) reaches a command or a
// config except through these. Generic: no gpuadvise knowledge.
//
// The printed text is also safe on a terminal: bytes a terminal would act on
// (escape sequences, carriage returns), text-direction overrides and bytes
// that are not UTF-8 never appear raw; each format writes them as its own
// escapes, so what is shown can be copied from the terminal and pasted.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuadvise {

// One word for a POSIX shell (sh, dash, bash, zsh in sh mode). A word of only
// [A-Za-z0-9_@%+=:,./-] stays bare; anything else is single-quoted, with '\''
// for a quote. Bytes that a terminal would act on or that are not UTF-8 are
// written as "$(printf '\ooo')" (POSIX printf octal escapes): the shell
// rebuilds the exact bytes, and the printed line stays plain text. A newline
// stays a newline inside the quotes (command substitution would drop it).
// A NUL byte cannot be part of an argument: it throws InputError.
std::string shell_word(std::string_view s);

// `NAME=value` for an environment assignment before a command; `name` must
// be a valid variable name (our own), the value is quoted as a word.
std::string shell_assignment(std::string_view name, std::string_view value);

// A YAML 1.2 double-quoted scalar ("..." with \", \\, \n, \xNN, \uNNNN
// escapes for everything outside printable text); nullopt when `s` is not
// valid UTF-8, which a YAML document cannot hold.
std::optional<std::string> yaml_string(std::string_view s);

// A TOML 1.0 basic string ("..." with \", \\, \n, \uNNNN escapes); nullopt
// when `s` is not valid UTF-8, which a TOML document cannot hold.
std::optional<std::string> toml_string(std::string_view s);

// A JSON string (RFC 8259); nullopt when `s` is not valid UTF-8.
std::optional<std::string> json_string(std::string_view s);

// The argument of a Modelfile instruction (FROM path) as Ollama's parser
// reads it (ollama parser/parser.go: the rest of the line, trimmed; one pair
// of "..." or """...""" removed; no escapes; characters that are not
// printable dropped): bare when it is plain, else in """...""". nullopt when
// `s` holds what the parser drops or cannot hold (control characters, a
// newline, bytes that are not UTF-8).
std::optional<std::string> modelfile_value(std::string_view s);

// True for a code point a terminal acts on or that reorders or hides text:
// C0 and C1 controls, DEL, the soft hyphen, line and paragraph separators,
// the bidirectional and zero-width format characters, the byte-order mark
// and the two non-characters U+FFFE and U+FFFF.
bool is_terminal_unsafe(std::uint32_t code_point);

}  // namespace gpuadvise
