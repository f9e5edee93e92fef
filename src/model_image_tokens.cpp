// Images in a vision-language request: what each family's preprocessing
// makes of one image (its tokens in the language model's sequence, the
// patches its encoder runs on) and what encoding it costs. The mechanism
// follows each family's processor; the figures config.json does not hold
// (pixel budgets, delimiter and break tokens) are data/models.json
// "vision_inputs", each with its source (docs/models.md, "Images in a request").
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

struct MechanismFigures {
    ImageInput input;
    std::string_view name;
    std::array<std::string_view, 4> figures;  // every figure the mechanism reads ("" ends)
};
constexpr std::array<MechanismFigures, 4> kMechanisms{{
    {ImageInput::DynamicResolution,
     "dynamic-resolution",
     {"min_pixels", "max_pixels", "max_aspect_ratio", "wrapper_tokens"}},
    {ImageInput::Tiles, "tiles", {"class_tokens_per_tile", "text_tokens_per_image", "", ""}},
    {ImageInput::Pooled, "pooled", {"wrapper_tokens", "", "", ""}},
    {ImageInput::PatchRows, "patch-rows", {"break_tokens_per_row", "", "", ""}},
}};

const MechanismFigures* mechanism(ImageInput input) {
    for (const MechanismFigures& m : kMechanisms)
        if (m.input == input) return &m;
    return nullptr;
}

// Python's round(): halves to the even neighbour (transformers' round_by_factor).
std::int64_t round_half_even(std::int64_t n, std::int64_t d) {
    const std::int64_t q = n / d, r = n % d;
    if (2 * r > d) return q + 1;
    if (2 * r == d) return q + (q % 2);
    return q;
}

// Qwen2.5-VL (transformers' Qwen2VLImageProcessor.smart_resize with factor
// patch x merge): each side rounded to the factor, scaled into the pixel
// budget keeping the aspect ratio; one token per merge x merge patches.
ImageTokens dynamic_resolution(const VisionTower& v, const VisionInputRule& rule, std::int64_t w,
                               std::int64_t h, std::string_view origin) {
    const std::int64_t factor = v.patch * v.merge;
    const std::int64_t min_pixels = rule.figure("min_pixels");
    const std::int64_t max_pixels = rule.figure("max_pixels");
    const std::int64_t ratio = rule.figure("max_aspect_ratio");
    if (std::max(w, h) > ratio * std::min(w, h))
        throw InputError(fmt::format(
            "{} {}x{}: {} refuses images whose longer side is over {} times the shorter; give a "
            "less elongated --image-size",
            origin, w, h, rule.name, ratio));
    std::int64_t hb = round_half_even(h, factor) * factor;
    std::int64_t wb = round_half_even(w, factor) * factor;
    const double hd = static_cast<double>(h), wd = static_cast<double>(w);
    const double f = static_cast<double>(factor);
    if (hb * wb > max_pixels) {
        const double beta = std::sqrt(hd * wd / static_cast<double>(max_pixels));
        hb = static_cast<std::int64_t>(std::floor(hd / beta / f)) * factor;
        wb = static_cast<std::int64_t>(std::floor(wd / beta / f)) * factor;
    } else if (hb * wb < min_pixels) {
        const double beta = std::sqrt(static_cast<double>(min_pixels) / (hd * wd));
        hb = static_cast<std::int64_t>(std::ceil(hd * beta / f)) * factor;
        wb = static_cast<std::int64_t>(std::ceil(wd * beta / f)) * factor;
    }
    // Later transformers releases keep at least one factor a side.
    hb = std::max(hb, factor);
    wb = std::max(wb, factor);
    ImageTokens t;
    t.width = wb;
    t.height = hb;
    t.patches = (hb / v.patch) * (wb / v.patch);
    t.outputs = t.patches / (v.merge * v.merge);
    t.tokens = t.outputs + rule.figure("wrapper_tokens");
    t.full_span = t.patches;
    const std::int64_t window = v.window > 0 ? std::max<std::int64_t>(v.window / v.patch, 1) : 0;
    t.window_span = window > 0 ? std::min(t.patches, window * window) : t.patches;
    return t;
}

// Llama 3.2 Vision (transformers' MllamaImageProcessor
// get_optimal_tiled_canvas): of the canvases of a x b tiles (a x b <=
// max_tiles), the smallest upscale that fits the image, else the least
// downscale; ties go to the smallest canvas. The cross-attention layers keep
// the keys and values of the canvas's tiles (vLLM's mllama input processor);
// the encoder runs every one of max_tiles tiles, padding included.
ImageTokens tiles(const VisionTower& v, const VisionInputRule& rule, std::int64_t w,
                  std::int64_t h) {
    const std::int64_t tile = v.image_size;
    const std::int64_t max_tiles = std::max<std::int64_t>(v.max_tiles, 1);
    struct Canvas {
        std::int64_t rows, cols;
        double scale;
    };
    std::vector<Canvas> canvases;
    for (std::int64_t a = 1; a <= max_tiles; ++a)
        for (std::int64_t b = 1; b <= max_tiles; ++b)
            if (a * b <= max_tiles) {
                const double scale_h = static_cast<double>(a * tile) / static_cast<double>(h);
                const double scale_w = static_cast<double>(b * tile) / static_cast<double>(w);
                canvases.push_back({a, b, scale_w > scale_h ? scale_h : scale_w});
            }
    bool upscale = false;
    double chosen = 0;
    for (const Canvas& c : canvases)
        if (c.scale >= 1 && (!upscale || c.scale < chosen)) {
            upscale = true;
            chosen = c.scale;
        }
    if (!upscale)
        for (const Canvas& c : canvases) chosen = std::max(chosen, c.scale);
    const Canvas* best = nullptr;
    for (const Canvas& c : canvases)
        if (c.scale == chosen && (!best || c.rows * c.cols < best->rows * best->cols)) best = &c;
    const std::int64_t side = tile / v.patch;
    const std::int64_t per_tile = side * side + rule.figure("class_tokens_per_tile");
    ImageTokens t;
    t.width = best->cols * tile;
    t.height = best->rows * tile;
    t.tiles = best->rows * best->cols;
    t.cross_tokens = t.tiles * per_tile;
    t.tokens = rule.figure("text_tokens_per_image");
    t.patches = max_tiles * per_tile;
    t.outputs = t.patches;
    t.full_span = t.window_span = t.patches;
    return t;
}

// Gemma 3 (Gemma3ImageProcessor, without pan and scan): resized to the
// encoder's square, its patches pooled to mm_tokens_per_image tokens.
ImageTokens pooled(const VisionTower& v, const VisionInputRule& rule) {
    const std::int64_t side = v.image_size / v.patch;
    ImageTokens t;
    t.width = t.height = v.image_size;
    t.patches = side * side;
    t.outputs = v.pooled_tokens;
    t.tokens = t.outputs + rule.figure("wrapper_tokens");
    t.full_span = t.window_span = t.patches;
    return t;
}

// Pixtral in Mistral 3 (vLLM's Mistral3HFEncoderInfo.get_patch_grid_size):
// scaled down to the longest side, then ceil(side / (patch x merge)) merged
// patches a row and column; each row ends in [IMG_BREAK] (the last in
// [IMG_END]).
ImageTokens patch_rows(const VisionTower& v, const VisionInputRule& rule, std::int64_t w,
                       std::int64_t h) {
    double wd = static_cast<double>(w), hd = static_cast<double>(h);
    const double longest = static_cast<double>(v.image_size);
    const double ratio = std::max(wd / longest, hd / longest);
    if (ratio > 1) {
        wd = std::floor(wd / ratio);
        hd = std::floor(hd / ratio);
    }
    const std::int64_t merged = v.patch * v.merge;
    const std::int64_t cols =
        (std::max<std::int64_t>(static_cast<std::int64_t>(wd), 1) - 1) / merged + 1;
    const std::int64_t rows =
        (std::max<std::int64_t>(static_cast<std::int64_t>(hd), 1) - 1) / merged + 1;
    ImageTokens t;
    t.width = cols * merged;
    t.height = rows * merged;
    t.outputs = cols * rows;
    t.tokens = t.outputs + rows * rule.figure("break_tokens_per_row");
    t.patches = t.outputs * v.merge * v.merge;
    t.full_span = t.window_span = t.patches;
    return t;
}

}  // namespace

std::string_view image_input_name(ImageInput input) {
    const MechanismFigures* m = mechanism(input);
    return m ? m->name : "none";
}

std::int64_t VisionInputRule::figure(std::string_view figure_name) const {
    for (const VisionInputFigure& f : figures)
        if (f.name == figure_name) return f.value;
    throw std::logic_error(
        fmt::format("vision input rule {} has no figure {}", model_type, figure_name));
}

std::vector<VisionInputRule> parse_vision_inputs(std::string_view json_text,
                                                 std::string_view source) {
    const json::Document doc =
        json::Document::parse(json_text, source, "a JSON list of model presets");
    const auto list = doc.root().find("vision_inputs");
    std::vector<VisionInputRule> out;
    if (!list) return out;
    const json::Path top{nullptr, "vision_inputs"};
    if (!list->is_array())
        throw InputError(fmt::format("{}: {}: must be an array", source, top.str()));
    std::size_t i = 0;
    for (const json::Value row : list->items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(row, source, &path);
        VisionInputRule rule;
        rule.model_type = std::string(r.str("model_type"));
        rule.name = std::string(r.str("name"));
        const std::string_view kind =
            r.one_of("mechanism", {"dynamic-resolution", "tiles", "pooled", "patch-rows"});
        const MechanismFigures* m = nullptr;
        for (const MechanismFigures& candidate : kMechanisms)
            if (candidate.name == kind) m = &candidate;
        rule.input = m->input;
        r.str("source");
        const json::Value figures = r.required("figures");
        if (!figures.is_array()) r.fail("figures", "must be an array");
        const json::Path fpath{&path, "figures"};
        std::size_t k = 0;
        for (const json::Value f : figures.items()) {
            const json::Path one{&fpath, {}, k++, true};
            json::ObjectReader fr(f, source, &one);
            VisionInputFigure fig;
            fig.name = std::string(fr.str("name"));
            fig.value = fr.integer("value", 0, 1'000'000'000);
            fig.source = std::string(fr.str("source"));
            if (fig.source.empty()) fr.fail("source", "every figure states its source");
            if (std::find(m->figures.begin(), m->figures.end(), fig.name) == m->figures.end())
                fr.fail("name", fmt::format("{} is not a figure of the {} mechanism",
                                            quote(fig.name), kind));
            fr.finish();
            rule.figures.push_back(std::move(fig));
        }
        for (const std::string_view needed : m->figures) {
            if (needed.empty()) continue;
            const auto n =
                std::count_if(rule.figures.begin(), rule.figures.end(),
                              [&](const VisionInputFigure& f) { return f.name == needed; });
            if (n != 1)
                r.fail("figures",
                       fmt::format("the {} mechanism needs {} once", kind, quote(needed)));
        }
        r.finish();
        if (find_vision_rule(out, rule.model_type))
            r.fail("model_type", fmt::format("{} appears twice", quote(rule.model_type)));
        out.push_back(std::move(rule));
    }
    return out;
}

const VisionInputRule* find_vision_rule(std::span<const VisionInputRule> rules,
                                        std::string_view model_type) {
    for (const VisionInputRule& r : rules)
        if (r.model_type == model_type) return &r;
    return nullptr;
}

ImageTokens image_tokens_of(const VisionTower& v, const VisionInputRule& rule, std::int64_t width,
                            std::int64_t height, std::string_view origin) {
    if (width < 1 || height < 1)
        throw InputError(
            fmt::format("{} {}x{}: an image has at least one pixel a side", origin, width, height));
    if (rule.input != v.input)
        throw std::logic_error("image_tokens_of: the rule is another mechanism's");
    switch (v.input) {
        case ImageInput::DynamicResolution:
            return dynamic_resolution(v, rule, width, height, origin);
        case ImageInput::Tiles:
            return tiles(v, rule, width, height);
        case ImageInput::Pooled:
            return pooled(v, rule);
        case ImageInput::PatchRows:
            return patch_rows(v, rule, width, height);
        case ImageInput::None:
            break;
    }
    throw std::logic_error("image_tokens_of: a tower without an image input");
}

double image_encode_flops(const Architecture& a, const ImageTokens& t) {
    const VisionTower& v = a.vision;
    const double patches = static_cast<double>(t.patches);
    const double full = static_cast<double>(std::min(v.full_attention_layers, v.layers));
    const double windowed = static_cast<double>(v.layers) - full;
    double flops = 2.0 * static_cast<double>(v.patch_linear) * patches +
                   2.0 * static_cast<double>(v.token_linear) * static_cast<double>(t.outputs);
    flops +=
        4.0 * static_cast<double>(v.hidden) * patches *
        (full * static_cast<double>(t.full_span) + windowed * static_cast<double>(t.window_span));
    // Llama 3.2 Vision: each cross-attention layer projects the image's
    // tokens to its keys and values once per request.
    flops += 2.0 * static_cast<double>(a.cross_attention_layers) *
             static_cast<double>(t.cross_tokens) * 2.0 * static_cast<double>(a.hidden) *
             static_cast<double>(a.kv_dim());
    return flops;
}

double vision_layer_elements(const VisionTower& v) {
    const double h = static_cast<double>(v.hidden);
    const double i = static_cast<double>(v.intermediate);
    return 2.0 * h + 2.0 * h + 2.0 * h + (v.gated_mlp ? 3.0 : 2.0) * i;
}

}  // namespace gpuadvise
