#include "gpuadvise/batch.hpp"

#include <fmt/format.h>

#include <deque>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

// Fields a line may set: those of the workload, the job, the host and
// ranking, --gpu and --vram. Files are not read from batch lines (one request
// per line, no I/O), and output settings belong to the whole run.
bool batchable(const FieldSpec& s) {
    if (s.file || s.field == Field::Explain || s.field == Field::Plot) return false;
    if (s.field == Field::Vram) return true;
    return (s.group &
            (kModelGroup | kWorkloadGroup | kJobGroup | kHostGroup | kRankGroup | kGpuGroup)) != 0;
}

// A key the line would otherwise ignore is an error: the answer would not
// be what the line asked for.
void check_ignored(const Request& r) {
    const auto key = [](Field f) { return spec(f).key; };
    if (r.has(Field::Emit))
        throw InputError(
            "\"emit\": a batch line returns JSON, not a launch; run 'gpuadvise estimate --gpu "
            "CARD --emit TOOL' for one plan");
    if (!r.has(Field::Top))
        for (const Field f :
             {Field::Budget, Field::RankBy, Field::Vendor, Field::Segment, Field::Region})
            if (r.has(f))
                throw InputError(fmt::format(
                    "\"{}\" applies to the ranking; add \"top\": N to rank the catalog", key(f)));
    if (r.has(Field::MaxGpus) && !r.has(Field::Top) && !r.has(Field::Gpu))
        throw InputError(
            "\"max_gpus\" bounds a ranking (\"top\") or the card count of a check (\"gpu\"); add "
            "one of them");
    if (r.has(Field::Vram) && !r.has(Field::Gpu))
        throw InputError("\"vram\" sets the memory of the card the line checks; add \"gpu\"");
}

std::string error_line(std::size_t line, std::string_view message) {
    std::string out;
    json::Writer w(out, false);
    w.begin_object()
        .field("schema", kSchemaVersion)
        .field("line", static_cast<std::uint64_t>(line));
    w.field("error", message).end_object();
    return out;
}

// Numbers are accepted where the flag takes a number and go through the same
// text parser as the flag, so the checks and messages are the same: the
// literal as written (18446744073709551615 stays that, never -1).
std::string as_text(const json::Value& v, const std::string& origin) {
    if (v.is_string()) return std::string(v.text());
    if (v.is_number()) return std::string(v.text());
    throw InputError(fmt::format("{} must be a string or a number (got {})", origin, v.dump()));
}

}  // namespace

const std::string* BatchMemo::find(const std::string& key) const {
    const auto it = checks_.find(key);
    return it == checks_.end() ? nullptr : &it->second;
}

void BatchMemo::add(std::string key, std::string check_json) {
    if (checks_.size() < kMaxEntries) checks_.emplace(std::move(key), std::move(check_json));
}

std::vector<std::string> batch_keys() {
    std::vector<std::string> keys;
    for (const FieldSpec& s : field_specs())
        if (batchable(s)) keys.emplace_back(s.key);
    return keys;
}

BatchLineResult run_batch_line(std::string_view line, std::size_t line_number,
                               const BatchContext& context) {
    const Catalog& catalog = context.catalog;
    try {
        const std::string source = fmt::format("line {}", line_number);
        const json::Document doc = json::Document::parse(line, source, "a JSON object");
        if (!doc.root().is_object())
            throw InputError("each line must be a JSON object, like {\"model\": \"8B\"}");
        Request request;
        // What the line asked, member by member (JSON strings hold no NUL,
        // so the separators are unambiguous): the memo's key.
        std::string asked;
        for (const json::Value v : doc.root().items()) {
            const std::string_view key = v.key();
            asked.append(key).push_back('\0');
            asked.push_back(static_cast<char>('0' + static_cast<int>(v.type())));
            asked.append(v.is_bool() ? (v.boolean() ? "1" : "0") : v.text()).push_back('\0');
            const FieldSpec* spec = find_field_by_key(key);
            if (spec == nullptr || !batchable(*spec)) {
                const auto near = closest_name(key, batch_keys());
                throw InputError(
                    near ? fmt::format("unknown key {}; did you mean \"{}\"?", quote(key), *near)
                         : fmt::format("unknown key {}; 'gpuadvise batch --help' lists the keys",
                                       quote(key)));
            }
            if (v.is_null()) continue;
            const std::string origin = fmt::format("\"{}\"", key);
            if (spec->kind == FieldKind::Toggle || spec->kind == FieldKind::Switch) {
                if (!v.is_bool())
                    throw InputError(
                        fmt::format("{} must be true or false (got {})", origin, v.dump()));
                if (spec->kind == FieldKind::Switch && !v.boolean()) continue;
                request.set(spec->field, v.boolean() ? "true" : "false", origin);
            } else {
                request.set(spec->field, as_text(v, origin), origin);
            }
        }
        check_ignored(request);
        Workload w = resolve_workload(request, {}, context.presets);
        w.calibration = context.calibration;
        RankOptions options = rank_options(request, w);
        const MemoryEstimate memory = estimate(w);
        std::string out;
        out.reserve(4096);  // a checked line is ~3.3 KB
        json::Writer j(out, false);
        j.begin_object();
        j.field("schema", kSchemaVersion);
        j.field("line", static_cast<std::uint64_t>(line_number));
        j.key("workload");
        write_workload(j, w);
        j.key("memory");
        write_memory(j, memory);
        if (const auto& gpu = request.get(Field::Gpu)) {
            if (normalize_name(gpu->text) == "local")
                throw InputError(fmt::format(
                    "{} local: batch lines name their cards (detecting this machine's is "
                    "'gpuadvise check --gpu local')",
                    gpu->origin));
            j.key("check");
            if (const std::string* seen = context.memo ? context.memo->find(asked) : nullptr) {
                j.raw(*seen);
            } else {
                // As `check` answers: the box, its strategy, the plan and its limits.
                Workload box = w;
                std::deque<Gpu> made;
                std::vector<const Gpu*> cards = box_cards(catalog, request, box, made);
                RankOptions o = rank_options(request, box);
                if (request.has(Field::Parallel)) o.parallel = box.parallel;
                const Recommendation rec = plan_box(request, box, cards, o);
                const std::size_t at = out.size();
                write_recommendation(j, rec, 1);
                if (context.memo) context.memo->add(std::move(asked), out.substr(at));
            }
        }
        if (request.has(Field::Top)) {
            const std::size_t top = top_count(request);
            options.describe_top = top;
            const Ranking ranking = rank_within_budget(w, catalog, options);
            const auto& recs = ranking.plans;
            if (ranking.options.budget_basis != BudgetBasis::None)
                j.field("budget_basis", kBudgetBases.name(ranking.options.budget_basis));
            j.key("recommendations").begin_array();
            for (std::size_t i = 0; i < recs.size() && i < top; ++i)
                write_recommendation(j, recs[i], i + 1);
            j.end_array();
        }
        j.end_object();
        return {std::move(out), true};
    } catch (const InputError& e) {
        return {error_line(line_number, e.what()), false};
    }
}

}  // namespace gpuadvise
