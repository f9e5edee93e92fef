// The suggestions that change where it runs: llama.cpp's offload to host
// memory (alone, or with a 4-bit format; on llama.cpp itself when the plan's
// default engine keeps the whole model on the card), for image models
// ComfyUI's setup then diffusers' CPU offload, and more cards of the plan's
// kind.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "gpuadvise/engines.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/platform.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/units.hpp"
#include "suggest_common.hpp"

namespace gpuadvise::suggest_detail {
namespace {

// More cards: every count up to one server's eight, then whole powers of two.
constexpr std::int64_t kCountsOfOne[] = {2, 3, 4, 5, 6, 7, 8, 16, 32, 64};

}  // namespace

std::string Search::offload_note(const Recommendation& r) const {
    if (!r.offload || r.offload->mode == OffloadMode::Gpu) return "all on the GPU";
    const OffloadPlan& o = *r.offload;
    return fmt::format("{} of {} layers on the GPU (-ngl {}){}, {} in host memory", o.gpu_layers,
                       o.total_layers, o.ngl(),
                       o.host_expert_layers > 0
                           ? fmt::format(", experts of {} layers on the host", o.host_expert_layers)
                           : "",
                       format_gib(o.host_bytes));
}

void Search::offload() {
    if (full()) return;
    if (w_.is_diffusion()) return image_offload();
    if (!language() || w_.trains() || !missed_.engine) return;
    // Where --offload applies (plan.cpp's offload_applies): engines that
    // split layers, on cards with their own memory, not already asked for.
    if (std::any_of(cards_.begin(), cards_.end(),
                    [](const Gpu* g) { return g->shares_host_memory(); }))
        return;
    const auto& given_offload = in_.request.get(Field::Offload);
    if (given_offload && normalize_name(given_offload->text) != "none") return;
    if (missed_.engine->multi_gpu != MultiGpu::Layers) return offload_elsewhere();
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
            fmt::format("{} ({:.3g} bits per weight) with {}", *combo_quant_, bits_of(p->workload),
                        offload_note(p->plan)));
}

// The plan's engine keeps the whole model on the cards (vLLM, the default for
// a 16-bit checkpoint) and the user did not choose it: the first engine of
// data/engines.json that splits layers between the GPU and host memory and
// runs on the card (llama.cpp), in the format its offload starts from
// (fit_offload_from: Q4_K_M). What one consumer card runs a model too large
// for it with; only when layers or experts do go to the host (a format that
// fits whole is the format suggestion's).
void Search::offload_elsewhere() {
    if (w_.engine_given) return;
    const Gpu& gpu = *cards_.front();
    const auto it = std::find_if(engines().begin(), engines().end(), [&](const Engine& e) {
        return e.multi_gpu == MultiGpu::Layers && !e.fit_offload_from.empty() &&
               engine_fit(e, gpu, false).runs;
    });
    if (it == engines().end()) return;
    Change c;
    c.kind = SuggestionKind::Offload;
    replaces(c, Field::Quant);
    replaces(c, Field::Offload);
    c.with(Field::Engine, std::string(it->id))
        .with(Field::Quant, std::string(it->fit_offload_from))
        .with(Field::Offload, "auto");
    const auto p = fitting(c);
    if (!p || p->plan.engine != &*it || !p->plan.offload ||
        p->plan.offload->mode == OffloadMode::Gpu)
        return;
    add(c, *p,
        fmt::format("{} with {} ({:.3g} bits per weight): {}", it->name, it->fit_offload_from,
                    bits_of(p->workload), offload_note(p->plan)));
}

// The setup most people run first (ComfyUI: the text encoders leave the
// card once the prompt is encoded), then diffusers' offload: the model's
// components (or its layers) one at a time.
void Search::image_offload() {
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

std::string Search::count_note(const Recommendation& r) const {
    std::string out = fmt::format("{} ({})", plan_label(r), to_string(r.strategy));
    if (r.nodes > 1)
        out += fmt::format(", {} nodes of {}", r.nodes, r.platform->name);
    else if (r.platform)
        out += fmt::format(", {}", r.platform->name);
    return out;
}

void Search::gpus() {
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

}  // namespace gpuadvise::suggest_detail
