#include "gpuadvise/query.hpp"

#include <fmt/format.h>

#include "gpuadvise/energy.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/network.hpp"
#include "gpuadvise/offload.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

// Bounds that keep every derived figure finite and meaningful: a price of
// 1e-300 or an amortisation over 1e-300 years is a typo, not a plan.
constexpr double kMinYears = 0.1, kMaxYears = 30;
constexpr double kMinKwh = 0.0, kMaxKwh = 10;
constexpr double kMinCloud = 0.001, kMaxCloud = 10000;
constexpr double kMinBudget = 1, kMaxBudget = 1e12;
constexpr double kMaxEpochs = 1e6;

std::optional<double> real(const Request& r, Field f, double min, double max,
                           std::string_view example) {
    const auto& v = r.get(f);
    if (!v) return std::nullopt;
    return parse_real_in(v->text, v->origin, min, max, example);
}

}  // namespace

JobOptions job_options(const Request& r) {
    JobOptions j;
    if (const auto& v = r.get(Field::Tokens))
        j.tokens = static_cast<double>(parse_param_count(v->text, v->origin));
    j.chinchilla = r.flag(Field::Chinchilla).value_or(false);
    if (const auto& v = r.get(Field::Steps))
        j.steps = static_cast<double>(parse_positive_int(v->text, v->origin, 1'000'000'000'000));
    j.epochs = real(r, Field::Epochs, 1e-3, kMaxEpochs, "3");
    if (const auto& v = r.get(Field::DatasetTokens))
        j.dataset_tokens = static_cast<double>(parse_param_count(v->text, v->origin));
    if (const auto y = real(r, Field::AmortizeYears, kMinYears, kMaxYears, "3"))
        j.amortize_years = *y;
    if (const auto p = real(r, Field::KwhPrice, kMinKwh, kMaxKwh, "0.15")) j.kwh_price_usd = *p;
    j.pue = real(r, Field::Pue, kMinPue, kMaxPue, "1.2");
    j.cloud_price_per_gpu_hour = real(r, Field::CloudPrice, kMinCloud, kMaxCloud, "2.5");
    if (j.epochs && !j.dataset_tokens)
        throw InputError(fmt::format("{} needs --dataset-tokens (how many tokens one epoch is)",
                                     r.get(Field::Epochs)->origin));
    if (static_cast<int>(j.tokens.has_value()) + static_cast<int>(j.steps.has_value()) +
            static_cast<int>(j.dataset_tokens.has_value()) + static_cast<int>(j.chinchilla) >
        1)
        throw InputError(
            "give the job size once: --tokens, --chinchilla, --steps, or --dataset-tokens (with "
            "--epochs)");
    return j;
}

RankOptions rank_options(const Request& r, const Workload& w) {
    RankOptions o;
    o.job = job_options(r);
    if (const auto& v = r.get(Field::RankBy)) o.rank_by = kRankBy.parse(v->text, v->origin);
    if (const auto& v = r.get(Field::MaxGpus))
        o.max_gpus = parse_positive_int(v->text, v->origin, 16'384);
    o.budget_usd = real(r, Field::Budget, kMinBudget, kMaxBudget, "5000");
    if (const auto& v = r.get(Field::Vendor)) o.vendor = kVendors.parse(v->text, v->origin);
    if (const auto& v = r.get(Field::Segment)) o.segment = kSegments.parse(v->text, v->origin);
    if (const auto& v = r.get(Field::Os)) o.os = kOses.parse(v->text, v->origin);
    if (const auto& v = r.get(Field::Platform)) o.platform = &parse_platform(v->text, v->origin);
    o.have_host = r.flag(Field::HaveHost).value_or(false);
    if (const auto& v = r.get(Field::Region))
        o.region = parse_choice(v->text, v->origin, spec(Field::Region).choices());
    if (w.task) o.task = &w.task->requirements;
    if (r.has(Field::Gpus)) {
        o.fixed_gpus = w.gpus;
        if (r.has(Field::MaxGpus) && w.gpus > o.max_gpus)
            throw InputError(fmt::format("--gpus {} is more than --max-gpus {}; give one of them",
                                         w.gpus, o.max_gpus));
    }
    if (r.has(Field::Parallel)) o.parallel = w.parallel;
    if (const auto& v = r.get(Field::Offload)) o.offload = parse_offload(v->text, v->origin);
    if (const auto& v = r.get(Field::Ram)) {
        o.ram_bytes = parse_bytes(v->text, v->origin);
        if (*o.ram_bytes == 0)
            throw InputError(
                fmt::format("{} {}: host memory must be more than 0", v->origin, quote(v->text)));
    }
    if (const auto& v = r.get(Field::Network)) o.network = &parse_network(v->text, v->origin);
    if (const auto& v = r.get(Field::GpusPerNode)) {
        o.gpus_per_node = parse_positive_int(v->text, v->origin, 1024);
        const std::int64_t node = *o.gpus_per_node;
        const Architecture& a = w.model.arch;
        // Tensor parallel stays inside a node's NVLink domain.
        if (w.trains() && w.parallel == Parallel::Tp && a.heads > 0 && a.heads % node != 0)
            throw InputError(fmt::format(
                "{} {} with --parallel tp: tensor parallel over a node's {} GPUs does not divide "
                "the {} attention heads; use --gpus-per-node {} or --tp N",
                v->origin, node, node, a.heads,
                a.heads % 8 == 0   ? 8
                : a.heads % 4 == 0 ? 4
                                   : 2));
        if (w.layout_request.tp && *w.layout_request.tp > node)
            throw InputError(fmt::format(
                "--tp {} is more than {} {}: tensor parallel stays inside a node; give --tp {} or "
                "fewer",
                *w.layout_request.tp, v->origin, node, node));
    }
    if (const auto& v = r.get(Field::RamBandwidth))
        o.ram_gbps = parse_bandwidth_gbps(v->text, v->origin);
    return o;
}

GpuFilter gpu_filter(const Request& r) {
    GpuFilter f;
    if (const auto& v = r.get(Field::Vendor)) f.vendor = kVendors.parse(v->text, v->origin);
    if (const auto& v = r.get(Field::Segment)) f.segment = kSegments.parse(v->text, v->origin);
    if (const auto& v = r.get(Field::MinMemory))
        f.min_memory_bytes = parse_bytes(v->text, v->origin);
    if (const auto& v = r.get(Field::MinBandwidth))
        f.min_bandwidth_gbps = parse_bandwidth_gbps(v->text, v->origin);
    if (const auto& v = r.get(Field::Supports))
        f.supports = parse_choice(v->text, v->origin, spec(Field::Supports).choices());
    if (const auto& v = r.get(Field::Sort))
        f.sort = parse_choice(v->text, v->origin, spec(Field::Sort).choices());
    return f;
}

std::size_t top_count(const Request& r) {
    const auto& v = r.get(Field::Top);
    return v ? static_cast<std::size_t>(parse_positive_int(v->text, v->origin, 100'000)) : 10;
}

}  // namespace gpuadvise
