// The speed clause of an image plan's reason line: images, frames of video
// streams, or generated clips (plan.cpp writes the rest of the line).
#include <fmt/format.h>

#include <cmath>

#include "plan_common.hpp"

namespace gpuadvise::plan_detail {

std::string image_speed_clause(const Workload& w, const Performance& p, double speed) {
    // Video generation: what a user waits for a clip, and the frames a second
    // that makes (a fraction of a frame for most clips and cards).
    if (w.generates_video()) {
        const double clip = p.seconds_per_clip.value_or(0.0);
        return fmt::format("; ~{} s per {}-frame clip ({:.3g} frames/s)",
                           clip >= 100 ? fmt::format("{:.0f}", clip) : fmt::format("{:.3g}", clip),
                           w.image.frames, speed);
    }
    // Video: frames per second and the streams they hold at the stream's
    // frame rate.
    if (w.image.streams > 0)
        return fmt::format("; ~{:.0f} frames/s, {:.0f} whole streams at {:g} fps", speed,
                           std::floor(p.streams_max.value_or(0.0)), w.image.fps);
    // Images come at a few per second or fewer: three significant digits,
    // and the seconds per image a user waits.
    return speed >= 100 ? fmt::format("; ~{:.0f} img/s ({:.2g} s per image)", speed,
                                      p.seconds_per_image.value_or(1.0 / speed))
                        : fmt::format("; ~{:.3g} img/s ({:.3g} s per image)", speed,
                                      p.seconds_per_image.value_or(1.0 / speed));
}

}  // namespace gpuadvise::plan_detail
