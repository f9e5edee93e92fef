// Reading the files a user names: regular files only, never waiting on a
// FIFO or a device, caps checked, stdin read once, lines bounded, and links
// out of a model folder refused. Every refusal names the value and its origin.
#include "cli/io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>

#include "gpuadvise/error.hpp"
#include "support/temp_files.hpp"

using namespace gpuadvise;
using namespace gpuadvise::cli;

namespace {

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("io: a regular file is read whole, anything else is refused with its origin") {
    TempDir dir;
    std::istringstream none;
    Stdin in{none, {}};
    const std::string file = dir.write("a.json", "{\"a\": 1}");
    CHECK(read_text_file(file, "--hf-config", 1024, in) == "{\"a\": 1}");
    CHECK_THAT(error_of([&] { read_text_file(dir.path("missing"), "--catalog", 1024, in); }),
               Catch::Contains("--catalog '") && Catch::Contains("no such file"));
    CHECK_THAT(error_of([&] { read_text_file(dir.path(""), "--catalog", 1024, in); }),
               Catch::Contains("folder"));
    REQUIRE(mkfifo(dir.path("fifo").c_str(), 0600) == 0);
    CHECK_THAT(error_of([&] { read_text_file(dir.path("fifo"), "GPUADVISE_CONFIG", 1024, in); }),
               Catch::StartsWith("GPUADVISE_CONFIG") && Catch::Contains("is a FIFO"));
    CHECK_THAT(error_of([&] { read_text_file("/dev/null", "--hf-config", 1024, in); }),
               Catch::Contains("is a character device"));
    // The cap: a file one byte over it is refused before it is read.
    const std::string big = dir.write("big.json", std::string(1025, ' '));
    CHECK_THAT(error_of([&] { read_text_file(big, "--hf-config", 1024, in); }),
               Catch::Contains("larger than"));
    CHECK(read_text_file(dir.write("exact.json", std::string(1024, ' ')), "x", 1024, in).size() ==
          1024);
    if (geteuid() != 0) {  // root reads anything
        const std::string locked = dir.write("locked.json", "{}");
        chmod(locked.c_str(), 0);
        CHECK_THAT(error_of([&] { read_text_file(locked, "--catalog", 1024, in); }),
                   Catch::Contains("permission denied"));
    }
}

TEST_CASE("io: standard input is read once, within its cap") {
    std::istringstream text("{\"x\": 2}");
    Stdin in{text, {}};
    CHECK(read_text_file("-", "--hf-config", 1024, in) == "{\"x\": 2}");
    CHECK(in.used_by == "--hf-config");
    CHECK_THAT(
        error_of([&] { read_text_file("-", "--catalog", 1024, in); }),
        Catch::Contains("--catalog '-' reads standard input, but --hf-config already read it"));
    std::istringstream lots(std::string(2000, 'x'));
    Stdin in2{lots, {}};
    CHECK_THAT(error_of([&] { read_text_file("-", "--catalog", 1024, in2); }),
               Catch::Contains("more than"));
}

TEST_CASE("io: a prefix of a model file, and its size") {
    TempDir dir;
    const std::string file = dir.write("m.gguf", std::string(5000, 'g'));
    std::uint64_t size = 0;
    CHECK(read_file_prefix(file, "--gguf", 100, &size).size() == 100);
    CHECK(size == 5000);
    CHECK(read_file_prefix(file, "--gguf", 10000, &size).size() == 5000);
}

TEST_CASE("io: a link out of a model folder is refused, one inside it is followed") {
    TempDir dir;
    std::filesystem::create_directories(dir.path("model"));
    const std::string outside = dir.write("secret.json", "{}");
    dir.write("model/config.json", "{}");
    std::filesystem::create_symlink(outside, dir.path("model/escape.json"));
    std::filesystem::create_symlink(dir.path("model/config.json"), dir.path("model/inside.json"));
    CHECK_THAT(error_of([&] {
                   check_inside(dir.path("model"), dir.path("model/escape.json"), "--model-dir");
               }),
               Catch::Contains("outside the model folder"));
    CHECK(error_of([&] {
              check_inside(dir.path("model"), dir.path("model/inside.json"), "--model-dir");
          }).empty());
    CHECK(error_of([&] {
              check_inside(dir.path("model"), dir.path("model/config.json"), "--model-dir");
          }).empty());
}

TEST_CASE("io: lines are read one by one, a line past the cap is an error with its number") {
    TempDir dir;
    std::istringstream none;
    Stdin in{none, {}};
    const std::string file = dir.write("w.jsonl", "{\"model\":\"8B\"}\n\n{\"model\":\"1B\"}");
    LineReader reader(file, "batch", in);
    std::string line;
    REQUIRE(reader.next(line));
    CHECK(line == "{\"model\":\"8B\"}");
    REQUIRE(reader.next(line));
    CHECK(line.empty());
    REQUIRE(reader.next(line));  // the last line has no newline
    CHECK(line == "{\"model\":\"1B\"}");
    CHECK_FALSE(reader.next(line));

    const std::string long_line =
        dir.write("long.jsonl", "{}\n" + std::string(kMaxBatchLineBytes + 1, 'x') + "\n");
    LineReader long_reader(long_line, "batch", in);
    REQUIRE(long_reader.next(line));
    CHECK_THAT(error_of([&] { long_reader.next(line); }), Catch::Contains("line 2 is longer than"));

    std::istringstream piped("a\nb\n");
    Stdin in_pipe{piped, {}};
    LineReader from_stdin("-", "batch", in_pipe);
    REQUIRE(from_stdin.next(line));
    CHECK(line == "a");
    REQUIRE(from_stdin.next(line));
    CHECK(line == "b");
    CHECK_FALSE(from_stdin.next(line));
}
