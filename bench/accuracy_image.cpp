// Image generation and vision rows: memory and speed (docs/accuracy.md).
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

void image_report(const std::string& dir, const std::vector<ModelPreset>& presets) {
    const auto rows = bench::parse_csv(read_file(dir + "/image_measured.csv"));
    struct Out {
        std::string id, group, inputs;
        double measured = 0, estimated = 0;
        bool time = false;  // a time (lower is better) rather than a rate
        // Estimated over measured rate (times inverted), so > 1 is too fast.
        double ratio() const { return time ? measured / estimated : estimated / measured; }
    };
    std::vector<Out> out;
    std::map<std::string, int> skipped;
    for (const Row& r : rows) {
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
                 "measured - 1|; for times the ratio of times. The speed constants are medians "
                 "over these families (src/performance.cpp), not fitted per row.\n\n"
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
