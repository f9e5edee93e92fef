#pragma once
// `--emit`: the launch command or config file for a plan, from the same
// numbers the plan was judged on (cards, strategy, context, batch, memory
// share). Each template's flags and their sources are in docs/launch.md.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuadvise/enum_table.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class LaunchKind : std::uint8_t {
    Auto,
    Vllm,
    Sglang,
    TrtllmServe,
    LlamaServer,
    Ollama,
    MlxLm,
    Accelerate,
    Deepspeed,
    Torchrun,
    Axolotl,
    Torchtune,
    Megatron,
    Slurm,
    Torchtitan,
    Nemo
};
inline constexpr auto kLaunchKinds = make_enum_table<LaunchKind>({
    {LaunchKind::Auto, "auto"},
    {LaunchKind::Vllm, "vllm"},
    {LaunchKind::Sglang, "sglang"},
    {LaunchKind::TrtllmServe, "trtllm-serve"},
    {LaunchKind::LlamaServer, "llama-server"},
    {LaunchKind::LlamaServer, "llama.cpp", true},
    {LaunchKind::Ollama, "ollama"},
    {LaunchKind::MlxLm, "mlx-lm"},
    {LaunchKind::MlxLm, "mlx", true},
    {LaunchKind::Accelerate, "accelerate"},
    {LaunchKind::Deepspeed, "deepspeed"},
    {LaunchKind::Torchrun, "torchrun"},
    {LaunchKind::Axolotl, "axolotl"},
    {LaunchKind::Torchtune, "torchtune"},
    {LaunchKind::Megatron, "megatron"},
    {LaunchKind::Slurm, "slurm"},
    {LaunchKind::Torchtitan, "torchtitan"},
    {LaunchKind::Nemo, "nemo"},
});

// One word of a command line. `expands` marks our own text that refers to
// a shell variable the user sets ("$MASTER_ADDR:29500"): it is written in
// double quotes so the shell expands it; every other word is quoted as a
// literal (quoting.hpp), whatever bytes it holds.
struct Word {
    std::string text;
    bool expands = false;
};

// One command: environment assignments, then the program and its
// arguments, each one argument; `then` joins it to the next command ("&&",
// "&"; "" for the last).
struct ShellCommand {
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<Word> argv;
    std::string_view then;
};

// The file format of a launch's config, for the reader that parses it back.
enum class ConfigFormat : std::uint8_t { None, Yaml, Toml, Json, Modelfile, Shell, Python };

struct Launch {
    LaunchKind kind = LaunchKind::Auto;
    std::string tool;                    // "vllm serve", "accelerate launch"
    std::vector<ShellCommand> commands;  // what `command` says, one argument per word
    std::string command;                 // the shell command line, quoted (render_commands)
    std::string config;                  // a config file's text, when the tool takes one
    std::string config_name;             // its file name ("ds_config.json"); "" when none
    ConfigFormat config_format = ConfigFormat::None;
    std::vector<std::string> notes;  // what the user must fill in or check
};

// The command line a POSIX shell splits back into `commands`: each word
// quoted by shell_word (or in double quotes when it expands), each
// assignment NAME=value, the commands joined by their `then`.
std::string render_commands(std::span<const ShellCommand> commands);

// The launch for `rec` (a plan of `w`). `Auto` picks the plan's engine for
// inference and accelerate (full fine-tune) or axolotl (LoRA, QLoRA) for
// training. Throws InputError naming `what` when `kind` cannot run the plan
// (vllm for a training job, axolotl for inference, a server whose program
// does not run on the plan's card or does not load the model's files), or
// when the model's path holds bytes the config's format cannot (a path that
// is not UTF-8 in a YAML file).
Launch make_launch(const Workload& w, const Recommendation& rec, LaunchKind kind,
                   std::string_view what);

}  // namespace gpuadvise
