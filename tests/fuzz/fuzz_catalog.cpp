// Fuzzes the GPU catalog (--catalog, --catalog-merge, GPUADVISE_CATALOG):
// parse_catalog on the input, and merge_catalogs with the input as the
// overlay on a small base (the first entries of the embedded catalog). A
// catalog that parses is then ranked for two workloads and reported as JSON,
// tables, CSV and Markdown, since every figure and name of a user's catalog
// flows into the ranking and the output.
#include <cmath>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fuzz_common.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/report_html.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/table.hpp"
#include "gpuadvise/workload.hpp"

using namespace gpuadvise;
using fuzz::accepts;
using fuzz::finding;

namespace {

constexpr std::size_t kBaseEntries = 4;
constexpr std::size_t kMaxRanked = 16;  // keeps one run fast

const std::string& base_catalog() {
    static const std::string text = [] {
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(embedded::gpus_json());
        auto& gpus = j["gpus"];
        gpus.erase(gpus.begin() + static_cast<std::ptrdiff_t>(std::min(kBaseEntries, gpus.size())),
                   gpus.end());
        return j.dump(1);
    }();
    return text;
}

const std::vector<Workload>& workloads() {
    static const std::vector<Workload> w = [] {
        std::vector<Workload> out;
        Request qlora;
        qlora.set(Field::Model, "8B", "--model");
        qlora.set(Field::Method, "qlora", "--method");
        out.push_back(resolve_workload(qlora, {}, {}));
        Request serve;
        serve.set(Field::Model, "70B", "--model");
        serve.set(Field::Quant, "int4", "--quant");
        out.push_back(resolve_workload(serve, {}, {}));
        return out;
    }();
    return w;
}

void check(const Catalog& c) {
    std::set<std::string> ids;
    for (const Gpu& g : c.gpus) {
        if (g.id.empty()) finding("accepted a GPU with an empty id");
        const std::string id(g.id);
        if (!ids.insert(id).second) finding("accepted the id '" + id + "' twice");
        if (g.memory_bytes == 0) finding("accepted '" + id + "' with memory_bytes 0");
        if (!std::isfinite(g.memory_bandwidth_gbps) || !(g.memory_bandwidth_gbps > 0))
            finding("accepted '" + id + "' with a bandwidth of " +
                    std::to_string(g.memory_bandwidth_gbps));
    }
    if (c.gpus.empty() || c.gpus.size() > kMaxRanked) return;
    for (const Workload& w : workloads()) {
        for (const RankBy by : {RankBy::Value, RankBy::Speed}) {
            RankOptions options;
            options.rank_by = by;
            const auto recs = rank(w, c, options);
            if (recs.size() != c.gpus.size())
                finding("rank returned " + std::to_string(recs.size()) + " plans for " +
                        std::to_string(c.gpus.size()) + " GPUs");
            for (const auto& r : recs)
                if (!std::isfinite(r.score))
                    finding("non-finite score for '" + std::string(r.gpu->id) + "'");
            const MemoryEstimate m = estimate(w);
            if (!nlohmann::json::accept(recommend_json(w, m, recs, recs.size(), options)))
                finding("recommend_json wrote JSON that does not parse");
            for (const Format format : {Format::Table, Format::Csv, Format::Markdown})
                (void)recommend_text(w, m, recs, recs.size(), options, c.gpus.size(), format,
                                     Style{80, true}, format != Format::Csv);
            // The page escapes every name: the catalog's text never makes a tag.
            const std::string page =
                recommend_html(w, m, recs, recs.size(), options, c.gpus.size());
            if (page.find("<script") != std::string::npos || page.find("<img") != std::string::npos)
                finding("a catalog name made a tag in the HTML page");
        }
    }
    std::vector<const Gpu*> list;
    for (const Gpu& g : c.gpus) {
        list.push_back(&g);
        (void)render(gpu_detail_table(g), Format::Table, Style{60, false});
        if (!nlohmann::json::accept(gpu_show_json(g)))
            finding("gpu_show_json wrote JSON that does not parse");
        // Every card resolves by its own names, as --gpu does (or is ambiguous).
        accepts([&] { (void)resolve_gpu(c, g.id); });
        accepts([&] { (void)resolve_gpu(c, g.name); });
    }
    (void)render(gpus_table(list), Format::Table, Style{100, false});
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    (void)base_catalog();
    (void)workloads();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    accepts([&] { check(parse_catalog(text, "catalog.json")); });
    accepts([&] {
        const Catalog merged = merge_catalogs(base_catalog(), "base.json", text, "merge.json");
        const Catalog base = parse_catalog(base_catalog(), "base.json");
        for (const Gpu& g : base.gpus) {
            bool kept = false;
            for (const Gpu& m : merged.gpus) kept = kept || m.id == g.id;
            if (!kept) finding("merge_catalogs dropped the base entry '" + std::string(g.id) + "'");
        }
        check(merged);
    });
    return 0;
}
