#include "gpuadvise/launch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/error.hpp"
#include "gpuadvise/quoting.hpp"
#include "gpuadvise/text.hpp"
#include "launch_common.hpp"

namespace gpuadvise {

namespace launch_detail {

std::vector<Word> words(std::initializer_list<std::string_view> list) {
    std::vector<Word> out;
    append(out, list);
    return out;
}

void append(std::vector<Word>& argv, std::initializer_list<std::string_view> list) {
    for (const std::string_view w : list) argv.push_back({std::string(w)});
}

std::int64_t per_node(const Recommendation& rec) {
    return rec.count / std::max<std::int64_t>(rec.nodes, 1);
}

std::vector<Word> torchrun_prefix(const Recommendation& rec) {
    if (rec.nodes > 1) {
        std::vector<Word> argv =
            words({"torchrun", "--nnodes", std::to_string(rec.nodes), "--nproc-per-node",
                   std::to_string(per_node(rec)), "--rdzv-backend", "c10d", "--rdzv-endpoint"});
        argv.push_back({"$MASTER_ADDR:29500", true});
        return argv;
    }
    return words({"torchrun", "--standalone", "--nproc-per-node", std::to_string(rec.count)});
}

std::string path_argument(std::string_view path) {
    if (starts_with(path, "-")) return "./" + std::string(path);
    return std::string(path);
}

std::string config_string(ConfigFormat format, std::string_view value, std::string_view what,
                          std::string_view tool, std::string_view role) {
    std::optional<std::string> s;
    std::string_view name = "the config";
    switch (format) {
        case ConfigFormat::Yaml:
            s = yaml_string(value);
            name = "a YAML file";
            break;
        case ConfigFormat::Toml:
            s = toml_string(value);
            name = "a TOML file";
            break;
        case ConfigFormat::Json:
            s = json_string(value);
            name = "a JSON file";
            break;
        case ConfigFormat::Modelfile:
            s = modelfile_value(value);
            name =
                "an Ollama Modelfile (its parser drops control characters and ends a value at "
                "the line's end)";
            break;
        default:
            break;
    }
    if (!s)
        throw InputError(fmt::format(
            "{} {}: {} {} holds bytes that {} cannot hold ({}); rename it, or emit a shell "
            "command (--emit vllm, llama-server)",
            what, tool, role, quote(value), name,
            valid_utf8(value) ? "control characters" : "not UTF-8"));
    return *s;
}

bool serves(LaunchKind k) {
    return k == LaunchKind::Vllm || k == LaunchKind::Sglang || k == LaunchKind::TrtllmServe ||
           k == LaunchKind::LlamaServer || k == LaunchKind::Ollama || k == LaunchKind::MlxLm;
}

}  // namespace launch_detail

using namespace launch_detail;

std::string render_commands(std::span<const ShellCommand> commands) {
    std::string out;
    for (const ShellCommand& c : commands) {
        if (!out.empty()) out += ' ';
        for (const auto& [name, value] : c.env) out += shell_assignment(name, value) + ' ';
        bool first = true;
        for (const Word& w : c.argv) {
            if (!first) out += ' ';
            first = false;
            // An expanding word is our own text: no quote, backslash or
            // backquote in it can end the double quotes early.
            out += w.expands ? "\"" + w.text + "\"" : shell_word(w.text);
        }
        if (!c.then.empty()) out += fmt::format(" {}", c.then);
    }
    return out;
}

Launch make_launch(const Workload& w, const Recommendation& rec, LaunchKind kind,
                   std::string_view what) {
    if (w.is_fixed())
        throw InputError(fmt::format("{}: a --task requirement has no model to launch", what));
    if (w.is_image())
        throw InputError(fmt::format(
            "{}: the launch templates are for language-model engines; {} runs in diffusers or "
            "PyTorch (drop --emit)",
            what, w.model.name));
    if (kind == LaunchKind::Auto) {
        if (w.trains()) {
            kind = w.uses_lora() ? LaunchKind::Axolotl : LaunchKind::Accelerate;
        } else {
            const auto served = rec.engine ? serve_kind(*rec.engine) : std::nullopt;
            if (!served)
                throw InputError(fmt::format(
                    "{} auto: the plan's engine {} has no launch template; give --engine vllm, "
                    "sglang, tensorrt-llm, llama.cpp, ollama or mlx, or --emit one of those",
                    what, rec.engine ? rec.engine->id : "(none)"));
            kind = *served;
        }
    }
    const std::string_view name = kLaunchKinds.name(kind);
    if (w.trains() && serves(kind))
        throw InputError(fmt::format(
            "{} {} serves a model; for --method {} use accelerate, deepspeed, torchrun, axolotl, "
            "torchtune, megatron, torchtitan, nemo or slurm",
            what, name, to_string(w.method)));
    if (!w.trains() && !serves(kind))
        throw InputError(
            fmt::format("{} {} launches training; for inference use vllm, sglang, trtllm-serve, "
                        "llama-server, ollama or mlx-lm",
                        what, name));
    Launch l = serves(kind) ? serve_launch(w, rec, kind, what) : train_launch(w, rec, kind, what);
    l.kind = kind;
    l.command = render_commands(l.commands);
    return l;
}

}  // namespace gpuadvise
