// One plan: a card, a count and a strategy, with its memory, speed, platform,
// rules, score and texts (evaluate_plan), and the helpers it shares with the
// mixed boxes of box.cpp (plan_common.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gpuadvise/cloud_prices.hpp"
#include "gpuadvise/energy.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/units.hpp"
#include "plan_common.hpp"

namespace gpuadvise {

using namespace plan_detail;

namespace {

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

// The software a plan needs on its cards.
std::vector<SoftwareNeed> software_needs(const Workload& w) {
    std::vector<SoftwareNeed> needs;
    if (w.is_fixed()) return needs;
    if (!w.trains() && !w.is_image()) {
        if (w.engine) needs.push_back({w.engine, weight_family(w)});
        return needs;
    }
    if (w.engine) return {{w.engine, w.quant.family()}};  // a trainer of the card's platform
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

// --offload places part of an inference model on the host: llama.cpp-style
// engines (layer split), on cards with their own memory.
bool offload_applies(const Workload& w, const Gpu& gpu, const RankOptions& options) {
    return options.offload.kind != OffloadKind::None && !w.trains() && !w.is_fixed() &&
           w.engine != nullptr && w.engine->multi_gpu == MultiGpu::Layers &&
           !gpu.shares_host_memory();
}
}  // namespace

namespace plan_detail {

// The engine a plan on `gpu` runs: the workload's, or, when the user did not
// choose one and the default does not run there, the first engine of
// data/engines.json that runs on the card and loads the weights.
const Engine* plan_engine(const Workload& w, const Gpu& gpu) {
    if (w.trains() || w.is_fixed() || w.engine == nullptr) return w.engine;
    const QuantFamily family = weight_family(w);
    if (w.engine_given || engine_fit(*w.engine, gpu, family, false).runs) return w.engine;
    // A plan that drafts (--draft) needs an engine that runs its kind of draft.
    const auto drafts = [&w](const Engine& e) {
        if (!w.speculation) return true;
        const EngineSpeculation* s = speculative_data().engine(e.id);
        return s != nullptr && (w.speculation->mtp() ? s->mtp : s->draft_model);
    };
    for (const Engine& e : engines())
        if (e.inference && !e.library && takes_kv(e, w.kv_dtype) && drafts(e) &&
            engine_fit(e, gpu, family, false).runs)
            return &e;
    return w.engine;  // none runs: the software rule says why
}
// The platform a plan goes into: --platform when it holds the cards, else
// the first of data/platforms.json that does.
const HostPlatform* platform_for(const Gpu& gpu, std::int64_t count, const RankOptions& options) {
    if (options.platform) return options.platform->holds(gpu, count) ? options.platform : nullptr;
    return choose_platform(gpu, count);
}
// The rest of a plan once its cards, strategy and memory are set: the
// platform, the speed (`performance` when the caller timed it), the rules,
// the score and the reasons.
void complete_plan(Recommendation& rec, const Workload& w, const RankOptions& options,
                   bool describe, std::optional<Performance> performance) {
    const Gpu& gpu = *rec.gpu;
    const std::int64_t count = rec.count;
    const std::uint64_t usable = usable_memory(gpu, options.os, w.engine);
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
    // A host that must be bought and has no sourced price (an APU node) leaves
    // the system's price unknown: the chips alone are not what the plan costs.
    rec.total_usd =
        rec.price_usd > 0 && !host_unpriced(rec, options) ? rec.price_usd + rec.platform_usd : 0.0;
    const CloudPrice* rental = cloud_prices().find(gpu.id);
    rec.rent_usd_per_hour = options.rent ? rented_hourly(rec, options)
                            : rental     ? rental->median * static_cast<double>(count)
                                         : 0.0;
    if (options.rent) rec.price_usd = rec.platform_usd = rec.total_usd = 0;  // nothing bought
    rec.buy_beats_rent_months = buy_beats_rent_months(rec, options);
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
    context.deadline_hours = options.job.deadline_hours;
    // Under --rent a budget is what the job may cost to rent.
    if (options.rent) context.plan_price_usd = rec.performance.job_cost_usd.value_or(0.0);
    context.os = options.os;
    rec.fired = evaluate_rules(context);
    rec.fits = true;
    std::string_view late;  // the rule that ranks the plan after those on time
    for (const auto& hit : rec.fired) {
        if (hit.id == "thin-headroom") rec.tight = true;
        if (hit.id == "long-job" || hit.id == "slow-output") late = hit.id;
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
    // Serving on a board bought whole: its other GPUs could run more copies
    // of the plan. Value counts the load asked for (--batch, --users), as it
    // does for a single card whose spare batch it does not count either, so
    // a board bought for one user's load is priced as that; the copies are
    // said, and --users sizes a load that fills them.
    rec.replicas =
        !w.trains() && !options.rent && bought > count && rec.placement.empty() && count > 0
            ? bought / count
            : 1;
    if (describe && bought > count && !options.rent)
        rec.warnings.push_back(fmt::format(
            "{} is sold with {} GPUs: the price counts {}, the plan uses {} ({}){}",
            rec.platform->name, bought, bought, count,
            rec.replicas > 1
                ? fmt::format("the others could run {} more copies of it: --users for that load",
                              rec.replicas - 1)
                : std::string("the rest can run other jobs"),
            rental ? fmt::format("; or rent {} at ${:.2f}/h (--rent)", count, rec.rent_usd_per_hour)
                   : std::string()));

    // Scores: higher is better for every --rank-by. A fixed requirement has no
    // model to time; memory bandwidth stands in for speed, as in the source
    // document's own picks (§6).
    const double speed =
        w.is_fixed() ? gpu.memory_bandwidth_gbps : rec.performance.rate().value_or(0.0);
    const double watts = gpu.tdp_watts.value_or(0.0) * static_cast<double>(count);
    // Value, cost and power are expectations: a plan that may not fit is
    // worth its chance of fitting (a tight $3,500 box is discounted, not sunk
    // below a $300,000 one). Speed and memory rank what the plan shows.
    rec.fit_chance = fit_chance(rec, usable);
    const double risk = rec.fit_chance;
    switch (options.rank_by) {
        case RankBy::Value:
            // Bought: expected tokens/s per $1000 of the whole system. Rented:
            // expected tokens per dollar of rent.
            rec.score = options.rent
                            ? safe_ratio(speed * risk * 3600.0, rented_hourly(rec, options))
                            : safe_ratio(speed * risk, rec.total_usd) * 1000.0;
            break;
        case RankBy::Speed:
            rec.score = speed;
            break;
        case RankBy::Cost:
            // Cheapest job when one is described, else cheapest purchase.
            rec.score = rec.performance.job_cost_usd
                            ? safe_ratio(1e6 * risk, *rec.performance.job_cost_usd)
                        : options.rent ? safe_ratio(1e6 * risk, rented_hourly(rec, options))
                                       : safe_ratio(1e6 * risk, rec.total_usd);
            break;
        case RankBy::Power:
            rec.score = safe_ratio(speed * risk, watts);
            break;
        case RankBy::Memory:
            rec.score = static_cast<double>(std::max<std::int64_t>(rec.headroom_bytes, 0)) / 1e9;
            break;
    }
    // --rank-by speed orders by the speed the plan shows: score rules adjust
    // value, not the measured rate.
    if (options.rank_by != RankBy::Speed) rec.score *= rec.score_factor;
    if (!std::isfinite(rec.score) || !rec.fits) rec.score = 0;  // a miss has no score to compare
    set_standing(rec, w, options, speed, watts, late);

    if (rec.fits && describe) {
        std::string why = fmt::format("fits with {} headroom",
                                      format_gib(static_cast<std::uint64_t>(rec.headroom_bytes)));
        if (count > 1) why += fmt::format(" on {} GPUs ({})", count, to_string(rec.strategy));
        const char* unit = w.is_fixed()                                 ? "GB/s"
                           : w.generates_video() || w.image.streams > 0 ? "frames/s"
                           : w.is_image()                               ? "img/s"
                           : w.embeds()                                 ? "seq/s"
                                                                        : "tok/s";
        if (speed > 0 && w.is_image())
            why += image_speed_clause(w, rec.performance, speed);
        else if (speed > 0)
            why += fmt::format("; ~{:.0f} {}", speed, unit);
        // Training at scale: the MFU the speed stands for, so a cluster of
        // PCIe nodes says how little of its peak it reaches.
        if (const auto mfu = rec.performance.mfu; mfu && w.trains() && count > 1)
            why += fmt::format(" ({:.0f} % MFU)", 100.0 * *mfu);
        if (const auto days = rec.performance.days)
            why += *days >= 1.0 ? fmt::format(", {:.0f} days", *days)
                                : fmt::format(", {:.1f} hours", *rec.performance.job_hours);
        const double per_k = safe_ratio(speed, rec.total_usd) * 1000.0;
        const double hourly = rented_hourly(rec, options);
        if (options.rent && hourly > 0) {
            why += fmt::format(", rented at ${:.2f}/h", hourly);
            if (const CloudPrice* p = rental; p && options.rent_from_quotes)
                why += p->quotes.size() == 1
                           ? fmt::format(" (one quote, {})", p->latest_date())
                           : fmt::format(" (median of {} quotes, ${:.2f}-{:.2f} per GPU-hour, {})",
                                         p->quotes.size(), p->min, p->max, p->latest_date());
            if (options.rank_by == RankBy::Value && speed > 0 && !w.is_fixed())
                why += fmt::format(
                    ", {} {} per $",
                    format_count(static_cast<std::uint64_t>(std::llround(speed * 3600.0 / hourly))),
                    w.generates_video()   ? "video frames"
                    : w.is_image()        ? "images"
                    : w.image.streams > 0 ? "frames"
                                          : "tokens");
        } else if (options.rank_by == RankBy::Value && rec.total_usd > 0 && per_k > 0)
            why += w.is_image() ? fmt::format(", {:.3g} {} per $1k of system", per_k, unit)
                                : fmt::format(", {:.1f} {} per $1k of system", per_k, unit);
        if (rec.fit_chance < 0.995 && options.rank_by != RankBy::Speed &&
            options.rank_by != RankBy::Memory)
            why += fmt::format(" (x{:.2f}: a {:.0f} % chance the memory does not fit)",
                               rec.fit_chance, 100.0 * (1.0 - rec.fit_chance));
        if (rec.score_factor != 1.0) why += fmt::format(" (x{:.2f} score rules)", rec.score_factor);
        if (!w.is_fixed() && !platform_calibrated(gpu))
            why += "; speed uncalibrated on this platform";
        rec.reasons.insert(rec.reasons.begin(), why);
        if (rec.standing != Standing::Ranked)
            rec.reasons.insert(
                rec.reasons.begin() + 1,
                fmt::format("ranked after the plans {}: {}",
                            rec.standing != Standing::Late ? "whose speed and price are known"
                            : late == "slow-output"
                                ? "that make a clip sooner"
                                : fmt::format("that finish within {:.0f} days",
                                              rule_data("long-job").get("max_days")),
                            rec.standing_why));
    }
    // A shown serving plan says what each of its sessions gets (JSON `load`).
    if (describe && !w.trains() && w.is_language() && !w.embeds())
        rec.load = load_result(w, rec.performance, rec.fits);
}

}  // namespace plan_detail

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

// A variant of the workload and its estimates (the estimates keep a pointer
// to the workload, so both live here, at one address).
struct SharedEstimates::Variant {
    explicit Variant(const Workload& w) : base(w), estimates(base) {}
    Workload base;
    SharedEstimates estimates;
};

SharedEstimates::SharedEstimates(const Workload& base) : base_(&base) {}
SharedEstimates::~SharedEstimates() = default;

SharedEstimates& SharedEstimates::variant(const Workload& plan) {
    if (same_card_defaults(*base_, plan)) return *this;
    for (const auto& v : variants_)
        if (same_card_defaults(v->base, plan)) return v->estimates;
    return variants_.emplace_back(std::make_unique<Variant>(plan))->estimates;
}

const MemoryEstimate& SharedEstimates::single() {
    if (single_ == nullptr) {
        Workload one = *base_;
        one.gpus = 1;
        one.parallel = Parallel::None;
        single_ = &of(one);
    }
    return *single_;
}

const MemoryEstimate& SharedEstimates::of(const Workload& plan) {
    const Layout& l = plan.layout;
    const Key key{plan.gpus,      static_cast<std::int64_t>(plan.parallel),
                  l.tp,           l.pp,
                  l.cp,           l.ep,
                  l.vpp,          l.dp,
                  plan.grad_accum};
    auto it = plans_.find(key);
    if (it == plans_.end()) it = plans_.emplace(key, estimate(plan)).first;
    return it->second;
}

Recommendation evaluate_plan(const Workload& base, const Gpu& gpu, std::int64_t count,
                             const RankOptions& options, SharedEstimates* shared, Detail detail) {
    const bool describe = detail == Detail::Texts;
    // --rent: the provider's machine, host included, at the card's median
    // hourly price, so jobs and serving are costed by the hour. A card no
    // provider lists keeps no price (its plans rank as unknown).
    if (options.rent && !options.job.cloud_price_per_gpu_hour)
        if (const CloudPrice* rental = cloud_prices().find(gpu.id)) {
            RankOptions rented = options;
            rented.have_host = true;
            rented.job.cloud_price_per_gpu_hour = rental->median;
            rented.rent_from_quotes = true;
            return evaluate_plan(base, gpu, count, rented, shared, detail);
        }
    Workload w = base;
    w.gpus = count;
    w.engine = plan_engine(base, gpu);
    apply_card_defaults(w, gpu, count, describe);
    // The caller's estimates are of its workload: a card that changes it
    // (another engine, a card default) uses those of its variant.
    std::optional<SharedEstimates> own;
    shared = shared != nullptr ? &shared->variant(w) : &own.emplace(w);
    const std::uint64_t usable = usable_memory(gpu, options.os, w.engine);
    const auto one_gpu = [&]() -> const MemoryEstimate& { return shared->single(); };
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
                miss.memory = shared->of(w);
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
            layouts = search_layouts(w, gpu, count, options, usable, *shared);
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
    rec.memory = shared->of(w);
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
                system > 0 ? std::optional<double>(system) : std::nullopt,
                host ? host->ram_decode_share : std::nullopt);
            rec.strategy = count > 1 ? Parallel::Pp : Parallel::None;
        }
        rec.offload = plan;
    }
    if (detail == Detail::Verdict && rec.memory.per_gpu_bytes > usable) {
        // The memory-fit rule refuses it: nothing else is worked out.
        rec.usable_bytes = usable;
        rec.headroom_bytes =
            static_cast<std::int64_t>(usable) - static_cast<std::int64_t>(rec.memory.per_gpu_bytes);
        rec.fits = false;
        return rec;
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

}  // namespace gpuadvise
