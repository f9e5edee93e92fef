// The ranking as a table: one row per plan, bare numbers with their units
// in the columns (table.hpp adds them for people and names them in CSV's
// header), the memory bars, and the steps that narrow it to a terminal.
// Split from report_text.cpp, which lays out the reports around it.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "gpuadvise/report_text.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

double gib(std::uint64_t b) {
    return static_cast<double>(b) / static_cast<double>(kGiB);
}

}  // namespace

std::string memory_bar(const MemoryEstimate& m, std::uint64_t usable, Bars bars,
                       std::size_t cells) {
    if (bars == Bars::None || cells == 0) return "";
    const bool ascii = bars == Bars::Ascii;
    // weights, KV cache, everything else, free
    const std::array<std::string_view, 4> glyph =
        ascii ? std::array<std::string_view, 4>{"#", "=", "+", "."}
              : std::array<std::string_view, 4>{"\u2588", "\u2593", "\u2592", "\u2591"};
    const double cap = static_cast<double>(std::max(usable, m.per_gpu_bytes));
    if (cap <= 0) return std::string();
    const double weights = static_cast<double>(m.get(&Components::weights));
    const double kv = static_cast<double>(m.get(&Components::kv_cache));
    const double rest = static_cast<double>(m.per_gpu_bytes) - weights - kv;
    // Cumulative boundaries rounded once, so the cells add up to the width.
    const double n = static_cast<double>(cells);
    const std::array<std::size_t, 3> edge{
        static_cast<std::size_t>(std::lround(weights / cap * n)),
        static_cast<std::size_t>(std::lround((weights + kv) / cap * n)),
        static_cast<std::size_t>(std::lround((weights + kv + std::max(rest, 0.0)) / cap * n))};
    std::string out;
    for (std::size_t i = 0; i < cells; ++i)
        out += glyph[i < edge[0] ? 0 : i < edge[1] ? 1 : i < edge[2] ? 2 : 3];
    if (m.per_gpu_bytes > usable) out += "!";  // over the card: the bar is the need
    return out;
}

std::string bars_legend(Bars bars) {
    if (bars == Bars::None) return "";
    if (bars == Bars::Ascii)
        return "Use: # weights  = KV cache  + other  . free (of usable memory; ! over it)\n";
    return "Use: \u2588 weights  \u2593 KV cache  \u2592 other  \u2591 free (of usable memory; ! "
           "over it)\n";
}

std::string short_gpu_id(std::string_view id) {
    for (const auto& row : kVendors.rows()) {
        const std::string prefix = std::string(row.name) + "-";
        if (starts_with(id, prefix) && id.size() > prefix.size())
            return std::string(id.substr(prefix.size()));
    }
    return std::string(id);
}

std::string count_for_people(std::string_view cell) {
    std::uint64_t count = 0;
    const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), count);
    if (ec != std::errc() || ptr != cell.data() + cell.size()) return std::string(cell);
    return format_count(count);
}

std::string_view rate_header(const Workload& w) {
    return w.generates_video()   ? "Gen frames/s"
           : w.image.streams > 0 ? "frames/s"
           : w.is_image()        ? (w.trains() ? "Train img/s" : "img/s")
           : w.trains()          ? "Train tok/s"
           : w.embeds()          ? "seq/s"
                                 : "tok/s";
}

namespace {

// How the ranking narrows to fit a terminal, first step first; each step is
// taken only while the table is still too wide. What a reader asks first
// (which card, how many, does it fit, how fast, what the system costs) stays
// longest; card specifications `gpus show` prints and text the other
// columns repeat go first. docs/output.md lists the same order.
constexpr NarrowStep kRankingNarrowing[] = {
    {"Reason", Narrow::Cut, 30},  // its first clause restates Fits and Headroom
    {"Bandwidth"},                // a card's specification (gpus show)
    {"Price"},                    // the cards alone; System is what the plan costs
    {"Headroom"},                 // Need/GPU against Memory, and the Reason, say it
    {"Engine"},
    {"GPU", Narrow::Shorten, 0, short_gpu_id},  // nvidia-rtx-4090 -> rtx-4090
    {"Reason", Narrow::Cut, 20},
    {"Reason"},
    {"Memory"},
    {"Use"},
    {"cost"},  // $/Mtok or Job $
    {"Need/GPU"},
    {"GPU", Narrow::Cut, 14},
};

}  // namespace

std::span<const NarrowStep> ranking_narrowing() {
    return kRankingNarrowing;
}

std::string_view plan_price_kind(const Recommendation& r) {
    if (r.price_usd <= 0 || r.gpu == nullptr || !r.gpu->price) return "";
    const auto used = [](const Gpu* g) {
        return g != nullptr && g->price && g->price->kind == PriceKind::Used;
    };
    if (used(r.gpu) || std::any_of(r.placement.begin(), r.placement.end(),
                                   [&](const Placement& p) { return used(p.gpu); }))
        return to_string(PriceKind::Used);
    return to_string(r.gpu->price->kind);
}

std::string used_price_note(const std::vector<Recommendation>& recs, std::size_t top) {
    std::string list;
    for (std::size_t i = 0; i < recs.size() && i < top; ++i) {
        const Recommendation& r = recs[i];
        if (plan_price_kind(r) != to_string(PriceKind::Used)) continue;
        list += fmt::format("{}#{} {} ${:.0f} ({})", list.empty() ? "" : ", ", i + 1, r.gpu->id,
                            r.price_usd, r.gpu->price->date);
    }
    if (list.empty()) return "";
    return fmt::format(
        "Used prices (second-hand listings, no warranty; dated, see 'gpuadvise gpus show'): {}\n",
        list);
}

Table recommendations_table(const Workload& w, const std::vector<Recommendation>& recs,
                            std::size_t top, const Style& style) {
    const bool job = !recs.empty() && recs.front().performance.job_cost_usd.has_value();
    const bool serving = !w.trains() && w.is_language();
    Table t;
    t.columns = {{"#", true},
                 {"GPU"},
                 {"GPUs", true},
                 {"Fits"},
                 {"Need/GPU", true, "GiB"},
                 {"Memory", true, "GiB"},
                 {"Headroom", true, "GiB"},
                 {"Bandwidth", true, "GB/s"},
                 {std::string(rate_header(w)), true},
                 {"Price", true, "USD"},
                 {"System", true, "USD"}};
    t.narrowing = kRankingNarrowing;
    if (serving) t.columns.push_back({"Engine"});
    const bool bars = style.bars != Bars::None;
    if (bars) t.columns.push_back({"Use"});
    const bool cost_column = job || serving;
    if (cost_column) t.columns.push_back({job ? "Job $" : "$/Mtok", true, "USD", "cost"});
    t.columns.push_back({"Reason"});
    // Cells are bare numbers ("" when unknown): table.hpp adds the units for
    // people and puts them in CSV's header.
    const auto number = [](const std::optional<double>& v) {
        const std::string text = format_rate(v);
        return text == "-" ? std::string() : text;
    };
    for (std::size_t i = 0; i < recs.size() && i < top; ++i) {
        const Recommendation& r = recs[i];
        const Gpu& g = *r.gpu;
        const auto& cost = job ? r.performance.job_cost_usd : r.performance.usd_per_million_tokens;
        std::vector<std::string> row{std::to_string(i + 1),
                                     std::string(g.id),
                                     std::to_string(r.count),
                                     std::string(fit_word(r)),
                                     fmt::format("{:.1f}", gib(r.memory.per_gpu_bytes)),
                                     fmt::format("{:.0f}", gib(g.memory_bytes)),
                                     fmt::format("{:.1f}", static_cast<double>(r.headroom_bytes) /
                                                               static_cast<double>(kGiB)),
                                     fmt::format("{:.0f}", g.memory_bandwidth_gbps),
                                     number(r.performance.rate()),
                                     r.price_usd > 0 ? fmt::format("{:.0f}", r.price_usd) : "",
                                     r.total_usd > 0 ? fmt::format("{:.0f}", r.total_usd) : ""};
        if (serving) row.emplace_back(r.engine ? std::string(r.engine->id) : "-");
        if (bars) row.push_back(memory_bar(r.memory, r.usable_bytes, style.bars));
        if (cost_column) row.push_back(number(cost));
        row.push_back(r.reasons.empty() ? "" : r.reasons.front());
        t.rows.push_back(std::move(row));
    }
    return t;
}

}  // namespace gpuadvise
