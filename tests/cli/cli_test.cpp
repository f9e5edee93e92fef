// End-to-end tests of the real binary: exit codes, the JSON contract, the
// table agreeing with the JSON, and the commands of the skeleton.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "support/run_process.hpp"
#include "support/temp_files.hpp"

namespace {

ProcessResult gpuadvise(std::vector<std::string> args, const std::string& stdin_text = "") {
    args.insert(args.begin(), GPUADVISE_BIN);
    return run_process(args, stdin_text);
}

double table_gib(const std::string& text, const std::string& pattern) {
    std::smatch m;
    REQUIRE(std::regex_search(text, m, std::regex(pattern)));
    return std::stod(m[1]);
}

}  // namespace

TEST_CASE("the main job answers with workload, breakdown and a ranked table") {
    const auto r = gpuadvise({"--model", "8B", "--method", "qlora"});
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    for (const char* text : {"8B (8.00B parameters)", "nf4 (4.13 bits/weight, double quantisation)",
                             "batch 4 x seq 512", "grad-ckpt on", "paged-adamw-32bit",
                             "rank 64 on q,v", "weights", "activations", "runtime", "total per GPU",
                             "GPUs ranked by value", "Headroom", "Bandwidth", "Reason"})
        CHECK_THAT(r.out, Catch::Contains(text));
    // default top 10
    std::size_t rows = 0;
    for (int i = 1; i <= 12; ++i)
        if (std::regex_search(r.out, std::regex("\\n *" + std::to_string(i) + " +[a-z]"))) ++rows;
    CHECK(rows == 10);
}

TEST_CASE("JSON output is one schema-1 object that matches the table") {
    const auto j = gpuadvise({"--model", "8B", "--method", "qlora", "--json"});
    REQUIRE(j.exit_code == 0);
    CHECK(j.err.empty());
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["schema"] == 1);
    CHECK(doc["workload"]["method"] == "qlora");
    CHECK(doc["workload"]["params"] == 8000000000ULL);
    CHECK(doc["workload"]["architecture"]["inferred"] == true);
    const auto& mem = doc["memory"];
    std::uint64_t sum = 0;
    for (const auto& [name, value] : mem["components"].items()) {
        REQUIRE(value.is_number_unsigned());
        sum += value.get<std::uint64_t>();
    }
    CHECK(sum == mem["per_gpu_bytes"].get<std::uint64_t>());
    for (const char* key : {"weights_bytes", "gradients_bytes", "optimizer_bytes",
                            "activations_bytes", "kv_cache_bytes", "runtime_bytes"})
        CHECK(mem["components"].contains(key));
    CHECK(mem["allocated_bytes"].get<std::uint64_t>() < mem["per_gpu_bytes"].get<std::uint64_t>());
    const auto& recs = doc["recommendations"];
    REQUIRE(recs.size() == 10);
    for (const char* key : {"rank", "gpu", "vendor", "name", "count", "fits", "headroom_bytes",
                            "score", "reasons", "warnings"})
        CHECK(recs[0].contains(key));
    CHECK(recs[0]["rank"] == 1);

    const auto t = gpuadvise({"--model", "8B", "--method", "qlora"});
    const double per_gpu = mem["per_gpu_bytes"].get<double>() / (1024.0 * 1024 * 1024);
    CHECK(table_gib(t.out, R"(total per GPU\s+([0-9.]+))") == Approx(per_gpu).margin(0.006));
    std::smatch first;
    REQUIRE(std::regex_search(t.out, first, std::regex(R"(\n *1  (\S+))")));
    CHECK(first[1] == recs[0]["gpu"].get<std::string>());
}

TEST_CASE("estimate prints only the requirement, and the document's rule reproduces 21.6 GB") {
    const auto r = gpuadvise({"estimate", "--model", "8B", "--method", "full", "--precision",
                              "fp16", "--estimator", "doc"});
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("= 21.6 GB, the source document's rule of thumb"));
    CHECK_THAT(r.out, !Catch::Contains("ranked"));
    const auto j = gpuadvise({"estimate", "--model", "8B", "--method", "full", "--precision",
                              "fp16", "--estimator", "doc", "--json"});
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["memory"]["per_gpu_bytes"] == 21600000000ULL);
    CHECK_FALSE(doc.contains("recommendations"));
}

TEST_CASE("check answers yes or no through its exit code") {
    const auto yes =
        gpuadvise({"check", "--gpu", "rtx-4090", "--model", "8B", "--method", "qlora"});
    CHECK(yes.exit_code == 0);
    CHECK_THAT(yes.out, Catch::StartsWith("fits: nvidia-rtx-4090"));
    const auto no = gpuadvise({"check", "--gpu", "rtx-4090", "--model", "70B", "--method", "full"});
    CHECK(no.exit_code == 1);
    CHECK_THAT(no.out, Catch::StartsWith("does not fit") &&
                           Catch::Contains("GiB per GPU, card has 24.0 GiB usable"));
    // 70B with AMP AdamW needs ~16 bytes per parameter: 1.1 TB, more than 8 x 80 GB.
    CHECK(gpuadvise(
              {"check", "--gpu", "h100-sxm5", "--gpus", "8", "--model", "70B", "--method", "full"})
              .exit_code == 1);
    CHECK(gpuadvise(
              {"check", "--gpu", "h100-sxm5", "--gpus", "8", "--model", "13B", "--method", "full"})
              .exit_code == 0);
}

TEST_CASE("gpus, gpus show, models and rules list what they hold") {
    const auto gpus = nlohmann::json::parse(gpuadvise({"gpus", "--json", "--vendor", "amd"}).out);
    CHECK(gpus["schema"] == 1);
    REQUIRE(gpus["gpus"].size() >= 8);
    for (const auto& g : gpus["gpus"]) CHECK(g["vendor"] == "amd");
    const auto big = nlohmann::json::parse(
        gpuadvise({"gpus", "--json", "--min-memory", "100GB", "--supports", "fp8"}).out);
    REQUIRE_FALSE(big["gpus"].empty());
    for (const auto& g : big["gpus"]) {
        CHECK(g["memory_bytes"].get<double>() >= 100e9);
        CHECK_FALSE(g["tflops"]["fp8"].is_null());
    }
    const auto show = gpuadvise({"gpus", "show", "4090"});
    CHECK(show.exit_code == 0);
    CHECK_THAT(show.out, Catch::Contains("1008 GB/s") && Catch::Contains("source "));
    const auto models = gpuadvise({"models"});
    CHECK_THAT(models.out, Catch::Contains("llama-3.1-8b") && Catch::Contains("presets"));
    const auto rules = gpuadvise({"rules"});
    CHECK_THAT(rules.out, Catch::Contains("memory-fit") && Catch::Contains("pcie-allreduce"));
}

TEST_CASE("help documents defaults and exit codes and version is one line") {
    const auto help = gpuadvise({"--help"});
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.out, Catch::Contains("Exit codes: 0 answered") &&
                             Catch::Contains("document §4") && Catch::Contains("--lora-targets"));
    const auto version = gpuadvise({"--version"});
    CHECK(version.exit_code == 0);
    CHECK(std::count(version.out.begin(), version.out.end(), '\n') == 1);
    CHECK_THAT(version.out, Catch::StartsWith("gpuadvise "));
}

TEST_CASE("a user catalog replaces the embedded one and a merge extends it") {
    TempDir dir;
    const std::string path = dir.write(
        "mine.json", R"({"schema":1,"gpus":[{"id":"my-card","vendor":"nvidia","name":"Mine",
        "segment":"consumer","arch_family":"ada","memory_bytes":25769803776,"memory_bandwidth_gbps":1000,
        "software":{"platform":"cuda"},"sources":["me"]}]})");
    const auto r = gpuadvise({"--model", "1B", "--catalog", path, "--json"});
    REQUIRE(r.exit_code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    REQUIRE(doc["recommendations"].size() == 1);
    CHECK(doc["recommendations"][0]["gpu"] == "my-card");
    const auto merged = gpuadvise({"gpus", "--catalog-merge", path, "--json"});
    CHECK(nlohmann::json::parse(merged.out)["gpus"].size() >= 76);
}

TEST_CASE("check prints the warnings and tips estimate --gpu prints, and tips follow the engine") {
    const auto notes = [](const std::string& out) {
        std::vector<std::string> lines;
        std::istringstream in(out);
        for (std::string line; std::getline(in, line);)
            if (line.rfind("  warning", 0) == 0 || line.rfind("  tip", 0) == 0 ||
                line.rfind("  limits", 0) == 0)
                lines.push_back(line);
        return lines;
    };
    for (const std::vector<std::string>& w :
         {std::vector<std::string>{"--model", "8B", "--method", "lora"},
          {"--model", "llama-3.1-8b", "--quant", "q4_k_m", "--engine", "llama.cpp", "--seq",
           "20000"},
          {"--model", "70B"}}) {
        for (const std::string gpu : {"rtx-4090", "rtx-4060"}) {
            std::vector<std::string> check{"check", "--gpu", gpu}, est{"estimate", "--gpu", gpu};
            check.insert(check.end(), w.begin(), w.end());
            est.insert(est.end(), w.begin(), w.end());
            const auto c = gpuadvise(check), e = gpuadvise(est);
            INFO(c.out);
            CHECK(notes(c.out) == notes(e.out));
            // The verdict word is the same too.
            const std::string verdict = c.out.substr(0, c.out.find(':'));
            CHECK_THAT(e.out, Catch::Contains("): " + verdict + "\n"));
        }
    }
    // A llama.cpp plan with thin headroom gets llama.cpp's advice, never
    // PyTorch's allocator setting; a LoRA run (PyTorch) gets the allocator's.
    const auto llama = gpuadvise({"check", "--gpu", "rtx-4060", "--model", "llama-3.1-8b",
                                  "--quant", "q4_k_m", "--engine", "llama.cpp", "--seq", "20000"});
    CHECK_THAT(llama.out, Catch::Contains("shorter context (-c)"));
    CHECK_THAT(llama.out, !Catch::Contains("PYTORCH_CUDA_ALLOC_CONF"));
    const auto lora = gpuadvise(
        {"check", "--gpu", "rtx-4090", "--model", "8B", "--method", "lora", "--batch", "4"});
    CHECK_THAT(lora.out, Catch::Contains("PYTORCH_CUDA_ALLOC_CONF"));
    CHECK_THAT(lora.out,
               Catch::Contains("longest context") && Catch::Contains("at batch 4; largest batch"));
}

TEST_CASE("a video plan speaks of frames per second and the streams they hold, not images") {
    const auto table = gpuadvise({"--task", "video", "--top", "3"});
    REQUIRE(table.exit_code == 0);
    CHECK_THAT(table.out,
               Catch::Contains("frames/s") && Catch::Contains("whole streams at 30 fps"));
    CHECK_THAT(table.out, !Catch::Contains("img/s") && !Catch::Contains("per image"));
    const auto one = gpuadvise({"estimate", "--task", "video", "--gpu", "rtx-4090"});
    CHECK_THAT(one.out, Catch::Contains("frames/s") && !Catch::Contains("img/s"));
    // The sentence's whole streams are the JSON's streams_max rounded down.
    const auto doc = nlohmann::json::parse(
        gpuadvise({"estimate", "--task", "video", "--gpu", "rtx-4090", "--json"}).out);
    const double streams = doc["plan"]["performance"]["streams_max"].get<double>();
    CHECK_THAT(doc["plan"]["reasons"][0].get<std::string>(),
               Catch::Contains(fmt::format("{:.0f} whole streams", std::floor(streams))));
}

TEST_CASE("task presets rank with the document's constraints and carry a build sheet") {
    const auto video =
        nlohmann::json::parse(gpuadvise({"--task", "video", "--json", "--top", "3"}).out);
    CHECK(video["workload"]["model"] == "resnet50");
    CHECK(video["workload"]["codec"] == "av1");
    REQUIRE(video["recommendations"].size() == 3);
    for (const auto& r : video["recommendations"]) {
        CHECK(r["fits"] == true);
        CHECK(r["build_sheet"].contains("psu_watts"));
        CHECK(r["build_sheet"]["software"].is_string());
    }
    const auto full = gpuadvise({"--task", "full-13b", "--top", "3"});
    CHECK(full.exit_code == 0);
    CHECK_THAT(full.out, Catch::Contains("Build sheet for #1"));
    CHECK(gpuadvise({"check", "--task", "video", "--gpu", "a100-80gb-sxm"}).exit_code == 1);
    CHECK(gpuadvise({"check", "--task", "video", "--gpu", "flex-170"}).exit_code == 0);
    const auto bad = gpuadvise({"--task", "sdxl", "--seq", "100"});
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--seq applies to language models"));
}

TEST_CASE("video generation ranks cards by the clip's frames per second") {
    const auto r = gpuadvise(
        {"--model", "wan2.1-t2v-14b", "--frames", "81", "--resolution", "832x480", "--top", "5"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Gen frames/s") && Catch::Contains("s per 81-frame clip") &&
                          Catch::Contains("21 latent frames"));
    CHECK_THAT(r.out, !Catch::Contains("img/s"));
    // A 24 GB card holds the 1.3B model's 480p clip.
    const auto small = gpuadvise({"check", "--gpu", "rtx-4090", "--model", "wan2.1-t2v-1.3b",
                                  "--frames", "81", "--resolution", "832x480"});
    CHECK(small.exit_code == 0);
    const auto json =
        gpuadvise({"estimate", "--model", "wan2.1-t2v-1.3b", "--gpu", "rtx-4090", "--json"});
    CHECK(json.exit_code == 0);
    const auto j = nlohmann::json::parse(json.out);
    CHECK(j["workload"]["frames"] == 81);
    CHECK(j["workload"]["latent_frames"] == 21);
    CHECK(j["workload"]["video_tokens"] == 21 * 52 * 30);
    CHECK(j["plan"]["performance"]["images_per_s"].is_null());
    CHECK(j["plan"]["performance"]["seconds_per_clip"].get<double>() > 0);
    const auto bad = gpuadvise({"--model", "wan2.1-t2v-1.3b", "--frames", "80"});
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("1 + a multiple of 4"));
    CHECK(gpuadvise({"--model", "sdxl", "--frames", "81"}).exit_code == 2);
}

TEST_CASE("every command speaks table, json, csv and markdown") {
    const auto csv = gpuadvise({"--model", "8B", "--format", "csv", "--top", "3"});
    CHECK(csv.exit_code == 0);
    CHECK_THAT(csv.out, Catch::StartsWith("#,GPU,GPUs,Fits,"));
    CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 4);
    const auto md = gpuadvise({"--model", "8B", "--format", "markdown", "--top", "3"});
    CHECK_THAT(md.out,
               Catch::Contains("## GPUs ranked by value") && Catch::Contains("| # | GPU |"));
    for (const std::vector<std::string>& cmd :
         std::vector<std::vector<std::string>>{{"gpus"},
                                               {"gpus", "show", "4090"},
                                               {"models"},
                                               {"rules"},
                                               {"estimate", "--model", "8B"},
                                               {"check", "--gpu", "4090", "--model", "8B"},
                                               {"compare", "4090", "l40s", "--model", "8B"}}) {
        for (const char* format : {"csv", "markdown", "json"}) {
            auto args = cmd;
            args.insert(args.end(), {"--format", format});
            const auto r = gpuadvise(args);
            INFO(cmd.front() << " " << format << " " << r.err);
            CHECK((r.exit_code == 0 || (cmd.front() == "check" && r.exit_code == 1)));
            CHECK_FALSE(r.out.empty());
            if (std::string(format) == "json") CHECK_NOTHROW(nlohmann::json::parse(r.out));
            if (std::string(format) == "csv") CHECK(r.out.find("\r\n") != std::string::npos);
        }
    }
    CHECK(gpuadvise({"--model", "8B", "--json", "--format", "csv"}).exit_code == 2);
}

TEST_CASE("colour: never on a pipe by default, --color always wins over NO_COLOR") {
    const auto plain = gpuadvise({"--model", "8B", "--top", "2"});
    CHECK(plain.out.find('\033') == std::string::npos);
    const auto forced = run_process(
        {GPUADVISE_BIN, "--model", "8B", "--top", "2", "--color", "always"}, "", {"NO_COLOR=1"});
    CHECK(forced.out.find("\033[") != std::string::npos);
    const auto never = gpuadvise({"--model", "8B", "--top", "2", "--color", "never"});
    CHECK(never.out.find('\033') == std::string::npos);
}

TEST_CASE("batch reads JSON Lines and answers one line per workload, errors included") {
    const std::string input =
        "{\"model\":\"8B\",\"method\":\"qlora\"}\n"
        "{\"model\":\"8Q\"}\n"
        "\n"
        "{\"model\":\"70B\",\"gpu\":\"h100-sxm5\",\"gpus\":2,\"parallel\":\"tp\"}\n"
        "{\"modle\":\"8B\"}\n"
        "{\"task\":\"video\",\"top\":2}\n"
        "not json\n";
    const auto r = gpuadvise({"batch"}, input);
    CHECK(r.exit_code == 2);  // some lines failed
    std::vector<nlohmann::json> lines;
    std::size_t start = 0;
    while (start < r.out.size()) {
        const std::size_t end = r.out.find('\n', start);
        lines.push_back(nlohmann::json::parse(r.out.substr(start, end - start)));
        start = end + 1;
    }
    REQUIRE(lines.size() == 6);
    CHECK(lines[0]["line"] == 1);
    CHECK(lines[0]["memory"]["per_gpu_bytes"].get<std::uint64_t>() > 0);
    CHECK(lines[1]["line"] == 2);
    CHECK_THAT(lines[1]["error"].get<std::string>(), Catch::Contains("'8Q'"));
    CHECK(lines[2]["line"] == 4);
    CHECK(lines[2]["check"]["gpu"] == "nvidia-h100-sxm5");
    CHECK(lines[2]["check"]["count"] == 2);
    CHECK_THAT(lines[3]["error"].get<std::string>(), Catch::Contains("did you mean \"model\""));
    CHECK(lines[4]["recommendations"].size() == 2);
    CHECK(lines[5].contains("error"));
    const auto ok = gpuadvise({"batch", "-"}, "{\"model\":\"1B\"}\n");
    CHECK(ok.exit_code == 0);
    CHECK(gpuadvise({"batch", "/nonexistent/file.jsonl"}).exit_code == 2);
}

TEST_CASE("defaults come from flags, then GPUADVISE_* variables, then the config file") {
    TempDir dir;
    const std::string config =
        dir.write("config.json", R"({"top": 3, "os": "windows", "prices": {"4090": 1750}})");
    const std::string env = "GPUADVISE_CONFIG=" + config;
    const auto from_file = run_process({GPUADVISE_BIN, "--model", "8B", "--json"}, "", {env});
    REQUIRE(from_file.exit_code == 0);
    const auto doc = nlohmann::json::parse(from_file.out);
    CHECK(doc["recommendations"].size() == 3);
    const auto price = run_process({GPUADVISE_BIN, "gpus", "show", "4090", "--json"}, "", {env});
    CHECK(nlohmann::json::parse(price.out)["gpu"]["price"]["usd"] == 1750);
    const auto windows = run_process(
        {GPUADVISE_BIN, "check", "--gpu", "4090", "--model", "8B", "--json"}, "", {env});
    CHECK(nlohmann::json::parse(windows.out)["check"]["usable_bytes"] ==
          24ULL * 1024 * 1024 * 1024 - 1536ULL * 1024 * 1024);
    const auto from_env =
        run_process({GPUADVISE_BIN, "--model", "8B", "--json"}, "", {env, "GPUADVISE_TOP=2"});
    CHECK(nlohmann::json::parse(from_env.out)["recommendations"].size() == 2);
    const auto from_flag = run_process({GPUADVISE_BIN, "--model", "8B", "--json", "--top", "4"}, "",
                                       {env, "GPUADVISE_TOP=2"});
    CHECK(nlohmann::json::parse(from_flag.out)["recommendations"].size() == 4);
    const auto verbose =
        run_process({GPUADVISE_BIN, "--model", "8B", "-v"}, "", {env, "GPUADVISE_TOP=2"});
    CHECK_THAT(verbose.err,
               Catch::Contains("top='2' (from GPUADVISE_TOP)") &&
                   Catch::Contains("os='windows' (from config file '" + config + "': os)"));
    const std::string bad = dir.write("bad.json", R"({"tpo": 3})");
    const auto typo =
        run_process({GPUADVISE_BIN, "--model", "8B"}, "", {"GPUADVISE_CONFIG=" + bad});
    CHECK(typo.exit_code == 2);
    CHECK_THAT(typo.err, Catch::Contains("did you mean \"top\""));
}

TEST_CASE("calibrate records a run and later estimates of the same kind use it") {
    TempDir dir;
    const std::string file = dir.path("cal.jsonl");
    const std::vector<std::string> work = {"--model", "llama-3.1-8b", "--method",
                                           "lora",    "--gpu",        "rtx-4090"};
    auto args = work;
    args.insert(args.begin(), "calibrate");
    for (const char* a :
         {"--measured-memory", "18GiB", "--measured-speed", "1.5s/step", "--calibration"})
        args.emplace_back(a);
    args.push_back(file);
    const auto cal = gpuadvise(args);
    REQUIRE(cal.exit_code == 0);
    CHECK_THAT(cal.out, Catch::Contains("allocated components x0."));
    // The same workload now estimates the measured peak and speed.
    auto est = work;
    est.insert(est.begin(), "estimate");
    for (const char* a : {"--calibration", file.c_str(), "--json"}) est.emplace_back(a);
    const auto doc = nlohmann::json::parse(gpuadvise(est).out);
    const double allocated = doc["memory"]["allocated_bytes"].get<double>();
    CHECK(std::fabs(allocated - 18.0 * 1024 * 1024 * 1024) < 0.02 * allocated);
    CHECK(doc["memory"]["calibrated_from"]["records"] == 1);
    CHECK(doc["plan"]["performance"]["step_seconds"].get<double>() == Approx(1.5).epsilon(0.02));
    // Inference of the same model is another key: untouched.
    const auto serve = nlohmann::json::parse(
        gpuadvise({"estimate", "--model", "llama-3.1-8b", "--calibration", file, "--json"}).out);
    CHECK(serve["memory"]["calibrated_from"].is_null());
    // A log gives the peak too.
    const std::string log = dir.write("run.log", "GPU peak memory allocation: 17.5 GiB\n");
    auto from_log = work;
    from_log.insert(from_log.begin(), "calibrate");
    for (const std::string& a :
         {std::string("--from-log"), log, std::string("--calibration"), file})
        from_log.push_back(a);
    const auto logged = gpuadvise(from_log);
    CHECK(logged.exit_code == 0);
    CHECK_THAT(logged.out, Catch::Contains("torchtune"));
}

TEST_CASE("gpt-oss-20b's own config.json fits the 16 GB card it was made for") {
    // Its quantization_config stores the experts in MXFP4: 12.8 GiB of weights,
    // the size of its files, rather than the 39 GiB of bf16.
    const std::string config =
        (std::filesystem::path(GPUADVISE_SOURCE_DIR) / "tests/data/hf/gpt-oss-20b.config.json")
            .string();
    const auto r = gpuadvise(
        {"check", "--gpu", "rtx-4060ti-16gb", "--hf-config", config, "--method", "inference"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("fits"));
    const auto j = gpuadvise({"estimate", "--hf-config", config, "--json"});
    REQUIRE(j.exit_code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["workload"]["quant"] == "mxfp4");
    const double weights = doc["memory"]["components"]["weights_bytes"].get<double>();
    CHECK(weights == Approx(12.8 * 1024.0 * 1024.0 * 1024.0).epsilon(0.01));
    // --quant overrides it, and the output says so.
    const auto over = gpuadvise({"estimate", "--hf-config", config, "--quant", "none"});
    REQUIRE(over.exit_code == 0);
    CHECK_THAT(over.out, Catch::Contains("overriding the checkpoint's quantization_config"));
}
