#pragma once
// The workload resolver: Request + model inputs -> Workload, in phases, each
// default recorded with its source. Its language-model phases are in
// workload.cpp, its image, vision and video phases in workload_image.cpp.
// Private to the workload module.
#include <string>
#include <vector>

#include "gpuadvise/fields.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::workload_detail {

constexpr std::int64_t kMaxTokens = 100'000'000;
constexpr std::int64_t kMaxBatch = 1'000'000;
constexpr std::int64_t kMaxGpus = 16'384;

// Width and height of "WxH" (a single number: a square), each 1 to 16384;
// `square` is set when the text was one number.
struct PixelSize {
    std::int64_t width = 0, height = 0;
    bool square = false;
};
PixelSize parse_pixel_size(std::string_view text, const std::string& origin);

// A field's value and origin, when given.
struct Arg {
    const Given* given = nullptr;
    explicit operator bool() const { return given != nullptr; }
    const std::string& text() const { return given->text; }
    const std::string& from() const { return given->origin; }
};

class Resolver {
  public:
    Resolver(const Request& r, const ModelInputs& in, const std::vector<ModelPreset>& presets)
        : r_(r), in_(in), presets_(presets) {}

    Workload run();

  private:
    Arg arg(Field f) const;
    void assume(std::string what) { w_.assumed.push_back(std::move(what)); }

    // --- the task --------------------------------------------------------------
    bool task_is_fixed();

    // A task without a model (the document's SDXL and video rows) states a
    // memory floor; no workload field can apply to it.
    Workload fixed();

    // --- the model -------------------------------------------------------------
    void model();

    // What the shape leaves out or adds, said once.
    void shape_notes();

    // --- image generation, vision and video ------------------------------------
    // An image or vision preset: its own defaults and fields; the language
    // model's fields are refused by name.
    Workload image();

    void resolution(const ImageModel& im);
    void frames(const DiffusionModel& d);

    void video();

    // --- a vision-language model's images (workload_vision.cpp) ----------------
    // --images and --image-size: what each image becomes in this model.
    void prompt_images();
    // The images' tokens joined to the prompt (inference) or sequence.
    void add_image_tokens();

    // --- method and formats ----------------------------------------------------
    void method();

    void formats();
    const Engine* downloads_quantized() const;

    // Every workload field given for a workload it does not apply to is an
    // error naming the field and the fix: one check over the table, so no
    // field can be forgotten.
    void applicability();

    void engine();

    // --- training ----------------------------------------------------------------
    // --harness: the training library whose defaults and code path apply.
    void harness();

    // --bitsandbytes VERSION: whether 4-bit layers keep their inputs.
    void bitsandbytes();

    // --train-offload: the optimizer (and parameters) in host memory.
    void train_offload();

    void training();

    // --grad-ckpt is --ckpt-mode full and --no-grad-ckpt is --ckpt-mode none;
    // given with --ckpt-mode they must agree.
    void ckpt_mode();
    void fused_kernels();

    // --chunked-loss is the older spelling of --loss chunked; both name one
    // setting, so they must agree.
    void loss();

    // --- embedding and reranker models (workload_embedding.cpp) ------------------
    // The fields that mean nothing for one forward per sequence, refused by name.
    void pooling_fields();
    // --seq (or --context) tokens per sequence and the batch, with their defaults.
    void pooling_tokens();

    // --- tokens --------------------------------------------------------------------
    // Called only for a field that was given.
    std::int64_t positive(Field f, std::int64_t max) const;

    void tokens();

    // Any two of --seq, --prompt and --gen determine the third; the default
    // context is 4096 tokens with a quarter (at most 512) generated.
    void inference_tokens();

    // --users or --rps as the batch, and the latency targets (workload_load.cpp).
    void serving_load();
    // The field the context was given with: --context or --seq.
    Field seq_field() const;

    // --- LoRA ------------------------------------------------------------------------
    std::vector<LoraTarget> lora_targets(const Arg& a) const;

    void lora();

    // --- inference settings -------------------------------------------------------------
    void inference_settings();

    // --- speculative decoding (workload_draft.cpp) -----------------------------------
    // --draft, --draft-tokens and --draft-acceptance: the draft, its tokens a
    // step and the acceptance rate, each default with its source.
    void speculation();
    Model draft_model(const Arg& a) const;
    Model mtp_model(const Arg& a) const;

    // --- GPUs -------------------------------------------------------------------------------
    void gpus();

    // --tp, --pp, --cp, --ep, --vpp fix a layout that splits the model; with
    // --gpus it is checked against the count now, else against each plan's.
    void layout();

    bool layout_given() const;

    std::string layout_origin() const;

    void estimator();

    const Request& r_;
    const ModelInputs& in_;
    const std::vector<ModelPreset>& presets_;
    const TaskPreset* task_ = nullptr;
    Workload w_;
};

}  // namespace gpuadvise::workload_detail
