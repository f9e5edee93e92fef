#pragma once
// --format html: one self-contained page to share a ranking: the workload,
// the price/speed chart with its value frontier (inline SVG, chart.hpp), each
// shown plan's memory bar (weights, KV cache, the rest, against the card's
// usable memory) and the ranking table. No scripts, styles inline, nothing
// fetched. Every text that came from outside (model and catalog names) is
// sanitised and escaped. The page is also well-formed XML (void elements
// closed, only XML's character references), so XML tools read it.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// A part of the text output the page carries as it is (the document's pick,
// --emit's command, --explain): a heading and preformatted text.
struct HtmlSection {
    std::string title;
    std::string text;
};

std::string recommend_html(const Workload& w, const MemoryEstimate& m,
                           const std::vector<Recommendation>& recs, std::size_t top,
                           const RankOptions& options, std::size_t catalog_size,
                           std::span<const HtmlSection> extra = {});

// The chart alone, as an <svg> element (the page's first figure).
std::string price_speed_svg(const Workload& w, const std::vector<Recommendation>& recs,
                            std::size_t top);

}  // namespace gpuadvise
