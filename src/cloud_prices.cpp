#include "gpuadvise/cloud_prices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuadvise/json.hpp"

namespace gpuadvise {
namespace {

// Quotes are read at a cent: the file's median and range are the quotes'
// own to that precision.
constexpr double kCent = 0.0051;
constexpr double kMaxUsdPerGpuHour = 1000.0;

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

bool is_date(std::string_view d) {
    if (d.size() != 7 && d.size() != 10) return false;
    for (std::size_t i = 0; i < d.size(); ++i) {
        const bool dash = i == 4 || i == 7;
        if (dash ? d[i] != '-' : (d[i] < '0' || d[i] > '9')) return false;
    }
    return true;
}

CloudQuote parse_quote(json::ObjectReader& r) {
    CloudQuote q;
    q.provider = std::string(r.str("provider"));
    q.offering = std::string(r.str("offering"));
    const auto gpus = r.integer("gpus", 1, 1024);
    const double per_hour = r.number("usd_per_hour", 0.001, kMaxUsdPerGpuHour * 1024);
    q.usd_per_gpu_hour = r.number("usd_per_gpu_hour", 0.001, kMaxUsdPerGpuHour);
    if (std::abs(per_hour / static_cast<double>(gpus) - q.usd_per_gpu_hour) > kCent)
        r.fail("usd_per_gpu_hour", fmt::format("is not usd_per_hour / gpus ({:.3f})",
                                               per_hour / static_cast<double>(gpus)));
    r.one_of("kind", {"on-demand"});
    q.date = std::string(r.str("date"));
    if (!is_date(q.date)) r.fail("date", "must be YYYY-MM-DD or YYYY-MM (when the price was read)");
    q.source = std::string(r.str("source"));
    r.finish();
    return q;
}

}  // namespace

std::string CloudPrice::latest_date() const {
    std::string out;
    for (const CloudQuote& q : quotes) out = std::max(out, q.date);
    return out;
}

const CloudPrice* CloudPrices::find(std::string_view gpu_id) const {
    for (const CloudPrice& p : rows)
        if (p.gpu == gpu_id) return &p;
    return nullptr;
}

CloudPrices parse_cloud_prices(std::string_view text, std::string_view source) {
    const std::string owned(text);
    json::Document doc = json::Document::parse(owned, source, "the cloud price object");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.str_or("about", "");
    CloudPrices out;
    out.date = std::string(root.str("date"));
    const json::Value list = root.required("cards");
    if (!list.is_array()) root.fail("cards", "must be an array");
    root.finish();
    const json::Path top{nullptr, "cards"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        CloudPrice p;
        r.str_or("name", "");
        const std::string_view note = r.str_or("note", "");
        if (const auto id = r.opt_str("gpu"))
            p.gpu = std::string(*id);
        else if (note.empty())
            r.fail("gpu", "is required (null only with a note on the card the catalog lacks)");
        json::Path range_path = r.member_path("usd_per_gpu_hour");
        json::ObjectReader range = r.child("usd_per_gpu_hour", range_path);
        p.median = range.number("median", 0.001, kMaxUsdPerGpuHour);
        p.min = range.number("min", 0.001, kMaxUsdPerGpuHour);
        p.max = range.number("max", 0.001, kMaxUsdPerGpuHour);
        range.finish();
        const json::Value quotes = r.required("quotes");
        if (!quotes.is_array() || quotes.size() == 0) r.fail("quotes", "must be a non-empty array");
        json::Path quotes_path = r.member_path("quotes");
        std::size_t k = 0;
        std::vector<double> rates;
        for (const json::Value qv : quotes.items()) {
            const json::Path qpath{&quotes_path, {}, k++, true};
            json::ObjectReader qr(qv, source, &qpath);
            p.quotes.push_back(parse_quote(qr));
            rates.push_back(p.quotes.back().usd_per_gpu_hour);
        }
        r.finish();
        const double median = median_of(rates);
        const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
        if (std::abs(median - p.median) > kCent || std::abs(*lo - p.min) > kCent ||
            std::abs(*hi - p.max) > kCent)
            r.fail("usd_per_gpu_hour",
                   fmt::format("must be the quotes' median {:.2f} and range {:.2f}-{:.2f}", median,
                               *lo, *hi));
        if (p.gpu.empty()) continue;  // a card the catalog does not have yet
        if (out.find(p.gpu)) r.fail("gpu", fmt::format("repeats '{}'", p.gpu));
        out.rows.push_back(std::move(p));
    }
    return out;
}

const CloudPrices& cloud_prices() {
    static const CloudPrices p = embedded::build_cloud_prices();
    return p;
}

}  // namespace gpuadvise
