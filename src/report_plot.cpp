// --plot: the ranking's price/speed chart (chart.hpp) drawn with characters,
// box-drawing by default and plain ASCII with --ascii, sized to the terminal.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "gpuadvise/chart.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {
namespace {

constexpr std::size_t kRows = 16;  // the plot's height: a third of a 48-line terminal

// The lines through a cell, as bits: the frontier's staircase is drawn by
// joining them, so corners and crossings get their proper glyph.
enum : std::uint8_t { kLeft = 1, kRight = 2, kUp = 4, kDown = 8 };

std::string_view line_glyph(std::uint8_t m, bool ascii) {
    const bool horizontal = (m & (kLeft | kRight)) != 0, vertical = (m & (kUp | kDown)) != 0;
    if (ascii) return horizontal && vertical ? "+" : horizontal ? "-" : "|";
    // Indexed by the four bits: left, right, up, down.
    static constexpr std::array<std::string_view, 16> kBox{
        " ",      "\u2500", "\u2500", "\u2500", "\u2502", "\u2518", "\u2514", "\u2534",
        "\u2502", "\u2510", "\u250c", "\u252c", "\u2502", "\u2524", "\u251c", "\u253c"};
    return kBox[m & 0xFU];
}

struct Glyphs {
    std::string_view point, frontier_point, axis_v, axis_tick, corner, axis_h, axis_h_tick;
};
constexpr Glyphs kUnicode{"\u2022", "\u25c6", "\u2502", "\u2524", "\u2514", "\u2500", "\u252c"};
constexpr Glyphs kAscii{"o", "*", "|", "+", "+", "-", "+"};

std::string where_text(const Recommendation& r, const Chart& c, std::size_t rank,
                       const std::vector<std::size_t>& unlabelled) {
    if (!r.fits) return "left out: does not fit";
    const bool crowded = std::find(unlabelled.begin(), unlabelled.end(), rank) != unlabelled.end();
    for (const ChartPoint& p : c.points)
        if (p.rank == rank)
            return std::string(p.frontier ? "on the frontier" : "below the frontier") +
                   (crowded ? " (no room for its number)" : "");
    return r.total_usd <= 0 ? "left out: no known price" : "left out: no speed estimate";
}

}  // namespace

std::string price_speed_plot(const Workload& w, const std::vector<Recommendation>& recs,
                             std::size_t top, Format format, const Style& style) {
    const Chart chart = price_speed_chart(recs, top);
    const Glyphs& g = style.ascii ? kAscii : kUnicode;
    const std::size_t width = std::clamp<std::size_t>(style.width > 0 ? style.width : 80, 40, 120);
    const bool md = format == Format::Markdown;
    std::string out =
        md ? "## Price and speed\n\n" : paint("Price and speed", "1", style.color) + "\n";
    std::string intro =
        chart.points.empty()
            ? fmt::format(
                  "Nothing to draw: none of the {} plans that fit has a known price and "
                  "speed.",
                  chart.fitting)
            : fmt::format(
                  "{} plans that fit, by system price (log scale) and {}; the line is "
                  "the value frontier: no other plan costs no more and runs at least as "
                  "fast.",
                  chart.points.size() == chart.fitting
                      ? fmt::format("The {}", chart.fitting)
                      : fmt::format("{} of the {}", chart.points.size(), chart.fitting),
                  rate_header(w));
    if (chart.no_price + chart.no_speed > 0) {
        std::string why;
        if (chart.no_price > 0) why = fmt::format("{} without a known price", chart.no_price);
        if (chart.no_speed > 0)
            why += fmt::format("{}{} without a speed estimate", why.empty() ? "" : ", ",
                               chart.no_speed);
        intro += fmt::format(" Left out: {}.", why);
    }
    out += wrap(intro, md ? 0 : width) + "\n";
    if (chart.points.empty()) return out;

    // The speed axis: labels in a gutter on the left, then the axis line.
    const std::vector<double> rate_ticks = linear_ticks(chart.rate_hi, 6);
    std::size_t label_width = 0;
    for (const double t : rate_ticks) label_width = std::max(label_width, rate_label(t).size());
    const std::size_t gutter = label_width + 2;  // the label, a space and the axis
    const std::size_t cols = width - gutter;
    const auto column_of = [&](double price) {
        return static_cast<std::size_t>(std::lround(
            log_position(price, chart.price_lo, chart.price_hi) * static_cast<double>(cols - 1)));
    };
    const auto row_of = [&](double rate) {
        const double f = std::clamp(1.0 - rate / chart.rate_hi, 0.0, 1.0);
        return static_cast<std::size_t>(std::lround(f * static_cast<double>(kRows - 1)));
    };

    std::vector<std::vector<std::uint8_t>> lines(kRows, std::vector<std::uint8_t>(cols, 0));
    std::vector<std::vector<std::string>> cells(kRows, std::vector<std::string>(cols, " "));
    // The frontier as a staircase: the best speed a budget buys rises only at
    // a frontier plan's price.
    for (std::size_t k = 0; k + 1 < chart.frontier.size(); ++k) {
        const ChartPoint &a = chart.points[chart.frontier[k]],
                         &b = chart.points[chart.frontier[k + 1]];
        const std::size_t ca = column_of(a.price_usd), cb = column_of(b.price_usd);
        const std::size_t ra = row_of(a.rate), rb = row_of(b.rate);
        for (std::size_t c = ca; c <= cb; ++c) {
            if (c > ca) lines[ra][c] |= kLeft;
            if (c < cb) lines[ra][c] |= kRight;
        }
        for (std::size_t r = rb; r <= ra; ++r) {
            if (r < ra) lines[r][cb] |= kDown;
            if (r > rb) lines[r][cb] |= kUp;
        }
    }
    for (std::size_t r = 0; r < kRows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            if (lines[r][c] != 0) cells[r][c] = std::string(line_glyph(lines[r][c], style.ascii));
    // Points, then the shown plans' ranks over them (#1 first, so it wins a
    // crowded cell; a later label moves up to three cells aside).
    for (const ChartPoint& p : chart.points)
        cells[row_of(p.rate)][column_of(p.price_usd)] =
            std::string(p.frontier ? g.frontier_point : g.point);
    // A label keeps a blank (or a point) between it and the next, so "3" and
    // "10" never read as "310"; it moves at most three cells aside or one row
    // up or down, and is left out (the legend says so) when that is not enough.
    std::vector<std::vector<bool>> labelled(kRows, std::vector<bool>(cols, false));
    std::vector<std::size_t> unlabelled;
    const auto free_at = [&](std::size_t r, std::ptrdiff_t start, std::size_t len) {
        if (start < 0 || static_cast<std::size_t>(start) + len > cols) return false;
        const auto s = static_cast<std::size_t>(start);
        for (std::size_t i = s == 0 ? 0 : s - 1; i < std::min(cols, s + len + 1); ++i)
            if (labelled[r][i]) return false;
        return true;
    };
    static constexpr std::array<std::pair<int, int>, 13> kMoves{{{0, 0},
                                                                 {0, 1},
                                                                 {0, -1},
                                                                 {0, 2},
                                                                 {0, -2},
                                                                 {0, 3},
                                                                 {0, -3},
                                                                 {-1, 0},
                                                                 {1, 0},
                                                                 {-1, 1},
                                                                 {1, 1},
                                                                 {-1, -1},
                                                                 {1, -1}}};
    for (const ChartPoint& p : chart.points) {
        if (!p.shown) continue;
        const std::string label = std::to_string(p.rank);
        const auto home_row = static_cast<std::ptrdiff_t>(row_of(p.rate));
        const auto home = static_cast<std::ptrdiff_t>(
            std::min(column_of(p.price_usd), cols - std::min(cols, label.size())));
        bool placed = false;
        for (const auto& [dr, dc] : kMoves) {
            const std::ptrdiff_t r = home_row + dr;
            if (r < 0 || r >= static_cast<std::ptrdiff_t>(kRows)) continue;
            const auto row = static_cast<std::size_t>(r);
            if (!free_at(row, home + dc, label.size())) continue;
            const auto s = static_cast<std::size_t>(home + dc);
            for (std::size_t i = 0; i < label.size(); ++i) {
                cells[row][s + i] = std::string(1, label[i]);
                labelled[row][s + i] = true;
            }
            placed = true;
            break;
        }
        if (!placed) unlabelled.push_back(p.rank);
    }

    std::vector<std::string> tick_label(kRows);
    for (const double t : rate_ticks)
        if (std::string& l = tick_label[row_of(t)]; l.empty()) l = rate_label(t);
    std::string plot = std::string(rate_header(w)) + "\n";
    for (std::size_t r = 0; r < kRows; ++r) {
        std::string row = std::string(label_width - tick_label[r].size(), ' ') + tick_label[r] +
                          " " + std::string(tick_label[r].empty() ? g.axis_v : g.axis_tick);
        for (const std::string& cell : cells[r]) row += cell;
        while (!row.empty() && row.back() == ' ') row.pop_back();
        plot += row + "\n";
    }
    // The price axis: ticks whose labels fit without touching, labels centred.
    std::string axis = std::string(label_width + 1, ' ') + std::string(g.corner);
    std::string labels(gutter, ' ');
    std::vector<std::string_view> axis_cells(cols, g.axis_h);
    std::size_t used = 0;  // the first free column of the labels' line, past the gutter
    for (const double t :
         log_ticks(chart.price_lo, chart.price_hi, std::max<std::size_t>(2, cols / 8))) {
        const std::string text = price_label(t);
        const std::size_t c = column_of(t);
        const std::size_t start = c >= text.size() / 2 ? c - text.size() / 2 : 0;
        if (start < used || start + text.size() > cols) continue;
        labels += std::string(start - used, ' ') + text;
        used = start + text.size() + 1;
        labels += ' ';
        axis_cells[c] = g.axis_h_tick;
    }
    for (const auto cell : axis_cells) axis += cell;
    plot += axis + "\n";
    while (!labels.empty() && labels.back() == ' ') labels.pop_back();
    plot += labels + "\n";
    const std::string title = "system price, USD (log scale)";
    plot += std::string(gutter + (cols > title.size() ? (cols - title.size()) / 2 : 0), ' ') +
            title + "\n";
    out += md ? "\n```\n" + plot + "```\n\n" : "\n" + plot;

    // The legend: each shown plan's number, what it is and where it sits.
    static constexpr NarrowStep kNarrowing[] = {{"Plan", Narrow::Cut, 12}};
    Table legend;
    legend.columns = {{"#", true},
                      {"Plan"},
                      {"System", true, "USD"},
                      {std::string(rate_header(w)), true},
                      {"On the chart"}};
    legend.narrowing = kNarrowing;
    for (std::size_t i = 0; i < recs.size() && i < top; ++i) {
        const Recommendation& r = recs[i];
        const auto rate = r.performance.rate();
        legend.rows.push_back({std::to_string(i + 1), sanitize(plan_label(r)),
                               r.total_usd > 0 ? fmt::format("{:.0f}", r.total_usd) : "",
                               rate ? format_rate(rate) : "",
                               where_text(r, chart, i + 1, unlabelled)});
    }
    if (!md)
        out += wrap(fmt::format("Key: {} on the frontier, {} other plans that fit, numbers are "
                                "the ranks of the table above",
                                g.frontier_point, g.point),
                    width) +
               "\n";
    out += render(legend, md ? Format::Markdown : Format::Table, style);
    return out;
}

}  // namespace gpuadvise
