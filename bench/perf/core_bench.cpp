// Google Benchmark of the core's stages, in the order one `gpuadvise` run
// pays them: parse the embedded catalog and presets, resolve and estimate the
// workload, rank every card with plans of 1, 2, 4 and 8 GPUs, and print. Plus
// a scaling benchmark over synthetic catalogs of 1k, 10k and 100k entries.
//
//   cmake --build build-bench --target bench      (or run gpuadvise_core_bench)
//   build-bench/bench/perf/gpuadvise_core_bench --benchmark_filter=Scale
#include <benchmark/benchmark.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run.hpp"
#include "gpuadvise/batch.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/report_json.hpp"
#include "gpuadvise/report_text.hpp"
#include "gpuadvise/table.hpp"
#include "gpuadvise/workload.hpp"
#include "synthetic.hpp"

namespace {

using namespace gpuadvise;

Request qlora_8b() {
    Request r;
    r.set(Field::Model, "8B", "--model");
    r.set(Field::Method, "qlora", "--method");
    return r;
}

const Workload& workload_8b_qlora() {
    static const Workload w = resolve_workload(qlora_8b(), {}, embedded::model_presets());
    return w;
}

// ---- the stages of one run

void BM_ParseEmbeddedCatalog(benchmark::State& state) {
    const std::string_view text = embedded::gpus_json();
    std::size_t gpus = 0;
    for (auto _ : state) {
        Catalog c = parse_catalog(text, embedded::kGpusSource);
        gpus = c.gpus.size();
        benchmark::DoNotOptimize(c);
    }
    state.counters["gpus"] = static_cast<double>(gpus);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_ParseEmbeddedCatalog)->Unit(benchmark::kMicrosecond);

// The JSON text to a document alone, with gpuadvise's strict reader and with
// nlohmann's (the reader user catalogs went through before 0.2.0).
void BM_ParseCatalogJsonOnly(benchmark::State& state) {
    const std::string_view text = embedded::gpus_json();
    for (auto _ : state) {
        json::Document d = json::Document::parse(text, "gpus.json");
        benchmark::DoNotOptimize(d);
    }
}
BENCHMARK(BM_ParseCatalogJsonOnly)->Unit(benchmark::kMicrosecond);

void BM_ParseCatalogJsonOnlyNlohmann(benchmark::State& state) {
    const std::string_view text = embedded::gpus_json();
    for (auto _ : state) {
        nlohmann::json j = nlohmann::json::parse(text);
        benchmark::DoNotOptimize(j);
    }
}
BENCHMARK(BM_ParseCatalogJsonOnlyNlohmann)->Unit(benchmark::kMicrosecond);

// What a run pays for the embedded catalog: the generated constant data
// becomes a Catalog (views, no parsing).
void BM_BuildEmbeddedCatalog(benchmark::State& state) {
    for (auto _ : state) {
        Catalog c = embedded::build_catalog();
        benchmark::DoNotOptimize(c);
    }
}
BENCHMARK(BM_BuildEmbeddedCatalog)->Unit(benchmark::kMicrosecond);

void BM_ParseModelPresets(benchmark::State& state) {
    for (auto _ : state) {
        auto presets = parse_model_presets(embedded::models_json(), embedded::kModelsSource);
        benchmark::DoNotOptimize(presets);
    }
}
BENCHMARK(BM_ParseModelPresets)->Unit(benchmark::kMicrosecond);

// One workload: resolve_workload (flags to a normalised workload, shape
// inferred from "8B") and the memory estimate.
void BM_EstimateWorkload(benchmark::State& state) {
    const Request request = qlora_8b();
    const auto& presets = embedded::model_presets();
    for (auto _ : state) {
        const Workload w = resolve_workload(request, {}, presets);
        MemoryEstimate m = estimate(w);
        benchmark::DoNotOptimize(m);
    }
}
BENCHMARK(BM_EstimateWorkload)->Unit(benchmark::kMicrosecond);

void BM_EstimateOnly(benchmark::State& state) {
    const Workload& w = workload_8b_qlora();
    for (auto _ : state) {
        MemoryEstimate m = estimate(w);
        benchmark::DoNotOptimize(m);
    }
}
BENCHMARK(BM_EstimateOnly)->Unit(benchmark::kNanosecond);

// The whole embedded catalog with the default RankOptions: every card with 1,
// 2, 4 and 8 GPUs until one fits.
void BM_RankEmbeddedCatalog(benchmark::State& state) {
    const Workload& w = workload_8b_qlora();
    const Catalog& catalog = embedded::catalog();
    const RankOptions options;
    for (auto _ : state) {
        auto recs = rank(w, catalog, options);
        benchmark::DoNotOptimize(recs);
    }
    state.counters["gpus"] = static_cast<double>(catalog.gpus.size());
}
BENCHMARK(BM_RankEmbeddedCatalog)->Unit(benchmark::kMicrosecond);

// Ranking by speed tries every count of every card (no early stop).
void BM_RankEmbeddedCatalogBySpeed(benchmark::State& state) {
    const Workload& w = workload_8b_qlora();
    const Catalog& catalog = embedded::catalog();
    RankOptions options;
    options.rank_by = RankBy::Speed;
    for (auto _ : state) {
        auto recs = rank(w, catalog, options);
        benchmark::DoNotOptimize(recs);
    }
}
BENCHMARK(BM_RankEmbeddedCatalogBySpeed)->Unit(benchmark::kMicrosecond);

// One plan: what rank pays per card and GPU count.
void BM_EvaluatePlan(benchmark::State& state) {
    const Workload& w = workload_8b_qlora();
    const Gpu& gpu = resolve_gpu(embedded::catalog(), "rtx-4090");
    const RankOptions options;
    for (auto _ : state) {
        Recommendation r = evaluate_plan(w, gpu, 1, options);
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_EvaluatePlan)->Unit(benchmark::kNanosecond);

// A multi-node training plan: the layout search (every tp x cp x pp x dp x
// vpp split with ZeRO-1 and FSDP, each estimated and timed) on 64 and 16,384
// H100, for Llama 3.1 70B and 405B.
void BM_EvaluatePlanLayoutSearch(benchmark::State& state) {
    const std::int64_t count = state.range(0);
    Request r;
    r.set(Field::Model, count > 1024 ? "llama-3.1-405b" : "llama-3.1-70b", "bench");
    r.set(Field::Method, "full", "bench");
    r.set(Field::Seq, "8192", "bench");
    r.set(Field::Batch, "1", "bench");
    const Workload w = resolve_workload(r, {}, embedded::model_presets());
    const Gpu& gpu = resolve_gpu(embedded::catalog(), "h100-sxm5");
    const RankOptions options;
    for (auto _ : state) {
        Recommendation rec = evaluate_plan(w, gpu, count, options);
        benchmark::DoNotOptimize(rec);
    }
}
BENCHMARK(BM_EvaluatePlanLayoutSearch)->Unit(benchmark::kMicrosecond)->Arg(64)->Arg(16384);

// Printing: the table and the JSON document of `gpuadvise --model 8B --method qlora [--json]`.
void BM_ReportText(benchmark::State& state) {
    const Workload& w = workload_8b_qlora();
    const RankOptions options;
    const auto recs = rank(w, embedded::catalog(), options);
    const MemoryEstimate m = estimate(w);
    for (auto _ : state) {
        std::string s = recommend_text(w, m, recs, 10, options, embedded::catalog().gpus.size(),
                                       Format::Table, Style{});
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_ReportText)->Unit(benchmark::kMicrosecond);

void BM_ReportJson(benchmark::State& state) {
    const Workload& w = workload_8b_qlora();
    const RankOptions options;
    const auto recs = rank(w, embedded::catalog(), options);
    const MemoryEstimate m = estimate(w);
    for (auto _ : state) {
        std::string s = recommend_json(w, m, recs, 10, options);
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_ReportJson)->Unit(benchmark::kMicrosecond);

// One `gpuadvise batch` line: parse, resolve, estimate, check one card,
// write the result line (the target is 100,000 lines a second).
void BM_BatchLine(benchmark::State& state) {
    const std::string line = R"({"model":"8B","method":"qlora","gpu":"rtx-4090"})";
    const Catalog& catalog = embedded::catalog();
    const auto& presets = embedded::model_presets();
    for (auto _ : state) {
        BatchLineResult r = run_batch_line(line, 1, {catalog, presets});
        if (!r.ok) state.SkipWithError("the batch line failed");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_BatchLine)->Unit(benchmark::kMicrosecond);

// The same line again in one run: its check comes from the run's BatchMemo
// (what `batch` pays for a line that asks what an earlier one asked).
void BM_BatchLineAskedBefore(benchmark::State& state) {
    const std::string line = R"({"model":"8B","gpu":"rtx-4090"})";
    BatchMemo memo;
    const BatchContext context{embedded::catalog(), embedded::model_presets(), nullptr, &memo};
    run_batch_line(line, 1, context);
    for (auto _ : state) {
        BatchLineResult r = run_batch_line(line, 2, context);
        if (!r.ok) state.SkipWithError("the batch line failed");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_BatchLineAskedBefore)->Unit(benchmark::kMicrosecond);

// `gpuadvise rules` prints this; run_cli/rules minus this is the CLI's own
// cost (CLI11 set-up and parsing, logger).
void BM_RulesText(benchmark::State& state) {
    for (auto _ : state) {
        std::string s = render(rules_table(), Format::Table, Style{});
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_RulesText)->Unit(benchmark::kMicrosecond);

// The whole command in-process (CLI11 set-up and parsing, resolve, rank,
// print into a string). The model presets are parsed once per process and
// cached, so this excludes them: add BM_ParseModelPresets for a cold process.
void run_cli(benchmark::State& state, std::vector<std::string> args) {
    args.insert(args.begin(), "gpuadvise");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    static std::istringstream in;
    static std::ostringstream out, err;  // outlive the logger run() installs
    for (auto _ : state) {
        out.str("");
        err.str("");
        const int rc = cli::run(static_cast<int>(args.size()), argv.data(), in, out, err);
        if (rc != 0) state.SkipWithError("gpuadvise failed");
        benchmark::DoNotOptimize(rc);
    }
    state.counters["out_bytes"] = static_cast<double>(out.str().size());
}
BENCHMARK_CAPTURE(run_cli, recommend_text, {"--model", "8B", "--method", "qlora"})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run_cli, recommend_json, {"--model", "8B", "--method", "qlora", "--json"})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run_cli, rules, {"rules"})->Unit(benchmark::kMicrosecond);

// ---- scaling: synthetic catalogs of N entries, cloned from the embedded ones
// with new ids and aliases (both must be unique).

const std::string& synthetic_catalog(std::size_t n) {
    static std::map<std::size_t, std::string> cache;
    auto& text = cache[n];
    if (text.empty()) text = bench::synthetic_catalog(n);
    return text;
}

void set_per_entry(benchmark::State& state, std::size_t n, const std::string& text) {
    state.counters["entries"] = static_cast<double>(n);
    state.counters["per_entry"] =
        benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                       benchmark::Counter::kInvert);
    state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}

void BM_ScaleParse(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::string& text = synthetic_catalog(n);
    for (auto _ : state) {
        Catalog c = parse_catalog(text, "synthetic");
        benchmark::DoNotOptimize(c);
    }
    set_per_entry(state, n, text);
}

void BM_ScaleRank(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::string& text = synthetic_catalog(n);
    const Catalog c = parse_catalog(text, "synthetic");
    const RankOptions options;
    for (auto _ : state) {
        auto recs = rank(workload_8b_qlora(), c, options);
        benchmark::DoNotOptimize(recs);
    }
    set_per_entry(state, n, text);
}

void BM_ScaleParseAndRank(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::string& text = synthetic_catalog(n);
    const RankOptions options;
    for (auto _ : state) {
        Catalog c = parse_catalog(text, "synthetic");
        auto recs = rank(workload_8b_qlora(), c, options);
        benchmark::DoNotOptimize(recs);
    }
    set_per_entry(state, n, text);
}

// 1k and 10k are timed as usual; the 100k runs take long enough that one
// iteration is the measurement.
#define GPUADVISE_SCALE_BENCHMARK(fn)                                    \
    BENCHMARK(fn)->Unit(benchmark::kMillisecond)->Arg(1000)->Arg(10000); \
    BENCHMARK(fn)->Unit(benchmark::kMillisecond)->Arg(100000)->Iterations(1)
GPUADVISE_SCALE_BENCHMARK(BM_ScaleParse);
GPUADVISE_SCALE_BENCHMARK(BM_ScaleRank);
GPUADVISE_SCALE_BENCHMARK(BM_ScaleParseAndRank);

}  // namespace

BENCHMARK_MAIN();
