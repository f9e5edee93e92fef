// Reports for people: the same values as report.cpp's JSON, laid out as
// tables (table.hpp renders them aligned, as CSV or as Markdown).
#include "gpuadvise/report_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cmath>

#include "gpuadvise/build_sheet.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

double gib(std::uint64_t b) {
    return static_cast<double>(b) / static_cast<double>(kGiB);
}

std::string shape_text(const Architecture& a) {
    std::string s =
        fmt::format("{} layers, hidden {}, {} heads / {} KV heads, FFN {}, vocab {}",
                    a.total_layers(), a.hidden, a.heads, a.kv_heads, a.intermediate, a.vocab);
    if (a.is_moe())
        s += fmt::format(", {} experts ({} active, FFN {})", a.experts, a.experts_per_token,
                         a.moe_intermediate);
    return s;
}

std::string heading(const std::string& text, Format format, const Style& style) {
    if (format == Format::Markdown) return "## " + text + "\n\n";
    return paint(text, "1", style.color) + "\n";
}

std::string section(const Table& t, Format format, const Style& style) {
    std::string body = render(t, format, style);
    if (format == Format::Table) {
        // indent aligned tables under their heading
        std::string indented;
        std::size_t start = 0;
        while (start < body.size()) {
            const std::size_t end = body.find('\n', start);
            indented += "  " + body.substr(start, end - start) + "\n";
            start = end + 1;
        }
        return indented;
    }
    return body;
}

// Prose around the tables, wrapped to a narrow terminal (never Markdown,
// whose reader wraps it).
std::string prose(const std::string& text, Format format, const Style& style) {
    return format == Format::Table ? wrap(text, style.width) : text;
}

}  // namespace

std::string format_rate(const std::optional<double>& v) {
    const auto r = rounded_rate(v);
    if (!r) return "-";
    return *r >= 100 ? fmt::format("{:.0f}", *r) : fmt::format("{:.3g}", *r);
}

Table memory_table(const MemoryEstimate& m) {
    Table t;
    static constexpr NarrowStep kNarrowing[] = {{"Bytes"}};
    t.columns = {{"Component"}, {"GiB", true}, {"Bytes", true}};
    t.narrowing = kNarrowing;
    for (std::size_t i = 0; i < kComponentNames.size(); ++i) {
        if (m.bytes[i] == 0) continue;
        t.rows.push_back({std::string(kComponentNames[i].label),
                          fmt::format("{:.2f}", gib(m.bytes[i])), std::to_string(m.bytes[i])});
    }
    t.rows.push_back({"total per GPU",
                      m.band ? fmt::format("{:.2f} ({:.1f}-{:.1f})", gib(m.per_gpu_bytes),
                                           gib(m.per_gpu_bytes) * m.band->first,
                                           gib(m.per_gpu_bytes) * m.band->second)
                             : fmt::format("{:.2f}", gib(m.per_gpu_bytes)),
                      std::to_string(m.per_gpu_bytes)});
    t.rows.push_back({"allocated", fmt::format("{:.2f}", gib(m.allocated_bytes)),
                      std::to_string(m.allocated_bytes)});
    if (m.reserved_bytes != m.allocated_bytes)
        t.rows.push_back({"reserved", fmt::format("{:.2f}", gib(m.reserved_bytes)),
                          std::to_string(m.reserved_bytes)});
    if (m.total_bytes != m.per_gpu_bytes)
        t.rows.push_back(
            {"all GPUs", fmt::format("{:.2f}", gib(m.total_bytes)), std::to_string(m.total_bytes)});
    if (m.paged_optimizer_bytes > 0)
        t.rows.push_back({"paged optimizer (host-backed)",
                          fmt::format("{:.2f}", gib(m.paged_optimizer_bytes)),
                          std::to_string(m.paged_optimizer_bytes)});
    if (m.host_bytes > 0)
        t.rows.push_back({"host memory (training offload)",
                          fmt::format("{:.2f}", gib(m.host_bytes)), std::to_string(m.host_bytes)});
    return t;
}

Table performance_table(const Performance& p) {
    Table t;
    t.columns = {{"Measure"}, {"Value", true}};
    const auto add = [&](const char* name, const std::optional<double>& v, const char* unit) {
        if (v) t.rows.push_back({name, format_rate(v) + unit});
    };
    t.rows.push_back({"bound", std::string(kBounds.name(p.bound))});
    // The matmul rate the speeds rest on and where it comes from (attainable.hpp).
    if (p.matmul_rate && p.matmul_rate->tflops) {
        const AttainableRate& r = *p.matmul_rate;
        t.rows.push_back(
            {"matmul rate", fmt::format("{} TFLOPS {}, {} (datasheet {})", format_rate(r.tflops),
                                        kRateDtypes.name(r.dtype), kRateBases.name(r.basis),
                                        format_rate(std::optional<double>(r.peak)))});
    }
    add("decode", p.decode_tokens_per_s, " tok/s");
    if (p.speculative) {
        // An estimate that rests on the acceptance rate (speculative.hpp).
        const SpeculativeRate& r = *p.speculative;
        t.rows.push_back({"with draft", fmt::format("{} tokens a step (K {}, acceptance {:.2f}): "
                                                    "an estimate",
                                                    format_rate(r.tokens_per_step), r.draft_tokens,
                                                    r.acceptance)});
        add("without draft", std::optional<double>(r.without_tokens_per_s), " tok/s");
    }
    // An embedding or reranker model: sequences a second, their tokens, a batch's latency.
    add("sequences", p.sequences_per_s, " seq/s");
    add(p.sequences_per_s ? "tokens" : "prefill", p.prefill_tokens_per_s, " tok/s");
    add("per batch", p.batch_seconds, " s");
    add("time to first token", p.time_to_first_token_s, " s");
    add("of it, image encoding", p.image_encode_seconds, " s");
    add("training", p.train_tokens_per_s, " tok/s");
    // A video plan's images are frames of its streams.
    add(p.streams_max ? "frames" : "images", p.images_per_s,
        p.streams_max ? " frames/s" : " img/s");
    if (!p.streams_max) add("per image", p.seconds_per_image, " s");
    // Video generation: the clip, and the frames a second that makes.
    add("per clip", p.seconds_per_clip, " s");
    add("generation", p.video_frames_per_s, " frames/s");
    add("denoising step", p.denoise_step_seconds, " s");
    add("streams", p.streams_max, " at the frame rate");
    add("step", p.step_seconds, " s");
    if (p.micro_step_seconds && p.step_seconds && *p.micro_step_seconds < *p.step_seconds * 0.999)
        add("micro-step", p.micro_step_seconds, " s");
    if (p.offload_seconds > 0)
        add("host offload", std::optional<double>(p.offload_seconds), " s per step");
    if (p.job_tokens && *p.job_tokens < 1.8e19)
        t.rows.push_back({"job tokens", format_count(static_cast<std::uint64_t>(*p.job_tokens))});
    add("job", p.job_hours, " h");
    add("days", p.days, "");
    add("GPU-hours", p.gpu_hours, "");
    add("job cost", p.job_cost_usd, " USD");
    add("energy", p.energy_kwh, " kWh");
    add("serving cost", p.usd_per_million_tokens, " USD per 1M tokens");
    return t;
}

namespace {

// The image or vision model and its settings, for the Workload section.
std::string image_workload_text(const Workload& w) {
    const ImageModel& im = *w.model.image;
    const ImageSettings& s = w.image;
    std::string out =
        fmt::format("  model      {} ({} parameters, {})\n", sanitize(w.model.name, 120),
                    format_count(w.model.params), kImageFamilies.name(im.family));
    if (im.diffusion) {
        const DiffusionModel& d = *im.diffusion;
        std::string encoders;
        for (const TextEncoder& t : d.text_encoders)
            encoders += fmt::format("{}{} {}", encoders.empty() ? "" : " + ", t.name,
                                    format_count(t.params));
        out += fmt::format("  pipeline   {} {}{}, text {}, VAE {}\n",
                           kDenoiserKinds.name(d.denoiser), format_count(d.denoiser_params),
                           w.quant.none() ? "" : fmt::format(" in {}", w.quant.text()),
                           encoders.empty() ? "none" : encoders, format_count(d.vae_params));
        out += fmt::format("  image      {}x{}, batch {}, {} steps{}, offload {}{}, compute {}{}\n",
                           s.width, s.height, w.batch, s.steps,
                           d.cfg ? " with guidance (2 x batch)" : "", kCpuOffloads.name(s.offload),
                           s.vae_tiling ? ", VAE tiling" : "", to_string(w.precision),
                           s.setup == ImageSetup::Comfyui ? ", in ComfyUI" : "");
    } else {
        out += fmt::format("  {}  {}x{}, batch {}, compute {}{}{}\n",
                           w.trains() ? "training " : "inference", s.width, s.height, w.batch,
                           to_string(w.precision), s.channels_last ? " channels-last" : "",
                           w.trains() ? fmt::format(", optimizer {}, mixed precision {}",
                                                    to_string(w.optimizer), to_string(w.mixed))
                                      : std::string());
    }
    if (s.streams > 0)
        out += fmt::format("  video      {} streams at {:g} fps, {} encode\n", s.streams, s.fps,
                           kCodecs.name(s.codec));
    if (w.generates_video()) {
        const DiffusionModel& d = *im.diffusion;
        out += fmt::format(
            "  clip       {} frames ({:.3g} s at {:g} fps), {} latent frames, {} tokens\n",
            s.frames, static_cast<double>(s.frames) / d.video->fps, d.video->fps,
            latent_frames(d, s.frames),
            format_count(static_cast<std::uint64_t>(image_tokens(d, s.width, s.height, s.frames))));
    }
    if (w.gpus > 1)
        out += fmt::format("  gpus       {} ({})\n", w.gpus,
                           w.trains() ? "ddp" : "one replica per GPU");
    for (std::size_t i = 0; i < w.assumed.size(); ++i)
        out += fmt::format("  {}{}\n", i == 0 ? "assumed    " : "           ", w.assumed[i]);
    for (const auto& warning : w.warnings)
        out += fmt::format("  warning    {}\n", sanitize(warning));
    return out;
}

}  // namespace

std::string workload_text(const Workload& w) {
    const Architecture& a = w.model.arch;
    std::string out;
    if (w.is_image()) return image_workload_text(w);
    if (w.is_fixed()) {
        out += fmt::format("  task       {}\n", sanitize(w.model.name, 120));
        for (const auto& x : w.assumed) out += fmt::format("  assumed    {}\n", x);
        return out;
    }
    out +=
        fmt::format("  model      {} ({} parameters{})\n", sanitize(w.model.name, 120),
                    format_count(w.model.params),
                    w.model.active_params != w.model.params
                        ? fmt::format(", {} active per token", format_count(w.model.active_params))
                        : "");
    out += fmt::format("  shape      {}{}\n", sanitize(shape_text(a)),
                       a.inferred ? " (inferred from the size)" : "");
    if (w.model.weight_bytes)
        out += fmt::format("  file       {} weights, {:.2f} GiB exactly ({:.2f} bits/weight)\n",
                           sanitize(w.model.file_quantization, 40), gib(*w.model.weight_bytes),
                           8.0 * static_cast<double>(*w.model.weight_bytes) /
                               static_cast<double>(std::max<std::uint64_t>(w.model.params, 1)));
    std::string method(to_string(w.method));
    if (!w.quant.none())
        method += fmt::format(", base weights {} ({:.2f} bits/weight{})", w.quant.text(),
                              8.0 * weight_bytes_per_param(w.quant, w.precision, w.double_quant),
                              w.double_quant ? ", double quantisation" : "");
    method += fmt::format(", compute {}", to_string(w.precision));
    out += fmt::format("  method     {}\n", method);
    if (w.trains()) {
        out += fmt::format(
            "  training   batch {} x seq {}{}{}, grad-ckpt {}, optimizer {}, mixed precision {}\n",
            w.batch, w.seq, w.packing ? " packed" : "",
            w.grad_accum > 1 ? fmt::format(" x {} accumulated", w.grad_accum) : std::string(),
            w.ckpt_mode == CkptMode::Full   ? std::string_view("on")
            : w.ckpt_mode == CkptMode::None ? std::string_view("off")
                                            : to_string(w.ckpt_mode),
            to_string(w.optimizer), to_string(w.mixed));
    } else if (w.embeds()) {
        out += fmt::format(
            "  {:<11}batch {} x {} tokens, one forward per sequence (no KV cache), "
            "engine {}\n",
            to_string(w.model.arch.task), w.batch, w.seq, w.engine ? w.engine->id : "none");
    } else {
        out += fmt::format(
            "  inference  batch {} x (prompt {} + gen {}) tokens, KV cache {}, engine {}\n",
            w.batch, w.prompt, w.gen, to_string(w.kv_dtype), w.engine ? w.engine->id : "none");
    }
    if (w.speculation) {
        const Speculation& s = *w.speculation;
        out += fmt::format(
            "  draft      {} ({} parameters{}), {} token{} a step, acceptance {:.2f}{}\n",
            sanitize(s.draft.name, 80), format_count(s.draft.params),
            s.mtp() ? fmt::format(", {} MTP layer{}", s.draft.arch.layers,
                                  s.draft.arch.layers == 1 ? "" : "s")
                    : std::string(),
            s.tokens, s.tokens == 1 ? "" : "s", s.acceptance,
            s.acceptance_given ? " (given)" : " (typical, assumed)");
    }
    if (w.images.any()) {
        const ImageTokens& t = w.images.each;
        out += fmt::format(
            "  images     {} x {}x{} -> {} token{} each, {} in the {} ({}x{}, {} patches)\n",
            w.images.count, w.images.width, w.images.height, t.tokens, t.tokens == 1 ? "" : "s",
            w.images.tokens(), w.trains() ? "sequence" : "prompt", t.width, t.height, t.patches);
        if (t.cross_tokens > 0)
            out += fmt::format("             cross-attention: {} tile{}, {} keys and values each\n",
                               t.tiles, t.tiles == 1 ? "" : "s", t.cross_tokens);
    }
    if (w.uses_lora())
        out += fmt::format("  lora       rank {} on {}\n", w.lora_rank, lora_targets_text(w));
    if (w.trains() && w.loss != Loss::Upcast)
        out += fmt::format("  loss       {}\n", w.loss == Loss::Chunked ? "chunked cross-entropy"
                                                : w.loss == Loss::Fused
                                                    ? "fused linear-cross-entropy"
                                                    : "cross-entropy in the compute dtype");
    if (!w.trains() && w.mixed == MixedPrecision::Amp)
        out += "  weights    fp32 with 16-bit autocast copies\n";
    if (w.gpus > 1) out += fmt::format("  gpus       {} ({})\n", w.gpus, to_string(w.parallel));
    for (std::size_t i = 0; i < w.assumed.size(); ++i)
        out += fmt::format("  {}{}\n", i == 0 ? "assumed    " : "           ", w.assumed[i]);
    for (const auto& warning : w.warnings)
        out += fmt::format("  warning    {}\n", sanitize(warning));
    return out;
}

std::string memory_text(const MemoryEstimate& m, const Workload& w, Format format,
                        const Style& style) {
    std::string out =
        heading(fmt::format("Memory per GPU ({} estimator)", kEstimatorsUsed.name(m.estimator)),
                format, style);
    out += section(memory_table(m), format, style);
    const std::string pre = format == Format::Markdown ? "\n" : "";
    std::string notes;
    if (m.estimator == EstimatorUsed::Doc)
        notes += pre + fmt::format("  = {:.1f} GB, the source document's rule of thumb (§2.1)\n",
                                   static_cast<double>(m.per_gpu_bytes) / kGB);
    if (w.trains() && m.trainable_params > 0)
        notes += fmt::format("  trainable {} parameters\n", format_count(m.trainable_params));
    for (const auto& note : m.notes) notes += fmt::format("  note: {}\n", sanitize(note));
    return out + prose(notes, format, style);
}

std::string recommend_text(const Workload& w, const MemoryEstimate& m,
                           const std::vector<Recommendation>& recs, std::size_t top,
                           const RankOptions& options, std::size_t catalog_size, Format format,
                           const Style& style, bool plot) {
    const Table ranked = recommendations_table(w, recs, top, style);
    if (format == Format::Csv) return render_csv(ranked);
    std::string out = heading("Workload", format, style);
    out += format == Format::Markdown ? "```\n" + workload_text(w) + "```\n\n"
                                      : prose(workload_text(w), format, style) + "\n";
    out += memory_text(m, w, format, style) + "\n";
    std::size_t fitting = 0;
    for (const auto& r : recs) fitting += r.fits ? 1 : 0;
    out += heading(prose(fmt::format("GPUs {} (top {} of {}; {} can run it)",
                                     options.keep_order
                                         ? std::string("in the order given (--keep-order)")
                                         : fmt::format("ranked by {}", to_string(options.rank_by)),
                                     std::min(top, recs.size()), catalog_size, fitting),
                         format, style),
                   format, style);
    if (options.budget_basis == BudgetBasis::HaveHostAssumed && options.budget_usd)
        out += prose(fmt::format("Assuming you own the computer (--have-host): no plan fits "
                                 "${:.0f} once a computer is counted, so the budget is the "
                                 "cards'.\n",
                                 *options.budget_usd),
                     format, style);
    out += render(ranked, format, style);
    // A second-hand price is not a new card's: the plans priced used say so.
    if (const std::string used = used_price_note(recs, top); !used.empty())
        out += prose(used, format, style);
    if (format == Format::Table) {
        // The bars' key only when a narrow terminal left the bars in.
        const auto shown = shown_columns(ranked, style.width);
        if (std::find(shown.begin(), shown.end(), "Use") != shown.end())
            out += bars_legend(style.bars);
    }
    if (plot) out += "\n" + price_speed_plot(w, recs, top, format, style);
    std::string sheet;
    if (!recs.empty() && top > 0) {
        const Recommendation& best = recs.front();
        const BuildSheet b = build_sheet(*best.gpu, best.count, best.platform);
        out +=
            "\n" + heading(prose(fmt::format("Build sheet for #1 ({})", sanitize(plan_label(best))),
                                 format, style),
                           format, style);
        const std::string bullet = format == Format::Markdown ? "- " : "  ";
        if (!b.platform.empty())
            sheet += fmt::format("{}platform  {}\n", bullet, sanitize(b.platform));
        sheet += fmt::format("{}power     {}\n{}host      {}\n{}software  {}\n", bullet,
                             b.power_note, bullet, b.host_link_note, bullet, sanitize(b.software));
        if (best.engine)
            sheet += fmt::format("{}engine    {}\n", bullet, sanitize(best.engine->name));
        if (const auto months = best.buy_beats_rent_months)
            sheet += fmt::format(
                "{}rent      ${:.2f}/h (data/cloud_prices.json median); buying (${:.0f}, power "
                "counted) costs less after {:.1f} months of round-the-clock use\n",
                bullet, best.rent_usd_per_hour, best.total_usd, *months);
        for (const auto& x : best.warnings)
            sheet += fmt::format("{}warning   {}\n", bullet, sanitize(x));
        for (const auto& x : best.tips)
            sheet += fmt::format("{}tip       {}\n", bullet, sanitize(x));
    }
    if (fitting == 0)
        sheet +=
            "\nNo card in the catalog runs this workload within the plan sizes tried; the closest "
            "misses are listed.\n";
    return out + prose(sheet, format, style);
}

std::string_view verdict_text(const Recommendation& rec) {
    return !rec.fits ? "does not fit" : rec.tight ? "fits (tight)" : "fits";
}

std::string plan_notes_text(const Recommendation& rec, Format format, bool with_reasons) {
    const std::string bullet = format == Format::Markdown ? "- " : "  ";
    std::string out;
    if (rec.offload && rec.offload->mode != OffloadMode::Gpu) {
        const OffloadPlan& o = *rec.offload;
        out +=
            fmt::format("{}offload   {} of {} layers on the GPU (-ngl {}){}; {} in host memory\n",
                        bullet, o.gpu_layers, o.total_layers, o.ngl(),
                        o.host_expert_layers > 0
                            ? fmt::format(", experts of {} layers on the host (--n-cpu-moe {})",
                                          o.host_expert_layers, o.host_expert_layers)
                            : "",
                        format_gib(o.host_bytes));
    }
    if (rec.limits) {
        const Limits& l = *rec.limits;
        out += fmt::format(
            "{}limits    longest context {} tokens{} at batch {}; largest batch {} at {} "
            "tokens\n",
            bullet, l.max_context_tokens,
            l.context_capped_by_model ? " (the model's trained length)" : "", l.at_batch,
            l.max_batch, l.at_context_tokens);
    }
    if (rec.platform) out += fmt::format("{}platform  {}\n", bullet, sanitize(rec.platform->name));
    if (rec.engine) out += fmt::format("{}engine    {}\n", bullet, sanitize(rec.engine->name));
    if (with_reasons)
        for (const auto& x : rec.reasons)
            out += fmt::format("{}reason    {}\n", bullet, sanitize(x));
    for (const auto& x : rec.warnings) out += fmt::format("{}warning   {}\n", bullet, sanitize(x));
    for (const auto& x : rec.tips) out += fmt::format("{}tip       {}\n", bullet, sanitize(x));
    return out.empty() ? out : "\n" + out;
}

std::string document_pick_text(const DocumentPick& pick, const std::vector<Recommendation>& recs,
                               Format format) {
    const Recommendation& p = pick.plan;
    std::string out = "\n" + heading("The source document's pick", format, Style{});
    const std::string bullet = format == Format::Markdown ? "- " : "  ";
    out += fmt::format("{}{}{}: {}\n", bullet, p.count > 1 ? fmt::format("{} x ", p.count) : "",
                       sanitize(pick.gpu->id), sanitize(pick.reason));
    if (!recs.empty() && recs.front().gpu == pick.gpu) {
        out += fmt::format("{}ours agrees: it ranks #1\n", bullet);
        return out;
    }
    if (!pick.rank) {
        out += fmt::format("{}not in our ranking (left out by a filter or region)\n", bullet);
    } else if (!p.fits) {
        out += fmt::format("{}ours: #{}, it does not fit: {}\n", bullet, *pick.rank,
                           p.reasons.empty() ? "rejected by a rule" : sanitize(p.reasons.front()));
    } else {
        const Recommendation& best = recs.front();
        out += fmt::format("{}ours: #{} ({}); #1 is {}{}\n", bullet, *pick.rank,
                           p.reasons.empty() ? "fits" : sanitize(p.reasons.front()),
                           best.count > 1 ? fmt::format("{} x ", best.count) : "",
                           sanitize(best.gpu->id));
        if (best.performance.rate() && p.performance.rate() && best.total_usd > 0 &&
            p.total_usd > 0)
            out += fmt::format("{}#1 gives {:.0f} % of its speed at {:.0f} % of its system price\n",
                               bullet, 100.0 * *best.performance.rate() / *p.performance.rate(),
                               100.0 * best.total_usd / p.total_usd);
    }
    return out;
}

std::string explain_text(const std::vector<Recommendation>& recs, std::size_t top) {
    std::string out;
    for (std::size_t i = 0; i < recs.size() && i < top; ++i) {
        out += fmt::format("\n#{} {} x{} ({}):\n", i + 1, sanitize(recs[i].gpu->id), recs[i].count,
                           to_string(recs[i].strategy));
        if (recs[i].fired.empty()) out += "  no rule fired\n";
        for (const auto& hit : recs[i].fired)
            out +=
                fmt::format("  [{}] {}: {}\n", to_string(hit.kind), hit.id, sanitize(hit.message));
    }
    return out;
}

std::string fit_text(const std::string& label, std::span<const Gpu* const> cards,
                     const FitResult& result, const FitOptions& fit, std::size_t top, Format format,
                     const Style& style) {
    static constexpr NarrowStep kNarrowing[] = {
        {"Note", Narrow::Cut, 12}, {"Note"}, {"Prefill"}, {"Params"}};
    Table t;
    t.columns = {{"#", true},
                 {"Model"},
                 {"Params", true, "", "", count_for_people},
                 {"Quant"},
                 {"Fit"},
                 {"Max context", true},
                 {"Decode", true, "tok/s"},
                 {"Prefill", true, "tok/s"},
                 {"Note"}};
    t.narrowing = kNarrowing;
    const auto number = [](const std::optional<double>& v) {
        const std::string text = format_rate(v);
        return text == "-" ? std::string() : text;
    };
    for (std::size_t i = 0; i < result.rows.size() && i < top; ++i) {
        const FitRow& f = result.rows[i];
        const Recommendation& p = f.plan;
        std::string fitw =
            p.offload && p.offload->mode != OffloadMode::Gpu
                ? fmt::format("offload {}/{}", p.offload->gpu_layers, p.offload->total_layers)
                : std::string(fit_word(p));
        std::string note;
        if (p.offload && p.offload->mode != OffloadMode::Gpu)
            note = fmt::format("{} in host memory", format_gib(p.offload->host_bytes));
        else
            note = fmt::format("{} of {} per GPU", format_gib(p.memory.per_gpu_bytes),
                               format_gib(p.usable_bytes));
        const Limits l = p.limits.value_or(Limits{});
        t.rows.push_back(
            {std::to_string(i + 1), sanitize(f.model), std::to_string(f.workload.model.params),
             f.quant == "none" ? std::string(to_string(f.workload.precision)) : f.quant, fitw,
             fmt::format("{}{}", l.max_context_tokens, l.context_capped_by_model ? " (max)" : ""),
             number(p.performance.decode_tokens_per_s), number(p.performance.prefill_tokens_per_s),
             note});
    }
    if (format == Format::Csv) return render_csv(t);
    std::string out = heading(
        fmt::format("Models that run on {} ({} of {} {}; at least {} tokens of context)",
                    sanitize(label), result.rows.size(),
                    result.rows.size() + result.left_out.size(), result.what, fit.min_context),
        format, style);
    (void)cards;
    out += render(t, format, style);
    if (format == Format::Table) out += result.ranking + ".\n";
    if (result.rows.empty())
        out += fmt::format("None of the {} runs on it; see 'gpuadvise fit -v' for why.\n",
                           result.what);
    return out;
}

std::string launch_text(const Launch& l, std::string_view title, Format format,
                        const Style& style) {
    std::string out = "\n" + heading(fmt::format("Launch ({}{})", l.tool,
                                                 title.empty() ? "" : fmt::format(", {}", title)),
                                     format, style);
    const bool md = format == Format::Markdown;
    if (!l.config_name.empty()) {
        out += md ? fmt::format("`{}`:\n```\n{}```\n", l.config_name, l.config)
                  : fmt::format("# {}\n{}\n", l.config_name, l.config);
    }
    out += md ? fmt::format("```sh\n{}\n```\n", l.command) : l.command + "\n";
    // The command and the config are printed as they are: their quoting
    // (quoting.hpp) keeps them plain text. Notes are prose with names in them.
    for (const auto& n : l.notes) out += fmt::format("{}note: {}\n", md ? "- " : "  ", sanitize(n));
    return out;
}

std::string placement_text(const Recommendation& rec, Format format, const Style& style) {
    if (rec.placement.empty() || format == Format::Csv) return "";
    Table t;
    t.columns = {{"Card"},        {"Layers", true}, {"Share", true},
                 {"Needs", true}, {"Usable", true}, {"Fits"}};
    for (const Placement& p : rec.placement)
        t.rows.push_back({sanitize(p.gpu->id), p.layers > 0 ? std::to_string(p.layers) : "-",
                          fmt::format("{:.0f} %", 100.0 * p.share), format_gib(p.bytes),
                          format_gib(p.usable_bytes), p.bytes <= p.usable_bytes ? "yes" : "no"});
    return "\n" + heading("Placement", format, style) + render(t, format, style);
}

std::string check_text(const Recommendation& rec, Format format, const Style& style) {
    const std::string id = sanitize(rec.gpu->id);
    if (format != Format::Table) {
        Table t;
        t.columns = {
            {"fits"},  {"gpu"}, {"count", true}, {"per_gpu_bytes", true}, {"usable_bytes", true},
            {"reason"}};
        t.rows.push_back({rec.fits ? "yes" : "no", id, std::to_string(rec.count),
                          std::to_string(rec.memory.per_gpu_bytes),
                          std::to_string(rec.usable_bytes),
                          rec.reasons.empty() ? "" : rec.reasons.front()});
        return render(t, format, style);
    }
    const std::string label = sanitize(plan_label(rec));
    std::string out;
    if (rec.fits) {
        out = fmt::format("{}: {} needs {} per GPU of {} usable{}\n", verdict_text(rec), label,
                          format_gib(rec.memory.per_gpu_bytes), format_gib(rec.usable_bytes),
                          rec.placement.empty() ? "" : " on the tightest card");
    } else {
        std::string why;
        for (const auto& r : rec.reasons) why += (why.empty() ? "" : "; ") + sanitize(r);
        out = fmt::format("{}: {}: {}\n", verdict_text(rec), label, why);
    }
    // The verdict line answers; the notes below are estimate --gpu's, so the
    // two commands never disagree on what to worry about.
    return out + placement_text(rec, format, style) + plan_notes_text(rec, format, rec.fits);
}

}  // namespace gpuadvise
