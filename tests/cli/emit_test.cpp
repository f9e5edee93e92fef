// --emit end to end, with hostile model paths: every emitted command, run by
// /bin/sh with stand-ins for the programs on its PATH, starts exactly the
// programs and arguments of the same launch for a plain path, the model's
// path one argument equal to its real bytes; nothing else runs (a stand-in
// `id` would tell). Every config parses back with a real parser: Python's
// yaml (python3-yaml) and tomllib, nlohmann for JSON, `sh -n` for the Slurm
// script, Python's ast for the FSDP snippet.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/config_strings.hpp"
#include "support/gguf_builder.hpp"
#include "support/run_gpuadvise.hpp"
#include "support/safetensors_builder.hpp"
#include "support/temp_files.hpp"

namespace fs = std::filesystem;
using gpuadvise_test::run;
using nlohmann::json;

namespace {

using Invocation = std::vector<std::string>;  // a program's name, then its arguments

// Stand-ins for every program a launch starts. Each records the arguments it
// was given, one file per process, NUL-separated.
class Tools {
  public:
    Tools() {
        fs::create_directories(bin());
        fs::create_directories(log());
        for (const char* name :
             {"llama-server", "vllm", "python", "trtllm-serve", "ollama", "mlx_lm.server",
              "accelerate", "deepspeed", "torchrun", "axolotl", "tune", "sbatch", "id"}) {
            const fs::path p = fs::path(bin()) / name;
            std::ofstream(p) << "#!/bin/sh\n"
                                "f=\"$ARGV_LOG/$$\"\n"
                                "printf '%s\\0' \"${0##*/}\" > \"$f\"\n"
                                "for a in \"$@\"; do printf '%s\\0' \"$a\" >> \"$f\"; done\n";
            fs::permissions(p, fs::perms::owner_all);
        }
    }
    std::string bin() const { return dir_.path("bin"); }
    std::string log() const { return dir_.path("log"); }

    // Runs `command` in /bin/sh from `cwd` with only the stand-ins on PATH;
    // every invocation it made, sorted.
    std::vector<Invocation> run(const std::string& command, const std::string& cwd) const {
        for (const auto& e : fs::directory_iterator(log())) fs::remove(e.path());
        const auto r = run_process({"/bin/sh", "-c", command + "\nwait"}, "",
                                   {"PATH=" + bin(), "ARGV_LOG=" + log(), "MASTER_ADDR=10.0.0.1"},
                                   20, Stdout::Pipe, cwd);
        INFO("sh: " << r.err);
        CHECK(r.exit_code == 0);
        std::vector<Invocation> out;
        for (const auto& e : fs::directory_iterator(log())) {
            std::ifstream in(e.path(), std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
            Invocation argv;
            for (std::size_t start = 0; start < bytes.size();) {
                const std::size_t end = bytes.find('\0', start);
                argv.push_back(bytes.substr(start, end - start));
                start = end + 1;
            }
            out.push_back(std::move(argv));
        }
        std::sort(out.begin(), out.end());
        return out;
    }

  private:
    TempDir dir_;
};

// Names a user's files have: every shell and config metacharacter, a
// leading dash or tilde, control bytes, bytes that are not UTF-8, a long name.
const std::vector<std::string>& hostile() {
    static const std::vector<std::string> v{
        "my model $(id)",
        "it's",
        "say \"hi\"",
        "`id`",
        "a;id",
        "a&id",
        "a|id",
        "#hash",
        "star*",
        "-dash",
        "~tilde",
        "new\nline",
        "esc\x1b[31mred",
        "bad\xff\xfe",
        "\xe6\xa8\xa1\xe5\x9e\x8b",
        "back\\slash",
        std::string(200, 'x'),
        "<model>",  // our placeholder's spelling, as a real file's name
    };
    return v;
}

bool printable(const std::string& s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return false;
    // \xff\xfe is not UTF-8: a Modelfile cannot hold it either.
    return s.find('\xff') == std::string::npos;
}

bool utf8(const std::string& s) {
    return s.find('\xff') == std::string::npos;
}

// The argument a launch gives for a relative path.
std::string as_argument(const std::string& path) {
    return path.front() == '-' ? "./" + path : path;
}

std::vector<Invocation> with_path(std::vector<Invocation> calls, const std::string& plain,
                                  const std::string& path) {
    for (auto& argv : calls)
        for (auto& a : argv)
            if (a == plain) a = path;
    std::sort(calls.begin(), calls.end());
    return calls;
}

std::string gguf_bytes() {
    const auto b = gguf_test::tiny_llama(false);
    return b.header() + std::string(b.file_size() - b.header().size(), '\0');
}

// A config's text read back by Python: `expression` over `d`, the parsed
// document, printed as UTF-8 bytes.
std::string python_read(const std::string& config, const std::string& loader,
                        const std::string& expression) {
    const std::string script =
        "import sys, yaml, tomllib\n"
        "d = " +
        loader + "(sys.stdin.read())\n" + "sys.stdout.buffer.write(str(" + expression +
        ").encode())\n";
    const auto r = run_process({"/usr/bin/python3", "-c", script}, config);
    INFO("python: " << r.err);
    REQUIRE(r.exit_code == 0);
    return r.out;
}

struct Emitted {
    int exit_code = 0;
    std::string command, config, err;
};

Emitted emit(std::vector<std::string> args, const std::string& cwd) {
    args.emplace_back("--json");
    const auto r = run(args, gpuadvise_test::in_folder(cwd));
    Emitted e{r.exit_code, "", "", r.err};
    if (r.exit_code != 0) return e;
    const json doc = json::parse(r.out);
    e.command = doc.at("launch").at("command").get<std::string>();
    if (doc.at("launch").at("config").is_object())
        e.config = doc.at("launch").at("config").at("text").get<std::string>();
    return e;
}

}  // namespace

TEST_CASE("emit: a GGUF's hostile name reaches llama-server, vllm and ollama as one argument") {
    const Tools tools;
    TempDir work;
    work.write("plain.gguf", gguf_bytes());
    for (const char* kind : {"llama-server", "vllm", "ollama"}) {
        const auto args = [&](const std::string& file) {
            return std::vector<std::string>{"estimate", "--gguf", file, "--gpu",
                                            "rtx-4090", "--emit", kind};
        };
        const Emitted plain = emit(args("plain.gguf"), work.path(""));
        REQUIRE(plain.exit_code == 0);
        const auto plain_calls = tools.run(plain.command, work.path(""));
        REQUIRE_FALSE(plain_calls.empty());
        for (const std::string& stem : hostile()) {
            const std::string name = stem + ".gguf";
            INFO(kind << " "
                      << json(std::string(name.begin(), name.end()))
                             .dump(-1, ' ', true, json::error_handler_t::replace));
            work.write(name, gguf_bytes());
            const Emitted e = emit(args(name), work.path(""));
            if (std::string(kind) == "ollama" && !printable(name)) {
                // A Modelfile cannot hold it: one line that says so, exit 2.
                CHECK(e.exit_code == 2);
                CHECK_THAT(e.err, Catch::Contains("Modelfile"));
                CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
                continue;
            }
            REQUIRE(e.exit_code == 0);
            CHECK(tools.run(e.command, work.path("")) ==
                  with_path(plain_calls, "plain.gguf", as_argument(name)));
            if (std::string(kind) == "ollama") {
                const std::size_t from = e.config.find("FROM ");
                REQUIRE(from == 0);
                const std::string line = e.config.substr(5, e.config.find('\n') - 5);
                CHECK(config_test::modelfile_unquote(line) ==
                      (name.front() == '~' ? "./" + name : name));
            }
        }
    }
}

TEST_CASE("emit: a model folder's hostile name reaches the servers and axolotl's YAML intact") {
    const Tools tools;
    TempDir work;
    safetensors_test::write_tiny_folder(work.path("plain"));
    struct Case {
        const char* kind;
        const char* gpu;
        const char* method;
    };
    for (const Case& c :
         {Case{"vllm", "rtx-4090", "inference"}, Case{"sglang", "rtx-4090", "inference"},
          Case{"trtllm-serve", "rtx-4090", "inference"},
          Case{"mlx-lm", "apple-m4-max-40c", "inference"}, Case{"ollama", "rtx-4090", "inference"},
          Case{"axolotl", "rtx-4090", "lora"}}) {
        const auto args = [&](const std::string& folder) {
            return std::vector<std::string>{"estimate", "--model-dir", folder,   "--gpu", c.gpu,
                                            "--method", c.method,      "--emit", c.kind};
        };
        const Emitted plain = emit(args("plain"), work.path(""));
        INFO(c.kind << ": " << plain.err);
        REQUIRE(plain.exit_code == 0);
        const auto plain_calls = tools.run(plain.command, work.path(""));
        for (const std::string& name : hostile()) {
            INFO(c.kind << " " << json(name).dump(-1, ' ', true, json::error_handler_t::replace));
            safetensors_test::write_tiny_folder(work.path(name));
            const Emitted e = emit(args(name), work.path(""));
            const std::string kind = c.kind;
            const bool config_holds = kind == "ollama" ? printable(name) : utf8(name);
            if ((kind == "ollama" || kind == "axolotl") && !config_holds) {
                CHECK(e.exit_code == 2);
                CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
                continue;
            }
            REQUIRE(e.exit_code == 0);
            if (kind == "axolotl") {
                // The program's arguments do not name the model; the YAML does.
                CHECK(tools.run(e.command, work.path("")) == plain_calls);
                CHECK(python_read(e.config, "yaml.safe_load", "d['base_model']") == name);
                continue;
            }
            CHECK(tools.run(e.command, work.path("")) ==
                  with_path(plain_calls, "plain", as_argument(name)));
        }
    }
}

TEST_CASE("emit: every launch kind's command runs only its programs, and its config parses") {
    const Tools tools;
    TempDir work;
    struct Case {
        std::vector<std::string> args;
        std::string program;  // the first program the command starts
        std::string parser;   // how the config is read back
    };
    const std::vector<std::string> lora = {"--model", "llama-3.2-3b", "--method", "lora",
                                           "--gpu",   "rtx-4090",     "--gpus",   "2"};
    const std::vector<std::string> pre = {
        "--model",   "llama-3.1-70b", "--method", "full",     "--gpu",
        "h100-sxm5", "--gpus",        "64",       "--tokens", "1T"};
    const auto with = [](std::vector<std::string> a, const char* kind) {
        a.insert(a.begin(), "estimate");
        a.emplace_back("--emit");
        a.emplace_back(kind);
        return a;
    };
    const std::vector<Case> cases{
        {with(lora, "accelerate"), "accelerate", "yaml"},
        {with(lora, "deepspeed"), "deepspeed", "json"},
        {with(lora, "torchrun"), "torchrun", "python"},
        {with(lora, "axolotl"), "axolotl", "yaml"},
        {with(lora, "torchtune"), "tune", ""},
        {with(pre, "megatron"), "torchrun", ""},
        {with(pre, "slurm"), "sbatch", "sh"},
        {with(pre, "torchtitan"), "torchrun", "toml"},
        {with(pre, "nemo"), "python", ""},
    };
    for (const Case& c : cases) {
        INFO(gpuadvise_test::joined(c.args));
        const Emitted e = emit(c.args, work.path(""));
        INFO(e.err);
        REQUIRE(e.exit_code == 0);
        const auto calls = tools.run(e.command, work.path(""));
        REQUIRE(calls.size() == 1);
        CHECK(calls[0].at(0) == c.program);
        // Across nodes the rendezvous endpoint is the user's $MASTER_ADDR.
        const auto endpoint = std::find(calls[0].begin(), calls[0].end(), "--rdzv-endpoint");
        if (endpoint != calls[0].end()) CHECK(*(endpoint + 1) == "10.0.0.1:29500");
        if (c.parser == "yaml")
            CHECK_FALSE(python_read(e.config, "yaml.safe_load", "len(d)").empty());
        if (c.parser == "toml") {
            CHECK(python_read(e.config, "tomllib.loads",
                              "d['parallelism']['tensor_parallel_degree'] * "
                              "d['parallelism']['pipeline_parallel_degree'] * "
                              "d['parallelism']['context_parallel_degree'] * "
                              "d['parallelism']['data_parallel_shard_degree'] * "
                              "d['parallelism']['data_parallel_replicate_degree']") == "64");
            CHECK(python_read(e.config, "tomllib.loads", "d['job']['description']") ==
                  "gpuadvise plan: 64 x nvidia-h100-sxm5");
        }
        if (c.parser == "json") CHECK_NOTHROW(json::parse(e.config));
        if (c.parser == "python")
            CHECK(run_process(
                      {"/usr/bin/python3", "-c", "import ast,sys; ast.parse(sys.stdin.read())"},
                      e.config)
                      .exit_code == 0);
        if (c.parser == "sh") CHECK(run_process({"/bin/sh", "-n"}, e.config).exit_code == 0);
    }
}

TEST_CASE("emit: a server that does not run on the card or load the files is a usage error") {
    TempDir work;
    work.write("m.gguf", gguf_bytes());
    safetensors_test::write_tiny_folder(work.path("folder"));
    const struct {
        std::vector<std::string> args;
        const char* says;
    } cases[] = {
        {{"estimate", "--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--emit", "mlx-lm"}, "metal"},
        {{"estimate", "--model-dir", "folder", "--gpu", "rtx-4090", "--emit", "llama-server"},
         "does not load a folder"},
        {{"estimate", "--gguf", "m.gguf", "--gpu", "rtx-4090", "--emit", "sglang"},
         "does not load gguf"},
        {{"estimate", "--gguf", "m.gguf", "--gpu", "apple-m4-max-40c", "--emit", "vllm"},
         "vLLM does not run on metal"},
    };
    for (const auto& c : cases) {
        INFO(gpuadvise_test::joined(c.args));
        const auto r = run(c.args, gpuadvise_test::in_folder(work.path("")));
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(c.says));
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.out.empty());
    }
}
