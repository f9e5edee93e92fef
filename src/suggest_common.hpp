#pragma once
// What the suggestion search's sources share (suggest.cpp the search and its
// probes, suggest_workload.cpp the changes to what runs, suggest_placement.cpp
// the changes to where it runs): a candidate change, a probed one, and the
// Search that holds the user's request, the missed plan and the results.
// Private to the suggest module.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuadvise/fields.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/suggest.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::suggest_detail {

// With offload or more cards a format is combined from the first rung under
// this many bits: keeping more bits only to offload more of them is slower
// than a 4-bit file that fits better (fit's kOffloadFrom, the same reason).
inline constexpr double kComboBits = 5.0;

// A candidate: the fields it sets and clears, and the words a user adds.
struct Change {
    SuggestionKind kind = SuggestionKind::Batch;
    std::vector<std::pair<Field, std::string>> set;
    std::vector<Field> clear;
    std::vector<std::string> flags;
    std::vector<std::string> replaces;
    std::int64_t count = 0;  // cards of the plan's kind; 0: the plan's own cards

    Change& with(Field f, std::string value) {
        const FieldSpec& s = spec(f);
        flags.emplace_back(s.flag);
        if (s.kind == FieldKind::Value) flags.push_back(value);
        set.emplace_back(f, std::move(value));
        return *this;
    }
};

struct Probed {
    Workload workload;
    Recommendation plan;
};

// One search: the makers each add at most one suggestion of their kind.
class Search {
  public:
    Search(const SuggestInputs& in, const Workload& w, std::span<const Gpu* const> cards,
           const Recommendation& missed);
    std::vector<Suggestion> run();

  private:
    const SuggestInputs& in_;
    const Workload& w_;
    std::vector<const Gpu*> cards_;
    const Recommendation& missed_;
    std::string_view metric_;
    bool one_name_ = false;  // --gpu names one card (copied --gpus times)
    bool uniform_ = false;
    std::vector<Suggestion> out_;
    // The first format under kComboBits the plan's engine loads, and the
    // bits of the format that fitted alone: a combination is tried only
    // where it keeps more bits than that.
    std::optional<std::string> combo_quant_;
    std::optional<double> lone_quant_bits_;

    bool combos() const {
        return combo_quant_ && (!lone_quant_bits_ || *lone_quant_bits_ < kComboBits);
    }
    bool full() const { return out_.size() >= kMaxSuggestions; }
    bool language() const { return w_.is_language(); }
    bool same_engine(const Probed& p) const { return p.plan.engine == missed_.engine; }

    // The search (suggest.cpp).
    std::vector<std::string> given(Field f) const;
    void replaces(Change& c, Field f) const;
    std::optional<Probed> probe(const Change& c) const;
    std::optional<Probed> fitting(const Change& c) const;
    std::optional<double> rate(const Performance& p) const;
    void add(Change c, const Probed& p, std::string note);
    void pin_engine(Change& c) const;

    // What runs (suggest_workload.cpp).
    template <typename Value, typename Note>
    void first_step(SuggestionKind kind, Field f, const std::vector<Value>& values, bool pin,
                    Note&& note);
    void batch();
    bool by_prompt() const;
    Change context_change(std::int64_t value) const;
    void context();
    static double bits_of(const Workload& w);
    void quant();
    void kv_cache();
    void checkpointing();
    void loss();
    void optimizer();
    void method();

    // Where it runs (suggest_placement.cpp).
    std::string offload_note(const Recommendation& r) const;
    void offload();
    void offload_elsewhere();
    void image_offload();
    std::string count_note(const Recommendation& r) const;
    void gpus();
};

// Whether every card of the plan holds its share.
bool fits(const Recommendation& r);

}  // namespace gpuadvise::suggest_detail
