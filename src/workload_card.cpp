// The defaults a workload takes from the cards a plan runs on: fp16 for image
// and vision models and llama.cpp on cards without bf16, an engine's default context by
// the box's memory (Ollama), and the framework that trains on the cards'
// platform (mlx-lm on Apple silicon). Each changes only a value the user did
// not give, and says so in `assumed`.
#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/platform.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {
namespace {

// Replaces the assumption that starts with `key` ("seq=") or adds it.
void reassume(Workload& w, std::string_view key, std::string text) {
    const auto at = std::find_if(w.assumed.begin(), w.assumed.end(), [&](const std::string& a) {
        return std::string_view(a).substr(0, key.size()) == key;
    });
    if (at != w.assumed.end())
        *at = std::move(text);
    else
        w.assumed.push_back(std::move(text));
}

void forget(Workload& w, std::string_view key) {
    std::erase_if(w.assumed, [&](const std::string& a) {
        return std::string_view(a).substr(0, key.size()) == key;
    });
}

bool lacks_bf16(const Gpu& g) {
    return !g.tflops.bf16 && !g.is_apple();
}

// The bf16 default on a card without bf16 (Pascal, Volta, Turing): fp16, the
// precision-bf16 rule's fix, where the software computes in fp16 there by
// itself: vision recipes autocast to fp16 on Volta and Turing, and
// llama.cpp (Ollama, LM Studio) computes 16-bit work in F16/F32 whatever the
// checkpoint's dtype, so a P40 or a V100 runs a GGUF as it is. vLLM instead
// refuses a bf16 dtype below compute capability 8.0 until told --dtype half
// (vllm worker _check_if_gpu_supports_dtype), so a serving plan keeps bf16
// and the rule says the fix; so does a precision the user gave.
bool card_precision(Workload& w, std::span<const Gpu* const> cards, bool record) {
    if (w.precision_given || w.precision != Precision::Bf16) return false;
    const bool llama_cpp =
        !w.trains() && w.engine && w.engine->memory == MemoryPolicy::LlamaCpp && w.is_language();
    if (!w.is_image() && !llama_cpp) return false;
    const auto it =
        std::find_if(cards.begin(), cards.end(), [](const Gpu* g) { return lacks_bf16(*g); });
    if (it == cards.end()) return false;
    w.precision = Precision::Fp16;
    if (!record) return true;
    reassume(w, "precision=",
             fmt::format("precision=fp16 ({} has no native bf16; {})", (*it)->arch_family,
                         w.is_image() ? "16-bit autocast in fp16, as vision recipes run on "
                                        "Volta and Turing"
                                      : "llama.cpp computes 16-bit work in fp16 there"));
    return true;
}

// An engine's context by the box's memory when none was given (Ollama's
// num_ctx by total VRAM), no longer than the model was trained for. The
// engine sizes its KV cache for that context up front (llama.cpp's n_ctx),
// so the memory is that context's; the conversation stays the prompt and
// generation asked for (or assumed), and the speed is theirs: a 256k-token
// num_ctx on a 48 GiB box is room, not a prompt every request fills.
bool engine_context(Workload& w, std::span<const Gpu* const> cards, bool record) {
    if (w.trains() || !w.is_language() || w.embeds() || w.context_given || w.engine == nullptr ||
        w.engine->default_context.empty() || cards.empty())
        return false;
    // The memory the engine counts: each card's total (a unified pool's GPU
    // share, as Metal's recommendedMaxWorkingSetSize reports it).
    double bytes = 0;
    for (const Gpu* g : cards)
        bytes +=
            static_cast<double>(g->unified_pool ? usable_memory(*g, Os::Linux) : g->memory_bytes);
    const double total_gib = bytes / static_cast<double>(kGiB);
    std::int64_t tokens = w.engine->default_context.back().tokens;
    for (const ContextTier& t : w.engine->default_context)
        if (total_gib >= t.min_gib) {
            tokens = t.tokens;
            break;
        }
    const std::int64_t trained = w.model.arch.max_position;
    const bool capped = trained > 0 && tokens > trained;
    if (capped) tokens = trained;
    // A conversation longer than the default needs its own num_ctx, which
    // --emit writes: the context is then the conversation's.
    tokens = std::max(tokens, w.prompt + w.gen);
    if (tokens == w.seq) return false;
    w.seq = tokens;
    if (!record) return true;
    reassume(w, "seq=",
             fmt::format("seq={} context, the KV cache's: {}'s default for {:.0f} GiB of GPU "
                         "memory{} (speed at prompt {} + gen {} tokens)",
                         w.seq, w.engine->name, total_gib,
                         capped ? ", cut to the model's trained context" : "", w.prompt, w.gen));
    return true;
}

bool bnb_optimizer(Optimizer o) {
    return o == Optimizer::AdamW8bit || o == Optimizer::PagedAdamW8bit ||
           o == Optimizer::PagedAdamW32bit;
}

// A framework that trains this method on the cards' platform (mlx-lm on
// Apple silicon) trains the plan, unless the user chose what it cannot run
// (a bitsandbytes format or optimizer).
bool trainer(Workload& w, std::span<const Gpu* const> cards, bool record) {
    if (!w.trains() || !w.is_language() || w.engine != nullptr || cards.empty()) return false;
    const Gpu& gpu = *cards.front();
    for (const Gpu* g : cards)
        if (g->platform != gpu.platform) return false;
    const std::string_view method = to_string(w.method);
    for (const Engine& e : engines()) {
        const EngineTraining* t = engine_training(e, gpu, method);
        if (t == nullptr) continue;
        if (w.optimizer_given && bnb_optimizer(w.optimizer)) continue;
        const QuantFormat* base = w.method == Method::Qlora && !t->qlora_base.empty()
                                      ? find_quant(t->qlora_base)
                                      : nullptr;
        if (w.quant_given && !w.quant.none() && !e.loads(w.quant.family())) continue;
        w.engine = &e;
        if (record) {
            reassume(w, "trainer=",
                     fmt::format("trainer={} ({} trains {} on {})", e.id, e.name, method,
                                 to_string(gpu.platform)));
            w.warnings.emplace_back(t->note);
        }
        if (base != nullptr && !w.quant_given) {
            w.quant = Quant{base, 0};
            w.double_quant = false;
            if (record) {
                reassume(w, "quant=",
                         fmt::format("quant={} (the QLoRA base {} trains: {})", base->id, e.name,
                                     base->name));
                forget(w, "double-quant=");
            }
        }
        if (!w.optimizer_given && bnb_optimizer(w.optimizer)) {
            w.optimizer = kOptimizers.parse(t->optimizer, "data/engines.json training.optimizer");
            if (record)
                reassume(w, "optimizer=",
                         fmt::format("optimizer={} ({}'s default: two moments per trained weight)",
                                     to_string(w.optimizer), e.name));
        }
        return true;
    }
    return false;
}

}  // namespace

bool apply_card_defaults(Workload& w, std::span<const Gpu* const> cards, bool record) {
    if (w.is_fixed()) return false;
    bool changed = card_precision(w, cards, record);
    changed = engine_context(w, cards, record) || changed;
    changed = trainer(w, cards, record) || changed;
    return changed;
}

bool apply_card_defaults(Workload& w, const Gpu& gpu, std::int64_t count, bool record) {
    const std::vector<const Gpu*> cards(static_cast<std::size_t>(std::max<std::int64_t>(count, 1)),
                                        &gpu);
    return apply_card_defaults(w, cards, record);
}

bool same_card_defaults(const Workload& a, const Workload& b) {
    // Every field the functions above (and a plan's engine) write.
    return a.engine == b.engine && a.precision == b.precision && a.seq == b.seq &&
           a.prompt == b.prompt && a.gen == b.gen && a.quant.format == b.quant.format &&
           a.quant.parameter == b.quant.parameter && a.quant.scope == b.quant.scope &&
           a.double_quant == b.double_quant && a.optimizer == b.optimizer;
}

}  // namespace gpuadvise
