// The calibration file is the user's data: `calibrate` appends whole lines
// or nothing, refuses what is not a regular file (exit 3, at once, never
// waiting on a FIFO), never creates a file through a dangling link, leaves a
// corrupt file as it found it (exit 2), survives concurrent writers and a
// full disk (exit 3, the file as it was), and ignores a relative
// XDG_CONFIG_HOME as the XDG specification says.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_gpuadvise.hpp"
#include "support/temp_files.hpp"

namespace fs = std::filesystem;
using gpuadvise_test::run;

namespace {

std::vector<std::string> calibrate(const std::string& file) {
    return {"calibrate", "--model",           "llama-3.1-8b", "--method",      "lora", "--gpu",
            "rtx-4090",  "--measured-memory", "19GiB",        "--calibration", file};
}

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::size_t lines(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("calibrate writes only regular files: a FIFO, a device, a folder, a dangling link") {
    TempDir dir;
    REQUIRE(mkfifo(dir.path("fifo").c_str(), 0600) == 0);
    fs::create_directory(dir.path("folder"));
    fs::create_symlink(dir.path("nowhere.jsonl"), dir.path("dangling"));
    const struct {
        std::string path;
        const char* says;
    } cases[] = {
        {dir.path("fifo"), "a FIFO"},
        {"/dev/full", "a character device"},
        {"/dev/null", "a character device"},
        {dir.path("folder"), "a folder"},
        {dir.path("dangling"), "a symbolic link to nothing"},
    };
    for (const auto& c : cases) {
        INFO(c.path);
        gpuadvise_test::Options o;
        o.timeout_seconds = 10;  // a FIFO must be refused at once, not waited on
        const ProcessResult r = run(calibrate(c.path), o);
        CHECK(r.exit_code == 3);
        CHECK_THAT(r.err, Catch::Contains(c.says) && Catch::Contains("not a regular file") ||
                              Catch::Contains("symbolic link to nothing"));
        CHECK(lines(r.err) == 1);
        CHECK(r.out.empty());
    }
    CHECK_FALSE(fs::exists(dir.path("nowhere.jsonl")));
    // The config file naming a FIFO is refused the same way.
    const std::string config =
        dir.write("config.json", nlohmann::json{{"calibration", dir.path("fifo")}}.dump());
    gpuadvise_test::Options o;
    o.env = {"GPUADVISE_CONFIG=" + config};
    o.timeout_seconds = 10;
    const ProcessResult r = run({"calibrate", "--model", "llama-3.1-8b", "--method", "lora",
                                 "--gpu", "rtx-4090", "--measured-memory", "19GiB"},
                                o);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Catch::Contains("FIFO"));
    // A link to a regular file is followed: the record lands in the target.
    dir.write("target.jsonl", "");
    fs::create_symlink(dir.path("target.jsonl"), dir.path("link"));
    CHECK(run(calibrate(dir.path("link"))).exit_code == 0);
    CHECK(lines(read_all(dir.path("target.jsonl"))) == 1);
}

TEST_CASE("calibrate leaves a file it cannot read as it was, and appends whole lines") {
    TempDir dir;
    const std::string file = dir.path("cal.jsonl");
    REQUIRE(run(calibrate(file)).exit_code == 0);
    const std::string one = read_all(file);
    REQUIRE(lines(one) == 1);
    CHECK(nlohmann::json::parse(one).at("metric") == "allocated");
    // Cut the last line short (a write interrupted elsewhere): refused, untouched.
    std::ofstream(file, std::ios::binary | std::ios::app) << one.substr(0, 30);
    const std::string cut = read_all(file);
    const ProcessResult r = run(calibrate(file));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("line 2") && Catch::Contains("no newline"));
    CHECK(read_all(file) == cut);
    // A file over the reader's cap is refused before anything is written.
    const std::string big = dir.path("big.jsonl");
    {
        std::ofstream out(big, std::ios::binary);
        for (int i = 0; i < 4000; ++i) out << one;
    }
    const std::string before = read_all(big);
    const ProcessResult capped = run(calibrate(big));
    CHECK(capped.exit_code == 2);
    CHECK_THAT(capped.err, Catch::Contains("over the"));
    CHECK(read_all(big) == before);
}

TEST_CASE("concurrent calibrate runs each append one whole line") {
    TempDir dir;
    const std::string file = dir.path("cal.jsonl");
    constexpr int kWriters = 8;
    std::vector<std::thread> writers;
    std::vector<int> codes(kWriters, -1);
    for (int i = 0; i < kWriters; ++i)
        writers.emplace_back(
            [&, i] { codes[static_cast<std::size_t>(i)] = run(calibrate(file)).exit_code; });
    for (auto& t : writers) t.join();
    for (const int c : codes) CHECK(c == 0);
    const std::string text = read_all(file);
    CHECK(lines(text) == kWriters);
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) CHECK_NOTHROW(nlohmann::json::parse(line));
}

TEST_CASE("a full disk is exit 3 with the calibration file as it was") {
    TempDir dir;
    const std::string file = dir.path("cal.jsonl");
    REQUIRE(run(calibrate(file)).exit_code == 0);
    const std::string before = read_all(file);
    // A file size limit a few bytes past the end: the disk takes part of the line.
    const std::string prlimit = "/usr/bin/prlimit";
    REQUIRE(fs::exists(prlimit));  // util-linux, essential in Debian
    std::vector<std::string> args{prlimit, "--fsize=" + std::to_string(before.size() + 20),
                                  GPUADVISE_BIN};
    for (const auto& a : calibrate(file)) args.push_back(a);
    const ProcessResult r = run_process(args);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Catch::Contains("nothing was written"));
    CHECK(lines(r.err) == 1);
    CHECK(read_all(file) == before);
}

TEST_CASE("a relative XDG_CONFIG_HOME is ignored, as the XDG specification says") {
    TempDir dir;
    fs::create_directory(dir.path("home"));
    gpuadvise_test::Options o;
    o.cwd = dir.path("");
    o.env = {"XDG_CONFIG_HOME=relative", "HOME=" + dir.path("home")};
    const ProcessResult r = run({"calibrate", "--model", "llama-3.1-8b", "--method", "lora",
                                 "--gpu", "rtx-4090", "--measured-memory", "19GiB"},
                                o);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(fs::exists(dir.path("relative")));
    CHECK(lines(read_all(dir.path("home/.config/gpuadvise/calibration.jsonl"))) == 1);
}
