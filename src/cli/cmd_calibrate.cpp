// calibrate: a measured run against the estimate, appended to the
// calibration file.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <filesystem>
#include <string>

#include "cli/context.hpp"
#include "cli/handlers.hpp"
#include "cli/io.hpp"
#include "gpuadvise/calibrate.hpp"
#include "gpuadvise/detect.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise::cli {

// Compares a measured run with the estimate for the same workload and card,
// and appends the correction to the calibration file.
int cmd_calibrate(Context& ctx) {
    const Request& r = ctx.request;
    if (!r.has(Field::MeasuredMemory) && !r.has(Field::MeasuredSpeed) && !r.has(Field::FromLog))
        throw InputError(
            "calibrate needs what your run measured: --measured-memory 16.4GiB, --measured-speed "
            "2.1s/step or --from-log FILE");
    if (r.has(Field::MeasuredMemory) && r.has(Field::FromLog))
        throw InputError("--measured-memory and --from-log both give the peak; give only one");
    Workload w = resolve(ctx, false);  // the uncorrected estimate
    Measured run;
    if (const auto& v = r.get(Field::Metric)) run.metric = kMemoryMetrics.parse(v->text, v->origin);
    if (const auto& v = r.get(Field::MeasuredMemory)) {
        const std::string_view t = trim(v->text);
        if (!t.empty() && std::isdigit(static_cast<unsigned char>(t.back())) != 0)
            throw InputError(fmt::format("{} {} has no unit; give a size like 16.4GiB or 17.6GB",
                                         v->origin, quote(t)));
        run.bytes = static_cast<double>(parse_bytes(v->text, v->origin));
        if (!run.metric) {
            run.metric = MemoryMetric::Allocated;
            spdlog::info("assumed metric=allocated (torch.cuda.max_memory_allocated)");
        }
        run.bytes_origin = v->origin;
    } else if (const auto& f = r.get(Field::FromLog)) {
        const std::string text = read_text_file(f->text, f->origin, kMaxToolOutputBytes, ctx.in);
        const std::string source = fmt::format("{} {}", f->origin, quote(sanitize(f->text, 120)));
        const auto peak = parse_run_log(text, run.metric, source);
        if (!peak)
            throw InputError(fmt::format(
                "{}: no {}peak memory found; the log must hold torch.cuda.memory_summary(), "
                "torchtune's memory stats, nvidia-smi CSV with memory.used, or llama.cpp's buffer "
                "sizes (or give --measured-memory)",
                source,
                run.metric ? fmt::format("{} ", kMemoryMetrics.name(*run.metric)) : std::string()));
        run.bytes = peak->bytes;
        run.metric = peak->metric;
        run.bytes_origin = fmt::format("{} ({})", source, peak->what);
    }
    if (const auto& v = r.get(Field::MeasuredSpeed)) {
        run.speed = parse_measured_speed(v->text, v->origin);
        run.speed_origin = v->origin;
    }
    const auto cards = target_cards(ctx, w);
    const RankOptions options = rank_options(r, w);
    const Recommendation rec = evaluate_box(w, cards, options);
    const MemoryEstimate m = estimate(w);
    const CalibrationRecord record =
        make_record(w, m, run, &rec.performance, plan_label(rec), rec.gpu->memory_bytes);
    std::string path, what = "calibration file";
    if (const auto& v = r.get(Field::Calibration)) {
        path = v->text;
        what = fmt::format("calibration file ({})", v->origin);
    } else {
        path = default_calibration_path(ctx.getenv);
    }
    if (path.empty())
        throw InputError(
            "no HOME or absolute XDG_CONFIG_HOME for the calibration file; give --calibration "
            "FILE");
    if (!r.has(Field::Calibration)) {
        // The default file's folder is ours to make; a path the user gave is not.
        std::error_code ec;
        const auto parent = std::filesystem::path(path).parent_path();
        if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    }
    const std::string line = record_json_line(record) + '\n';
    append_line(path, what, line, [&](std::string_view existing) {
        check_calibration_text(existing, path, kMaxSettingsBytes, line.size());
    });
    if (ctx.json()) {
        std::string out;
        json::Writer j(out);
        j.begin_object().field("schema", kSchemaVersion).field("file", sanitize(path, 200));
        j.key("record").raw(record_json_line(record)).end_object();
        return ctx.emit(with_newline(out), kExitOk);
    }
    std::string out = fmt::format("Calibration for {} on {} (key {})\n", w.model.name,
                                  plan_label(rec), record.key);
    if (record.metric)
        out += fmt::format(
            "  memory   measured {} ({}, {}) vs estimated {}: allocated components x{:.3f}\n",
            format_gib(static_cast<std::uint64_t>(record.measured_bytes)),
            kMemoryMetrics.name(*record.metric), run.bytes_origin,
            format_gib(static_cast<std::uint64_t>(record.estimated_bytes)), record.memory_factor);
    if (record.speed_unit)
        out += fmt::format("  speed    measured {:.4g} {} vs estimated {:.4g}: rates x{:.2f}\n",
                           record.measured_speed, kSpeedUnits.name(*record.speed_unit),
                           record.estimated_speed, record.speed_factor);
    out += fmt::format(
        "  written  {} (estimates of workloads with the same key use it; --calibration FILE to "
        "choose another file)\n",
        sanitize(path, 200));
    return ctx.emit(out, kExitOk);
}

}  // namespace gpuadvise::cli
