// Where one plan stands beside the others: the chance its memory fits, what
// it costs to rent and when buying beats renting, and whether the ranking
// key's every figure is known (docs/ranking.md). Called by complete_plan.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "gpuadvise/energy.hpp"
#include "gpuadvise/rank.hpp"
#include "plan_common.hpp"

namespace gpuadvise::plan_detail {

// The chance the plan's memory fits. The error band is the 10th and 90th
// percentile of measured / estimate on the validation rows; read as a
// log-normal spread (the 90th percentile at 1.2816 standard deviations), the
// need is estimate x r and the plan fits while r <= usable / estimate.
double fit_chance(const Recommendation& rec, std::uint64_t usable) {
    if (!rec.fits) return 0;
    const auto& band = rec.memory.band;
    const double need = static_cast<double>(rec.memory.per_gpu_bytes);
    if (!band || !(need > 0) || !(band->first > 0) || !(band->second >= band->first)) return 1;
    const double low = std::log(band->first), high = std::log(band->second);
    const double margin = std::log(static_cast<double>(usable) / need);
    constexpr double kP90Sigmas = 1.2815515655446004;
    const double sigma = (high - low) / (2.0 * kP90Sigmas);
    if (!(sigma > 0)) return margin >= high ? 1.0 : 0.5;
    const double z = (margin - (low + high) / 2.0) / sigma;
    return std::clamp(0.5 * std::erfc(-z / std::sqrt(2.0)), 0.0, 1.0);
}

// What a rented plan costs an hour: the provider's median, or the one price
// --cloud-price-per-gpu-hour gave every card; 0 when neither is known.
double rented_hourly(const Recommendation& rec, const RankOptions& options) {
    return options.job.cloud_price_per_gpu_hour
               ? *options.job.cloud_price_per_gpu_hour * static_cast<double>(rec.count)
               : 0.0;
}

// Rent or buy: the system's price over what renting costs beyond the power
// an owner pays, in months of round-the-clock use (730 h). The power is the
// cards at their TDP and the host at its draw, at the job's utilisation, PUE
// and energy price, as a job's own cost counts it.
std::optional<double> buy_beats_rent_months(const Recommendation& rec, const RankOptions& options) {
    if (!(rec.total_usd > 0) || !(rec.rent_usd_per_hour > 0) || options.rent) return std::nullopt;
    const double host =
        rec.platform && rec.platform->host_watts ? *rec.platform->host_watts : kSystemBaseWatts;
    const double watts = rec.gpu->tdp_watts.value_or(0.0) * static_cast<double>(rec.count) +
                         host * static_cast<double>(rec.nodes);
    const double power_per_hour = watts * options.job.utilisation / 1000.0 *
                                  options.job.pue.value_or(energy_data().pue) *
                                  options.job.kwh_price_usd;
    const double saved_per_hour = rec.rent_usd_per_hour - power_per_hour;
    if (!(saved_per_hour > 0)) return std::nullopt;
    constexpr double kHoursPerMonth = 730.0;
    return rec.total_usd / saved_per_hour / kHoursPerMonth;
}

// Whether the plan's host must be bought and has no sourced price.
bool host_unpriced(const Recommendation& rec, const RankOptions& options) {
    return rec.platform && !options.have_host && !rec.platform->usd;
}

// Where a plan stands (docs/ranking.md): a fitting plan is ranked by its
// score only when the key's every figure is known and it is on time; else it
// goes after those, with its score 0 so the score never rises down the list.
void set_standing(Recommendation& rec, const Workload& w, const RankOptions& options, double speed,
                  double watts, std::string_view late) {
    rec.standing_why.clear();
    if (!rec.fits) {
        rec.standing = Standing::Miss;
        return;
    }
    const bool by_money = options.rank_by == RankBy::Value || options.rank_by == RankBy::Cost;
    if (!(speed > 0) && options.rank_by != RankBy::Memory) {
        rec.standing = Standing::Unknown;
        rec.standing_why = w.is_image() ? "no speed estimate for this pipeline on this card"
                                        : "no speed estimate for this card";
    } else if (by_money && options.rent && !(rented_hourly(rec, options) > 0)) {
        rec.standing = Standing::Unknown;
        rec.standing_why = fmt::format(
            "no cloud price for {} in data/cloud_prices.json (--cloud-price-per-gpu-hour to give "
            "one)",
            rec.gpu->id);
    } else if (by_money && !options.rent && !(rec.total_usd > 0)) {
        rec.standing = Standing::Unknown;
        rec.standing_why =
            !rec.gpu->price ? fmt::format("no sourced price for {}", rec.gpu->id)
            : host_unpriced(rec, options)
                ? fmt::format("no sourced price for its host ({}); give --have-host if you own one",
                              rec.platform->id)
                : std::string("its price is unknown");
    } else if (options.rank_by == RankBy::Power && !(watts > 0)) {
        rec.standing = Standing::Unknown;
        rec.standing_why = fmt::format("no sourced power figure for {}", rec.gpu->id);
    } else if (!late.empty()) {
        rec.standing = Standing::Late;
        rec.standing_why =
            late == "slow-output"
                ? fmt::format("a clip takes {:.1f} hours",
                              rec.performance.seconds_per_clip.value_or(0.0) / 3600.0)
                : fmt::format("the job takes {:.0f} days", rec.performance.days.value_or(0.0));
    } else {
        rec.standing = Standing::Ranked;
        return;
    }
    rec.score = 0;
}

}  // namespace gpuadvise::plan_detail
