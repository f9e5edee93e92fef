#pragma once
// The price/speed picture of a ranking, as numbers: --plot draws it with
// characters and --format html as SVG, from the same points, frontier and
// ticks. Each plan that fits, with a known system price and speed, is a
// point; the value frontier is the plans no other plan beats (none costs no
// more and runs at least as fast, being better in one); the shown plans carry
// their rank. Prices span $400 to $400,000, so the price axis is logarithmic.
#include <cstddef>
#include <string>
#include <vector>

#include "gpuadvise/rank.hpp"

namespace gpuadvise {

struct ChartPoint {
    double price_usd = 0;  // the plan's system price (cards and the computer they go in)
    double rate = 0;       // what the ranking compares: tok/s, img/s or frames/s
    std::size_t rank = 0;  // 1-based place in the ranking
    bool shown = false;    // one of the shown (top) plans: labelled #rank
    bool frontier = false;
    const Recommendation* plan = nullptr;
};

struct Chart {
    std::vector<ChartPoint> points;     // in ranking order
    std::vector<std::size_t> frontier;  // indexes into points, cheapest first (speeds rise)
    std::size_t fitting = 0;            // plans that fit (only they are drawn)
    std::size_t no_price = 0;           // fitting plans left out: no known price
    std::size_t no_speed = 0;           // ... a price but no speed estimate
    // The axes: price from price_lo to price_hi (log), speed from 0 to rate_hi;
    // both padded so no point sits on an edge.
    double price_lo = 0;
    double price_hi = 0;
    double rate_hi = 0;
};

// `top` plans of `recs` are the shown ones.
Chart price_speed_chart(const std::vector<Recommendation>& recs, std::size_t top);

// Where `v` falls on the axis, 0 at the low end and 1 at the high end.
double log_position(double v, double lo, double hi);
// Round prices between lo and hi, at most `max_count`: the densest of the
// 1-2-5, 1-2, 1-3 and 1 series (per decade) that fits, at least the two
// ends' decades' steps; several decades apart when the range is wide.
std::vector<double> log_ticks(double lo, double hi, std::size_t max_count);
// 0 and round steps (1, 2 or 5 times a power of ten) up to hi, at most `max_count`.
std::vector<double> linear_ticks(double hi, std::size_t max_count);
// "$400", "$2.5k", "$40k", "$1.2M": a tick's label.
std::string price_label(double usd);
// "0", "25", "2.5", "0.25": a speed tick's label.
std::string rate_label(double v);

}  // namespace gpuadvise
