#include "accuracy_common.hpp"

namespace accuracy {

std::vector<BandRow> g_bands;
std::vector<RateSample> g_rates;
std::map<std::string, Engine> g_engine_override;
std::map<std::string, std::string> g_engine_evidence;
std::vector<EngineBuild> g_builds;
bool g_builds_active = true;

void load_builds(const std::string& dir) {
    const std::string path = dir + "/engine_builds.csv";
    if (!std::ifstream(path)) return;
    for (const bench::Row& r : bench::parse_csv(read_file(path)))
        g_builds.push_back({r.at("engine"), r.at("build"), r.at("rows"), r.at("source"),
                            std::stod(r.at("layer_overhead_s")), std::stod(r.at("step_overhead_s")),
                            std::stod(r.at("mmq_share"))});
}

void write_builds(const std::string& dir) {
    std::ofstream f(dir + "/engine_builds.csv");
    f << "engine,build,rows,layer_overhead_s,step_overhead_s,mmq_share,source\n";
    const auto quote = [](const std::string& v) {
        std::string out = "\"";
        for (const char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
        return out + "\"";
    };
    for (const EngineBuild& b : g_builds)
        f << fmt::format("{},{},{},{:.3g},{:.3g},{:.4g},{}\n", b.engine, b.build, b.rows,
                         b.layer_overhead_s, b.step_overhead_s, b.mmq_share, quote(b.source));
    if (!f) throw std::runtime_error("cannot write " + dir + "/engine_builds.csv");
}

const EngineBuild* build_of(const std::string& row_id, std::string_view engine) {
    if (!g_builds_active) return nullptr;
    for (const EngineBuild& b : g_builds)
        if (b.engine == engine && starts_with(row_id, b.rows)) return &b;
    return nullptr;
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

bool starts_with(const std::string& s, std::string_view p) {
    return s.rfind(p, 0) == 0;
}

// The row's model as a config.json: the preset's real config when the row
// names a preset with the same shape, else one written from the row's
// architecture columns. litgpt materialises an untied lm_head for tied
// checkpoints (ground-truth README), so its rows are replayed untied.
std::optional<std::string> model_config(const Row& r, const Json& models_json,
                                        const std::vector<ModelPreset>& presets, std::string* why) {
    if (r.at("layers").empty() || r.at("hidden").empty()) {
        *why = "not a transformer language model (no architecture columns)";
        return std::nullopt;
    }
    const bool litgpt = starts_with(r.at("source"), "Lightning-AI/litgpt");
    Json config;
    const ModelPreset* p = find_preset(presets, r.at("model"));
    if (p && std::to_string(p->arch.hidden) == r.at("hidden") &&
        std::to_string(p->arch.layers) == r.at("layers")) {
        for (const auto& m : models_json["models"])
            if (m["id"] == p->id) config = m["config"];
    }
    if (config.is_null()) {
        const std::string type = r.at("model_type");
        config["model_type"] = type;
        config["num_hidden_layers"] = std::stoll(r.at("layers"));
        config["hidden_size"] = std::stoll(r.at("hidden"));
        const long long inter = std::stoll(r.at("intermediate"));
        config["intermediate_size"] =
            type == "qwen" ? 2 * inter : inter;  // Qwen-1 stores both branches
        config["num_attention_heads"] = std::stoll(r.at("heads"));
        config["num_key_value_heads"] = std::stoll(r.at("kv_heads"));
        config["vocab_size"] = std::stoll(r.at("vocab"));
        config["tie_word_embeddings"] = r.at("tied_embeddings") == "1";
        if (!r.at("moe_experts").empty() && r.at("moe_experts") != "0") {
            config["num_local_experts"] = std::stoll(r.at("moe_experts"));
            config["num_experts_per_tok"] = std::stoll(r.at("moe_active_experts"));
            config["moe_intermediate_size"] = inter;
        }
    }
    if (litgpt) {
        if (config.contains("text_config")) config["text_config"]["tie_word_embeddings"] = false;
        config["tie_word_embeddings"] = false;
    }
    return config.dump();
}

const Harness& harness_of(const Row& r) {
    static constexpr Harness kDefault{"", "", "hf", "", "", ""};
    const std::string source = lower(r.at("source")), notes = lower(r.at("notes"));
    for (const Harness& h : kHarnesses) {
        const std::string text = lower(h.text);
        const bool in_source = source.find(text) != std::string::npos;
        const bool in_notes = notes.find(text) != std::string::npos;
        if ((h.column == "source" && in_source) || (h.column == "notes" && in_notes) ||
            (h.column == "any" && (in_source || in_notes)))
            return h;
    }
    return kDefault;
}

Replay replay_request(const Row& r, const Json& models_json,
                      const std::vector<ModelPreset>& presets) {
    Replay out;
    const std::string method = r.at("method");
    const std::string format = r.at("weight_format");
    const std::string parallel = r.at("parallelism");
    if (method == "adapter") return {std::nullopt, "LLaMA-Adapter is not a modelled method"};
    if (parallel == "zero3-offload")
        return {std::nullopt, "CPU offload of parameters and optimizer is not modelled"};
    if (r.at("lora_targets").find("full:") != std::string::npos)
        return {std::nullopt, "embeddings trained fully next to LoRA is not modelled"};
    std::string why;
    const auto config = model_config(r, models_json, presets, &why);
    if (!config) return {std::nullopt, why};

    RowRequest q;
    q.inputs.hf_config_text = *config;
    q.inputs.hf_config_source = r.at("id");
    q.set(Field::Method, method == "pretrain" ? "full" : method);
    const std::string compute = r.at("compute_dtype");
    std::string precision = compute.empty() ? "bf16" : compute;
    const bool training = method != "inference";
    // Weight format: the quantised base, or the storage dtype of a 16-bit/32-bit model.
    static const std::map<std::string, std::string> quant{{"nf4", "nf4"},
                                                          {"int8", "int8"},
                                                          {"gptq-int4", "gptq-int4"},
                                                          {"gptq-int8", "gptq-int8"},
                                                          {"awq-int4", "awq-int4"},
                                                          {"other:fp8", "fp8"},
                                                          {"other:bnb-fp4", "fp4"}};
    if (const auto it = quant.find(format); it != quant.end()) {
        q.set(Field::Quant, it->second);
        // Double quantisation as the row says ("-dq"); litgpt's bnb.nf4
        // without it is off; otherwise the harness's default (torchtune's NF4
        // always double-quantises its scalers).
        if (it->second == "nf4" || it->second == "fp4") {
            const bool dq = r.at("notes").find("-dq") != std::string::npos ||
                            r.at("notes").find("double quant") != std::string::npos;
            if (dq)
                q.set(Field::DoubleQuant, "true");
            else if (harness_of(r).harness == "litgpt")
                q.set(Field::DoubleQuant, "false");
        }
    } else if (starts_with(format, "other:")) {
        return {std::nullopt, "weight format " + format + " is not modelled"};
    } else if (!training) {
        precision = format;  // inference stores and computes in the checkpoint dtype
        if (format == "fp32" && (compute == "bf16" || compute == "fp16")) {
            precision = compute;  // fp32 weights under 16-bit autocast
            q.set(Field::MixedPrecision, "amp");
        }
    } else if (format == "fp32" && r.at("mixed_precision") == "amp" &&
               (method == "lora" || method == "qlora")) {
        return {std::nullopt,
                "a LoRA base stored in fp32 under autocast (litgpt bf16-mixed) is not modelled"};
    }
    if (training) {
        const std::string mp = r.at("mixed_precision");
        if (mp == "true16")
            q.set(Field::MixedPrecision, "pure");
        else if (mp == "amp")
            q.set(Field::MixedPrecision, "amp");
        else if (mp == "fp32")
            precision = "fp32";
        const std::string opt = r.at("optimizer");
        if (!opt.empty() && opt != "none") q.set(Field::Optimizer, opt);
        if (r.at("optimizer_in_backward") == "1") q.set(Field::OptimizerInBackward, "true");
        // torchtune's activation offloading and Unsloth's offloaded
        // checkpointing keep the checkpointed layer inputs in host memory.
        const bool offload = r.count("activation_offload") && r.at("activation_offload") == "1";
        q.set(Field::CkptMode, offload ? "offload" : r.at("grad_ckpt") == "1" ? "full" : "none");
        q.set(Field::Seq, r.at("seq_len"));
        const Harness& harness = harness_of(r);
        q.set(Field::Harness, std::string(harness.harness));
        if (!harness.loss.empty()) q.set(Field::Loss, std::string(harness.loss));
        if (!harness.optimizer_impl.empty())
            q.set(Field::OptimizerImpl, std::string(harness.optimizer_impl));
        // The bitsandbytes release a QLoRA row ran: the one its source states
        // ("bnb 0.41.1"), else litgpt's pin (pyproject.toml
        // bitsandbytes==0.42.0 until d2ed13c3, 2024-12-28) for litgpt rows.
        if (method == "qlora" && format == "nf4") {
            const std::string& src = r.at("source");
            if (const auto at = src.find("bnb 0."); at != std::string::npos) {
                std::size_t end = at + 4;
                while (end < src.size() &&
                       (std::isdigit(static_cast<unsigned char>(src[end])) || src[end] == '.'))
                    ++end;
                q.set(Field::Bitsandbytes, src.substr(at + 4, end - at - 4));
            } else if (harness.harness == "litgpt") {
                q.set(Field::Bitsandbytes, "0.42.0");
            }
        }
        // torchtune sets expandable_segments:True since June 2025
        // (torchtune/__init__.py, 9d91fe39); rows of 2023-24 ran without it.
        if (harness.harness == "torchtune") {
            const std::string when = r.at("source") + " " + r.at("notes");
            const bool before = when.find("2023") != std::string::npos ||
                                when.find("2024") != std::string::npos ||
                                when.find("tutorials/") != std::string::npos;
            if (before) q.set(Field::ExpandableSegments, "false");
        }
        // ms-swift 1.x and 2.x (swift/llm/utils/model.py
        // fix_gradient_checkpointing_warning, c445b330c of 2023-11-28 to the
        // 3.0 refactor b40f31df7 of 2024-12-05) replaced
        // torch.utils.checkpoint.checkpoint with use_reentrant=False as its
        // default (torch 2.1 and later; torch 2.0 True from eea5463df,
        // 2024-01-27); 3.x passes True on one GPU, the profile's default.
        if (harness.harness == "ms-swift") {
            const std::string when = r.at("source") + " " + r.at("notes");
            const bool swift_1_2 = (when.find("2023") != std::string::npos ||
                                    when.find("2024") != std::string::npos) &&
                                   when.find("torch 2.0") == std::string::npos;
            if (swift_1_2) q.set(Field::CkptReentrant, "false");
        }
        // The element-wise kernels compiled where the row says so (torchtune's
        // README runs, litgpt's Thunder executors with torch.compile); else the
        // harness's (eager, or Unsloth's Triton kernels).
        const std::string text = lower(r.at("source") + " " + r.at("notes"));
        if (text.find("torch.compile on") != std::string::npos ||
            text.find("incl. torch.compile") != std::string::npos)
            q.set(Field::FusedKernels, "true");
        // Gradient accumulation, where the row states the global batch
        // ("global batch 128 via grad accumulation", a config's
        // "global_batch_size 16"): micro-steps per optimizer step over the
        // plan's GPUs. FSDP's no_sync keeps unsharded gradients through them.
        for (const std::string& stated : {r.at("notes"), r.at("source")}) {
            const std::string t = lower(stated);
            std::size_t at = std::string::npos;
            for (const char* key : {"global batch ", "global_batch_size "})
                if (at == std::string::npos && t.find(key) != std::string::npos)
                    at = t.find(key) + std::string(key).size();
            if (at == std::string::npos) continue;
            std::size_t end = at;
            while (end < t.size() && std::isdigit(static_cast<unsigned char>(t[end]))) ++end;
            if (end == at) continue;
            const long long global = std::stoll(t.substr(at, end - at));
            const long long micro = r.at("batch").empty() ? 1 : std::stoll(r.at("batch"));
            const long long gpus = r.at("num_gpus").empty() ? 1 : std::stoll(r.at("num_gpus"));
            const long long accum = std::max(1LL, global / std::max(1LL, micro * gpus));
            if (accum > 1) q.set(Field::GradAccum, std::to_string(accum));
            break;
        }
        // The shape regime as the row's notes state it: packed datasets and
        // fixed-size dummy batches have one shape; "padded to the longest
        // sample" and unstated collators keep the default (variable length).
        const std::string& notes = r.at("notes");
        if (notes.find("packed") != std::string::npos ||
            notes.find("dummy data") != std::string::npos)
            q.set(Field::Packing, "true");
    } else {
        const std::string prompt = r.at("prompt_len"), gen = r.at("gen_len"), seq = r.at("seq_len");
        if (!prompt.empty() && prompt != "0") {
            q.set(Field::Prompt, prompt);
            q.set(Field::Gen, gen.empty() || gen == "0" ? "1" : gen);
        } else {
            // Prompt not stated: seq = gen is a lower bound (ground-truth README).
            const long long total = std::stoll(seq);
            q.set(Field::Prompt, "1");
            q.set(Field::Gen, std::to_string(std::max(1LL, total - 1)));
        }
        if (r.count("kv_cache_dtype") && !r.at("kv_cache_dtype").empty())
            q.set(Field::KvDtype, r.at("kv_cache_dtype"));
        // The harness that measured the row: litgpt's generate, else Hugging
        // Face transformers (the Qwen speed benchmark, accelerate's big-model
        // benchmark, the transformers docs), all reading the PyTorch allocator.
        q.set(Field::Engine,
              starts_with(r.at("source"), "Lightning-AI/litgpt") ? "litgpt" : "transformers");
    }
    if (r.at("flash_attn") == "0") q.set(Field::FlashAttn, "false");
    if (r.at("flash_attn") == "1") q.set(Field::FlashAttn, "true");
    q.set(Field::Batch, r.at("batch").empty() ? "1" : r.at("batch"));
    if (method == "lora" || method == "qlora") {
        q.set(Field::LoraRank, r.at("lora_rank"));
        q.set(Field::LoraTargets, r.at("lora_targets"));
        // The LoRA dropout where the row states it ("lora_dropout 0.1",
        // ms-swift's "lora_dropout_p 0.05"); else the harness's default.
        const std::string notes = lower(r.at("notes"));
        for (const char* key : {"lora_dropout_p ", "lora_dropout "})
            if (const auto at = notes.find(key); at != std::string::npos) {
                std::size_t begin = at + std::string(key).size(), end = begin;
                while (end < notes.size() &&
                       (std::isdigit(static_cast<unsigned char>(notes[end])) || notes[end] == '.'))
                    ++end;
                if (end > begin) q.set(Field::LoraDropout, notes.substr(begin, end - begin));
                break;
            }
    }
    const std::string gpus = r.at("num_gpus").empty() ? "1" : r.at("num_gpus");
    q.set(Field::Gpus, gpus);
    static const std::map<std::string, std::string> strategies{{"ddp", "ddp"},
                                                               {"fsdp", "fsdp"},
                                                               {"zero2", "zero2"},
                                                               {"zero3", "zero3"},
                                                               {"device-map-pipeline", "pp"},
                                                               {"tensor-parallel", "tp"}};
    if (const auto it = strategies.find(parallel); it != strategies.end())
        q.set(Field::Parallel, it->second);
    // FSDP with CPUOffload(offload_params=True): the parameters on the host.
    if (parallel == "fsdp-params-offload") {
        q.set(Field::Parallel, "fsdp");
        q.set(Field::TrainOffload, "params");
    }
    q.set(Field::Precision, precision);
    out.request = q;
    return out;
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::string pct(double x) {
    return std::isnan(x) ? "-" : fmt::format("{:.1f} %", 100.0 * x);
}

// The source of a row: the second part of its id (M-LITGPT-RT-01: LITGPT).
std::string source_of(const std::string& id) {
    const auto a = id.find('-');
    const auto b = id.find('-', a + 1);
    return a == std::string::npos ? id : id.substr(a + 1, b - a - 1);
}

BandFit fit_band(const std::vector<std::pair<std::string, double>>& ratios, bool held_out_band) {
    BandFit f;
    std::vector<double> all;
    for (const auto& [src, r] : ratios) all.push_back(r);
    f.rows = all.size();
    if (all.empty()) return f;
    // Each source's rows and the sorted ratios of every other source.
    std::vector<std::string> sources;
    for (const auto& [src, r] : ratios)
        if (std::find(sources.begin(), sources.end(), src) == sources.end()) sources.push_back(src);
    std::vector<std::vector<double>> others(sources.size());
    for (std::size_t i = 0; i < sources.size(); ++i)
        for (const auto& [src, r] : ratios)
            if (src != sources[i]) others[i].push_back(r);
    const auto held_out = [&](double q) {
        std::size_t in = 0, rows = 0;
        for (std::size_t i = 0; i < sources.size(); ++i) {
            if (others[i].size() < 5) continue;
            const double low = quantile(others[i], q), high = quantile(others[i], 1.0 - q);
            for (const auto& [src, r] : ratios)
                if (src == sources[i]) {
                    ++rows;
                    in += r >= low && r <= high ? 1 : 0;
                }
        }
        return rows ? static_cast<double>(in) / static_cast<double>(rows) : -1.0;
    };
    // The embedded band is the in-sample 10-90 one. Sources differ more than
    // rows of one source do, so it holds less of a new source's rows; the
    // report says how wide a band would have to be to hold kBandCoverage of
    // them (the narrowest central band that does, within kBandWidestTail).
    f.low = quantile(all, 0.10);
    f.high = quantile(all, 0.90);
    std::size_t in = 0;
    for (const double r : all) in += r >= f.low && r <= f.high ? 1 : 0;
    f.coverage = static_cast<double>(in) / static_cast<double>(all.size());
    const double at_10_90 = held_out(0.10);  // -1 with no source to hold out
    f.held_out_coverage = std::max(at_10_90, 0.0);
    f.held_tail = 0.10;
    f.held_tail_coverage = f.held_out_coverage;
    if (at_10_90 >= 0)
        for (int step = static_cast<int>(kBandNarrowestTail * 200.0 + 0.5),
                 last = static_cast<int>(kBandWidestTail * 200.0 + 0.5);
             step >= last; --step) {
            f.held_tail = 0.005 * step;  // half a percentile at a time
            f.held_tail_coverage = held_out(f.held_tail);
            if (f.held_tail_coverage >= kBandCoverage) break;
        }
    f.held_low = quantile(all, f.held_tail);
    f.held_high = quantile(all, 1.0 - f.held_tail);
    f.in_low = f.low;
    f.in_high = f.high;
    f.sources = sources.size();
    if (held_out_band && at_10_90 >= 0) {
        f.low = f.held_low;
        f.high = f.held_high;
        std::size_t in_band = 0;
        for (const double r : all) in_band += r >= f.low && r <= f.high ? 1 : 0;
        f.coverage = static_cast<double>(in_band) / static_cast<double>(all.size());
    }
    return f;
}

std::optional<ResolvedRow> resolve_row(const RowRequest& q, const std::vector<ModelPreset>& presets,
                                       const std::string& gpu, std::string& why) {
    try {
        ResolvedRow out;
        out.workload = resolve_workload(q.fields, q.inputs, presets);
        out.gpu = &resolve_gpu(embedded::catalog(), gpu);
        return out;
    } catch (const InputError& e) {
        why = e.what();
        return std::nullopt;
    }
}

std::string band_cells(const BandFit& f) {
    const auto width = [](double low, double high) { return low > 0 ? high / low : 0.0; };
    return fmt::format(
        "{} | {:.3f} | {:.3f} | {:.2f}x | {} | {} | p{:g}-p{:g}: {:.3f}-{:.3f}, {:.2f}x, {} |",
        f.rows, f.low, f.high, width(f.low, f.high), pct(f.coverage), pct(f.held_out_coverage),
        100.0 * f.held_tail, 100.0 * (1.0 - f.held_tail), f.held_low, f.held_high,
        width(f.held_low, f.held_high), pct(f.held_tail_coverage));
}

double metric_bytes(const MemoryEstimate& m, MemoryMetric metric) {
    switch (metric) {
        case MemoryMetric::Allocated:
            return static_cast<double>(m.allocated_bytes);
        case MemoryMetric::Reserved:
            return static_cast<double>(m.reserved_bytes);
        case MemoryMetric::NvidiaSmi:
            // nvidia-smi on the card that measured it: the process's reserved
            // pool (cached segments included) and its CUDA context.
            return static_cast<double>(m.per_gpu_bytes + m.releasable_bytes);
    }
    return 0;
}

}  // namespace accuracy
