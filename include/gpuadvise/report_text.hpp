#pragma once
// Reports for people: the same values as report_json.hpp, laid out as tables
// (table.hpp renders them aligned, as CSV or as Markdown) and short texts.
// Text that came from outside (model names, catalog entries) is sanitised.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/fit.hpp"
#include "gpuadvise/launch.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/table.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// "1.2 GiB"-style cells and rates as the JSON rounds them.
std::string format_rate(const std::optional<double>& v);

// A count cell ("8030261248") as people read it ("8.03B"); a cell that is
// not a count is returned as it is.
std::string count_for_people(std::string_view cell);
// The ranking's speed column: "tok/s", "Train tok/s", "img/s", "frames/s".
std::string_view rate_header(const Workload& w);
// A GPU id without its vendor ("nvidia-rtx-4090" -> "rtx-4090"): the
// ranking's abbreviation on a narrow terminal.
std::string short_gpu_id(std::string_view id);
// How the ranking table narrows to fit a terminal, first step first (the
// order docs/output.md documents).
std::span<const NarrowStep> ranking_narrowing();

// The kind of a plan's card price: "used" when any of its cards is priced
// second-hand, else its card's (msrp, street, list, street-estimate); ""
// when the price is unknown.
std::string_view plan_price_kind(const Recommendation& r);
// The line under a ranking that labels the used prices among its first
// `top` plans ("used prices: #19 nvidia-tesla-p100-16gb $60 (2026-06) ..."),
// "" when none is used.
std::string used_price_note(const std::vector<Recommendation>& recs, std::size_t top);

// The ranking: cells are bare numbers with the units in the columns (CSV's
// header names them; people see "14.3 GiB", "$2699").
Table recommendations_table(const Workload& w, const std::vector<Recommendation>& recs,
                            std::size_t top, const Style& style = {});
Table memory_table(const MemoryEstimate& m);
Table gpus_table(const std::vector<const Gpu*>& gpus);
Table gpu_detail_table(const Gpu& g);
Table models_table(const std::vector<ModelPreset>& presets);
Table rules_table();
Table performance_table(const Performance& p);

// Whole reports: text (aligned tables, headings) or Markdown. CSV output is
// the main table alone (a header row and one row per item).
std::string workload_text(const Workload& w);
std::string memory_text(const MemoryEstimate& m, const Workload& w, Format format,
                        const Style& style);
// On a terminal narrower than the text, prose lines are wrapped and tables
// narrowed (table.hpp); `plot` adds price_speed_plot after the ranking.
std::string recommend_text(const Workload& w, const MemoryEstimate& m,
                           const std::vector<Recommendation>& recs, std::size_t top,
                           const RankOptions& options, std::size_t catalog_size, Format format,
                           const Style& style, bool plot = false);
// --plot (Format::Table or Markdown): system price (log scale) against speed,
// the value frontier as a staircase, the `top` plans labelled with their rank
// and listed below; plans without a known price or speed are counted, not
// drawn. style.width (80 when 0, at most 120) sizes it; style.ascii draws it
// with ASCII characters.
std::string price_speed_plot(const Workload& w, const std::vector<Recommendation>& recs,
                             std::size_t top, Format format, const Style& style);
// One plan's offload, limits, platform, engine, reasons, warnings and tips as
// lines (estimate --gpu and check print the same); `with_reasons` false leaves
// out the reasons a verdict line already gave.
std::string plan_notes_text(const Recommendation& rec, Format format, bool with_reasons = true);
// "fits", "fits (tight)" or "does not fit": the word estimate and check share.
std::string_view verdict_text(const Recommendation& rec);
// `fit`: the models that run on `label`'s cards.
std::string fit_text(const std::string& label, std::span<const Gpu* const> cards,
                     const FitResult& result, const FitOptions& fit, std::size_t top, Format format,
                     const Style& style);
// --emit's command (and config file) as text; `title` names the plan.
std::string launch_text(const Launch& l, std::string_view title, Format format, const Style& style);
// A mixed box's cards and what each holds ("" for one kind of card).
std::string placement_text(const Recommendation& rec, Format format, const Style& style);
// A bar of `cells` cells: the estimate's weights, KV cache and the rest
// against the card's usable memory ("" with Bars::None).
std::string memory_bar(const MemoryEstimate& m, std::uint64_t usable, Bars bars,
                       std::size_t cells = 10);
// The key under a table with bars: what each block means.
std::string bars_legend(Bars bars);
// The source document's pick beside ours (--task).
std::string document_pick_text(const DocumentPick& pick, const std::vector<Recommendation>& recs,
                               Format format);
// `--explain`: every rule that fired for each shown plan.
std::string explain_text(const std::vector<Recommendation>& recs, std::size_t top);
// `check`: one line in a table, or "fits: ..." / "does not fit: ..." and then
// the plan's notes, as estimate --gpu prints them.
std::string check_text(const Recommendation& rec, Format format, const Style& style);

}  // namespace gpuadvise
