// A vision-language model's vision encoder in memory (--images): the
// activations of its images at once, and what its training keeps. The
// images' tokens in the language model's sequence are the other modules'
// (they are part of the prompt and the sequence); the cross-attention state
// of Llama 3.2 Vision is the KV cache's.
#include <algorithm>

#include "gpuadvise/engines.hpp"
#include "memory_common.hpp"

namespace gpuadvise::memory_detail {

namespace {

// Images the encoder runs on at once: every image of every sequence of the
// batch, as vLLM's encoder runs the images a step schedules; llama.cpp's
// server encodes one image chunk at a time (tools/server: each image chunk
// through mtmd_helper_eval_chunk_single).
double images_at_once(const Workload& w) {
    if (!w.trains() && w.engine && w.engine->memory == MemoryPolicy::LlamaCpp) return 1.0;
    return static_cast<double>(w.batch) * static_cast<double>(w.images.count);
}

}  // namespace

double vision_encoder_peak(const Workload& w) {
    if (!w.images.any()) return 0.0;
    const VisionTower& v = w.model.arch.vision;
    const ImageTokens& t = w.images.each;
    const double act = dtype_bytes(w.precision);
    const double n = images_at_once(w);
    const double patches = n * static_cast<double>(t.patches);
    // One layer's peak over every patch (the language model's prefill count at
    // the tower's widths), and the tokens handed to the language model.
    double bytes = patches * vision_layer_elements(v) * act +
                   n * static_cast<double>(t.outputs) * static_cast<double>(v.output_hidden) * act;
    // Eager attention writes each head's scores of an image (and their fp32 softmax).
    if (!w.flash_attn)
        bytes +=
            patches * static_cast<double>(v.heads) * static_cast<double>(t.full_span) * (act + 4.0);
    return bytes;
}

double vision_training_saved(const Workload& w) {
    if (!w.images.any() || w.method != Method::Full) return 0.0;
    const VisionTower& v = w.model.arch.vision;
    const double act = dtype_bytes(w.precision);
    const double patches = images_at_once(w) * static_cast<double>(w.images.each.patches);
    const double layers = static_cast<double>(v.layers);
    const double per_layer = patches * vision_layer_elements(v) * act;
    // Full fine-tuning trains the tower: backward needs each layer's saved
    // tensors, or with checkpointing each layer's input and one layer's recompute.
    if (w.ckpt_mode == CkptMode::None) return layers * per_layer;
    return layers * patches * static_cast<double>(v.hidden) * act + per_layer;
}

}  // namespace gpuadvise::memory_detail
