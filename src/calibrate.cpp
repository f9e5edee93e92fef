#include "gpuadvise/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

// A peak below this is no run of a model (a CUDA context alone is a few
// hundred MiB): it is a misread unit.
constexpr double kMinPeakBytes = 1024.0 * 1024.0;

double clamp_factor(double f) {
    if (!std::isfinite(f)) return 1.0;
    return std::clamp(f, kMinCalibrationFactor, kMaxCalibrationFactor);
}

bool is_time(SpeedUnit u) {
    return u == SpeedUnit::SecondsPerStep || u == SpeedUnit::SecondsPerImage;
}

std::optional<double> estimated_speed(const Performance& p, SpeedUnit u) {
    switch (u) {
        case SpeedUnit::SecondsPerStep:
            return p.step_seconds;
        case SpeedUnit::TokensPerSecond:
            return p.tokens_per_s();
        case SpeedUnit::ImagesPerSecond:
            return p.images_per_s;
        case SpeedUnit::SecondsPerImage:
            return p.seconds_per_image;
    }
    return std::nullopt;
}

// Bytes per unit of a size's unit as logs write it, in either case: B, KB
// and kB (10^3), KiB (2^10), MB, MiB, GB, GiB, TB, TiB; nullopt for another
// word.
std::optional<double> size_unit(std::string_view word) {
    const std::string u = lower(word);
    constexpr double k = 1024.0;
    if (u == "b") return 1.0;
    if (u == "kb") return 1e3;
    if (u == "kib") return k;
    if (u == "mb") return 1e6;
    if (u == "mib") return k * k;
    if (u == "gb") return 1e9;
    if (u == "gib") return k * k * k;
    if (u == "tb") return 1e12;
    if (u == "tib") return k * k * k * k;
    return std::nullopt;
}

// A log line's reader: numbers with their units, and one error shape that
// names the log and the line.
struct LogLine {
    std::string_view text;
    std::string_view source;
    std::size_t number = 0;

    [[noreturn]] void fail(std::string_view what) const {
        throw InputError(fmt::format("{} line {}: {}; give the peak with --measured-memory", source,
                                     number, what));
    }

    // The size right after `marker` ("GPU peak memory allocation: 7.20 GiB"):
    // a number, then its unit, or `default_unit` bytes when none follows.
    std::optional<double> size_after(std::string_view marker,
                                     std::optional<double> default_unit = std::nullopt) const {
        const auto at = text.find(marker);
        if (at == std::string_view::npos) return std::nullopt;
        return size_at(trim(text.substr(at + marker.size())), default_unit);
    }

    std::optional<double> size_at(std::string_view rest, std::optional<double> default_unit) const {
        std::size_t n = 0;
        while (n < rest.size() &&
               (std::isdigit(static_cast<unsigned char>(rest[n])) != 0 || rest[n] == '.'))
            ++n;
        if (n == 0) return std::nullopt;
        double value = 0;
        const auto [end, ec] = std::from_chars(rest.data(), rest.data() + n, value);
        if (ec != std::errc() || end != rest.data() + n) return std::nullopt;
        std::string_view tail = trim(rest.substr(n));
        std::size_t letters = 0;
        while (letters < tail.size() &&
               std::isalpha(static_cast<unsigned char>(tail[letters])) != 0)
            ++letters;
        std::optional<double> unit = size_unit(tail.substr(0, letters));
        if (!unit) unit = default_unit;
        if (!unit) return std::nullopt;
        const double bytes = value * *unit;
        if (!std::isfinite(bytes) || bytes > kMaxEstimateBytes)
            fail(fmt::format("{} is not a memory size", quote(rest.substr(0, n + 1 + letters))));
        return bytes;
    }
};

std::string describe_bytes(double b) {
    return b >= 1e12 ? fmt::format("{:.3g} TiB", b / (1024.0 * static_cast<double>(kGiB)))
                     : format_gib(static_cast<std::uint64_t>(b));
}

}  // namespace

MeasuredSpeed parse_measured_speed(std::string_view text, std::string_view origin) {
    const std::string t = lower(trim(text));
    std::size_t n = 0;
    while (n < t.size() &&
           (std::isdigit(static_cast<unsigned char>(t[n])) != 0 || t[n] == '.' || t[n] == 'e'))
        ++n;
    std::string unit(trim(std::string_view(t).substr(n)));
    unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
    const auto bad = [&] {
        return InputError(
            fmt::format("{} {}: give a number and a unit: 2.1s/step, 35tok/s, 0.5img/s or 12s/img",
                        origin, quote(text)));
    };
    if (n == 0) throw bad();
    MeasuredSpeed s;
    s.value = parse_positive_real(std::string_view(t).substr(0, n), origin);
    if (!(s.value < 1e15))
        throw InputError(fmt::format("{} {}: not a speed a run measures", origin, quote(text)));
    if (unit == "s/step" || unit == "s/it" || unit == "sec/step")
        s.unit = SpeedUnit::SecondsPerStep;
    else if (unit == "tok/s" || unit == "tokens/s" || unit == "t/s")
        s.unit = SpeedUnit::TokensPerSecond;
    else if (unit == "img/s" || unit == "images/s" || unit == "it/s/img")
        s.unit = SpeedUnit::ImagesPerSecond;
    else if (unit == "s/img" || unit == "s/image")
        s.unit = SpeedUnit::SecondsPerImage;
    else
        throw bad();
    return s;
}

CalibrationRecord make_record(const Workload& w, const MemoryEstimate& m, const Measured& run,
                              const Performance* perf, std::string_view gpu,
                              std::uint64_t device_bytes) {
    CalibrationRecord r;
    r.key = calibration_key(w);
    r.model = w.model.name;
    r.gpu = std::string(gpu);
    if (run.metric) {
        const double b = run.bytes;
        if (!(b >= kMinPeakBytes))
            throw InputError(fmt::format(
                "{}: a peak of {} bytes is no run of {} (a CUDA context alone is hundreds of MiB); "
                "check the unit",
                run.bytes_origin, b, w.model.name));
        // Allowing 5 % for the vendor's rounding of the card's size.
        if (device_bytes > 0 && b > 1.05 * static_cast<double>(device_bytes))
            throw InputError(fmt::format(
                "{}: a peak of {} on a card of {} is not a measurement of one card; give the peak "
                "per GPU",
                run.bytes_origin, describe_bytes(b),
                format_gib(static_cast<std::uint64_t>(device_bytes))));
        r.metric = run.metric;
        r.measured_bytes = b;
        const double allocated = static_cast<double>(m.allocated_bytes);
        const double reserved = static_cast<double>(m.reserved_bytes);
        const double per_gpu = static_cast<double>(m.per_gpu_bytes);
        // The CUDA context: what nvidia-smi shows beyond the reserved pool
        // (per_gpu leaves out the cached segments a retry would release).
        const double context =
            std::max(per_gpu + static_cast<double>(m.releasable_bytes) - reserved, 0.0);
        // The run's ratio to the estimate, outside the CUDA context: every
        // component the framework allocates is scaled by it.
        switch (*run.metric) {
            case MemoryMetric::Allocated:
                r.estimated_bytes = allocated;
                r.memory_factor = b / allocated;
                break;
            case MemoryMetric::Reserved:
                r.estimated_bytes = reserved;
                r.memory_factor = b / reserved;
                break;
            case MemoryMetric::NvidiaSmi:
                r.estimated_bytes = per_gpu + static_cast<double>(m.releasable_bytes);
                r.memory_factor = (b - context) / reserved;
                break;
        }
        r.memory_factor = clamp_factor(r.memory_factor);
        // The loaded model measured apart: its parameters get their own
        // factor and the rest the ratio of what training added.
        const double est_static =
            static_cast<double>(m.get(&Components::weights) + m.get(&Components::adapters));
        if (run.static_bytes > 0 && *run.metric == MemoryMetric::Allocated && est_static > 0 &&
            run.static_bytes < b && allocated > est_static) {
            r.measured_static_bytes = run.static_bytes;
            r.estimated_static_bytes = est_static;
            r.static_factor = clamp_factor(run.static_bytes / est_static);
            r.memory_factor = clamp_factor((b - run.static_bytes) / (allocated - est_static));
        }
    }
    r.batch = w.batch;
    r.seq = w.seq;
    r.flash_attn = w.flash_attn;
    if (run.speed) {
        const auto est = perf ? estimated_speed(*perf, run.speed->unit) : std::nullopt;
        if (!est || !(*est > 0))
            throw InputError(fmt::format(
                "{} {} {}: the estimate of this {} workload has no {}; give {}", run.speed_origin,
                run.speed->value, kSpeedUnits.name(run.speed->unit), to_string(w.method),
                kSpeedUnits.name(run.speed->unit),
                w.is_image() ? "s/img or img/s" : (w.trains() ? "s/step or tok/s" : "tok/s")));
        r.speed_unit = run.speed->unit;
        r.measured_speed = run.speed->value;
        r.estimated_speed = *est;
        r.speed_factor = clamp_factor(is_time(run.speed->unit) ? *est / run.speed->value
                                                               : run.speed->value / *est);
    }
    // Never write what the reader would refuse: every later estimate reads it.
    parse_calibration(record_json_line(r) + "\n", "the new calibration record");
    return r;
}

std::string narrow_scope(
    CalibrationRecord& record, const std::vector<CalibrationRecord>& existing,
    const std::function<double(const CalibrationRecord&, std::size_t)>& corrected_estimate) {
    const auto quantile = [](std::vector<double> v, double q) {
        std::sort(v.begin(), v.end());
        const double pos = q * static_cast<double>(v.size() - 1);
        const auto lo = static_cast<std::size_t>(std::floor(pos));
        const auto hi = static_cast<std::size_t>(std::ceil(pos));
        return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
    };
    if (!record.metric) return "";
    // The error of each run in the file that `record` reaches, before and
    // with its correction (scaled by the weight it carries to that run).
    const auto errors = [&](std::vector<double>* before) {
        std::vector<double> after;
        for (std::size_t i = 0; i < existing.size(); ++i) {
            const CalibrationRecord& e = existing[i];
            if (!e.metric || !(e.measured_bytes > 0)) continue;
            const double weight = calibration_weight(record, e.key, {e.batch, e.seq, e.flash_attn});
            if (weight == 0) continue;
            // The correction scales what the framework allocates: on the
            // record's own metric, about its estimate times the factor.
            const double corrected =
                corrected_estimate
                    ? corrected_estimate(record, i)
                    : e.estimated_bytes * std::exp(weight * std::log(record.memory_factor));
            if (before)
                before->push_back(std::fabs(e.estimated_bytes - e.measured_bytes) /
                                  e.measured_bytes);
            after.push_back(std::fabs(corrected - e.measured_bytes) / e.measured_bytes);
        }
        return after;
    };
    std::string why;
    const double full_factor = record.memory_factor, full_static = record.static_factor;
    for (const CalibrationScope scope :
         {CalibrationScope::Harness, CalibrationScope::Model, CalibrationScope::Run}) {
        record.scope = scope;
        std::vector<double> before;
        const std::vector<double> after = errors(&before);
        if (before.empty() || (quantile(after, 0.5) <= quantile(before, 0.5) &&
                               quantile(after, 0.9) <= quantile(before, 0.9)))
            return why;
        if (scope == CalibrationScope::Run) {
            // Runs of this very shape in the file disagree with it: the
            // correction is softened (its logarithm scaled down in quarters)
            // until it no longer makes them worse, down to none.
            for (const double keep : {0.75, 0.5, 0.25, 0.0}) {
                record.memory_factor = std::exp(keep * std::log(full_factor));
                if (full_static > 0) record.static_factor = std::exp(keep * std::log(full_static));
                const std::vector<double> softened = errors(nullptr);
                if (quantile(softened, 0.5) <= quantile(before, 0.5) &&
                    quantile(softened, 0.9) <= quantile(before, 0.9))
                    break;
            }
            return fmt::format(
                "{}; runs of this very shape in the file disagree with it: its correction is "
                "softened from x{:.3f} to x{:.3f}",
                why, full_factor, record.memory_factor);
        }
        why = fmt::format(
            "its correction x{:.3f} would take the {} run{} it reaches in the file from {:.1f} % "
            "to {:.1f} % median error",
            record.memory_factor, before.size(), before.size() == 1 ? "" : "s",
            100.0 * quantile(before, 0.5), 100.0 * quantile(after, 0.5));
    }
    return why;
}

std::optional<LoggedPeak> parse_run_log(std::string_view text, std::optional<MemoryMetric> wanted,
                                        std::string_view source) {
    std::optional<LoggedPeak> allocated, reserved, smi;
    double ggml = 0, init_bytes = 0;
    bool after_init = false;
    std::size_t smi_column = std::string_view::npos;
    double smi_unit = 1024.0 * 1024.0;
    std::size_t number = 0;
    for (const std::string_view raw : split_lines(text)) {
        ++number;
        const LogLine line{trim(raw), source, number};
        const std::string_view t = line.text;
        // torch.cuda.memory_summary(): "| Allocated memory | cur | peak | ..." rows.
        if (t.rfind("| Allocated memory", 0) == 0 || t.rfind("| GPU reserved memory", 0) == 0) {
            std::vector<std::string_view> cells;
            std::size_t start = 1;
            while (start < t.size()) {
                const std::size_t bar = std::min(t.find('|', start), t.size());
                cells.push_back(trim(t.substr(start, bar - start)));
                start = bar + 1;
            }
            if (cells.size() >= 3)
                if (const auto peak = line.size_at(cells[2], std::nullopt)) {
                    const bool res = t.find("reserved") != std::string_view::npos;
                    (res ? reserved : allocated) =
                        LoggedPeak{*peak, res ? MemoryMetric::Reserved : MemoryMetric::Allocated,
                                   "torch.cuda.memory_summary peak"};
                }
            continue;
        }
        // torchtune's log_memory_stats; the first block after "Memory stats
        // after model init" is the loaded model, the last one the training peak.
        if (t.find("Memory stats after model init") != std::string_view::npos) after_init = true;
        if (const auto v = line.size_after("GPU peak memory allocation:")) {
            if (after_init && init_bytes == 0) {
                init_bytes = *v;
                after_init = false;
            } else {
                allocated =
                    LoggedPeak{*v, MemoryMetric::Allocated, "torchtune peak memory allocation"};
            }
        }
        if (const auto v = line.size_after("GPU peak memory reserved:"))
            reserved = LoggedPeak{*v, MemoryMetric::Reserved, "torchtune peak memory reserved"};
        // llama.cpp: "CUDA0 model buffer size = 4403.49 MiB" (and KV, compute).
        if (t.find("buffer size") != std::string_view::npos &&
            (t.find("CUDA") != std::string_view::npos || t.find("ROCm") != std::string_view::npos ||
             t.find("Metal") != std::string_view::npos))
            if (const auto v = line.size_after("=")) ggml += *v;
        // nvidia-smi --query-gpu=...,memory.used --format=csv: the header
        // names the unit of values that carry none (nounits).
        if (t.find("memory.used") != std::string_view::npos) {
            std::size_t col = 0, start = 0;
            while (start <= t.size()) {
                const std::size_t comma = std::min(t.find(',', start), t.size());
                const std::string_view cell = trim(t.substr(start, comma - start));
                if (cell.rfind("memory.used", 0) == 0) {
                    smi_column = col;
                    const auto open = cell.find('[');
                    const auto close = cell.find(']');
                    smi_unit = open != std::string_view::npos && close > open
                                   ? size_unit(cell.substr(open + 1, close - open - 1))
                                         .value_or(1024.0 * 1024.0)
                                   : 1024.0 * 1024.0;
                }
                ++col;
                start = comma + 1;
            }
            continue;
        }
        if (smi_column != std::string_view::npos) {
            std::size_t col = 0, start = 0;
            while (start <= t.size()) {
                const std::size_t comma = std::min(t.find(',', start), t.size());
                if (col == smi_column) {
                    if (const auto v = line.size_at(trim(t.substr(start, comma - start)), smi_unit))
                        if (!smi || *v > smi->bytes)
                            smi = LoggedPeak{*v, MemoryMetric::NvidiaSmi,
                                             "nvidia-smi memory.used (the maximum)"};
                    break;
                }
                ++col;
                start = comma + 1;
            }
        }
    }
    if (ggml > 0 && !allocated)
        allocated = LoggedPeak{ggml, MemoryMetric::Allocated, "llama.cpp device buffers"};
    // A log that stopped after the model was loaded has no training peak: the
    // loaded model is then its peak.
    if (init_bytes > 0 && !allocated)
        allocated = LoggedPeak{init_bytes, MemoryMetric::Allocated,
                               "torchtune peak memory allocation after model init"};
    else if (init_bytes > 0 && allocated && init_bytes < allocated->bytes)
        allocated->static_bytes = init_bytes;
    const auto pick = [&](MemoryMetric m) -> std::optional<LoggedPeak> {
        switch (m) {
            case MemoryMetric::Allocated:
                return allocated;
            case MemoryMetric::Reserved:
                return reserved;
            case MemoryMetric::NvidiaSmi:
                return smi;
        }
        return std::nullopt;
    };
    if (wanted) return pick(*wanted);
    if (allocated) return allocated;
    if (reserved) return reserved;
    return smi;
}

void check_calibration_text(std::string_view text, std::string_view source, std::uint64_t cap,
                            std::size_t new_line_bytes) {
    const std::string where = sanitize(source, 200);
    if (text.size() + new_line_bytes > cap)
        throw InputError(fmt::format(
            "calibration file {}: {} bytes with the new record, over the {} a calibration file "
            "may hold; start a new file with --calibration",
            quote(where), text.size() + new_line_bytes, cap));
    std::size_t line = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') ++line;
        if (text[i] == '\0')
            throw InputError(fmt::format(
                "calibration file {} line {}: a NUL byte: this is not a calibration file (JSON "
                "Lines); give --calibration another file",
                quote(where), line));
    }
    if (!valid_utf8(text))
        throw InputError(fmt::format(
            "calibration file {}: not UTF-8 text: this is not a calibration file (JSON Lines); "
            "give --calibration another file",
            quote(where)));
    if (!text.empty() && text.back() != '\n')
        throw InputError(fmt::format(
            "calibration file {} line {}: the last line has no newline (a write was cut short?); "
            "end it or remove it, then calibrate again",
            quote(where), line));
    parse_calibration(text, where);  // names the line it cannot read
}

}  // namespace gpuadvise
