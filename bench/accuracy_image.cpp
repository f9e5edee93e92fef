// Image generation and vision rows: memory and speed (docs/accuracy.md).
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

namespace {

struct Out {
    std::string id, group, inputs;
    bool small_step = false;  // a UNet forward of one 512x512 latent pair: the host's rows
    bool burst_rate = false;  // the card's attainable rate is a burst above what it sustains
    double measured = 0, estimated = 0;
    bool time = false;  // a time (lower is better) rather than a rate
    // Estimated over measured rate (times inverted), so > 1 is too fast.
    double ratio() const { return time ? measured / estimated : estimated / measured; }
};

// Every row of image_measured.csv through the CLI's path; `skipped` counts
// the rows left out by reason.
std::vector<Out> replay_rows(const std::vector<Row>& rows, const std::vector<ModelPreset>& presets,
                             std::map<std::string, int>& skipped) {
    std::vector<Out> out;
    for (const Row& r : rows) {
        // Workloads the CLI cannot state: LCM-LoRA's 4 steps run unfused LoRA
        // adapters without guidance (guidance_scale 1); the first-block cache
        // skips denoiser evaluations.
        const std::string& notes = r.at("notes");
        if (notes.find("LCM-LoRA") != std::string::npos) {
            ++skipped["LCM-LoRA: unfused LoRA adapters and no guidance, not modelled"];
            continue;
        }
        if (notes.find("FBCache") != std::string::npos) {
            ++skipped["first-block cache: skipped denoiser evaluations, not modelled"];
            continue;
        }
        RowRequest q;
        q.set(Field::Model, r.at("model"));
        const bool train = r.at("phase") == "train";
        if (train) q.set(Field::Method, "full");
        q.set(Field::Batch, r.at("batch").empty() ? "1" : r.at("batch"));
        q.set(Field::Resolution, r.at("width") + "x" + r.at("height"));
        if (!r.at("steps").empty()) q.set(Field::Steps, r.at("steps"));
        q.set(Field::Precision, r.at("precision"));
        if (!r.at("quant").empty()) q.set(Field::Quant, r.at("quant"));
        if (r.at("cpu_offload") != "none") q.set(Field::CpuOffload, r.at("cpu_offload"));
        if (r.at("vae_tiling") == "1") q.set(Field::VaeTiling, "true");
        if (r.at("notes").find("flash_attn=0") != std::string::npos)
            q.set(Field::FlashAttn, "false");
        if (r.at("num_gpus") != "1") q.set(Field::Gpus, r.at("num_gpus"));
        // Vision rows state their layout: channels-last where the notes say
        // layout=nhwc (DeepLearningExamples' AMP runs), PyTorch's default else.
        if (r.at("steps").empty())
            q.set(Field::ChannelsLast,
                  notes.find("layout=nhwc") != std::string::npos ? "true" : "false");
        std::string why;
        const auto resolved = resolve_row(q, presets, r.at("gpu"), why);
        if (!resolved) {
            ++skipped[why.substr(0, 60)];
            continue;
        }
        const Workload& w = resolved->workload;
        const Gpu* gpu = resolved->gpu;
        const MemoryEstimate mem = estimate(w);
        const Performance p = estimate_performance(w, mem, *gpu);
        const std::string metric = r.at("metric");
        double value = std::stod(r.at("value"));
        Out o;
        o.id = r.at("id");
        o.group = std::string(kImageFamilies.name(w.model.image->family)) + (train ? "-train" : "");
        // The T4's 41.9 TFLOPS are 30-iteration torch.mm bursts
        // (sources/attainable_matmul.csv MM-ZZC-003..005) of a passively
        // cooled 70 W card; its diffusion rows imply about 26.
        o.burst_rate = gpu->id == "nvidia-t4";
        o.small_step = w.model.image->diffusion &&
                       w.model.image->diffusion->denoiser == DenoiserKind::Unet && w.batch == 1 &&
                       w.image.width * w.image.height <= 512 * 512;
        o.inputs = fmt::format("{} {} {}x{} b{} {}{} on {}", r.at("model"), r.at("phase"),
                               r.at("width"), r.at("height"), w.batch, to_string(w.precision),
                               r.at("quant").empty() ? "" : " " + r.at("quant"), gpu->id);
        if (metric == "max_reserved" || metric == "unknown") {
            const double unit = r.at("unit") == "GiB" ? static_cast<double>(gpuadvise::kGiB) : 1e9;
            o.group = "memory-" + o.group;
            o.measured = value * unit;
            o.estimated = static_cast<double>(metric == "max_reserved" ? mem.reserved_bytes
                                                                       : mem.allocated_bytes);
        } else if (metric == "images_per_s" && p.images_per_s) {
            o.measured = value;
            o.estimated = *p.images_per_s;
        } else if ((metric == "seconds_per_image" || metric == "seconds_per_batch") &&
                   p.seconds_per_image) {
            o.time = true;
            o.measured = value;
            o.estimated = *p.seconds_per_image *
                          (metric == "seconds_per_batch" ? static_cast<double>(w.batch) : 1.0);
        } else if ((metric == "seconds_per_step" || metric == "it_per_s") &&
                   p.denoise_step_seconds) {
            o.time = true;
            o.measured = metric == "it_per_s" ? 1.0 / value : value;
            o.estimated = *p.denoise_step_seconds;
        } else {
            ++skipped["no estimate for the metric " + metric + " on this card"];
            continue;
        }
        out.push_back(o);
    }
    return out;
}

// The diffusion coefficients (data/attainable.json "fit"), each searched on a
// geometric grid, two rounds, for the least median |log(estimate /
// measured)| over the diffusion speed rows' sources.
void fit_diffusion(const std::vector<Row>& rows, const std::vector<ModelPreset>& presets) {
    // Each on the rows of its mechanism: the matmul share on the steps whose
    // GPU work is large (1024x1024 latents, batches), the host's time per
    // kernel on SD 1.5's single 512x512 image, the step the host bounds.
    struct Param {
        std::string_view name;
        double low, high;
        bool small_steps;
    };
    const std::array<Param, 2> params{
        {{"diffusion_matmul_share", 0.3, 1.2, false}, {"eager_kernel_s", 2e-6, 1e-4, true}}};
    // Each source counts once (the median over sources of each source's
    // median), so the 14 rows of one 2023 table do not outvote the others.
    const auto score = [&](bool small_steps, std::size_t* n) {
        std::map<std::string, int> skipped;
        std::map<std::string, std::vector<double>> by_source;
        std::size_t rows_used = 0;
        for (const Out& o : replay_rows(rows, presets, skipped))
            if (o.group == "diffusion" && o.small_step == small_steps && !o.burst_rate) {
                by_source[source_of(o.id)].push_back(std::fabs(std::log(o.ratio())));
                ++rows_used;
            }
        if (n) *n = rows_used;
        std::vector<double> medians;
        for (auto& [source, err] : by_source) medians.push_back(quantile(err, 0.5));
        return medians.empty() ? 1e300 : quantile(medians, 0.5);
    };
    for (int round = 0; round < 2; ++round)
        for (const Param& p : params) {
            double best_value = speed_fit(p.name), best = score(p.small_steps, nullptr);
            constexpr int kSteps = 64;
            for (int i = 0; i <= kSteps; ++i) {
                const double v = p.low * std::pow(p.high / p.low, static_cast<double>(i) / kSteps);
                set_speed_fit_override(p.name, v);
                const double sc = score(p.small_steps, nullptr);
                if (sc < best) {
                    best = sc;
                    best_value = v;
                }
            }
            set_speed_fit_override(p.name, best_value);
        }
    for (const Param& p : params) {
        std::size_t n = 0;
        score(p.small_steps, &n);
        std::string what;
        for (const FittedCoefficient& c : embedded::attainable().fit)
            if (c.name == p.name) what = std::string(c.what);
        g_fitted[std::string(p.name)] = {speed_fit(p.name), static_cast<std::int64_t>(n), what};
    }
}

}  // namespace

void image_report(const std::string& dir, const std::vector<ModelPreset>& presets, bool fit) {
    const auto rows = bench::parse_csv(read_file(dir + "/image_measured.csv"));
    if (fit) fit_diffusion(rows, presets);
    std::map<std::string, int> skipped;
    const std::vector<Out> out = replay_rows(rows, presets, skipped);
    for (const auto& o : out) {
        if (o.group.rfind("memory-", 0) == 0) continue;
        const double measured = o.time ? 1.0 / o.measured : o.measured;
        const double estimated = o.time ? 1.0 / o.estimated : o.estimated;
        g_rates.push_back(
            {o.id, o.group == "diffusion" ? "diffusion" : "vision", measured, estimated});
    }
    std::cout << "\n# Accuracy on image generation and vision workloads\n\n"
              << "Every row of `bench/data/image_measured.csv` (diffusers docs and HF blogs, timm "
                 "benchmark tables, NVIDIA DeepLearningExamples, Lambda; sources per row) "
                 "replayed as `--model PRESET` with the row's settings. Error = |estimate / "
                 "measured - 1|; for times the ratio of times. The vision constants are medians "
                 "over these families and the diffusion step's two coefficients are fitted on "
                 "the rows of their mechanisms (src/image_performance.cpp, below), never per "
                 "row.\n\n"
              << fmt::format("Rows: {} replayed, {} skipped.\n\n", out.size(),
                             [&] {
                                 int n = 0;
                                 for (const auto& [k, v] : skipped) n += v;
                                 return n;
                             }())
              << "| group | rows | median error | p90 error | median estimate / measured rate "
                 "|\n|---|---|---|---|---|\n";
    std::map<std::string, std::vector<const Out*>> groups;
    for (const auto& o : out) groups[o.group].push_back(&o);
    for (const auto& [g, list] : groups) {
        std::vector<double> err, ratio;
        for (const auto* o : list) {
            err.push_back(std::fabs(o->ratio() - 1.0));
            ratio.push_back(o->ratio());
        }
        std::cout << fmt::format("| {} | {} | {} | {} | {:.2f} |\n", g, list.size(),
                                 pct(quantile(err, 0.5)), pct(quantile(err, 0.9)),
                                 quantile(ratio, 0.5));
    }
    {
        std::vector<double> diffusion, vision;
        for (const auto& o : out) {
            if (o.group == "diffusion") diffusion.push_back(std::fabs(o.ratio() - 1.0));
            if (o.group == "vision" || o.group == "vision-train")
                vision.push_back(std::fabs(o.ratio() - 1.0));
        }
        std::cout
            << "\n## Changes to the image speed model (recorded)\n\n| model | diffusion rows | "
               "median | p90 | vision rows | median | p90 |\n|---|---|---|---|---|---|---|\n"
               "| before issue 27 item 6 (1b848ee): a diffusion step at one share (0.34) of the "
               "attainable rate; vision the slower of FLOPs and NCHW traffic | 60 | 36.1 % | 96.9 "
               "% "
               "| 94 | 19.3 % | 36.9 % |\n"
            << fmt::format(
                   "| a step as its kernels run it: matmuls at the fitted share, fused attention "
                   "at "
                   "its kernel's rate, the bandwidth-bound kernels, the host's launches; the HF "
                   "SDXL blog's 25 steps, the torch 2.0 page's SD 1.5 rows; vision in NCHW or "
                   "channels-last | {} | {} | {} | {} | {} | {} |\n",
                   diffusion.size(), pct(quantile(diffusion, 0.5)), pct(quantile(diffusion, 0.9)),
                   vision.size(), pct(quantile(vision, 0.5)), pct(quantile(vision, 0.9)));
    }
    std::cout << fmt::format(
        "\nThe diffusion step's two fitted coefficients (data/attainable.json \"fit\", searched "
        "by `gpuadvise_accuracy ... --fit` for the least median over sources of each source's "
        "median |log(estimate / measured)| on the diffusion speed rows): the matmul share "
        "diffusion_matmul_share = {:.3g}, the host "
        "seconds per eager kernel eager_kernel_s = {:.3g}.\n",
        speed_fit("diffusion_matmul_share"), speed_fit("eager_kernel_s"));
    std::cout << "\n## Error bands (images)\n\n| quantity | group | " << kBandHeader
              << "\n|---|---|" << kBandRule << "\n";
    for (const std::string family : {"diffusion", "vision"}) {
        for (const bool memory : {false, true}) {
            std::vector<std::pair<std::string, double>> ratios;
            for (const auto& o : out) {
                const bool is_memory = o.group.rfind("memory-", 0) == 0;
                if (is_memory != memory || o.group.find(family) == std::string::npos) continue;
                // Bands hold measured / estimate of the rate (times inverted).
                ratios.emplace_back(source_of(o.id), 1.0 / o.ratio());
            }
            if (ratios.size() < 5) continue;
            const BandFit f = fit_band(ratios);
            g_bands.push_back({memory ? "memory" : "images", family, f});
            std::cout << fmt::format("| {} | {} | {}\n", memory ? "memory" : "images", family,
                                     band_cells(f));
        }
    }
    std::vector<const Out*> worst;
    for (const auto& o : out) worst.push_back(&o);
    std::sort(worst.begin(), worst.end(), [](const Out* a, const Out* b) {
        return std::fabs(std::log(a->ratio())) > std::fabs(std::log(b->ratio()));
    });
    if (worst.size() > 8) worst.resize(8);
    std::cout << "\n## Worst eight image rows\n\n| id | inputs | measured | estimated | ratio "
                 "|\n|---|---|---|---|---|\n";
    for (const auto* o : worst)
        std::cout << fmt::format("| {} | {} | {:.4g} | {:.4g} | {:.2f} |\n", o->id, o->inputs,
                                 o->measured, o->estimated, o->ratio());
    std::cout << "\n## Every diffusion speed row\n\nEstimate / measured as rates (times "
                 "inverted): above 1 the estimate is too fast.\n\n| id | inputs | measured | "
                 "estimated | ratio |\n|---|---|---|---|---|\n";
    for (const auto& o : out)
        if (o.group == "diffusion")
            std::cout << fmt::format("| {} | {} | {:.4g} | {:.4g} | {:.2f} |\n", o.id, o.inputs,
                                     o.measured, o.estimated, o.ratio());
    std::cout << "\n## Skipped image rows by reason\n\n| reason | rows |\n|---|---|\n";
    for (const auto& [why, count] : skipped) std::cout << fmt::format("| {} | {} |\n", why, count);
}

// Published multi-GPU training runs (bench/data/large_runs.csv): per-GPU
// training throughput of data-parallel, FSDP, ZeRO and 3D (tensor, pipeline,
// context, expert parallel) runs, replayed with the run's model shape, GPUs,
// layout, sequence, micro-batch, global batch, checkpointing and fabric.

// The run's model: a preset of the same model, else a Llama-style config of
// the row's shape (layers, hidden, heads, KV heads, vocab) whose FFN width
// gives the row's parameter count (a GPT block's 4h MLP has the FLOPs and
// parameters of a gated one of 8h/3), else none (the size alone).

}  // namespace accuracy
