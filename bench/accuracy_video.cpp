// Video generation rows: peak memory and seconds per clip (docs/accuracy.md).
#include "accuracy_common.hpp"
#include "accuracy_reports.hpp"

namespace accuracy {

// Every row of bench/data/video_measured.csv (the Wan2.1 and Wan2.2 READMEs'
// efficiency tables, HunyuanVideo's memory table, CogVideoX's model table)
// replayed as `--model PRESET --frames N --resolution WxH` with the row's
// steps and offload. Too few rows and sources for an error band: the section
// reports the errors and feeds no band or constant.
void video_report(const std::string& dir, const std::vector<ModelPreset>& presets) {
    const auto rows = bench::parse_csv(read_file(dir + "/video_measured.csv"));
    struct Out {
        std::string id, inputs;
        bool memory = false;
        double measured = 0, estimated = 0;
        double ratio() const { return estimated / measured; }
    };
    std::vector<Out> out;
    std::vector<std::pair<std::string, std::string>> skipped;
    for (const Row& r : rows) {
        RowRequest q;
        q.set(Field::Model, r.at("model"));
        q.set(Field::Resolution, r.at("width") + "x" + r.at("height"));
        q.set(Field::Frames, r.at("frames"));
        q.set(Field::Steps, r.at("steps"));
        q.set(Field::Precision, r.at("precision"));
        if (r.at("cpu_offload") != "none") q.set(Field::CpuOffload, r.at("cpu_offload"));
        if (r.at("vae_tiling") == "1") q.set(Field::VaeTiling, "true");
        std::string why;
        const auto resolved = resolve_row(q, presets, r.at("gpu"), why);
        if (!resolved) {
            skipped.emplace_back(r.at("id"), why);
            continue;
        }
        const Workload& w = resolved->workload;
        const Gpu* gpu = resolved->gpu;
        const MemoryEstimate mem = estimate(w);
        const Performance p = estimate_performance(w, mem, *gpu);
        Out o;
        o.id = r.at("id");
        o.inputs = fmt::format("{} {}x{} {}f {} steps, offload {} on {}", r.at("model"),
                               r.at("width"), r.at("height"), r.at("frames"), r.at("steps"),
                               r.at("cpu_offload"), gpu->id);
        o.measured = std::stod(r.at("value"));
        if (r.at("metric") == "unknown") {
            o.memory = true;
            o.measured *= r.at("unit") == "GiB" ? static_cast<double>(gpuadvise::kGiB) : 1e9;
            o.estimated = static_cast<double>(mem.allocated_bytes);
        } else if (r.at("metric") == "seconds_per_clip" && p.seconds_per_clip) {
            o.estimated = *p.seconds_per_clip;
        } else {
            skipped.emplace_back(r.at("id"), "no estimate for the metric " + r.at("metric"));
            continue;
        }
        out.push_back(o);
    }
    std::cout << "\n# Accuracy on video generation\n\n"
              << "Every row of `bench/data/video_measured.csv` (the Wan2.1 and Wan2.2 READMEs' "
                 "single-GPU efficiency tables, HunyuanVideo's memory table, CogVideoX's model "
                 "table; sources per row) replayed as `--model PRESET --frames N --resolution "
                 "WxH` with the row's steps and offload. Error = |estimate / measured - 1|; "
                 "for times the estimate over the measured seconds. Nothing is fitted to these "
                 "rows: the speed is the diffusion share of docs/image-models.md, the memory "
                 "its component model at the clip's tokens.\n\n"
              << fmt::format("Rows: {} replayed, {} skipped.\n\n", out.size(), skipped.size())
              << "| group | rows | median error | p90 error | median estimate / measured "
                 "|\n|---|---|---|---|---|\n";
    for (const bool memory : {true, false}) {
        std::vector<double> err, ratio;
        for (const auto& o : out)
            if (o.memory == memory) {
                err.push_back(std::fabs(o.ratio() - 1.0));
                ratio.push_back(o.ratio());
            }
        if (err.empty()) continue;
        std::cout << fmt::format(
            "| {} | {} | {} | {} | {:.2f} |\n", memory ? "peak memory" : "seconds per clip",
            err.size(), pct(quantile(err, 0.5)), pct(quantile(err, 0.9)), quantile(ratio, 0.5));
    }
    std::cout << "\nBefore issue 27 item 6 (1b848ee: one diffusion share, FlashAttention-2's "
                 "rate for attention, pageable copies at 15 % of the link, model offload's "
                 "copies one way): seconds per clip 13 rows, median error 37.1 %, p90 131.4 %; "
                 "peak memory unchanged.\n";
    std::cout << "\n## Every video row\n\n| id | inputs | measured | estimated | estimate / "
                 "measured |\n|---|---|---|---|---|\n";
    for (const auto& o : out)
        std::cout << fmt::format("| {} | {} | {} | {} | {:.2f} |\n", o.id, o.inputs,
                                 o.memory ? fmt::format("{:.1f} GB", o.measured / 1e9)
                                          : fmt::format("{:.0f} s", o.measured),
                                 o.memory ? fmt::format("{:.1f} GB", o.estimated / 1e9)
                                          : fmt::format("{:.0f} s", o.estimated),
                                 o.ratio());
    if (!skipped.empty()) {
        std::cout << "\n## Skipped video rows\n\n| id | reason |\n|---|---|\n";
        for (const auto& [id, why] : skipped) std::cout << fmt::format("| {} | {} |\n", id, why);
    }
}

}  // namespace accuracy
