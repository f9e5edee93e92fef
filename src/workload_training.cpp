// The resolver's training phases: the optimizer, precision, checkpointing and
// loss of a training run, its LoRA adapters, and a fixed 3D layout (--tp,
// --pp, --cp, --ep, --vpp).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include "gpuadvise/error.hpp"
#include "gpuadvise/layout.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"
#include "resolver.hpp"

namespace gpuadvise::workload_detail {

void Resolver::harness() {
    if (!w_.trains()) return;
    if (const Arg a = arg(Field::Harness)) {
        w_.harness = kHarnesses.parse(a.text(), a.from());
        w_.harness_given = true;
    }
}

// bitsandbytes 0.43.2 dropped the input MatMul4Bit kept for backward
// (ctx.tensors = (A, B) became (None, B), #1270, July 2024).
void Resolver::bitsandbytes() {
    const Arg a = arg(Field::Bitsandbytes);
    if (!a) return;
    if (w_.method != Method::Qlora || w_.quant.family() != QuantFamily::Bnb4)
        throw InputError(fmt::format(
            "{} applies to --method qlora with a bitsandbytes 4-bit base (--quant nf4 or fp4)",
            a.from()));
    std::array<long, 3> v{0, 0, 0};
    std::size_t part = 0, start = 0;
    const std::string_view t = a.text();
    while (start <= t.size()) {
        const std::size_t dot = std::min(t.find('.', start), t.size());
        const std::string_view n = t.substr(start, dot - start);
        if (part >= v.size() || n.empty() || n.size() > 6 ||
            !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
            throw InputError(fmt::format("{} {}: give a release like 0.41.1 or 0.45", a.from(),
                                         quote(a.text())));
        v[part++] = std::stol(std::string(n));
        start = dot + 1;
    }
    w_.bnb_keeps_input = v < std::array<long, 3>{0, 43, 2};
}

void Resolver::training() {
    if (!w_.trains()) return;
    const bool qlora = w_.method == Method::Qlora;
    const HarnessProfile& hp = w_.profile();
    bitsandbytes();
    if (const Arg a = arg(Field::MixedPrecision)) {
        w_.mixed = kMixedPrecisions.parse(a.text(), a.from());
    } else if (w_.harness_given && hp.mixed) {
        w_.mixed = *hp.mixed;
        assume(fmt::format("mixed-precision={} ({}'s default)", to_string(w_.mixed), hp.label));
    } else {
        w_.mixed = MixedPrecision::Amp;
        assume("mixed-precision=amp (fp32 trainable weights and optimizer state, 16-bit compute)");
    }
    if (const Arg a = arg(Field::Optimizer)) {
        w_.optimizer = kOptimizers.parse(a.text(), a.from());
    } else {
        w_.optimizer = qlora ? Optimizer::PagedAdamW32bit : Optimizer::AdamW;
        assume(qlora ? "optimizer=paged-adamw-32bit (document §4 QLoRA recipe)"
                     : "optimizer=adamw");
    }
    w_.optimizer_in_backward = r_.flag(Field::OptimizerInBackward).value_or(false);
    if (const Arg a = arg(Field::OptimizerImpl)) {
        w_.optimizer_impl = kOptimizerImpls.parse(a.text(), a.from());
    } else if (w_.harness_given) {
        w_.optimizer_impl = hp.optimizer_impl;
        if (w_.optimizer == Optimizer::AdamW)
            assume(fmt::format("optimizer-impl={} ({}'s AdamW)",
                               kOptimizerImpls.name(w_.optimizer_impl), hp.label));
    } else {
        w_.optimizer_impl = OptimizerImpl::Foreach;
        if (w_.optimizer == Optimizer::AdamW)
            assume("optimizer-impl=foreach (torch.optim's default on CUDA)");
    }
    loss();
    // Hugging Face's collators (DataCollatorWithPadding, TRL's SFT collator
    // without packing=True) pad each batch to its longest sample, so the
    // common run sees a new shape every step.
    if (const auto packing = r_.flag(Field::Packing)) {
        w_.packing = *packing;
    } else if (w_.harness_given && hp.packing) {
        w_.packing = true;
        assume(fmt::format("packing=on ({} pads every sample to the maximum length)", hp.label));
    } else {
        w_.packing = false;
        assume(
            "packing=off (batches padded to their longest sample, as Hugging Face's "
            "collators do)");
    }
    fused_kernels();
    if (const auto e = r_.flag(Field::ExpandableSegments)) {
        w_.expandable_segments = *e;
    } else if (w_.harness_given && hp.expandable_segments) {
        w_.expandable_segments = true;
        assume(fmt::format("expandable-segments=on ({} sets PYTORCH_CUDA_ALLOC_CONF)", hp.label));
    }
    // torch.utils.checkpoint's use_reentrant, as the harness calls it, unless
    // given: a harness's default changed between its releases (ms-swift
    // 1.x-2.x patched torch's default to False, 3.x passes True on one GPU).
    w_.reentrant_ckpt = r_.flag(Field::CkptReentrant).value_or(hp.reentrant_ckpt);
    ckpt_mode();
    if (r_.has(Field::GradAccum)) w_.grad_accum = positive(Field::GradAccum, 1'000'000);
}

// How the element-wise work runs: Unsloth's Triton kernels, a pretraining
// framework's fused kernels (Megatron-LM and NeMo through Transformer Engine,
// torchtitan and OLMo-core through torch.compile) for full training without
// a harness, else the harness's eager PyTorch ops.
void Resolver::fused_kernels() {
    const HarnessProfile& hp = w_.profile();
    if (const auto f = r_.flag(Field::FusedKernels)) {
        w_.fused_kernels = *f;
    } else if (w_.harness_given && hp.fused_lora_kernels) {
        w_.fused_kernels = true;
        assume(fmt::format("fused-kernels=on ({}'s Triton kernels)", hp.label));
    } else if (!w_.harness_given && w_.method == Method::Full) {
        w_.fused_kernels = true;
        assume(
            "fused-kernels=on (full training without --harness is taken as a pretraining "
            "framework: Transformer Engine or torch.compile)");
    } else {
        w_.fused_kernels = false;
        assume(fmt::format("fused-kernels=off (eager PyTorch ops, as {} runs the model's code)",
                           hp.label));
    }
}

// --grad-ckpt is --ckpt-mode full and --no-grad-ckpt is --ckpt-mode none;
// given with --ckpt-mode they must agree.
void Resolver::ckpt_mode() {
    const std::optional<bool> toggle = r_.flag(Field::GradCkpt);
    if (const Arg a = arg(Field::CkptMode)) {
        w_.ckpt_mode = kCkptModes.parse(a.text(), a.from());
        if (toggle && *toggle != (w_.ckpt_mode != CkptMode::None))
            throw InputError(fmt::format("{} contradicts {} {}; give one of them",
                                         r_.get(Field::GradCkpt)->origin, a.from(),
                                         quote(a.text())));
    } else if (!toggle && w_.harness_given) {
        const HarnessProfile& hp = w_.profile();
        const std::int64_t gpus = r_.has(Field::Gpus) ? positive(Field::Gpus, kMaxGpus) : 1;
        if (w_.method == Method::Qlora && hp.kbit_prepare) {
            w_.ckpt_mode = CkptMode::Full;
            assume(fmt::format("ckpt-mode=full ({}: prepare_model_for_kbit_training turns it on)",
                               hp.label));
        } else {
            w_.ckpt_mode = gpus > 1 && hp.ckpt_multi_gpu ? *hp.ckpt_multi_gpu : hp.ckpt;
            assume(fmt::format("ckpt-mode={} ({}'s default{})", kCkptModes.name(w_.ckpt_mode),
                               hp.label, gpus > 1 && hp.ckpt_multi_gpu ? " on several GPUs" : ""));
        }
    } else {
        w_.ckpt_mode = toggle.value_or(true) ? CkptMode::Full : CkptMode::None;
        if (!toggle) assume("grad-ckpt=on (document §2.1 example and §4 recipe)");
    }
    w_.grad_ckpt = w_.ckpt_mode != CkptMode::None;
}

// --chunked-loss is the older spelling of --loss chunked; both name one
// setting, so they must agree.
void Resolver::loss() {
    const bool chunked = r_.flag(Field::ChunkedLoss).value_or(false);
    if (const Arg a = arg(Field::Loss)) {
        w_.loss = kLosses.parse(a.text(), a.from());
        if (chunked && w_.loss != Loss::Chunked)
            throw InputError(
                fmt::format("{} means --loss chunked, which contradicts {} {}; give one of them",
                            r_.get(Field::ChunkedLoss)->origin, a.from(), quote(a.text())));
    } else if (chunked) {
        w_.loss = Loss::Chunked;
    } else if (w_.harness_given) {
        w_.loss = w_.profile().loss;
        assume(fmt::format("loss={} ({}'s loss)", kLosses.name(w_.loss), w_.profile().label));
    } else {
        w_.loss = Loss::Upcast;
        assume(
            "loss=upcast (Hugging Face's ForCausalLMLoss casts the logits to fp32 for the "
            "cross-entropy)");
    }
}

std::vector<LoraTarget> Resolver::lora_targets(const Arg& a) const {
    std::vector<LoraTarget> out;
    const auto add = [&out](LoraTarget t) {
        if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    };
    const std::string_view text = a.text();
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string item(trim(text.substr(start, comma - start)));
        start = comma + 1;
        // Hugging Face module names too: q_proj, gate_proj, ...
        if (const auto p = item.find("_proj"); p != std::string::npos) item.erase(p);
        if (item.empty())
            throw InputError(fmt::format("{} {} has an empty entry; use e.g. q,v or all-linear",
                                         a.from(), quote(text)));
        const std::string key = normalize_name(item);
        if (key == "alllinear" || key == "all") {
            // PEFT's all-linear: every linear layer of the blocks, not the output head.
            for (const auto t : {LoraTarget::Q, LoraTarget::K, LoraTarget::V, LoraTarget::O,
                                 LoraTarget::Gate, LoraTarget::Up, LoraTarget::Down})
                add(t);
        } else if (key == "mlp") {
            for (const auto t : {LoraTarget::Gate, LoraTarget::Up, LoraTarget::Down}) add(t);
        } else {
            add(kLoraTargets.parse(item, a.from() + " module"));
        }
    }
    return out;
}

void Resolver::lora() {
    if (!w_.uses_lora()) return;
    w_.lora_rank = r_.has(Field::LoraRank) ? positive(Field::LoraRank, 65536) : 64;
    if (!r_.has(Field::LoraRank)) assume("lora-rank=64 (document §4 QLoRA recipe)");
    if (const Arg a = arg(Field::LoraTargets)) {
        w_.lora_targets = lora_targets(a);
    } else {
        w_.lora_targets = {LoraTarget::Q, LoraTarget::V};
        assume("lora-targets=q,v (document §4: q_proj, v_proj)");
    }
    if (const Arg a = arg(Field::LoraDropout)) {
        w_.lora_dropout = parse_real_in(a.text(), a.from(), 0.0, 0.99, "0.05");
    } else if (w_.harness_given) {
        w_.lora_dropout = w_.profile().lora_dropout;
        assume(fmt::format("lora-dropout={} ({}'s default)", w_.lora_dropout, w_.profile().label));
    }
}

void Resolver::train_offload() {
    const Arg a = arg(Field::TrainOffload);
    if (!a || !w_.trains()) return;
    w_.train_offload = kTrainOffloads.parse(a.text(), a.from());
    if (w_.train_offload == TrainOffload::None) return;
    if (w_.layout_request.any())
        throw InputError(fmt::format(
            "{} {} with a layout that splits the model ({}) is not modelled; drop one of them",
            a.from(), a.text(), layout_origin()));
    const bool one = w_.gpus == 1;
    const Parallel p = w_.parallel;
    if (w_.train_offload == TrainOffload::Optimizer && !one && p != Parallel::Zero1 &&
        p != Parallel::Zero2 && p != Parallel::Zero3)
        throw InputError(fmt::format(
            "{} optimizer is DeepSpeed's ZeRO-Offload: use --parallel zero1, zero2 or zero3{}",
            a.from(),
            p == Parallel::Fsdp
                ? "; FSDP offloads the parameters with the optimizer (--train-offload "
                  "params)"
                : ""));
    if (w_.train_offload == TrainOffload::Params && !one && p != Parallel::Zero3 &&
        p != Parallel::Fsdp)
        throw InputError(fmt::format(
            "{} params keeps the sharded parameters in host memory: use --parallel zero3 or fsdp",
            a.from()));
    // DeepSpeedCPUAdam (ZeRO-Offload) or torch.optim on the CPU (FSDP
    // offload) steps the host copy; bitsandbytes' optimizers are CUDA-only.
    const bool bnb = w_.optimizer == Optimizer::AdamW8bit ||
                     w_.optimizer == Optimizer::PagedAdamW8bit ||
                     w_.optimizer == Optimizer::PagedAdamW32bit;
    if (bnb && r_.has(Field::Optimizer))
        throw InputError(fmt::format(
            "{} {} steps on the GPU (bitsandbytes); with {} the step runs on the CPU: use "
            "--optimizer adamw",
            r_.get(Field::Optimizer)->origin, to_string(w_.optimizer), a.from()));
    if (bnb) {
        w_.optimizer = Optimizer::AdamW;
        assume(
            "optimizer=adamw (the offloaded step runs on the CPU: DeepSpeedCPUAdam or "
            "torch.optim)");
    }
}

// --tp, --pp, --cp, --ep, --vpp fix a layout that splits the model; with
// --gpus it is checked against the count now, else against each plan's.
void Resolver::layout() {
    LayoutRequest& q = w_.layout_request;
    const auto size = [&](Field f) -> std::optional<std::int64_t> {
        if (!r_.has(f)) return std::nullopt;
        return positive(f, kMaxGpus);
    };
    q.tp = size(Field::Tp);
    q.pp = size(Field::Pp);
    q.cp = size(Field::Cp);
    q.ep = size(Field::Ep);
    q.vpp = size(Field::Vpp);
    if (const Arg g = arg(Field::GlobalBatch)) {
        if (r_.has(Field::GradAccum))
            throw InputError(
                fmt::format("{} and {} both set the micro-batches per step; give one of them",
                            g.from(), r_.get(Field::GradAccum)->origin));
        w_.global_batch = positive(Field::GlobalBatch, 1'000'000'000);
        if (*w_.global_batch % w_.batch != 0)
            throw InputError(fmt::format(
                "{} {} is not a multiple of the micro-batch --batch {}; give a multiple", g.from(),
                *w_.global_batch, w_.batch));
    }
    w_.grad_accum_given = r_.has(Field::GradAccum) || w_.global_batch.has_value();
    if (!q.any()) return;
    const Arg p = arg(Field::Parallel);
    if (p && (w_.parallel == Parallel::Tp || w_.parallel == Parallel::Pp ||
              w_.parallel == Parallel::Ddp || w_.parallel == Parallel::None))
        throw InputError(fmt::format(
            "{} {} {} {} splits it; with a layout, --parallel says how the data-parallel "
            "ranks shard: zero1, zero2, zero3 or fsdp",
            p.from(), to_string(w_.parallel),
            w_.parallel == Parallel::Ddp || w_.parallel == Parallel::None
                ? "keeps the whole model on every GPU, while"
                : "splits the model too, and",
            layout_origin()));
    // A requested interleaving must split the layers evenly: Megatron's
    // interleaved schedule gives every virtual stage the same layers.
    if (q.vpp && *q.vpp > 1) {
        const std::int64_t chunks = q.pp.value_or(1) * *q.vpp;
        const std::int64_t layers = w_.model.arch.total_layers();
        if (q.pp.value_or(1) > 1 && layers % chunks != 0)
            throw InputError(fmt::format(
                "{}: the model's {} layers do not split into pp {} x vpp {} = {} equal chunks "
                "(Megatron's interleaved schedule needs a multiple); choose another --vpp",
                layout_origin(), layers, q.pp.value_or(1), *q.vpp, chunks));
    }
    // What the model allows whatever the count (dp = ep passes the ep check).
    Layout fixed{q.tp.value_or(1), q.pp.value_or(1), q.cp.value_or(1),
                 q.ep.value_or(1), q.ep.value_or(1), q.vpp.value_or(1)};
    if (const std::string why = layout_problem(w_.model.arch, w_.seq, fixed); !why.empty())
        throw InputError(fmt::format("{}: {}; choose another size", layout_origin(), why));
    if (!p) {
        w_.parallel = Parallel::Zero1;
        assume(
            "parallel=zero1 (Megatron's distributed optimizer) across the data-parallel "
            "ranks of the layout");
    }
    if (r_.has(Field::Gpus)) {
        if (w_.gpus == 1)
            throw InputError(
                fmt::format("{} splits the model, but --gpus is 1; add --gpus N", layout_origin()));
        w_.layout = requested_layout(w_.model.arch, w_.seq, w_.gpus, q, layout_origin());
    }
}

bool Resolver::layout_given() const {
    for (const Field f : {Field::Tp, Field::Pp, Field::Cp, Field::Ep, Field::Vpp})
        if (r_.has(f)) return true;
    return false;
}

std::string Resolver::layout_origin() const {
    std::string out;
    for (const Field f : {Field::Tp, Field::Pp, Field::Cp, Field::Ep, Field::Vpp})
        if (const Arg a = arg(f))
            out += fmt::format("{}{} {}", out.empty() ? "" : " ", a.from(), a.text());
    return out;
}

}  // namespace gpuadvise::workload_detail
