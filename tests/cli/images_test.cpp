// Images in a vision-language request, end to end (--images, --image-size):
// their tokens join the prompt and the KV cache, the vision encoder's time
// joins the time to first token, the table and the JSON say what each image
// became, and a plan's limits stay what `check` answers.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/run_gpuadvise.hpp"

using gpuadvise_test::run;
using gpuadvise_test::run_json;

namespace {

const std::vector<std::string> kQwen4 = {"estimate", "--model", "qwen2.5-vl-7b",
                                         "--images", "4",       "--image-size",
                                         "1280x720", "--gpu",   "rtx-4090"};

std::vector<std::string> plus(std::vector<std::string> a, std::vector<std::string> b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

TEST_CASE("estimate: 4 images of 1280x720 on Qwen2.5-VL 7B join the prompt and the first token") {
    const auto text_doc = run_json({"estimate", "--model", "qwen2.5-vl-7b", "--gpu", "rtx-4090"});
    const auto& text = text_doc.at("plan");
    const auto doc = run_json(kQwen4);
    const auto& w = doc.at("workload");
    // smart_resize: 1288 x 728 pixels, 46 x 26 tokens + <|vision_start|> and <|vision_end|>.
    CHECK(w.at("image_tokens") == 4 * 1198);
    const auto& im = w.at("images");
    CHECK(im.at("count") == 4);
    CHECK(im.at("width") == 1280);
    CHECK(im.at("height") == 720);
    CHECK(im.at("size_assumed") == false);
    CHECK(im.at("mechanism") == "dynamic-resolution");
    CHECK(im.at("resized_width") == 1288);
    CHECK(im.at("resized_height") == 728);
    CHECK(im.at("tokens_per_image") == 1198);
    CHECK(im.at("patches_per_image") == 92 * 52);
    CHECK(im.at("tiles_per_image").is_null());
    CHECK(im.at("cross_attention_tokens") == 0);
    CHECK(w.at("prompt") == 3584 + 4 * 1198);
    CHECK(w.at("seq") == 4096 + 4 * 1198);
    const auto& plan = doc.at("plan");
    CHECK(plan.at("fits") == true);
    const auto& perf = plan.at("performance");
    CHECK(perf.at("image_encode_seconds").get<double>() > 0);
    CHECK(perf.at("time_to_first_token_s").get<double>() >
          text.at("performance").at("time_to_first_token_s").get<double>() +
              perf.at("image_encode_seconds").get<double>() * 0.99);
    CHECK(text.at("performance").at("image_encode_seconds").is_null());
    const auto kv = [](const nlohmann::json& d) {
        return d.at("memory").at("components").at("kv_cache_bytes").get<std::uint64_t>();
    };
    CHECK(kv(doc) > kv(text_doc));
    CHECK(plan.at("per_gpu_bytes").get<std::uint64_t>() >
          text.at("per_gpu_bytes").get<std::uint64_t>());

    const auto r = run(kQwen4);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("images     4 x 1280x720 -> 1198 tokens each, 4792 in the prompt") !=
          std::string::npos);
    CHECK(r.out.find("of it, image encoding") != std::string::npos);
}

TEST_CASE("the other families: native sizes, tiles and row breaks") {
    const auto gemma = run_json({"estimate", "--model", "gemma-3-4b", "--images", "2"});
    const auto& g = gemma.at("workload");
    CHECK(g.at("images").at("size_assumed") == true);
    CHECK(g.at("images").at("width") == 896);
    CHECK(g.at("image_tokens") == 2 * 260);
    const auto mllama = run_json({"estimate", "--model", "llama-3.2-90b-vision", "--images", "2",
                                  "--image-size", "1280x720"});
    const auto& m = mllama.at("workload").at("images");
    CHECK(m.at("tiles_per_image") == 4);
    CHECK(m.at("cross_attention_tokens") == 2 * 4 * 1601);
    CHECK(mllama.at("workload").at("image_tokens") == 2);
    const auto mistral = run_json(
        {"estimate", "--model", "mistral-small-3.1-24b", "--images", "1", "--image-size", "1540"});
    CHECK(mistral.at("workload").at("image_tokens") == 55 * 56);
    // Training: the sequence holds them.
    const auto lora = run_json({"estimate", "--model", "qwen2.5-vl-7b", "--method", "lora",
                                "--images", "2", "--image-size", "448", "--seq", "512"});
    CHECK(lora.at("workload").at("seq") == 512 + 2 * 258);
}

TEST_CASE("with images, the limits are what check answers: the images' tokens stay") {
    const std::vector<std::string> plan = {"check",    "--model", "qwen2.5-vl-7b",
                                           "--images", "4",       "--image-size",
                                           "1280x720", "--gpu",   "rtx-4090"};
    const auto doc = run_json(plan);
    REQUIRE(doc.at("plan").at("fits") == true);
    const auto& limits = doc.at("plan").at("limits");
    const std::int64_t context = limits.at("max_context_tokens").get<std::int64_t>();
    const std::int64_t images = doc.at("workload").at("image_tokens").get<std::int64_t>();
    const std::int64_t batch = limits.at("max_batch").get<std::int64_t>();
    REQUIRE(context > images);
    // --seq counts the text; the limit counts the whole context.
    CHECK(run(plus(plan, {"--seq", std::to_string(context - images)})).exit_code == 0);
    if (!limits.at("context_capped_by_model").get<bool>())
        CHECK(run(plus(plan, {"--seq", std::to_string(context - images + 1)})).exit_code == 1);
    CHECK(run(plus(plan, {"--batch", std::to_string(batch)})).exit_code == 0);
    CHECK(run(plus(plan, {"--batch", std::to_string(batch + 1)})).exit_code == 1);
}

TEST_CASE("batch lines take images and image_size") {
    const auto r = run({"batch"}, [] {
        gpuadvise_test::Options o;
        o.stdin_text =
            R"({"model":"qwen2.5-vl-7b","images":2,"image_size":"1280x720","gpu":"rtx-4090"})"
            "\n";
        return o;
    }());
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"image_tokens\":2396") != std::string::npos);
}
