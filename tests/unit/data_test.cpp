// Every table generated into the binary equals a runtime parse of its data
// file, and the data files keep their own invariants.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "gpuadvise/attainable.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/quant.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/task.hpp"

using namespace gpuadvise;

TEST_CASE("generated weight formats equal data/quants.json") {
    const auto parsed = parse_quant_formats(embedded::quants_json(), "data/quants.json");
    const auto built = embedded::quant_formats();
    REQUIRE(parsed.rows.size() == built.size());
    for (std::size_t i = 0; i < built.size(); ++i) {
        const QuantFormat &a = parsed.rows[i], &b = built[i];
        INFO(a.id);
        CHECK(a.id == b.id);
        CHECK(a.name == b.name);
        CHECK(std::equal(a.aliases.begin(), a.aliases.end(), b.aliases.begin(), b.aliases.end()));
        CHECK(a.family == b.family);
        CHECK(a.value_bits == b.value_bits);
        CHECK(a.group == b.group);
        CHECK(a.group_overhead_bits == b.group_overhead_bits);
        CHECK(a.double_quant_overhead_bits == b.double_quant_overhead_bits);
        CHECK(a.quantizes_embeddings == b.quantizes_embeddings);
        CHECK(a.trainable_base == b.trainable_base);
        CHECK(a.parameter == b.parameter);
        CHECK(a.parameter_min == b.parameter_min);
        CHECK(a.parameter_max == b.parameter_max);
        CHECK(a.tensor_path == b.tensor_path);
        CHECK(a.dequant_time_factor == b.dequant_time_factor);
        CHECK(a.source == b.source);
    }
}

TEST_CASE("bits per weight follow each format's block layout") {
    const auto bits = [](const char* q) {
        return parse_quant(q, "--quant").bits_per_weight(false);
    };
    CHECK(bits("q8_0") > 8.5);  // Q8_0 blocks (8.5) plus the head
    CHECK(bits("awq-int4") == Approx(4.15625));
    CHECK(bits("nvfp4") == Approx(4.5));
    CHECK(bits("mxfp4") == Approx(4.25));
    CHECK(bits("exl2:4.65") == Approx(4.65));
    CHECK(bits("mlx-4bit") == Approx(4.5));
    CHECK(bits("iq2_xxs") < bits("q2_k"));
    CHECK(bits("Q4_K_M") == Approx(4.899));
    CHECK_THROWS_WITH(parse_quant("q9_k", "--quant"), Catch::Contains("--quant 'q9_k'"));
    CHECK_THROWS_WITH(parse_quant("nf4:3", "--quant"), Catch::Contains("takes no parameter"));
}

TEST_CASE("generated engines equal data/engines.json") {
    const auto parsed = parse_engines(embedded::engines_json(), "data/engines.json");
    const auto built = embedded::engines();
    REQUIRE(parsed.rows.size() == built.size());
    for (std::size_t i = 0; i < built.size(); ++i) {
        const Engine &a = parsed.rows[i], &b = built[i];
        INFO(a.id);
        CHECK(a.id == b.id);
        CHECK(a.bandwidth_efficiency == b.bandwidth_efficiency);
        CHECK(a.layer_overhead_s == b.layer_overhead_s);
        CHECK(a.prefill_efficiency == b.prefill_efficiency);
        CHECK(a.calibrated == b.calibrated);
        CHECK(a.evidence == b.evidence);
        CHECK(a.multi_gpu == b.multi_gpu);
        CHECK(a.memory == b.memory);
        CHECK(std::equal(a.formats.begin(), a.formats.end(), b.formats.begin(), b.formats.end()));
        CHECK(std::equal(a.kv_dtypes.begin(), a.kv_dtypes.end(), b.kv_dtypes.begin(),
                         b.kv_dtypes.end()));
        REQUIRE(a.backends.size() == b.backends.size());
        for (std::size_t k = 0; k < a.backends.size(); ++k) {
            CHECK(a.backends[k].platform == b.backends[k].platform);
            CHECK(a.backends[k].support == b.backends[k].support);
            CHECK(a.backends[k].min_compute_capability == b.backends[k].min_compute_capability);
            CHECK(std::equal(a.backends[k].gfx.begin(), a.backends[k].gfx.end(),
                             b.backends[k].gfx.begin(), b.backends[k].gfx.end()));
        }
        CHECK(std::equal(a.fit_ladder.begin(), a.fit_ladder.end(), b.fit_ladder.begin(),
                         b.fit_ladder.end()));
        CHECK(a.fit_offload_from == b.fit_offload_from);
        CHECK(a.default_context.size() == b.default_context.size());
        CHECK(a.training.has_value() == b.training.has_value());
        for (std::size_t k = 0; k < a.backends.size(); ++k) {
            CHECK(a.backends[k].reserve_bytes == b.backends[k].reserve_bytes);
            CHECK(a.backends[k].fp8_weight_only_min_cc == b.backends[k].fp8_weight_only_min_cc);
        }
        CHECK(a.serve_with == b.serve_with);
        REQUIRE(a.serve.has_value() == b.serve.has_value());
        if (!a.serve) continue;
        const ServeTemplate &sa = *a.serve, &sb = *b.serve;
        CHECK(
            std::equal(sa.program.begin(), sa.program.end(), sb.program.begin(), sb.program.end()));
        CHECK(sa.model_flag == sb.model_flag);
        CHECK(std::equal(sa.loads.begin(), sa.loads.end(), sb.loads.begin(), sb.loads.end()));
        CHECK(std::equal(sa.platforms.begin(), sa.platforms.end(), sb.platforms.begin(),
                         sb.platforms.end()));
        CHECK(sa.modelfile == sb.modelfile);
        REQUIRE(sa.flags.size() == sb.flags.size());
        for (std::size_t k = 0; k < sa.flags.size(); ++k) {
            CHECK(sa.flags[k].role == sb.flags[k].role);
            CHECK(std::equal(sa.flags[k].args.begin(), sa.flags[k].args.end(),
                             sb.flags[k].args.begin(), sb.flags[k].args.end()));
        }
    }
}

TEST_CASE("generated tasks and rule data equal their files") {
    const auto tasks = parse_tasks(embedded::tasks_json(), "data/tasks.json");
    REQUIRE(tasks.rows.size() == embedded::tasks().size());
    for (std::size_t i = 0; i < tasks.rows.size(); ++i) {
        CHECK(tasks.rows[i].id == embedded::tasks()[i].id);
        CHECK(tasks.rows[i].requirements.min_memory_bytes ==
              embedded::tasks()[i].requirements.min_memory_bytes);
        CHECK(tasks.rows[i].document_pick == embedded::tasks()[i].document_pick);
        CHECK(tasks.rows[i].model == embedded::tasks()[i].model);
    }
    const auto rules = parse_rule_data(embedded::rules_json(), "data/rules.json");
    REQUIRE(rules.rows.size() == embedded::rule_data().size());
    for (std::size_t i = 0; i < rules.rows.size(); ++i) {
        const RuleData &a = rules.rows[i], &b = embedded::rule_data()[i];
        CHECK(a.id == b.id);
        REQUIRE(a.thresholds.size() == b.thresholds.size());
        for (std::size_t k = 0; k < a.thresholds.size(); ++k)
            CHECK(a.thresholds[k].value == b.thresholds[k].value);
    }
}

TEST_CASE("engines run only where their rows say") {
    const Catalog& c = embedded::catalog();
    const auto runs = [&](const char* engine, const char* gpu) {
        return engine_fit(*find_engine(engine), resolve_gpu(c, gpu)).runs;
    };
    CHECK(runs("tensorrt-llm", "rtx-4090"));
    CHECK_FALSE(runs("tensorrt-llm", "amd-rx-7900-xtx"));
    CHECK_FALSE(runs("vllm", "apple-m2-ultra-76c-192gb"));
    CHECK(runs("llama.cpp", "apple-m2-ultra-76c-192gb"));
    CHECK(runs("mlx", "apple-m2-ultra-76c-192gb"));
    CHECK_FALSE(runs("exllamav2", "intel-arc-a770-16gb"));
    CHECK(runs("vllm", "nvidia-rtx-4090"));
}

TEST_CASE("cloud prices: every row's median and range are its quotes', each dated and sourced") {
    const CloudPrices& prices = cloud_prices();
    REQUIRE(prices.rows.size() >= 15);
    const Catalog catalog = embedded::build_catalog();
    for (const CloudPrice& p : prices.rows) {
        INFO(p.gpu);
        CHECK(std::any_of(catalog.gpus.begin(), catalog.gpus.end(),
                          [&](const Gpu& g) { return g.id == p.gpu; }));
        CHECK(p.min <= p.median);
        CHECK(p.median <= p.max);
        for (const CloudQuote& q : p.quotes) {
            CHECK((q.date.size() == 10 || q.date.size() == 7));
            CHECK_FALSE(q.source.empty());
        }
    }
    const CloudPrice* h100 = prices.find("nvidia-h100-sxm5");
    REQUIRE(h100 != nullptr);
    CHECK(h100->quotes.size() >= 3);  // several providers, not one
}

TEST_CASE("cloud prices: a median that is not the quotes' own, or an undated quote, is refused") {
    const std::string quote =
        R"({"provider": "P", "offering": "1x", "gpus": 2, "usd_per_hour": 4.0,
            "usd_per_gpu_hour": 2.0, "kind": "on-demand", "date": "2026-10-01", "source": "s"})";
    const auto file = [&](std::string_view median, std::string_view q) {
        return fmt::format(
            R"({{"schema": 1, "date": "2026-11-01", "cards": [{{"gpu": "x",
                 "usd_per_gpu_hour": {{"median": {}, "min": 2.0, "max": 2.0}},
                 "quotes": [{}]}}]}})",
            median, q);
    };
    CHECK(parse_cloud_prices(file("2.0", quote), "t").rows.at(0).median == 2.0);
    CHECK_THROWS_WITH(parse_cloud_prices(file("2.5", quote), "t"),
                      Catch::Contains("must be the quotes' median 2.00"));
    std::string undated = quote;
    undated.replace(undated.find(R"("date": "2026-10-01", )"), 22, "");
    CHECK_THROWS_WITH(parse_cloud_prices(file("2.0", undated), "t"), Catch::Contains("date"));
    std::string wrong = quote;
    wrong.replace(wrong.find("4.0"), 3, "5.0");  // 5.0 / 2 GPUs is not 2.0 per GPU
    CHECK_THROWS_WITH(parse_cloud_prices(file("2.0", wrong), "t"),
                      Catch::Contains("usd_per_hour / gpus"));
}

TEST_CASE("fit's ladders name formats of data/quants.json, checked when the program is built") {
    // The shipped ladders pass the generator's check.
    CHECK_NOTHROW(
        check_engine_formats(embedded::engines(), embedded::quant_formats(), "data/engines.json"));
    for (const Engine& e : embedded::engines()) {
        INFO(e.id);
        if (e.inference && !e.library) CHECK_FALSE(e.fit_ladder.empty());
    }
    // An unknown id, a parameter out of range, and a format the engine does not load fail.
    const auto engines_with = [](const char* ladder) {
        return std::string(R"({"engines": [{"id": "x", "name": "X", "bandwidth_efficiency": 0.8,
            "layer_overhead_s": 0, "prefill_efficiency": 0.5, "evidence": "t",
            "multi_gpu": "layers", "memory": "llama.cpp", "formats": ["none", "gguf"],
            "kv_dtypes": ["fp16"], "backends": [{"platform": "cuda", "support": "yes",
            "source": "t"}], "source": "t", "fit_ladder_source": "t", "fit_ladder": )") +
               ladder + "}]}";
    };
    const auto check = [&](const char* ladder) {
        const auto parsed = parse_engines(engines_with(ladder), "engines.json");
        check_engine_formats(parsed.rows, embedded::quant_formats(), "engines.json");
    };
    CHECK_NOTHROW(check(R"(["default", "q8_0", "q4_k_m"])"));
    CHECK_THROWS_WITH(check(R"(["q8_0", "q9_k"])"),
                      Catch::Contains("engine 'x': fit_ladder 'q9_k': names no format"));
    CHECK_THROWS_WITH(check(R"(["awq-int4"])"),
                      Catch::Contains("is of the awq family, which the engine does not load"));
    CHECK_THROWS_WITH(check(R"(["q8_0:4"])"), Catch::Contains("takes no parameter"));
    CHECK_THROWS_WITH(parse_engines(engines_with(R"(["q8_0", "q8_0"])"), "engines.json"),
                      Catch::Contains("lists 'q8_0' twice"));
    // The format an engine downloads by default is checked the same way, and
    // needs its source.
    CHECK_NOTHROW(check(R"(["q4_k_m"], "default_quant": "q4_k_m", "default_quant_source": "t")"));
    CHECK_THROWS_WITH(
        check(R"(["q4_k_m"], "default_quant": "awq-int4", "default_quant_source": "t")"),
        Catch::Contains("default_quant 'awq-int4': is of the awq family"));
    CHECK_THROWS_WITH(
        parse_engines(engines_with(R"(["q4_k_m"], "default_quant": "q4_k_m")"), "engines.json"),
        Catch::Contains("default_quant_source"));
}

TEST_CASE("engine rows: llama.cpp loads FP4, vLLM AWQ and GPTQ on ROCm, Ollama's reserve") {
    const Engine& llama = *find_engine("llama.cpp");
    CHECK(llama.loads(QuantFamily::Fp4));
    CHECK(find_engine("ollama")->loads(QuantFamily::Fp4));
    const Engine& vllm = *find_engine("vllm");
    CHECK(vllm.loads(QuantFamily::Awq, SoftwarePlatform::Rocm));
    CHECK(vllm.loads(QuantFamily::Gptq, SoftwarePlatform::Rocm));
    CHECK(vllm.backend(SoftwarePlatform::Cuda)->fp8_weight_only_min_cc == 7.5);
    const Engine& ollama = *find_engine("ollama");
    CHECK(ollama.backend(SoftwarePlatform::Cuda)->reserve_bytes == 457ULL << 20U);
    CHECK(ollama.backend(SoftwarePlatform::Metal)->reserve_bytes == 512ULL << 20U);
    REQUIRE(ollama.default_context.size() == 3);
    CHECK(ollama.default_context.front().tokens == 262144);
    REQUIRE(find_engine("mlx")->training.has_value());
    CHECK(find_engine("mlx")->training->qlora_base == "mlx-4bit");
}

TEST_CASE("generated attainable rates equal data/attainable.json") {
    const auto parsed = parse_attainable(embedded::attainable_json(), "data/attainable.json");
    const AttainableData built = embedded::attainable();
    CHECK(parsed.source == built.source);
    REQUIRE(parsed.measured.size() == built.measured.size());
    for (std::size_t i = 0; i < built.measured.size(); ++i) {
        const MeasuredRate &a = parsed.measured[i], &b = built.measured[i];
        INFO(a.gpu);
        CHECK(a.gpu == b.gpu);
        CHECK(a.dtype == b.dtype);
        CHECK(a.tflops == b.tflops);
        CHECK(a.low == b.low);
        CHECK(a.high == b.high);
        CHECK(a.rows == b.rows);
        CHECK(a.ids == b.ids);
    }
    REQUIRE(parsed.reach.size() == built.reach.size());
    for (std::size_t i = 0; i < built.reach.size(); ++i) {
        const ReachClass &a = parsed.reach[i], &b = built.reach[i];
        INFO(a.id);
        CHECK(a.id == b.id);
        CHECK(a.median == b.median);
        CHECK(a.low == b.low);
        CHECK(a.high == b.high);
        CHECK(a.cards == b.cards);
    }
    REQUIRE(parsed.ratios.size() == built.ratios.size());
    for (std::size_t i = 0; i < built.ratios.size(); ++i) {
        CHECK(parsed.ratios[i].dtype == built.ratios[i].dtype);
        CHECK(parsed.ratios[i].ratio == built.ratios[i].ratio);
        CHECK(parsed.ratios[i].cards == built.ratios[i].cards);
    }
    REQUIRE(parsed.power.size() == built.power.size());
    for (std::size_t i = 0; i < built.power.size(); ++i) {
        CHECK(parsed.power[i].key == built.power[i].key);
        CHECK(parsed.power[i].tflops_per_watt == built.power[i].tflops_per_watt);
        CHECK(parsed.power[i].cards == built.power[i].cards);
        CHECK(parsed.power[i].gpus == built.power[i].gpus);
    }
}

TEST_CASE("every measured attainable rate is of a catalog card and within its own rows") {
    const AttainableData a = embedded::attainable();
    REQUIRE(!a.measured.empty());
    for (const MeasuredRate& m : a.measured) {
        INFO(m.gpu);
        const auto& gpus = embedded::catalog().gpus;
        CHECK(std::any_of(gpus.begin(), gpus.end(), [&](const Gpu& g) { return g.id == m.gpu; }));
        CHECK(m.low <= m.tflops);
        CHECK(m.tflops <= m.high);
    }
}
