#pragma once
// What one plan (plan.cpp), the layout search (layout_search.cpp), mixed
// boxes (box.cpp), where a plan stands (plan_standing.cpp), an image plan's
// reason (image_reason.cpp), the limits (limits.cpp) and the ranking
// (rank.cpp) share. Private to the rank module.
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/rank.hpp"

namespace gpuadvise::plan_detail {

// The engine a plan on `gpu` runs (the workload's, or one that runs there).
const Engine* plan_engine(const Workload& w, const Gpu& gpu);

// The platform a plan goes into: --platform when it holds the cards, else the
// smallest that does; nullptr when none holds them.
const HostPlatform* platform_for(const Gpu& gpu, std::int64_t count, const RankOptions& options);

// The rest of a plan once its cards, strategy and memory are set: the
// platform, the speed (`performance` when the caller timed it), the rules,
// the score and the reasons.
void complete_plan(Recommendation& rec, const Workload& w, const RankOptions& options,
                   bool describe, std::optional<Performance> performance);

// Where a plan stands (plan_standing.cpp).
// The chance the plan's memory fits in `usable` bytes, from its error band.
double fit_chance(const Recommendation& rec, std::uint64_t usable);
// What the rented plan costs an hour; 0 when no price is known.
double rented_hourly(const Recommendation& rec, const RankOptions& options);
// Months of round-the-clock use after which buying beats renting.
std::optional<double> buy_beats_rent_months(const Recommendation& rec, const RankOptions& options);
// Whether the plan's host must be bought and has no sourced price.
bool host_unpriced(const Recommendation& rec, const RankOptions& options);
// Ranked, unknown (and why), late or a miss; an unranked plan's score is 0.
// `late`: the rule that fired to rank it after the plans on time ("long-job",
// "slow-output"), empty when none did.
void set_standing(Recommendation& rec, const Workload& w, const RankOptions& options, double speed,
                  double watts, std::string_view late);

// The reason line's speed of an image plan (image_reason.cpp): images per
// second and the seconds per image; frames per second and the streams they
// hold (video through a vision model); the seconds per clip and the frames
// per second it makes (video generation). `speed` is the plan's rate().
std::string image_speed_clause(const Workload& w, const Performance& p, double speed);

// The layouts a plan keeps to say why its own won (the JSON's `layouts`).
constexpr std::size_t kLayoutsKept = 3;

// The layouts a multi-node training plan compares (layout_search.cpp): the
// user's sizes on `count` GPUs, a layout set on a plan's workload, and every
// candidate that fits `usable` bytes, best first.
std::optional<Layout> fit_layout(const Workload& w, std::int64_t count);
void apply_layout(Workload& w, const Layout& l, Parallel sharding);
std::vector<LayoutChoice> search_layouts(const Workload& w, const Gpu& gpu, std::int64_t count,
                                         const RankOptions& options, std::uint64_t usable,
                                         SharedEstimates& shared);

}  // namespace gpuadvise::plan_detail
