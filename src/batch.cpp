#include "gpuadvise/batch.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/report.hpp"
#include "gpuadvise/task.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;
using Field = std::optional<std::string> WorkloadRequest::*;

struct StringKey {
    const char* key;
    Field field;
};

constexpr StringKey kStringKeys[] = {
    {"model", &WorkloadRequest::model},         {"method", &WorkloadRequest::method},
    {"precision", &WorkloadRequest::precision}, {"quant", &WorkloadRequest::quant},
    {"mixed_precision", &WorkloadRequest::mixed}, {"optimizer", &WorkloadRequest::optimizer},
    {"kv_dtype", &WorkloadRequest::kv_dtype},   {"parallel", &WorkloadRequest::parallel},
    {"estimator", &WorkloadRequest::estimator}, {"engine", &WorkloadRequest::engine},
    {"batch", &WorkloadRequest::batch},         {"seq", &WorkloadRequest::seq},
    {"prompt", &WorkloadRequest::prompt},       {"gen", &WorkloadRequest::gen},
    {"lora_rank", &WorkloadRequest::lora_rank}, {"lora_targets", &WorkloadRequest::lora_targets},
    {"gpus", &WorkloadRequest::gpus},
};

using BoolField = std::optional<bool> WorkloadRequest::*;
struct BoolKey {
    const char* key;
    BoolField field;
};
constexpr BoolKey kBoolKeys[] = {{"grad_ckpt", &WorkloadRequest::grad_ckpt},
                                 {"flash_attn", &WorkloadRequest::flash_attn},
                                 {"double_quant", &WorkloadRequest::double_quant},
                                 {"optimizer_in_backward", &WorkloadRequest::optimizer_in_backward},
                                 {"chunked_loss", &WorkloadRequest::chunked_loss}};

constexpr const char* kOtherKeys[] = {"gpu", "top", "rank_by", "os", "task", "max_gpus"};

// Numbers are accepted where the flag takes a number; they go through the
// same text parser as the flag so the checks and messages are the same.
std::string as_text(const json& v, const std::string& key) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (!std::isfinite(d)) throw InputError(fmt::format("\"{}\" must be finite", key));
        return fmt::format("{}", d);
    }
    throw InputError(fmt::format("\"{}\" must be a string or a number (got {})", key, v.dump()));
}

ojson error_object(std::size_t line, const std::string& message) {
    ojson j;
    j["schema"] = kSchemaVersion;
    j["line"] = line;
    j["error"] = message;
    return j;
}

}  // namespace

const std::vector<std::string>& batch_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> k;
        for (const auto& s : kStringKeys) k.emplace_back(s.key);
        for (const auto& b : kBoolKeys) k.emplace_back(b.key);
        for (const char* o : kOtherKeys) k.emplace_back(o);
        return k;
    }();
    return keys;
}

BatchLineResult run_batch_line(std::string_view line, std::size_t line_number, const Catalog& catalog,
                               const std::vector<ModelPreset>& presets) {
    try {
        json obj;
        try {
            obj = json::parse(line);
        } catch (const json::parse_error& e) {
            throw InputError(fmt::format("not valid JSON (at byte {})", e.byte));
        } catch (const json::exception& e) {
            throw InputError(fmt::format("unusable JSON: {}", e.what()));
        }
        if (!obj.is_object()) throw InputError("each line must be a JSON object, like {\"model\": \"8B\"}");
        WorkloadRequest request;
        std::optional<std::string> gpu, rank_by, os, task;
        std::size_t top = 0;
        std::int64_t max_gpus = 8;
        for (const auto& [key, value] : obj.items()) {
            if (value.is_null()) continue;
            bool known = false;
            for (const auto& s : kStringKeys)
                if (key == s.key) {
                    request.*(s.field) = as_text(value, key);
                    known = true;
                }
            for (const auto& b : kBoolKeys)
                if (key == b.key) {
                    if (!value.is_boolean()) throw InputError(fmt::format("\"{}\" must be true or false", key));
                    request.*(b.field) = value.get<bool>();
                    known = true;
                }
            if (key == "gpu") gpu = as_text(value, key);
            else if (key == "rank_by") rank_by = as_text(value, key);
            else if (key == "os") os = as_text(value, key);
            else if (key == "task") task = as_text(value, key);
            else if (key == "top") top = static_cast<std::size_t>(parse_positive_int(as_text(value, key), "\"top\"", 100000));
            else if (key == "max_gpus") max_gpus = parse_positive_int(as_text(value, key), "\"max_gpus\"", 4096);
            else if (!known) {
                const auto near = closest_name(key, batch_keys());
                throw InputError(near ? fmt::format("unknown key \"{}\"; did you mean \"{}\"?", key, *near)
                                      : fmt::format("unknown key \"{}\"", key));
            }
        }
        RankOptions options;
        if (task) {
            const TaskPreset& t = find_task(*task);
            options.task = t.requirements;
            if (t.model) {
                if (!request.model) request.model = t.model;
                if (!request.method) request.method = t.method;
            } else {
                request.fixed_bytes = t.requirements.min_memory_bytes;
                request.fixed_label = t.id;
            }
        }
        const Workload w = resolve_workload(request, presets);
        if (rank_by) options.rank_by = parse_rank_by(*rank_by);
        if (os) {
            const auto parsed = parse_os(*os);
            if (!parsed) parse_choice(*os, "\"os\"", {"linux", "windows", "wsl"});
            options.os = parsed.value_or(Os::Linux);
        }
        options.max_gpus = max_gpus;
        if (request.gpus) options.fixed_gpus = w.gpus;
        if (request.parallel) options.parallel = w.parallel;
        ojson out;
        out["schema"] = kSchemaVersion;
        out["line"] = line_number;
        const MemoryEstimate memory = estimate(w);
        out["workload"] = workload_json(w);
        out["memory"] = memory_json(memory);
        if (gpu) {
            const Gpu& g = resolve_gpu(catalog, *gpu);
            out["check"] = recommendation_json(evaluate_plan(w, g, w.gpus, options), 1);
        }
        if (top > 0) {
            const auto recs = rank(w, catalog, options);
            ojson list = ojson::array();
            for (std::size_t i = 0; i < recs.size() && i < top; ++i) list.push_back(recommendation_json(recs[i], i + 1));
            out["recommendations"] = list;
        }
        return {out.dump(), true};
    } catch (const InputError& e) {
        return {error_object(line_number, e.what()).dump(), false};
    }
}

}  // namespace gpuadvise
