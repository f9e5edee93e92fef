// Fuzzes the config file (~/.config/gpuadvise/config.json): parse_config,
// then the settings applied to a request and read by the same parsers as
// their flags (job and ranking options), as a real run does.
#include <cstddef>
#include <string>

#include "cli/settings.hpp"
#include "fuzz_common.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/query.hpp"
#include "gpuadvise/workload.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

namespace {
const char* no_env(const char*) {
    return nullptr;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    cli::Config config;
    if (!accepts(
            [&] { config = cli::parse_config(text, "/home/u/.config/gpuadvise/config.json"); }))
        return 0;
    for (const auto& [key, given] : config.values)
        if (given.origin.find("config file") == std::string::npos)
            finding("a setting lost its origin: " + key);
    std::vector<Field> every;
    for (const FieldSpec& s : field_specs()) every.push_back(s.field);
    Request request;
    request.set(Field::Model, "8B", "--model");
    std::vector<std::string> applied;
    cli::apply_settings(request, every, config, no_env, &applied);
    accepts([&] {
        const Workload w = resolve_workload(request, {}, embedded::model_presets());
        (void)job_options(request);
        (void)rank_options(request, w);
        (void)top_count(request);
    });
    accepts([&] {
        Catalog catalog = embedded::catalog();
        cli::apply_prices(catalog, config);
        for (const Gpu& g : catalog.gpus)
            if (g.price && !(g.price->usd >= 1 && g.price->usd <= 1e8))
                finding("a config price outside 1..1e8 was applied");
    });
    return 0;
}
