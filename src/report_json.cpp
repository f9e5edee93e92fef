#include "gpuadvise/report_json.hpp"

#include <cmath>

#include "gpuadvise/build_sheet.hpp"
#include "gpuadvise/report_load.hpp"
#include "gpuadvise/report_suggest.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/units.hpp"
#include "report_json_common.hpp"

namespace gpuadvise {

std::optional<double> rounded_rate(const std::optional<double>& v) {
    if (!v || !std::isfinite(*v)) return std::nullopt;
    const double digits = std::max(0.0, 2.0 - std::floor(std::log10(std::max(*v, 1e-9))));
    const double scale = std::pow(10.0, std::min(digits, 6.0));
    const double r = std::round(*v * scale) / scale;
    return std::isfinite(r) ? std::optional<double>(r) : std::nullopt;
}

void write_strings(json::Writer& w, std::string_view key, const std::vector<std::string>& list) {
    w.key(key).begin_array();
    for (const auto& s : list) w.value(s);
    w.end_array();
}

namespace {

// An image generation or vision workload: the model, its family and the
// picture's settings instead of a language model's shape and tokens.
void write_image_workload(json::Writer& j, const Workload& w) {
    const ImageSettings& s = w.image;
    const bool diffusion = w.is_diffusion();
    j.begin_object();
    j.field("model", w.model.name);
    j.field("model_origin", to_string(w.model.origin));
    j.field("family", kImageFamilies.name(w.model.image->family));
    j.field("params", w.model.params);
    j.field("method", to_string(w.method));
    j.field("precision", to_string(w.precision));
    j.field("quant", w.quant.text());
    j.field("batch", w.batch);
    j.field("width", s.width);
    j.field("height", s.height);
    j.field("steps", diffusion ? std::optional<std::int64_t>(s.steps) : std::nullopt);
    // Video generation (added in 0.5.0): the clip's frames, its latent frames
    // and the tokens the denoiser attends over; null for images.
    const bool clip = w.generates_video();
    const DiffusionModel* d = diffusion ? &*w.model.image->diffusion : nullptr;
    j.field("frames", clip ? std::optional<std::int64_t>(s.frames) : std::nullopt);
    j.field("latent_frames",
            clip ? std::optional<std::int64_t>(latent_frames(*d, s.frames)) : std::nullopt);
    j.field("video_tokens",
            clip ? std::optional<std::int64_t>(image_tokens(*d, s.width, s.height, s.frames))
                 : std::nullopt);
    j.field("video_fps", clip ? std::optional<double>(d->video->fps) : std::nullopt);
    j.field("cpu_offload", kCpuOffloads.name(s.offload));
    j.field("image_setup", kImageSetups.name(s.setup));  // added in issue 27
    j.field("vae_tiling", s.vae_tiling);
    j.field("channels_last", s.channels_last);  // added in issue 27
    j.field("streams", s.streams);
    j.field("fps", s.streams > 0 ? std::optional<double>(s.fps) : std::nullopt);
    j.key("codec");
    if (s.streams > 0)
        j.value(kCodecs.name(s.codec));
    else
        j.null();
    j.field("mixed_precision", to_string(w.mixed));
    j.field("optimizer",
            w.trains() ? std::optional<std::string_view>(to_string(w.optimizer)) : std::nullopt);
    j.field("flash_attn", w.flash_attn);
    j.field("gpus", w.gpus);
    j.field("parallel", to_string(w.parallel));
    write_strings(j, "assumed", w.assumed);
    write_strings(j, "warnings", w.warnings);
    j.end_object();
}

}  // namespace

namespace {

// "draft": speculative decoding's draft, its tokens a step and acceptance
// rate with where each came from, or null.
void write_draft(json::Writer& j, const Workload& w) {
    j.key("draft");
    if (!w.speculation) {
        j.null();
        return;
    }
    const Speculation& s = *w.speculation;
    j.begin_object();
    j.field("model", s.draft.name);
    j.field("kind", kDraftKinds.name(s.kind));
    j.field("params", s.draft.params);
    j.field("draft_tokens", s.tokens);
    j.field("draft_tokens_basis", s.tokens_basis);
    j.field("draft_tokens_assumed", s.tokens_assumed);
    j.field("acceptance", std::round(s.acceptance * 1000.0) / 1000.0);
    j.field("acceptance_basis", s.acceptance_basis);
    j.field("acceptance_given", s.acceptance_given);
    j.field("weights_in_model", s.weights_in_target);
    j.end_object();
}

// "image_tokens" (what the images add to each sequence, 0 without) and
// "images": what each image became, or null.
void write_images(json::Writer& j, const Workload& w) {
    const PromptImages& im = w.images;
    j.field("image_tokens", im.tokens());
    j.key("images");
    if (!im.any()) {
        j.null();
        return;
    }
    const ImageTokens& t = im.each;
    j.begin_object();
    j.field("count", im.count);
    j.field("width", im.width);
    j.field("height", im.height);
    j.field("size_assumed", im.size_assumed);
    j.field("mechanism", image_input_name(w.model.arch.vision.input));
    j.field("resized_width", t.width);
    j.field("resized_height", t.height);
    j.field("tokens_per_image", t.tokens);
    j.field("patches_per_image", t.patches);
    j.field("tiles_per_image", t.tiles > 0 ? std::optional<std::int64_t>(t.tiles) : std::nullopt);
    j.field("cross_attention_tokens", im.cross_tokens());
    j.end_object();
}

}  // namespace

void write_workload(json::Writer& j, const Workload& w) {
    const Architecture& a = w.model.arch;
    if (w.is_image()) {
        write_image_workload(j, w);
        return;
    }
    j.begin_object();
    if (w.is_fixed()) {
        j.field("task", w.model.name);
        j.field("requirement_bytes", *w.fixed_bytes);
        write_strings(j, "assumed", w.assumed);
        write_strings(j, "warnings", w.warnings);
        j.end_object();
        return;
    }
    j.field("model", w.model.name);
    j.field("model_origin", to_string(w.model.origin));
    j.field("params", w.model.params);
    j.field("active_params", w.model.active_params);
    if (w.model.weight_bytes) {
        j.field("weight_bytes", *w.model.weight_bytes);
        j.field("file_quantization", w.model.file_quantization);
    }
    j.key("architecture").begin_object();
    j.field("model_type", a.model_type);
    j.field("layers", a.total_layers());
    j.field("hidden", a.hidden);
    j.field("intermediate", a.intermediate);
    j.field("heads", a.heads);
    j.field("kv_heads", a.kv_heads);
    j.field("head_dim", a.head_dim);
    j.field("vocab", a.vocab);
    j.field("experts", a.experts);
    j.field("experts_per_token", a.experts_per_token);
    j.field("tied_embeddings", a.tied_embeddings);
    j.field("task", to_string(a.task));
    j.field("classifier_labels", a.classifier_labels);
    j.field("inferred", a.inferred);
    j.field("max_position",
            a.max_position > 0 ? std::optional<std::int64_t>(a.max_position) : std::nullopt);
    j.field("sliding_window", a.sliding_window);
    j.field("sliding_layers", a.sliding_layers);
    j.field("kv_layers", a.kv_layers());
    j.end_object();
    j.field("method", to_string(w.method));
    j.field("precision", to_string(w.precision));
    j.field("quant", w.quant.text());
    j.field("double_quant", w.double_quant);
    j.field("batch", w.batch);
    j.field("seq", w.seq);
    if (!w.trains()) {
        j.field("prompt", w.prompt);
        j.field("gen", w.gen);
        j.field("kv_dtype", to_string(w.kv_dtype));
        j.field("engine", w.engine ? w.engine->id : std::string_view("none"));
        j.field("mixed_precision", to_string(w.mixed));
        write_draft(j, w);
    } else {
        j.field("mixed_precision", to_string(w.mixed));
        j.field("optimizer", to_string(w.optimizer));
        j.field("optimizer_in_backward", w.optimizer_in_backward);
        j.field("optimizer_impl", to_string(w.optimizer_impl));
        j.field("grad_ckpt", w.grad_ckpt);
        j.field("ckpt_mode", to_string(w.ckpt_mode));
        j.field("grad_accum", w.grad_accum);
        j.field("chunked_loss", w.loss == Loss::Chunked);
        j.field("loss", to_string(w.loss));
        j.field("packing", w.packing);
        j.field("fused_kernels", w.fused_kernels);
    }
    if (w.uses_lora()) {
        j.field("lora_rank", w.lora_rank);
        j.field("lora_targets", lora_targets_text(w));
    }
    j.field("flash_attn", w.flash_attn);
    j.field("gpus", w.gpus);
    j.field("parallel", to_string(w.parallel));
    j.field("estimator", to_string(w.estimator));
    write_images(j, w);
    write_strings(j, "assumed", w.assumed);
    write_strings(j, "warnings", w.warnings);
    j.end_object();
}

// "calibrated_from": the user's calibration that corrected the estimate, or null.
void write_calibrated(json::Writer& j, const std::optional<CalibrationMatch>& c, bool memory) {
    j.key("calibrated_from");
    if (!c) {
        j.null();
        return;
    }
    j.begin_object().field("file", c->source);
    j.field("records", memory ? c->memory_records : c->speed_records);
    j.field("factor", std::round((memory ? c->memory_factor : c->speed_factor) * 1000.0) / 1000.0);
    j.end_object();
}

void write_memory(json::Writer& j, const MemoryEstimate& m) {
    j.begin_object();
    j.field("estimator", kEstimatorsUsed.name(m.estimator));
    j.field("per_gpu_bytes", m.per_gpu_bytes);
    j.field("allocated_bytes", m.allocated_bytes);
    j.field("reserved_bytes", m.reserved_bytes);
    j.field("total_bytes", m.total_bytes);
    j.key("components").begin_object();
    for (std::size_t i = 0; i < kComponentNames.size(); ++i)
        j.field(kComponentNames[i].key, m.bytes[i]);
    j.end_object();
    j.field("trainable_params", m.trainable_params);
    j.field("paged_optimizer_bytes", m.paged_optimizer_bytes);
    j.field("host_bytes", m.host_bytes);
    j.key("range");
    if (m.band) {
        // [low, high] bytes: the estimate times the band's p10 and p90 ratios.
        const auto pair = [&](std::string_view key, std::uint64_t v) {
            j.key(key).begin_array();
            j.value(to_bytes(static_cast<double>(v) * m.band->first));
            j.value(to_bytes(static_cast<double>(v) * m.band->second));
            j.end_array();
        };
        j.begin_object();
        pair("allocated_bytes", m.allocated_bytes);
        pair("reserved_bytes", m.reserved_bytes);
        pair("per_gpu_bytes", m.per_gpu_bytes);
        j.end_object();
    } else {
        j.null();
    }
    write_calibrated(j, m.calibrated, true);
    write_strings(j, "notes", m.notes);
    j.end_object();
}

namespace {

void write_launch(json::Writer& j, const Launch* launch) {
    if (!launch) return;
    j.key("launch").begin_object();
    j.field("tool", kLaunchKinds.name(launch->kind)).field("program", launch->tool);
    j.field("command", launch->command);
    j.key("config");
    if (launch->config_name.empty())
        j.null();
    else
        j.begin_object()
            .field("file", launch->config_name)
            .field("text", launch->config)
            .end_object();
    write_strings(j, "notes", launch->notes);
    j.end_object();
}

}  // namespace

namespace {

// The start every workload document shares: schema, workload, memory.
void document_head(json::Writer& j, const Workload& w, const MemoryEstimate& m) {
    j.begin_object();
    j.field("schema", kSchemaVersion);
    j.key("workload");
    write_workload(j, w);
    j.key("memory");
    write_memory(j, m);
}

}  // namespace

std::string estimate_json(const Workload& w, const MemoryEstimate& m, const Recommendation* plan,
                          const Launch* launch, bool pretty) {
    std::string out;
    json::Writer j(out, pretty);
    document_head(j, w, m);
    if (plan) {
        j.field("gpu", plan->gpu->id);
        j.key("performance");
        write_performance(j, plan->performance);
        j.key("plan");
        write_recommendation(j, *plan, 1);
    }
    write_launch(j, launch);
    j.end_object();
    return out;
}

std::string recommend_json(const Workload& w, const MemoryEstimate& m,
                           const std::vector<Recommendation>& recs, std::size_t top,
                           const RankOptions& options, const std::optional<DocumentPick>& pick,
                           const Launch* launch, bool pretty) {
    std::string out;
    json::Writer j(out, pretty);
    document_head(j, w, m);
    j.field("rank_by", to_string(options.rank_by));
    if (options.budget_basis == BudgetBasis::None)
        j.key("budget_basis").null();
    else
        j.field("budget_basis", kBudgetBases.name(options.budget_basis));
    j.field("pricing", options.rent ? "rent" : "buy");
    j.key("recommendations").begin_array();
    for (std::size_t i = 0; i < recs.size() && i < top; ++i)
        write_recommendation(j, recs[i], i + 1);
    j.end_array();
    j.key("document_pick");
    if (pick) {
        j.begin_object();
        j.field("gpu", pick->gpu->id).field("reason", pick->reason);
        j.field("rank", pick->rank ? std::optional<std::uint64_t>(*pick->rank) : std::nullopt);
        j.field("fits", pick->plan.fits).field("count", pick->plan.count);
        write_strings(j, "why", pick->plan.reasons);
        j.end_object();
    } else {
        j.null();
    }
    write_launch(j, launch);
    j.end_object();
    return out;
}

std::string check_json(const Workload& w, const Recommendation& rec, const Launch* launch,
                       bool pretty) {
    std::string out;
    json::Writer j(out, pretty);
    document_head(j, w, rec.memory);
    // The same shape as estimate --gpu; "check" repeats the plan for the
    // scripts written against the first version of this document.
    j.field("gpu", rec.gpu->id);
    j.key("performance");
    write_performance(j, rec.performance);
    j.key("plan");
    write_recommendation(j, rec, 1);
    j.key("check");
    write_recommendation(j, rec, 1);
    write_launch(j, launch);
    j.end_object();
    return out;
}

std::string fit_json(const std::string& label, std::span<const Gpu* const> cards,
                     const FitResult& result, const FitOptions& fit, std::size_t top) {
    std::string out;
    json::Writer j(out);
    j.begin_object().field("schema", kSchemaVersion).field("gpu", label);
    j.key("cards").begin_array();
    for (const Gpu* g : cards)
        j.begin_object().field("id", g->id).field("memory_bytes", g->memory_bytes).end_object();
    j.end_array();
    j.field("min_context_tokens", fit.min_context);
    j.field("ranked_by", fit.by_speed ? "speed" : "quality");
    j.key("models").begin_array();
    for (std::size_t i = 0; i < result.rows.size() && i < top; ++i) {
        const FitRow& f = result.rows[i];
        const Recommendation& p = f.plan;
        j.begin_object();
        j.field("model", f.model).field("params", f.workload.model.params);
        j.field("file", f.file.empty() ? std::nullopt : std::optional<std::string_view>(f.file));
        j.field("released",
                f.released.empty() ? std::nullopt : std::optional<std::string_view>(f.released));
        j.field("quant", f.quant)
            .field("bits_per_weight", std::round(f.bits_per_weight * 100) / 100);
        j.field("engine", p.engine ? std::optional<std::string_view>(p.engine->id) : std::nullopt);
        j.field("fits", p.fits);
        const bool off = p.offload && p.offload->mode != OffloadMode::Gpu;
        j.field("fit", off ? std::string_view("offload") : fit_word(p));
        write_offload(j, off ? &*p.offload : nullptr);
        j.field("per_gpu_bytes", p.memory.per_gpu_bytes).field("usable_bytes", p.usable_bytes);
        const Limits l = p.limits.value_or(Limits{});
        j.field("max_context_tokens", l.max_context_tokens);
        j.field("context_capped_by_model", l.context_capped_by_model);
        j.field("max_batch", l.max_batch);
        j.field("decode_tokens_per_s", rounded_rate(p.performance.decode_tokens_per_s));
        j.field("prefill_tokens_per_s", rounded_rate(p.performance.prefill_tokens_per_s));
        write_strings(j, "reasons", p.reasons);
        write_strings(j, "warnings", p.warnings);
        j.end_object();
    }
    j.end_array();
    write_strings(j, "left_out", result.left_out);
    j.end_object();
    return out;
}

}  // namespace gpuadvise
