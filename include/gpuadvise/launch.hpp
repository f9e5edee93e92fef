#pragma once
// `--emit`: the launch command or config file for a plan, from the same
// numbers the plan was judged on (cards, strategy, context, batch, memory
// share). Each template's flags and their sources are in docs/launch.md.
#include <cstdint>
#include <string>
#include <string_view>
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

struct Launch {
    LaunchKind kind = LaunchKind::Auto;
    std::string_view tool;           // "vllm serve", "accelerate launch"
    std::string command;             // the shell command line
    std::string config;              // a config file's text, when the tool takes one
    std::string config_name;         // its file name ("ds_config.json"); "" when none
    std::vector<std::string> notes;  // what the user must fill in or check
};

// The launch for `rec` (a plan of `w`). `Auto` picks the plan's engine for
// inference and accelerate (full fine-tune) or axolotl (LoRA, QLoRA) for
// training. Throws InputError naming `what` when `kind` cannot run the plan
// (vllm for a training job, axolotl for inference, an engine the plan's
// card does not run).
Launch make_launch(const Workload& w, const Recommendation& rec, LaunchKind kind,
                   std::string_view what);

}  // namespace gpuadvise
