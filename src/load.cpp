// What a serving plan gives each session at its batch, against the targets.
#include "gpuadvise/load.hpp"

#include <cmath>

namespace gpuadvise {

std::optional<LoadCheck> check_load(const Workload& w, const Performance& p,
                                    std::optional<double> default_speed) {
    if (w.trains() || !w.is_language()) return std::nullopt;
    LoadCheck c;
    if (p.decode_tokens_per_s && *p.decode_tokens_per_s > 0 && w.batch > 0)
        c.per_user_tokens_per_s = *p.decode_tokens_per_s / static_cast<double>(w.batch);
    c.ttft_s = p.time_to_first_token_s;
    // An unknown figure is not a miss: the plan's speed is unknown for every
    // target alike, as the deadline rule treats an unknown job time.
    const std::optional<double> speed =
        w.load.min_user_tokens_per_s ? w.load.min_user_tokens_per_s : default_speed;
    if (speed && c.per_user_tokens_per_s) c.meets_speed = *c.per_user_tokens_per_s >= *speed;
    if (w.load.ttft_s && c.ttft_s) c.meets_ttft = *c.ttft_s <= *w.load.ttft_s;
    return c;
}

LoadResult load_result(const Workload& w, const Performance& p, bool fits) {
    LoadResult r;
    r.users = w.batch;
    r.context_tokens = w.seq;
    const auto c = check_load(w, p);
    if (!c) return r;
    r.per_user_tokens_per_s = c->per_user_tokens_per_s;
    if (c->per_user_tokens_per_s) r.tpot_s = 1.0 / *c->per_user_tokens_per_s;
    r.ttft_s = c->ttft_s;
    r.meets = fits && c->meets();
    return r;
}

}  // namespace gpuadvise
