// The speed of image workloads as their kernels run them (issue 27, item 6;
// docs/image-models.md "Speed"): a denoiser forward split into matrix
// products, fused attention, bandwidth-bound kernels and the host's
// launches; ComfyUI's setup; vision backbones in channels-last layout.
#include <catch2/catch.hpp>

#include "gpuadvise/attainable.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/image.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/performance.hpp"
#include "support/request.hpp"

namespace gpuadvise {
namespace {

Workload image(test::Values fields) {
    return test::workload(fields, embedded::model_presets());
}

Performance speed(const Workload& w, const char* card) {
    return estimate_performance(w, estimate(w), resolve_gpu(embedded::catalog(), card));
}

const DiffusionModel& diffusion(const Workload& w) {
    return *w.model.image->diffusion;
}

}  // namespace

TEST_CASE("a UNet forward splits into its levels and adds up to the preset's FLOPs") {
    const Workload sd15 = image({{Field::Model, "sd15"}});
    const DiffusionModel& d = diffusion(sd15);
    const DenoiserWork work = denoiser_work(d, 512, 512);
    REQUIRE(work.parts.size() == d.unet_channels.size());
    const DenoiserPart total = work.total();
    // The counted matrix products are scaled to the preset's MACs, the
    // attention kept as counted: together they are the forward.
    CHECK(total.matmul_flops + total.attention_flops == Approx(denoiser_flops(d, 512, 512)));
    CHECK(total.conv_flops > 0);
    CHECK(total.conv_flops < total.matmul_flops);
    // SD 1.5's first level has 40-wide heads, which fused kernels run as 64.
    const DenoiserPart& first = work.parts.front();
    CHECK(first.fused_attention_flops == Approx(first.attention_flops * 64.0 / 40.0));
    // Its last level (8 x 8 latents) has no attention: launches, little work.
    CHECK(work.parts.back().attention_flops == 0.0);
    CHECK(work.parts.back().kernels > 0);
    // SDXL's 64-wide heads need no padding; its 70 transformer blocks launch
    // more kernels than SD 1.5's 15.
    const Workload sdxl = image({{Field::Model, "sdxl"}});
    const DenoiserPart xl = denoiser_work(diffusion(sdxl), 1024, 1024).total();
    CHECK(xl.fused_attention_flops == Approx(xl.attention_flops));
    CHECK(xl.kernels > 2.0 * total.kernels);
    CHECK(xl.linears > total.linears);
}

TEST_CASE("a DiT block's fp32 rotary embeddings and query-key norms move more bytes") {
    const Workload flux = image({{Field::Model, "flux-dev"}});
    const Workload sd3 = image({{Field::Model, "sd3-medium"}});
    const DiffusionModel& f = diffusion(flux);
    const DiffusionModel& s = diffusion(sd3);
    CHECK(f.qk_norm);
    CHECK(f.rope);
    CHECK_FALSE(s.qk_norm);
    CHECK_FALSE(s.rope);
    const auto per_token = [](const DiffusionModel& d, std::int64_t side) {
        const DenoiserPart p = denoiser_work(d, side, side).total();
        const double tokens = static_cast<double>(image_tokens(d, side, side) + text_tokens(d));
        return p.elementwise_elements /
               (tokens * static_cast<double>(d.blocks) * static_cast<double>(d.hidden));
    };
    // Per token and hidden unit of a block: FLUX's norms and rotary
    // embeddings in fp32 are most of its bandwidth-bound work.
    CHECK(per_token(f, 1024) > 2.0 * per_token(s, 1024));
    // One part, the whole forward.
    const DenoiserWork work = denoiser_work(f, 1024, 1024);
    REQUIRE(work.parts.size() == 1);
    CHECK(work.total().matmul_flops + work.total().attention_flops ==
          Approx(denoiser_flops(f, 1024, 1024)));
}

TEST_CASE("a small step is the host's: a larger batch costs the launches once") {
    // SD 1.5 at 512x512 on an H100: the GPU's work is a few milliseconds,
    // the host launches every kernel from Python.
    const auto step = [](const char* batch, const char* card) {
        const Workload w = image({{Field::Model, "sd15"}, {Field::Batch, batch}});
        return *speed(w, card).denoise_step_seconds;
    };
    const double one = step("1", "h100-sxm5"), two = step("2", "h100-sxm5");
    CHECK(two < 1.5 * one);
    // SDXL at 16 images on an RTX 4090 is the GPU's: close to 4x four images.
    const auto xl = [](const char* batch) {
        const Workload w = image({{Field::Model, "sdxl"}, {Field::Batch, batch}});
        return *speed(w, "rtx-4090").denoise_step_seconds;
    };
    CHECK(xl("16") == Approx(4.0 * xl("4")).epsilon(0.05));
    // The launches do not depend on the card: the H100 is not three times
    // the RTX 4090 on SD 1.5, whatever its matmul rate.
    CHECK(step("1", "rtx-4090") < 3.0 * one);
}

TEST_CASE("fp32 runs the convolutions in TF32 and the matrix products in fp32") {
    // PyTorch's defaults: cuDNN may use TF32, matmuls may not. SDXL in fp32
    // on an A100 is therefore much slower than TF32 everywhere would be
    // (FP32 is 19.5 of the A100's 156 TF32 TFLOPS).
    const Workload fp32 = image({{Field::Model, "sdxl"}, {Field::Precision, "fp32"}});
    const Workload fp16 = image({{Field::Model, "sdxl"}});
    const double slow = *speed(fp32, "nvidia-a100-80gb-sxm").denoise_step_seconds;
    const double fast = *speed(fp16, "nvidia-a100-80gb-sxm").denoise_step_seconds;
    CHECK(slow > 3.0 * fast);
}

TEST_CASE("diffusers' model offload copies each component in and out") {
    const Workload none = image({{Field::Model, "sdxl"}});
    const Workload model = image({{Field::Model, "sdxl"}, {Field::CpuOffload, "model"}});
    const Workload sequential = image({{Field::Model, "sdxl"}, {Field::CpuOffload, "sequential"}});
    const double base = *speed(none, "nvidia-a100-80gb-sxm").seconds_per_image;
    const double with_model = *speed(model, "nvidia-a100-80gb-sxm").seconds_per_image;
    const double with_layers = *speed(sequential, "nvidia-a100-80gb-sxm").seconds_per_image;
    CHECK(with_model > base);
    // Sequential offload copies the UNet in at every step: far slower.
    CHECK(with_layers - base > 10.0 * (with_model - base));
}

TEST_CASE("ComfyUI's setup: 20 steps, models moved out when another needs the memory") {
    const Workload comfy =
        image({{Field::Model, "flux-dev"}, {Field::Quant, "fp8"}, {Field::ImageSetup, "comfyui"}});
    CHECK(comfy.image.setup == ImageSetup::Comfyui);
    CHECK(comfy.image.steps == 20);
    // Its peak is the phase that peaks: FLUX in fp8 fits a 24 GB card even
    // with T5-XXL's 9.4 GB, which diffusers keeps resident beside it.
    const Workload resident = image({{Field::Model, "flux-dev"}, {Field::Quant, "fp8"}});
    const MemoryEstimate m = estimate(comfy);
    double trainable = 0, paged = 0;
    CHECK(component_bytes(comfy, &trainable, &paged).text_encoders == 0.0);
    CHECK(m.per_gpu_bytes < estimate(resident).per_gpu_bytes);
    CHECK(static_cast<double>(m.per_gpu_bytes) < 20e9);
    // An explicit step count wins.
    const Workload thirty =
        image({{Field::Model, "flux-dev"}, {Field::ImageSetup, "comfyui"}, {Field::Steps, "30"}});
    CHECK(thirty.image.steps == 30);
    // FP8 weights are upcast to bf16 in every forward: a little slower than
    // bf16 weights, not faster.
    const Workload bf16 = image({{Field::Model, "flux-dev"}, {Field::ImageSetup, "comfyui"}});
    CHECK(*speed(comfy, "nvidia-a100-80gb-sxm").denoise_step_seconds >
          *speed(bf16, "nvidia-a100-80gb-sxm").denoise_step_seconds);
    CHECK_THROWS_AS(image({{Field::Model, "resnet50"}, {Field::ImageSetup, "comfyui"}}),
                    InputError);
    CHECK_THROWS_AS(image({{Field::Model, "sdxl"}, {Field::ImageSetup, "automatic"}}), InputError);
}

TEST_CASE("vision training defaults to channels-last under AMP, which moves fewer bytes") {
    const Workload amp = image({{Field::Model, "resnet50"}, {Field::Method, "full"}});
    CHECK(amp.image.channels_last);
    const Workload nchw = image(
        {{Field::Model, "resnet50"}, {Field::Method, "full"}, {Field::ChannelsLast, "false"}});
    CHECK_FALSE(nchw.image.channels_last);
    // ResNet-50 training is bound by its activations' traffic: the layout
    // without transposes is faster, by the traffic it saves.
    const double fast = *speed(amp, "nvidia-a100-80gb-sxm").images_per_s;
    const double slow = *speed(nchw, "nvidia-a100-80gb-sxm").images_per_s;
    CHECK(fast > 1.2 * slow);
    // fp32 and inference keep PyTorch's default layout.
    const Workload fp32 =
        image({{Field::Model, "resnet50"}, {Field::Method, "full"}, {Field::Precision, "fp32"}});
    CHECK_FALSE(fp32.image.channels_last);
    CHECK_FALSE(image({{Field::Model, "resnet50"}}).image.channels_last);
    CHECK_THROWS_AS(image({{Field::Model, "sdxl"}, {Field::ChannelsLast, "true"}}), InputError);
}

}  // namespace gpuadvise
