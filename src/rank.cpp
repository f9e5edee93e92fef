#include "gpuadvise/rank.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpuadvise/error.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

// A larger plan replaces a smaller one under --rank-by speed only when it is
// clearly faster: 5 % is within the speed model's own error.
constexpr double kBiggerPlanMargin = 1.05;

bool tp_possible(const Workload& w, std::int64_t count) {
    return count > 1 && w.model.arch.heads % count == 0;
}
bool pp_possible(const Workload& w, std::int64_t count) {
    return count > 1 && count <= w.model.arch.total_layers();
}

// The strategy a plan of `count` cards uses when the user did not choose:
// data parallel when one card holds the training job, sharding when it does
// not; for inference, the engine's own multi-GPU mode (layer split for
// llama.cpp, tensor parallel for vLLM) when the shape allows it.
Parallel choose_strategy(const Workload& w, const Gpu& gpu, std::int64_t count, bool fits_one) {
    if (count == 1 || w.is_fixed()) return Parallel::None;
    if (w.is_image()) return w.trains() ? Parallel::Ddp : Parallel::None;
    if (w.trains()) return fits_one ? Parallel::Ddp : Parallel::Fsdp;
    if (w.engine && w.engine->multi_gpu == MultiGpu::Layers && pp_possible(w, count))
        return Parallel::Pp;
    // Tensor parallel needs an all-reduce per layer: fine over a GPU link or a
    // full PCIe 4.0 x16 link, too slow below that, where pipeline stages (one
    // activation hand-off per stage) do better.
    const bool fast = gpu.has_fast_link() || gpu.pcie_gbps().value_or(0.0) >= 30.0;
    if (fast && tp_possible(w, count)) return Parallel::Tp;
    if (pp_possible(w, count)) return Parallel::Pp;
    return Parallel::Tp;
}

double safe_ratio(double a, double b) {
    return b > 0 && std::isfinite(a / b) ? a / b : 0.0;
}

// The weight family an inference engine must load.
QuantFamily weight_family(const Workload& w) {
    return w.model.origin == ModelOrigin::Gguf ? QuantFamily::Gguf : w.quant.family();
}

bool takes_kv(const Engine& e, KvDtype kv) {
    return std::find(e.kv_dtypes.begin(), e.kv_dtypes.end(), to_string(kv)) != e.kv_dtypes.end();
}

// The engine a plan on `gpu` runs: the workload's, or, when the user did not
// choose one and the default does not run there, the first engine of
// data/engines.json that runs on the card and loads the weights.
const Engine* plan_engine(const Workload& w, const Gpu& gpu) {
    if (w.trains() || w.is_fixed() || w.engine == nullptr) return w.engine;
    const QuantFamily family = weight_family(w);
    if (w.engine_given || engine_fit(*w.engine, gpu, family, false).runs) return w.engine;
    for (const Engine& e : engines())
        if (e.inference && !e.library && takes_kv(e, w.kv_dtype) &&
            engine_fit(e, gpu, family, false).runs)
            return &e;
    return w.engine;  // none runs: the software rule says why
}

// The software a plan needs on its cards.
std::vector<SoftwareNeed> software_needs(const Workload& w) {
    std::vector<SoftwareNeed> needs;
    if (w.is_fixed()) return needs;
    if (!w.trains() && !w.is_image()) {
        if (w.engine) needs.push_back({w.engine, weight_family(w)});
        return needs;
    }
    if (const Engine* torch = find_engine("pytorch")) needs.push_back({torch, QuantFamily::None});
    const QuantFamily f = w.quant.family();
    if (f == QuantFamily::Bnb4 || f == QuantFamily::Bnb8)
        if (const Engine* bnb = find_engine("bitsandbytes")) needs.push_back({bnb, f});
    const bool bnb_optimizer = w.optimizer == Optimizer::AdamW8bit ||
                               w.optimizer == Optimizer::PagedAdamW8bit ||
                               w.optimizer == Optimizer::PagedAdamW32bit;
    if (bnb_optimizer)
        if (const Engine* opt = find_engine("bitsandbytes-optimizers"))
            needs.push_back({opt, QuantFamily::None});
    return needs;
}

void complete_plan(Recommendation& rec, const Workload& w, const RankOptions& options,
                   bool describe, std::optional<Performance> performance);

// "#1 costs 38 % less per token than #2 ..." for two fitting plans.
std::optional<std::string> compare_plans(const Recommendation& a, const Recommendation& b,
                                         std::size_t rank) {
    if (!a.fits || !b.fits) return std::nullopt;
    const auto sa = a.performance.rate(), sb = b.performance.rate();
    std::vector<std::string> parts;
    const auto pa = a.performance.usd_per_million_tokens, pb = b.performance.usd_per_million_tokens;
    if (pa && pb && *pb > 0 && *pa > 0) {
        const double d = 100.0 * (1.0 - *pa / *pb);
        parts.push_back(d >= 0 ? fmt::format("{:.0f} % less per token", d)
                               : fmt::format("{:.0f} % more per token", -d));
    }
    if (a.total_usd > 0 && b.total_usd > 0 && a.total_usd != b.total_usd)
        parts.push_back(
            a.total_usd < b.total_usd
                ? fmt::format("${:.0f} less for the system", b.total_usd - a.total_usd)
                : fmt::format("${:.0f} more for the system", a.total_usd - b.total_usd));
    if (sa && sb && *sb > 0)
        parts.push_back(fmt::format("{:.0f} % of its speed", 100.0 * *sa / *sb));
    if (a.count < b.count) parts.push_back(fmt::format("{} fewer cards", b.count - a.count));
    if (a.tight != b.tight) parts.push_back(a.tight ? "less headroom" : "more headroom");
    if (parts.empty()) return std::nullopt;
    std::string out = fmt::format("vs #{} ({}):", rank + 1, plan_label(b));
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : " ") + parts[i];
    return out;
}

// --offload places part of an inference model on the host: llama.cpp-style
// engines (layer split), on cards with their own memory.
bool offload_applies(const Workload& w, const Gpu& gpu, const RankOptions& options) {
    return options.offload.kind != OffloadKind::None && !w.trains() && !w.is_fixed() &&
           w.engine != nullptr && w.engine->multi_gpu == MultiGpu::Layers &&
           !gpu.shares_host_memory();
}

// The platform a plan goes into: --platform when it holds the cards, else
// the first of data/platforms.json that does.
const HostPlatform* platform_for(const Gpu& gpu, std::int64_t count, const RankOptions& options) {
    if (options.platform) return options.platform->holds(gpu, count) ? options.platform : nullptr;
    return choose_platform(gpu, count);
}

}  // namespace

std::optional<std::uint64_t> host_ram_bytes(const RankOptions& options,
                                            const HostPlatform* platform) {
    if (options.ram_bytes) return options.ram_bytes;
    if (platform && platform->ram_gb) return to_bytes(*platform->ram_gb * 1e9);
    return std::nullopt;
}

std::optional<double> host_ram_gbps(const RankOptions& options, const HostPlatform* platform) {
    if (options.ram_gbps) return options.ram_gbps;
    if (platform && platform->ram_bandwidth_gbps) return platform->ram_bandwidth_gbps;
    return std::nullopt;
}

Layout plan_layout(const Recommendation& rec) {
    if (rec.micro_batch > 0) return rec.layout;
    Layout l;
    if (rec.placement.empty() && rec.count > 1) {
        if (rec.strategy == Parallel::Tp) l.tp = rec.count;
        if (rec.strategy == Parallel::Pp) l.pp = rec.count;
    }
    return l;
}

std::optional<int> zero_stage(const Recommendation& rec) {
    if (rec.micro_batch == 0 || rec.count < 2) return std::nullopt;
    return zero_stage(rec.strategy);
}

std::string layout_choice_label(const LayoutChoice& c) {
    std::string out = fmt::format("{} ({})", layout_label(c.layout), to_string(c.sharding));
    if (c.micro_batches > 1) out += fmt::format(", {} micro-batches", c.micro_batches);
    return out;
}

std::string_view fit_word(const Recommendation& rec) {
    return !rec.fits ? "no" : rec.tight ? "tight" : "yes";
}

std::vector<std::string> rank_by_choices() {
    return kRankBy.choices();
}

// The layouts a plan keeps to say why its own won (the JSON's `layouts`).
constexpr std::size_t kLayoutsKept = 3;

// The user's --tp/--pp/--cp/--ep/--vpp on `count` GPUs, or nullopt when the
// sizes do not divide the count (resolve_workload checked them on the model).
std::optional<Layout> fit_layout(const Workload& w, std::int64_t count) {
    Layout l = requested_layout_sizes(w.layout_request);
    const std::int64_t split = l.tp * l.pp * l.cp;
    if (count % split != 0) return std::nullopt;
    l.dp = count / split;
    if (!layout_problem(w.model.arch, w.seq, l).empty()) return std::nullopt;
    return l;
}

// Sets a layout and what it implies on a plan's workload: the sharding, and
// the micro-batches per step (--global-batch over the data-parallel ranks,
// --grad-accum, or kMicrobatchesPerStage per pipeline stage within
// kMaxGlobalBatchTokens).
void apply_layout(Workload& w, const Layout& l, Parallel sharding) {
    w.layout = l.splits_model() ? l : Layout{};
    w.parallel = sharding;
    if (w.global_batch)
        w.grad_accum = std::max<std::int64_t>(*w.global_batch / (l.dp * w.batch), 1);
    else if (!w.grad_accum_given && l.pp > 1) {
        const double per_micro = static_cast<double>(l.dp * w.batch * w.seq);
        const auto most = static_cast<std::int64_t>(kMaxGlobalBatchTokens / per_micro);
        w.grad_accum = std::max(l.pp, std::min(kMicrobatchesPerStage * l.pp, most));
    }
}

// Every layout of `count` GPUs (data parallel alone included), timed; the
// fitting ones first (comfortable before tight), fastest first (a simpler
// layout wins a tie), then the misses with the least memory first. Empty
// when the plan is one node.
std::vector<LayoutChoice> search_layouts(const Workload& w, const Gpu& gpu, std::int64_t count,
                                         const RankOptions& options, std::uint64_t usable) {
    std::vector<LayoutChoice> out;
    if (options.platform) return out;
    const std::optional<NodeLayout> nodes = choose_nodes(gpu, count, options.gpus_per_node);
    if (!nodes) return out;
    const Network* network = options.network ? options.network : &default_network();
    // The NVLink domain tensor parallel stays in: the node's linked cards, or
    // the switched link's reach when it joins nodes (an NVL72 rack).
    const std::int64_t domain =
        gpu.has_fast_link() ? std::max(std::min<std::int64_t>(nodes->per_node, gpu.link.max_gpus),
                                       gpu.switch_domain())
                            : nodes->per_node;
    const auto consider = [&](const Layout& l, Parallel sharding) {
        Workload t = w;
        apply_layout(t, l, sharding);
        // A global batch smaller than one micro-batch per data-parallel rank
        // cannot be run with this layout.
        if (t.global_batch && *t.global_batch < l.dp * t.batch) return;
        const MemoryEstimate m = estimate(t);
        const Performance p =
            estimate_performance(t, m, gpu, options.job, std::nullopt, nodes->platform, usable,
                                 network, nodes->per_node);
        const double need = static_cast<double>(m.per_gpu_bytes);
        out.push_back({l, sharding, t.grad_accum, m.per_gpu_bytes,
                       p.train_tokens_per_s.value_or(0.0) / static_cast<double>(count),
                       m.per_gpu_bytes <= usable,
                       m.band && need * m.band->second > static_cast<double>(usable)});
    };
    // Without a batch from the user, a layout whose smallest global batch
    // (every data-parallel rank's micro-batch, pp of them per pipeline) is
    // beyond kMaxGlobalBatchTokens is not one a run would use: more data
    // parallel than the batch allows. Kept only when every layout is.
    const auto batch_ok = [&](const Layout& l) {
        if (w.grad_accum_given) return true;
        const double least =
            static_cast<double>(l.dp * std::max<std::int64_t>(l.pp, 1) * w.batch * w.seq);
        return least <= kMaxGlobalBatchTokens;
    };
    const std::vector<Layout> all = candidate_layouts(w.model.arch, w.seq, count, domain, {});
    const bool any_ok = std::any_of(all.begin(), all.end(), batch_ok);
    for (const Layout& l : all) {
        if (any_ok && !batch_ok(l)) continue;
        // Without data parallel there is nothing to shard: one sharding is enough.
        for (const Parallel sharding : {Parallel::Zero1, Parallel::Fsdp})
            if (sharding == Parallel::Zero1 || l.dp * l.cp > 1) consider(l, sharding);
    }
    const auto simpler = [](const LayoutChoice& c) {
        return c.layout.tp * c.layout.pp * c.layout.cp * c.layout.ep * c.layout.vpp;
    };
    std::stable_sort(out.begin(), out.end(), [&](const LayoutChoice& a, const LayoutChoice& b) {
        if (a.fits != b.fits) return a.fits;
        if (!a.fits) return a.per_gpu_bytes < b.per_gpu_bytes;
        // A comfortable fit before one within the estimate's uncertainty, as plans rank.
        if (a.tight != b.tight) return b.tight;
        if (std::fabs(a.tokens_per_s_per_gpu - b.tokens_per_s_per_gpu) >
            0.01 * std::max(a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu))
            return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
        return simpler(a) < simpler(b);
    });
    return out;
}

Recommendation evaluate_plan(const Workload& base, const Gpu& gpu, std::int64_t count,
                             const RankOptions& options, const MemoryEstimate* single,
                             bool describe) {
    Workload w = base;
    w.gpus = count;
    w.engine = plan_engine(base, gpu);
    // The one-GPU estimate the caller has is for its engine.
    if (w.engine != base.engine) single = nullptr;
    const std::uint64_t usable = usable_memory(gpu, options.os);
    std::optional<MemoryEstimate> computed;
    const auto one_gpu = [&]() -> const MemoryEstimate& {
        if (single) return *single;
        Workload one = w;
        one.gpus = 1;
        one.parallel = Parallel::None;
        computed = estimate(one);
        return *computed;
    };
    if (count == 1) {
        w.parallel = Parallel::None;
    } else if (options.parallel) {
        w.parallel = *options.parallel;
    } else {
        w.parallel = choose_strategy(base, gpu, count, one_gpu().per_gpu_bytes <= usable);
    }
    // A shape the strategy cannot split is answered with the other split.
    if (w.parallel == Parallel::Tp && !tp_possible(w, count) && pp_possible(w, count))
        w.parallel = Parallel::Pp;
    if (w.parallel == Parallel::Pp && !pp_possible(w, count) && tp_possible(w, count))
        w.parallel = Parallel::Tp;

    std::vector<LayoutChoice> layouts;
    if (w.trains() && w.is_language() && count > 1) {
        if (w.layout_request.any()) {
            // The user's layout, on this plan's count; a count it does not
            // divide cannot hold it.
            const std::optional<Layout> l = fit_layout(w, count);
            if (!l) {
                Recommendation miss;
                miss.gpu = &gpu;
                miss.count = count;
                miss.strategy = w.parallel;
                miss.memory = estimate(w);
                miss.usable_bytes = usable;
                miss.headroom_bytes = -static_cast<std::int64_t>(miss.memory.per_gpu_bytes);
                if (describe)
                    miss.reasons.push_back(
                        fmt::format("the layout {} does not divide {} GPUs",
                                    layout_label(requested_layout_sizes(w.layout_request)), count));
                return miss;
            }
            apply_layout(w, *l, base.parallel);
        } else if (!options.parallel) {
            layouts = search_layouts(w, gpu, count, options, usable);
            if (!layouts.empty()) apply_layout(w, layouts.front().layout, layouts.front().sharding);
            if (layouts.size() > kLayoutsKept) layouts.resize(kLayoutsKept);
        } else if (*options.parallel == Parallel::Tp && !options.platform) {
            // Tensor parallel over several nodes is tensor parallel inside each
            // node (its NVLink domain) and data parallel across them.
            if (const auto nodes = choose_nodes(gpu, count, options.gpus_per_node)) {
                const Layout l{.tp = nodes->per_node, .dp = nodes->nodes};
                if (layout_problem(w.model.arch, w.seq, l).empty())
                    apply_layout(w, l, Parallel::Zero1);
            }
        }
    }

    Recommendation rec;
    rec.gpu = &gpu;
    rec.count = count;
    rec.strategy = w.parallel;
    rec.layout = w.layout.splits_model() ? w.layout : Layout{.dp = count};
    rec.micro_batches = w.grad_accum;
    if (w.trains()) {
        rec.micro_batch = w.batch;
        rec.seq = w.seq;
    }
    rec.layouts = std::move(layouts);
    rec.engine = w.engine;
    rec.memory = count == 1 && single && base.gpus == 1 ? *single : estimate(w);
    rec.price_usd = gpu.price ? gpu.price->usd * static_cast<double>(count) : 0.0;
    std::optional<Performance> timed;
    if (offload_applies(w, gpu, options)) {
        // Placed from the whole model: the layers go where llama.cpp puts them.
        const MemoryEstimate& whole = count == 1 ? rec.memory : one_gpu();
        OffloadPlan plan = plan_offload(w, whole, usable, count, options.offload);
        if (plan.mode != OffloadMode::Gpu) {
            rec.memory = offloaded_memory(whole, plan, count);
            const HostPlatform* host = platform_for(gpu, count, options);
            const double cards = rec.price_usd;
            const double system =
                cards > 0 ? cards + (host && !options.have_host ? host->usd.value_or(0.0) : 0.0)
                          : 0.0;
            timed = estimate_offload_performance(
                w, plan, gpu, host_ram_gbps(options, host), options.job,
                system > 0 ? std::optional<double>(system) : std::nullopt);
            rec.strategy = count > 1 ? Parallel::Pp : Parallel::None;
        }
        rec.offload = plan;
    }
    complete_plan(rec, w, options, describe, timed);
    if (describe && options.offload.kind != OffloadKind::None && !rec.offload && !w.trains() &&
        !w.is_fixed())
        rec.warnings.push_back(fmt::format(
            "--offload applies to engines that split layers (llama.cpp, Ollama, LM Studio, "
            "transformers) on cards with their own memory; {} keeps the model on the GPU",
            w.engine ? w.engine->name : "this plan"));
    return rec;
}

namespace {

// The rest of a plan once its cards, strategy and memory are set: the
// platform, the speed (`performance` when the caller timed it), the rules,
// the score and the reasons.
void complete_plan(Recommendation& rec, const Workload& w, const RankOptions& options,
                   bool describe, std::optional<Performance> performance) {
    const Gpu& gpu = *rec.gpu;
    const std::int64_t count = rec.count;
    const std::uint64_t usable = usable_memory(gpu, options.os);
    // The whole system: the cards and the platform that holds them.
    rec.platform = platform_for(gpu, count, options);
    std::int64_t per_node = 0;
    if (!rec.platform && !options.platform && count > 1 && rec.placement.empty())
        if (const auto layout = choose_nodes(gpu, count, options.gpus_per_node)) {
            // Beyond one server: whole nodes of a server platform on a fabric.
            rec.platform = layout->platform;
            rec.nodes = layout->nodes;
            per_node = layout->per_node;
            rec.network = options.network ? options.network : &default_network();
        }
    if (rec.platform && !options.have_host)
        rec.platform_usd = rec.platform->usd.value_or(0.0) * static_cast<double>(rec.nodes);
    // A populated baseboard is bought whole.
    const std::int64_t bought =
        rec.platform && rec.platform->sold_in ? std::max(count, *rec.platform->sold_in) : count;
    if (bought > count && gpu.price && rec.placement.empty())
        rec.price_usd = gpu.price->usd * static_cast<double>(bought);
    rec.total_usd = rec.price_usd > 0 ? rec.price_usd + rec.platform_usd : 0.0;
    rec.topology = plan_topology(gpu, count);
    if (rec.nodes > 1) {
        rec.topology.kind = TopologyKind::Fabric;
        rec.topology.p2p = false;
        rec.topology.domains =
            rec.nodes *
            std::max<std::int64_t>(per_node / std::max<std::int64_t>(gpu.link.max_gpus, 1), 1);
    }
    rec.performance =
        performance ? *performance
                    : estimate_performance(
                          w, rec.memory, gpu, options.job,
                          rec.total_usd > 0 ? std::optional<double>(rec.total_usd) : std::nullopt,
                          rec.platform, usable, rec.network, per_node);
    rec.usable_bytes = usable;
    rec.headroom_bytes =
        static_cast<std::int64_t>(usable) - static_cast<std::int64_t>(rec.memory.per_gpu_bytes);
    const std::vector<SoftwareNeed> software = software_needs(w);
    std::optional<Performance> full_speed;
    if (rec.offload && rec.offload->mode != OffloadMode::Gpu && describe) {
        Workload all = w;
        all.parallel = count > 1 ? Parallel::Pp : Parallel::None;
        full_speed = estimate_performance(all, estimate(all), gpu, options.job);
    }
    PlanContext context{w,
                        gpu,
                        rec.memory,
                        rec.performance,
                        usable,
                        options.task,
                        options.budget_usd,
                        rec.total_usd,
                        describe,
                        rec.platform,
                        options.platform,
                        software,
                        nullptr,
                        std::nullopt,
                        nullptr,
                        options.have_host,
                        rec.nodes};
    context.offload = rec.offload ? &*rec.offload : nullptr;
    context.host_ram = host_ram_bytes(options, rec.platform);
    context.full_speed = full_speed ? &*full_speed : nullptr;
    rec.fired = evaluate_rules(context);
    rec.fits = true;
    for (const auto& hit : rec.fired) {
        if (hit.id == "thin-headroom") rec.tight = true;
        switch (hit.kind) {
            case RuleKind::Reject:
                rec.fits = false;
                if (describe) rec.reasons.push_back(hit.message);
                break;
            case RuleKind::Warn:
                if (describe) rec.warnings.push_back(hit.message);
                break;
            case RuleKind::Tip:
                if (describe) rec.tips.push_back(hit.message);
                break;
            case RuleKind::Score:
                rec.score_factor *= hit.score_factor;
                break;
        }
    }
    if (describe)
        for (const auto& warning : w.warnings) rec.warnings.push_back(warning);
    if (describe && !rec.layouts.empty()) {
        // Why this layout: it against the next best ones that fit.
        std::string line = fmt::format("layout {}: ~{:.0f} tok/s per GPU",
                                       layout_choice_label(rec.layouts.front()),
                                       rec.layouts.front().tokens_per_s_per_gpu);
        std::size_t shown = 0;
        for (std::size_t i = 1; i < rec.layouts.size() && shown < 2; ++i) {
            if (!rec.layouts[i].fits) break;
            line += fmt::format("{} {} ~{:.0f}", shown == 0 ? "; next:" : ",",
                                layout_choice_label(rec.layouts[i]),
                                rec.layouts[i].tokens_per_s_per_gpu);
            ++shown;
        }
        if (!rec.layouts.front().fits) line += " (the least memory of the layouts tried)";
        rec.reasons.push_back(line);
    }
    if (describe && rec.nodes > 1)
        rec.reasons.push_back(fmt::format(
            "{} nodes of {} x {} on {}{}", rec.nodes, count / rec.nodes, gpu.id, rec.network->name,
            options.network ? "" : " (assumed; --network to choose the fabric)"));
    if (describe && bought > count)
        rec.warnings.push_back(fmt::format(
            "{} is sold with {} GPUs: the price counts {}, the plan uses {} (the rest can run "
            "other jobs or replicas)",
            rec.platform->name, bought, bought, count));

    // Scores: higher is better for every --rank-by. A fixed requirement has no
    // model to time; memory bandwidth stands in for speed, as in the source
    // document's own picks (§6).
    const double speed =
        w.is_fixed() ? gpu.memory_bandwidth_gbps : rec.performance.rate().value_or(0.0);
    const double watts = gpu.tdp_watts.value_or(0.0) * static_cast<double>(count);
    switch (options.rank_by) {
        case RankBy::Value:
            rec.score = safe_ratio(speed, rec.total_usd) * 1000.0;
            break;  // tokens/s per $1000 of the whole system
        case RankBy::Speed:
            rec.score = speed;
            break;
        case RankBy::Cost:
            // Cheapest job when one is described, else cheapest purchase.
            rec.score = rec.performance.job_cost_usd
                            ? safe_ratio(1e6, *rec.performance.job_cost_usd)
                            : safe_ratio(1e6, rec.total_usd);
            break;
        case RankBy::Power:
            rec.score = safe_ratio(speed, watts);
            break;
        case RankBy::Memory:
            rec.score = static_cast<double>(std::max<std::int64_t>(rec.headroom_bytes, 0)) / 1e9;
            break;
    }
    // --rank-by speed orders by the speed the plan shows: score rules adjust
    // value, not the measured rate.
    if (options.rank_by != RankBy::Speed) rec.score *= rec.score_factor;
    if (!std::isfinite(rec.score) || !rec.fits) rec.score = 0;  // a miss has no score to compare

    if (rec.fits && describe) {
        std::string why = fmt::format("fits with {} headroom",
                                      format_gib(static_cast<std::uint64_t>(rec.headroom_bytes)));
        if (count > 1) why += fmt::format(" on {} GPUs ({})", count, to_string(rec.strategy));
        const char* unit = w.is_fixed() ? "GB/s" : w.is_image() ? "img/s" : "tok/s";
        // Images come at a few per second or fewer: three significant digits,
        // and the seconds per image a user waits.
        if (speed > 0 && w.is_image())
            why += speed >= 100
                       ? fmt::format("; ~{:.0f} {} ({:.2g} s per image)", speed, unit,
                                     rec.performance.seconds_per_image.value_or(1.0 / speed))
                       : fmt::format("; ~{:.3g} {} ({:.3g} s per image)", speed, unit,
                                     rec.performance.seconds_per_image.value_or(1.0 / speed));
        else if (speed > 0)
            why += fmt::format("; ~{:.0f} {}", speed, unit);
        if (options.rank_by == RankBy::Value && rec.total_usd > 0)
            why += w.is_image() ? fmt::format(", {:.3g} {} per $1k of system",
                                              rec.score / rec.score_factor, unit)
                                : fmt::format(", {:.1f} {} per $1k of system",
                                              rec.score / rec.score_factor, unit);
        if (rec.score_factor != 1.0) why += fmt::format(" (x{:.2f} score rules)", rec.score_factor);
        if (!w.is_fixed() && !platform_calibrated(gpu))
            why += "; speed uncalibrated on this platform";
        rec.reasons.insert(rec.reasons.begin(), why);
    }
}

}  // namespace

std::vector<Recommendation> rank(const Workload& workload, const Catalog& catalog,
                                 const RankOptions& options) {
    std::vector<std::int64_t> counts;
    if (workload.is_fixed() || (workload.is_image() && !workload.trains() && !options.fixed_gpus)) {
        // A task preset's requirement is for one card; an image pipeline runs
        // whole on one card (more cards are replicas, --gpus N).
        counts.push_back(1);
    } else if (options.fixed_gpus) {
        counts.push_back(*options.fixed_gpus);
    } else {
        for (std::int64_t c = 1; c <= options.max_gpus; c *= 2) counts.push_back(c);
        if (counts.empty()) counts.push_back(1);
    }
    // Plans copy the workload; the texts that describe it are not needed there
    // (the workload's own warnings are added to the described plans).
    Workload slim = workload;
    slim.assumed.clear();
    slim.warnings.clear();
    // The one-GPU estimate depends on the workload only: compute it once.
    Workload one = slim;
    one.gpus = 1;
    one.parallel = Parallel::None;
    const MemoryEstimate single = estimate(one);

    // First pass: numbers only (no texts), the best plan of every card.
    std::vector<Recommendation> plans;
    plans.reserve(catalog.gpus.size());
    for (const Gpu& gpu : catalog.gpus) {
        if (options.vendor && gpu.vendor != *options.vendor) continue;
        if (options.segment && gpu.segment != *options.segment) continue;
        // Cards sold only in one market, or only as cloud instances, are not
        // a purchase anyone can make elsewhere.
        if (gpu.region && (!options.region || *options.region != *gpu.region)) continue;
        if (gpu.cloud_only) continue;
        std::optional<Recommendation> best,
            closest;  // closest: the nearest miss, shown when nothing fits
        for (const std::int64_t count : counts) {
            // Sizes no platform holds are not plans (eight Macs are not one box);
            // the first size tried is always kept, to say why it does not fit.
            if ((best || closest) && !options.platform && choose_platform(gpu, count) == nullptr &&
                !choose_nodes(gpu, count, options.gpus_per_node))
                break;
            Recommendation rec = evaluate_plan(slim, gpu, count, options, &single, false);
            if (!rec.fits) {
                if (!closest || rec.headroom_bytes > closest->headroom_bytes)
                    closest = std::move(rec);
                continue;
            }
            // Smallest fitting plan wins; a larger one only when ranking by
            // speed and it is clearly faster.
            if (!best) {
                best = std::move(rec);
                if (options.rank_by != RankBy::Speed) break;
            } else if (rec.score > best->score * kBiggerPlanMargin) {
                best = std::move(rec);
            }
        }
        Recommendation& kept = plans.emplace_back(best ? std::move(*best) : std::move(*closest));
        // Only the shown plans keep their rule hits and notes (they are
        // evaluated again with texts below); 100,000 cards must fit in memory.
        kept.fired = {};
        kept.memory.notes = {};
    }
    // Sort indices, not 500-byte plans.
    std::vector<std::size_t> order(plans.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const bool by_money = options.rank_by == RankBy::Value || options.rank_by == RankBy::Cost;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t ia, std::size_t ib) {
        const Recommendation& a = plans[ia];
        const Recommendation& b = plans[ib];
        if (a.fits != b.fits) return a.fits;
        if (a.fits && a.tight != b.tight && options.rank_by != RankBy::Speed) return b.tight;
        if (a.fits) {
            const bool pa = a.total_usd > 0, pb = b.total_usd > 0;
            if (by_money && pa != pb) return pa;
            if (a.score != b.score) return a.score > b.score;
        } else {
            // Misses that hold the model (a budget, a platform, software) come
            // first, cheapest first: the nearest thing a buyer could do. Then
            // the least memory short per GPU.
            const bool ma = a.headroom_bytes >= 0, mb = b.headroom_bytes >= 0;
            if (ma != mb) return ma;
            if (ma) {
                const double ua = a.total_usd > 0 ? a.total_usd : 1e300;
                const double ub = b.total_usd > 0 ? b.total_usd : 1e300;
                if (ua != ub) return ua < ub;
            } else if (a.headroom_bytes != b.headroom_bytes) {
                return a.headroom_bytes > b.headroom_bytes;
            }
        }
        return a.gpu->id < b.gpu->id;
    });
    // Put the plans in that order in place (following each cycle of the
    // permutation), so there is one array of plans, not two.
    std::vector<Recommendation> out = std::move(plans);
    for (std::size_t start = 0; start < order.size(); ++start) {
        if (order[start] == start) continue;
        Recommendation held = std::move(out[start]);
        std::size_t at = start;
        while (order[at] != start) {
            const std::size_t from = order[at];
            out[at] = std::move(out[from]);
            order[at] = at;
            at = from;
        }
        out[at] = std::move(held);
        order[at] = at;
    }
    // A buyer does not pay more for a difference the model cannot resolve:
    // one pass of adjacent swaps moves a cheaper system above a dearer one
    // whose value is within kScoreTie (same fit class).
    if (by_money)
        for (std::size_t i = 0; i + 1 < out.size(); ++i) {
            Recommendation& a = out[i];
            Recommendation& b = out[i + 1];
            if (!a.fits || !b.fits || a.tight != b.tight || a.total_usd <= 0 || b.total_usd <= 0)
                continue;
            if (b.score >= a.score * (1.0 - kScoreTie) && b.total_usd < a.total_usd)
                std::swap(a, b);
        }
    // Second pass: the plans that are shown get their texts.
    const std::size_t shown = std::min(options.describe_top, out.size());
    for (std::size_t i = 0; i < shown; ++i) {
        Recommendation rec = evaluate_plan(slim, *out[i].gpu, out[i].count, options, &single, true);
        for (const auto& warning : workload.warnings) rec.warnings.push_back(warning);
        out[i] = std::move(rec);
    }
    // Comparative reasons: each shown plan against the next one.
    for (std::size_t i = 0; i + 1 < shown; ++i)
        if (auto line = compare_plans(out[i], out[i + 1], i + 1)) out[i].reasons.push_back(*line);
    return out;
}

std::optional<DocumentPick> document_pick(const Workload& workload, const Catalog& catalog,
                                          const std::vector<Recommendation>& ranked,
                                          const RankOptions& options) {
    if (!workload.task || workload.task->document_pick.empty()) return std::nullopt;
    const Gpu* gpu = nullptr;
    for (const Gpu& g : catalog.gpus)
        if (g.id == workload.task->document_pick) gpu = &g;
    if (gpu == nullptr) return std::nullopt;  // a user's catalog without it
    DocumentPick pick;
    pick.gpu = gpu;
    pick.reason = workload.task->document_reason;
    std::int64_t count = 1;
    for (std::size_t i = 0; i < ranked.size(); ++i)
        if (ranked[i].gpu == gpu) {
            pick.rank = i + 1;
            count = ranked[i].count;
        }
    pick.plan = evaluate_plan(workload, *gpu, count, options, nullptr, true);
    return pick;
}

}  // namespace gpuadvise

namespace gpuadvise {

namespace {
// The cards' prices together; 0 when one is unknown.
double box_price(std::span<const Gpu* const> cards) {
    double sum = 0;
    for (const Gpu* g : cards) {
        if (!g->price) return 0.0;
        sum += g->price->usd;
    }
    return sum;
}
}  // namespace

std::string plan_label(const Recommendation& rec) {
    if (rec.placement.empty())
        return rec.count > 1 ? fmt::format("{} x {}", rec.count, rec.gpu->id)
                             : std::string(rec.gpu->id);
    std::string out;
    for (const Placement& p : rec.placement) {
        if (!out.empty()) out += " + ";
        out += p.gpu->id;
    }
    return out;
}

Recommendation evaluate_box(const Workload& base, std::span<const Gpu* const> cards,
                            const RankOptions& options, bool describe) {
    const auto n = static_cast<std::int64_t>(cards.size());
    const bool uniform =
        std::all_of(cards.begin(), cards.end(), [&](const Gpu* g) { return g == cards.front(); });
    if (uniform) return evaluate_plan(base, *cards.front(), n, options, nullptr, describe);

    std::vector<std::uint64_t> usable;
    for (const Gpu* g : cards) usable.push_back(usable_memory(*g, options.os));
    const auto tightest = [&](const std::vector<std::uint64_t>& need) {
        std::size_t at = 0;
        for (std::size_t i = 1; i < cards.size(); ++i)
            if (static_cast<double>(usable[i]) - static_cast<double>(need[i]) <
                static_cast<double>(usable[at]) - static_cast<double>(need[at]))
                at = i;
        return at;
    };
    std::vector<std::string> notes;
    const bool one_vendor = std::all_of(cards.begin(), cards.end(), [&](const Gpu* g) {
        return g->vendor == cards.front()->vendor;
    });
    if (!one_vendor)
        notes.push_back(
            "cards of different vendors in one box: each runs its own software stack (CUDA, ROCm, "
            "oneAPI); answered as if one engine drove them all, which only llama.cpp's Vulkan or "
            "RPC backends do");

    Workload w = base;
    w.gpus = n;
    w.engine = plan_engine(base, *cards.front());
    const bool layer_split = !w.trains() && !w.is_fixed() && w.engine != nullptr &&
                             w.engine->multi_gpu == MultiGpu::Layers &&
                             n <= w.model.arch.total_layers();
    Recommendation rec;
    if (layer_split) {
        // The whole model on one card, then its layers (weights, KV cache,
        // adapters) spread by free memory; each card keeps its own runtime
        // and compute buffers.
        Workload one = w;
        one.gpus = 1;
        one.parallel = Parallel::None;
        const MemoryEstimate whole = estimate(one);
        const double per_layer_kinds =
            static_cast<double>(whole.get(&Components::weights) + whole.get(&Components::kv_cache) +
                                whole.get(&Components::adapters));
        const double fixed = static_cast<double>(whole.per_gpu_bytes) - per_layer_kinds;
        const std::int64_t layers = w.model.arch.total_layers();
        std::vector<double> free(cards.size());
        double free_sum = 0;
        for (std::size_t i = 0; i < cards.size(); ++i) {
            free[i] = std::max(static_cast<double>(usable[i]) - fixed, 1.0);
            free_sum += free[i];
        }
        // Largest remainder: every layer on exactly one card.
        std::vector<std::int64_t> count(cards.size());
        std::vector<std::pair<double, std::size_t>> rest;
        std::int64_t placed = 0;
        for (std::size_t i = 0; i < cards.size(); ++i) {
            const double exact = static_cast<double>(layers) * free[i] / free_sum;
            count[i] = static_cast<std::int64_t>(std::floor(exact));
            placed += count[i];
            rest.emplace_back(exact - std::floor(exact), i);
        }
        std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        for (std::size_t k = 0; placed < layers && k < rest.size(); ++k, ++placed)
            ++count[rest[k].second];
        std::vector<std::uint64_t> need(cards.size());
        std::vector<SplitStage> stages;
        for (std::size_t i = 0; i < cards.size(); ++i) {
            const double share = static_cast<double>(count[i]) / static_cast<double>(layers);
            need[i] = static_cast<std::uint64_t>(std::llround(fixed + per_layer_kinds * share));
            rec.placement.push_back({cards[i], count[i], share, need[i], usable[i]});
            stages.push_back({cards[i], share});
        }
        const std::size_t at = tightest(need);
        rec.gpu = cards[at];
        rec.count = n;
        rec.strategy = Parallel::Pp;
        rec.engine = w.engine;
        // The bounding card's share of each component.
        rec.memory = whole;
        const double share = rec.placement[at].share;
        std::uint64_t sum = 0;
        for (std::size_t k = 0; k < kComponentNames.size(); ++k) {
            const auto member = kComponentNames[k].member;
            const bool split = member == &Components::weights || member == &Components::kv_cache ||
                               member == &Components::adapters;
            if (split)
                rec.memory.bytes[k] = static_cast<std::uint64_t>(
                    std::llround(static_cast<double>(rec.memory.bytes[k]) * share));
            sum += rec.memory.bytes[k];
        }
        rec.memory.per_gpu_bytes = sum;
        rec.memory.total_bytes = std::accumulate(need.begin(), need.end(), std::uint64_t{0});
        w.parallel = Parallel::Pp;
        rec.price_usd = box_price(cards);
        const HostPlatform* host = platform_for(*rec.gpu, n, options);
        const double system =
            rec.price_usd > 0
                ? rec.price_usd + (host && !options.have_host ? host->usd.value_or(0.0) : 0.0)
                : 0.0;
        notes.insert(notes.begin(),
                     fmt::format("mixed box: {} layers split by free memory, as llama.cpp's "
                                 "--tensor-split does; a token passes every card in turn",
                                 layers));
        complete_plan(
            rec, w, options, describe,
            estimate_split_performance(w, whole, stages, options.job,
                                       system > 0 ? std::optional<double>(system) : std::nullopt));
    } else {
        // Equal shards: the smallest card bounds memory, the slowest the speed.
        std::size_t small = 0, slow = 0;
        for (std::size_t i = 1; i < cards.size(); ++i) {
            if (usable[i] < usable[small]) small = i;
            if (cards[i]->memory_bandwidth_gbps < cards[slow]->memory_bandwidth_gbps) slow = i;
        }
        rec = evaluate_plan(base, *cards[small], n, options, nullptr, describe);
        if (slow != small)
            rec.performance =
                evaluate_plan(base, *cards[slow], n, options, nullptr, false).performance;
        for (std::size_t i = 0; i < cards.size(); ++i)
            rec.placement.push_back(
                {cards[i], 0, 1.0 / static_cast<double>(n), rec.memory.per_gpu_bytes, usable[i]});
        notes.insert(notes.begin(),
                     fmt::format("mixed box: {} gives every card an equal shard, so the smallest "
                                 "card ({}) bounds memory and the slowest ({}) the speed",
                                 w.trains() ? std::string(to_string(rec.strategy))
                                            : std::string(w.engine ? w.engine->id : "the engine"),
                                 cards[small]->id, cards[slow]->id));
    }
    rec.price_usd = box_price(cards);
    rec.total_usd = rec.price_usd > 0 ? rec.price_usd + rec.platform_usd : 0.0;
    for (auto& note : notes) rec.warnings.insert(rec.warnings.begin(), std::move(note));
    return rec;
}

std::optional<Limits> plan_limits(const Workload& base, const Recommendation& rec,
                                  std::span<const Gpu* const> cards, const RankOptions& options) {
    Limits out;
    if (base.is_fixed()) return out;
    if (!base.is_language())
        return std::nullopt;             // context and batch limits are a language model's
    if (!rec.fits) return std::nullopt;  // no context fits a plan that does not
    RankOptions o = options;
    o.describe_top = 0;
    o.parallel = rec.count > 1 ? std::optional<Parallel>(rec.strategy) : std::nullopt;
    // The offload request stays the user's: with --offload auto a longer
    // context moves more of the model to the host, as `check` with that
    // context would, so the limits and `check` agree.
    // So does a training plan's layout, with its micro-batches per step.
    Workload plan = base;
    const Layout& l = rec.layout;
    if (rec.micro_batch > 0 && l.splits_model()) {
        plan.layout_request = {l.tp, l.pp, l.cp, l.ep, l.vpp};
        plan.grad_accum = rec.micro_batches;
        plan.grad_accum_given = true;
        plan.global_batch.reset();
    }
    const auto fits = [&](const Workload& w) {
        try {
            // The plan's own verdict: the card's memory and the host's (an
            // offloaded cache grows in host memory) and every reject rule.
            const Recommendation r = evaluate_box(w, cards, o, false);
            for (const Placement& p : r.placement)
                if (p.bytes > p.usable_bytes) return false;
            return r.fits;
        } catch (const InputError&) {
            return false;  // beyond the estimate's bound: certainly not a fit
        }
    };
    // The largest n in [low, high] with ok(n), or 0 when ok(low) fails; ok is monotone.
    const auto largest = [](std::int64_t low, std::int64_t high, const auto& ok) -> std::int64_t {
        if (low > high || !ok(low)) return 0;
        std::int64_t yes = low, step = 1;
        std::int64_t no = high + 1;
        // Gallop up from low, then bisect between the last yes and the first no.
        while (yes + step <= high) {
            if (!ok(yes + step)) {
                no = yes + step;
                break;
            }
            yes += step;
            step *= 2;
        }
        if (no == high + 1 && yes < high && ok(high)) return high;
        if (no == high + 1) no = high;
        while (no - yes > 1) {
            const std::int64_t mid = yes + (no - yes) / 2;
            if (ok(mid))
                yes = mid;
            else
                no = mid;
        }
        return yes;
    };
    const std::int64_t trained = base.model.arch.max_position;
    const std::int64_t cap = trained > 0 ? trained : kMaxLimitTokens;
    const auto with_context = [&](std::int64_t ctx) {
        Workload w = plan;
        if (w.trains()) {
            // Context parallel splits a sequence into 2 x cp equal chunks.
            const std::int64_t chunks =
                2 * std::max<std::int64_t>(plan.layout_request.cp.value_or(1), 1);
            w.seq = chunks > 2 ? std::max(ctx - ctx % chunks, chunks) : ctx;
        } else {
            w.gen = std::min(base.gen, std::max<std::int64_t>(ctx - 1, 0));
            w.prompt = ctx - w.gen;
            w.seq = ctx;
        }
        return w;
    };
    const std::int64_t floor = base.trains() ? 1 : base.gen + 1;
    out.max_context_tokens =
        largest(floor, cap, [&](std::int64_t ctx) { return fits(with_context(ctx)); });
    if (const std::int64_t chunks = 2 * plan.layout_request.cp.value_or(1);
        base.trains() && chunks > 2 && out.max_context_tokens >= chunks)
        out.max_context_tokens -= out.max_context_tokens % chunks;
    out.context_capped_by_model = trained > 0 && out.max_context_tokens == trained;
    out.max_batch = largest(1, kMaxLimitBatch, [&](std::int64_t b) {
        Workload w = plan;
        w.batch = b;
        return fits(w);
    });
    return out;
}

}  // namespace gpuadvise
