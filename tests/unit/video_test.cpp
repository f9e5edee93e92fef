// Video generation (--frames): latent frames and tokens of a clip, the
// memory and compute that grow with them, mixtures of experts, and the
// seconds per clip (docs/image-models.md, "Video generation").
#include <catch2/catch.hpp>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/image.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/performance.hpp"
#include "support/request.hpp"

namespace gpuadvise {
namespace {

Workload video(const char* model, const char* resolution, const char* frames,
               const char* offload = nullptr) {
    if (offload)
        return test::workload({{Field::Model, model},
                               {Field::Resolution, resolution},
                               {Field::Frames, frames},
                               {Field::CpuOffload, offload}},
                              embedded::model_presets());
    return test::workload(
        {{Field::Model, model}, {Field::Resolution, resolution}, {Field::Frames, frames}},
        embedded::model_presets());
}

const DiffusionModel& diffusion(const Workload& w) {
    return *w.model.image->diffusion;
}

}  // namespace

TEST_CASE("a clip's latent frames follow the causal VAE's 1 + (N - 1) / t") {
    const Workload wan = video("wan2.1-t2v-14b", "832x480", "81");
    const DiffusionModel& d = diffusion(wan);
    CHECK(latent_frames(d, 81) == 21);
    CHECK(latent_frames(d, 1) == 1);
    // 832x480 at VAE stride 8 and patch 2: 52 x 30 patches per latent frame.
    CHECK(image_tokens(d, 832, 480, 81) == 21 * 52 * 30);
    CHECK(wan.image.frames == 81);
    // LTX-Video compresses 8 frames in time and 32 pixels in space, patch 1.
    const Workload ltx = video("ltx-video-2b", "1216x704", "121");
    CHECK(latent_frames(diffusion(ltx), 121) == 16);
    CHECK(image_tokens(diffusion(ltx), 1216, 704, 121) == 16 * 38 * 22);
    // Wan2.2 TI2V-5B: stride 16 and patch 2.
    const Workload ti2v = video("wan2.2-ti2v-5b", "1280x704", "121");
    CHECK(image_tokens(diffusion(ti2v), 1280, 704, 121) == 31 * 40 * 22);
    // An image model has one latent frame whatever the count.
    const Workload flux = test::workload({{Field::Model, "flux-dev"}}, embedded::model_presets());
    CHECK(latent_frames(diffusion(flux), 81) == 1);
    CHECK(image_tokens(diffusion(flux), 1024, 1024) == 64 * 64);
    // FLUX.1 Kontext attends over its input image's latents as well.
    const Workload kontext =
        test::workload({{Field::Model, "flux-kontext-dev"}}, embedded::model_presets());
    CHECK(image_tokens(diffusion(kontext), 1024, 1024) == 2 * 64 * 64);
    CHECK(denoiser_flops(diffusion(kontext), 1024, 1024) >
          1.9 * denoiser_flops(diffusion(flux), 1024, 1024));
}

TEST_CASE("the model's defaults give a clip, and --frames must be 1 + a multiple of t") {
    const Workload w =
        test::workload({{Field::Model, "wan2.1-t2v-1.3b"}}, embedded::model_presets());
    CHECK(w.image.frames == 81);
    CHECK(w.image.width == 832);
    CHECK(w.image.height == 480);
    CHECK(w.image.steps == 50);
    CHECK(w.generates_video());
    CHECK_THROWS_AS(video("wan2.1-t2v-1.3b", "832x480", "80"), InputError);
    CHECK_THROWS_WITH(video("wan2.1-t2v-1.3b", "832x480", "80"), Catch::Contains("77 or 81"));
    CHECK_THROWS_WITH(
        test::workload({{Field::Model, "sdxl"}, {Field::Frames, "81"}}, embedded::model_presets()),
        Catch::Contains("video generation models"));
    CHECK_FALSE(
        test::workload({{Field::Model, "sdxl"}}, embedded::model_presets()).generates_video());
}

TEST_CASE("memory grows with the frames: the activations and the VAE decode, not the weights") {
    const MemoryEstimate short_clip = estimate(video("wan2.1-t2v-14b", "1280x720", "33"));
    const MemoryEstimate clip = estimate(video("wan2.1-t2v-14b", "1280x720", "81"));
    const MemoryEstimate long_clip = estimate(video("wan2.1-t2v-14b", "1280x720", "161"));
    CHECK(short_clip.get(&Components::activations) < clip.get(&Components::activations));
    CHECK(clip.get(&Components::activations) < long_clip.get(&Components::activations));
    CHECK(short_clip.get(&Components::weights) == long_clip.get(&Components::weights));
    CHECK(short_clip.get(&Components::text_encoders) == long_clip.get(&Components::text_encoders));
    // bf16 14B denoiser, umT5-XXL 5.68B, Wan-VAE 126.9M.
    CHECK(static_cast<double>(clip.get(&Components::weights)) == Approx(28e9).epsilon(0.01));
    CHECK(static_cast<double>(clip.get(&Components::text_encoders)) ==
          Approx(11.36e9).epsilon(0.01));
    CHECK(static_cast<double>(clip.get(&Components::vae)) == Approx(253.8e6).epsilon(0.01));
    // Past the VAE decode's frames, the DiT's live tensors grow linearly with
    // the tokens (fused attention): latent frames 21 and 41.
    const double a1 = static_cast<double>(clip.get(&Components::activations));
    const double a2 = static_cast<double>(long_clip.get(&Components::activations));
    CHECK(a2 / a1 == Approx(41.0 / 21.0).epsilon(0.01));
}

TEST_CASE("compute per step is linear plus quadratic in the clip's tokens") {
    const Workload w = video("wan2.1-t2v-14b", "832x480", "81");
    const DiffusionModel& d = diffusion(w);
    // Latent frames 21, 41, 61: tokens in arithmetic progression.
    const double n1 = static_cast<double>(image_tokens(d, 832, 480, 81));
    const double n2 = static_cast<double>(image_tokens(d, 832, 480, 161));
    const double n3 = static_cast<double>(image_tokens(d, 832, 480, 241));
    REQUIRE(n2 - n1 == Approx(n3 - n2));
    const double f1 = denoiser_flops(d, 832, 480, 81);
    const double f2 = denoiser_flops(d, 832, 480, 161);
    const double f3 = denoiser_flops(d, 832, 480, 241);
    const double dn = n2 - n1;
    // The second difference is the attention's 4 x blocks x hidden per token squared.
    CHECK((f3 - 2.0 * f2 + f1) / (2.0 * dn * dn) ==
          Approx(4.0 * static_cast<double>(d.blocks) * static_cast<double>(d.hidden)));
    // The rest is linear: about 2 x parameters per token (adaLN left out).
    const double linear = (f2 - f1) / dn - 4.0 * static_cast<double>(d.blocks) *
                                               static_cast<double>(d.hidden) * (n1 + n2);
    CHECK(linear == Approx(2.0 * static_cast<double>(d.denoiser_params)).epsilon(0.2));
    // The 3D VAE decodes every frame.
    CHECK(vae_decode_flops(d, 832, 480, 161) ==
          Approx(vae_decode_flops(d, 832, 480, 81) * 161 / 81));
}

TEST_CASE("a mixture of experts keeps both resident unless model offload moves one out") {
    const MemoryEstimate both = estimate(video("wan2.2-t2v-a14b", "1280x720", "81"));
    const MemoryEstimate one = estimate(video("wan2.2-t2v-a14b", "1280x720", "81", "model"));
    CHECK(static_cast<double>(both.get(&Components::weights)) == Approx(54e9).epsilon(0.01));
    CHECK(static_cast<double>(one.get(&Components::weights)) == Approx(27e9).epsilon(0.01));
    const Workload w = video("wan2.2-t2v-a14b", "1280x720", "81");
    CHECK(w.model.params > 27'000'000'000ULL);
}

TEST_CASE("a video plan reports seconds per clip and frames per second, not images") {
    const Gpu& gpu = resolve_gpu(embedded::catalog(), "rtx-4090");
    const Workload w = video("wan2.1-t2v-1.3b", "832x480", "81");
    const Performance p = estimate_performance(w, estimate(w), gpu);
    REQUIRE(p.seconds_per_clip);
    REQUIRE(p.video_frames_per_s);
    CHECK_FALSE(p.images_per_s);
    CHECK_FALSE(p.seconds_per_image);
    CHECK(*p.video_frames_per_s == Approx(81.0 / *p.seconds_per_clip));
    CHECK(p.rate() == p.video_frames_per_s);
    // Doubling the frames more than doubles the clip's time (attention is quadratic).
    const Workload longer = video("wan2.1-t2v-1.3b", "832x480", "161");
    const Performance q = estimate_performance(longer, estimate(longer), gpu);
    CHECK(*q.seconds_per_clip > 2.0 * *p.seconds_per_clip);
}

TEST_CASE("a DiT's attention FLOPs run at the fused kernel's rate where one is measured") {
    const Workload w = video("wan2.1-t2v-14b", "1280x720", "81");
    const DiffusionModel& d = diffusion(w);
    // The attention part is the quadratic term; a UNet has none apart.
    const double n = static_cast<double>(image_tokens(d, 1280, 720, 81));
    const double t = static_cast<double>(text_tokens(d));
    CHECK(
        denoiser_attention_flops(d, 1280, 720, 81) ==
        Approx(4.0 * static_cast<double>(d.blocks) * static_cast<double>(d.hidden) * n * (n + t)));
    CHECK(denoiser_attention_flops(d, 1280, 720, 81) < denoiser_flops(d, 1280, 720, 81));
    const Workload sdxl = test::workload({{Field::Model, "sdxl"}}, embedded::model_presets());
    CHECK(denoiser_attention_flops(*sdxl.model.image->diffusion, 1024, 1024) == 0.0);
    // At 76K tokens most FLOPs are attention: FlashAttention-2 runs them at
    // 73 % of an A100's peak and 35 % of an H100's, so the A100's step gains
    // more over eager attention's share than the H100's.
    const auto step = [&](const char* card, bool flash) {
        Workload v = w;
        v.flash_attn = flash;
        const Gpu& gpu = resolve_gpu(embedded::catalog(), card);
        return *estimate_performance(v, estimate(v), gpu).denoise_step_seconds;
    };
    const double a100 = step("nvidia-a100-80gb-sxm", false) / step("nvidia-a100-80gb-sxm", true);
    const double h100 = step("h100-sxm5", false) / step("h100-sxm5", true);
    CHECK(a100 > h100);
    CHECK(h100 > 1.0);
    // No share is measured on ROCm: attention stays in the diffusion share,
    // and eager attention only adds the score matrices' traffic.
    const Gpu& mi300x = resolve_gpu(embedded::catalog(), "mi300x");
    Workload eager = w;
    eager.flash_attn = false;
    const double fused_mi = *estimate_performance(w, estimate(w), mi300x).denoise_step_seconds;
    const double eager_mi =
        *estimate_performance(eager, estimate(eager), mi300x).denoise_step_seconds;
    CHECK(eager_mi > fused_mi);
}

}  // namespace gpuadvise
