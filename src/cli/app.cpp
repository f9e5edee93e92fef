#include "cli/app.hpp"
#include "cli/completion.hpp"
#include "cli/detect_runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "gpuadvise/batch.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/gguf.hpp"
#include "gpuadvise/json_input.hpp"
#include "gpuadvise/safetensors.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/task.hpp"
#include "gpuadvise/report.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise::cli {
namespace {

constexpr const char* kExitCodesHelp =
    "Exit codes: 0 answered (also when nothing fits), 1 a yes/no command answered no (check: does not fit),\n"
    "2 bad usage or input (one line on stderr says which value and how to fix it).";

// Reads a whole file, or stdin for "-"; a missing, unreadable or directory
// path is an input error naming the flag.
std::string read_input(const std::string& path, std::string_view flag, std::istream& in) {
    if (path == "-") {
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(fmt::format("{} '{}' is a directory; give a file", flag, path));
    std::ifstream file(path, std::ios::binary);
    if (!file) throw InputError(fmt::format("{} '{}' cannot be read: no such file or no permission", flag, path));
    std::ostringstream s;
    s << file.rdbuf();
    if (file.bad()) throw InputError(fmt::format("{} '{}' cannot be read", flag, path));
    return s.str();
}

// Reads up to `limit` bytes from the start of a file (model files are read
// only as far as their headers go).
std::string read_prefix(const std::string& path, std::string_view flag, std::uint64_t limit, std::uint64_t* file_size) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("{} '{}' is a directory; give a file", flag, path));
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(fmt::format("{} '{}' cannot be read: no such file or no permission", flag, path));
    *file_size = size;
    std::ifstream file(path, std::ios::binary);
    if (!file) throw InputError(fmt::format("{} '{}' cannot be read: no such file or no permission", flag, path));
    std::string bytes(static_cast<std::size_t>(std::min<std::uint64_t>(limit, size)), '\0');
    file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(file.gcount()));
    return bytes;
}

// Calls `parse` on a growing prefix until the header fits (NeedMoreBytes).
template <typename Parse>
auto parse_prefix(const std::string& path, std::string_view flag, Parse parse) {
    std::uint64_t want = 8ULL << 20;
    for (int attempt = 0; attempt < 16; ++attempt) {
        std::uint64_t size = 0;
        const std::string bytes = read_prefix(path, flag, want, &size);
        try {
            return parse(bytes, size);
        } catch (const NeedMoreBytes& more) {
            if (more.needed <= bytes.size() || bytes.size() >= size) throw InputError(more.what());
            want = more.needed;
        }
    }
    throw InputError(fmt::format("{} '{}': the header did not fit after repeated reads", flag, path));
}

ModelFile read_gguf(const std::string& path) {
    const GgufInfo info = parse_prefix(path, "--gguf", [&](const std::string& bytes, std::uint64_t size) {
        return parse_gguf(bytes, size, path);
    });
    return {path, "gguf", info.arch, info.params, info.weight_bytes, info.quantization};
}

// A .safetensors file, or a model.safetensors.index.json naming its shards.
ModelFile read_safetensors(const std::string& path, std::istream& in) {
    std::vector<SafetensorsInfo> shards;
    const std::filesystem::path p(path);
    if (p.extension() == ".json") {
        const std::string index = read_input(path, "--safetensors", in);
        for (const auto& shard : parse_safetensors_index(index, path)) {
            const std::string shard_path = (p.parent_path() / shard).string();
            shards.push_back(parse_prefix(shard_path, "--safetensors shard", [&](const std::string& bytes, std::uint64_t size) {
                return parse_safetensors_header(bytes, size, shard_path);
            }));
        }
    } else {
        shards.push_back(parse_prefix(path, "--safetensors", [&](const std::string& bytes, std::uint64_t size) {
            return parse_safetensors_header(bytes, size, path);
        }));
    }
    const SafetensorsInfo all = merge_safetensors(shards);
    std::string dtype;
    std::uint64_t most = 0;
    for (const auto& [name, count] : all.dtype_counts)
        if (count > most) {
            most = count;
            dtype = name;
        }
    return {path, "safetensors", std::nullopt, all.params, all.bytes, dtype};
}

// A Hugging Face model folder: config.json plus its safetensors weights.
ModelFile read_model_dir(const std::string& dir, std::istream& in) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) throw InputError(fmt::format("--model-dir '{}' is not a folder", dir));
    const auto config = std::filesystem::path(dir) / "config.json";
    if (!std::filesystem::exists(config, ec))
        throw InputError(fmt::format("--model-dir '{}' has no config.json; give a Hugging Face model folder", dir));
    const std::string config_path = config.string();
    const Architecture arch = parse_hf_config(read_input(config_path, "--model-dir config.json", in), config_path);
    const auto index = std::filesystem::path(dir) / "model.safetensors.index.json";
    const auto single = std::filesystem::path(dir) / "model.safetensors";
    std::string weights;
    if (std::filesystem::exists(index, ec)) weights = index.string();
    else if (std::filesystem::exists(single, ec)) weights = single.string();
    else throw InputError(fmt::format("--model-dir '{}' has no model.safetensors or model.safetensors.index.json", dir));
    ModelFile f = read_safetensors(weights, in);
    f.source = dir;
    f.arch = arch;
    return f;
}

// Flags shared by every command.
struct Common {
    std::string catalog_path, merge_path, format, color;
    bool json = false;
    int verbosity = 0;

    void add(CLI::App& app) {
        app.add_option("--format", format, "Output: table | json | csv | markdown  [default: table]");
        app.add_option("--color", color, "Colour: auto (terminal, unless NO_COLOR is set) | always | never  [default: auto]");
        app.add_option("--catalog", catalog_path, "Use this GPU catalog instead of the embedded one");
        app.add_option("--catalog-merge", merge_path, "Extend or override the catalog with entries from FILE");
        app.add_flag("--json", json, "Print one JSON object (schema 1) on stdout");
        app.add_flag("-v,--verbose", verbosity, "Log what was loaded and assumed to stderr (-vv for more)");
    }
};

// The workload flags, bound to strings so the core parses them (with errors
// naming the flag); only flags the user gave reach the request.
struct WorkloadFlags {
    using Field = std::optional<std::string> WorkloadRequest::*;
    struct Bound {
        CLI::Option* option;
        std::unique_ptr<std::string> value;
        Field field;  // nullptr for flags handled by hand (--hf-config, --task)
    };
    std::vector<Bound> bound;
    std::string hf_config, task_name, gguf, safetensors, model_dir;
    CLI::Option *hf_config_opt = nullptr, *task_opt = nullptr, *gpus_opt = nullptr, *parallel_opt = nullptr;
    CLI::Option *gguf_opt = nullptr, *safetensors_opt = nullptr, *model_dir_opt = nullptr;
    CLI::Option *grad_ckpt = nullptr, *no_grad_ckpt = nullptr, *flash = nullptr, *no_flash = nullptr;
    CLI::Option *dq = nullptr, *no_dq = nullptr, *oib = nullptr, *chunked = nullptr;

    void add(CLI::App& app) {
        const auto opt = [&](const char* name, Field field, const char* help) {
            auto value = std::make_unique<std::string>();
            CLI::Option* o = app.add_option(name, *value, help);
            bound.push_back({o, std::move(value), field});
            return o;
        };
        opt("-m,--model", &WorkloadRequest::model,
            "Model: a size (8B, 1.5B, 350M) or a preset (llama-3.1-8b; see 'gpuadvise models')");
        hf_config_opt = app.add_option("--hf-config", hf_config, "Hugging Face config.json of the model ('-' reads stdin)");
        gguf_opt = app.add_option("--gguf", gguf, "A GGUF model file: shape, exact parameters and weight bytes from its header");
        safetensors_opt = app.add_option("--safetensors", safetensors,
                                         "A .safetensors file or model.safetensors.index.json: exact parameters and bytes "
                                         "(add --hf-config for the shape)");
        model_dir_opt = app.add_option("--model-dir", model_dir, "A Hugging Face model folder (config.json + safetensors)");
        gguf_opt->excludes(safetensors_opt)->excludes(model_dir_opt);
        safetensors_opt->excludes(model_dir_opt);
        opt("--method", &WorkloadRequest::method, "inference | lora | qlora | full  [default: inference]");
        opt("--precision", &WorkloadRequest::precision,
            "fp32 | fp16 | bf16  [default: bf16; fp16 for qlora, the compute dtype of the document's §4 recipe]");
        opt("--quant", &WorkloadRequest::quant,
            "Weight format: none | int8 | int4 | nf4 | fp4 | gptq-int4 | gptq-int8 | awq-int4 | fp8 | GGUF q4_0 | q4_k_m | "
            "q5_k_m | q6_k | q8_0  [default: none; nf4 for qlora, document §4]");
        opt("--mixed-precision", &WorkloadRequest::mixed,
            "amp (fp32 master weights, 16-bit compute) | pure (all 16-bit)  [default: amp for training, pure for inference]");
        opt("--optimizer", &WorkloadRequest::optimizer,
            "adamw | adamw-8bit | paged-adamw-8bit | paged-adamw-32bit | sgd | sgd-momentum | adafactor | lion  "
            "[default: adamw; paged-adamw-32bit for qlora, document §4]");
        opt("--kv-dtype", &WorkloadRequest::kv_dtype, "Inference KV cache: fp16 | bf16 | fp8 | int8  [default: the compute precision]");
        opt("--batch", &WorkloadRequest::batch,
            "Micro-batch per GPU (training) or concurrent sequences (inference)  [default: 4 for training, document §4; 1 "
            "for inference]");
        opt("--seq", &WorkloadRequest::seq,
            "Tokens per sequence (training) or context = prompt + gen (inference)  [default: 512 for training; 4096 for "
            "inference]");
        opt("--prompt", &WorkloadRequest::prompt, "Inference prompt tokens  [default: --seq minus --gen]");
        opt("--gen", &WorkloadRequest::gen, "Inference generated tokens  [default: min(512, seq/4)]");
        opt("--lora-rank", &WorkloadRequest::lora_rank, "LoRA rank  [default: 64, document §4]");
        opt("--lora-targets", &WorkloadRequest::lora_targets,
            "LoRA modules: q,v | all-linear | a list of q,k,v,o,gate,up,down,mlp,lm_head  [default: q,v, document §4]");
        gpus_opt = opt("--gpus", &WorkloadRequest::gpus, "GPUs in the plan  [default: 1 for estimate; 1, 2, 4, 8 tried when ranking]");
        parallel_opt = opt("--parallel", &WorkloadRequest::parallel,
                           "Multi-GPU strategy: ddp | fsdp | zero2 | zero3 | tp | pp  [default: fsdp for training, tp for inference]");
        opt("--engine", &WorkloadRequest::engine,
            "Inference engine: vllm | tensorrt-llm | llama.cpp | exllamav2 | autoawq | pytorch | transformers | litgpt  "
            "[default: vllm; llama.cpp for GGUF formats]");
        opt("--estimator", &WorkloadRequest::estimator,
            "component (validated model) | doc (the source document's rule, §2.1)  [default: component]");
        task_opt = app.add_option("--task", task_name,
                                  "A row of the document's decision table (§6): sdxl | qlora-7b | full-13b | serve-70b | "
                                  "video; sets the model, method and the row's constraints");
        grad_ckpt = app.add_flag("--grad-ckpt")->description("Gradient checkpointing on  [default: on for training, document §4]");
        no_grad_ckpt = app.add_flag("--no-grad-ckpt")->description("Gradient checkpointing off");
        flash = app.add_flag("--flash-attn")->description("Fused attention (FlashAttention/SDPA)  [default: on]");
        no_flash = app.add_flag("--no-flash-attn")->description("Eager attention that materialises the score matrix");
        dq = app.add_flag("--double-quant")->description("Double quantisation of nf4/fp4 scales  [default: on for qlora]");
        no_dq = app.add_flag("--no-double-quant")->description("No double quantisation");
        oib = app.add_flag("--optimizer-in-backward")->description("Fuse the optimizer step into backward (no full gradient buffer)");
        chunked = app.add_flag("--chunked-loss")->description(
            "Cross-entropy over chunks of the logits (torchtune CEWithChunkedOutputLoss): ~8 bytes less per logit  [default: off]");
        grad_ckpt->excludes(no_grad_ckpt);
        flash->excludes(no_flash);
        dq->excludes(no_dq);
    }

    bool gpus_given() const { return gpus_opt->count() > 0; }
    bool parallel_given() const { return parallel_opt->count() > 0; }

    std::optional<TaskPreset> task() const {
        if (task_opt->count() == 0) return std::nullopt;
        return find_task(task_name);
    }

    WorkloadRequest request(std::istream& in) const {
        WorkloadRequest r;
        for (const auto& b : bound)
            if (b.field && b.option->count() > 0) r.*(b.field) = *b.value;
        if (hf_config_opt->count() > 0) {
            r.hf_config_text = read_input(hf_config, "--hf-config", in);
            r.hf_config_source = hf_config == "-" ? "config.json from stdin" : hf_config;
        }
        if (gguf_opt->count() > 0) r.model_file = read_gguf(gguf);
        if (safetensors_opt->count() > 0) r.model_file = read_safetensors(safetensors, in);
        if (model_dir_opt->count() > 0) r.model_file = read_model_dir(model_dir, in);
        if (r.model_file && r.model_file->arch && r.hf_config_text)
            throw InputError(fmt::format("{} already gives the model's shape; drop --hf-config", r.model_file->source));
        const auto pair = [](CLI::Option* on, CLI::Option* off) -> std::optional<bool> {
            if (on->count() > 0) return true;
            if (off->count() > 0) return false;
            return std::nullopt;
        };
        r.grad_ckpt = pair(grad_ckpt, no_grad_ckpt);
        r.flash_attn = pair(flash, no_flash);
        r.double_quant = pair(dq, no_dq);
        if (oib->count() > 0) r.optimizer_in_backward = true;
        if (chunked->count() > 0) r.chunked_loss = true;
        // A task preset fills the model and method the user left out, or,
        // for tasks that are not language models, states the memory need.
        if (const auto t = task()) {
            if (t->model) {
                if (!r.model && !r.hf_config_text) r.model = t->model;
                if (!r.method) r.method = t->method;
            } else {
                r.fixed_bytes = t->requirements.min_memory_bytes;
                r.fixed_label = t->id;
            }
        }
        return r;
    }
};

// Ranking flags of the main command, check and compare.
struct RankFlags {
    std::string top = "10", rank_by = "value", max_gpus = "8", budget, vendor, segment, os = "linux";
    CLI::Option *top_opt = nullptr, *rank_by_opt = nullptr, *os_opt = nullptr;
    CLI::Option *budget_opt = nullptr, *vendor_opt = nullptr, *segment_opt = nullptr, *max_gpus_opt = nullptr;
    bool explain = false;
    std::string tokens, steps, epochs, dataset_tokens, amortize_years, kwh_price, cloud_price;
    std::vector<CLI::Option*> job_opts;

    void add(CLI::App& app, bool ranking) {
        const auto job_opt = [&](const char* name, std::string& target, const char* help) {
            job_opts.push_back(app.add_option(name, target, help));
        };
        job_opt("--tokens", tokens, "Job size: training tokens (or tokens to generate), e.g. 2B");
        job_opt("--steps", steps, "Job size: optimizer steps of one micro-batch per GPU");
        job_opt("--epochs", epochs, "Job size: passes over --dataset-tokens");
        job_opt("--dataset-tokens", dataset_tokens, "Tokens in the training set, e.g. 50M");
        job_opt("--amortize-years", amortize_years, "Purchase price spread over this many years  [default: 3]");
        job_opt("--kwh-price", kwh_price, "Energy price in USD per kWh  [default: 0.15]");
        job_opt("--cloud-price-per-gpu-hour", cloud_price, "Rent instead of buy: USD per GPU-hour");
        if (ranking) {
            top_opt = app.add_option("--top", top, "How many GPUs to show  [default: 10]");
            rank_by_opt =
                app.add_option("--rank-by", rank_by, "value (tokens/s per dollar) | speed | cost | power | memory  [default: value]");
            max_gpus_opt = app.add_option("--max-gpus", max_gpus, "Largest plan to try (1, 2, 4, 8, ... up to N)  [default: 8]");
            budget_opt = app.add_option("--budget", budget, "Reject plans whose purchase price exceeds USD");
            vendor_opt = app.add_option("--vendor", vendor, "Only nvidia | amd | intel | apple");
            segment_opt = app.add_option("--segment", segment, "Only consumer | workstation | datacenter");
            app.add_flag("--explain", explain, "Print every rule that fired for each shown plan");
        }
        os_opt = app.add_option("--os", os, "linux | windows | wsl: Windows reserves ~1.5 GiB for the display  [default: linux]");
    }

    JobOptions job() const {
        JobOptions j;
        const auto given = [&](std::size_t i) { return job_opts[i]->count() > 0; };
        if (given(0)) j.tokens = static_cast<double>(parse_param_count(tokens, "--tokens"));
        if (given(1)) j.steps = static_cast<double>(parse_positive_int(steps, "--steps", 1'000'000'000'000));
        if (given(2)) j.epochs = parse_positive_real(epochs, "--epochs");
        if (given(3)) j.dataset_tokens = static_cast<double>(parse_param_count(dataset_tokens, "--dataset-tokens"));
        if (given(4)) j.amortize_years = parse_positive_real(amortize_years, "--amortize-years");
        if (given(5)) j.kwh_price_usd = parse_positive_real(kwh_price, "--kwh-price");
        if (given(6)) j.cloud_price_per_gpu_hour = parse_positive_real(cloud_price, "--cloud-price-per-gpu-hour");
        if (j.epochs && !j.dataset_tokens)
            throw InputError("--epochs needs --dataset-tokens (how many tokens one epoch is)");
        if (static_cast<int>(j.tokens.has_value()) + static_cast<int>(j.steps.has_value()) +
                static_cast<int>(j.dataset_tokens.has_value()) > 1)
            throw InputError("give the job size once: --tokens, --steps, or --dataset-tokens (with --epochs)");
        return j;
    }

    std::size_t top_count() const { return static_cast<std::size_t>(parse_positive_int(top, "--top", 100000)); }

    RankOptions options() const {
        RankOptions o;
        o.job = job();
        o.rank_by = parse_rank_by(rank_by);
        if (max_gpus_opt && max_gpus_opt->count() > 0) o.max_gpus = parse_positive_int(max_gpus, "--max-gpus", 4096);
        if (budget_opt && budget_opt->count() > 0) o.budget_usd = parse_positive_real(budget, "--budget");
        if (vendor_opt && vendor_opt->count() > 0)
            o.vendor = parse_choice(vendor, "--vendor", {"nvidia", "amd", "intel", "apple"});
        if (segment_opt && segment_opt->count() > 0)
            o.segment = parse_choice(segment, "--segment", {"consumer", "workstation", "datacenter"});
        const auto parsed_os = parse_os(os);
        if (!parsed_os) parse_choice(os, "--os", {"linux", "windows", "wsl"});
        o.os = parsed_os.value_or(Os::Linux);
        return o;
    }
};

// Defaults from the environment and a config file, for flags the user did not
// give: precedence is flag > GPUADVISE_* environment > config file > built-in.
struct Setting {
    const char* key;  // config file key
    const char* env;  // environment variable
    CLI::Option* option;
    std::string* target;
};

struct Config {
    std::string path;
    nlohmann::json values = nlohmann::json::object();
    std::vector<std::string> applied;  // "top=5 (from ...)" for -v
};

std::string config_path() {
    if (const char* explicit_path = std::getenv("GPUADVISE_CONFIG"); explicit_path && *explicit_path) return explicit_path;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/gpuadvise/config.json";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/gpuadvise/config.json";
    return {};
}

constexpr const char* kConfigKeys[] = {"top", "rank_by", "os", "kwh_price", "amortize_years", "cloud_price_per_gpu_hour",
                                       "format", "color", "catalog", "prices"};

Config load_config() {
    Config c;
    c.path = config_path();
    std::error_code ec;
    if (c.path.empty() || !std::filesystem::exists(c.path, ec)) return c;
    std::istringstream none;
    c.values = parse_json_input(read_input(c.path, "config file", none), c.path, "a JSON object of settings");
    if (!c.values.is_object()) throw InputError(fmt::format("{}: expected a JSON object of settings", c.path));
    std::vector<std::string> keys(std::begin(kConfigKeys), std::end(kConfigKeys));
    for (const auto& [key, value] : c.values.items()) {
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
            const auto near = closest_name(key, keys);
            throw InputError(fmt::format("{}: unknown setting \"{}\"{}", c.path, key,
                                         near ? fmt::format("; did you mean \"{}\"?", *near) : ""));
        }
        if (key == "prices") {
            if (!value.is_object()) throw InputError(fmt::format("{}: \"prices\" must map GPU ids to USD", c.path));
            for (const auto& [gpu, usd] : value.items())
                if (!usd.is_number() || !(usd.get<double>() > 0) || !std::isfinite(usd.get<double>()))
                    throw InputError(fmt::format("{}: prices.{} must be a positive number of USD", c.path, gpu));
        } else if (!value.is_string() && !value.is_number()) {
            throw InputError(fmt::format("{}: \"{}\" must be a string or a number", c.path, key));
        }
    }
    return c;
}

void apply_settings(const std::vector<Setting>& settings, Config& config) {
    for (const Setting& s : settings) {
        if (!s.option || !s.target) continue;
        if (s.option->count() > 0) {
            const char* env = std::getenv(s.env);
            config.applied.push_back(fmt::format("{}={} (from {})", s.key, *s.target,
                                                 env && *env && *s.target == env ? "flag or environment" : "flag"));
            continue;
        }
        if (const char* env = std::getenv(s.env); env && *env) {
            *s.target = env;
            config.applied.push_back(fmt::format("{}={} (from {})", s.key, env, s.env));
        } else if (config.values.contains(s.key)) {
            const auto& v = config.values[s.key];
            *s.target = v.is_string() ? v.get<std::string>() : v.dump();
            config.applied.push_back(fmt::format("{}={} (from {})", s.key, *s.target, config.path));
        }
    }
}

struct Context {
    std::istream& in;
    std::ostream& out;
    std::ostream& err;
    Common common;
    Config config;
    Format format = Format::Table;
    Style style;
    bool json() const { return format == Format::Json; }
};

// Output settings from flags and the terminal: colour only on a terminal and
// never with NO_COLOR (any non-empty value), unless --color says otherwise;
// tables fit the terminal's width, and are never cut when piped.
void resolve_output(Context& ctx, bool stdout_is_terminal) {
    if (ctx.common.json) {
        if (!ctx.common.format.empty() && normalize_name(ctx.common.format) != "json")
            throw InputError(fmt::format("--json and --format {} disagree; give one", ctx.common.format));
        ctx.format = Format::Json;
    } else if (!ctx.common.format.empty()) {
        const std::string f = parse_choice(ctx.common.format, "--format", {"table", "json", "csv", "markdown"});
        ctx.format = f == "json" ? Format::Json : f == "csv" ? Format::Csv : f == "markdown" ? Format::Markdown : Format::Table;
    }
    const std::string color = ctx.common.color.empty() ? "auto" : parse_choice(ctx.common.color, "--color", {"auto", "always", "never"});
    const char* no_color = std::getenv("NO_COLOR");
    const bool no_color_set = no_color && *no_color;
    ctx.style.color = ctx.format == Format::Table &&
                      (color == "always" || (color == "auto" && stdout_is_terminal && !no_color_set));
    if (stdout_is_terminal && ctx.format == Format::Table) {
        std::size_t width = 0;
        winsize ws{};
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) width = ws.ws_col;
        if (const char* columns = std::getenv("COLUMNS"); width == 0 && columns)
            width = static_cast<std::size_t>(std::strtoul(columns, nullptr, 10));
        ctx.style.width = width > 0 ? width : 80;
    }
}

Catalog load_catalog(const Common& c, std::istream& in, const Config& config = {}) {
    const std::string& path = c.catalog_path;
    Catalog catalog;
    if (path.empty() && c.merge_path.empty()) {
        catalog = embedded::catalog();
    } else {
        const std::string base_text = path.empty() ? std::string(embedded::gpus_json()) : read_input(path, "--catalog", in);
        const std::string base_source = path.empty() ? std::string(embedded::kGpusSource) : path;
        catalog = c.merge_path.empty() ? parse_catalog(base_text, base_source)
                                       : merge_catalogs(base_text, base_source, read_input(c.merge_path, "--catalog-merge", in),
                                                        c.merge_path);
    }
    // Prices from the config file override the catalog's, as a local street price.
    if (config.values.contains("prices")) {
        for (const auto& [name, usd] : config.values["prices"].items()) {
            const Gpu& found = resolve_gpu(catalog, name);
            for (Gpu& g : catalog.gpus)
                if (g.id == found.id) g.price = Price{usd.get<double>(), "street-estimate", "", "user config " + config.path};
        }
    }
    spdlog::info("catalog: {} ({} GPUs, dated {})", catalog.source, catalog.gpus.size(), catalog.date);
    return catalog;
}

void print_json(std::ostream& out, const nlohmann::ordered_json& j) { out << j.dump(2) << '\n'; }

// Presets are parsed only when the model is named rather than sized.
const std::vector<ModelPreset>& presets_for(const WorkloadRequest& r) {
    static const std::vector<ModelPreset> none;
    if (!r.model || r.model->empty()) return none;
    const char c = r.model->front();
    const bool size = std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.';
    return size ? none : embedded::model_presets();
}

Workload resolve(const WorkloadFlags& wf, std::istream& in) {
    const WorkloadRequest request = wf.request(in);
    return resolve_workload(request, presets_for(request));
}

void log_workload(const Workload& w) {
    for (const auto& a : w.assumed) spdlog::info("assumed {}", a);
}

// `--gpu local`: the first local accelerator that matches the catalog.
std::vector<std::string> local_gpu_ids(const Catalog& catalog) {
    std::string diagnostics;
    const auto found = detect_local_gpus(catalog, &diagnostics);
    std::vector<std::string> ids;
    for (const auto& g : found)
        if (!g.catalog_id.empty()) ids.push_back(g.catalog_id);
    if (ids.empty())
        throw InputError("--gpu local: no local accelerator matched the catalog (see 'gpuadvise detect -v'); name the GPU instead");
    return ids;
}

const Gpu& resolve_gpu_or_local(const Catalog& catalog, const std::string& name) {
    if (normalize_name(name) == "local") return resolve_gpu(catalog, local_gpu_ids(catalog).front());
    return resolve_gpu(catalog, name);
}

// Lists the machine's accelerators and their catalog ids; exit 1 when none.
int cmd_detect(Context& ctx) {
    const Catalog catalog = load_catalog(ctx.common, ctx.in, ctx.config);
    std::string diagnostics;
    const auto found = detect_local_gpus(catalog, &diagnostics);
    std::size_t start = 0;
    while (start < diagnostics.size()) {
        const std::size_t end = diagnostics.find('\n', start);
        spdlog::info("detect: {}", diagnostics.substr(start, end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    if (ctx.json()) {
        nlohmann::ordered_json j;
        j["schema"] = kSchemaVersion;
        j["gpus"] = nlohmann::ordered_json::array();
        for (const auto& g : found)
            j["gpus"].push_back({{"source", g.source},
                                 {"name", g.name},
                                 {"memory_bytes", g.memory_bytes ? nlohmann::ordered_json(*g.memory_bytes) : nullptr},
                                 {"pcie_gen", g.pcie_gen ? nlohmann::ordered_json(*g.pcie_gen) : nullptr},
                                 {"pcie_width", g.pcie_width ? nlohmann::ordered_json(*g.pcie_width) : nullptr},
                                 {"pci_id", g.pci_id},
                                 {"catalog_id", g.catalog_id.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(g.catalog_id)},
                                 {"match_note", g.match_note}});
        print_json(ctx.out, j);
    } else if (found.empty()) {
        ctx.out << "no GPUs found: no nvidia-smi, rocm-smi, amd-smi or xpu-smi answered and /sys/class/drm lists none "
                   "(run with -v to see why)\n";
    } else {
        Table t;
        t.columns = {{"#", true}, {"Source"}, {"Reported name"}, {"Memory", true}, {"PCIe"}, {"Catalog id"}, {"Note", false, 1, true}};
        for (std::size_t i = 0; i < found.size(); ++i) {
            const auto& g = found[i];
            t.rows.push_back({std::to_string(i), g.source, g.name.empty() ? g.pci_name : g.name,
                              g.memory_bytes ? fmt::format("{:.1f} GiB", static_cast<double>(*g.memory_bytes) / static_cast<double>(kGiB)) : "-",
                              g.pcie_gen ? fmt::format("Gen{} x{}", *g.pcie_gen, g.pcie_width.value_or(0)) : "-",
                              g.catalog_id.empty() ? "-" : g.catalog_id, g.match_note});
        }
        ctx.out << render(t, ctx.format, ctx.style);
    }
    return found.empty() ? kExitNo : kExitOk;
}

int cmd_recommend(Context& ctx, const WorkloadFlags& wf, const RankFlags& rf) {
    const Workload w = resolve(wf, ctx.in);
    log_workload(w);
    RankOptions options = rf.options();
    if (const auto t = wf.task()) options.task = t->requirements;
    if (wf.gpus_given()) options.fixed_gpus = w.gpus;
    if (wf.parallel_given()) options.parallel = w.parallel;
    const Catalog catalog = load_catalog(ctx.common, ctx.in, ctx.config);
    Workload single = w;
    if (!options.fixed_gpus) {
        single.gpus = 1;
        single.parallel = Parallel::None;
    }
    const MemoryEstimate memory = estimate(single);
    const auto recs = rank(w, catalog, options);
    if (ctx.json()) {
        print_json(ctx.out, recommend_json(single, memory, recs, rf.top_count(), options));
    } else {
        ctx.out << recommend_text(single, memory, recs, rf.top_count(), options, catalog.gpus.size(), ctx.format, ctx.style);
        if (rf.explain && ctx.format != Format::Csv) {
            for (std::size_t i = 0; i < recs.size() && i < rf.top_count(); ++i) {
                ctx.out << fmt::format("\n#{} {} x{} ({}):\n", i + 1, recs[i].gpu->id, recs[i].count, to_string(recs[i].strategy));
                if (recs[i].fired.empty()) ctx.out << "  no rule fired\n";
                for (const auto& hit : recs[i].fired)
                    ctx.out << fmt::format("  [{}] {}: {}\n", to_string(hit.kind), hit.id, hit.message);
            }
        }
    }
    return kExitOk;
}

int cmd_estimate(Context& ctx, const WorkloadFlags& wf, const std::string& gpu_name, const RankFlags& rf) {
    const Workload w = resolve(wf, ctx.in);
    log_workload(w);
    const MemoryEstimate memory = estimate(w);
    if (gpu_name.empty()) {
        if (ctx.json()) print_json(ctx.out, estimate_json(w, memory));
        else if (ctx.format == Format::Csv) ctx.out << render_csv(memory_table(memory));
        else ctx.out << "Workload\n" << workload_text(w) << '\n' << memory_text(memory, w, ctx.format, ctx.style);
        return kExitOk;
    }
    const Catalog catalog = load_catalog(ctx.common, ctx.in, ctx.config);
    const Gpu& gpu = resolve_gpu(catalog, gpu_name);
    RankOptions options = rf.options();
    options.parallel = w.parallel;
    const Recommendation rec = evaluate_plan(w, gpu, w.gpus, options);
    if (ctx.json()) {
        auto j = estimate_json(w, memory);
        j["gpu"] = gpu.id;
        j["performance"] = performance_json(rec.performance);
        j["plan"] = recommendation_json(rec, 1);
        print_json(ctx.out, j);
    } else if (ctx.format == Format::Csv) {
        ctx.out << render_csv(performance_table(rec.performance));
    } else {
        ctx.out << "Workload\n" << workload_text(w) << '\n' << memory_text(memory, w, ctx.format, ctx.style) << '\n';
        ctx.out << fmt::format("On {} x {} ({}): {}\n", w.gpus, gpu.id, to_string(rec.strategy),
                               rec.fits ? "fits" : "does not fit");
        ctx.out << render(performance_table(rec.performance), ctx.format, ctx.style);
    }
    return kExitOk;
}

int cmd_check(Context& ctx, const WorkloadFlags& wf, const std::string& gpu_name, const RankFlags& rf) {
    const Workload w = resolve(wf, ctx.in);
    log_workload(w);
    const Catalog catalog = load_catalog(ctx.common, ctx.in, ctx.config);
    const Gpu& gpu = resolve_gpu_or_local(catalog, gpu_name);
    RankOptions options = rf.options();
    if (const auto t = wf.task()) options.task = t->requirements;
    if (wf.parallel_given()) options.parallel = w.parallel;
    const Recommendation rec = evaluate_plan(w, gpu, w.gpus, options);
    if (ctx.json()) {
        auto j = estimate_json(w, rec.memory);
        j["check"] = recommendation_json(rec, 1);
        print_json(ctx.out, j);
    } else if (ctx.format != Format::Table) {
        Table t;
        t.columns = {{"fits"}, {"gpu"}, {"count", true}, {"per_gpu_bytes", true}, {"usable_bytes", true}, {"reason"}};
        t.rows.push_back({rec.fits ? "yes" : "no", gpu.id, std::to_string(w.gpus), std::to_string(rec.memory.per_gpu_bytes),
                          std::to_string(rec.usable_bytes), rec.reasons.empty() ? "" : rec.reasons.front()});
        ctx.out << render(t, ctx.format, ctx.style);
    } else {
        const std::string count = w.gpus > 1 ? fmt::format("{} x ", w.gpus) : "";
        if (rec.fits)
            ctx.out << fmt::format("fits: {}{} needs {:.1f} GiB per GPU of {:.1f} GiB usable\n", count, gpu.id,
                                   static_cast<double>(rec.memory.per_gpu_bytes) / kGiB,
                                   static_cast<double>(rec.usable_bytes) / kGiB);
        else
            ctx.out << fmt::format("does not fit: {}{}: {}\n", count, gpu.id, fmt::join(rec.reasons, "; "));
    }
    return rec.fits ? kExitOk : kExitNo;
}

int cmd_compare(Context& ctx, const WorkloadFlags& wf, const std::vector<std::string>& names, const RankFlags& rf) {
    const Workload w = resolve(wf, ctx.in);
    const Catalog catalog = load_catalog(ctx.common, ctx.in, ctx.config);
    RankOptions options = rf.options();
    if (const auto t = wf.task()) options.task = t->requirements;
    if (wf.parallel_given()) options.parallel = w.parallel;
    std::vector<Recommendation> recs;
    std::vector<std::string> expanded;
    for (const auto& name : names) {
        if (normalize_name(name) == "local") {
            for (const auto& id : local_gpu_ids(catalog))
                if (std::find(expanded.begin(), expanded.end(), id) == expanded.end()) expanded.push_back(id);
        } else {
            expanded.push_back(name);
        }
    }
    for (const auto& name : expanded) recs.push_back(evaluate_plan(w, resolve_gpu(catalog, name), w.gpus, options));
    const MemoryEstimate memory = estimate(w);
    if (ctx.json()) print_json(ctx.out, recommend_json(w, memory, recs, recs.size(), options));
    else ctx.out << recommend_text(w, memory, recs, recs.size(), options, recs.size(), ctx.format, ctx.style);
    return kExitOk;
}

struct GpuFilters {
    std::string vendor, segment, min_memory, min_bandwidth, supports, sort = "id";
};

int cmd_gpus(Context& ctx, const GpuFilters& f) {
    const Catalog catalog = load_catalog(ctx.common, ctx.in, ctx.config);
    const std::optional<std::string> vendor =
        f.vendor.empty() ? std::nullopt : std::optional(parse_choice(f.vendor, "--vendor", {"nvidia", "amd", "intel", "apple"}));
    const std::optional<std::string> segment =
        f.segment.empty() ? std::nullopt
                          : std::optional(parse_choice(f.segment, "--segment", {"consumer", "workstation", "datacenter"}));
    const std::uint64_t min_memory = f.min_memory.empty() ? 0 : parse_bytes(f.min_memory, "--min-memory");
    const double min_bw = f.min_bandwidth.empty() ? 0 : parse_bandwidth_gbps(f.min_bandwidth, "--min-bandwidth");
    const std::string supports =
        f.supports.empty() ? "" : parse_choice(f.supports, "--supports", {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "av1", "nvlink"});
    const std::string sort = parse_choice(f.sort, "--sort", {"id", "memory", "bandwidth", "bf16", "price", "tdp"});
    std::vector<const Gpu*> list;
    for (const Gpu& g : catalog.gpus) {
        if (vendor && g.vendor != *vendor) continue;
        if (segment && g.segment != *segment) continue;
        if (g.memory_bytes < min_memory || g.memory_bandwidth_gbps < min_bw) continue;
        const auto& t = g.tflops;
        if ((supports == "fp32" && !t.fp32) || (supports == "tf32" && !t.tf32) || (supports == "fp16" && !t.fp16) ||
            (supports == "bf16" && !t.bf16) || (supports == "fp8" && !t.fp8) || (supports == "int8" && !t.int8) ||
            (supports == "av1" && !g.av1_encode.value_or(false)) || (supports == "nvlink" && g.interconnect_type == "none"))
            continue;
        list.push_back(&g);
    }
    const auto key = [&](const Gpu* g) -> double {
        if (sort == "memory") return static_cast<double>(g->memory_bytes);
        if (sort == "bandwidth") return g->memory_bandwidth_gbps;
        if (sort == "bf16") return g->tflops.bf16.value_or(-1);
        if (sort == "price") return g->price ? -g->price->usd : -1e18;  // cheapest first
        if (sort == "tdp") return -g->tdp_watts.value_or(1e9);
        return 0;
    };
    std::stable_sort(list.begin(), list.end(), [&](const Gpu* a, const Gpu* b) {
        if (sort != "id" && key(a) != key(b)) return key(a) > key(b);
        return a->id < b->id;
    });
    if (ctx.json()) {
        nlohmann::ordered_json j;
        j["schema"] = kSchemaVersion;
        j["catalog_date"] = catalog.date;
        j["gpus"] = nlohmann::ordered_json::array();
        for (const Gpu* g : list) j["gpus"].push_back(gpu_json(*g));
        print_json(ctx.out, j);
    } else {
        ctx.out << render(gpus_table(list), ctx.format, ctx.style);
        if (ctx.format == Format::Table) ctx.out << fmt::format("{} GPUs\n", list.size());
    }
    return kExitOk;
}

int cmd_gpu_show(Context& ctx, const std::string& name) {
    const Catalog catalog = load_catalog(ctx.common, ctx.in, ctx.config);
    const Gpu& g = resolve_gpu(catalog, name);
    if (ctx.json()) {
        nlohmann::ordered_json j;
        j["schema"] = kSchemaVersion;
        j["gpu"] = gpu_json(g);
        print_json(ctx.out, j);
    } else {
        ctx.out << render(gpu_detail_table(g), ctx.format, ctx.style);
    }
    return kExitOk;
}

int cmd_models(Context& ctx) {
    const auto& presets = embedded::model_presets();
    if (ctx.json()) {
        nlohmann::ordered_json j;
        j["schema"] = kSchemaVersion;
        j["models"] = nlohmann::ordered_json::array();
        for (const auto& p : presets) {
            const ParamCounts c = count_params(p.arch);
            j["models"].push_back({{"id", p.id},
                                   {"name", p.name},
                                   {"hf_repo", p.hf_repo},
                                   {"params", c.total()},
                                   {"active_params", c.active()},
                                   {"published_params", p.published_params},
                                   {"source", p.source}});
        }
        print_json(ctx.out, j);
        return kExitOk;
    }
    ctx.out << render(models_table(presets), ctx.format, ctx.style);
    if (ctx.format != Format::Table) return kExitOk;
    ctx.out << fmt::format("{} presets\n", presets.size());
    return kExitOk;
}

int cmd_rules(Context& ctx) {
    if (ctx.json()) {
        nlohmann::ordered_json j;
        j["schema"] = kSchemaVersion;
        j["rules"] = nlohmann::ordered_json::array();
        for (const Rule& r : rule_registry())
            j["rules"].push_back({{"id", r.id}, {"kind", to_string(r.kind)}, {"description", r.description}});
        print_json(ctx.out, j);
    } else {
        ctx.out << render(rules_table(), ctx.format, ctx.style);
    }
    return kExitOk;
}

// Reads JSON Lines from a file or stdin and writes one result per line;
// blank lines are skipped; any failed line makes the exit code 2.
int cmd_batch(Context& ctx, const std::string& path) {
    const Catalog catalog = load_catalog(ctx.common, ctx.in, ctx.config);
    const auto& presets = embedded::model_presets();
    std::ifstream file;
    std::istream* input = &ctx.in;
    if (path != "-") {
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("batch input '{}' is a directory", path));
        file.open(path, std::ios::binary);
        if (!file) throw InputError(fmt::format("batch input '{}' cannot be read: no such file or no permission", path));
        input = &file;
    }
    std::string line;
    std::size_t number = 0, failed = 0;
    std::string buffer;
    while (std::getline(*input, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const BatchLineResult r = run_batch_line(line, number, catalog, presets);
        if (!r.ok) ++failed;
        buffer += r.json;
        buffer += '\n';
        if (buffer.size() > (1u << 16)) {
            ctx.out << buffer;
            buffer.clear();
        }
    }
    ctx.out << buffer;
    ctx.out.flush();
    if (failed > 0) {
        spdlog::warn("{} of {} lines failed (see their \"error\" objects)", failed, number);
        return kExitInput;
    }
    return kExitOk;
}

void setup_logging(std::ostream& err, int verbosity) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err);
    auto logger = std::make_shared<spdlog::logger>("gpuadvise", sink);
    logger->set_pattern("gpuadvise: %l: %v");
    logger->set_level(verbosity >= 2 ? spdlog::level::debug : verbosity == 1 ? spdlog::level::info : spdlog::level::warn);
    spdlog::set_default_logger(logger);
}

// CLI11 messages can span lines; the contract is one line.
std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

}  // namespace

int run(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
    CLI::App app{"gpuadvise: which GPU, and how many, will run your AI workload, and how fast.\n"
                 "Estimates the memory a workload needs (model size or preset, method, precision, batch, sequence)\n"
                 "and ranks the GPUs of its catalog that can run it.",
                 "gpuadvise"};
    app.footer(std::string("Examples:\n  gpuadvise --model 8B --method qlora\n"
                           "  gpuadvise --model llama-3-70b --method inference --quant int4 --json\n"
                           "  gpuadvise check --gpu rtx-4090 --model 8B --method lora\n\n") +
               kExitCodesHelp);
    // A callback, so the catalog is parsed only when --version is asked for.
    app.set_version_flag("-V,--version", [] {
        std::string date;
        try {
            date = embedded::catalog().date;
        } catch (...) {
            date = "unreadable";
        }
        return std::string("gpuadvise ") + GPUADVISE_VERSION + " (catalog " + date + ")";
    });
    Context ctx{in, out, err, {}, {}, Format::Table, {}};
    Common& common = ctx.common;

    WorkloadFlags main_flags;
    RankFlags main_rank;
    main_flags.add(app);
    main_rank.add(app, true);
    common.add(app);

    // Each subcommand gets its own copies of the flags it takes.
    Common sub_common;
    auto* estimate_cmd = app.add_subcommand("estimate", "Print only the memory requirement (and, with --gpu, the speed on that card)");
    WorkloadFlags estimate_flags;
    RankFlags estimate_rank;
    std::string estimate_gpu;
    estimate_flags.add(*estimate_cmd);
    estimate_rank.add(*estimate_cmd, false);
    estimate_cmd->add_option("--gpu", estimate_gpu, "Also estimate speed on this GPU (with --gpus N cards)");
    sub_common.add(*estimate_cmd);

    auto* check_cmd = app.add_subcommand("check", "Does the workload fit this GPU? Exit 0 yes, 1 no, 2 bad input");
    WorkloadFlags check_flags;
    RankFlags check_rank;
    std::string check_gpu;
    check_flags.add(*check_cmd);
    check_rank.add(*check_cmd, false);
    check_cmd->add_option("--gpu", check_gpu, "The GPU to check (id, alias or name; 'local' for this machine's)")->required();
    sub_common.add(*check_cmd);

    auto* compare_cmd = app.add_subcommand("compare", "The same workload on several GPUs side by side");
    WorkloadFlags compare_flags;
    RankFlags compare_rank;
    std::vector<std::string> compare_gpus;
    compare_flags.add(*compare_cmd);
    compare_rank.add(*compare_cmd, false);
    compare_cmd->add_option("gpus", compare_gpus, "GPUs to compare")->required();
    sub_common.add(*compare_cmd);

    auto* gpus_cmd = app.add_subcommand("gpus", "List the GPU catalog (filter, sort, JSON); 'gpus show ID' for one card");
    GpuFilters filters;
    gpus_cmd->add_option("--vendor", filters.vendor, "nvidia | amd | intel | apple");
    gpus_cmd->add_option("--segment", filters.segment, "consumer | workstation | datacenter");
    gpus_cmd->add_option("--min-memory", filters.min_memory, "At least this much memory (48GB, 80GiB)");
    gpus_cmd->add_option("--min-bandwidth", filters.min_bandwidth, "At least this bandwidth (1TB/s, 900GB/s)");
    gpus_cmd->add_option("--supports", filters.supports, "fp32 | tf32 | fp16 | bf16 | fp8 | int8 | av1 | nvlink");
    gpus_cmd->add_option("--sort", filters.sort, "id | memory | bandwidth | bf16 | price | tdp  [default: id]");
    sub_common.add(*gpus_cmd);
    auto* show_cmd = gpus_cmd->add_subcommand("show", "Every field of one GPU with its sources");
    std::string show_name;
    show_cmd->add_option("gpu", show_name, "GPU id, alias or name")->required();
    Common show_common;
    show_common.add(*show_cmd);

    auto* batch_cmd = app.add_subcommand(
        "batch", "Read JSON Lines workloads (keys = long flags without dashes, plus gpu and top) and write one JSON "
                 "result per line; exit 2 if any line failed");
    std::string batch_path = "-";
    batch_cmd->add_option("input", batch_path, "JSON Lines file ('-' or nothing reads stdin)");
    sub_common.add(*batch_cmd);

    auto* completion_cmd = app.add_subcommand("completion", "Print the shell completion script: bash | zsh | fish");
    std::string completion_shell;
    completion_cmd->add_option("shell", completion_shell, "bash | zsh | fish")->required();
    auto* man_cmd = app.add_subcommand("man", "Print the man page (roff)");
    man_cmd->group("");  // hidden: used by the build to install gpuadvise.1

    auto* detect_cmd = app.add_subcommand("detect", "List this machine's accelerators (nvidia-smi, rocm-smi/amd-smi, xpu-smi, "
                                                    "/sys) and their catalog ids; exit 1 when there are none");
    sub_common.add(*detect_cmd);

    auto* models_cmd = app.add_subcommand("models", "List the model presets");
    sub_common.add(*models_cmd);
    auto* rules_cmd = app.add_subcommand("rules", "List the rules that reject, warn, tip and adjust scores");
    sub_common.add(*rules_cmd);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e, out, err);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e, out, err);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e, out, err);
    } catch (const CLI::ParseError& e) {
        err << "gpuadvise: " << one_line(e.what()) << " (see gpuadvise --help)\n";
        return kExitInput;
    }

    try {
        // The common flags of whichever command ran, folded into `common`
        // after the environment and config file have filled the gaps.
        Common* active = &common;
        CLI::App* active_app = &app;
        for (CLI::App* sub : {estimate_cmd, check_cmd, compare_cmd, gpus_cmd, models_cmd, rules_cmd, batch_cmd, detect_cmd})
            if (sub->parsed()) {
                active = &sub_common;
                active_app = sub;
            }
        if (show_cmd->parsed()) {
            active = &show_common;
            active_app = show_cmd;
        }
        setup_logging(err, std::max(common.verbosity, active->verbosity));
        ctx.config = load_config();
        std::vector<Setting> settings{
            {"format", "GPUADVISE_FORMAT", active_app->get_option_no_throw("--format"), &active->format},
            {"color", "GPUADVISE_COLOR", active_app->get_option_no_throw("--color"), &active->color},
            {"catalog", "GPUADVISE_CATALOG", active_app->get_option_no_throw("--catalog"), &active->catalog_path}};
        const auto add_rank = [&](RankFlags& r, CLI::App& a) {
            settings.push_back({"top", "GPUADVISE_TOP", r.top_opt, &r.top});
            settings.push_back({"rank_by", "GPUADVISE_RANK_BY", r.rank_by_opt, &r.rank_by});
            settings.push_back({"os", "GPUADVISE_OS", r.os_opt, &r.os});
            settings.push_back({"amortize_years", "GPUADVISE_AMORTIZE_YEARS", a.get_option_no_throw("--amortize-years"),
                                &r.amortize_years});
            settings.push_back({"kwh_price", "GPUADVISE_KWH_PRICE", a.get_option_no_throw("--kwh-price"), &r.kwh_price});
            settings.push_back({"cloud_price_per_gpu_hour", "GPUADVISE_CLOUD_PRICE_PER_GPU_HOUR",
                                a.get_option_no_throw("--cloud-price-per-gpu-hour"), &r.cloud_price});
        };
        if (estimate_cmd->parsed()) add_rank(estimate_rank, *estimate_cmd);
        else if (check_cmd->parsed()) add_rank(check_rank, *check_cmd);
        else if (compare_cmd->parsed()) add_rank(compare_rank, *compare_cmd);
        else if (active == &common) add_rank(main_rank, app);
        apply_settings(settings, ctx.config);
        if (active != &common) {
            const auto fold = [](std::string& into, const std::string& from) {
                if (!from.empty()) into = from;
            };
            fold(common.catalog_path, active->catalog_path);
            fold(common.merge_path, active->merge_path);
            fold(common.format, active->format);
            fold(common.color, active->color);
            common.json = common.json || active->json;
        }
        for (const auto& line : ctx.config.applied) spdlog::info("setting {}", line);
        resolve_output(ctx, &out == &std::cout && isatty(STDOUT_FILENO) != 0);
        if (estimate_cmd->parsed()) return cmd_estimate(ctx, estimate_flags, estimate_gpu, estimate_rank);
        if (check_cmd->parsed()) return cmd_check(ctx, check_flags, check_gpu, check_rank);
        if (compare_cmd->parsed()) return cmd_compare(ctx, compare_flags, compare_gpus, compare_rank);
        if (show_cmd->parsed()) return cmd_gpu_show(ctx, show_name);
        if (gpus_cmd->parsed()) return cmd_gpus(ctx, filters);
        if (models_cmd->parsed()) return cmd_models(ctx);
        if (completion_cmd->parsed()) {
            out << completion_script(app, parse_choice(completion_shell, "completion shell", {"bash", "zsh", "fish"}));
            return kExitOk;
        }
        if (man_cmd->parsed()) {
            out << man_page(app);
            return kExitOk;
        }
        if (batch_cmd->parsed()) return cmd_batch(ctx, batch_path);
        if (detect_cmd->parsed()) return cmd_detect(ctx);
        if (rules_cmd->parsed()) return cmd_rules(ctx);
        return cmd_recommend(ctx, main_flags, main_rank);
    } catch (const InputError& e) {
        err << "gpuadvise: " << one_line(e.what()) << '\n';
        return kExitInput;
    } catch (const std::bad_alloc&) {
        err << "gpuadvise: out of memory while reading the input; is a file far larger than expected?\n";
        return kExitInput;
    } catch (const std::exception& e) {
        // Not expected: a bug. Still one line and a non-zero exit, never a crash.
        err << "gpuadvise: internal error: " << one_line(e.what()) << " (please report it)\n";
        return kExitInput;
    }
}

}  // namespace gpuadvise::cli
