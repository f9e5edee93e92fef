// The suggestions that change what runs: a smaller batch, a shorter context,
// a smaller weight format or KV cache type, and for training checkpointing, a
// fused loss, an 8-bit optimizer, LoRA or QLoRA. Each is the smallest step of
// its kind that fits, found by the search of suggest.cpp.
#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/engines.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/quant.hpp"
#include "gpuadvise/search.hpp"
#include "gpuadvise/units.hpp"
#include "suggest_common.hpp"

namespace gpuadvise::suggest_detail {
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
// Under this many bits per weight perplexity rises steeply in llama.cpp's
// quantize table (tools/quantize/quantize.cpp, QUANT_OPTIONS): said in the note.
constexpr double kLowBits = 3.5;
// Contexts are suggested in steps of this many tokens: "--seq 7168", not 7391.
constexpr std::int64_t kContextStep = 256;

std::span<const std::string_view> ladder(const Engine& e) {
    if (e.loads(QuantFamily::Gguf) && e.memory == MemoryPolicy::LlamaCpp) return kGgufLadder;
    if (e.loads(QuantFamily::Exl)) return kExlLadder;
    if (e.loads(QuantFamily::Mlx)) return kMlxLadder;
    return kServingLadder;
}

}  // namespace

// Tries each of `values` of `f` in order, the smallest step first, and adds
// the first that fits with note(value, probe). `pin`: the plan's engine stays
// (a weight format or KV cache type is the engine's), and a probe that lands
// on another engine is no step.
template <typename Value, typename Note>
void Search::first_step(SuggestionKind kind, Field f, const std::vector<Value>& values, bool pin,
                        Note&& note) {
    for (const Value v : values) {
        Change c;
        c.kind = kind;
        replaces(c, f);
        if (pin) pin_engine(c);
        c.with(f, std::string(to_string(v)));
        const auto p = fitting(c);
        if (!p || (pin && !same_engine(*p))) continue;
        add(c, *p, note(v, *p));
        return;
    }
}

void Search::batch() {
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
    const auto b = largest_where(1, w_.batch - 1,
                                 [&](std::int64_t n) { return fitting(change(n)).has_value(); });
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
bool Search::by_prompt() const {
    return !w_.trains() && in_.request.has(Field::Prompt) && !in_.request.has(Field::Seq);
}

Change Search::context_change(std::int64_t value) const {
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

void Search::context() {
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
    // A context longer than the request is the engine's default, not asked.
    const bool engine_default = !w_.trains() && w_.engine && total > w_.prompt + w_.gen;
    add(c, *p,
        w_.trains() ? fmt::format("the longest sequence that fits (asked {} tokens)", total)
        : engine_default
            ? fmt::format("prompt {} + gen {} tokens ({}'s default context: {})", pw.prompt, pw.gen,
                          w_.engine->name, total)
            : fmt::format("prompt {} + gen {} tokens (asked {})", pw.prompt, pw.gen, total));
}

double Search::bits_of(const Workload& w) {
    return 8.0 * weight_bytes_per_param(w.quant, w.precision, w.double_quant);
}

void Search::quant() {
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

void Search::kv_cache() {
    if (full() || !language() || w_.trains() || !missed_.engine) return;
    const double current = kv_dtype_bytes(w_.kv_dtype);
    std::vector<KvDtype> smaller;
    for (const std::string_view name : missed_.engine->kv_dtypes)
        if (const auto kv = kKvDtypes.find(name); kv && kv_dtype_bytes(*kv) < current)
            smaller.push_back(*kv);
    // The smallest step first: the largest of the smaller types.
    std::stable_sort(smaller.begin(), smaller.end(),
                     [](KvDtype a, KvDtype b) { return kv_dtype_bytes(a) > kv_dtype_bytes(b); });
    first_step(SuggestionKind::KvCache, Field::KvDtype, smaller, true,
               [&](KvDtype kv, const Probed&) {
                   return fmt::format("KV cache in {} ({:.3g} bytes per value instead of {:.3g})",
                                      to_string(kv), kv_dtype_bytes(kv), current);
               });
}

void Search::checkpointing() {
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

void Search::loss() {
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

void Search::optimizer() {
    if (full() || !language() || !w_.trains()) return;
    std::vector<Optimizer> steps;
    if (w_.optimizer == Optimizer::AdamW) steps = {Optimizer::AdamW8bit};
    if (w_.optimizer == Optimizer::AdamW || w_.optimizer == Optimizer::AdamW8bit ||
        w_.optimizer == Optimizer::PagedAdamW32bit)
        steps.push_back(Optimizer::PagedAdamW8bit);
    first_step(SuggestionKind::Optimizer, Field::Optimizer, steps, false,
               [](Optimizer opt, const Probed&) -> std::string {
                   return opt == Optimizer::AdamW8bit
                              ? "bitsandbytes 8-bit AdamW: 2 bytes of state per trained "
                                "parameter instead of 8"
                              : "bitsandbytes paged 8-bit AdamW: the state pages to host memory "
                                "under pressure";
               });
}

void Search::method() {
    if (full() || !language() || !w_.trains()) return;
    std::vector<Method> steps;
    if (w_.method == Method::Full) steps = {Method::Lora, Method::Qlora};
    if (w_.method == Method::Lora) steps = {Method::Qlora};
    first_step(SuggestionKind::Method, Field::Method, steps, false, [&](Method m, const Probed& p) {
        const Workload& pw = p.workload;
        return fmt::format("{}rank-{} adapters on {}: {} trainable parameters instead of {}",
                           m == Method::Qlora ? fmt::format("base weights in {}, ", pw.quant.text())
                                              : std::string(),
                           pw.lora_rank, lora_targets_text(pw),
                           format_count(p.plan.memory.trainable_params),
                           format_count(missed_.memory.trainable_params));
    });
}

}  // namespace gpuadvise::suggest_detail
