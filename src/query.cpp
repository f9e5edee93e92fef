#include "gpuadvise/query.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/energy.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/network.hpp"
#include "gpuadvise/offload.hpp"
#include "gpuadvise/platform.hpp"
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
    if (const auto& v = r.get(Field::Deadline)) {
        j.deadline_hours = parse_duration_hours(v->text, v->origin);
        if (!j.tokens && !j.steps && !j.dataset_tokens && !j.chinchilla)
            throw InputError(fmt::format(
                "{} {} needs the job's size to time it: add --tokens, --steps, --chinchilla or "
                "--dataset-tokens",
                v->origin, quote(v->text)));
    }
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
    // Plans that meet a deadline are all on time: the cheapest job wins.
    if (o.job.deadline_hours && !r.has(Field::RankBy)) o.rank_by = RankBy::Cost;
    o.rent = r.flag(Field::Rent).value_or(false);
    if (o.rent && o.job.cloud_price_per_gpu_hour)
        throw InputError(
            "--rent prices each card at its own cloud median; --cloud-price-per-gpu-hour sets one "
            "price for every card: give one of them");
    // One price for every card is renting too: value is then per dollar-hour.
    if (o.job.cloud_price_per_gpu_hour) o.rent = true;
    if (const auto& v = r.get(Field::MaxGpus))
        o.max_gpus = parse_positive_int(v->text, v->origin, 16'384);
    o.budget_usd = real(r, Field::Budget, kMinBudget, kMaxBudget, "5000");
    if (o.rent && o.budget_usd && !o.job.tokens && !o.job.steps && !o.job.dataset_tokens &&
        !o.job.chinchilla)
        throw InputError(fmt::format(
            "{} with renting is what the job may cost: add the job's size (--tokens, --steps, "
            "--chinchilla or --dataset-tokens), or drop --rent to budget a purchase",
            r.get(Field::Budget)->origin));
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
    if (const auto offload = offload_request(r)) o.offload = *offload;
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
        std::int64_t most = 0;
        for (const HostPlatform& p : host_platforms()) most = std::max(most, p.max_gpus);
        if (node > most)
            throw InputError(fmt::format(
                "{} {}: no platform in data/platforms.json holds {} GPUs in one node (the largest "
                "holds {}); give --gpus-per-node {} or less",
                v->origin, node, node, most, most));
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

namespace gpuadvise {
namespace {

// The card as this run sees it: the catalog's, or a copy with --vram's memory
// (a laptop or cut-down variant of the same chip).
const Gpu* with_vram(const Request& r, const Gpu& gpu, std::deque<Gpu>& made) {
    const auto& v = r.get(Field::Vram);
    if (!v) return &gpu;
    if (!v->text.empty() && trim(v->text).find_first_not_of("0123456789.") == std::string::npos)
        throw InputError(fmt::format("{} {} has no unit; give a size like {}GB", v->origin,
                                     quote(v->text), trim(v->text)));
    const std::uint64_t bytes = parse_bytes(v->text, v->origin);
    if (bytes < (1ULL << 28U))
        throw InputError(fmt::format("{} {}: a card has at least 256 MiB; give a size like 12GB",
                                     v->origin, quote(v->text)));
    Gpu& copy = made.emplace_back(gpu);
    copy.memory_bytes = bytes;
    return &copy;
}

// FP8 training on a card without an FP8 path is a usage error for the
// commands that answer for one box (ranking rejects such plans with the reason).
void check_fp8_cards(const Request& r, const Workload& w, const std::vector<const Gpu*>& cards) {
    if (!w.trains() || w.precision != Precision::Fp8) return;
    const auto& p = r.get(Field::Precision);
    for (const Gpu* g : cards)
        if (const std::string why = fp8_training_refusal(*g); !why.empty())
            throw InputError(
                fmt::format("{} fp8 on {}: {}", p ? p->origin : "--precision", g->id, why));
}

}  // namespace

std::vector<const Gpu*> box_cards(const Catalog& catalog, const Request& r, Workload& w,
                                  std::deque<Gpu>& made, const std::vector<std::string>* detected) {
    const auto& g = r.get(Field::Gpu);
    if (!g) throw InputError("--gpu is required: name the card (or the cards) to answer for");
    const auto& given = r.get(Field::Gpus);
    std::vector<std::string> names;
    const bool local = detected != nullptr;
    if (local) {
        names = *detected;
    } else if (g->text.find(',') == std::string::npos) {
        names.push_back(g->text);
    } else {
        for (std::string_view rest = g->text;;) {
            const std::size_t comma = rest.find(',');
            const std::string_view name = trim(rest.substr(0, comma));
            if (name.empty())
                throw InputError(fmt::format(
                    "{} {}: an empty name in the list; separate card names with single commas",
                    g->origin, quote(g->text)));
            names.emplace_back(name);
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
    }
    std::vector<const Gpu*> cards;
    if (names.size() == 1 && !local) {
        // One name (also an empty one, which resolve_gpu reports): --gpus copies of it.
        cards.assign(static_cast<std::size_t>(w.gpus),
                     with_vram(r, resolve_gpu(catalog, names[0], g->origin), made));
        check_fp8_cards(r, w, cards);
        return cards;
    }
    if (const auto& v = r.get(Field::Vram))
        throw InputError(
            fmt::format("{} sets one card's memory; with several cards in {} name each one",
                        v->origin, g->origin));
    if (given && !local && static_cast<std::size_t>(w.gpus) != names.size())
        throw InputError(fmt::format("{} {} names {} cards but {} says {}; drop {}", g->origin,
                                     quote(g->text), names.size(), given->origin, w.gpus,
                                     given->origin));
    if (given && local && static_cast<std::size_t>(w.gpus) > names.size())
        throw InputError(fmt::format("{} {}: this machine has {} cards in the catalog",
                                     given->origin, w.gpus, names.size()));
    if (given && local) names.resize(static_cast<std::size_t>(w.gpus));
    for (const auto& name : names) cards.push_back(&resolve_gpu(catalog, name, g->origin));
    if (cards.size() > static_cast<std::size_t>(kMaxBoxGpus))
        throw InputError(fmt::format("{} {} names {} cards; one box holds {} at most", g->origin,
                                     quote(g->text), cards.size(), kMaxBoxGpus));
    check_fp8_cards(r, w, cards);
    w.gpus = static_cast<std::int64_t>(cards.size());
    if (w.gpus > 1 && w.parallel == Parallel::None) w.parallel = default_parallel(w);
    return cards;
}

Recommendation plan_box(const Request& r, Workload& w, std::vector<const Gpu*>& cards,
                        const RankOptions& options) {
    const auto& most = r.get(Field::MaxGpus);
    Recommendation rec;
    if (!most || r.has(Field::Gpus)) {
        rec = evaluate_box(w, cards, options);
    } else {
        if (cards.size() != 1)
            throw InputError(fmt::format(
                "{} searches how many of one card a plan needs; {} names {} cards: drop {}",
                most->origin, r.get(Field::Gpu) ? r.get(Field::Gpu)->origin : "the box",
                cards.size(), most->origin));
        const Gpu* gpu = cards.front();
        for (std::int64_t count = 1; count <= options.max_gpus; count *= 2) {
            rec = evaluate_plan(w, *gpu, count, options);
            if (rec.fits) break;
        }
        w.gpus = rec.count;
        w.parallel = rec.strategy;
        cards.assign(static_cast<std::size_t>(rec.count), gpu);
    }
    // A node size no platform holds for this card answers "does not fit" for
    // the wrong reason: it is the value that is wrong.
    if (const auto& v = r.get(Field::GpusPerNode); v && options.gpus_per_node) {
        const Gpu& gpu = *cards.front();
        if (!choose_platform(gpu, *options.gpus_per_node)) {
            std::int64_t largest = 0;
            for (const HostPlatform& p : host_platforms())
                if (p.holds(gpu, p.max_gpus)) largest = std::max(largest, p.max_gpus);
            throw InputError(fmt::format(
                "{} {}: no platform in data/platforms.json holds {} x {} in one node (at most {}); "
                "give --gpus-per-node {} or less",
                v->origin, *options.gpus_per_node, *options.gpus_per_node, gpu.id, largest,
                largest));
        }
    }
    rec.limits = plan_limits(w, rec, cards, options);
    add_plan_curve(rec, w, cards, options);
    return rec;
}

}  // namespace gpuadvise
