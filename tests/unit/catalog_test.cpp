#include "gpuadvise/catalog.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/units.hpp"

using namespace gpuadvise;

namespace {

std::string entry(const std::string& id, const std::string& extra = "") {
    return R"({"id":")" + id + R"(","vendor":"nvidia","name":")" + id +
           R"(","segment":"consumer","arch_family":"ada","memory_bytes":25769803776,"memory_bandwidth_gbps":1008,"software":{"platform":"cuda"},"sources":["test"])" +
           extra + "}";
}

std::string catalog_of(const std::string& entries) {
    return R"({"schema":1,"gpus":[)" + entries + "]}";
}

}  // namespace

TEST_CASE("the embedded catalog loads, validates and covers the three vendors") {
    const Catalog& c = embedded::catalog();
    CHECK(c.gpus.size() >= 75);
    std::map<std::string, int> per_vendor;
    for (const auto& g : c.gpus) ++per_vendor[std::string(to_string(g.vendor))];
    CHECK(per_vendor["nvidia"] >= 8);
    CHECK(per_vendor["amd"] >= 8);
    CHECK(per_vendor["intel"] >= 8);
    for (const auto& g : c.gpus) {
        INFO(g.id);
        CHECK_FALSE(g.sources.empty());
        CHECK(g.memory_bytes > 0);
    }
}

TEST_CASE("catalog validation names the file, the JSON path and the fix") {
    CHECK_THROWS_WITH(parse_catalog("", "c.json"),
                      Catch::Contains("c.json") && Catch::Contains("empty"));
    CHECK_THROWS_WITH(parse_catalog("{", "c.json"), Catch::Contains("not valid JSON"));
    CHECK_THROWS_WITH(parse_catalog(R"({"gpus":{}})", "c.json"),
                      Catch::Contains("/gpus") && Catch::Contains("array"));
    CHECK_THROWS_WITH(
        parse_catalog(catalog_of(entry("a", R"(,"memory_bytes_typo":1)")), "c.json"),
        Catch::Contains("/gpus/0/memory_bytes_typo") && Catch::Contains("not a known field"));
    CHECK_THROWS_WITH(
        parse_catalog(
            catalog_of(
                R"({"id":"a","vendor":"nvidia","name":"a","segment":"consumer","arch_family":"ada","memory_bytes":"24GB","memory_bandwidth_gbps":1,"software":{"platform":"cuda"},"sources":["s"]})"),
            "c.json"),
        Catch::Contains("/gpus/0/memory_bytes") && Catch::Contains("integer"));
    // A key twice is an error (a JSON reader that keeps the last one would hide a typo'd copy).
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", R"(,"memory_bytes":1)")), "c.json"),
                      Catch::Contains("'memory_bytes' appears twice"));
    CHECK_THROWS_WITH(
        parse_catalog(catalog_of(entry("a")) + std::string(1, '\0') + "garbage", "c.json"),
        Catch::Contains("NUL"));
    // Zero figures are not figures: a card without the path has null.
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", R"(,"tflops":{"bf16":0})")), "c.json"),
                      Catch::Contains("/gpus/0/tflops/bf16") && Catch::Contains("out of range"));
    CHECK_THROWS_WITH(
        parse_catalog(
            catalog_of(
                entry("a", R"(,"interconnect":{"type":"nvlink","bandwidth_gbps":0,"max_gpus":2})")),
            "c.json"),
        Catch::Contains("/gpus/0/interconnect/bandwidth_gbps"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a") + "," + entry("a")), "c.json"),
                      Catch::Contains("appears twice"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", R"(,"aliases":["x"])") + "," +
                                               entry("b", R"(,"aliases":["X"])")),
                                    "c.json"),
                      Catch::Contains("already used"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", R"(,"tflops":{"fp8":100})"))
                                        .replace(catalog_of(entry("a")).find("ada"), 3, "amp"),
                                    "c.json"),
                      Catch::Contains("fp8"));
    CHECK_THROWS_WITH(
        parse_catalog(catalog_of(entry("a").replace(entry("a").find("1008"), 4, "25000")),
                      "c.json"),
        Catch::Contains("memory_bandwidth_gbps") && Catch::Contains("out of range"));
    CHECK_THROWS_WITH(
        parse_catalog(catalog_of(entry("a").replace(entry("a").find("[\"test\"]"), 8, "[]")),
                      "c.json"),
        Catch::Contains("sources"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", R"(,"vendor":"nvida")")), "c.json"),
                      Catch::Contains("vendor"));
}

TEST_CASE("a user catalog extends or overrides the embedded one") {
    const std::string base = catalog_of(entry("card-a") + "," + entry("card-b"));
    const Catalog merged = merge_catalogs(
        base, "base",
        R"({"gpus":[{"id":"card-a","price":{"usd":1234,"kind":"street-estimate","source":"my shop"}},)" +
            entry("card-c") + "]}",
        "mine.json");
    REQUIRE(merged.gpus.size() == 3);
    REQUIRE(merged.gpus[0].price);
    CHECK(merged.gpus[0].price->usd == 1234);
    CHECK(merged.gpus[2].id == "card-c");
    CHECK_THROWS_AS(merge_catalogs(base, "base", R"({"gpus":[{"name":"no id"}]})", "mine.json"),
                    InputError);
    // An id that matches nothing is a new card: a near miss gets a did-you-mean, not "vendor is
    // required".
    CHECK_THROWS_WITH(
        merge_catalogs(
            base, "base",
            R"({"gpus":[{"id":"card-aa","price":{"usd":1,"kind":"msrp","source":"s"}}]})",
            "mine.json"),
        Catch::Contains("no card of the base catalog has the id 'card-aa'") &&
            Catch::Contains("did you mean 'card-a'"));
}

TEST_CASE("GPU names resolve forgivingly and unknown or ambiguous names say what to type") {
    const Catalog& c = embedded::catalog();
    for (const char* name :
         {"4090", "RTX 4090", "rtx-4090", "nvidia-rtx-4090", "rtx4090", "GeForce RTX 4090"}) {
        INFO(name);
        CHECK(resolve_gpu(c, name).id == "nvidia-rtx-4090");
    }
    CHECK_THROWS_WITH(resolve_gpu(c, "rtx4900"), Catch::Contains("did you mean 'nvidia-rtx-4090'"));
    CHECK_THROWS_WITH(resolve_gpu(c, "a100"),
                      Catch::Contains("ambiguous") && Catch::Contains("nvidia-a100-80gb-sxm"));
    CHECK(resolve_gpu(c, "a10").id == "nvidia-a10");
    CHECK_THROWS_AS(resolve_gpu(c, ""), InputError);
}

// The reference table (tests/data/gpu_specs.csv, see tests/data/README.md) and
// the catalog must agree field by field, unless the entry's notes explain why.
TEST_CASE("catalog entries agree with the reference table") {
    std::ifstream file(std::string(GPUADVISE_TEST_DATA) + "/gpu_specs.csv");
    REQUIRE(file);
    std::string header_line;
    std::getline(file, header_line);
    const auto split = [](const std::string& line) {
        std::vector<std::string> out;
        std::string cur;
        bool quoted = false;
        for (char ch : line) {
            if (ch == '"')
                quoted = !quoted;
            else if (ch == ',' && !quoted) {
                out.push_back(cur);
                cur.clear();
            } else
                cur.push_back(ch);
        }
        out.push_back(cur);
        return out;
    };
    const auto header = split(header_line);
    const auto col = [&](const std::string& name) {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return i;
        FAIL("missing column " << name);
        return std::size_t{0};
    };
    const Catalog& c = embedded::catalog();
    std::string line;
    int compared = 0;
    // Multi-line quoted cells: join physical lines until quotes balance.
    std::string record;
    while (std::getline(file, line)) {
        record += record.empty() ? line : "\n" + line;
        if (std::count(record.begin(), record.end(), '"') % 2 != 0) continue;
        const auto cells = split(record);
        record.clear();
        const Gpu* g = nullptr;
        for (const auto& x : c.gpus)
            if (x.id == cells[col("id")]) g = &x;
        INFO(cells[col("id")]);
        REQUIRE(g != nullptr);
        const auto same = [&](const std::string& column, std::optional<double> value) {
            const std::string& cell = cells[col(column)];
            INFO(column << " csv=" << cell);
            if (cell.empty()) {
                CHECK_FALSE(value.has_value());
            } else {
                REQUIRE(value.has_value());
                CHECK(*value == Approx(std::stod(cell)).epsilon(0.005));
            }
        };
        same("memory_bw_gbs", g->memory_bandwidth_gbps);
        same("memory_gb", static_cast<double>(g->memory_bytes) / static_cast<double>(kGiB));
        same("fp32_vector_tflops", g->tflops.fp32);
        same("bf16_tensor_dense_tflops", g->tflops.bf16);
        same("fp16_tensor_dense_tflops", g->tflops.fp16);
        same("fp8_tensor_dense_tflops", g->tflops.fp8);
        same("tdp_w", g->tdp_watts);
        const std::string link = cells[col("multi_gpu_link_gbs")];
        if (!link.empty() && g->notes.find("per direction") == std::string::npos)
            same("multi_gpu_link_gbs", g->link.gbps);
        ++compared;
    }
    CHECK(compared == 44);
}

TEST_CASE("the generated catalog equals a fresh parse of data/gpus.json, field by field") {
    const Catalog parsed = parse_catalog(embedded::gpus_json(), "data/gpus.json");
    const Catalog& built = embedded::catalog();
    REQUIRE(parsed.gpus.size() == built.gpus.size());
    CHECK(parsed.date == built.date);
    // The JSON of every field, written the same way from both.
    std::vector<const Gpu*> a, b;
    for (const Gpu& g : parsed.gpus) a.push_back(&g);
    for (const Gpu& g : built.gpus) b.push_back(&g);
    CHECK(gpus_json(parsed, a) == gpus_json(built, b));
    REQUIRE(parsed.names.size() == built.names.size());
    for (std::size_t i = 0; i < parsed.names.size(); ++i) {
        CHECK(parsed.names[i].key == built.names[i].key);
        CHECK(parsed.names[i].gpu == built.names[i].gpu);
    }
}

TEST_CASE("a config price replaces the catalog's and keeps the launch price") {
    Catalog c = embedded::catalog();
    set_price(c, "4090", 1750, "config file x: prices.4090");
    const Gpu& g = resolve_gpu(c, "nvidia-rtx-4090");
    REQUIRE(g.price);
    CHECK(g.price->usd == 1750);
    CHECK(g.price->source == "config file x: prices.4090");
    REQUIRE(g.launch_price);
}

TEST_CASE("filters and sorts of gpus") {
    GpuFilter f;
    f.vendor = Vendor::Amd;
    f.min_memory_bytes = 100'000'000'000ULL;
    f.sort = "memory";
    const auto list = filter_gpus(embedded::catalog(), f);
    REQUIRE_FALSE(list.empty());
    for (const Gpu* g : list) {
        CHECK(g->vendor == Vendor::Amd);
        CHECK(g->memory_bytes >= f.min_memory_bytes);
    }
    for (std::size_t i = 1; i < list.size(); ++i)
        CHECK(list[i - 1]->memory_bytes >= list[i]->memory_bytes);
    GpuFilter nvlink;
    nvlink.supports = "nvlink";
    for (const Gpu* g : filter_gpus(embedded::catalog(), nvlink))
        CHECK(g->link.type == LinkType::Nvlink);
}
