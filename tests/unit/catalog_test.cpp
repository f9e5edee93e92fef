#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/units.hpp"

using namespace gpuadvise;

namespace {

std::string entry(const std::string& id, const std::string& extra = "") {
    return R"({"id":")" + id + R"(","vendor":"nvidia","name":")" + id +
           R"(","segment":"consumer","arch_family":"ada","memory_bytes":25769803776,"memory_bandwidth_gbps":1008,"sources":["test"])" +
           extra + "}";
}

std::string catalog_of(const std::string& entries) { return R"({"schema":1,"gpus":[)" + entries + "]}"; }

}  // namespace

TEST_CASE("the embedded catalog loads, validates and covers the three vendors") {
    const Catalog& c = embedded::catalog();
    CHECK(c.gpus.size() >= 75);
    std::map<std::string, int> per_vendor;
    for (const auto& g : c.gpus) ++per_vendor[g.vendor];
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
    CHECK_THROWS_WITH(parse_catalog("", "c.json"), Catch::Contains("c.json") && Catch::Contains("empty"));
    CHECK_THROWS_WITH(parse_catalog("{", "c.json"), Catch::Contains("not valid JSON"));
    CHECK_THROWS_WITH(parse_catalog(R"({"gpus":{}})", "c.json"), Catch::Contains("/gpus") && Catch::Contains("array"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", R"(,"memory_bytes_typo":1)")), "c.json"),
                      Catch::Contains("/gpus/0/memory_bytes_typo") && Catch::Contains("not a catalog field"));
    // Duplicate key: the later memory_bytes wins in nlohmann; the type is still checked.
    CHECK_THROWS_WITH(
        parse_catalog(catalog_of(R"({"id":"a","vendor":"nvidia","name":"a","segment":"consumer","arch_family":"ada","memory_bytes":"24GB","memory_bandwidth_gbps":1,"sources":["s"]})"),
                      "c.json"),
        Catch::Contains("/gpus/0/memory_bytes") && Catch::Contains("integer"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a") + "," + entry("a")), "c.json"), Catch::Contains("appears twice"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", R"(,"aliases":["x"])") + "," + entry("b", R"(,"aliases":["X"])")), "c.json"),
                      Catch::Contains("already used"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", R"(,"tflops":{"fp8":100})")).replace(
                                        catalog_of(entry("a")).find("ada"), 3, "amp"),
                                    "c.json"),
                      Catch::Contains("fp8"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a").replace(entry("a").find("1008"), 4, "25000")), "c.json"),
                      Catch::Contains("memory_bandwidth_gbps") && Catch::Contains("out of range"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a").replace(entry("a").find("[\"test\"]"), 8, "[]")), "c.json"),
                      Catch::Contains("sources"));
    CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", R"(,"vendor":"nvida")")), "c.json"), Catch::Contains("vendor"));
}

TEST_CASE("a user catalog extends or overrides the embedded one") {
    const std::string base = catalog_of(entry("card-a") + "," + entry("card-b"));
    const Catalog merged = merge_catalogs(
        base, "base", R"({"gpus":[{"id":"card-a","price":{"usd":1234,"kind":"street-estimate","source":"my shop"}},)" + entry("card-c") + "]}",
        "mine.json");
    REQUIRE(merged.gpus.size() == 3);
    REQUIRE(merged.gpus[0].price);
    CHECK(merged.gpus[0].price->usd == 1234);
    CHECK(merged.gpus[2].id == "card-c");
    CHECK_THROWS_AS(merge_catalogs(base, "base", R"({"gpus":[{"name":"no id"}]})", "mine.json"), InputError);
}

TEST_CASE("GPU names resolve forgivingly and unknown or ambiguous names say what to type") {
    const Catalog& c = embedded::catalog();
    for (const char* name : {"4090", "RTX 4090", "rtx-4090", "nvidia-rtx-4090", "rtx4090", "GeForce RTX 4090"}) {
        INFO(name);
        CHECK(resolve_gpu(c, name).id == "nvidia-rtx-4090");
    }
    CHECK_THROWS_WITH(resolve_gpu(c, "rtx4900"), Catch::Contains("did you mean 'nvidia-rtx-4090'"));
    CHECK_THROWS_WITH(resolve_gpu(c, "a100"), Catch::Contains("ambiguous") && Catch::Contains("nvidia-a100-80gb-sxm"));
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
            if (ch == '"') quoted = !quoted;
            else if (ch == ',' && !quoted) {
                out.push_back(cur);
                cur.clear();
            } else cur.push_back(ch);
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
        if (!link.empty() && g->notes.find("per direction") == std::string::npos) same("multi_gpu_link_gbs", g->interconnect_gbps);
        ++compared;
    }
    CHECK(compared == 44);
}

TEST_CASE("the generated catalog equals a fresh parse of data/gpus.json") {
    const Catalog parsed = parse_catalog(embedded::gpus_json(), "data/gpus.json");
    const Catalog& built = embedded::catalog();
    REQUIRE(parsed.gpus.size() == built.gpus.size());
    CHECK(parsed.date == built.date);
    for (std::size_t i = 0; i < parsed.gpus.size(); ++i) {
        const Gpu& a = parsed.gpus[i];
        const Gpu& b = built.gpus[i];
        INFO(a.id);
        CHECK(a.id == b.id);
        CHECK(a.aliases == b.aliases);
        CHECK(a.memory_bytes == b.memory_bytes);
        CHECK(a.memory_bandwidth_gbps == b.memory_bandwidth_gbps);
        CHECK(a.tflops.bf16 == b.tflops.bf16);
        CHECK(a.tflops.fp8 == b.tflops.fp8);
        CHECK(a.tflops.tf32 == b.tflops.tf32);
        CHECK(a.tdp_watts == b.tdp_watts);
        CHECK(a.interconnect_gbps == b.interconnect_gbps);
        CHECK(a.interconnect_max_gpus == b.interconnect_max_gpus);
        CHECK(a.price.has_value() == b.price.has_value());
        if (a.price && b.price) CHECK(a.price->usd == b.price->usd);
        CHECK(a.sources == b.sources);
        CHECK(a.notes == b.notes);
        CHECK(a.min_stack == b.min_stack);
        CHECK(a.ecc == b.ecc);
    }
}
