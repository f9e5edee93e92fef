// A serving plan's load and curve as JSON, with the rounding of every rate.
#include "gpuadvise/report_load.hpp"

#include <cmath>

#include "gpuadvise/report_json.hpp"

namespace gpuadvise {

// Serving sized by its load: what each session gets, and the curve over the batch.
void write_load(json::Writer& j, const Recommendation& r) {
    j.key("load");
    if (r.load) {
        const LoadResult& l = *r.load;
        j.begin_object();
        j.field("users", l.users);
        j.field("context_tokens", l.context_tokens);
        j.field("ttft_s", rounded_rate(l.ttft_s));
        j.field("tpot_s",
                l.tpot_s ? std::optional<double>(std::round(*l.tpot_s * 1e6) / 1e6) : std::nullopt);
        j.field("per_user_tokens_per_s", rounded_rate(l.per_user_tokens_per_s));
        j.field("meets", l.meets);
        j.end_object();
    } else {
        j.null();
    }
    j.key("curve");
    if (!r.curve) {
        j.null();
        return;
    }
    j.begin_array();
    for (const CurvePoint& p : *r.curve) {
        j.begin_object();
        j.field("batch", p.batch);
        j.field("per_gpu_bytes", p.per_gpu_bytes);
        j.field("fits", p.fits);
        j.field("decode_tokens_per_s", rounded_rate(p.decode_tokens_per_s));
        j.field("per_user_tokens_per_s", rounded_rate(p.per_user_tokens_per_s));
        j.field("ttft_s", rounded_rate(p.ttft_s));
        j.end_object();
    }
    j.end_array();
}

}  // namespace gpuadvise
