// The resolver's vision-language phase: --images N and --image-size WxH.
// Each image becomes what its model's preprocessing makes of it
// (model_image_tokens.cpp): tokens that join the prompt (or the training
// sequence), patches its vision encoder runs on, and for Llama 3.2 Vision
// the keys and values its cross-attention layers keep.
#include <fmt/format.h>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "resolver.hpp"

namespace gpuadvise::workload_detail {
namespace {

constexpr std::int64_t kMaxImages = 10'000;

// The presets whose images are sized, for the fix of a refusal.
constexpr std::string_view kVisionPresets =
    "qwen2.5-vl-7b, llama-3.2-90b-vision, gemma-3-4b/12b/27b or mistral-small-3.1-24b";

}  // namespace

void Resolver::prompt_images() {
    const Arg n = arg(Field::Images);
    const Arg size = arg(Field::ImageSize);
    if (!n) {
        if (size)
            throw InputError(
                fmt::format("{} {} sizes the images of --images N; add --images (how many per {})",
                            size.from(), quote(size.text()), w_.trains() ? "sequence" : "request"));
        return;
    }
    const std::int64_t count = positive(Field::Images, kMaxImages);
    const Architecture& a = w_.model.arch;
    const std::string given = fmt::format("{} {}", n.from(), count);
    if (!a.vision_unknown.empty())
        throw InputError(fmt::format(
            "{}: the config's vision_config ({}) is not a vision encoder gpuadvise counts, so "
            "its images cannot be sized; drop --images",
            given, sanitize(a.vision_unknown, 40)));
    if (a.vision_model.empty())
        throw InputError(fmt::format(
            "{}: {} has no vision encoder; images apply to vision-language models ({}); drop "
            "--images or choose one of them",
            given, sanitize(w_.model.name, 80), kVisionPresets));
    const VisionTower& tower = a.vision;
    const VisionInputRule* rule =
        tower.modelled() ? find_vision_rule(embedded::vision_inputs(), tower.family) : nullptr;
    if (!rule || rule->input != tower.input)
        throw InputError(fmt::format(
            "{}: the image tokens of {} are not modelled yet (gpuadvise sizes the images of {}); "
            "drop --images",
            given, sanitize(a.vision_model, 40), kVisionPresets));
    PromptImages& im = w_.images;
    im.count = count;
    if (size) {
        const PixelSize px = parse_pixel_size(trim(size.text()), size.from());
        im.width = px.width;
        im.height = px.height;
    } else if (tower.image_size > 0) {
        im.width = im.height = tower.image_size;
        im.size_assumed = true;
        assume(fmt::format("image-size={0}x{0} ({1}'s {2}: vision_config image_size)",
                           tower.image_size, rule->name,
                           tower.input == ImageInput::PatchRows ? "longest side" : "native input"));
    } else {
        throw InputError(fmt::format(
            "{}: {} reads images at their own resolution (its vision_config has no native "
            "size); add --image-size WxH, e.g. --image-size 1280x720",
            given, sanitize(w_.model.name, 80)));
    }
    im.each = image_tokens_of(tower, *rule, im.width, im.height,
                              size ? size.from() : std::string("--image-size"));
}

void Resolver::add_image_tokens() {
    if (!w_.images.any()) return;
    const std::int64_t tokens = w_.images.tokens();
    if (!w_.trains()) w_.prompt += tokens;
    w_.seq += tokens;
    if (w_.seq > kMaxTokens)
        throw InputError(fmt::format(
            "--images {} x {} tokens make a context of {} tokens, over {}; give fewer --images "
            "or a smaller --image-size",
            w_.images.count, w_.images.each.tokens, w_.seq, kMaxTokens));
}

}  // namespace gpuadvise::workload_detail
