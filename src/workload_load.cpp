// Serving sized by its load: --users (or --rps) is the batch of concurrent
// sessions, --context the tokens each holds, and --ttft, --tpot or
// --tok-s-per-user the latency every plan is held to (the `latency` rule).
// The load is a workload's batch, not a new dimension: memory, speed, the
// limits and the count search already follow the batch.
#include <fmt/format.h>

#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "resolver.hpp"

namespace gpuadvise::workload_detail {

Field Resolver::seq_field() const {
    if (r_.has(Field::Context) && r_.has(Field::Seq))
        throw InputError(fmt::format("{} and {} both say the context; give one of them",
                                     r_.get(Field::Context)->origin, r_.get(Field::Seq)->origin));
    return r_.has(Field::Context) ? Field::Context : Field::Seq;
}

void Resolver::serving_load() {
    ServingLoad& load = w_.load;
    const Arg users = arg(Field::Users), rps = arg(Field::Rps), batch = arg(Field::Batch);
    const Arg ttft = arg(Field::Ttft), tpot = arg(Field::Tpot), rate = arg(Field::TokSPerUser);
    if (users && rps)
        throw InputError(fmt::format(
            "{} and {} both size the load; give one of them (sessions, or requests a second)",
            users.from(), rps.from()));
    if (const Arg& load_flag = users ? users : rps; load_flag && batch)
        throw InputError(
            fmt::format("{} sets the batch (concurrent sessions); drop {} or give {} alone",
                        load_flag.from(), batch.from(), batch.from()));
    if (tpot && rate)
        throw InputError(fmt::format("{} and {} are the same target (1 / TPOT); give one of them",
                                     tpot.from(), rate.from()));
    if (ttft) {
        load.ttft_s = parse_latency_seconds(ttft.text(), ttft.from(), "2s or 500ms");
        load.ttft_target = fmt::format("{} {}", ttft.from(), sanitize(ttft.text()));
    }
    if (tpot) {
        load.min_user_tokens_per_s = 1.0 / parse_latency_seconds(tpot.text(), tpot.from(), "50ms");
        load.speed_target = fmt::format("{} {}", tpot.from(), sanitize(tpot.text()));
    }
    if (rate) {
        // Slower than a token a minute, or faster than any engine streams, is a typo.
        load.min_user_tokens_per_s = parse_real_in(rate.text(), rate.from(), 0.01, 1e5, "20");
        load.speed_target = fmt::format("{} {}", rate.from(), sanitize(rate.text()));
    }
    if (users) {
        w_.batch = positive(Field::Users, kMaxBatch);
        load.given = true;
    }
    if (rps) {
        const double r = parse_real_in(rps.text(), rps.from(), 1e-6, 1e6, "10");
        if (!load.min_user_tokens_per_s)
            throw InputError(fmt::format(
                "{} needs the time a request takes: add --tpot (and --ttft), e.g. --tpot 50ms",
                rps.from()));
        // Little's law: sessions in flight = arrivals a second x seconds each
        // one takes; a request that meets the targets takes at most its first
        // token plus --gen tokens at the per-session rate.
        const double seconds =
            load.ttft_s.value_or(0.0) + static_cast<double>(w_.gen) / *load.min_user_tokens_per_s;
        const double sessions = std::ceil(r * seconds - 1e-9);
        if (sessions > static_cast<double>(kMaxBatch))
            throw InputError(fmt::format("{} {} is {:.0f} concurrent sessions, over {}; lower it",
                                         rps.from(), sanitize(rps.text()), sessions, kMaxBatch));
        w_.batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(sessions));
        load.rps = r;
        load.given = true;
        assume(
            fmt::format("users={} concurrent sessions ({} req/s x {:.3g} s a request: "
                        "Little's law)",
                        w_.batch, r, seconds));
    }
}

}  // namespace gpuadvise::workload_detail
