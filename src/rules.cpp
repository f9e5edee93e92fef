#include "gpuadvise/rules.hpp"

#include <fmt/format.h>

#include "gpuadvise/names.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

using Hit = std::optional<std::string>;

double gib(std::uint64_t b) { return static_cast<double>(b) / static_cast<double>(kGiB); }

bool multi_gpu(const PlanContext& c) { return c.workload.gpus > 1; }
bool fast_link(const Gpu& g) { return g.interconnect_type != "none"; }

// How many cards a plan may span: the high-speed domain, or 8 cards over PCIe
// for boards that plug into PCIe slots.
std::int64_t max_plan_gpus(const Gpu& g) {
    const std::int64_t pcie = g.pcie_gen && g.pcie_lanes && g.form_factor.find("SXM") == std::string::npos &&
                                      g.form_factor.find("OAM") == std::string::npos
                                  ? 8
                                  : 1;
    return std::max<std::int64_t>(g.interconnect_max_gpus, pcie);
}

std::string family_note(const Gpu& g) {
    if (g.vendor == "amd")
        return "ROCm: PyTorch and vLLM support MI200/MI300 (gfx90a/gfx942) and RDNA3/4 as of 2025 (vLLM ROCm "
               "install docs); custom CUDA kernels (bitsandbytes, some FlashAttention variants) may lag";
    if (g.vendor == "intel")
        return "oneAPI: PyTorch XPU (>= 2.5) supports Arc and Data Center Max; bitsandbytes, FlashAttention and vLLM "
               "support is partial (PyTorch 'Getting Started on Intel GPU', 2025)";
    return "";
}

std::vector<Rule> make_registry() {
    std::vector<Rule> r;
    // --- rejections -------------------------------------------------------
    r.push_back({"memory-fit", RuleKind::Reject, "the per-GPU requirement must fit the card's usable memory",
                 [](const PlanContext& c) -> Hit {
                     if (c.memory.per_gpu_bytes <= c.usable_bytes) return std::nullopt;
                     return fmt::format("needs {:.1f} GiB per GPU, card has {:.1f} GiB usable", gib(c.memory.per_gpu_bytes),
                                        gib(c.usable_bytes));
                 }});
    r.push_back({"precision-bf16", RuleKind::Reject, "bf16 needs a native BF16 tensor path (Ampere, CDNA2, Xe and later)",
                 [](const PlanContext& c) -> Hit {
                     if (c.workload.precision != Precision::Bf16 || c.gpu.tflops.bf16 || c.gpu.vendor == "apple")
                         return std::nullopt;
                     return fmt::format("{} has no native bf16; use --precision fp16", c.gpu.arch_family);
                 }});
    r.push_back({"precision-fp8", RuleKind::Reject, "fp8 weights or KV cache need an FP8 path (Ada, Hopper, CDNA3 and later)",
                 [](const PlanContext& c) -> Hit {
                     const bool wants = c.workload.quant == Quant::Fp8 ||
                                        (!c.workload.trains() && c.workload.kv_dtype == KvDtype::Fp8);
                     if (!wants || c.gpu.tflops.fp8) return std::nullopt;
                     return fmt::format("{} has no native fp8; use int8 or 16-bit", c.gpu.arch_family);
                 }});
    r.push_back({"interconnect-domain", RuleKind::Reject, "a plan may not span more GPUs than the card can join",
                 [](const PlanContext& c) -> Hit {
                     const std::int64_t max = max_plan_gpus(c.gpu);
                     if (c.workload.gpus <= max) return std::nullopt;
                     return fmt::format("{} GPUs exceed the {} this card can join ({})", c.workload.gpus, max,
                                        fast_link(c.gpu) ? c.gpu.interconnect_type : "PCIe");
                 }});
    r.push_back({"task-memory", RuleKind::Reject, "the task's minimum memory per card (document §6)",
                 [](const PlanContext& c) -> Hit {
                     if (!c.task || c.gpu.memory_bytes >= c.task->min_memory_bytes) return std::nullopt;
                     return fmt::format("task {} needs {:.0f} GB per card, card has {:.0f} GB", c.task->id,
                                        static_cast<double>(c.task->min_memory_bytes) / 1e9,
                                        static_cast<double>(c.gpu.memory_bytes) / 1e9);
                 }});
    r.push_back({"task-bandwidth", RuleKind::Reject, "the task's bandwidth floor (document §6)",
                 [](const PlanContext& c) -> Hit {
                     if (!c.task || c.gpu.memory_bandwidth_gbps >= c.task->min_bandwidth_gbps) return std::nullopt;
                     return fmt::format("task {} needs {:.0f} GB/s, card has {:.0f} GB/s", c.task->id,
                                        c.task->min_bandwidth_gbps, c.gpu.memory_bandwidth_gbps);
                 }});
    r.push_back({"task-nvlink", RuleKind::Reject, "tasks that scale across cards need NVLink or Infinity Fabric (document §6)",
                 [](const PlanContext& c) -> Hit {
                     if (!c.task || !c.task->needs_nvlink || fast_link(c.gpu)) return std::nullopt;
                     return fmt::format("task {} needs a GPU-to-GPU link; this card only has PCIe", c.task->id);
                 }});
    r.push_back({"feature-av1", RuleKind::Reject, "the video task needs hardware AV1 encode",
                 [](const PlanContext& c) -> Hit {
                     if (!c.task || !c.task->needs_av1 || c.gpu.av1_encode.value_or(false)) return std::nullopt;
                     return std::string("no hardware AV1 encoder");
                 }});
    r.push_back({"budget", RuleKind::Reject, "the plan's purchase price must be within --budget",
                 [](const PlanContext& c) -> Hit {
                     if (!c.budget_usd || !c.gpu.price) return std::nullopt;
                     const double cost = c.gpu.price->usd * static_cast<double>(c.workload.gpus);
                     if (cost <= *c.budget_usd) return std::nullopt;
                     return fmt::format("costs ${:.0f}, over the ${:.0f} budget", cost, *c.budget_usd);
                 }});
    // --- warnings ---------------------------------------------------------
    r.push_back({"pcie-allreduce", RuleKind::Warn,
                 "full fine-tune of >= 13B over PCIe: all-reduce takes ~35 % of a step vs ~5 % on NVLink (document §2.4)",
                 [](const PlanContext& c) -> Hit {
                     if (c.workload.method != Method::Full || !multi_gpu(c) || fast_link(c.gpu) ||
                         c.workload.model.params < 13'000'000'000ULL)
                         return std::nullopt;
                     return std::string("full fine-tune of a 13B+ model over PCIe: gradient sync can take ~35 % of "
                                        "each step (document §2.4)");
                 }});
    r.push_back({"pcie-x8", RuleKind::Warn, "PCIe x8 cards lose ~40 % with gradient checkpointing (document §3)",
                 [](const PlanContext& c) -> Hit {
                     if (!c.workload.trains() || !c.workload.grad_ckpt || !c.gpu.pcie_lanes || *c.gpu.pcie_lanes > 8)
                         return std::nullopt;
                     return fmt::format("PCIe x{} host link: with gradient checkpointing the document measured ~40 % "
                                        "lower throughput",
                                        *c.gpu.pcie_lanes);
                 }});
    r.push_back({"host-lanes", RuleKind::Warn,
                 "more than two PCIe cards need a workstation or server platform for their lanes (document §2.2)",
                 [](const PlanContext& c) -> Hit {
                     if (c.workload.gpus <= 2 || c.gpu.segment == "datacenter" || !c.gpu.pcie_lanes) return std::nullopt;
                     return fmt::format("{} cards x {} PCIe lanes = {} lanes: desktop boards give two cards x8/x8; plan a "
                                        "workstation or server platform",
                                        c.workload.gpus, *c.gpu.pcie_lanes, c.workload.gpus * *c.gpu.pcie_lanes);
                 }});
    r.push_back({"thin-headroom", RuleKind::Warn, "less than 10 % of usable memory left",
                 [](const PlanContext& c) -> Hit {
                     if (c.memory.per_gpu_bytes > c.usable_bytes) return std::nullopt;
                     const std::uint64_t left = c.usable_bytes - c.memory.per_gpu_bytes;
                     if (static_cast<double>(left) >= 0.1 * static_cast<double>(c.usable_bytes)) return std::nullopt;
                     return fmt::format("only {:.1f} GiB headroom ({:.0f} %): longer sequences or fragmentation may OOM",
                                        gib(left), 100.0 * static_cast<double>(left) / static_cast<double>(c.usable_bytes));
                 }});
    r.push_back({"stack-maturity", RuleKind::Warn, "ROCm / oneAPI support is narrower than CUDA (dated, sourced)",
                 [](const PlanContext& c) -> Hit {
                     const std::string note = family_note(c.gpu);
                     if (note.empty()) return std::nullopt;
                     return note;
                 }});
    r.push_back({"no-ecc-serving", RuleKind::Warn, "consumer cards without ECC for 24/7 serving",
                 [](const PlanContext& c) -> Hit {
                     if (c.workload.trains() || c.gpu.segment != "consumer" || c.gpu.ecc.value_or(true))
                         return std::nullopt;
                     return std::string("no ECC memory: fine for development, a risk for 24/7 serving");
                 }});
    r.push_back({"bnb-backend", RuleKind::Score,
                 "bitsandbytes 4/8-bit (QLoRA, nf4, int8) is CUDA-first; other backends are previews (x0.5)",
                 [](const PlanContext& c) -> Hit {
                     const Quant q = c.workload.quant;
                     const bool bnb = q == Quant::Nf4 || q == Quant::Fp4 || q == Quant::Int8;
                     if (!bnb || c.gpu.software_platform == "cuda") return std::nullopt;
                     return std::string("bitsandbytes outside CUDA is a multi-backend preview (bitsandbytes docs, "
                                        "2025): expect missing kernels (score x0.5)");
                 },
                 0.5});
    r.push_back({"unified-memory", RuleKind::Warn, "unified memory is shared with the CPU",
                 [](const PlanContext& c) -> Hit {
                     if (c.gpu.vendor != "apple") return std::nullopt;
                     return std::string("unified memory shared with the CPU; about 75 % is usable by the GPU, and "
                                        "CUDA-only libraries (bitsandbytes, FlashAttention) do not run");
                 }});
    r.push_back({"no-price", RuleKind::Warn, "cards without a sourced price rank after priced ones by value and cost",
                 [](const PlanContext& c) -> Hit {
                     if (c.gpu.price) return std::nullopt;
                     return std::string("no sourced price in the catalog; ranked after priced cards for value");
                 }});
    // --- tips -------------------------------------------------------------
    r.push_back({"alloc-conf", RuleKind::Tip, "thin headroom on CUDA: let the allocator expand segments (document §5)",
                 [](const PlanContext& c) -> Hit {
                     if (c.gpu.software_platform != "cuda" || c.memory.per_gpu_bytes > c.usable_bytes) return std::nullopt;
                     const std::uint64_t left = c.usable_bytes - c.memory.per_gpu_bytes;
                     if (static_cast<double>(left) >= 0.2 * static_cast<double>(c.usable_bytes)) return std::nullopt;
                     return std::string("set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (or max_split_size_mb) "
                                        "against fragmentation");
                 }});
    r.push_back({"prefer-bf16", RuleKind::Tip, "fp16 training risks NaN losses; bf16 where the card supports it (document §5)",
                 [](const PlanContext& c) -> Hit {
                     if (!c.workload.trains() || c.workload.precision != Precision::Fp16 || !c.gpu.tflops.bf16)
                         return std::nullopt;
                     return std::string("this card runs bf16 natively: prefer --precision bf16 to avoid fp16 NaN losses");
                 }});
    r.push_back({"pinned-memory", RuleKind::Tip, "bandwidth-starved cards: pinned memory and >= 4 loader workers (document §2.2)",
                 [](const PlanContext& c) -> Hit {
                     if (!c.workload.trains() || c.gpu.memory_bandwidth_gbps >= 600) return std::nullopt;
                     return fmt::format("{:.0f} GB/s: use pinned memory and 4+ DataLoader workers so input never waits",
                                        c.gpu.memory_bandwidth_gbps);
                 }});
    // --- score adjustments --------------------------------------------------
    r.push_back({"ecosystem-rocm", RuleKind::Score, "ROCm: fewer ready-made kernels than CUDA (x0.85)",
                 [](const PlanContext& c) -> Hit {
                     if (c.gpu.software_platform != "rocm") return std::nullopt;
                     return std::string("ROCm ecosystem (score x0.85)");
                 },
                 0.85});
    r.push_back({"ecosystem-oneapi", RuleKind::Score, "oneAPI / Habana: narrower framework support (x0.75)",
                 [](const PlanContext& c) -> Hit {
                     if (c.gpu.software_platform != "oneapi" && c.gpu.software_platform != "habana") return std::nullopt;
                     return std::string("oneAPI/Habana ecosystem (score x0.75)");
                 },
                 0.75});
    r.push_back({"ecosystem-metal", RuleKind::Score, "Metal/MPS: no CUDA kernels, training support limited (x0.6)",
                 [](const PlanContext& c) -> Hit {
                     if (c.gpu.software_platform != "metal" && c.gpu.vendor != "apple") return std::nullopt;
                     return std::string("Metal/MPS ecosystem (score x0.6)");
                 },
                 0.6});
    return r;
}

}  // namespace

std::string to_string(RuleKind k) {
    switch (k) {
        case RuleKind::Reject: return "reject";
        case RuleKind::Warn: return "warn";
        case RuleKind::Tip: return "tip";
        case RuleKind::Score: return "score";
    }
    return "?";
}

std::optional<Os> parse_os(const std::string& text) {
    const std::string k = normalize_name(text);
    if (k == "linux") return Os::Linux;
    if (k == "windows") return Os::Windows;
    if (k == "wsl" || k == "wsl2") return Os::Wsl;
    return std::nullopt;
}

std::uint64_t os_reserved_bytes(Os os) {
    return os == Os::Linux ? 0 : kGiB + kGiB / 2;
}

std::uint64_t usable_memory(const Gpu& gpu, Os os) {
    std::uint64_t bytes = gpu.memory_bytes;
    if (gpu.vendor == "apple") bytes = bytes / 4 * 3;
    const std::uint64_t reserved = os_reserved_bytes(os);
    return bytes > reserved ? bytes - reserved : 0;
}

const std::vector<Rule>& rule_registry() {
    static const std::vector<Rule> registry = make_registry();
    return registry;
}

std::vector<RuleHit> evaluate_rules(const PlanContext& context) {
    std::vector<RuleHit> hits;
    for (const Rule& rule : rule_registry())
        if (auto message = rule.check(context)) hits.push_back({rule.id, rule.kind, std::move(*message), rule.score_factor});
    return hits;
}

}  // namespace gpuadvise
