#include <catch2/catch.hpp>
#include <cmath>

#include "gpuadvise/calibrate.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/performance.hpp"
#include "gpuadvise/units.hpp"
#include "support/request.hpp"

using namespace gpuadvise;

namespace {

Workload lora8b(const char* batch = "4") {
    return test::workload(
        {{Field::Model, "llama-3.1-8b"}, {Field::Method, "lora"}, {Field::Batch, batch}},
        embedded::model_presets());
}

CalibrationRecord record_for(const Workload& w, double measured, MemoryMetric metric) {
    Measured run;
    run.metric = metric;
    run.bytes = measured;
    run.bytes_origin = "--measured-memory";
    return make_record(w, estimate(w), run, nullptr, "test-card", 0);
}

}  // namespace

TEST_CASE("measured speeds read with their unit and refuse a bare number") {
    CHECK(parse_measured_speed("2.1s/step", "--measured-speed").unit == SpeedUnit::SecondsPerStep);
    CHECK(parse_measured_speed("35 tok/s", "--measured-speed").value == 35.0);
    CHECK(parse_measured_speed("0.5img/s", "x").unit == SpeedUnit::ImagesPerSecond);
    CHECK(parse_measured_speed("12 s/img", "x").unit == SpeedUnit::SecondsPerImage);
    CHECK_THROWS_AS(parse_measured_speed("35", "--measured-speed"), InputError);
    CHECK_THROWS_AS(parse_measured_speed("fast", "--measured-speed"), InputError);
    CHECK_THROWS_AS(parse_measured_speed("-3tok/s", "--measured-speed"), InputError);
}

TEST_CASE("a calibration record is the measured over estimated ratio, clamped") {
    const Workload w = lora8b();
    const MemoryEstimate m = estimate(w);
    // Measuring exactly the estimate gives a factor of 1.
    CHECK(record_for(w, static_cast<double>(m.allocated_bytes), MemoryMetric::Allocated)
              .memory_factor == Approx(1.0));
    const CalibrationRecord r =
        record_for(w, static_cast<double>(m.allocated_bytes) * 0.9, MemoryMetric::Allocated);
    CHECK(r.memory_factor == Approx(0.9));
    CHECK(r.key == calibration_key(w));
    // A reserved peak is compared with the reserved estimate.
    CHECK(record_for(w, static_cast<double>(m.reserved_bytes), MemoryMetric::Reserved)
              .memory_factor == Approx(1.0));
    // A far measurement is clamped, not trusted; a peak below 1 MiB is no run at all.
    CHECK(record_for(w, 2.0 * kGiB, MemoryMetric::Allocated).memory_factor == Approx(0.5));
    CHECK_THROWS_WITH(record_for(w, 1.5, MemoryMetric::Allocated),
                      Catch::Contains("--measured-memory") && Catch::Contains("check the unit"));
}

TEST_CASE("calibration corrects workloads of the same key and leaves others alone") {
    Workload w = lora8b();
    const MemoryEstimate before = estimate(w);
    const double measured = static_cast<double>(before.allocated_bytes) * 0.9;
    Calibration cal;
    cal.source = "test.jsonl";
    cal.records.push_back(record_for(w, measured, MemoryMetric::Allocated));
    w.calibration = &cal;
    const MemoryEstimate after = estimate(w);
    CHECK(std::fabs(static_cast<double>(after.allocated_bytes) - measured) < 0.01 * measured);
    REQUIRE(after.calibrated);
    CHECK(after.calibrated->memory_records == 1);
    // A longer batch of the same model and harness is corrected too.
    Workload longer = lora8b("8");
    const std::uint64_t plain = estimate(longer).allocated_bytes;
    longer.calibration = &cal;
    CHECK(estimate(longer).allocated_bytes < plain);
    // Another model on the same harness takes the correction at
    // kOtherModelWeight: x0.9^0.5 of what it allocates.
    Workload other = test::workload({{Field::Model, "qwen2.5-7b"}, {Field::Method, "lora"}},
                                    embedded::model_presets());
    const std::uint64_t other_plain = estimate(other).allocated_bytes;
    other.calibration = &cal;
    const MemoryEstimate other_after = estimate(other);
    CHECK(
        static_cast<double>(other_after.allocated_bytes) ==
        Approx(static_cast<double>(other_plain) * std::pow(0.9, kOtherModelWeight)).epsilon(0.002));
    REQUIRE(other_after.calibrated);
    CHECK(other_after.calibrated->weight == kOtherModelWeight);
    // Inference is another harness: untouched.
    Workload serve = test::workload({{Field::Model, "llama-3.1-8b"}}, embedded::model_presets());
    const std::uint64_t serve_plain = estimate(serve).per_gpu_bytes;
    serve.calibration = &cal;
    CHECK(estimate(serve).per_gpu_bytes == serve_plain);
    CHECK_FALSE(estimate(serve).calibrated);
}

TEST_CASE("calibration files round-trip and name the bad line") {
    const Workload w = lora8b();
    const CalibrationRecord r = record_for(w, 15e9, MemoryMetric::Reserved);
    const std::string text = record_json_line(r) + "\n\n" + record_json_line(r) + "\n";
    const Calibration c = parse_calibration(text, "cal.jsonl");
    REQUIRE(c.records.size() == 2);
    CHECK(c.records[0].key == r.key);
    CHECK(c.records[0].metric == MemoryMetric::Reserved);
    const auto m = match_calibration(c, w);
    REQUIRE(m);
    CHECK(m->memory_records == 2);
    CHECK(m->memory_factor == Approx(r.memory_factor));
    CHECK_THROWS_WITH(parse_calibration("{\"key\": 3}\n", "cal.jsonl"),
                      Catch::Contains("cal.jsonl line 1"));
    CHECK_THROWS_WITH(parse_calibration(record_json_line(r) + "\nnot json\n", "cal.jsonl"),
                      Catch::Contains("line 2"));
}

TEST_CASE("run logs give their peak: torch summary, torchtune, nvidia-smi, llama.cpp") {
    const std::string summary =
        "|===========================================================================|\n"
        "|                  PyTorch CUDA memory summary, device ID 0                 |\n"
        "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n"
        "| Allocated memory      |   4096 MiB |  16384 MiB |  30 GiB    |  26 GiB    |\n"
        "| GPU reserved memory   |   8192 MiB |  18432 MiB |  18 GiB    |   0 B      |\n";
    const auto a = parse_run_log(summary, std::nullopt);
    REQUIRE(a);
    CHECK(a->metric == MemoryMetric::Allocated);
    CHECK(a->bytes == Approx(16.0 * static_cast<double>(kGiB)));
    const auto res = parse_run_log(summary, MemoryMetric::Reserved);
    REQUIRE(res);
    CHECK(res->bytes == Approx(18.0 * static_cast<double>(kGiB)));
    const auto tt = parse_run_log(
        "INFO:torchtune.utils._logging:Memory stats after model init:\n"
        "\tGPU peak memory allocation: 7.20 GiB\n\tGPU peak memory reserved: 7.86 GiB\n",
        std::nullopt);
    REQUIRE(tt);
    CHECK(tt->bytes == Approx(7.20 * static_cast<double>(kGiB)));
    const auto smi = parse_run_log(
        "timestamp, name, memory.used [MiB]\n2026/01/01, NVIDIA H100, 40000 MiB\n"
        "2026/01/01, NVIDIA H100, 52000 MiB\n2026/01/01, NVIDIA H100, 51000 MiB\n",
        std::nullopt);
    REQUIRE(smi);
    CHECK(smi->metric == MemoryMetric::NvidiaSmi);
    CHECK(smi->bytes == Approx(52000.0 * 1024 * 1024));
    const auto ggml = parse_run_log(
        "load_tensors:        CUDA0 model buffer size =  4403.49 MiB\n"
        "llama_kv_cache:      CUDA0 KV buffer size =   512.00 MiB\n"
        "llama_context:      CUDA0 compute buffer size =   296.01 MiB\n",
        std::nullopt);
    REQUIRE(ggml);
    CHECK(ggml->bytes == Approx((4403.49 + 512.0 + 296.01) * 1024 * 1024));
    CHECK_FALSE(parse_run_log("no memory figures here\n", std::nullopt));
}

TEST_CASE("a record narrows its scope where it would make the runs already in the file worse") {
    const Workload w = lora8b();
    const double est = static_cast<double>(estimate(w).allocated_bytes);
    CalibrationRecord fresh = record_for(w, 0.8 * est, MemoryMetric::Allocated);
    // Another model of the harness, already calibrated, was estimated right:
    // a x0.8 correction at weight 0.5 would take it 10 % off.
    const Workload other = test::workload({{Field::Model, "qwen2.5-7b"}, {Field::Method, "lora"}},
                                          embedded::model_presets());
    const double other_est = static_cast<double>(estimate(other).allocated_bytes);
    const std::vector<CalibrationRecord> file{
        record_for(other, other_est, MemoryMetric::Allocated)};
    const std::string why = narrow_scope(fresh, file);
    CHECK(fresh.scope == CalibrationScope::Model);
    CHECK_THAT(why, Catch::Contains("x0.800") && Catch::Contains("median error"));
    // A run of the same model at another batch that agrees with the new
    // record keeps it at full reach.
    CalibrationRecord agreeing = record_for(w, 0.8 * est, MemoryMetric::Allocated);
    const Workload bigger = lora8b("8");
    const double bigger_est = static_cast<double>(estimate(bigger).allocated_bytes);
    const std::vector<CalibrationRecord> same{
        record_for(bigger, 0.8 * bigger_est, MemoryMetric::Allocated)};
    CHECK(narrow_scope(agreeing, same).empty());
    CHECK(agreeing.scope == CalibrationScope::Harness);
    // One that disagrees on the same model narrows it to its own run.
    CalibrationRecord lone = record_for(w, 0.8 * est, MemoryMetric::Allocated);
    const std::vector<CalibrationRecord> disagree{
        record_for(bigger, bigger_est, MemoryMetric::Allocated)};
    CHECK_FALSE(narrow_scope(lone, disagree).empty());
    CHECK(lone.scope == CalibrationScope::Run);
    // Its own run is still corrected; the other batch is not.
    Calibration cal;
    cal.records.push_back(lone);
    Workload again = lora8b();
    again.calibration = &cal;
    CHECK(estimate(again).calibrated);
    Workload other_batch = lora8b("8");
    other_batch.calibration = &cal;
    CHECK_FALSE(estimate(other_batch).calibrated);
    // The scope round-trips through the file.
    const Calibration read = parse_calibration(record_json_line(lone) + "\n", "x.jsonl");
    CHECK(read.records.at(0).scope == CalibrationScope::Run);
    CHECK(read.records.at(0).batch == 4);
}

TEST_CASE("torchtune's memory after model init gives the loaded parameters their own factor") {
    const std::string log =
        "Memory stats after model init:\n"
        "\tGPU peak memory allocation: 15.00 GiB\n"
        "\tGPU peak memory reserved: 15.10 GiB\n"
        "1|10|Loss: 1.2\n"
        "Memory stats: GPU peak memory allocation: 19.00 GiB\n";
    const auto peak = parse_run_log(log, std::nullopt, "train.log");
    REQUIRE(peak);
    CHECK(peak->bytes == Approx(19.0 * kGiB));
    CHECK(peak->static_bytes == Approx(15.0 * kGiB));
    const Workload w = lora8b();
    const MemoryEstimate m = estimate(w);
    Measured run;
    run.metric = MemoryMetric::Allocated;
    run.bytes = peak->bytes;
    run.static_bytes = peak->static_bytes;
    run.bytes_origin = "train.log";
    const CalibrationRecord r = make_record(w, m, run, nullptr, "card", 0);
    const double loaded =
        static_cast<double>(m.get(&Components::weights) + m.get(&Components::adapters));
    CHECK(r.static_factor == Approx(15.0 * kGiB / loaded));
    CHECK(r.memory_factor ==
          Approx(4.0 * kGiB / (static_cast<double>(m.allocated_bytes) - loaded)).epsilon(1e-6));
    // Applied: the loaded parameters by one factor, the rest by the other;
    // the corrected estimate is the measured peak.
    Calibration cal;
    cal.records.push_back(r);
    Workload corrected = w;
    corrected.calibration = &cal;
    const MemoryEstimate after = estimate(corrected);
    CHECK(static_cast<double>(after.allocated_bytes) == Approx(19.0 * kGiB).epsilon(0.01));
    CHECK(static_cast<double>(after.get(&Components::weights) + after.get(&Components::adapters)) ==
          Approx(15.0 * kGiB).epsilon(0.01));
}
