#include "gpuadvise/bands.hpp"

#include <fmt/format.h>

#include "gpuadvise/json.hpp"

namespace gpuadvise {

const ErrorBand* ErrorBands::find_exact(BandQuantity q, std::string_view group) const {
    for (const ErrorBand& b : bands)
        if (b.quantity == q && b.group == group) return &b;
    return nullptr;
}

const ErrorBand* ErrorBands::find(BandQuantity q, std::string_view group) const {
    if (const ErrorBand* b = find_exact(q, group)) return b;
    return find_exact(q, "all");
}

ErrorBands parse_error_bands(std::string_view text, std::string_view source) {
    const std::string owned(text);
    json::Document doc = json::Document::parse(owned, source, "the error bands");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.str_or("about", "");
    ErrorBands out;
    out.source = std::string(root.str("source"));
    const json::Value list = root.required("bands");
    if (!list.is_array()) root.fail("bands", "must be an array");
    root.finish();
    const json::Path top{nullptr, "bands"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        ErrorBand b;
        b.quantity = kBandQuantities.parse(r.str("quantity"),
                                           fmt::format("{}: {}/quantity", source, path.str()));
        b.group = std::string(r.str("group"));
        b.low = r.number("low", 0.01, 100);
        b.high = r.number("high", 0.01, 100);
        b.rows = r.integer("rows", 1, 1'000'000);
        r.finish();
        if (b.low > b.high) r.fail("low", "must not exceed high");
        out.bands.push_back(std::move(b));
    }
    return out;
}

const ErrorBands& error_bands() {
    static const ErrorBands bands =
        parse_error_bands(embedded::error_bands_json(), "embedded data/error_bands.json");
    return bands;
}

}  // namespace gpuadvise
