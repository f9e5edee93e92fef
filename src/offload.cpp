#include "gpuadvise/offload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/error.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

// The model's weights and cache cut the way llama.cpp places them.
struct Parts {
    double fixed = 0;           // per GPU: runtime, compute buffers, activations, workspace
    double embedding = 0;       // the input embedding (always on the host)
    double output = 0;          // the output layer (lm_head, or the tied embedding's copy)
    double dense_layer = 0;     // one repeating layer without its experts
    double expert_layer = 0;    // one layer's routed experts (0 for dense models)
    double kv_layer = 0;        // one layer's KV cache
    double active_experts = 1;  // share of a layer's experts one token reads
    double kv_read = 1;         // share of the cache one decode step reads on average
};

Parts parts_of(const Workload& w, const MemoryEstimate& whole) {
    const Architecture& a = w.model.arch;
    const ParamCounts p = count_params(a);
    const double weights = static_cast<double>(whole.get(&Components::weights));
    const double kv = static_cast<double>(whole.get(&Components::kv_cache));
    const double adapters = static_cast<double>(whole.get(&Components::adapters));
    // llama.cpp's estimate has no embedding on the device (it stays on the
    // host); the others count it in the weights.
    const bool ggml = w.engine && w.engine->memory == MemoryPolicy::LlamaCpp;
    const auto embedding = static_cast<double>(p.embedding);
    const double counted = static_cast<double>(p.total()) - (ggml ? embedding : 0.0);
    // One average width per parameter: GGUF mixes (Q4_K_M keeps the output in
    // Q6_K) differ by tensor, the total is exact.
    const double per_param = counted > 0 ? weights / counted : 0.0;
    const double layers = static_cast<double>(std::max<std::int64_t>(a.total_layers(), 1));
    Parts r;
    r.fixed = static_cast<double>(whole.per_gpu_bytes) - weights - kv - adapters;
    r.embedding = embedding * per_param;
    r.output = static_cast<double>(p.lm_head > 0 ? p.lm_head : p.embedding) * per_param;
    const double in_layers =
        std::max(weights - (ggml ? 0.0 : r.embedding) - static_cast<double>(p.lm_head) * per_param,
                 0.0) +
        adapters;
    double experts = 0;
    if (a.is_moe() && a.experts > a.experts_per_token) {
        // Every routed expert's weights (of the MoE layers and of any MTP
        // layer the checkpoint stores), of which a token routes to k of e.
        const double e = static_cast<double>(a.experts);
        const double k = static_cast<double>(a.experts_per_token);
        experts = static_cast<double>(p.routed_experts) * per_param;
        r.active_experts = k / e;
    }
    r.expert_layer = experts / layers;
    r.dense_layer = (in_layers - experts) / layers;
    r.kv_layer = kv / layers;
    const double avg_ctx = static_cast<double>(w.prompt) + static_cast<double>(w.gen) / 2.0;
    r.kv_read = w.seq > 0 ? std::min(avg_ctx / static_cast<double>(w.seq), 1.0) : 1.0;
    return r;
}

// Fills the byte counts of a placement from its layer counts.
OffloadPlan measure(const Parts& s, OffloadPlan p, std::int64_t gpus) {
    const auto L = static_cast<double>(p.total_layers);
    const auto on_gpu = static_cast<double>(p.gpu_layers);
    const double cpu_layers = L - on_gpu;
    // The first layers are on the host; experts of the first host_expert_layers too.
    const double gpu_host_experts =
        std::max(static_cast<double>(p.host_expert_layers) - cpu_layers, 0.0);
    const double gpu_total = static_cast<double>(gpus) * s.fixed +
                             on_gpu * (s.dense_layer + s.expert_layer + s.kv_layer) -
                             gpu_host_experts * s.expert_layer + (p.output_on_gpu ? s.output : 0.0);
    const double host_weights = s.embedding + cpu_layers * (s.dense_layer + s.expert_layer) +
                                gpu_host_experts * s.expert_layer +
                                (p.output_on_gpu ? 0.0 : s.output);
    p.host_weight_bytes = host_weights;
    p.gpu_bytes = static_cast<std::uint64_t>(
        std::llround(std::max(gpu_total, 0.0) / static_cast<double>(gpus)));
    p.host_bytes = static_cast<std::uint64_t>(std::llround(host_weights + cpu_layers * s.kv_layer));
    const double expert_read = s.expert_layer * s.active_experts;
    const double kv_read = s.kv_layer * s.kv_read;
    p.gpu_read_bytes = on_gpu * (s.dense_layer + expert_read + kv_read) -
                       gpu_host_experts * expert_read + (p.output_on_gpu ? s.output : 0.0);
    p.handoffs = 2 * static_cast<std::int64_t>(gpu_host_experts) + (cpu_layers > 0 ? 1 : 0) +
                 (!p.output_on_gpu && on_gpu > 0 ? 1 : 0);
    p.host_read_bytes = cpu_layers * (s.dense_layer + expert_read + kv_read) +
                        gpu_host_experts * expert_read + (p.output_on_gpu ? 0.0 : s.output);
    return p;
}

}  // namespace

OffloadRequest parse_offload(std::string_view text, std::string_view what) {
    std::string t = lower(trim(text));
    // llama.cpp's spellings: "--n-cpu-moe 20", "--n-cpu-moe=20", "n-cpu-moe:20".
    std::string flag = t, number;
    if (const std::size_t sep = t.find_first_of(" =:"); sep != std::string::npos) {
        flag = std::string(trim(t.substr(0, sep)));
        number = std::string(trim(t.substr(sep + 1)));
    }
    while (!flag.empty() && flag.front() == '-') flag.erase(0, 1);
    const auto count = [&](std::int64_t max) {
        if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos)
            throw InputError(fmt::format(
                "{} {}: {} takes a number of layers (as llama.cpp's {} N)", what, quote(text), flag,
                flag == "ncmoe" || flag == "n-cpu-moe" ? "--n-cpu-moe" : "-ngl"));
        if (number.find_first_not_of('0') == std::string::npos) return std::int64_t{0};
        return parse_positive_int(number, what, max);
    };
    if (number.empty()) {
        if (flag == "auto") return {OffloadKind::Auto, 0};
        if (flag == "none") return {OffloadKind::None, 0};
        if (flag == "experts" || flag == "cpu-moe" || flag == "cmoe")
            return {OffloadKind::Experts, 0};
    }
    if (flag == "n-cpu-moe" || flag == "ncmoe" || flag == "experts") {
        const std::int64_t n = count(1'000'000);
        if (n == 0) return {OffloadKind::None, 0};  // --n-cpu-moe 0 keeps every expert on the GPU
        return {OffloadKind::Experts, 0, n};
    }
    if (flag == "ngl" || flag == "n-gpu-layers" || flag == "gpu-layers")
        return {OffloadKind::Layers, count(1'000'000)};
    if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos)
        throw InputError(
            fmt::format("{} {}: give auto, none, experts (--cpu-moe), n-cpu-moe N or the number of "
                        "layers on the GPU (as -ngl)",
                        what, quote(text)));
    if (t.find_first_not_of('0') == std::string::npos) return {OffloadKind::Layers, 0};
    return {OffloadKind::Layers, parse_positive_int(t, what, 1'000'000)};
}

std::optional<OffloadRequest> offload_request(const Request& r) {
    const std::optional<Given>& off = r.get(Field::Offload);
    const std::optional<Given>& all = r.get(Field::CpuMoe);
    const std::optional<Given>& first = r.get(Field::NCpuMoe);
    const Given* given[] = {off ? &*off : nullptr, all && all->text == "true" ? &*all : nullptr,
                            first ? &*first : nullptr};
    const Given* one = nullptr;
    for (const Given* g : given) {
        if (g == nullptr) continue;
        if (one != nullptr)
            throw InputError(fmt::format("{} and {} both say what stays in host memory; give one",
                                         one->origin, g->origin));
        one = g;
    }
    if (one == nullptr) return std::nullopt;
    if (one == given[0]) return parse_offload(off->text, off->origin);
    if (one == given[1]) return OffloadRequest{OffloadKind::Experts, 0};
    const std::string t(trim(first->text));
    if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos)
        throw InputError(
            fmt::format("{} {}: give the number of MoE layers whose experts stay in host memory",
                        first->origin, quote(first->text)));
    if (t.find_first_not_of('0') == std::string::npos) return OffloadRequest{};
    return OffloadRequest{OffloadKind::Experts, 0, parse_positive_int(t, first->origin, 1'000'000)};
}

OffloadPlan plan_offload(const Workload& w, const MemoryEstimate& whole, std::uint64_t usable,
                         std::int64_t gpus, OffloadRequest request) {
    const Parts s = parts_of(w, whole);
    const std::int64_t L = w.model.arch.total_layers();
    OffloadPlan base;
    base.total_layers = L;
    base.gpu_layers = L;
    gpus = std::max<std::int64_t>(gpus, 1);
    const auto fits = [&](const OffloadPlan& p, double margin) {
        return static_cast<double>(p.gpu_bytes) + margin <= static_cast<double>(usable);
    };
    switch (request.kind) {
        case OffloadKind::None:
            return measure(s, base, gpus);
        case OffloadKind::Layers: {
            if (request.gpu_layers > L + 1)
                throw InputError(fmt::format(
                    "--offload {}: the model has {} layers (and the output layer); give 0 to {}",
                    request.gpu_layers, L, L + 1));
            OffloadPlan p = base;
            p.gpu_layers = std::min(request.gpu_layers, L);
            p.output_on_gpu = request.gpu_layers > L;
            p = measure(s, p, gpus);
            p.mode = p.gpu_layers == L && p.output_on_gpu ? OffloadMode::Gpu : OffloadMode::Layers;
            return p;
        }
        case OffloadKind::Experts: {
            if (request.host_expert_layers > L)
                throw InputError(fmt::format(
                    "--n-cpu-moe {}: the model has {} layers; give 1 to {} (or --cpu-moe for all)",
                    request.host_expert_layers, L, L));
            OffloadPlan p = base;
            p.host_expert_layers =
                s.expert_layer > 0
                    ? (request.host_expert_layers > 0 ? request.host_expert_layers : L)
                    : 0;
            p = measure(s, p, gpus);
            p.mode = p.host_expert_layers > 0 ? OffloadMode::Experts : OffloadMode::Gpu;
            return p;
        }
        case OffloadKind::Auto:
            break;
    }
    const auto margin = static_cast<double>(kFitMarginBytes);
    OffloadPlan all = measure(s, base, gpus);
    if (fits(all, margin)) return all;
    // MoE: experts to the host first, then as many layers' experts back as fit
    // (llama.cpp --fit step 4 converts dense-only layers to full layers).
    if (s.expert_layer > 0) {
        OffloadPlan p = base;
        p.host_expert_layers = L;
        if (fits(measure(s, p, gpus), margin)) {
            std::int64_t lo = 0, hi = L;  // experts of the first `hi` layers on the host fit
            while (lo < hi) {
                const std::int64_t mid = lo + (hi - lo) / 2;
                OffloadPlan q = base;
                q.host_expert_layers = mid;
                if (fits(measure(s, q, gpus), margin))
                    hi = mid;
                else
                    lo = mid + 1;
            }
            p.host_expert_layers = hi;
            p = measure(s, p, gpus);
            p.mode = OffloadMode::Experts;
            return p;
        }
    }
    // Whole layers: the most that fit, the output layer on the GPU only with
    // every layer (it is slot n_layer of -ngl).
    OffloadPlan p = base;
    p.output_on_gpu = false;
    p.host_expert_layers = s.expert_layer > 0 ? L : 0;  // dense-only layers first for MoE
    std::int64_t lo = 0, hi = L;
    while (lo < hi) {
        const std::int64_t mid = hi - (hi - lo) / 2;
        OffloadPlan q = p;
        q.gpu_layers = mid;
        if (fits(measure(s, q, gpus), margin))
            lo = mid;
        else
            hi = mid - 1;
    }
    p.gpu_layers = lo;
    p = measure(s, p, gpus);
    p.mode = OffloadMode::Layers;
    return p;
}

MemoryEstimate offloaded_memory(const MemoryEstimate& whole, const OffloadPlan& plan,
                                std::int64_t gpus) {
    MemoryEstimate m = whole;
    const double weights = static_cast<double>(whole.get(&Components::weights));
    const double kv = static_cast<double>(whole.get(&Components::kv_cache));
    const double adapters = static_cast<double>(whole.get(&Components::adapters));
    const double fixed = static_cast<double>(whole.per_gpu_bytes) - weights - kv - adapters;
    const double L = static_cast<double>(std::max<std::int64_t>(plan.total_layers, 1));
    const double n = static_cast<double>(std::max<std::int64_t>(gpus, 1));
    const double kv_gpu = kv * static_cast<double>(plan.gpu_layers) / L / n;
    const double weights_gpu = std::max(static_cast<double>(plan.gpu_bytes) - fixed - kv_gpu, 0.0);
    for (std::size_t k = 0; k < kComponentNames.size(); ++k) {
        const auto member = kComponentNames[k].member;
        if (member == &Components::weights)
            m.bytes[k] = static_cast<std::uint64_t>(std::llround(weights_gpu));
        else if (member == &Components::kv_cache)
            m.bytes[k] = static_cast<std::uint64_t>(std::llround(kv_gpu));
        else if (member == &Components::adapters)
            m.bytes[k] = 0;  // counted with the layers' weights above
    }
    std::uint64_t sum = 0;
    for (const auto b : m.bytes) sum += b;
    m.per_gpu_bytes = sum;
    m.total_bytes = sum * static_cast<std::uint64_t>(n);
    m.notes.push_back(fmt::format(
        "offload: {} of {} layers on the GPU{}{}; {} in host memory", plan.gpu_layers,
        plan.total_layers, plan.output_on_gpu ? " with the output layer" : "",
        plan.host_expert_layers > 0
            ? fmt::format(", the experts of {} layers on the host", plan.host_expert_layers)
            : "",
        format_gib(plan.host_bytes)));
    return m;
}

}  // namespace gpuadvise
