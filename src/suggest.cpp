// The search behind suggest.hpp. A candidate is a set of flags; a probe is the
// user's request with those flags, resolved and evaluated as the command would
// (a refused combination is no candidate). Searches over a number (batch,
// context, cards) keep the largest, or first, value whose probe fits.
#include "gpuadvise/suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "gpuadvise/engines.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/quant.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/search.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

// Each engine kind's weight formats, largest first: the files people publish
// and download (as fit's ladders). GGUF goes below 3 bits because a 70B model
// on one 24 GB card is exactly where IQ2 files are used; the note says what
// it costs. Which of them an engine loads on a card is data (engines.json).
constexpr std::string_view kGgufLadder[] = {"q8_0",   "q6_k", "q5_k_m", "q4_k_m", "iq4_xs",
                                            "q3_k_m", "q2_k", "iq2_m",  "iq2_xs"};
constexpr std::string_view kServingLadder[] = {"fp8", "int8", "awq-int4", "gptq-int4", "nf4"};
constexpr std::string_view kExlLadder[] = {"exl2:8.0", "exl2:6.0", "exl2:5.0", "exl2:4.0",
                                           "exl2:3.0"};
constexpr std::string_view kMlxLadder[] = {"mlx-8bit", "mlx-4bit"};
// With offload or more cards a format is combined from the first rung under
// this many bits: keeping more bits only to offload more of them is slower
// than a 4-bit file that fits better (fit's kOffloadFrom, the same reason).
constexpr double kComboBits = 5.0;
// Under this many bits per weight perplexity rises steeply in llama.cpp's
// quantize table (tools/quantize/quantize.cpp, QUANT_OPTIONS): said in the note.
constexpr double kLowBits = 3.5;
// Contexts are suggested in steps of this many tokens: "--seq 7168", not 7391.
constexpr std::int64_t kContextStep = 256;
// More cards: every count up to one server's eight, then whole powers of two.
constexpr std::int64_t kCountsOfOne[] = {2, 3, 4, 5, 6, 7, 8, 16, 32, 64};

std::span<const std::string_view> ladder(const Engine& e) {
    if (e.loads(QuantFamily::Gguf) && e.memory == MemoryPolicy::LlamaCpp) return kGgufLadder;
    if (e.loads(QuantFamily::Exl)) return kExlLadder;
    if (e.loads(QuantFamily::Mlx)) return kMlxLadder;
    return kServingLadder;
}

bool fits(const Recommendation& r) {
    if (!r.fits) return false;
    return std::all_of(r.placement.begin(), r.placement.end(),
                       [](const Placement& p) { return p.bytes <= p.usable_bytes; });
}

// A candidate: the fields it sets and clears, and the words a user adds.
struct Change {
    SuggestionKind kind = SuggestionKind::Batch;
    std::vector<std::pair<Field, std::string>> set;
    std::vector<Field> clear;
    std::vector<std::string> flags;
    std::vector<std::string> replaces;
    std::int64_t count = 0;  // cards of the plan's kind; 0: the plan's own cards

    Change& with(Field f, std::string value) {
        const FieldSpec& s = spec(f);
        flags.emplace_back(s.flag);
        if (s.kind == FieldKind::Value) flags.push_back(value);
        set.emplace_back(f, std::move(value));
        return *this;
    }
};

struct Probed {
    Workload workload;
    Recommendation plan;
};

class Search {
  public:
    Search(const SuggestInputs& in, const Workload& w, std::span<const Gpu* const> cards,
           const Recommendation& missed)
        : in_(in), w_(w), cards_(cards.begin(), cards.end()), missed_(missed) {
        metric_ = w.generates_video() ? "video_frames_per_s"
                  : w.is_image()      ? "images_per_s"
                  : w.trains()        ? "train_tokens_per_s"
                  : w.embeds()        ? "sequences_per_s"
                                      : "decode_tokens_per_s";
        if (const auto& g = in.request.get(Field::Gpu)) {
            const std::string name = normalize_name(g->text);
            one_name_ = name != "local" && g->text.find(',') == std::string::npos;
        }
        uniform_ = std::all_of(cards_.begin(), cards_.end(),
                               [&](const Gpu* g) { return g == cards_.front(); });
    }

    std::vector<Suggestion> run() {
        if (cards_.empty() || w_.is_fixed() || fits(missed_)) return {};
        batch();
        context();
        quant();
        kv_cache();
        checkpointing();
        loss();
        optimizer();
        method();
        offload();
        gpus();
        std::stable_sort(out_.begin(), out_.end(), [](const Suggestion& a, const Suggestion& b) {
            return static_cast<int>(a.kind) < static_cast<int>(b.kind);
        });
        if (out_.size() > kMaxSuggestions) out_.resize(kMaxSuggestions);
        return out_;
    }

  private:
    const SuggestInputs& in_;
    const Workload& w_;
    std::vector<const Gpu*> cards_;
    const Recommendation& missed_;
    std::string_view metric_;
    bool one_name_ = false;  // --gpu names one card (copied --gpus times)
    bool uniform_ = false;
    std::vector<Suggestion> out_;
    // The first format under kComboBits the plan's engine loads, and the
    // bits of the format that fitted alone: a combination is tried only
    // where it keeps more bits than that.
    std::optional<std::string> combo_quant_;
    std::optional<double> lone_quant_bits_;

    bool combos() const {
        return combo_quant_ && (!lone_quant_bits_ || *lone_quant_bits_ < kComboBits);
    }

    bool full() const { return out_.size() >= kMaxSuggestions; }
    bool language() const { return w_.is_language(); }

    // The words the user gave for `f` (nothing for a default or a setting,
    // which a flag overrides anyway).
    std::vector<std::string> given(Field f) const {
        const auto& g = in_.request.get(f);
        if (!g || g->origin.rfind("--", 0) != 0) return {};
        const FieldSpec& s = spec(f);
        if (s.kind == FieldKind::Value) return {std::string(s.flag), g->text};
        if (s.kind == FieldKind::Toggle && g->text == "false") return {s.negative_flag()};
        return {std::string(s.flag)};
    }
    void replaces(Change& c, Field f) const {
        for (auto& word : given(f)) c.replaces.push_back(std::move(word));
    }

    // The user's command line with the change, answered as the command would.
    std::optional<Probed> probe(const Change& c) const {
        Request r = in_.request;
        for (const Field f : c.clear) r.clear(f);
        for (const auto& [f, v] : c.set) r.set(f, v, std::string(spec(f).flag));
        const bool ranking = in_.where == SuggestFor::Ranking;
        if (c.count > 0 && !ranking) r.set(Field::Gpus, std::to_string(c.count), "--gpus");
        if (c.count > 0 && ranking && in_.request.has(Field::Gpus))
            r.set(Field::Gpus, std::to_string(c.count), "--gpus");
        if (c.count > 0 && ranking && !in_.request.has(Field::Gpus))
            r.set(Field::MaxGpus, std::to_string(c.count), "--max-gpus");
        try {
            Probed p{resolve_workload(r, in_.inputs, in_.presets), {}};
            p.workload.calibration = in_.calibration;
            const Gpu& gpu = *cards_.front();
            if (ranking) {
                const RankOptions o = rank_options(r, p.workload);
                p.plan = evaluate_plan(p.workload, gpu, c.count > 0 ? c.count : missed_.count, o,
                                       nullptr, Detail::Numbers);
                return p;
            }
            // What box_cards makes of the workload and the cards.
            std::vector<const Gpu*> cards = cards_;
            if (one_name_) {
                cards.assign(static_cast<std::size_t>(p.workload.gpus), &gpu);
            } else {
                p.workload.gpus = static_cast<std::int64_t>(cards.size());
                if (p.workload.gpus > 1 && p.workload.parallel == Parallel::None)
                    p.workload.parallel = default_parallel(p.workload);
            }
            const RankOptions o = rank_options(r, p.workload);
            if (r.has(Field::MaxGpus) && !r.has(Field::Gpus) && one_name_) {
                // plan_box's search: the smallest count that fits.
                for (std::int64_t n = 1; n <= o.max_gpus; n *= 2) {
                    p.plan = evaluate_plan(p.workload, gpu, n, o, nullptr, Detail::Numbers);
                    if (fits(p.plan)) break;
                }
                return p;
            }
            p.plan = evaluate_box(p.workload, cards, o, Detail::Numbers);
            return p;
        } catch (const InputError&) {
            return std::nullopt;  // a combination the command refuses, or beyond the model's bounds
        }
    }
    std::optional<Probed> fitting(const Change& c) const {
        auto p = probe(c);
        if (!p || !fits(p->plan)) return std::nullopt;
        return p;
    }

    std::optional<double> rate(const Performance& p) const {
        std::optional<double> v = metric_ == "images_per_s"         ? p.images_per_s
                                  : metric_ == "video_frames_per_s" ? p.video_frames_per_s
                                  : metric_ == "train_tokens_per_s" ? p.train_tokens_per_s
                                  : metric_ == "sequences_per_s"    ? p.sequences_per_s
                                                                    : p.decode_tokens_per_s;
        if (v && (!std::isfinite(*v) || *v <= 0)) v.reset();
        return v;
    }

    void add(Change c, const Probed& p, std::string note) {
        Suggestion s;
        s.kind = c.kind;
        s.flags = std::move(c.flags);
        s.replaces = std::move(c.replaces);
        s.per_gpu_bytes = p.plan.memory.per_gpu_bytes;
        s.usable_bytes = p.plan.usable_bytes;
        s.tight = p.plan.tight;
        s.rate_metric = metric_;
        s.rate = rate(p.plan.performance);
        s.rate_asked = rate(missed_.performance);
        s.note = std::move(note);
        out_.push_back(std::move(s));
    }

    // --engine X where the plan runs another engine than the default the
    // workload resolved to (a card the default does not run on).
    void pin_engine(Change& c) const {
        if (!w_.engine_given && missed_.engine && missed_.engine != w_.engine)
            c.with(Field::Engine, std::string(missed_.engine->id));
    }
    bool same_engine(const Probed& p) const { return p.plan.engine == missed_.engine; }

    void batch() {
        if (full() || w_.batch <= 1) return;
        const auto change = [&](std::int64_t b) {
            Change c;
            c.kind = SuggestionKind::Batch;
            // Fewer sessions in the flag the load was given with.
            const Field f = in_.request.has(Field::Users) ? Field::Users : Field::Batch;
            replaces(c, f);
            c.with(f, std::to_string(b));
            return c;
        };
        const auto b = largest_where(
            1, w_.batch - 1, [&](std::int64_t n) { return fitting(change(n)).has_value(); });
        if (!b) return;
        const Change c = change(*b);
        if (const auto p = fitting(c))
            add(c, *p, fmt::format("the largest batch that fits (asked {})", w_.batch));
    }

    // Inference keeps --gen and shortens the prompt, in the flags the user
    // said the context with: --seq (with --prompt when both were given),
    // --prompt alone, or --seq when neither. The search runs over the value
    // of the flag that carries it (the prompt for --prompt, else the context),
    // so that value is the round one.
    bool by_prompt() const {
        return !w_.trains() && in_.request.has(Field::Prompt) && !in_.request.has(Field::Seq);
    }
    Change context_change(std::int64_t value) const {
        Change c;
        c.kind = SuggestionKind::Context;
        const Request& r = in_.request;
        if (by_prompt()) {
            replaces(c, Field::Prompt);
            c.with(Field::Prompt, std::to_string(value));
            return c;
        }
        const Field seq = r.has(Field::Context) ? Field::Context : Field::Seq;
        replaces(c, seq);
        c.with(seq, std::to_string(value));
        if (!w_.trains() && r.has(seq) && r.has(Field::Prompt)) {
            replaces(c, Field::Prompt);
            c.with(Field::Prompt, std::to_string(value - w_.gen));
        }
        return c;
    }
    void context() {
        if (full() || !language()) return;
        // The KV cache's context: an engine's default (Ollama's num_ctx) when
        // that is longer than the request.
        const std::int64_t total = w_.seq;
        // The flags count text tokens; the images' (--images) join them.
        const std::int64_t asked = total - w_.images.tokens();
        // Contexts of at least kMinSuggestedContext; inference also holds --gen.
        const std::int64_t gen = w_.trains() ? 0 : w_.gen;
        const std::int64_t floor = std::max(kMinSuggestedContext, gen + 1);
        const std::int64_t offset = by_prompt() ? gen : 0;  // context = value + offset
        const std::int64_t low =
            (std::max<std::int64_t>(floor - offset, 1) + kContextStep - 1) / kContextStep;
        const std::int64_t high = (asked - offset - 1) / kContextStep;
        const auto k = largest_where(low, high, [&](std::int64_t units) {
            return fitting(context_change(units * kContextStep)).has_value();
        });
        if (!k) return;
        const Change c = context_change(*k * kContextStep);
        const auto p = fitting(c);
        if (!p) return;
        const Workload& pw = p->workload;
        add(c, *p,
            w_.trains()
                ? fmt::format("the longest sequence that fits (asked {} tokens)", total)
                : fmt::format("prompt {} + gen {} tokens (asked {})", pw.prompt, pw.gen, total));
    }

    static double bits_of(const Workload& w) {
        return 8.0 * weight_bytes_per_param(w.quant, w.precision, w.double_quant);
    }
    void quant() {
        if (full() || !language() || w_.trains() || !missed_.engine) return;
        if (w_.model.origin == ModelOrigin::Gguf) return;  // the file fixes its format
        const Engine& engine = *missed_.engine;
        const double current = bits_of(w_);
        const auto loads = [&](QuantFamily f) {
            return std::all_of(cards_.begin(), cards_.end(),
                               [&](const Gpu* g) { return engine_fit(engine, *g, f, false).runs; });
        };
        for (const std::string_view id : ladder(engine)) {
            Quant q;
            try {
                q = parse_quant(id, "the ladder");
            } catch (const InputError&) {
                continue;  // a user's data without this format
            }
            const double bits = 8.0 * weight_bytes_per_param(q, w_.precision, false);
            // A step down only, and a format the plan's engine loads on this card.
            if (bits >= current - 1e-6 || !loads(q.family())) continue;
            if (!combo_quant_ && bits < kComboBits) combo_quant_ = std::string(id);
            Change c;
            c.kind = SuggestionKind::Quant;
            replaces(c, Field::Quant);
            pin_engine(c);
            c.with(Field::Quant, std::string(id));
            const auto p = fitting(c);
            if (!p || !same_engine(*p)) continue;
            lone_quant_bits_ = bits;
            add(c, *p,
                fmt::format("{:.3g} bits per weight instead of {:.3g}{}", bits, current,
                            bits < kLowBits ? "; under 3.5 bits quality drops steeply" : ""));
            return;
        }
    }

    void kv_cache() {
        if (full() || !language() || w_.trains() || !missed_.engine) return;
        const double current = kv_dtype_bytes(w_.kv_dtype);
        std::vector<KvDtype> smaller;
        for (const std::string_view name : missed_.engine->kv_dtypes)
            if (const auto kv = kKvDtypes.find(name); kv && kv_dtype_bytes(*kv) < current)
                smaller.push_back(*kv);
        // The smallest step first: the largest of the smaller types.
        std::stable_sort(smaller.begin(), smaller.end(), [](KvDtype a, KvDtype b) {
            return kv_dtype_bytes(a) > kv_dtype_bytes(b);
        });
        for (const KvDtype kv : smaller) {
            Change c;
            c.kind = SuggestionKind::KvCache;
            replaces(c, Field::KvDtype);
            pin_engine(c);
            c.with(Field::KvDtype, std::string(to_string(kv)));
            const auto p = fitting(c);
            if (!p || !same_engine(*p)) continue;
            add(c, *p,
                fmt::format("KV cache in {} ({:.3g} bytes per value instead of {:.3g})",
                            to_string(kv), kv_dtype_bytes(kv), current));
            return;
        }
    }

    void checkpointing() {
        if (full() || !language() || !w_.trains() || w_.ckpt_mode != CkptMode::None) return;
        Change c;
        c.kind = SuggestionKind::Checkpoint;
        replaces(c, Field::GradCkpt);
        if (in_.request.has(Field::CkptMode)) {
            // --ckpt-mode none said it: the same flag says full.
            replaces(c, Field::CkptMode);
            c.clear.push_back(Field::GradCkpt);
            c.with(Field::CkptMode, "full");
        } else {
            c.with(Field::GradCkpt, "true");
        }
        if (const auto p = fitting(c))
            add(c, *p, "each block's activations recomputed in the backward pass");
    }

    void loss() {
        if (full() || !language() || !w_.trains() || w_.loss == Loss::Fused) return;
        if (missed_.memory.get(&Components::logits) == 0) return;  // nothing for it to save
        Change c;
        c.kind = SuggestionKind::Loss;
        replaces(c, Field::Loss);
        replaces(c, Field::ChunkedLoss);
        c.clear.push_back(Field::ChunkedLoss);
        c.with(Field::Loss, "fused");
        if (const auto p = fitting(c))
            add(c, *p,
                fmt::format("a fused linear cross-entropy (Liger, Unsloth) keeps none of the {} "
                            "of logits",
                            format_gib(missed_.memory.get(&Components::logits))));
    }

    void optimizer() {
        if (full() || !language() || !w_.trains()) return;
        std::vector<Optimizer> steps;
        if (w_.optimizer == Optimizer::AdamW) steps = {Optimizer::AdamW8bit};
        if (w_.optimizer == Optimizer::AdamW || w_.optimizer == Optimizer::AdamW8bit ||
            w_.optimizer == Optimizer::PagedAdamW32bit)
            steps.push_back(Optimizer::PagedAdamW8bit);
        for (const Optimizer opt : steps) {
            Change c;
            c.kind = SuggestionKind::Optimizer;
            replaces(c, Field::Optimizer);
            c.with(Field::Optimizer, std::string(to_string(opt)));
            const auto p = fitting(c);
            if (!p) continue;
            add(c, *p,
                opt == Optimizer::AdamW8bit
                    ? "bitsandbytes 8-bit AdamW: 2 bytes of state per trained parameter instead "
                      "of 8"
                    : "bitsandbytes paged 8-bit AdamW: the state pages to host memory under "
                      "pressure");
            return;
        }
    }

    void method() {
        if (full() || !language() || !w_.trains()) return;
        std::vector<Method> steps;
        if (w_.method == Method::Full) steps = {Method::Lora, Method::Qlora};
        if (w_.method == Method::Lora) steps = {Method::Qlora};
        for (const Method m : steps) {
            Change c;
            c.kind = SuggestionKind::Method;
            replaces(c, Field::Method);
            c.with(Field::Method, std::string(to_string(m)));
            const auto p = fitting(c);
            if (!p) continue;
            const Workload& pw = p->workload;
            add(c, *p,
                fmt::format("{}rank-{} adapters on {}: {} trainable parameters instead of {}",
                            m == Method::Qlora
                                ? fmt::format("base weights in {}, ", pw.quant.text())
                                : std::string(),
                            pw.lora_rank, lora_targets_text(pw),
                            format_count(p->plan.memory.trainable_params),
                            format_count(missed_.memory.trainable_params)));
            return;
        }
    }

    std::string offload_note(const Recommendation& r) const {
        if (!r.offload || r.offload->mode == OffloadMode::Gpu) return "all on the GPU";
        const OffloadPlan& o = *r.offload;
        return fmt::format(
            "{} of {} layers on the GPU (-ngl {}){}, {} in host memory", o.gpu_layers,
            o.total_layers, o.ngl(),
            o.host_expert_layers > 0
                ? fmt::format(", experts of {} layers on the host", o.host_expert_layers)
                : "",
            format_gib(o.host_bytes));
    }
    void offload() {
        if (full()) return;
        if (w_.is_diffusion()) return image_offload();
        if (!language() || w_.trains() || !missed_.engine) return;
        // Where --offload applies (plan.cpp's offload_applies): engines that
        // split layers, on cards with their own memory, not already asked for.
        if (missed_.engine->multi_gpu != MultiGpu::Layers) return;
        if (std::any_of(cards_.begin(), cards_.end(),
                        [](const Gpu* g) { return g->shares_host_memory(); }))
            return;
        const auto& given_offload = in_.request.get(Field::Offload);
        if (given_offload && normalize_name(given_offload->text) != "none") return;
        Change c;
        c.kind = SuggestionKind::Offload;
        replaces(c, Field::Offload);
        pin_engine(c);
        c.with(Field::Offload, "auto");
        if (const auto p = fitting(c); p && same_engine(*p)) {
            add(c, *p, offload_note(p->plan));
            return;
        }
        if (!combos()) return;
        Change q;
        q.kind = SuggestionKind::Offload;
        replaces(q, Field::Quant);
        replaces(q, Field::Offload);
        pin_engine(q);
        q.with(Field::Quant, *combo_quant_).with(Field::Offload, "auto");
        if (const auto p = fitting(q); p && same_engine(*p))
            add(q, *p,
                fmt::format("{} ({:.3g} bits per weight) with {}", *combo_quant_,
                            bits_of(p->workload), offload_note(p->plan)));
    }
    // The setup most people run first (ComfyUI: the text encoders leave the
    // card once the prompt is encoded), then diffusers' offload: the model's
    // components (or its layers) one at a time.
    void image_offload() {
        if (w_.image.setup == ImageSetup::Diffusers && w_.image.offload == CpuOffload::None) {
            Change c;
            c.kind = SuggestionKind::Offload;
            replaces(c, Field::ImageSetup);
            c.with(Field::ImageSetup, std::string(kImageSetups.name(ImageSetup::Comfyui)));
            if (const auto p = fitting(c)) {
                add(c, *p,
                    "ComfyUI's setup: the text encoders leave the GPU once the prompt is encoded");
                return;
            }
        }
        if (w_.image.offload == CpuOffload::Sequential) return;
        for (const CpuOffload mode : {CpuOffload::Model, CpuOffload::Sequential}) {
            if (mode == CpuOffload::Model && w_.image.offload == CpuOffload::Model) continue;
            Change c;
            c.kind = SuggestionKind::Offload;
            replaces(c, Field::CpuOffload);
            c.with(Field::CpuOffload, std::string(kCpuOffloads.name(mode)));
            const auto p = fitting(c);
            if (!p) continue;
            add(c, *p,
                mode == CpuOffload::Model
                    ? "diffusers' model CPU offload: one pipeline component on the GPU at a time"
                    : "diffusers' sequential CPU offload: layer by layer, much slower");
            return;
        }
    }

    std::string count_note(const Recommendation& r) const {
        std::string out = fmt::format("{} ({})", plan_label(r), to_string(r.strategy));
        if (r.nodes > 1)
            out += fmt::format(", {} nodes of {}", r.nodes, r.platform->name);
        else if (r.platform)
            out += fmt::format(", {}", r.platform->name);
        return out;
    }
    void gpus() {
        if (full() || !uniform_) return;
        const bool ranking = in_.where == SuggestFor::Ranking;
        if (!ranking && !one_name_) return;  // a list or the local cards: the box is the hardware
        // Ranking without --gpus tries powers of two up to --max-gpus.
        const bool powers = ranking && !in_.request.has(Field::Gpus);
        std::int64_t from = powers ? 1 : missed_.count;
        if (powers) {
            RankOptions o;
            try {
                o = rank_options(in_.request, w_);
            } catch (const InputError&) {
                return;
            }
            from = o.max_gpus;
        }
        // The first count below `below` that fits and that `accept` takes.
        const auto try_counts = [&](const Change& base, std::int64_t below, auto&& accept) {
            for (const std::int64_t n : kCountsOfOne) {
                if (n >= below) break;
                if (n <= from || (powers && (n & (n - 1)) != 0)) continue;
                Change c = base;
                c.kind = SuggestionKind::Gpus;
                c.count = n;
                const auto p = fitting(c);
                // A count no platform holds (nor whole nodes of one) is not a plan.
                if (p && p->plan.platform && accept(std::move(c), *p)) return true;
            }
            return false;
        };
        const std::string_view flag = powers ? "--max-gpus" : "--gpus";
        Change base;
        replaces(base, powers ? Field::MaxGpus : Field::Gpus);
        std::int64_t lone = kCountsOfOne[std::size(kCountsOfOne) - 1] + 1;
        try_counts(base, lone, [&](Change c, const Probed& p) {
            lone = c.count;
            c.flags.insert(c.flags.begin(), {std::string(flag), std::to_string(c.count)});
            add(std::move(c), p, count_note(p.plan));
            return true;
        });
        // A 4-bit format on fewer cards than the weights as they are need.
        if (full() || !combos() || !missed_.engine) return;
        Change q = base;
        replaces(q, Field::Quant);
        pin_engine(q);
        q.with(Field::Quant, *combo_quant_);
        try_counts(q, lone, [&](Change c, const Probed& p) {
            if (!same_engine(p)) return false;
            c.flags.emplace_back(flag);
            c.flags.push_back(std::to_string(c.count));
            add(std::move(c), p,
                fmt::format("{} ({:.3g} bits per weight) on {}", *combo_quant_, bits_of(p.workload),
                            count_note(p.plan)));
            return true;
        });
    }
};

}  // namespace

std::vector<Suggestion> suggest_changes(const SuggestInputs& in, const Workload& workload,
                                        std::span<const Gpu* const> cards,
                                        const Recommendation& missed) {
    return Search(in, workload, cards, missed).run();
}

}  // namespace gpuadvise
