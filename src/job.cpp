// A job's time, GPU-hours, energy and cost from a plan's rate: the job's size
// (tokens, steps, epochs, Chinchilla), the IT load with the facility's PUE,
// and the purchase amortised or the cloud's hourly price.
#include <cmath>

#include "gpuadvise/bands.hpp"
#include "gpuadvise/energy.hpp"
#include "performance_common.hpp"

namespace gpuadvise::performance_detail {

namespace {

// A training run's share of its wall-clock spent on training steps: the rest
// goes to restarts after failures (and the work since the last checkpoint),
// evaluation, checkpoint writes and input stalls. Meta's Llama 3 405B run
// kept "higher than 90% effective training time" through 466 interruptions
// in 54 days on up to 16,384 H100s (Llama 3 Herd of Models, arXiv
// 2407.21783, section 3.3.4); BLOOM's 176B run (BigScience, arXiv 2211.05100)
// trained 366B tokens at 150 TFLOP/s per GPU, 104 tokens/s per A100 on 384
// (bench/data/large_runs.csv BLOOM-176B), 2,546 hours of wall-clock at that
// rate against the 1,082,990 GPU-hours (2,820 hours) its model card
// publishes: 0.90. Both sources agree on 0.90 at 384 and 16,384 GPUs, so the
// share is taken as 0.90 at every size (assumed for runs of one node, whose
// evaluation and checkpoints remain).
constexpr double kTrainingGoodput = 0.90;

}  // namespace

// Time, energy and cost of a job from the plan's rate. The IT load is the
// plan's cards at `tdp_watts` and its hosts at `host_watts` (their maximum
// draw), both at the job's utilisation, plus the fabric's `fabric_watts`; the
// facility multiplies it by its PUE. Clears rates that are not finite.
void finish_job(Performance& perf, const Workload& w, const JobOptions& job,
                std::optional<double> price_usd, double tdp_watts, double tokens_per_hour,
                double host_watts, double fabric_watts) {
    const auto band = [](BandQuantity q) -> std::optional<std::pair<double, double>> {
        if (const ErrorBand* b = error_bands().find(q, "all")) return std::pair{b->low, b->high};
        return std::nullopt;
    };
    if (perf.decode_tokens_per_s) perf.decode_band = band(BandQuantity::Decode);
    if (perf.prefill_tokens_per_s) perf.prefill_band = band(BandQuantity::Prefill);
    if (perf.train_tokens_per_s) perf.train_band = band(BandQuantity::Train);
    const double n = static_cast<double>(w.gpus);
    const double b = static_cast<double>(w.batch);
    const auto rate = perf.tokens_per_s();
    if (!rate || !(*rate > 0) || !std::isfinite(*rate)) {
        perf.decode_tokens_per_s.reset();
        perf.train_tokens_per_s.reset();
        return;
    }
    std::optional<double> job_tokens = job.tokens;
    if (!job_tokens && job.steps && w.trains())
        job_tokens =
            *job.steps * b * static_cast<double>(w.seq) * n * static_cast<double>(w.grad_accum);
    if (!job_tokens && job.epochs && job.dataset_tokens)
        job_tokens = *job.epochs * *job.dataset_tokens;
    if (!job_tokens && job.dataset_tokens) job_tokens = *job.dataset_tokens;
    if (!job_tokens && job.chinchilla && w.trains())
        job_tokens = kChinchillaTokensPerParam * static_cast<double>(w.model.params);
    const double pue = job.pue.value_or(energy_data().pue);
    const double it_watts = (tdp_watts + host_watts) * job.utilisation + fabric_watts;
    const double watts = it_watts * pue;
    if (watts > 0) perf.pue = pue;
    double hourly = 0;
    if (job.cloud_price_per_gpu_hour) {
        hourly = *job.cloud_price_per_gpu_hour * n;
        perf.cost_basis = CostBasis::Cloud;
    } else if (price_usd && *price_usd > 0) {
        hourly =
            *price_usd / (job.amortize_years * 365.0 * 24.0) + watts / 1000.0 * job.kwh_price_usd;
        perf.cost_basis = CostBasis::Purchase;
    }
    if (!w.trains() && hourly > 0 && tokens_per_hour > 0)
        perf.usd_per_million_tokens = hourly / tokens_per_hour * 1e6;
    if (job_tokens) {
        perf.job_tokens = job_tokens;
        perf.job_hours = *job_tokens / *rate / 3600.0;
        if (w.trains()) {
            perf.goodput = kTrainingGoodput;
            *perf.job_hours /= kTrainingGoodput;
        }
        perf.days = *perf.job_hours / 24.0;
        perf.gpu_hours = *perf.job_hours * n;
        if (watts > 0) perf.energy_kwh = watts / 1000.0 * *perf.job_hours;
        if (hourly > 0) perf.job_cost_usd = hourly * *perf.job_hours;
    }
    // Every figure is finite or absent: an overflow is not a number to print.
    for (auto* v : {&perf.prefill_tokens_per_s, &perf.time_to_first_token_s,
                    &perf.image_encode_seconds, &perf.step_seconds, &perf.job_hours,
                    &perf.job_cost_usd, &perf.energy_kwh, &perf.usd_per_million_tokens, &perf.mfu,
                    &perf.gpu_hours, &perf.job_tokens, &perf.days, &perf.goodput})
        if (*v && !std::isfinite(**v)) v->reset();
}

}  // namespace gpuadvise::performance_detail
