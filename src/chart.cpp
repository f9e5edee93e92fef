#include "gpuadvise/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

namespace gpuadvise {

Chart price_speed_chart(const std::vector<Recommendation>& recs, std::size_t top) {
    Chart c;
    for (std::size_t i = 0; i < recs.size(); ++i) {
        const Recommendation& r = recs[i];
        if (!r.fits) continue;  // a plan that does not run has no speed to buy
        ++c.fitting;
        const auto rate = r.performance.rate();
        if (r.total_usd <= 0) {
            ++c.no_price;
        } else if (!rate || !std::isfinite(*rate) || *rate <= 0) {
            ++c.no_speed;
        } else {
            c.points.push_back({r.total_usd, *rate, i + 1, i < top, false, &r});
        }
    }
    if (c.points.empty()) {
        c.price_lo = 1000;
        c.price_hi = 10000;
        c.rate_hi = 1;
        return c;
    }
    // The frontier: by price, cheapest first (the faster of equal prices
    // first); a plan is on it when it is faster than every cheaper one.
    std::vector<std::size_t> order(c.points.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const ChartPoint &pa = c.points[a], &pb = c.points[b];
        return pa.price_usd != pb.price_usd ? pa.price_usd < pb.price_usd : pa.rate > pb.rate;
    });
    double best = 0;
    for (const std::size_t i : order) {
        ChartPoint& p = c.points[i];
        // An exact twin of the last frontier plan is on it too: neither beats the other.
        const bool twin = !c.frontier.empty() && p.rate == best &&
                          p.price_usd == c.points[c.frontier.back()].price_usd;
        if (p.rate > best || twin) {
            p.frontier = true;
            c.frontier.push_back(i);
            best = p.rate;
        }
    }
    double lo = c.points.front().price_usd, hi = lo, fastest = 0;
    for (const ChartPoint& p : c.points) {
        lo = std::min(lo, p.price_usd);
        hi = std::max(hi, p.price_usd);
        fastest = std::max(fastest, p.rate);
    }
    // A quarter of headroom on a log axis keeps the labels inside; one price
    // alone gets a factor of two either side.
    c.price_lo = hi > lo ? lo / 1.25 : lo / 2;
    c.price_hi = hi > lo ? hi * 1.25 : hi * 2;
    c.rate_hi = fastest * 1.08;
    return c;
}

double log_position(double v, double lo, double hi) {
    if (!(hi > lo) || !(lo > 0) || !(v > 0)) return 0;
    return std::clamp((std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)), 0.0, 1.0);
}

std::vector<double> log_ticks(double lo, double hi, std::size_t max_count) {
    struct Series {
        std::span<const double> mantissas;
        int every = 1;  // decades between ticks
    };
    static constexpr double kDense[] = {1, 1.5, 2, 3, 4, 5, 6, 8};
    static constexpr double k125[] = {1, 2, 5};
    static constexpr double k13[] = {1, 3};
    static constexpr double k1[] = {1};
    const std::array<Series, 6> series{
        {{kDense, 1}, {k125, 1}, {k13, 1}, {k1, 1}, {k1, 2}, {k1, 3}}};
    if (!(hi > lo) || !(lo > 0)) return {};
    const int first = static_cast<int>(std::floor(std::log10(lo)));
    const int last = static_cast<int>(std::ceil(std::log10(hi)));
    std::vector<double> out;
    for (const Series& s : series) {
        out.clear();
        for (int k = first; k <= last; ++k) {
            if (((k % s.every) + s.every) % s.every != 0) continue;
            for (const double m : s.mantissas) {
                const double v = m * std::pow(10.0, k);
                if (v >= lo && v <= hi) out.push_back(v);
            }
        }
        if (out.size() <= max_count) return out;
    }
    return out;  // the sparsest series, even when it has more than asked
}

std::vector<double> linear_ticks(double hi, std::size_t max_count) {
    if (!(hi > 0) || max_count < 2) return {0};
    static constexpr double kSteps[] = {1, 2, 5};
    for (int k = static_cast<int>(std::floor(std::log10(hi))) - 2;; ++k) {
        for (const double m : kSteps) {
            const double step = m * std::pow(10.0, k);
            const auto n = static_cast<std::size_t>(std::floor(hi / step + 1e-9));
            if (n + 1 > max_count) continue;
            std::vector<double> out;
            for (std::size_t i = 0; i <= n; ++i) out.push_back(static_cast<double>(i) * step);
            return out;
        }
    }
}

std::string price_label(double usd) {
    if (usd < 1000) return fmt::format("${:.0f}", usd);
    if (usd < 1e6) return fmt::format("${:.3g}k", usd / 1000);
    return fmt::format("${:.3g}M", usd / 1e6);
}

std::string rate_label(double v) {
    return fmt::format("{:g}", v);
}

}  // namespace gpuadvise
