// Fuzzes --emit with the model's path as the input bytes. The oracle is the
// round trip: every emitted command, split as a POSIX shell splits it
// (support/shell_split.hpp), holds the path as one argument of exactly its
// bytes (with "./" before a leading '-'), and no other shell syntax; a
// Modelfile's FROM and axolotl's base_model read back (support/
// config_strings.hpp) to the same bytes. A format that cannot hold the path
// refuses it with InputError; the shell always can.
#include <cstddef>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/launch.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/workload.hpp"
#include "support/config_strings.hpp"
#include "support/shell_split.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

namespace {

Workload workload(const std::string& path, ModelOrigin origin, const char* method) {
    ModelInputs inputs;
    ModelFile f;
    f.source = sanitize(path, 200);
    f.path = path;
    f.format = origin;
    f.arch = infer_architecture(1'000'000'000);
    f.params = 1'000'000'000;
    f.weight_bytes = 600'000'000;
    f.quantization = origin == ModelOrigin::Gguf ? "Q4_K" : "BF16";
    inputs.model_file = f;
    Request r;
    r.set(Field::Method, method, "--method");
    return resolve_workload(r, inputs, {});
}

// The argument after `flag` in the first command, or the first argument
// after the program's words when `flag` is empty.
std::string model_argument(const shell_test::Split& s, std::string_view flag,
                           std::size_t program_words) {
    const auto& argv = s.commands.at(0).argv;
    if (flag.empty()) return argv.at(program_words);
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == flag) return argv[i + 1];
    finding("the model flag is missing from the command");
}

void check_command(const Launch& l, const std::string& path, std::string_view flag,
                   std::size_t program_words) {
    const shell_test::Split s = shell_test::split(l.command, {{"MASTER_ADDR", "m"}});
    if (!s.error.empty()) finding("an emitted command holds shell syntax: " + s.error);
    if (s.commands.size() != l.commands.size()) finding("the command splits into other commands");
    for (std::size_t i = 0; i < s.commands.size(); ++i) {
        if (s.commands[i].argv.size() != l.commands[i].argv.size())
            finding("a command splits into another number of arguments");
        for (std::size_t k = 0; k < s.commands[i].argv.size(); ++k)
            if (!l.commands[i].argv[k].expands &&
                s.commands[i].argv[k] != l.commands[i].argv[k].text)
                finding("an argument splits back to other bytes");
    }
    if (program_words == 0) return;
    const std::string want = path.front() == '-' ? "./" + path : path;
    if (model_argument(s, flag, program_words) != want)
        finding("the model path is not one argument of its own bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    std::string path(fuzz::as_text(data, size).substr(0, 300));
    path.erase(std::remove(path.begin(), path.end(), '\0'), path.end());
    if (path.empty()) return 0;
    const Gpu& gpu = resolve_gpu(embedded::catalog(), "rtx-4090");
    RankOptions options;
    const struct {
        LaunchKind kind;
        ModelOrigin origin;
        const char* method;
        std::string_view flag;
        std::size_t program_words;
    } cases[] = {
        {LaunchKind::LlamaServer, ModelOrigin::Gguf, "inference", "-m", 1},
        {LaunchKind::Vllm, ModelOrigin::Gguf, "inference", "", 2},
        {LaunchKind::Ollama, ModelOrigin::Gguf, "inference", "", 0},
        {LaunchKind::Vllm, ModelOrigin::Safetensors, "inference", "", 2},
        {LaunchKind::Sglang, ModelOrigin::Safetensors, "inference", "--model-path", 3},
        {LaunchKind::TrtllmServe, ModelOrigin::Safetensors, "inference", "", 1},
        {LaunchKind::Axolotl, ModelOrigin::Safetensors, "lora", "", 0},
    };
    for (const auto& c : cases) {
        Workload w;
        if (!accepts([&] { w = workload(path, c.origin, c.method); })) return 0;
        const Recommendation rec = evaluate_plan(w, gpu, 1, options, nullptr, Detail::Numbers);
        if (!rec.fits) continue;
        Launch l;
        const bool made = accepts([&] { l = make_launch(w, rec, c.kind, "--emit"); });
        // Only a config format may refuse a path; a shell command holds any bytes.
        if (!made) {
            if (c.kind != LaunchKind::Ollama && c.kind != LaunchKind::Axolotl)
                finding("a shell-only launch refused a path");
            continue;
        }
        check_command(l, path, c.flag, c.program_words);
        if (c.kind == LaunchKind::Ollama) {
            const std::string line = l.config.substr(5, l.config.find('\n') - 5);
            const std::string want = path.front() == '~' ? "./" + path : path;
            if (l.config.rfind("FROM ", 0) != 0 || config_test::modelfile_unquote(line) != want)
                finding("the Modelfile's FROM does not read back to the path");
        }
        if (c.kind == LaunchKind::Axolotl) {
            const std::string line = l.config.substr(12, l.config.find('\n') - 12);
            if (l.config.rfind("base_model: ", 0) != 0 || config_test::yaml_unquote(line) != path)
                finding("axolotl's base_model does not read back to the path");
        }
    }
    return 0;
}
