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

const std::array<Target, 6> kTargets{{
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
    {"llamacpp_mmq_share",
     "share of the int8 attainable rate llama.cpp's MMQ kernels reach in the prefill of quantised "
     "GGUF weights on CUDA cards; fitted on llama.cpp's prefill rows of quantised GGUF on NVIDIA "
     "cards",
     [](const Row& r) {
         return r.at("engine") == "llama.cpp" && r.at("phase") == "prefill" && gguf_quantised(r) &&
                r.at("gpu").rfind("nvidia-", 0) == 0;
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
// coefficients, so its MoE and FP8 rows are left to those), litgpt, MLX and
// gpt-fast. SGLang's rows are all on one H20 and vLLM's and TensorRT-LLM's
// are not fixed-batch: their profiles stay assumed.
struct EngineTarget {
    std::string_view id;
    bool (*keep)(const Row& row);
};
const std::array<EngineTarget, 6> kEngines{{
    {"llama.cpp",
     [](const Row& r) {
         return !on_apple(r) && r.at("gpu").rfind("nvidia-", 0) == 0 &&
                !(r.at("phase") == "prefill" && gguf_quantised(r));
     }},
    {"autoawq", [](const Row&) { return true; }},
    {"transformers",
     [](const Row& r) {
         return r.at("model_type").find("moe") == std::string::npos &&
                r.at("weight_format") != "fp8";
     }},
    {"litgpt", [](const Row&) { return true; }},
    {"mlx", [](const Row&) { return true; }},
    {"pytorch", [](const Row& r) { return r.at("engine") == "gpt-fast"; }},
}};

const std::map<std::string, std::string>& engine_of_row() {
    static const std::map<std::string, std::string> m{
        {"llama.cpp", "llama.cpp"}, {"autoawq", "autoawq"}, {"transformers", "transformers"},
        {"litgpt", "litgpt"},       {"mlx", "mlx"},         {"gpt-fast", "pytorch"}};
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
    table << "\n| engine profile | rows | bandwidth share | per-layer cost (s) | prefill share "
             "| median error before | after |\n|---|---|---|---|---|---|---|\n";
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
        Engine e = *base;
        g_engine_override[std::string(t.id)] = e;
        std::size_t n = 0;
        const double before = median_log_error(mine, models_json, presets, &n);
        double best = before;
        struct Param {
            double Engine::*field;
            double low, high;
        };
        const std::array<Param, 3> params{{{&Engine::bandwidth_efficiency, 0.2, 1.0},
                                           {&Engine::layer_overhead_s, 1e-6, 5e-3},
                                           {&Engine::prefill_efficiency, 0.05, 1.0}}};
        for (int round = 0; round < 3; ++round)
            for (const Param& p : params) {
                Engine& cur = g_engine_override[std::string(t.id)];
                double keep = cur.*p.field;
                constexpr int kSteps = 96;
                for (int i = 0; i <= kSteps; ++i) {
                    cur.*p.field =
                        p.low * std::pow(p.high / p.low, static_cast<double>(i) / kSteps);
                    const double sc = median_log_error(mine, models_json, presets, nullptr);
                    if (sc < best) {
                        best = sc;
                        keep = cur.*p.field;
                    }
                }
                cur.*p.field = keep;
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
        g_engine_evidence[std::string(t.id)] = fmt::format(
            "fitted by bench/accuracy --fit on {} rows of bench/data ({}): median error {}", n,
            counts, pct(std::exp(best) - 1.0));
        table << fmt::format("| {} | {} | {:.3g} | {:.3g} | {:.3g} | {} | {} |\n", t.id, n,
                             fitted.bandwidth_efficiency, fitted.layer_overhead_s,
                             fitted.prefill_efficiency, pct(std::exp(before) - 1.0),
                             pct(std::exp(best) - 1.0));
    }
}

}  // namespace

// data/engines.json with the fitted profiles: each fitted engine's line (and
// the engines that run its kernels and say so in their evidence: Ollama and
// LM Studio run llama.cpp's) gets its three numbers and its evidence.
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
            if (own) {
                set(line, "calibrated", "true");
                set(line, "evidence", "\"" + g_engine_evidence[id] + "\"");
            }
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
    std::cout << engines.str();
}

}  // namespace accuracy
