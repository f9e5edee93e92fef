// The search behind suggest.hpp. A candidate is a set of flags; a probe is the
// user's request with those flags, resolved and evaluated as the command would
// (a refused combination is no candidate). Searches over a number (batch,
// context, cards) keep the largest, or first, value whose probe fits. This
// file is the search itself: probing a candidate, recording a suggestion, the
// order of the makers (suggest_workload.cpp, suggest_placement.cpp).
#include "gpuadvise/suggest.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/query.hpp"
#include "suggest_common.hpp"

namespace gpuadvise {
namespace suggest_detail {

bool fits(const Recommendation& r) {
    if (!r.fits) return false;
    return std::all_of(r.placement.begin(), r.placement.end(),
                       [](const Placement& p) { return p.bytes <= p.usable_bytes; });
}

Search::Search(const SuggestInputs& in, const Workload& w, std::span<const Gpu* const> cards,
               const Recommendation& missed)
    : in_(in), w_(w), cards_(cards.begin(), cards.end()), missed_(missed) {
    metric_ = w.generates_video() ? "video_frames_per_s"
              : w.is_image()      ? "images_per_s"
              : w.trains()        ? "train_tokens_per_s"
              : w.embeds()        ? "sequences_per_s"
                                  : "decode_tokens_per_s";
    if (const auto& g = in.request.get(Field::Gpu)) {
        const std::string name = normalize_name(g->text);
        one_name_ = name != "local" && g->text.find(',') == std::string::npos;
    }
    uniform_ = std::all_of(cards_.begin(), cards_.end(),
                           [&](const Gpu* g) { return g == cards_.front(); });
}

std::vector<Suggestion> Search::run() {
    if (cards_.empty() || w_.is_fixed() || fits(missed_)) return {};
    batch();
    context();
    quant();
    kv_cache();
    checkpointing();
    loss();
    optimizer();
    method();
    offload();
    gpus();
    std::stable_sort(out_.begin(), out_.end(), [](const Suggestion& a, const Suggestion& b) {
        return static_cast<int>(a.kind) < static_cast<int>(b.kind);
    });
    if (out_.size() > kMaxSuggestions) out_.resize(kMaxSuggestions);
    return out_;
}

// The words the user gave for `f` (nothing for a default or a setting,
// which a flag overrides anyway).
std::vector<std::string> Search::given(Field f) const {
    const auto& g = in_.request.get(f);
    if (!g || g->origin.rfind("--", 0) != 0) return {};
    const FieldSpec& s = spec(f);
    if (s.kind == FieldKind::Value) return {std::string(s.flag), g->text};
    if (s.kind == FieldKind::Toggle && g->text == "false") return {s.negative_flag()};
    return {std::string(s.flag)};
}

void Search::replaces(Change& c, Field f) const {
    for (auto& word : given(f)) c.replaces.push_back(std::move(word));
}

// The user's command line with the change, answered as the command would.
std::optional<Probed> Search::probe(const Change& c) const {
    Request r = in_.request;
    for (const Field f : c.clear) r.clear(f);
    for (const auto& [f, v] : c.set) r.set(f, v, std::string(spec(f).flag));
    const bool ranking = in_.where == SuggestFor::Ranking;
    if (c.count > 0 && !ranking) r.set(Field::Gpus, std::to_string(c.count), "--gpus");
    if (c.count > 0 && ranking && in_.request.has(Field::Gpus))
        r.set(Field::Gpus, std::to_string(c.count), "--gpus");
    if (c.count > 0 && ranking && !in_.request.has(Field::Gpus))
        r.set(Field::MaxGpus, std::to_string(c.count), "--max-gpus");
    try {
        Probed p{resolve_workload(r, in_.inputs, in_.presets), {}};
        p.workload.calibration = in_.calibration;
        const Gpu& gpu = *cards_.front();
        if (ranking) {
            const RankOptions o = rank_options(r, p.workload);
            p.plan = evaluate_plan(p.workload, gpu, c.count > 0 ? c.count : missed_.count, o,
                                   nullptr, Detail::Numbers);
            return p;
        }
        // What box_cards makes of the workload and the cards.
        std::vector<const Gpu*> cards = cards_;
        if (one_name_) {
            cards.assign(static_cast<std::size_t>(p.workload.gpus), &gpu);
        } else {
            p.workload.gpus = static_cast<std::int64_t>(cards.size());
            if (p.workload.gpus > 1 && p.workload.parallel == Parallel::None)
                p.workload.parallel = default_parallel(p.workload);
        }
        const RankOptions o = rank_options(r, p.workload);
        if (r.has(Field::MaxGpus) && !r.has(Field::Gpus) && one_name_) {
            // plan_box's search: the smallest count that fits.
            for (std::int64_t n = 1; n <= o.max_gpus; n *= 2) {
                p.plan = evaluate_plan(p.workload, gpu, n, o, nullptr, Detail::Numbers);
                if (fits(p.plan)) break;
            }
            return p;
        }
        p.plan = evaluate_box(p.workload, cards, o, Detail::Numbers);
        return p;
    } catch (const InputError&) {
        return std::nullopt;  // a combination the command refuses, or beyond the model's bounds
    }
}

std::optional<Probed> Search::fitting(const Change& c) const {
    auto p = probe(c);
    if (!p || !fits(p->plan)) return std::nullopt;
    return p;
}

std::optional<double> Search::rate(const Performance& p) const {
    std::optional<double> v = metric_ == "images_per_s"         ? p.images_per_s
                              : metric_ == "video_frames_per_s" ? p.video_frames_per_s
                              : metric_ == "train_tokens_per_s" ? p.train_tokens_per_s
                              : metric_ == "sequences_per_s"    ? p.sequences_per_s
                                                                : p.decode_tokens_per_s;
    if (v && (!std::isfinite(*v) || *v <= 0)) v.reset();
    return v;
}

void Search::add(Change c, const Probed& p, std::string note) {
    Suggestion s;
    s.kind = c.kind;
    s.flags = std::move(c.flags);
    s.replaces = std::move(c.replaces);
    s.per_gpu_bytes = p.plan.memory.per_gpu_bytes;
    s.usable_bytes = p.plan.usable_bytes;
    s.tight = p.plan.tight;
    s.rate_metric = metric_;
    s.rate = rate(p.plan.performance);
    s.rate_asked = rate(missed_.performance);
    s.note = std::move(note);
    out_.push_back(std::move(s));
}

// --engine X where the plan runs another engine than the default the
// workload resolved to (a card the default does not run on).
void Search::pin_engine(Change& c) const {
    if (!w_.engine_given && missed_.engine && missed_.engine != w_.engine)
        c.with(Field::Engine, std::string(missed_.engine->id));
}

}  // namespace suggest_detail

std::vector<Suggestion> suggest_changes(const SuggestInputs& in, const Workload& workload,
                                        std::span<const Gpu* const> cards,
                                        const Recommendation& missed) {
    return suggest_detail::Search(in, workload, cards, missed).run();
}

}  // namespace gpuadvise
