// A box of different cards (--gpu a,b,c or the detected cards): layers split
// in proportion to each card's free memory, or equal shards, bounded by the
// tightest card; and the label of any plan.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpuadvise/error.hpp"
#include "gpuadvise/units.hpp"
#include "plan_common.hpp"

namespace gpuadvise {

using namespace plan_detail;

namespace {

// The cards' prices together; 0 when one is unknown.
double box_price(std::span<const Gpu* const> cards) {
    double sum = 0;
    for (const Gpu* g : cards) {
        if (!g->price) return 0.0;
        sum += g->price->usd;
    }
    return sum;
}
}  // namespace

std::string plan_label(const Recommendation& rec) {
    if (rec.placement.empty())
        return rec.count > 1 ? fmt::format("{} x {}", rec.count, rec.gpu->id)
                             : std::string(rec.gpu->id);
    std::string out;
    for (const Placement& p : rec.placement) {
        if (!out.empty()) out += " + ";
        out += p.gpu->id;
    }
    return out;
}
Recommendation evaluate_box(const Workload& base, std::span<const Gpu* const> cards,
                            const RankOptions& options, Detail detail) {
    const auto n = static_cast<std::int64_t>(cards.size());
    const bool uniform =
        std::all_of(cards.begin(), cards.end(), [&](const Gpu* g) { return g == cards.front(); });
    if (uniform) return evaluate_plan(base, *cards.front(), n, options, nullptr, detail);
    const bool describe = detail == Detail::Texts;

    std::vector<std::uint64_t> usable;
    for (const Gpu* g : cards) usable.push_back(usable_memory(*g, options.os, base.engine));
    const auto tightest = [&](const std::vector<std::uint64_t>& need) {
        std::size_t at = 0;
        for (std::size_t i = 1; i < cards.size(); ++i)
            if (static_cast<double>(usable[i]) - static_cast<double>(need[i]) <
                static_cast<double>(usable[at]) - static_cast<double>(need[at]))
                at = i;
        return at;
    };
    std::vector<std::string> notes;
    const bool one_vendor = std::all_of(cards.begin(), cards.end(), [&](const Gpu* g) {
        return g->vendor == cards.front()->vendor;
    });
    if (!one_vendor)
        notes.push_back(
            "cards of different vendors in one box: each runs its own software stack (CUDA, ROCm, "
            "oneAPI); answered as if one engine drove them all, which only llama.cpp's Vulkan or "
            "RPC backends do");

    Workload w = base;
    w.gpus = n;
    w.engine = plan_engine(base, *cards.front());
    apply_card_defaults(w, cards);
    const bool layer_split = !w.trains() && !w.is_fixed() && w.engine != nullptr &&
                             w.engine->multi_gpu == MultiGpu::Layers &&
                             n <= w.model.arch.total_layers();
    Recommendation rec;
    if (layer_split) {
        // The whole model on one card, then its layers (weights, KV cache,
        // adapters) spread by free memory; each card keeps its own runtime
        // and compute buffers.
        Workload one = w;
        one.gpus = 1;
        one.parallel = Parallel::None;
        const MemoryEstimate whole = estimate(one);
        const double per_layer_kinds =
            static_cast<double>(whole.get(&Components::weights) + whole.get(&Components::kv_cache) +
                                whole.get(&Components::adapters));
        const double fixed = static_cast<double>(whole.per_gpu_bytes) - per_layer_kinds;
        const std::int64_t layers = w.model.arch.total_layers();
        std::vector<double> free(cards.size());
        double free_sum = 0;
        for (std::size_t i = 0; i < cards.size(); ++i) {
            free[i] = std::max(static_cast<double>(usable[i]) - fixed, 1.0);
            free_sum += free[i];
        }
        // Largest remainder: every layer on exactly one card.
        std::vector<std::int64_t> count(cards.size());
        std::vector<std::pair<double, std::size_t>> rest;
        std::int64_t placed = 0;
        for (std::size_t i = 0; i < cards.size(); ++i) {
            const double exact = static_cast<double>(layers) * free[i] / free_sum;
            count[i] = static_cast<std::int64_t>(std::floor(exact));
            placed += count[i];
            rest.emplace_back(exact - std::floor(exact), i);
        }
        std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        for (std::size_t k = 0; placed < layers && k < rest.size(); ++k, ++placed)
            ++count[rest[k].second];
        std::vector<std::uint64_t> need(cards.size());
        std::vector<SplitStage> stages;
        for (std::size_t i = 0; i < cards.size(); ++i) {
            const double share = static_cast<double>(count[i]) / static_cast<double>(layers);
            need[i] = static_cast<std::uint64_t>(std::llround(fixed + per_layer_kinds * share));
            rec.placement.push_back({cards[i], count[i], share, need[i], usable[i]});
            stages.push_back({cards[i], share});
        }
        const std::size_t at = tightest(need);
        rec.gpu = cards[at];
        rec.count = n;
        rec.strategy = Parallel::Pp;
        rec.engine = w.engine;
        // The bounding card's share of each component.
        rec.memory = whole;
        const double share = rec.placement[at].share;
        std::uint64_t sum = 0;
        for (std::size_t k = 0; k < kComponentNames.size(); ++k) {
            const auto member = kComponentNames[k].member;
            const bool split = member == &Components::weights || member == &Components::kv_cache ||
                               member == &Components::adapters;
            if (split)
                rec.memory.bytes[k] = static_cast<std::uint64_t>(
                    std::llround(static_cast<double>(rec.memory.bytes[k]) * share));
            sum += rec.memory.bytes[k];
        }
        rec.memory.per_gpu_bytes = sum;
        rec.memory.total_bytes = std::accumulate(need.begin(), need.end(), std::uint64_t{0});
        w.parallel = Parallel::Pp;
        rec.price_usd = box_price(cards);
        const HostPlatform* host = platform_for(*rec.gpu, n, options);
        const double system =
            rec.price_usd > 0
                ? rec.price_usd + (host && !options.have_host ? host->usd.value_or(0.0) : 0.0)
                : 0.0;
        notes.insert(notes.begin(),
                     fmt::format("mixed box: {} layers split by free memory, as llama.cpp's "
                                 "--tensor-split does; a token passes every card in turn",
                                 layers));
        complete_plan(
            rec, w, options, describe,
            estimate_split_performance(w, whole, stages, options.job,
                                       system > 0 ? std::optional<double>(system) : std::nullopt));
    } else {
        // Equal shards: the smallest card bounds memory, the slowest the speed.
        std::size_t small = 0, slow = 0;
        for (std::size_t i = 1; i < cards.size(); ++i) {
            if (usable[i] < usable[small]) small = i;
            if (cards[i]->memory_bandwidth_gbps < cards[slow]->memory_bandwidth_gbps) slow = i;
        }
        rec = evaluate_plan(base, *cards[small], n, options, nullptr,
                            detail == Detail::Verdict ? Detail::Numbers : detail);
        if (slow != small)
            rec.performance =
                evaluate_plan(base, *cards[slow], n, options, nullptr, Detail::Numbers).performance;
        for (std::size_t i = 0; i < cards.size(); ++i)
            rec.placement.push_back(
                {cards[i], 0, 1.0 / static_cast<double>(n), rec.memory.per_gpu_bytes, usable[i]});
        notes.insert(notes.begin(),
                     fmt::format("mixed box: {} gives every card an equal shard, so the smallest "
                                 "card ({}) bounds memory and the slowest ({}) the speed",
                                 w.trains() ? std::string(to_string(rec.strategy))
                                            : std::string(w.engine ? w.engine->id : "the engine"),
                                 cards[small]->id, cards[slow]->id));
    }
    rec.price_usd = box_price(cards);
    rec.total_usd = rec.price_usd > 0 ? rec.price_usd + rec.platform_usd : 0.0;
    for (auto& note : notes) rec.warnings.insert(rec.warnings.begin(), std::move(note));
    return rec;
}

}  // namespace gpuadvise
