#include "gpuadvise/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {
namespace {

// A measured run further than this from the estimate is more likely another
// workload than a correction of this one (the memory bands' 10-90 % spread is
// 0.86-1.22, docs/accuracy.md).
constexpr double kMinFactor = 0.5, kMaxFactor = 2.0;

double clamp_factor(double f) {
    if (!std::isfinite(f)) return 1.0;
    return std::clamp(f, kMinFactor, kMaxFactor);
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

// The number before `marker` on `line` ("GPU peak memory allocation: 7.20 GiB").
std::optional<double> number_after(std::string_view line, std::string_view marker) {
    const auto at = line.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = trim(line.substr(at + marker.size()));
    std::size_t n = 0;
    while (n < rest.size() &&
           (std::isdigit(static_cast<unsigned char>(rest[n])) != 0 || rest[n] == '.'))
        ++n;
    if (n == 0) return std::nullopt;
    try {
        return std::stod(std::string(rest.substr(0, n)));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// "123.4 MiB", "7.2 GiB", "512 MB", "8 GB" after a number: bytes per unit.
double unit_after(std::string_view line, std::string_view marker) {
    const auto at = line.find(marker);
    const std::string_view rest = at == std::string_view::npos ? line : line.substr(at);
    if (rest.find("GiB") != std::string_view::npos) return static_cast<double>(kGiB);
    if (rest.find("MiB") != std::string_view::npos) return 1024.0 * 1024.0;
    if (rest.find("GB") != std::string_view::npos) return 1e9;
    if (rest.find("MB") != std::string_view::npos) return 1e6;
    if (rest.find("KiB") != std::string_view::npos) return 1024.0;
    return 1.0;
}

std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
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

std::string calibration_key(const Workload& w) {
    // The same model in the same weight format on the same harness: what one
    // measured run tells about the next runs of it (another batch, sequence
    // or card). Across models, a source's rows disagree more than the run
    // corrects (docs/accuracy.md, "Calibration from one measured run").
    const std::string model =
        fmt::format(":{}:{}", kQuantFamilies.name(w.quant.family()), w.model.params);
    if (w.is_image())
        return fmt::format("{}:{}", kImageFamilies.name(w.model.image->family),
                           to_string(w.method)) +
               model;
    if (!w.trains())
        return fmt::format("inference:{}", w.engine ? w.engine->id : std::string_view("none")) +
               model;
    return fmt::format("{}:{}:{}:{}", to_string(w.method), kLosses.name(w.loss),
                       kOptimizerImpls.name(w.optimizer_impl), kCkptModes.name(w.ckpt_mode)) +
           model;
}

CalibrationRecord make_record(const Workload& w, const MemoryEstimate& m,
                              std::optional<MemoryMetric> metric, double measured_bytes,
                              const Performance* perf, std::optional<MeasuredSpeed> speed,
                              std::string_view gpu) {
    CalibrationRecord r;
    r.key = calibration_key(w);
    r.model = w.model.name;
    r.gpu = std::string(gpu);
    if (metric) {
        r.metric = metric;
        r.measured_bytes = measured_bytes;
        const double allocated = static_cast<double>(m.allocated_bytes);
        const double reserved = static_cast<double>(m.reserved_bytes);
        const double per_gpu = static_cast<double>(m.per_gpu_bytes);
        const double context = std::max(per_gpu - reserved, 0.0);
        // The run's ratio to the estimate, outside the CUDA context: every
        // component the framework allocates is scaled by it.
        switch (*metric) {
            case MemoryMetric::Allocated:
                r.estimated_bytes = allocated;
                r.memory_factor = measured_bytes / allocated;
                break;
            case MemoryMetric::Reserved:
                r.estimated_bytes = reserved;
                r.memory_factor = measured_bytes / reserved;
                break;
            case MemoryMetric::NvidiaSmi:
                r.estimated_bytes = per_gpu;
                r.memory_factor = (measured_bytes - context) / reserved;
                break;
        }
        r.memory_factor = clamp_factor(r.memory_factor);
    }
    if (speed && perf) {
        if (const auto est = estimated_speed(*perf, speed->unit)) {
            r.speed_unit = speed->unit;
            r.measured_speed = speed->value;
            r.estimated_speed = *est;
            r.speed_factor =
                clamp_factor(is_time(speed->unit) ? *est / speed->value : speed->value / *est);
        }
    }
    return r;
}

std::string record_json_line(const CalibrationRecord& r) {
    std::string out;
    json::Writer j(out, false);
    j.begin_object().field("schema", 1).field("key", r.key).field("model", r.model);
    j.field("gpu", r.gpu);
    j.key("metric");
    if (r.metric)
        j.value(kMemoryMetrics.name(*r.metric));
    else
        j.null();
    j.field("measured_bytes", r.measured_bytes).field("estimated_bytes", r.estimated_bytes);
    j.field("memory_factor", r.memory_factor);
    j.key("speed_unit");
    if (r.speed_unit)
        j.value(kSpeedUnits.name(*r.speed_unit));
    else
        j.null();
    j.field("measured_speed", r.measured_speed).field("estimated_speed", r.estimated_speed);
    j.field("speed_factor", r.speed_factor).end_object();
    return out;
}

Calibration parse_calibration(std::string_view text, std::string_view source) {
    Calibration c;
    c.source = sanitize(source, 200);
    std::size_t number = 0;
    for (const std::string_view line : lines_of(text)) {
        ++number;
        if (trim(line).empty()) continue;
        const std::string where = fmt::format("{} line {}", c.source, number);
        const json::Document doc =
            json::Document::parse(line, where, "one calibration record (a JSON object)");
        json::ObjectReader r(doc.root(), where);
        r.opt_integer("schema", 1, 1);
        CalibrationRecord rec;
        rec.key = std::string(r.str("key"));
        rec.model = std::string(r.str_or("model", ""));
        rec.gpu = std::string(r.str_or("gpu", ""));
        if (const auto m = r.get("metric"); m && !m->is_null())
            rec.metric = kMemoryMetrics.parse(m->text(), where + ": metric");
        rec.measured_bytes = r.number("measured_bytes", 0, kMaxEstimateBytes);
        rec.estimated_bytes = r.number("estimated_bytes", 0, kMaxEstimateBytes);
        rec.memory_factor = r.number("memory_factor", kMinFactor, kMaxFactor);
        if (const auto u = r.get("speed_unit"); u && !u->is_null())
            rec.speed_unit = kSpeedUnits.parse(u->text(), where + ": speed_unit");
        rec.measured_speed = r.number("measured_speed", 0, 1e15);
        rec.estimated_speed = r.number("estimated_speed", 0, 1e15);
        rec.speed_factor = r.number("speed_factor", kMinFactor, kMaxFactor);
        r.finish();
        c.records.push_back(std::move(rec));
    }
    return c;
}

std::optional<CalibrationMatch> match_calibration(const Calibration& c, const Workload& w) {
    const std::string key = calibration_key(w);
    CalibrationMatch m;
    m.source = c.source;
    double log_memory = 0, log_speed = 0;
    for (const CalibrationRecord& r : c.records) {
        if (r.key != key) continue;
        if (r.metric) {
            ++m.memory_records;
            log_memory += std::log(r.memory_factor);
        }
        if (r.speed_unit) {
            ++m.speed_records;
            log_speed += std::log(r.speed_factor);
        }
    }
    if (m.memory_records == 0 && m.speed_records == 0) return std::nullopt;
    if (m.memory_records)
        m.memory_factor = std::exp(log_memory / static_cast<double>(m.memory_records));
    if (m.speed_records)
        m.speed_factor = std::exp(log_speed / static_cast<double>(m.speed_records));
    return m;
}

void scale_allocated_components(Components& c, double factor) {
    for (double* v : {&c.weights, &c.text_encoders, &c.vae, &c.adapters, &c.gradients, &c.optimizer,
                      &c.activations, &c.logits, &c.kv_cache, &c.workspace})
        *v *= factor;
}

void scale_rates(Performance& p, double f) {
    for (auto* v : {&p.decode_tokens_per_s, &p.prefill_tokens_per_s, &p.train_tokens_per_s,
                    &p.images_per_s, &p.streams_max, &p.mfu})
        if (*v) **v *= f;
    for (auto* v : {&p.step_seconds, &p.micro_step_seconds, &p.time_to_first_token_s,
                    &p.seconds_per_image, &p.denoise_step_seconds, &p.job_hours, &p.gpu_hours,
                    &p.job_cost_usd, &p.energy_kwh, &p.usd_per_million_tokens})
        if (*v) **v /= f;
    p.paging_seconds /= f;
}

std::optional<LoggedPeak> parse_run_log(std::string_view text, std::optional<MemoryMetric> wanted) {
    std::optional<LoggedPeak> allocated, reserved, smi;
    double ggml = 0;
    std::size_t smi_column = std::string_view::npos;
    double smi_unit = 1024.0 * 1024.0;
    for (const std::string_view raw : lines_of(text)) {
        const std::string_view line = trim(raw);
        // torch.cuda.memory_summary(): "| Allocated memory | cur | peak | ..." rows.
        if (line.rfind("| Allocated memory", 0) == 0 ||
            line.rfind("| GPU reserved memory", 0) == 0) {
            std::vector<std::string_view> cells;
            std::size_t start = 1;
            while (start < line.size()) {
                const std::size_t bar = std::min(line.find('|', start), line.size());
                cells.push_back(trim(line.substr(start, bar - start)));
                start = bar + 1;
            }
            if (cells.size() >= 3) {
                const auto peak = number_after(cells[2], "");
                if (peak) {
                    LoggedPeak p{*peak * unit_after(cells[2], ""),
                                 line.find("reserved") != std::string_view::npos
                                     ? MemoryMetric::Reserved
                                     : MemoryMetric::Allocated,
                                 "torch.cuda.memory_summary peak"};
                    (p.metric == MemoryMetric::Reserved ? reserved : allocated) = p;
                }
            }
            continue;
        }
        // torchtune's log_memory_stats.
        if (const auto v = number_after(line, "GPU peak memory allocation:"))
            allocated = LoggedPeak{*v * unit_after(line, "allocation:"), MemoryMetric::Allocated,
                                   "torchtune peak memory allocation"};
        if (const auto v = number_after(line, "GPU peak memory reserved:"))
            reserved = LoggedPeak{*v * unit_after(line, "reserved:"), MemoryMetric::Reserved,
                                  "torchtune peak memory reserved"};
        // llama.cpp: "CUDA0 model buffer size = 4403.49 MiB" (and KV, compute).
        if (line.find("buffer size") != std::string_view::npos &&
            (line.find("CUDA") != std::string_view::npos ||
             line.find("ROCm") != std::string_view::npos ||
             line.find("Metal") != std::string_view::npos))
            if (const auto v = number_after(line, "=")) ggml += *v * unit_after(line, "=");
        // nvidia-smi --query-gpu=...,memory.used --format=csv
        if (line.find("memory.used") != std::string_view::npos) {
            std::size_t col = 0, start = 0;
            while (start <= line.size()) {
                const std::size_t comma = std::min(line.find(',', start), line.size());
                const std::string_view cell = trim(line.substr(start, comma - start));
                if (cell.rfind("memory.used", 0) == 0) {
                    smi_column = col;
                    smi_unit = cell.find("GiB") != std::string_view::npos
                                   ? static_cast<double>(kGiB)
                                   : 1024.0 * 1024.0;
                }
                ++col;
                start = comma + 1;
            }
            continue;
        }
        if (smi_column != std::string_view::npos) {
            std::size_t col = 0, start = 0;
            while (start <= line.size()) {
                const std::size_t comma = std::min(line.find(',', start), line.size());
                if (col == smi_column) {
                    if (const auto v = number_after(line.substr(start, comma - start), "")) {
                        const double bytes = *v * smi_unit;
                        if (!smi || bytes > smi->bytes)
                            smi = LoggedPeak{bytes, MemoryMetric::NvidiaSmi,
                                             "nvidia-smi memory.used (the maximum)"};
                    }
                    break;
                }
                ++col;
                start = comma + 1;
            }
        }
    }
    if (ggml > 0 && !allocated)
        allocated = LoggedPeak{ggml, MemoryMetric::Allocated, "llama.cpp device buffers"};
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

}  // namespace gpuadvise
