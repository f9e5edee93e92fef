#include "gpuadvise/task.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {

std::span<const TaskPreset> task_presets() {
    return embedded::tasks();
}

std::vector<std::string> task_choices() {
    std::vector<std::string> ids;
    for (const auto& t : task_presets()) ids.emplace_back(t.id);
    return ids;
}

const TaskPreset& find_task(std::string_view name, std::string_view what) {
    const std::string id = parse_choice(name, what, task_choices());
    for (const auto& t : task_presets())
        if (t.id == id) return t;
    return task_presets().front();
}

Parsed<TaskPreset> parse_tasks(std::string_view text, std::string_view source) {
    auto storage = std::make_shared<json::Storage>();
    storage->text = std::string(text);
    json::Document doc = json::Document::parse(storage->text, source, "a JSON list of tasks");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.str_or("about", "");
    const json::Value list = root.required("tasks");
    if (!list.is_array()) root.fail("tasks", "must be an array");
    root.finish();
    Parsed<TaskPreset> out;
    const json::Path top{nullptr, "tasks"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        TaskPreset t;
        t.id = r.str("id");
        t.description = r.str("description");
        t.model = r.opt_str("model");
        t.method = r.opt_str("method");
        if (t.model.has_value() != t.method.has_value())
            r.fail("method", "a task gives both a model and a method, or neither");
        t.requirements.id = t.id;
        t.requirements.min_memory_bytes =
            static_cast<std::uint64_t>(std::llround(r.number("min_memory_gb", 0, 1e6) * 1e9));
        t.requirements.min_bandwidth_gbps = r.number("min_bandwidth_gbps", 0, 1e6);
        t.requirements.needs_fast_link = r.opt_bool("needs_fast_link").value_or(false);
        t.requirements.needs_av1 = r.opt_bool("needs_av1").value_or(false);
        t.document_pick = r.str("document_pick");
        t.document_reason = r.str("document_reason");
        t.floors_source = r.str_or("floors_source", "");
        r.finish();
        out.rows.push_back(t);
    }
    storage->strings = std::move(doc).take_strings();
    out.storage = std::move(storage);
    return out;
}

}  // namespace gpuadvise
