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
        run.static_bytes = peak->static_bytes;
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
    CalibrationRecord record =
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
    // The runs already in the file decide how far the new record reaches: a
    // correction that would make them worse narrows its scope. (The locked
    // append below checks the file again.)
    std::string narrowed;
    if (std::error_code ec; std::filesystem::is_regular_file(path, ec)) {
        std::uint64_t size = 0;
        const std::string existing = read_file_prefix(path, what, kMaxSettingsBytes, &size);
        // A file the append would refuse is refused with the append's own
        // check and words; one over the cap is left to the append to refuse.
        if (size <= kMaxSettingsBytes) {
            check_calibration_text(existing, path, kMaxSettingsBytes, 0);
            narrowed =
                narrow_scope(record, parse_calibration(existing, sanitize(path, 200)).records);
        }
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
    if (record.static_factor > 0)
        out += fmt::format(
            "  loaded   measured {} after loading vs estimated {}: the loaded parameters x{:.3f}, "
            "the rest x{:.3f}\n",
            format_gib(static_cast<std::uint64_t>(record.measured_static_bytes)),
            format_gib(static_cast<std::uint64_t>(record.estimated_static_bytes)),
            record.static_factor, record.memory_factor);
    if (record.metric)
        out += fmt::format(
            "  scope    {}{}\n",
            record.scope == CalibrationScope::Harness
                ? fmt::format("this model at every batch and sequence; other models of the "
                              "same harness at weight {:g}",
                              kOtherModelWeight)
            : record.scope == CalibrationScope::Model
                ? std::string("this model and format at every batch and sequence")
                : std::string("this run's model, format, batch and sequence only"),
            narrowed.empty() ? std::string() : fmt::format(" (narrowed: {})", narrowed));
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
