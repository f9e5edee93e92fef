#include "gpuadvise/speculative.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/json.hpp"

namespace gpuadvise {

namespace {

std::vector<AcceptanceRow> parse_acceptance(json::ObjectReader& root, std::string_view source) {
    const json::Value list = root.required("acceptance");
    if (!list.is_array()) root.fail("acceptance", "must be an array");
    std::vector<AcceptanceRow> out;
    const json::Path top{nullptr, "acceptance"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        AcceptanceRow row;
        row.method =
            r.one_of("method", {"draft-model", "mtp"}) == "mtp" ? DraftKind::Mtp : DraftKind::Model;
        row.target = std::string(r.str("target"));
        row.target_params = r.opt_number("target_params", 1e6, 1e14);
        row.draft = std::string(r.str("draft"));
        row.draft_params = r.opt_number("draft_params", 1e6, 1e14);
        // A measured rate strictly between 0 and 1: 1 would make every
        // draft token free, and the formula's limit hides a typo.
        row.alpha = r.number("alpha", 0.01, 0.99);
        row.sampling = std::string(r.str("sampling"));
        row.cite = std::string(r.str("cite"));
        row.source = std::string(r.str("source"));
        r.finish();
        // A draft model's row is chosen by its size ratio, so it needs both sizes.
        if (row.method == DraftKind::Model && (!row.target_params || !row.draft_params))
            r.fail("draft_params", "a draft-model row needs target_params and draft_params");
        if (row.method == DraftKind::Model && *row.draft_params >= *row.target_params)
            r.fail("draft_params", "must be smaller than target_params");
        out.push_back(std::move(row));
    }
    for (const DraftKind k : {DraftKind::Model, DraftKind::Mtp})
        if (std::none_of(out.begin(), out.end(),
                         [k](const AcceptanceRow& row) { return row.method == k; }))
            root.fail("acceptance",
                      fmt::format("must have a row of method '{}'", kDraftKinds.name(k)));
    return out;
}

std::vector<EngineSpeculation> parse_engine_rows(json::ObjectReader& root,
                                                 std::string_view source) {
    const json::Value list = root.required("engines");
    if (!list.is_array()) root.fail("engines", "must be an array");
    std::vector<EngineSpeculation> out;
    const json::Path top{nullptr, "engines"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        EngineSpeculation e;
        e.engine = std::string(r.str("engine"));
        e.draft_model = r.opt_bool("draft_model").value_or(false);
        e.mtp = r.opt_bool("mtp").value_or(false);
        e.draft_tokens = r.opt_integer("draft_tokens", 1, kMaxDraftTokens);
        e.mtp_tokens_from_checkpoint = r.opt_bool("mtp_tokens_from_checkpoint").value_or(false);
        e.source = std::string(r.str("source"));
        r.finish();
        if (!e.draft_model && !e.mtp) r.fail("engine", "runs neither a draft model nor MTP");
        if (e.mtp_tokens_from_checkpoint && !e.mtp)
            r.fail("mtp_tokens_from_checkpoint", "is set for an engine that runs no MTP");
        for (const EngineSpeculation& earlier : out)
            if (earlier.engine == e.engine)
                r.fail("engine", fmt::format("repeats the engine '{}'", e.engine));
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace

const EngineSpeculation* SpeculativeData::engine(std::string_view id) const {
    for (const EngineSpeculation& e : engines)
        if (e.engine == id) return &e;
    return nullptr;
}

SpeculativeData parse_speculative(std::string_view text, std::string_view source) {
    const std::string owned(text);
    json::Document doc = json::Document::parse(owned, source, "the speculative decoding object");
    json::ObjectReader r(doc.root(), source);
    r.opt_integer("schema", 1, 1);
    r.str_or("about", "");
    SpeculativeData d;
    d.acceptance = parse_acceptance(r, source);
    d.engines = parse_engine_rows(r, source);
    d.assumed_draft_tokens = r.integer("assumed_draft_tokens", 1, kMaxDraftTokens);
    d.assumed_draft_tokens_source = std::string(r.str("assumed_draft_tokens_source"));
    r.finish();
    return d;
}

const SpeculativeData& speculative_data() {
    static const SpeculativeData d =
        parse_speculative(embedded::speculative_json(), "embedded data/speculative.json");
    return d;
}

double expected_tokens_per_step(double alpha, std::int64_t draft_tokens) {
    const double a = std::clamp(alpha, 0.0, 1.0);
    const double k = static_cast<double>(std::max<std::int64_t>(draft_tokens, 0));
    // The geometric sum 1 + a + ... + a^K, exact at a = 1.
    if (a >= 1.0) return k + 1.0;
    return (1.0 - std::pow(a, k + 1.0)) / (1.0 - a);
}

const AcceptanceRow* typical_acceptance(const SpeculativeData& data, DraftKind kind,
                                        double target_params, double draft_params) {
    const AcceptanceRow* best = nullptr;
    double best_distance = 0;
    const double ratio = target_params > 0 && draft_params > 0 ? target_params / draft_params : 1.0;
    for (const AcceptanceRow& row : data.acceptance) {
        if (row.method != kind) continue;
        if (kind == DraftKind::Mtp) return &row;
        const double distance =
            std::fabs(std::log(ratio) - std::log(*row.target_params / *row.draft_params));
        if (!best || distance < best_distance) {
            best = &row;
            best_distance = distance;
        }
    }
    return best;
}

double speculative_tokens_per_s(double batch, std::int64_t draft_tokens, double alpha,
                                double draft_step_s, double verify_s) {
    const double step = static_cast<double>(draft_tokens) * draft_step_s + verify_s;
    if (!(step > 0) || !(batch > 0)) return 0.0;
    return batch * expected_tokens_per_step(alpha, draft_tokens) / step;
}

}  // namespace gpuadvise
