// The speed model's fitted coefficients (data/attainable.json "fit"): with
// --fit each is searched on its rows, the value minimising the median
// |log(estimate / measured)|, and written with --attainable. Each
// coefficient is fitted on the rows of the mechanism it stands for, not on
// the rows it is then checked against.
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

namespace {

struct Target {
    std::string_view name;
    std::string what;
    // The rows the coefficient is fitted on.
    bool (*keep)(const Row& row);
    double low, high;  // the search range (a geometric grid)
};

bool on_apple(const Row& r) {
    return r.at("gpu").rfind("apple-", 0) == 0;
}
bool gguf_quantised(const Row& r) {
    const std::string& f = r.at("weight_format");
    return f.rfind("gguf-", 0) == 0 && f != "gguf-f16";
}

const std::array<Target, 7> kTargets{{
    {"training_width",
     "W of the matmul efficiency h / (h + W) an inference prefill's matmuls reach at hidden width "
     "h, on the attainable rate; fitted on the training rows of 1-8 GPUs of "
     "throughput_visible.csv and throughput_measured.csv before training's own law "
     "(training_width_per_ridge)",
     [](const Row& r) {
         return r.at("phase") == "train" &&
                (r.at("num_gpus").empty() || std::stoi(r.at("num_gpus")) <= 8);
     },
     100, 20000},
    {"training_width_per_ridge",
     "k of a training step's matmul efficiency h / (h + W), W = k x the card's attainable FLOP/s "
     "over its bytes/s of bandwidth (its ridge point); fitted on the training rows of 1-8 GPUs of "
     "throughput_visible.csv and throughput_measured.csv",
     [](const Row& r) {
         return r.at("phase") == "train" &&
                (r.at("num_gpus").empty() || std::stoi(r.at("num_gpus")) <= 8);
     },
     0.05, 50},
    {"hf_expert_iteration_s",
     "seconds of one iteration of Hugging Face transformers' Python loop over an MoE layer's "
     "experts (a torch.where that syncs, the expert's linears); fitted on the bf16 transformers "
     "rows of MoE models (Qwen3-30B-A3B on an H20, T-QWEN3SPD)",
     [](const Row& r) {
         return r.at("engine") == "transformers" && r.at("weight_format") == "bf16" &&
                r.at("model_type").find("moe") != std::string::npos;
     },
     1e-6, 1e-2},
    {"hf_fp8_linear_s",
     "seconds transformers' fine-grained FP8 linear adds per call (input quantisation and a "
     "Triton block GEMM); fitted on the FP8 transformers rows of dense models (Qwen3 0.6B-32B on "
     "an H20, T-QWEN3SPD)",
     [](const Row& r) {
         return r.at("engine") == "transformers" && r.at("weight_format") == "fp8" &&
                r.at("model_type").find("moe") == std::string::npos;
     },
     1e-6, 1e-2},
    {"hf_fp8_expert_linear_s",
     "seconds one FP8 linear of an MoE expert adds to transformers' Python loop over the experts "
     "(its input quantisation and block GEMM, launched for every expert, tokens or none); fitted "
     "on the FP8 transformers rows of MoE models (Qwen3-30B-A3B on an H20, T-QWEN3SPD)",
     [](const Row& r) {
         return r.at("engine") == "transformers" && r.at("weight_format") == "fp8" &&
                r.at("model_type").find("moe") != std::string::npos;
     },
     1e-6, 1e-2},
    {"llamacpp_mmq_share",
     "share of the int8 attainable rate llama.cpp's MMQ kernels reach in the prefill of quantised "
     "GGUF weights on CUDA cards; fitted on llama.cpp's prefill rows of quantised GGUF on NVIDIA "
     "cards of current builds (discussion 15013; the May-2024 rows of XiongjieDai have their "
     "build's own share, bench/data/engine_builds.csv)",
     [](const Row& r) {
         return r.at("engine") == "llama.cpp" && r.at("phase") == "prefill" && gguf_quantised(r) &&
                r.at("gpu").rfind("nvidia-", 0) == 0 && r.at("id").rfind("T-XDAI-", 0) != 0 &&
                r.at("id").rfind("T-LCPPVK-", 0) != 0;
     },
     0.01, 1},
    {"metal_llamacpp_bandwidth_share",
     "share of the llama.cpp profile's decode bandwidth its Metal backend reaches on Apple parts; "
     "fitted on llama.cpp's decode rows on Apple parts",
     [](const Row& r) {
         return r.at("engine") == "llama.cpp" && r.at("phase") == "decode" && on_apple(r);
     },
     0.2, 1.5},
}};

// The engine profiles fitted on their own rows (decode, prefill, end-to-end
// generate), one coefficient at a time over three rounds: llama.cpp on its
// CUDA rows but the quantised prefill (the MMQ share's), AutoAWQ, Hugging
// Face transformers (the Python expert loop and the FP8 linears are their own
// coefficients, so its MoE and FP8 rows are left to those), litgpt, MLX,
// gpt-fast, SGLang (Qwen's H20 rows) and vLLM (Qwen2.5's A100 rows). The
// per-SM streaming rate is fitted only where the engine has rows on cards of
// known SM count; TensorRT-LLM's and ExLlama's profiles stay assumed.
// The coefficients of a profile the fit may move (EngineTarget::params).
enum : unsigned {
    kShare = 1,          // bandwidth share
    kLayer = 2,          // per-layer cost
    kStep = 4,           // per-step cost
    kPrefill = 8,        // prefill share
    kStream = 16,        // GB/s per SM
    kMetalPrefill = 32,  // prefill share on Metal
    kMetalLayer = 64,    // per-layer cost on Metal
    kAll = kShare | kLayer | kStep | kPrefill | kStream,
};
struct EngineTarget {
    std::string_view id;
    bool (*keep)(const Row& row);
    unsigned params = kAll;
    // An engine whose fitted bandwidth share and per-layer cost this one
    // takes instead of fitting them (its rows are on one card and one model
    // family, where the share, the per-SM rate and the per-layer cost cannot
    // be told apart); "" takes none.
    std::string_view share_of = "";
    // An older build whose rows these are (bench/data/engine_builds.csv):
    // the per-layer and per-step costs fitted go to it, not the profile.
    std::string_view build = "";
};
// The per-SM rate is told apart from the bandwidth share only where an
// engine's rows span cards of different bandwidth per SM: llama.cpp's (from
// RTX 3070s to H100s) and transformers' (A100, H20, Titan RTX); the others'
// rows are on one card each (kNoStream).
constexpr unsigned kNoStream = kAll & ~kStream;
bool xdai(const Row& r) {
    return r.at("id").rfind("T-XDAI-", 0) == 0;
}
bool vulkan(const Row& r) {
    return r.at("id").rfind("T-LCPPVK-", 0) == 0;
}
const std::array<EngineTarget, 10> kEngines{{
    // llama.cpp's bandwidth share, per-SM rate and F16 prefill share on the
    // CUDA rows of XiongjieDai's May-2024 builds (200 decode, 72 F16
    // prefill rows on 19 cards), whose per-layer and per-step costs are
    // that build's (bench/data/engine_builds.csv)...
    {"llama.cpp",
     [](const Row& r) {
         return xdai(r) && r.at("gpu").rfind("nvidia-", 0) == 0 &&
                !(r.at("phase") == "prefill" && gguf_quantised(r));
     },
     kAll & ~kStep, "", "2024-05"},
    // ...and the current build's per-layer cost on the CUDA decode rows of
    // 2025 builds (discussion 15013): CUDA graphs since pull request 6766.
    // Its rows are all one 32-layer model, so a per-step cost could not be
    // told apart: llama.cpp's per-token costs are per layer (no per-step
    // cost fitted, 0).
    {"llama.cpp",
     [](const Row& r) {
         return !xdai(r) && !vulkan(r) && r.at("gpu").rfind("nvidia-", 0) == 0 &&
                r.at("phase") == "decode";
     },
     kLayer},
    // Its Metal backend on Apple parts: the per-layer cost of its command
    // buffers and its prefill share over the datasheet peak (the profile's
    // other numbers as fitted on CUDA, the Metal bandwidth share apart).
    {"llama.cpp", [](const Row& r) { return on_apple(r); }, kMetalPrefill | kMetalLayer},
    {"autoawq", [](const Row&) { return true; }, kNoStream},
    {"transformers",
     [](const Row& r) {
         return r.at("model_type").find("moe") == std::string::npos &&
                r.at("weight_format") != "fp8";
     }},
    {"litgpt", [](const Row&) { return true; }, kNoStream},
    {"mlx", [](const Row&) { return true; }, kNoStream},
    // gpt-fast's rows are generate runs of 200 tokens after short prompts:
    // the prefill is a few per cent of them and its share is not fitted.
    {"pytorch", [](const Row& r) { return r.at("engine") == "gpt-fast"; }, kNoStream & ~kPrefill},
    // vLLM before SGLang: vLLM's rows (an A100) fit its bandwidth share and
    // costs; SGLang's are all on one H20 and one model family, so it takes
    // vLLM's bandwidth share and per-layer cost (both run CUDA graphs over
    // FlashInfer, Triton and cuBLAS kernels) and its own rows fit its per-SM
    // rate (an H20 has 78 SMs for 4 TB/s), per-step cost and prefill share.
    {"vllm", [](const Row&) { return true; }, kNoStream},
    {"sglang", [](const Row&) { return true; }, kStep | kPrefill | kStream, "vllm"},
}};

const std::map<std::string, std::string>& engine_of_row() {
    static const std::map<std::string, std::string> m{
        {"llama.cpp", "llama.cpp"}, {"autoawq", "autoawq"}, {"transformers", "transformers"},
        {"litgpt", "litgpt"},       {"mlx", "mlx"},         {"gpt-fast", "pytorch"},
        {"sglang", "sglang"},       {"vllm", "vllm"}};
    return m;
}

double median_log_error(const std::vector<const Row*>& rows, const Json& models_json,
                        const std::vector<ModelPreset>& presets, std::size_t* n) {
    std::vector<double> err;
    for (const Row* r : rows) {
        std::string why;
        if (const auto s = replay_speed(*r, models_json, presets, &why))
            err.push_back(std::fabs(std::log(s->ratio())));
    }
    if (n) *n = err.size();
    return err.empty() ? 1e300 : quantile(err, 0.5);
}

void fit_engines(const std::vector<Row>& rows, const Json& models_json,
                 const std::vector<ModelPreset>& presets, std::ostream& table) {
    table << "\n| engine profile | rows | bandwidth share | per-layer cost (s) | per-step cost (s) "
             "| prefill share | GB/s per SM | median error before | after "
             "|\n|---|---|---|---|---|---|---|---|---|\n";
    for (const EngineTarget& t : kEngines) {
        const Engine* base = find_engine(t.id);
        if (!base) continue;
        std::vector<const Row*> mine;
        std::map<std::string, int> phases;
        for (const Row& r : rows) {
            const auto e = engine_of_row().find(r.at("engine"));
            // A profile is inference's: its training rows do not depend on it.
            if (e == engine_of_row().end() || e->second != t.id || r.at("phase") == "train" ||
                !t.keep(r))
                continue;
            mine.push_back(&r);
        }
        // A second target of the same engine goes on from the first's fit.
        const auto prior = g_engine_override.find(std::string(t.id));
        Engine e = prior != g_engine_override.end() ? prior->second : *base;
        // A build's own rows are fitted with the profile's numbers in place,
        // its costs starting from the build's own.
        g_builds_active = t.build.empty();
        for (const EngineBuild& b : g_builds)
            if (b.engine == t.id && b.build == t.build) {
                e.layer_overhead_s = b.layer_overhead_s;
                e.step_overhead_s = b.step_overhead_s;
            }
        if (!t.share_of.empty())
            if (const auto it = g_engine_override.find(std::string(t.share_of));
                it != g_engine_override.end()) {
                e.bandwidth_efficiency = it->second.bandwidth_efficiency;
                e.layer_overhead_s = it->second.layer_overhead_s;
            }
        g_engine_override[std::string(t.id)] = e;
        std::size_t n = 0;
        const double before = median_log_error(mine, models_json, presets, &n);
        double best = before;
        // Each coefficient, read and written through the profile under fit;
        // the per-SM rate starts unset (no limit) and is kept only where a
        // value fits the rows better. It goes first: a per-step cost fitted
        // before it takes up what a bandwidth limit explains, and the
        // search, one coefficient at a time, keeps that.
        struct Param {
            unsigned flag;
            double (*get)(const Engine&);
            void (*set)(Engine&, double);
            double low, high;
        };
        const std::array<Param, 7> params{{
            {kStream, [](const Engine& x) { return x.stream_gbps_per_sm.value_or(0.0); },
             [](Engine& x, double v) {
                 x.stream_gbps_per_sm = v > 0 ? std::optional<double>(v) : std::nullopt;
             },
             2.0, 60.0},
            {kShare, [](const Engine& x) { return x.bandwidth_efficiency; },
             [](Engine& x, double v) { x.bandwidth_efficiency = v; }, 0.2, 1.0},
            {kLayer, [](const Engine& x) { return x.layer_overhead_s; },
             [](Engine& x, double v) { x.layer_overhead_s = v; }, 1e-6, 5e-3},
            {kStep, [](const Engine& x) { return x.step_overhead_s; },
             [](Engine& x, double v) { x.step_overhead_s = v; }, 1e-5, 2e-2},
            {kPrefill, [](const Engine& x) { return x.prefill_efficiency; },
             [](Engine& x, double v) { x.prefill_efficiency = v; }, 0.05, 1.0},
            {kMetalLayer, [](const Engine& x) { return x.metal_layer_overhead_s.value_or(0.0); },
             [](Engine& x, double v) {
                 x.metal_layer_overhead_s = v > 0 ? std::optional<double>(v) : std::nullopt;
             },
             1e-6, 5e-3},
            {kMetalPrefill,
             [](const Engine& x) { return x.metal_prefill_efficiency.value_or(0.0); },
             [](Engine& x, double v) {
                 x.metal_prefill_efficiency = v > 0 ? std::optional<double>(v) : std::nullopt;
             },
             0.05, 1.0},
        }};
        for (int round = 0; round < 3; ++round)
            for (const Param& p : params) {
                if (!(t.params & p.flag)) continue;
                Engine& cur = g_engine_override[std::string(t.id)];
                double keep = p.get(cur);
                constexpr int kSteps = 96;
                for (int i = 0; i <= kSteps; ++i) {
                    p.set(cur, p.low * std::pow(p.high / p.low, static_cast<double>(i) / kSteps));
                    const double sc = median_log_error(mine, models_json, presets, nullptr);
                    if (sc < best) {
                        best = sc;
                        keep = p.get(cur);
                    }
                }
                p.set(cur, keep);
            }
        g_builds_active = true;
        if (!t.build.empty())
            for (EngineBuild& b : g_builds)
                if (b.engine == t.id && b.build == t.build) {
                    const Engine& f = g_engine_override[std::string(t.id)];
                    b.layer_overhead_s = f.layer_overhead_s;
                    b.step_overhead_s = f.step_overhead_s;
                }
        // The phases of the rows the replay represents (the rows fitted on).
        for (const Row* r : mine) {
            std::string why;
            if (replay_speed(*r, models_json, presets, &why))
                ++phases[r->at("phase") == "end_to_end_generate" ? "generate" : r->at("phase")];
        }
        std::string counts;
        for (const auto& [phase, c] : phases)
            counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", phase, c);
        const Engine& fitted = g_engine_override[std::string(t.id)];
        const std::string what = fmt::format(
            "fitted by bench/accuracy --fit on {} rows of bench/data ({}): median error {}{}", n,
            counts, pct(std::exp(best) - 1.0),
            t.share_of.empty() ? std::string()
                               : fmt::format("; bandwidth share and per-layer cost {}'s (its rows "
                                             "are on one card)",
                                             t.share_of));
        std::string& evidence = g_engine_evidence[std::string(t.id)];
        if (t.params & kMetalPrefill)
            evidence += "; Metal per-layer cost and prefill share " + what;
        else if (t.params == kLayer)
            evidence += "; per-layer cost of the current build " + what;
        else
            evidence = t.build.empty() ? what
                                       : what + fmt::format(
                                                    " (build {}'s own costs in "
                                                    "bench/data/engine_builds.csv)",
                                                    t.build);
        table << fmt::format(
            "| {}{} | {} | {:.3g} | {:.3g} | {:.3g} | {:.3g} | {} | {} | {} |\n", t.id,
            t.params & kMetalPrefill ? " (Metal)"
            : !t.build.empty()       ? fmt::format(" (build {})", t.build)
            : t.params == kLayer     ? " (current build's per-layer cost)"
                                     : "",
            n, fitted.bandwidth_efficiency,
            t.params & kMetalLayer ? fitted.metal_layer_overhead_s.value_or(0.0)
                                   : fitted.layer_overhead_s,
            fitted.step_overhead_s,
            t.params & kMetalPrefill ? fitted.metal_prefill_efficiency.value_or(0.0)
                                     : fitted.prefill_efficiency,
            fitted.stream_gbps_per_sm ? fmt::format("{:.3g}", *fitted.stream_gbps_per_sm) : "-",
            pct(std::exp(before) - 1.0), pct(std::exp(best) - 1.0));
        // After a build's fit the profile keeps the current build's costs.
        if (!t.build.empty()) {
            Engine& f = g_engine_override[std::string(t.id)];
            f.layer_overhead_s = base->layer_overhead_s;
            f.step_overhead_s = base->step_overhead_s;
        }
    }
}

}  // namespace

namespace {

// Engines without rows on cards of known SM count that take another
// engine's fitted per-SM streaming rate (assumed, said in their evidence):
// vLLM and TensorRT-LLM run CUDA-graph decode over the same kinds of
// kernels as SGLang; ExLlama's kernels, like llama.cpp's, are tuned for
// consumer cards (turboderp/exllama issue 266: an A100 decodes about as
// fast as an RTX 3090).
const std::array<std::pair<std::string_view, std::string_view>, 4> kStreamFrom{{
    {"vllm", "sglang"},
    {"tensorrt-llm", "sglang"},
    {"exllamav2", "llama.cpp"},
    {"exllamav3", "llama.cpp"},
}};

}  // namespace

// data/engines.json with the fitted profiles: each fitted engine's line (and
// the engines that run its kernels and say so in their evidence: Ollama and
// LM Studio run llama.cpp's) gets its numbers and its evidence; the engines
// of kStreamFrom get their source's per-SM rate.
void write_engines(const std::string& path) {
    std::string text = read_file(path);
    std::istringstream in(text);
    std::ostringstream out;
    const auto set = [](std::string& line, const std::string& key, const std::string& value) {
        const std::string k = "\"" + key + "\": ";
        const auto at = line.find(k);
        if (at == std::string::npos) return;
        auto end = at + k.size();
        if (line[end] == '"') {
            end = line.find('"', end + 1) + 1;
        } else {
            while (end < line.size() && line[end] != ',' && line[end] != '}') ++end;
        }
        line.replace(at + k.size(), end - at - k.size(), value);
    };
    for (std::string line; std::getline(in, line);) {
        for (const auto& [id, e] : g_engine_override) {
            const bool own = line.find("\"id\": \"" + id + "\"") != std::string::npos;
            const bool copy =
                id == "llama.cpp" && (line.find("\"id\": \"ollama\"") != std::string::npos ||
                                      line.find("\"id\": \"lm-studio\"") != std::string::npos);
            if (!own && !copy) continue;
            set(line, "bandwidth_efficiency", fmt::format("{:.3g}", e.bandwidth_efficiency));
            set(line, "layer_overhead_s", fmt::format("{:.3g}", e.layer_overhead_s));
            set(line, "prefill_efficiency", fmt::format("{:.3g}", e.prefill_efficiency));
            set(line, "step_overhead_s", fmt::format("{:.3g}", e.step_overhead_s));
            set(line, "stream_gbps_per_sm",
                e.stream_gbps_per_sm ? fmt::format("{:.3g}", *e.stream_gbps_per_sm) : "null");
            if (e.metal_prefill_efficiency)
                set(line, "metal_prefill_efficiency",
                    fmt::format("{:.3g}", *e.metal_prefill_efficiency));
            if (e.metal_layer_overhead_s)
                set(line, "metal_layer_overhead_s",
                    fmt::format("{:.3g}", *e.metal_layer_overhead_s));
            if (own) {
                std::string evidence = g_engine_evidence[id];
                for (const auto& [to, from] : kStreamFrom)
                    if (to == id)
                        evidence += fmt::format("; per-SM streaming rate {}'s (assumed)", from);
                set(line, "calibrated", "true");
                set(line, "evidence", "\"" + evidence + "\"");
            }
        }
        for (const auto& [to, from] : kStreamFrom) {
            const auto it = g_engine_override.find(std::string(from));
            if (it == g_engine_override.end() ||
                line.find("\"id\": \"" + std::string(to) + "\"") == std::string::npos)
                continue;
            const Engine& e = it->second;
            set(line, "stream_gbps_per_sm",
                e.stream_gbps_per_sm ? fmt::format("{:.3g}", *e.stream_gbps_per_sm) : "null");
        }
        out << line << "\n";
    }
    std::ofstream f(path);
    f << out.str();
    if (!f) throw std::runtime_error("cannot write " + path);
}

void fit_report(const std::string& dir, const Json& models_json,
                const std::vector<ModelPreset>& presets, const std::string& only) {
    const auto rows = throughput_rows(dir);
    std::cout << "\n# Fitted coefficients\n\n"
              << "`gpuadvise_accuracy ... --fit`: each coefficient of the speed model that is "
                 "fitted, searched on a geometric grid over the rows of its own mechanism, the "
                 "value minimising the median |log(estimate / measured)|; written to "
                 "`data/attainable.json` (\"fit\") with `--attainable`.\n\n"
              << "| coefficient | rows | value | median error before | after | what |\n"
                 "|---|---|---|---|---|---|\n";
    bool engines_done = false;
    std::ostringstream engines;  // printed after the coefficients' table
    for (const Target& t : kTargets) {
        // --fit-only NAME: that coefficient alone; the others (and the engine
        // profiles) keep the table's values.
        if (!only.empty() && t.name != only) continue;
        // The engine profiles after the training width (prefill uses the
        // width law) and before the coefficients that sit on llama.cpp's.
        if (!engines_done && only.empty() && t.name == "llamacpp_mmq_share") {
            fit_engines(rows, models_json, presets, engines);
            engines_done = true;
        }
        std::vector<const Row*> mine;
        for (const Row& r : rows)
            if (t.keep(r)) mine.push_back(&r);
        const auto score = [&](std::size_t* n) {
            return median_log_error(mine, models_json, presets, n);
        };
        std::size_t n = 0;
        const double before = score(&n);
        double best = speed_fit(t.name), best_score = before;
        constexpr int kSteps = 64;
        for (int i = 0; i <= kSteps; ++i) {
            const double v = t.low * std::pow(t.high / t.low, static_cast<double>(i) / kSteps);
            set_speed_fit_override(t.name, v);
            const double sc = score(nullptr);
            if (sc < best_score) {
                best_score = sc;
                best = v;
            }
        }
        set_speed_fit_override(t.name, best);
        g_fitted[std::string(t.name)] = {best, static_cast<std::int64_t>(n), t.what};
        std::cout << fmt::format("| {} | {} | {:.4g} | {} | {} | {} |\n", t.name, n, best,
                                 pct(std::exp(before) - 1.0), pct(std::exp(best_score) - 1.0),
                                 t.what);
    }
    // The older builds' quantised-prefill share, each on its own rows.
    std::cout << engines.str();
    for (EngineBuild& b : g_builds) {
        if (!only.empty()) break;
        std::vector<const Row*> mine;
        for (const Row& r : rows)
            if (r.at("engine") == b.engine && r.at("phase") == "prefill" && gguf_quantised(r) &&
                r.at("gpu").rfind("nvidia-", 0) == 0 && build_of(r.at("id"), b.engine) == &b)
                mine.push_back(&r);
        if (mine.empty()) continue;
        std::size_t n = 0;
        const double before = median_log_error(mine, models_json, presets, &n);
        double best = b.mmq_share, best_score = before;
        constexpr int kSteps = 64;
        for (int i = 0; i <= kSteps; ++i) {
            b.mmq_share = 0.01 * std::pow(100.0, static_cast<double>(i) / kSteps);
            const double sc = median_log_error(mine, models_json, presets, nullptr);
            if (sc < best_score) {
                best_score = sc;
                best = b.mmq_share;
            }
        }
        b.mmq_share = best;
        std::cout << fmt::format(
            "\n{} build {}: quantised-prefill share {:.4g} on {} rows (median error {} -> {}); "
            "per-layer cost {:.3g} s, per-step cost {:.3g} s\n",
            b.engine, b.build, best, n, pct(std::exp(before) - 1.0),
            pct(std::exp(best_score) - 1.0), b.layer_overhead_s, b.step_overhead_s);
    }
}

}  // namespace accuracy
