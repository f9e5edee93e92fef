#include "gpuadvise/catalog.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/platform.hpp"
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

// A card with a name of its own, for lookups.
std::string named(const std::string& id, const std::string& name, const std::string& aliases = "",
                  const std::string& vendor = "nvidia", const std::string& platform = "cuda") {
    return R"({"id":")" + id + R"(","vendor":")" + vendor + R"(","name":")" + name +
           R"(","aliases":[)" + aliases +
           R"(],"segment":"consumer","arch_family":"ada","memory_bytes":25769803776,"memory_bandwidth_gbps":1008,"software":{"platform":")" +
           platform + R"("},"sources":["test"]})";
}

const Gpu& find(const Catalog& c, std::string_view id) {
    for (const Gpu& g : c.gpus)
        if (g.id == id) return g;
    FAIL("no " << id);
    return c.gpus.front();
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

TEST_CASE(
    "a name that matches several SKUs lists them, and a longer model name is another product") {
    const Catalog& c = embedded::catalog();
    // The RTX 4060 is not a 4060 Ti: "rtx-4060" is the 8 GB card, "4060 ti" both Ti SKUs.
    for (const char* name : {"rtx-4060", "RTX 4060", "geforce rtx 4060", "4060"}) {
        INFO(name);
        CHECK(resolve_gpu(c, name).id == "nvidia-rtx-4060-8gb");
    }
    CHECK_THROWS_WITH(resolve_gpu(c, "4060 ti"),
                      Catch::Contains("ambiguous") && Catch::Contains("nvidia-rtx-4060ti-8gb") &&
                          Catch::Contains("nvidia-rtx-4060ti-16gb") &&
                          !Catch::Contains("nvidia-rtx-4060-8gb") && !Catch::Contains("laptop"));
    CHECK(resolve_gpu(c, "rtx-5060").id == "nvidia-rtx-5060-8gb");
    CHECK(resolve_gpu(c, "4090 laptop").id == "nvidia-rtx-4090-laptop");
    // Qualifiers pick or list SKUs of one product: memory, core counts, form factors.
    CHECK_THROWS_WITH(resolve_gpu(c, "m1 max 64gb"), Catch::Contains("apple-m1-max-24c-64gb") &&
                                                         Catch::Contains("apple-m1-max-32c-64gb"));
    CHECK(resolve_gpu(c, "m3 max 36gb").id == "apple-m3-max-30c-36gb");
    CHECK_THROWS_WITH(resolve_gpu(c, "a100 80gb"), Catch::Contains("nvidia-a100-80gb-pcie") &&
                                                       Catch::Contains("nvidia-a100-80gb-sxm") &&
                                                       !Catch::Contains("40gb"));
    CHECK_THROWS_WITH(resolve_gpu(c, "rtx pro 5000"),
                      Catch::Contains("nvidia-rtx-pro-5000-blackwell-72gb"));
    CHECK(resolve_gpu(c, "h800").id == "nvidia-h800-sxm5");

    // Without a plain RTX 5060 in the catalog, "rtx-5060" is unknown: the 5060 Ti is
    // suggested, never silently taken.
    const Catalog ti =
        parse_catalog(catalog_of(named("nvidia-rtx-5060-ti-16gb", "GeForce RTX 5060 Ti 16GB") +
                                 "," + named("nvidia-rtx-4090", "GeForce RTX 4090", R"("4090")")),
                      "c.json");
    CHECK_THROWS_WITH(resolve_gpu(ti, "rtx-5060"),
                      Catch::Contains("unknown") && Catch::Contains("nvidia-rtx-5060-ti-16gb"));
    CHECK(resolve_gpu(ti, "5060 ti").id == "nvidia-rtx-5060-ti-16gb");
}

TEST_CASE("suggestions for an unknown name match its words first") {
    // "h800" before the catalog had one: the H100 and H200 share its "h", the
    // W6800 only its digits.
    const Catalog c = parse_catalog(
        catalog_of(named("nvidia-h100-sxm5", "H100 SXM5 80GB", R"("h100 sxm")") + "," +
                   named("nvidia-h200-sxm", "H200 SXM 141GB") + "," +
                   named("amd-radeon-pro-w6800", "Radeon PRO W6800", R"("w6800")", "amd", "rocm")),
        "c.json");
    CHECK_THROWS_WITH(resolve_gpu(c, "h800"), Catch::Contains("nvidia-h100-sxm5") &&
                                                  Catch::Contains("nvidia-h200-sxm") &&
                                                  !Catch::Contains("w6800"));
    const Catalog& e = embedded::catalog();
    CHECK_THROWS_WITH(resolve_gpu(e, "h900"), Catch::Contains("did you mean") &&
                                                  Catch::Contains("nvidia-h800-sxm5") &&
                                                  !Catch::Contains("w6800"));
    CHECK_THROWS_WITH(resolve_gpu(e, "mi300"),
                      Catch::Contains("amd-mi300a") && Catch::Contains("amd-mi300x"));
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
                // A figure the table lacks may be added only as a derivation the notes
                // show (the Apple rows' TFLOPS; docs/catalog.md lists the differences).
                if (value) CHECK(g->notes.find("DERIVED") != std::string_view::npos);
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

TEST_CASE("unified pools, power ranges and price dates are validated") {
    const auto fails = [](const std::string& extra, const std::string& what) {
        INFO(extra);
        CHECK_THROWS_WITH(parse_catalog(catalog_of(entry("a", extra)), "c.json"),
                          Catch::Contains(what));
    };
    const std::string pool =
        R"(,"unified_pool":{"default_share":0.75,"max_share":null,"setting":"s","source":"t"})";
    CHECK_NOTHROW(parse_catalog(catalog_of(entry("a", R"(,"unified_memory":true)" + pool)), "c"));
    fails(pool, "unified_memory is false");
    fails(R"(,"unified_memory":true,"unified_pool":{"default_share":0,"setting":"s","source":"t"})",
          "/gpus/0/unified_pool/default_share");
    fails(
        R"(,"unified_memory":true,"unified_pool":{"default_share":0.75,"max_share":0.5,"setting":"s","source":"t"})",
        "below default_share");
    fails(R"(,"unified_memory":true,"unified_pool":{"default_share":0.75,"source":"t"})",
          "/gpus/0/unified_pool/setting");
    // Every Apple SoC states its pool.
    std::string apple = entry("a", R"(,"unified_memory":true)");
    apple.replace(apple.find(R"("vendor":"nvidia")"), 17, R"("vendor":"apple")");
    CHECK_THROWS_WITH(parse_catalog(catalog_of(apple), "c.json"),
                      Catch::Contains("/gpus/0/unified_pool") && Catch::Contains("Apple"));

    const std::string power =
        R"(,"tdp_watts":150,"power":{"min_watts":80,"max_watts":150,"tflops_at_watts":150,"source":"s"})";
    CHECK_NOTHROW(parse_catalog(catalog_of(entry("a", power + R"(,"form":"laptop")")), "c"));
    fails(R"(,"power":{"min_watts":150,"max_watts":80,"tflops_at_watts":100,"source":"s"})",
          "below min_watts");
    fails(R"(,"power":{"min_watts":0,"max_watts":80,"tflops_at_watts":80,"source":"s"})",
          "/gpus/0/power/min_watts");
    fails(R"(,"power":{"min_watts":80,"max_watts":150,"tflops_at_watts":200,"source":"s"})",
          "outside the range");
    fails(
        R"(,"tdp_watts":175,"power":{"min_watts":80,"max_watts":150,"tflops_at_watts":150,"source":"s"})",
        "must equal power.max_watts");
    fails(R"(,"form":"laptop")", "/gpus/0/power: is required for a laptop GPU");

    fails(R"(,"price":{"usd":100,"kind":"used","date":"2025-13","source":"s"})", "YYYY-MM");
    fails(R"(,"price":{"usd":100,"kind":"second-hand","date":"2025-03","source":"s"})",
          "/gpus/0/price/kind");
    CHECK_NOTHROW(parse_catalog(
        catalog_of(
            entry("a", R"(,"price":{"usd":100,"kind":"used","date":"2025-03","source":"s"})")),
        "c"));
}

TEST_CASE("the shipped catalog: dated prices, unified pools, laptop power ranges, 150+ cards") {
    const Catalog& c = embedded::catalog();
    CHECK(c.gpus.size() >= 150);
    std::map<std::string, int> per_vendor;
    for (const Gpu& g : c.gpus) {
        INFO(g.id);
        ++per_vendor[std::string(to_string(g.vendor))];
        for (const auto* p : {&g.price, &g.launch_price})
            if (*p) {
                CHECK((*p)->date.size() == 7);
                CHECK((*p)->date[4] == '-');
                CHECK_FALSE((*p)->source.empty());
            }
        // Every part whose GPU shares the host's memory says how much of it the GPU gets
        // (MI300A: the whole HBM is the GPU's; no pool is recorded).
        if (g.shares_host_memory() && g.id != "amd-mi300a") {
            REQUIRE(g.unified_pool);
            CHECK(g.unified_memory);
            CHECK_FALSE(g.unified_pool->setting.empty());
            CHECK_FALSE(g.unified_pool->source.empty());
        }
        if (g.is_apple()) {
            REQUIRE(g.unified_pool);
            // macOS's default wired limit: 2/3 up to 32 GB, 3/4 above.
            const double gb = static_cast<double>(g.memory_bytes) / static_cast<double>(kGiB);
            CHECK(g.unified_pool->default_share == Approx(gb <= 32 ? 2.0 / 3 : 0.75).margin(1e-3));
            CHECK(g.unified_pool->setting.find("iogpu.wired_limit_mb") != std::string_view::npos);
            // FP32 and FP16 so prefill is answered.
            CHECK(g.tflops.fp32);
            CHECK(g.tflops.fp16);
        }
        if (g.is_laptop()) {
            REQUIRE(g.power);
            CHECK(g.tdp_watts == g.power->max_watts);
            CHECK(g.power->min_watts < g.power->max_watts);
            CHECK(g.tflops.fp16);
        }
    }
    CHECK(per_vendor["apple"] >= 60);
    CHECK(per_vendor["nvidia"] >= 90);
    // China-market parts are region-restricted.
    for (const char* id :
         {"nvidia-a800-80gb-sxm", "nvidia-h800-sxm5", "nvidia-l20", "nvidia-rtx-4090d"}) {
        INFO(id);
        REQUIRE(find(c, id).region);
        CHECK(*find(c, id).region == "cn");
    }
    // Used data-center cards carry a used price.
    for (const char* id : {"nvidia-tesla-p40", "nvidia-tesla-p100-16gb", "nvidia-tesla-m40-24gb",
                           "nvidia-v100-sxm2-16gb"}) {
        INFO(id);
        REQUIRE(find(c, id).price);
        CHECK(find(c, id).price->kind == PriceKind::Used);
    }
}

TEST_CASE("usable memory of a unified-memory part is its pool's default share") {
    const Catalog& c = embedded::catalog();
    const auto usable_gib = [&](std::string_view id) {
        return static_cast<double>(usable_memory(find(c, id), Os::Linux)) /
               static_cast<double>(kGiB);
    };
    // macOS: 2/3 of an 8 GB Mac (5461 MiB, as Metal reports), 3/4 of a 128 GB one.
    CHECK(usable_gib("apple-m1-7c-8gb") == Approx(8.0 * 2 / 3).epsilon(1e-3));
    CHECK(usable_gib("apple-m4-max-40c") == Approx(96.0).epsilon(1e-3));
    CHECK(usable_gib("apple-m3-max-30c-36gb") == Approx(27.0).epsilon(1e-3));
    // Strix Halo on Linux: GTT is half of the RAM unless raised.
    CHECK(usable_gib("amd-ryzen-ai-max-plus-395-128gb") == Approx(64.0).epsilon(1e-3));
    // Jetson and DGX Spark share the whole pool with the OS.
    CHECK(usable_gib("nvidia-dgx-spark") == Approx(128.0).epsilon(1e-6));
    CHECK(usable_gib("nvidia-jetson-agx-orin-64gb") == Approx(64.0).epsilon(1e-6));
    // A discrete card keeps all of its memory on Linux.
    CHECK(usable_memory(find(c, "nvidia-rtx-4090"), Os::Linux) ==
          find(c, "nvidia-rtx-4090").memory_bytes);
    // A user's pool moves the figure: the share, not a fixed 3/4, decides.
    Catalog mine = parse_catalog(
        catalog_of(entry(
            "m",
            R"(,"unified_memory":true,"unified_pool":{"default_share":0.9,"setting":"s","source":"t"})")),
        "c.json");
    CHECK(usable_memory(mine.gpus[0], Os::Linux) ==
          static_cast<std::uint64_t>(0.9 * static_cast<double>(mine.gpus[0].memory_bytes)));
}

TEST_CASE("a name two cards share is refused with the first clash in catalog order") {
    const auto message = [](const std::string& entries) {
        try {
            parse_catalog(catalog_of(entries), "c.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message(entry("a") + "," + entry("b") + "," + entry("a")) ==
          "c.json: /gpus/2/id: 'a' appears twice; ids must be unique");
    // An alias that normalises to another card's id or alias.
    CHECK(message(named("a", "A", R"("x 1")") + "," + named("b", "B", R"("X-1")")) ==
          "c.json: /gpus/1: 'X-1' is already used by 'a'; ids and aliases must be unique");
    CHECK(message(named("a-b", "A", "") + "," + named("ab", "B", "")) ==
          "c.json: /gpus/1: 'ab' is already used by 'a-b'; ids and aliases must be unique");
    // Card 1's second alias clashes before card 2's, though its key sorts later.
    CHECK(message(named("a", "A", R"("zz")") + "," + named("b", "B", R"("y","zz")") + "," +
                  named("c", "C", R"("a")")) ==
          "c.json: /gpus/1: 'zz' is already used by 'a'; ids and aliases must be unique");
    // A card may repeat its own names (an alias that is its id, normalised).
    const Catalog c =
        parse_catalog(catalog_of(named("rtx-x", "RTX X", R"("RTX X","rtx_x")")), "c.json");
    REQUIRE(c.names.size() == 1);
    CHECK(c.names[0].key == "rtxx");
    // The index is sorted by key, each name once, with its card.
    const Catalog two = parse_catalog(
        catalog_of(named("zeta", "Zeta", R"("alpha")") + "," + named("beta", "Beta", "")),
        "c.json");
    REQUIRE(two.names.size() == 3);
    CHECK(two.names[0].key == "alpha");
    CHECK(two.names[0].gpu == 0);
    CHECK(two.names[1].key == "beta");
    CHECK(two.names[1].gpu == 1);
    CHECK(two.names[2].key == "zeta");
}
