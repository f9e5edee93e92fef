// --format html: the ranking as one page to share (report_html.hpp). The
// chart's geometry is chart.hpp's, as --plot's is, so the page and the
// terminal show the same points, frontier and ticks.
#include "gpuadvise/report_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "gpuadvise/chart.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/text.hpp"
#include "gpuadvise/units.hpp"

namespace gpuadvise {
namespace {

// Outside text for the page: sanitised (no control characters), cut, escaped.
std::string esc(std::string_view s, std::size_t max_chars = 0) {
    return escape_html(sanitize(s, max_chars));
}

double gib(std::uint64_t b) {
    return static_cast<double>(b) / static_cast<double>(kGiB);
}

// The chart's frame, in SVG user units.
constexpr double kWidth = 960, kHeight = 480;
constexpr double kLeft = 64, kRight = 24, kTop = 44, kBottom = 56;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;

constexpr std::string_view kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #1a1a1a; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 1.6em; }
p.summary { color: #444; margin-top: 0; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top;
         white-space: nowrap; }
td:last-child { white-space: normal; min-width: 18em; }
div.scroll { overflow-x: auto; }
th { background: #f0f0f0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
svg { max-width: 100%; height: auto; font-size: 12px; }
svg text { fill: #1a1a1a; }
.area { fill: #fcfcfc; stroke: #bbb; }
.grid { stroke: #e6e6e6; }
.frontier { fill: none; stroke: #c0392b; stroke-width: 2; }
.on { fill: #c0392b; }
.off { fill: #fff; stroke: #2c6fbb; stroke-width: 1.5; }
.rank { font-weight: bold; }
.weights { fill: #2c6fbb; }
.kv { fill: #e08a2c; }
.other { fill: #999; }
.free { fill: #eee; stroke: #bbb; }
.over { fill: none; stroke: #c0392b; stroke-width: 2; }
footer { margin-top: 2em; color: #666; font-size: 0.85em; }
)";

// " Left out: 3 without a known price." ("" when every plan is drawn).
std::string left_out_text(const Chart& c) {
    std::string why;
    if (c.no_price > 0) why = fmt::format("{} without a known price", c.no_price);
    if (c.no_speed > 0)
        why += fmt::format("{}{} without a speed estimate", why.empty() ? "" : ", ", c.no_speed);
    return why.empty() ? why : " Left out: " + why + ".";
}

std::string num(double v) {
    return fmt::format("{:.1f}", v);
}

std::string memory_svg(const std::vector<Recommendation>& recs, std::size_t top) {
    constexpr double kLabel = 300, kBar = 360, kRow = 24, kHead = 28;
    const std::size_t n = std::min(top, recs.size());
    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"memory\" viewBox=\"0 0 {} {}\" "
        "width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"Memory per GPU of each shown "
        "plan\">\n",
        kLabel + kBar + 180, kHead + kRow * static_cast<double>(n) + 8, kLabel + kBar + 180,
        kHead + kRow * static_cast<double>(n) + 8);
    // The key, one swatch per part of the bar.
    const std::array<std::pair<const char*, const char*>, 4> key{
        {{"weights", "weights"}, {"kv", "KV cache"}, {"other", "the rest"}, {"free", "free"}}};
    double x = kLabel;
    for (const auto& [cls, text] : key) {
        out += fmt::format(
            "<rect class=\"{}\" x=\"{}\" y=\"6\" width=\"12\" height=\"12\"/><text x=\"{}\" "
            "y=\"16\">{}</text>\n",
            cls, num(x), num(x + 16), text);
        x += 90;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const Recommendation& r = recs[i];
        const double y = kHead + kRow * static_cast<double>(i);
        const MemoryEstimate& m = r.memory;
        const double need = static_cast<double>(m.per_gpu_bytes);
        const double cap = std::max(static_cast<double>(r.usable_bytes), need);
        out += fmt::format("<text x=\"0\" y=\"{}\">#{} {}</text>\n", num(y + 15), i + 1,
                           esc(plan_label(r), 40));
        if (cap <= 0) continue;
        const double weights = static_cast<double>(m.get(&Components::weights));
        const double kv = static_cast<double>(m.get(&Components::kv_cache));
        const double rest = std::max(need - weights - kv, 0.0);
        out += fmt::format("<rect class=\"free\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"16\"/>\n",
                           num(kLabel), num(y + 3),
                           num(kBar * static_cast<double>(r.usable_bytes) / cap));
        struct Part {
            const char* cls;
            const char* label;
            double bytes;
        };
        double at = kLabel;
        for (const Part& part : std::array<Part, 3>{{{"weights", "weights", weights},
                                                     {"kv", "KV cache", kv},
                                                     {"other", "the rest", rest}}}) {
            const double w = kBar * part.bytes / cap;
            if (w <= 0) continue;
            out += fmt::format(
                "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"16\"><title>{}: "
                "{:.1f} GiB</title></rect>\n",
                part.cls, num(at), num(y + 3), num(w), part.label,
                part.bytes / static_cast<double>(kGiB));
            at += w;
        }
        if (need > static_cast<double>(r.usable_bytes))
            out +=
                fmt::format("<rect class=\"over\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"16\"/>\n",
                            num(kLabel), num(y + 3), num(kBar));
        out += fmt::format("<text x=\"{}\" y=\"{}\">{:.1f} of {:.1f} GiB{}</text>\n",
                           num(kLabel + kBar + 8), num(y + 15), gib(m.per_gpu_bytes),
                           gib(r.usable_bytes),
                           need > static_cast<double>(r.usable_bytes) ? " (over)" : "");
    }
    return out + "</svg>\n";
}

}  // namespace

std::string price_speed_svg(const Workload& w, const std::vector<Recommendation>& recs,
                            std::size_t top) {
    const Chart c = price_speed_chart(recs, top);
    const auto x_of = [&](double price) {
        return kLeft + log_position(price, c.price_lo, c.price_hi) * kPlotW;
    };
    const auto y_of = [&](double rate) { return kTop + (1 - rate / c.rate_hi) * kPlotH; };
    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {} {}\" "
        "width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"System price against {}\">\n",
        kWidth, kHeight, kWidth, kHeight, esc(rate_header(w)));
    out += fmt::format("<rect class=\"area\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                       num(kLeft), num(kTop), num(kPlotW), num(kPlotH));
    for (const double t : log_ticks(c.price_lo, c.price_hi, 10)) {
        const double x = x_of(t);
        out += fmt::format(
            "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/><text x=\"{0}\" "
            "y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
            num(x), num(kTop), num(kTop + kPlotH), num(kTop + kPlotH + 16), price_label(t));
    }
    for (const double t : linear_ticks(c.rate_hi, 7)) {
        const double y = y_of(t);
        out += fmt::format(
            "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><text x=\"{3}\" "
            "y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
            num(kLeft), num(y), num(kLeft + kPlotW), num(kLeft - 6), num(y + 4), rate_label(t));
    }
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">system price, USD (log scale)</text>\n",
        num(kLeft + kPlotW / 2), num(kHeight - 12));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", num(kLeft), num(kTop - 10),
                       esc(rate_header(w)));
    // The frontier as a staircase, as --plot draws it: the best speed a
    // budget buys rises only at a frontier plan's price.
    if (!c.frontier.empty()) {
        std::string d;
        for (std::size_t k = 0; k < c.frontier.size(); ++k) {
            const ChartPoint& p = c.points[c.frontier[k]];
            d += k == 0 ? fmt::format("M {} {}", num(x_of(p.price_usd)), num(y_of(p.rate)))
                        : fmt::format(" H {} V {}", num(x_of(p.price_usd)), num(y_of(p.rate)));
        }
        out += fmt::format(
            "<path class=\"frontier\" d=\"{}\"><title>value frontier: no other "
            "plan costs no more and runs at least as fast</title></path>\n",
            d);
    }
    // Other plans first, so the frontier's and the labels are drawn on top.
    for (const bool frontier : {false, true})
        for (const ChartPoint& p : c.points) {
            if (p.frontier != frontier) continue;
            out += fmt::format(
                "<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"4\"><title>#{} {}: ${:.0f}, {} "
                "{}</title></circle>\n",
                frontier ? "on" : "off", num(x_of(p.price_usd)), num(y_of(p.rate)), p.rank,
                esc(plan_label(*p.plan), 60), p.price_usd, format_rate(p.rate),
                esc(rate_header(w)));
        }
    // Each rank's label takes the first place beside its point that no
    // earlier label covers (#1 first); when every place is taken it goes to
    // the first, over another.
    struct Box {
        double x0, y0, x1, y1;
    };
    std::vector<Box> taken;
    static constexpr std::array<std::pair<double, double>, 8> kPlaces{
        {{6, -6}, {6, 14}, {-6, -6}, {-6, 14}, {6, -20}, {6, 28}, {-6, -20}, {-6, 28}}};
    for (const ChartPoint& p : c.points) {
        if (!p.shown) continue;
        const std::string text = fmt::format("#{}", p.rank);
        const double lw = 7.5 * static_cast<double>(text.size()), lh = 12;
        const double px = x_of(p.price_usd), py = y_of(p.rate);
        const auto box_at = [&](const std::pair<double, double>& at) {
            const double x = at.first > 0 ? px + at.first : px + at.first - lw;
            return Box{x, py + at.second - lh, x + lw, py + at.second};
        };
        Box chosen = box_at(kPlaces[0]);
        for (const auto& at : kPlaces) {
            const Box b = box_at(at);
            const bool clear = std::none_of(taken.begin(), taken.end(), [&](const Box& o) {
                return b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1;
            });
            if (clear) {
                chosen = b;
                break;
            }
        }
        taken.push_back(chosen);
        out += fmt::format("<text class=\"rank\" x=\"{}\" y=\"{}\">{}</text>\n", num(chosen.x0),
                           num(chosen.y1 - 2), text);
    }
    // The key, above the plot on the right.
    const double kx = kLeft + kPlotW - 330;
    out += fmt::format(
        "<path class=\"frontier\" d=\"M {} 18 H {}\"/><text x=\"{}\" y=\"22\">value "
        "frontier</text>\n<circle class=\"on\" cx=\"{}\" cy=\"18\" r=\"4\"/><text x=\"{}\" "
        "y=\"22\">on it</text>\n<circle class=\"off\" cx=\"{}\" cy=\"18\" r=\"4\"/><text "
        "x=\"{}\" y=\"22\">other plans that fit</text>\n",
        num(kx), num(kx + 24), num(kx + 30), num(kx + 140), num(kx + 148), num(kx + 200),
        num(kx + 208));
    return out + "</svg>\n";
}

std::string recommend_html(const Workload& w, const MemoryEstimate& m,
                           const std::vector<Recommendation>& recs, std::size_t top,
                           const RankOptions& options, std::size_t catalog_size,
                           std::span<const HtmlSection> extra) {
    const std::string title =
        fmt::format("GPUs for {} ({})", sanitize(w.model.name, 120), to_string(w.method));
    std::size_t fitting = 0;
    for (const auto& r : recs) fitting += r.fits ? 1 : 0;
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
    out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
    out += fmt::format("<title>{} - gpuadvise</title>\n<style>{}</style>\n</head>\n<body>\n",
                       escape_html(title), kStyle);
    out += fmt::format("<h1>{}</h1>\n", escape_html(title));
    out += fmt::format(
        "<p class=\"summary\">Ranked by {}: the top {} of {} cards; {} can run it. Memory per "
        "GPU on one card: {:.1f} GiB ({} estimator).</p>\n",
        to_string(options.rank_by), std::min(top, recs.size()), catalog_size, fitting,
        gib(m.per_gpu_bytes), kEstimatorsUsed.name(m.estimator));
    out += fmt::format("<section id=\"workload\">\n<h2>Workload</h2>\n<pre>{}</pre>\n</section>\n",
                       escape_html(workload_text(w)));

    const Chart c = price_speed_chart(recs, top);
    out += "<section id=\"chart\">\n<h2>Price and speed</h2>\n";
    out += fmt::format(
        "<p>{} of the {} plans that fit, by system price (the cards and the computer they go "
        "in) and {}. The line is the value frontier: no other plan costs no more and runs at "
        "least as fast.{}</p>\n",
        c.points.size(), c.fitting, esc(rate_header(w)), left_out_text(c));
    if (!c.points.empty()) out += price_speed_svg(w, recs, top);
    out += "</section>\n";

    out += "<section id=\"memory\">\n<h2>Memory per GPU</h2>\n";
    out += "<p>Each shown plan's estimate against its card's usable memory.</p>\n";
    out += memory_svg(recs, top) + "</section>\n";

    out += "<section id=\"ranking\">\n<h2>Ranking</h2>\n";
    out += "<div class=\"scroll\">\n" + render_html(recommendations_table(w, recs, top, Style{}));
    out += "</div>\n";
    if (const std::string used = used_price_note(recs, top); !used.empty())
        out += fmt::format("<p>{}</p>\n", escape_html(used));
    out += "</section>\n";
    for (const HtmlSection& s : extra)
        out += fmt::format("<section>\n<h2>{}</h2>\n<pre>{}</pre>\n</section>\n", esc(s.title),
                           escape_html(s.text));
    out +=
        "<footer>Made by gpuadvise: estimates from its memory and speed models and its "
        "catalog's prices, not measurements.</footer>\n</body>\n</html>\n";
    return out;
}

}  // namespace gpuadvise
