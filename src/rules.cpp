#include "gpuadvise/rules.hpp"

#include <fmt/format.h>

#include <cmath>
#include <deque>
#include <stdexcept>

#include "gpuadvise/error.hpp"
#include "gpuadvise/load.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

using Hit = std::optional<std::string>;

double gib(std::uint64_t b) {
    return static_cast<double>(b) / static_cast<double>(kGiB);
}

// Fires: an empty message while ranking, the formatted one when describing.
template <typename F>
Hit fire(const PlanContext& c, F&& message) {
    if (!c.describe) return std::string();
    return message();
}

// How many cards a plan may span: the high-speed domain, or the largest PCIe
// host for boards that plug into slots; a module or SoC spans its own board.
std::int64_t max_plan_gpus(const Gpu& g, const RuleData& d) {
    const std::int64_t pcie = g.form == FormFactor::Card && g.pcie_gen && g.pcie_lanes
                                  ? static_cast<std::int64_t>(d.get("max_pcie_cards"))
                                  : 1;
    return std::max<std::int64_t>(g.link.max_gpus, pcie);
}

// "30" or "1.5" days of `hours`, for the deadline's messages.
std::string days_text(double hours) {
    const double days = hours / 24.0;
    return days >= 10 ? fmt::format("{:.0f}", days) : fmt::format("{:.1f}", days);
}

// Whether the plan's memory comes from PyTorch's caching allocator: training
// and image pipelines run in PyTorch, and so do the inference engines whose
// policy is to allocate as they go (transformers, ExLlama, AutoAWQ). vLLM and
// SGLang reserve a share up front and llama.cpp sizes its own buffers, so the
// allocator's settings do not help them.
bool on_torch_allocator(const Workload& w) {
    if (w.trains() || w.is_image()) return true;
    return w.engine && w.engine->memory == MemoryPolicy::Allocator;
}

double headroom_share(const PlanContext& c) {
    if (c.memory.per_gpu_bytes > c.usable_bytes || c.usable_bytes == 0) return -1;
    return static_cast<double>(c.usable_bytes - c.memory.per_gpu_bytes) /
           static_cast<double>(c.usable_bytes);
}

// Whether a plan that fits is tight: the high end of the estimate's band (or,
// without one, the thin-headroom share) does not fit.
bool tight(const PlanContext& c, const RuleData& thin) {
    const double share = headroom_share(c);
    if (share < 0) return false;
    if (c.memory.band)
        return static_cast<double>(c.memory.per_gpu_bytes) * c.memory.band->second >
               static_cast<double>(c.usable_bytes);
    return share < thin.get("min_headroom_share");
}

// A score rule: fires when `applies`, multiplying the plan's score by its factor.
template <typename P>
Hit score(const PlanContext& c, const RuleData& d, P applies, std::string_view what) {
    if (!applies(c)) return std::nullopt;
    return fire(c, [&] { return fmt::format("{} (score x{:g})", what, d.get("score_factor")); });
}

std::vector<Rule> make_registry() {
    std::vector<Rule> r;
    // --- rejections -------------------------------------------------------------
    r.push_back({"memory-fit", RuleKind::Reject,
                 "the per-GPU requirement must fit the card's usable memory",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (c.memory.per_gpu_bytes <= c.usable_bytes) return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format("needs {:.1f} GiB per GPU, card has {:.1f} GiB usable",
                                            gib(c.memory.per_gpu_bytes), gib(c.usable_bytes));
                     });
                 }});
    r.push_back({"platform-holds", RuleKind::Reject,
                 "a plan's cards go into a host platform of data/platforms.json that holds them",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (c.platform != nullptr) return std::nullopt;
                     return fire(c, [&] {
                         if (c.forced_platform)
                             return fmt::format(
                                 "--platform {} does not hold {} x {} ({} cards of "
                                 "its forms at most)",
                                 c.forced_platform->id, c.workload.gpus, c.gpu.id,
                                 c.forced_platform->max_gpus);
                         return fmt::format("no platform in data/platforms.json holds {} x {}",
                                            c.workload.gpus, c.gpu.id);
                     });
                 }});
    r.push_back({"software-runs", RuleKind::Reject,
                 "the plan's engine, framework and libraries run on the card and load its weights",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     for (const SoftwareNeed& need : c.software) {
                         EngineFit fit = engine_fit(*need.engine, c.gpu, need.family, c.describe);
                         if (!fit.runs) return fire(c, [&] { return std::move(fit.reason); });
                     }
                     return std::nullopt;
                 }});
    r.push_back(
        {"host-memory", RuleKind::Reject,
         "what --offload or --train-offload keeps on the host must fit its memory (--ram, else "
         "the platform's)",
         [](const PlanContext& c, const RuleData& d) -> Hit {
             const std::uint64_t host =
                 c.offload ? c.offload->host_bytes : c.memory.host_bytes;  // training offload
             if (host == 0 || !c.host_ram) return std::nullopt;
             // The OS and the rest of the system keep part of the RAM.
             const double room = static_cast<double>(*c.host_ram) * d.get("usable_share");
             if (static_cast<double>(host) <= room) return std::nullopt;
             return fire(c, [&] {
                 return fmt::format(
                     "{} keeps {:.1f} GiB in host memory; {:.0f} % of {:.0f} GiB is "
                     "{:.1f} GiB",
                     c.offload ? "offload" : "the training offload", gib(host),
                     100.0 * d.get("usable_share"), gib(*c.host_ram),
                     room / static_cast<double>(kGiB));
             });
         }});
    r.push_back({"precision-bf16", RuleKind::Reject,
                 "bf16 needs a native BF16 path (Ampere, CDNA2, Xe and later)",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (c.workload.is_fixed() || c.workload.precision != Precision::Bf16 ||
                         c.gpu.tflops.bf16 || c.gpu.is_apple())
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format("{} has no native bf16; use --precision fp16",
                                            c.gpu.arch_family);
                     });
                 }});
    r.push_back(
        {"precision-fp8", RuleKind::Reject,
         "fp8 compute, an fp8 KV cache or FP8 training needs an FP8 path (Ada, Hopper, CDNA3 "
         "and later)",
         [](const PlanContext& c, const RuleData&) -> Hit {
             const Workload& w = c.workload;
             if (w.trains() && w.precision == Precision::Fp8) {
                 if (fp8_training_recipe(c.gpu)) return std::nullopt;
                 return fire(c, [&] { return fp8_training_refusal(c.gpu); });
             }
             const bool kv = !w.trains() && !w.is_fixed() && w.kv_dtype == KvDtype::Fp8;
             const bool weights = w.quant.format && w.quant.format->tensor_path == "fp8";
             if (!(kv || weights) || c.gpu.tflops.fp8) return std::nullopt;
             // FP8 weights alone run as weight-only FP8 where the engine has a
             // kernel for it (vLLM's FP8 Marlin); fp8-weight-only says so.
             if (!kv && !w.trains() && w.engine && fp8_weight_only(*w.engine, c.gpu))
                 return std::nullopt;
             // An image model's FP8 weights are storage: diffusers' layerwise
             // casting (hooks/layerwise_casting.py) and ComfyUI without --fast
             // (comfy/ops.py, cast_bias_weight) upcast each weight to the
             // compute dtype in every forward, on any card (the speed model
             // costs that upcast: image_performance.cpp).
             if (!kv && !w.trains() && w.is_diffusion()) return std::nullopt;
             return fire(c, [&] {
                 return fmt::format("{} has no native fp8; use int8 or 16-bit", c.gpu.arch_family);
             });
         }});
    r.push_back({"interconnect-domain", RuleKind::Reject,
                 "a plan may not span more GPUs than one host or link domain joins",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     const std::int64_t max = max_plan_gpus(c.gpu, d);
                     if (c.workload.gpus <= max || c.nodes > 1) return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format(
                             "{} GPUs exceed the {} this card can join ({})", c.workload.gpus, max,
                             c.gpu.has_fast_link() ? to_string(c.gpu.link.type) : "PCIe");
                     });
                 }});
    r.push_back(
        {"geforce-datacenter", RuleKind::Reject,
         "GeForce cards are not licensed for datacenter deployment (NVIDIA's GeForce software "
         "licence, 2.1.3); a cluster of servers joined by a fabric is one",
         [](const PlanContext& c, const RuleData&) -> Hit {
             if (c.nodes <= 1 || c.gpu.vendor != Vendor::Nvidia ||
                 c.gpu.segment != Segment::Consumer)
                 return std::nullopt;
             return fire(c, [&] {
                 return fmt::format(
                     "{} nodes of GeForce cards: the GeForce driver licence excludes datacenter "
                     "deployment (section 2.1.3); use RTX PRO or datacenter cards for a cluster",
                     c.nodes);
             });
         }});
    r.push_back({"task-memory", RuleKind::Reject,
                 "the task's minimum memory per card (the source document, §6)",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (!c.task || c.gpu.memory_bytes >= c.task->min_memory_bytes)
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format("task {} needs {:.0f} GB per card, card has {:.0f} GB",
                                            c.task->id,
                                            static_cast<double>(c.task->min_memory_bytes) / 1e9,
                                            static_cast<double>(c.gpu.memory_bytes) / 1e9);
                     });
                 }});
    r.push_back(
        {"task-bandwidth", RuleKind::Reject, "the task's bandwidth floor (the source document, §6)",
         [](const PlanContext& c, const RuleData&) -> Hit {
             if (!c.task || c.gpu.memory_bandwidth_gbps >= c.task->min_bandwidth_gbps)
                 return std::nullopt;
             return fire(c, [&] {
                 return fmt::format("task {} needs {:.0f} GB/s, card has {:.0f} GB/s", c.task->id,
                                    c.task->min_bandwidth_gbps, c.gpu.memory_bandwidth_gbps);
             });
         }});
    r.push_back({"task-nvlink", RuleKind::Reject,
                 "tasks that scale across cards need a GPU-to-GPU link such as NVLink or Infinity "
                 "Fabric (the source "
                 "document, §6)",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (!c.task || !c.task->needs_fast_link || c.gpu.has_fast_link())
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format(
                             "task {} needs a GPU-to-GPU link; this card only has PCIe",
                             c.task->id);
                     });
                 }});
    r.push_back({"feature-av1", RuleKind::Reject,
                 "video encoded in AV1 (the document's video row) needs hardware AV1 encode",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     const bool av1 =
                         (c.task && c.task->needs_av1) ||
                         (c.workload.image.streams > 0 && c.workload.image.codec == Codec::Av1);
                     if (!av1 || c.gpu.av1_encode.value_or(false)) return std::nullopt;
                     return fire(c, [&] {
                         return std::string(c.gpu.av1_encode ? "no hardware AV1 encoder"
                                                             : "hardware AV1 encode not known "
                                                               "for this card");
                     });
                 }});
    r.push_back({"video-encoder", RuleKind::Reject,
                 "H.264 and HEVC video need a hardware encoder (NVENC on NVIDIA cards)",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (c.workload.image.streams == 0 || c.workload.image.codec == Codec::Av1 ||
                         c.gpu.nvenc.value_or(1) > 0)
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format("no NVENC engine on this card for {} encode",
                                            kCodecs.name(c.workload.image.codec));
                     });
                 }});
    r.push_back({"video-sessions", RuleKind::Reject,
                 "GeForce drivers limit concurrent NVENC encode sessions",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     const double limit = d.get("geforce_sessions");
                     const std::int64_t streams = c.workload.image.streams;
                     if (streams == 0 || c.gpu.vendor != Vendor::Nvidia ||
                         c.gpu.segment != Segment::Consumer ||
                         static_cast<double>(streams) <=
                             limit * static_cast<double>(c.workload.gpus))
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format(
                             "{} streams exceed the {:g} encode sessions a GeForce driver allows "
                             "per card",
                             streams, limit);
                     });
                 }});
    r.push_back({"video-throughput", RuleKind::Reject,
                 "the model must keep up with every stream's frame rate",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     const ImageSettings& s = c.workload.image;
                     if (s.streams == 0 || !c.performance.streams_max ||
                         *c.performance.streams_max >= static_cast<double>(s.streams))
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format(
                             "the model runs {:.0f} frames/s here, {} streams at {:g} fps need "
                             "{:.0f}",
                             *c.performance.images_per_s, s.streams, s.fps,
                             static_cast<double>(s.streams) * s.fps);
                     });
                 }});
    r.push_back({"budget", RuleKind::Reject, "the plan's purchase price must be within --budget",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (!c.budget_usd) return std::nullopt;
                     // A plan without a sourced price cannot be shown to meet a budget.
                     if (c.plan_price_usd <= 0)
                         return fire(c, [&] {
                             return fmt::format(
                                 "no sourced price for {}: cannot check the ${:.0f} budget (give "
                                 "one with --catalog-merge)",
                                 c.gpu.id, *c.budget_usd);
                         });
                     if (c.plan_price_usd <= *c.budget_usd) return std::nullopt;
                     return fire(c, [&] {
                         const double host =
                             c.platform && c.platform->usd && !c.have_host ? *c.platform->usd : 0.0;
                         return fmt::format(
                             "costs ${:.0f}, over the ${:.0f} budget{}", c.plan_price_usd,
                             *c.budget_usd,
                             host > 0 ? fmt::format(" (${:.0f} of it is the {}; --have-host "
                                                    "if you own the computer)",
                                                    host, c.platform->id)
                                      : "");
                     });
                 }});
    r.push_back({"deadline", RuleKind::Reject, "a job must finish within --deadline",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     const auto hours = c.performance.job_hours;
                     if (!c.deadline_hours || !hours || *hours <= *c.deadline_hours)
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format("takes {} days, after the {}-day deadline",
                                            days_text(*hours), days_text(*c.deadline_hours));
                     });
                 }});
    // --users/--rps with --tpot, --tok-s-per-user or --ttft: each session's
    // share of the decode rate, and the batch's prefill, against the targets.
    // --users without a speed target is held to reading speed: a plan that
    // streams each session slower than people read does not serve them.
    r.push_back({"latency", RuleKind::Reject,
                 "a serving plan must meet --ttft and --tpot (or --tok-s-per-user) at its batch; "
                 "--users without a speed target must stream each session at reading speed",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     const ServingLoad& t = c.workload.load;
                     const bool by_default = t.given && !t.min_user_tokens_per_s;
                     const std::optional<double> reading =
                         by_default ? std::optional<double>(d.get("reading_tokens_per_s"))
                                    : std::nullopt;
                     const auto load = check_load(c.workload, c.performance, reading);
                     if (!load || load->meets()) return std::nullopt;
                     return fire(c, [&] {
                         if (!load->meets_speed)
                             return fmt::format(
                                 "per-user decode {:.3g} tok/s at batch {}, under the {:.3g} "
                                 "tok/s target ({})",
                                 *load->per_user_tokens_per_s, c.workload.batch,
                                 reading ? *reading : *t.min_user_tokens_per_s,
                                 reading ? "reading speed, the default with --users; "
                                           "--tok-s-per-user sets another"
                                         : t.speed_target);
                         return fmt::format(
                             "first token after {:.3g} s at batch {}, over the {:.3g} s target "
                             "({})",
                             *load->ttft_s, c.workload.batch, *t.ttft_s, t.ttft_target);
                     });
                 }});
    // --- warnings ---------------------------------------------------------------------
    r.push_back({"long-job", RuleKind::Warn,
                 "without --deadline, a job longer than this ranks after every plan that finishes "
                 "sooner",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     const auto days = c.performance.days;
                     if (c.deadline_hours || !days || *days <= d.get("max_days"))
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format(
                             "the job takes {:.0f} days on {} GPUs; more GPUs (--max-gpus) or "
                             "--deadline to rank by when it finishes",
                             *days, c.workload.gpus);
                     });
                 }});
    r.push_back({"slow-output", RuleKind::Warn,
                 "a video clip slower than this ranks after every plan that makes one sooner",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     const auto clip = c.performance.seconds_per_clip;
                     if (!clip || *clip <= d.get("max_seconds_per_clip")) return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format(
                             "a clip takes {:.1f} hours on {} GPU{}; more GPUs (--gpus), fewer "
                             "--frames or a smaller --resolution make one sooner",
                             *clip / 3600.0, c.workload.gpus, c.workload.gpus == 1 ? "" : "s");
                     });
                 }});
    r.push_back(
        {"pcie-allreduce", RuleKind::Warn,
         "full fine-tune of a large model over PCIe: all-reduce takes ~35 % of a step vs ~5 % on "
         "NVLink "
         "(the source document, §2.4)",
         [](const PlanContext& c, const RuleData& d) -> Hit {
             if (c.workload.method != Method::Full || c.workload.gpus <= 1 ||
                 c.gpu.has_fast_link() ||
                 static_cast<double>(c.workload.model.params) < d.get("min_params"))
                 return std::nullopt;
             return fire(c, [&] {
                 return fmt::format(
                     "full fine-tune of a {:.0f}B+ model over PCIe: gradient sync can take ~35 % "
                     "of each step (the source document, §2.4)",
                     d.get("min_params") / 1e9);
             });
         }});
    r.push_back(
        {"pcie-x8", RuleKind::Warn,
         "narrow PCIe links lose ~40 % with gradient checkpointing (the source document, §3)",
         [](const PlanContext& c, const RuleData& d) -> Hit {
             if (!c.workload.trains() || !c.workload.grad_ckpt || !c.gpu.pcie_lanes ||
                 static_cast<double>(*c.gpu.pcie_lanes) > d.get("max_lanes"))
                 return std::nullopt;
             return fire(c, [&] {
                 return fmt::format(
                     "PCIe x{} host link: with gradient checkpointing the source document measured "
                     "~40 % lower throughput",
                     *c.gpu.pcie_lanes);
             });
         }});
    // The catalog says a card's PCIe peer-to-peer where a source does (GeForce
    // cards: none); where it is unknown the speed assumes it, and the plan
    // says so, since without it every collective is staged through host memory.
    r.push_back({"p2p-unknown", RuleKind::Warn,
                 "cards that exchange data over PCIe without a known peer-to-peer figure: the "
                 "speed assumes direct copies",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     const Workload& w = c.workload;
                     // Pipeline stages pass one activation a token; tensor
                     // parallel and training run collectives.
                     const bool exchanges = w.gpus > 1 && w.parallel != Parallel::Pp &&
                                            (w.trains() || w.is_language());
                     // Cards with their own link (NVLink, Infinity Fabric) and
                     // servers joined by a fabric do not talk over PCIe peer-to-peer.
                     const bool linked = c.gpu.has_fast_link() || c.nodes > 1;
                     if (!exchanges || linked || c.gpu.pcie_p2p || c.gpu.shares_host_memory())
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format(
                             "PCIe peer-to-peer between {} cards is not known (no source in the "
                             "catalog): the speed assumes direct copies; without it every "
                             "collective goes through host memory at about half the link",
                             c.gpu.id);
                     });
                 }});
    r.push_back({"software-caveat", RuleKind::Warn,
                 "the plan's software runs on the card with partial or preview support",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     std::string caveats;
                     for (const SoftwareNeed& need : c.software) {
                         const EngineFit fit =
                             engine_fit(*need.engine, c.gpu, need.family, c.describe);
                         if (fit.runs && !fit.reason.empty())
                             caveats += (caveats.empty() ? "" : "; ") + fit.reason;
                     }
                     if (caveats.empty()) return std::nullopt;
                     return fire(c, [&] { return caveats; });
                 }});
    r.push_back({"paged-optimizer", RuleKind::Warn,
                 "paged optimizer state that does not fit on the card pages over PCIe each step",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     const Performance& p = c.performance;
                     if (!(p.paging_seconds > 0) || !p.step_seconds) return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format(
                             "{:.1f} GiB of paged optimizer state does not fit beside the rest: "
                             "paging it over PCIe adds {:.2f} s to each {:.2f} s step ({:.0f} %)",
                             gib(c.memory.paged_optimizer_bytes), p.paging_seconds, *p.step_seconds,
                             100.0 * p.paging_seconds / *p.step_seconds);
                     });
                 }});
    r.push_back(
        {"partial-offload", RuleKind::Warn,
         "part of the model runs from host memory: decode is bound by host bandwidth",
         [](const PlanContext& c, const RuleData&) -> Hit {
             if (!c.offload || c.offload->mode == OffloadMode::Gpu) return std::nullopt;
             return fire(c, [&] {
                 const OffloadPlan& o = *c.offload;
                 std::string where =
                     o.mode == OffloadMode::Experts && o.gpu_layers == o.total_layers
                         ? fmt::format("the experts of {} of {} layers stay in host memory",
                                       o.host_expert_layers, o.total_layers)
                         : fmt::format("only {} of {} layers fit on the GPU", o.gpu_layers,
                                       o.total_layers);
                 std::string speed;
                 const auto now = c.performance.decode_tokens_per_s;
                 const auto full = c.full_speed ? c.full_speed->decode_tokens_per_s : std::nullopt;
                 if (now && full)
                     speed = fmt::format(
                         ": ~{:.1f} tok/s instead of ~{:.0f} with it all on the GPU", *now, *full);
                 else if (!now)
                     speed = ": give --ram-bandwidth to time the host part";
                 return fmt::format("PARTIAL OFFLOAD: {} ({:.1f} GiB on the host){}", where,
                                    gib(o.host_bytes), speed);
             });
         }});
    r.push_back(
        {"thin-headroom", RuleKind::Warn,
         "fits, but the high end of the estimate's range (p90 of its validation rows; else a "
         "fixed share) does not: it may not fit",
         [](const PlanContext& c, const RuleData& d) -> Hit {
             const double share = headroom_share(c);
             if (share < 0) return std::nullopt;
             const double need = static_cast<double>(c.memory.per_gpu_bytes);
             const double usable = static_cast<double>(c.usable_bytes);
             if (c.memory.band) {
                 const double high = need * c.memory.band->second;
                 if (high <= usable) return std::nullopt;
                 return fire(c, [&] {
                     return fmt::format(
                         "may not fit: the estimate's 90th percentile is {:.1f} GiB of {:.1f} GiB "
                         "usable ({:.1f} GiB headroom at the estimate)",
                         high / static_cast<double>(kGiB), gib(c.usable_bytes),
                         gib(c.usable_bytes - c.memory.per_gpu_bytes));
                 });
             }
             if (share >= d.get("min_headroom_share")) return std::nullopt;
             return fire(c, [&] {
                 return fmt::format(
                     "only {:.1f} GiB headroom ({:.0f} %): longer sequences or fragmentation may "
                     "OOM",
                     gib(c.usable_bytes - c.memory.per_gpu_bytes), 100.0 * share);
             });
         }});
    r.push_back({"fp8-weight-only", RuleKind::Warn,
                 "FP8 weights on a card without FP8 tensor cores run as weight-only FP8 where the "
                 "engine has a kernel for it (vLLM's FP8 Marlin): slower prefill, said so",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     const Workload& w = c.workload;
                     if (w.trains() || w.is_fixed() || !w.engine || !w.quant.format ||
                         w.quant.format->tensor_path != "fp8" || !fp8_weight_only(*w.engine, c.gpu))
                         return std::nullopt;
                     return fire(c, [&] {
                         const EngineBackend* b = w.engine->backend(c.gpu.platform);
                         return fmt::format("{} on {} (compute capability {}): {}", w.engine->name,
                                            c.gpu.name, c.gpu.compute_capability.value_or("?"),
                                            b->fp8_weight_only_note);
                     });
                 }});
    r.push_back(
        {"windows-sysmem-fallback", RuleKind::Warn,
         "--os windows with a tight or too large plan on an NVIDIA card: the driver spills "
         "to shared system memory instead of failing, and runs far slower",
         [](const PlanContext& c, const RuleData& d) -> Hit {
             if (c.os != Os::Windows || c.gpu.vendor != Vendor::Nvidia ||
                 c.gpu.shares_host_memory() || c.workload.is_fixed())
                 return std::nullopt;
             const bool over = c.memory.per_gpu_bytes > c.usable_bytes;
             if (!over && !tight(c, rule_data("thin-headroom"))) return std::nullopt;
             return fire(c, [&] {
                 return fmt::format(
                     "Windows: {} GPU memory, NVIDIA's driver (since {:.2f}) moves "
                     "allocations to shared system memory instead of failing: the run "
                     "goes on at PCIe speed; set 'CUDA - Sysmem Fallback Policy' to "
                     "'Prefer No Sysmem Fallback' (NVIDIA Control Panel, driver {:.2f}+) to "
                     "get an out-of-memory error instead",
                     over ? "beyond the card's" : "near the end of the card's",
                     d.get("fallback_driver"), d.get("setting_driver"));
             });
         }});
    r.push_back({"stack-maturity", RuleKind::Warn,
                 "ROCm, oneAPI and Gaudi software support is narrower than CUDA (dated, sourced)",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     for (const RuleMessage& m : d.messages)
                         if (m.platform == c.gpu.platform)
                             return fire(c, [&] { return std::string(m.text); });
                     return std::nullopt;
                 }});
    r.push_back({"no-ecc-serving", RuleKind::Warn,
                 "consumer cards without ECC (or not known to have it) for 24/7 serving",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (c.workload.trains() || c.workload.is_fixed() ||
                         c.gpu.segment != Segment::Consumer || c.gpu.ecc.value_or(false))
                         return std::nullopt;
                     return fire(c, [&] {
                         return std::string(
                             c.gpu.ecc
                                 ? "no ECC memory: fine for development, a risk for 24/7 serving"
                                 : "ECC memory not known for this card: fine for development, a "
                                   "risk for 24/7 serving");
                     });
                 }});
    r.push_back({"bnb-backend", RuleKind::Score,
                 "bitsandbytes 4/8-bit (QLoRA, nf4, int8) is CUDA-first; other backends are newer",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     return score(
                         c, d,
                         [](const PlanContext& x) {
                             const QuantFamily f = x.workload.quant.family();
                             return (f == QuantFamily::Bnb4 || f == QuantFamily::Bnb8) &&
                                    x.gpu.platform != SoftwarePlatform::Cuda;
                         },
                         "bitsandbytes outside CUDA is newer and less tested (bitsandbytes "
                         "multi-backend docs): expect "
                         "missing kernels");
                 }});
    r.push_back({"unified-memory", RuleKind::Warn, "the GPU shares its memory with the CPU",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (!c.gpu.shares_host_memory()) return std::nullopt;
                     return fire(c, [&] {
                         std::string out =
                             c.gpu.is_apple()
                                 ? "unified memory shared with the CPU (CUDA-only libraries "
                                   "do not run)"
                                 : "memory shared with the CPU cores of the APU";
                         // The GPU's share and the setting that moves it (catalog
                         // `unified_pool`), so a tight plan says how to make room.
                         if (const auto& u = c.gpu.unified_pool) {
                             const double total = gib(c.gpu.memory_bytes);
                             out += fmt::format(": the GPU may use {:.0f} GiB of it by default",
                                                total * u->default_share);
                             if (u->max_share && *u->max_share > u->default_share)
                                 out += fmt::format(", up to {:.0f} GiB", total * *u->max_share);
                             if (!u->setting.empty())
                                 out += fmt::format("; the setting: {}", u->setting);
                         }
                         return out;
                     });
                 }});
    r.push_back(
        {"no-price", RuleKind::Warn,
         "plans without a sourced price for their cards or the host they must buy rank after "
         "priced ones by value and cost",
         [](const PlanContext& c, const RuleData&) -> Hit {
             const bool host = c.platform && !c.have_host && !c.platform->usd;
             if (c.gpu.price && !host) return std::nullopt;
             return fire(c, [&] {
                 return c.gpu.price ? fmt::format(
                                          "no sourced price for the host ({}): the system's "
                                          "price is unknown and it ranks after priced plans "
                                          "for value (--have-host if you own one)",
                                          c.platform->name)
                                    : std::string(
                                          "no sourced price in the catalog; ranked after "
                                          "priced cards for value");
             });
         }});
    // --- tips ---------------------------------------------------------------------------
    r.push_back({"alloc-conf", RuleKind::Tip,
                 "thin headroom on PyTorch's CUDA allocator: let it expand segments (the source "
                 "document, §5)",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     const double share = headroom_share(c);
                     if (c.gpu.platform != SoftwarePlatform::Cuda ||
                         !on_torch_allocator(c.workload) || share < 0 ||
                         share >= d.get("max_headroom_share"))
                         return std::nullopt;
                     return fire(c, [] {
                         return std::string(
                             "set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (or "
                             "max_split_size_mb) against fragmentation");
                     });
                 }});
    r.push_back(
        {"shrink-context", RuleKind::Tip,
         "thin headroom on an engine that sizes its memory at start-up (vLLM's reservation, "
         "llama.cpp's context): a shorter context or fewer sequences leave room",
         [](const PlanContext& c, const RuleData& d) -> Hit {
             const double share = headroom_share(c);
             const Engine* e = c.workload.trains() || c.workload.is_image() || c.workload.is_fixed()
                                   ? nullptr
                                   : c.workload.engine;
             if (!e || e->memory == MemoryPolicy::Allocator || share < 0 ||
                 share >= d.get("max_headroom_share"))
                 return std::nullopt;
             return fire(c, [&] {
                 // Name the engine's own flags where data/engines.json has its
                 // serving template (LM Studio runs llama.cpp's).
                 const Engine* launcher = e->serve ? e : find_engine(e->serve_with);
                 const ServeTemplate* t = launcher && launcher->serve ? &*launcher->serve : nullptr;
                 const auto named = [&](std::initializer_list<ServeRole> roles) {
                     for (const ServeRole role : roles)
                         if (const ServeFlag* f = t ? t->flag(role) : nullptr;
                             f && !f->args.empty())
                             return fmt::format(" ({})", f->args.front());
                     return std::string();
                 };
                 return fmt::format(
                     "{} sizes its memory when it starts: a shorter context{} or fewer "
                     "concurrent sequences{} buys headroom",
                     e->name, named({ServeRole::Context, ServeRole::TotalContext}),
                     named({ServeRole::Sequences}));
             });
         }});
    r.push_back({"prefer-bf16", RuleKind::Tip,
                 "fp16 training risks NaN losses; bf16 where the card supports it (the source "
                 "document, §5)",
                 [](const PlanContext& c, const RuleData&) -> Hit {
                     if (!c.workload.trains() || c.workload.precision != Precision::Fp16 ||
                         !c.gpu.tflops.bf16)
                         return std::nullopt;
                     return fire(c, [] {
                         return std::string(
                             "this card runs bf16 natively: prefer --precision bf16 to avoid fp16 "
                             "NaN losses");
                     });
                 }});
    r.push_back({"pinned-memory", RuleKind::Tip,
                 "bandwidth-starved cards: pinned memory and >= 4 loader workers (the source "
                 "document, §2.2)",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     if (!c.workload.trains() ||
                         c.gpu.memory_bandwidth_gbps >= d.get("max_bandwidth_gbps"))
                         return std::nullopt;
                     return fire(c, [&] {
                         return fmt::format(
                             "{:.0f} GB/s: use pinned memory and 4+ DataLoader workers so input "
                             "never waits",
                             c.gpu.memory_bandwidth_gbps);
                     });
                 }});
    // --- score adjustments --------------------------------------------------------------
    r.push_back(
        {"ecosystem-rocm", RuleKind::Score, "ROCm: fewer ready-made kernels than CUDA",
         [](const PlanContext& c, const RuleData& d) -> Hit {
             return score(
                 c, d,
                 [](const PlanContext& x) { return x.gpu.platform == SoftwarePlatform::Rocm; },
                 "ROCm ecosystem");
         }});
    r.push_back({"ecosystem-oneapi", RuleKind::Score, "oneAPI / Gaudi: narrower framework support",
                 [](const PlanContext& c, const RuleData& d) -> Hit {
                     return score(
                         c, d,
                         [](const PlanContext& x) {
                             return x.gpu.platform == SoftwarePlatform::Oneapi ||
                                    x.gpu.platform == SoftwarePlatform::Habana;
                         },
                         "oneAPI/Gaudi ecosystem");
                 }});
    r.push_back(
        {"ecosystem-metal", RuleKind::Score, "Metal/MPS: no CUDA kernels, training support limited",
         [](const PlanContext& c, const RuleData& d) -> Hit {
             return score(
                 c, d,
                 [](const PlanContext& x) { return x.gpu.platform == SoftwarePlatform::Metal; },
                 "Metal/MPS ecosystem");
         }});
    r.push_back(
        {"more-cards", RuleKind::Score,
         "between plans the speed model cannot tell apart, the one with fewer cards",
         [](const PlanContext& c, const RuleData& d) -> Hit {
             return score(
                 c, d, [](const PlanContext& x) { return x.workload.gpus > 1; },
                 fmt::format("{} cards: more power, slots and multi-GPU set-up", c.workload.gpus));
         }});
    return r;
}

}  // namespace

bool RuleData::has(std::string_view name) const {
    for (const Threshold& t : thresholds)
        if (t.name == name) return true;
    return false;
}

double RuleData::get(std::string_view name) const {
    for (const Threshold& t : thresholds)
        if (t.name == name) return t.value;
    throw std::logic_error(fmt::format("data/rules.json: rule {} has no threshold {}", id, name));
}

const std::vector<Rule>& rule_registry() {
    static const std::vector<Rule> registry = make_registry();
    return registry;
}

const RuleData& rule_data(std::string_view id) {
    for (const RuleData& d : embedded::rule_data())
        if (d.id == id) return d;
    throw std::logic_error(fmt::format("data/rules.json has no entry for rule {}", id));
}

std::vector<RuleHit> evaluate_rules(const PlanContext& context) {
    std::vector<RuleHit> hits;
    hits.reserve(8);  // a plan fires a handful; one allocation instead of four
    const auto data = embedded::rule_data();
    const auto& registry = rule_registry();
    for (std::size_t i = 0; i < registry.size(); ++i) {
        const Rule& rule = registry[i];
        // The generated data is in registry order (checked at build time).
        if (auto message = rule.check(context, data[i])) {
            double factor = rule.kind == RuleKind::Score ? data[i].get("score_factor") : 1.0;
            // A factor per card beyond the first in one box (data/rules.json
            // says so); a multi-node plan counts one node's cards, and more
            // nodes are judged by their cost and speed.
            if (rule.kind == RuleKind::Score && data[i].has("per_extra_card")) {
                const std::int64_t per_box =
                    context.workload.gpus / std::max<std::int64_t>(context.nodes, 1);
                factor = std::pow(factor, static_cast<double>(per_box - 1));
            }
            hits.push_back({rule.id, rule.kind, std::move(*message), factor});
        }
    }
    return hits;
}

namespace {

struct RuleStorage : json::Storage {
    std::deque<std::vector<Threshold>> thresholds;
    std::deque<std::vector<RuleMessage>> messages;
};

}  // namespace

Parsed<RuleData> parse_rule_data(std::string_view text, std::string_view source) {
    auto storage = std::make_shared<RuleStorage>();
    storage->text = std::string(text);
    json::Document doc =
        json::Document::parse(storage->text, source, "a JSON list of rule thresholds");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.str_or("about", "");
    const json::Value list = root.required("rules");
    if (!list.is_array()) root.fail("rules", "must be an array");
    root.finish();
    Parsed<RuleData> out;
    const json::Path top{nullptr, "rules"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        RuleData d;
        d.id = r.str("id");
        std::vector<Threshold> thresholds;
        if (const auto t = r.get("thresholds")) {
            const json::Path tp{&path, "thresholds"};
            std::size_t k = 0;
            for (const json::Value item : t->items()) {
                const json::Path ip{&tp, {}, k++, true};
                json::ObjectReader tr(item, source, &ip);
                thresholds.push_back(
                    {tr.str("name"), tr.number("value", -1e18, 1e18), tr.str("source")});
                tr.finish();
            }
        }
        std::vector<RuleMessage> messages;
        if (const auto m = r.get("messages")) {
            const json::Path mp{&path, "messages"};
            std::size_t k = 0;
            for (const json::Value item : m->items()) {
                const json::Path ip{&mp, {}, k++, true};
                json::ObjectReader mr(item, source, &ip);
                messages.push_back(
                    {kPlatforms.parse(mr.str("platform"), "platform"), mr.str("text")});
                mr.finish();
            }
        }
        r.str_or("source", "");  // where a rule without thresholds stands (documentation)
        r.finish();
        storage->thresholds.push_back(std::move(thresholds));
        d.thresholds = storage->thresholds.back();
        storage->messages.push_back(std::move(messages));
        d.messages = storage->messages.back();
        out.rows.push_back(d);
    }
    // Every rule of the registry has its row, in registry order, and nothing else.
    const auto& registry = rule_registry();
    if (out.rows.size() != registry.size())
        throw InputError(fmt::format("{}: {} rules, but the registry has {}", source,
                                     out.rows.size(), registry.size()));
    for (std::size_t k = 0; k < registry.size(); ++k) {
        if (out.rows[k].id != registry[k].id)
            throw InputError(fmt::format("{}: /rules/{} is {}, but rule {} of the registry is {}",
                                         source, k, quote(out.rows[k].id), k,
                                         quote(registry[k].id)));
        if (registry[k].kind == RuleKind::Score) {
            bool has = false;
            for (const Threshold& t : out.rows[k].thresholds) has = has || t.name == "score_factor";
            if (!has)
                throw InputError(
                    fmt::format("{}: score rule {} needs a score_factor", source, registry[k].id));
        }
    }
    storage->strings = std::move(doc).take_strings();
    out.storage = std::move(storage);
    return out;
}

}  // namespace gpuadvise
