// Images in a vision-language request (--images, --image-size): the tokens
// each family's preprocessing makes of an image, against the values its
// processor's own formula gives (data/models.json "vision_inputs" and
// docs/models.md, "Images in a request"), and what they add to a workload.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/performance.hpp"
#include "support/request.hpp"

using namespace gpuadvise;
using gpuadvise::test::workload;

namespace {

const Architecture& arch(const char* id) {
    const ModelPreset* p = find_preset(embedded::model_presets(), id);
    REQUIRE(p != nullptr);
    return p->arch;
}

ImageTokens tokens(const char* id, std::int64_t width, std::int64_t height) {
    const VisionTower& v = arch(id).vision;
    REQUIRE(v.modelled());
    const VisionInputRule* rule = find_vision_rule(embedded::vision_inputs(), v.family);
    REQUIRE(rule != nullptr);
    return image_tokens_of(v, *rule, width, height, "--image-size");
}

Workload vlm(const std::string& model, const std::string& images, const std::string& size) {
    return workload({{Field::Model, model}, {Field::Images, images}, {Field::ImageSize, size}},
                    embedded::model_presets());
}

}  // namespace

TEST_CASE("every modelled vision tower of a preset has its family's rule") {
    for (const ModelPreset& p : embedded::model_presets()) {
        if (!p.arch.vision.modelled()) continue;
        INFO(p.id);
        const VisionInputRule* rule =
            find_vision_rule(embedded::vision_inputs(), p.arch.vision.family);
        REQUIRE(rule != nullptr);
        CHECK(rule->input == p.arch.vision.input);
        for (const VisionInputFigure& f : rule->figures) CHECK_FALSE(f.source.empty());
    }
    CHECK(arch("qwen2.5-vl-7b").vision.input == ImageInput::DynamicResolution);
    CHECK(arch("llama-3.2-90b-vision").vision.input == ImageInput::Tiles);
    CHECK(arch("gemma-3-4b").vision.input == ImageInput::Pooled);
    CHECK(arch("mistral-small-3.1-24b").vision.input == ImageInput::PatchRows);
    CHECK_FALSE(arch("llama-3.1-8b").vision.modelled());
}

TEST_CASE("Qwen2.5-VL: smart_resize to multiples of 28 px, one token per 2x2 patches") {
    // transformers smart_resize: round(1024 / 28) = 37 (36.57 rounds up), so
    // 1036 x 1036 pixels, 74 x 74 patches of 14 px, 37 x 37 = 1369 tokens
    // (not 36 x 36 = 1296), plus <|vision_start|> and <|vision_end|>.
    const ImageTokens square = tokens("qwen2.5-vl-7b", 1024, 1024);
    CHECK(square.width == 1036);
    CHECK(square.height == 1036);
    CHECK(square.patches == 74 * 74);
    CHECK(square.outputs == 1369);
    CHECK(square.tokens == 1371);
    // 1280 x 720: round(45.71) = 46 and round(25.71) = 26: 1288 x 728.
    const ImageTokens hd = tokens("qwen2.5-vl-7b", 1280, 720);
    CHECK(hd.width == 1288);
    CHECK(hd.height == 728);
    CHECK(hd.outputs == 46 * 26);
    CHECK(hd.patches == 92 * 52);
    CHECK(hd.tokens == 1198);
    // Windowed layers attend within 112 px = 8 x 8 patches; the four full ones over the image.
    CHECK(hd.window_span == 64);
    CHECK(hd.full_span == hd.patches);
    // Under min_pixels (56 x 56) scaled up to it: the model card's 4 tokens at least.
    const ImageTokens tiny = tokens("qwen2.5-vl-7b", 28, 28);
    CHECK(tiny.width == 56);
    CHECK(tiny.outputs == 4);
    // Over max_pixels (16384 x 28 x 28) scaled down keeping the aspect ratio:
    // beta = sqrt(6000 x 3000 / 12845056); floor(3000 / beta / 28) = 90 and
    // floor(6000 / beta / 28) = 181.
    const ImageTokens big = tokens("qwen2.5-vl-7b", 6000, 3000);
    CHECK(big.height == 90 * 28);
    CHECK(big.width == 181 * 28);
    CHECK(big.outputs == 16290);
    CHECK(big.outputs <= 16384);
    // An exact half rounds to the even neighbour, as Python's round(): 70 / 28 =
    // 2.5 -> 2, so 56 x 56 pixels and 4 tokens (rounding halves up would give 84 x 84, 9).
    CHECK(tokens("qwen2.5-vl-7b", 70, 70).outputs == 4);
    // smart_resize refuses an aspect ratio over 200.
    CHECK_THROWS_AS(tokens("qwen2.5-vl-7b", 10000, 40), InputError);
}

TEST_CASE("Llama 3.2 Vision: tiles of 560 px on the best canvas, 1601 tokens a tile") {
    // get_optimal_tiled_canvas: a 560 px image fits one tile as it is.
    const ImageTokens one = tokens("llama-3.2-90b-vision", 560, 560);
    CHECK(one.tiles == 1);
    CHECK(one.cross_tokens == 40 * 40 + 1);
    CHECK(one.tokens == 1);  // its <|image|> token in the text
    // 1280 x 720 cannot be upscaled into any canvas; 2 x 2 tiles downscale it
    // least (0.875).
    const ImageTokens hd = tokens("llama-3.2-90b-vision", 1280, 720);
    CHECK(hd.tiles == 4);
    CHECK(hd.width == 1120);
    CHECK(hd.height == 1120);
    CHECK(hd.cross_tokens == 4 * 1601);
    // 1120 x 560 fits 1 x 2, 1 x 3, 1 x 4 and 2 x 2 tiles at scale 1; the smallest wins.
    const ImageTokens wide = tokens("llama-3.2-90b-vision", 1120, 560);
    CHECK(wide.tiles == 2);
    CHECK(wide.width == 1120);
    CHECK(wide.height == 560);
    CHECK(wide.cross_tokens == 3202);
    // A small image upscales into one tile; the encoder still runs all four (padding).
    const ImageTokens small = tokens("llama-3.2-90b-vision", 200, 200);
    CHECK(small.tiles == 1);
    CHECK(small.patches == 4 * 1601);
}

TEST_CASE("Gemma 3: every image is 896 x 896, 4096 patches pooled to 256 tokens") {
    for (const char* id : {"gemma-3-4b", "gemma-3-12b", "gemma-3-27b"}) {
        INFO(id);
        for (const auto& [w, h] : {std::pair{896, 896}, {1280, 720}, {200, 3000}}) {
            const ImageTokens t = tokens(id, w, h);
            CHECK(t.patches == 64 * 64);
            CHECK(t.outputs == 256);
            CHECK(t.tokens == 260);  // and <start_of_image>, <end_of_image>, two "\n\n"
        }
    }
}

TEST_CASE("Mistral Small 3.1: 28 px merged patches, a break token ending each row") {
    // vLLM's get_patch_grid_size: ncols = (1280 - 1) // 28 + 1 = 46, nrows = 26.
    const ImageTokens hd = tokens("mistral-small-3.1-24b", 1280, 720);
    CHECK(hd.outputs == 46 * 26);
    CHECK(hd.tokens == 46 * 26 + 26);
    CHECK(hd.patches == 92 * 52);
    // The longest side 1540: 55 x 55 merged patches and 55 row ends.
    CHECK(tokens("mistral-small-3.1-24b", 1540, 1540).tokens == 55 * 56);
    // Larger images are scaled down to it: 3080 x 1540 -> 1540 x 770, 55 x 28.
    const ImageTokens wide = tokens("mistral-small-3.1-24b", 3080, 1540);
    CHECK(wide.outputs == 55 * 28);
    CHECK(wide.tokens == 55 * 28 + 28);
    CHECK(tokens("mistral-small-3.1-24b", 1024, 1024).tokens == 37 * 38);
}

TEST_CASE("images join the prompt, and their size defaults to the native input") {
    const Workload text = workload({{Field::Model, "qwen2.5-vl-7b"}}, embedded::model_presets());
    const Workload w = vlm("qwen2.5-vl-7b", "4", "1280x720");
    CHECK(w.images.tokens() == 4 * 1198);
    CHECK(w.prompt == text.prompt + 4 * 1198);
    CHECK(w.seq == text.seq + 4 * 1198);
    CHECK(w.gen == text.gen);
    // Gemma 3 has a native input (vision_config image_size 896), said as assumed.
    const Workload g =
        workload({{Field::Model, "gemma-3-4b"}, {Field::Images, "2"}}, embedded::model_presets());
    CHECK(g.images.width == 896);
    CHECK(g.images.size_assumed);
    CHECK(std::any_of(g.assumed.begin(), g.assumed.end(),
                      [](const std::string& a) { return a.find("image-size=896x896") == 0; }));
    // Training: the sequence holds them.
    const Workload t = workload({{Field::Model, "qwen2.5-vl-7b"},
                                 {Field::Method, "lora"},
                                 {Field::Images, "2"},
                                 {Field::ImageSize, "448"},
                                 {Field::Seq, "512"}},
                                embedded::model_presets());
    CHECK(t.seq == 512 + 2 * (16 * 16 + 2));
    // Llama 3.2 Vision: one token each in the text, the rest in cross-attention.
    const Workload m = vlm("llama-3.2-90b-vision", "2", "1280x720");
    CHECK(m.prompt == text.prompt + 2);
    CHECK(m.images.cross_tokens() == 2 * 4 * 1601);
}

TEST_CASE("images are refused where they cannot apply") {
    const auto& presets = embedded::model_presets();
    CHECK_THROWS_WITH(workload({{Field::Model, "llama-3.1-8b"}, {Field::Images, "2"}}, presets),
                      Catch::Contains("--images 2: llama-3.1-8b has no vision encoder") &&
                          Catch::Contains("drop --images"));
    CHECK_THROWS_WITH(workload({{Field::Model, "qwen2.5-vl-7b"}, {Field::Images, "1"}}, presets),
                      Catch::Contains("add --image-size WxH"));
    CHECK_THROWS_WITH(
        workload({{Field::Model, "gemma-3-4b"}, {Field::ImageSize, "896x896"}}, presets),
        Catch::Contains("add --images"));
    CHECK_THROWS_AS(workload({{Field::Model, "gemma-3-4b"}, {Field::Images, "0"}}, presets),
                    InputError);
    CHECK_THROWS_AS(vlm("gemma-3-4b", "1", "wide"), InputError);
    CHECK_THROWS_AS(vlm("qwen2.5-vl-7b", "1", "10000x40"), InputError);
    CHECK_THROWS_WITH(workload({{Field::Model, "sdxl"}, {Field::Images, "1"}}, presets),
                      Catch::Contains("applies to language models"));
}

TEST_CASE("Llama 3.2 Vision's cross-attention state follows --images") {
    const Workload one = vlm("llama-3.2-90b-vision", "1", "560");
    const Workload four = vlm("llama-3.2-90b-vision", "4", "1280x720");
    const Architecture& a = one.model.arch;
    const double per_token = 2.0 * static_cast<double>(a.kv_dim()) * 2.0;  // bf16 keys and values
    const double cross = static_cast<double>(a.cross_attention_layers);
    const MemoryEstimate m1 = estimate_memory(one), m4 = estimate_memory(four);
    const double kv1 = static_cast<double>(m1.get(&Components::kv_cache));
    const double kv4 = static_cast<double>(m4.get(&Components::kv_cache));
    // 4 images of 4 tiles keep 16 tiles' tokens where one of one tile keeps 1601;
    // the text KV grows by the 3 more <|image|> tokens.
    const double text_layers = static_cast<double>(a.kv_layers());
    CHECK(kv4 - kv1 ==
          Approx(cross * (16 * 1601 - 1601) * per_token + text_layers * 3 * per_token));
}

// "Larger" is the same aspect ratio scaled up: at a cap (Pixtral's longest
// side, Qwen2.5-VL's max_pixels) an image of another shape can keep fewer
// pixels, and tokens, than a smaller one, as the processors do.
TEST_CASE("more or larger images never reduce memory or the time to the first token") {
    const Gpu& gpu = resolve_gpu(embedded::catalog(), "h100-sxm5", "--gpu");
    const std::vector<std::vector<std::string>> ladders = {
        {"224", "448", "560", "896", "1120", "1540", "2048", "3000"},
        {"320x180", "640x360", "1280x720", "1920x1080", "2560x1440", "3840x2160"}};
    for (const char* model :
         {"qwen2.5-vl-7b", "llama-3.2-90b-vision", "gemma-3-4b", "mistral-small-3.1-24b"}) {
        for (const char* method : {"inference", "lora", "full"}) {
            INFO(model << " " << method);
            const auto at = [&](int images, const std::string& size) {
                const Workload w = workload({{Field::Model, model},
                                             {Field::Method, method},
                                             {Field::Images, std::to_string(images)},
                                             {Field::ImageSize, size}},
                                            embedded::model_presets());
                const MemoryEstimate m = estimate_memory(w);
                const Performance p = estimate_performance(w, m, gpu);
                // Training: the framework's peak (a longer sequence can shrink the
                // allocator's modelled pool when the optimizer step is the peak)
                // and the optimizer step's time.
                const std::uint64_t bytes = w.trains() ? m.allocated_bytes : m.per_gpu_bytes;
                const double time = w.trains() ? p.step_seconds.value_or(0.0)
                                               : p.time_to_first_token_s.value_or(0.0);
                return std::pair{bytes, time};
            };
            for (const auto& ladder : ladders) {
                for (const std::string& size : ladder) {
                    auto last = at(1, size);
                    for (int n : {2, 3, 5, 8}) {
                        INFO(size << " x " << n);
                        const auto now = at(n, size);
                        CHECK(now.first >= last.first);
                        CHECK(now.second >= last.second);
                        last = now;
                    }
                }
                for (int n : {1, 4}) {
                    auto last = at(n, ladder.front());
                    for (std::size_t i = 1; i < ladder.size(); ++i) {
                        INFO(n << " x " << ladder[i]);
                        const auto now = at(n, ladder[i]);
                        CHECK(now.first >= last.first);
                        CHECK(now.second >= last.second);
                        last = now;
                    }
                }
            }
        }
    }
}
