#include "gpuadvise/calibration.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

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

std::string_view harness_part(std::string_view key) {
    // The last two fields are the model: the format's family, the count.
    std::size_t end = key.size();
    for (int k = 0; k < 2; ++k) {
        const auto colon = key.rfind(':', end == 0 ? 0 : end - 1);
        if (colon == std::string_view::npos) return key;
        end = colon;
    }
    return key.substr(0, end);
}

double calibration_weight(const CalibrationRecord& r, std::string_view key, const RunShape& run) {
    if (harness_part(r.key) != harness_part(key)) return 0.0;
    const bool same_model = r.key == key;
    switch (r.scope) {
        case CalibrationScope::Run:
            return same_model && r.batch == run.batch && r.seq == run.seq &&
                           r.flash_attn == run.flash_attn
                       ? 1.0
                       : 0.0;
        case CalibrationScope::Model:
            return same_model ? 1.0 : 0.0;
        case CalibrationScope::Harness:
            return same_model ? 1.0 : kOtherModelWeight;
    }
    return 0.0;
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
    if (r.static_factor > 0)
        j.field("static_factor", r.static_factor)
            .field("measured_static_bytes", r.measured_static_bytes)
            .field("estimated_static_bytes", r.estimated_static_bytes);
    j.field("scope", kCalibrationScopes.name(r.scope));
    j.field("batch", r.batch).field("seq", r.seq).field("flash_attn", r.flash_attn);
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
    for (const std::string_view line : split_lines(text)) {
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
        rec.memory_factor = r.number("memory_factor", kMinCalibrationFactor, kMaxCalibrationFactor);
        // Fields of round three (issue 26); a file of older records has none.
        if (const auto f =
                r.opt_number("static_factor", kMinCalibrationFactor, kMaxCalibrationFactor)) {
            rec.static_factor = *f;
            rec.measured_static_bytes = r.number("measured_static_bytes", 0, kMaxEstimateBytes);
            rec.estimated_static_bytes = r.number("estimated_static_bytes", 0, kMaxEstimateBytes);
        }
        if (const auto sc = r.opt_str("scope"))
            rec.scope = kCalibrationScopes.parse(*sc, where + ": scope");
        rec.batch = r.opt_integer("batch", 0, 1'000'000'000).value_or(0);
        rec.seq = r.opt_integer("seq", 0, 1'000'000'000'000).value_or(0);
        rec.flash_attn = r.opt_bool("flash_attn").value_or(true);
        if (const auto u = r.get("speed_unit"); u && !u->is_null())
            rec.speed_unit = kSpeedUnits.parse(u->text(), where + ": speed_unit");
        rec.measured_speed = r.number("measured_speed", 0, 1e15);
        rec.estimated_speed = r.number("estimated_speed", 0, 1e15);
        rec.speed_factor = r.number("speed_factor", kMinCalibrationFactor, kMaxCalibrationFactor);
        r.finish();
        c.records.push_back(std::move(rec));
    }
    return c;
}

std::optional<CalibrationMatch> match_calibration(const Calibration& c, const Workload& w) {
    const std::string key = calibration_key(w);
    CalibrationMatch m;
    m.source = c.source;
    m.weight = 0;
    double log_memory = 0, log_speed = 0, log_static = 0;
    std::size_t static_records = 0;
    for (const CalibrationRecord& r : c.records) {
        if (r.metric) {
            const double weight = calibration_weight(r, key, {w.batch, w.seq, w.flash_attn});
            if (weight > 0) {
                ++m.memory_records;
                m.weight = std::max(m.weight, weight);
                log_memory += weight * std::log(r.memory_factor);
                if (r.static_factor > 0) {
                    ++static_records;
                    log_static += weight * std::log(r.static_factor);
                }
            }
        }
        if (r.speed_unit && r.key == key) {
            ++m.speed_records;
            log_speed += std::log(r.speed_factor);
        }
    }
    if (m.memory_records == 0 && m.speed_records == 0) return std::nullopt;
    if (m.memory_records)
        m.memory_factor = std::exp(log_memory / static_cast<double>(m.memory_records));
    if (static_records)
        m.static_factor = std::exp(log_static / static_cast<double>(static_records));
    if (m.speed_records)
        m.speed_factor = std::exp(log_speed / static_cast<double>(m.speed_records));
    if (m.weight == 0) m.weight = 1;
    return m;
}

}  // namespace gpuadvise
