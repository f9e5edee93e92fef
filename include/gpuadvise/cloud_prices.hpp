#pragma once
// What a card costs to rent (data/cloud_prices.json): each provider's dated,
// sourced on-demand quote per GPU-hour and their median, the price --rent
// uses, with the range beside it.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise {

struct CloudQuote {
    std::string provider;
    std::string offering;
    double usd_per_gpu_hour = 0;
    std::string date;  // YYYY-MM-DD (or YYYY-MM) the price was read
    std::string source;
};

struct CloudPrice {
    std::string gpu;                      // a catalog id
    double median = 0, min = 0, max = 0;  // USD per GPU-hour over the quotes
    std::vector<CloudQuote> quotes;
    std::string latest_date() const;  // the newest quote's date
};

struct CloudPrices {
    std::string date;  // when the file was compiled
    std::vector<CloudPrice> rows;
    const CloudPrice* find(std::string_view gpu_id) const;
};

// Throws InputError naming `source` and the JSON path on a bad file: a
// median or range that is not the quotes' own, a quote without a date or
// a source. Rows whose "gpu" is null name cards the catalog lacks; they are
// kept in the file for when it has them, and skipped here.
CloudPrices parse_cloud_prices(std::string_view text, std::string_view source);
const CloudPrices& cloud_prices();  // the embedded data/cloud_prices.json

namespace embedded {
// data/cloud_prices.json as the build's generator parsed and checked it.
CloudPrices build_cloud_prices();
}  // namespace embedded

}  // namespace gpuadvise
