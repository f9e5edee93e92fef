// Settings: a flag beats GPUADVISE_<KEY>, which beats the config file, which
// beats the built-in default; -v says where each value came from; the config
// file is found where the XDG spec puts it; a relative catalog path is
// relative to the config file; and a setting is used only by the commands
// that take it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_gpuadvise.hpp"
#include "support/run_process.hpp"
#include "support/temp_files.hpp"

namespace {

using nlohmann::json;

ProcessResult run(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
    gpuadvise_test::Options o;
    o.env = env;
    return gpuadvise_test::run(std::move(args), o);
}

std::size_t recommendations(const ProcessResult& r) {
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out).at("recommendations").size();
}

}  // namespace

TEST_CASE("settings: flag > GPUADVISE_<KEY> > config file > default") {
    TempDir dir;
    const std::string config = dir.write("config.json", R"({"top": 3, "kwh_price": 0.3})");
    const std::vector<std::string> base{"--model", "8B", "--json"};
    const auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> a = base;
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    CHECK(recommendations(run(base)) == 10);  // the default
    CHECK(recommendations(run(base, {"GPUADVISE_CONFIG=" + config})) == 3);
    CHECK(recommendations(run(base, {"GPUADVISE_CONFIG=" + config, "GPUADVISE_TOP=2"})) == 2);
    CHECK(recommendations(
              run(with({"--top", "1"}), {"GPUADVISE_CONFIG=" + config, "GPUADVISE_TOP=2"})) == 1);
    // An empty variable is no value: the next source applies.
    CHECK(recommendations(run(base, {"GPUADVISE_CONFIG=" + config, "GPUADVISE_TOP="})) == 3);
}

TEST_CASE("settings: -v names the origin of every setting it used") {
    TempDir dir;
    const std::string config = dir.write("config.json", R"({"top": 3, "os": "windows"})");
    const ProcessResult r = run({"--model", "8B", "-v", "--rank-by", "speed"},
                                {"GPUADVISE_CONFIG=" + config, "GPUADVISE_KWH_PRICE=0.4"});
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("top='3' (from config file '" + config + "': top)"));
    CHECK_THAT(r.err, Catch::Contains("os='windows' (from config file '" + config + "': os)"));
    CHECK_THAT(r.err, Catch::Contains("kwh_price='0.4' (from GPUADVISE_KWH_PRICE)"));
    CHECK_THAT(r.err, Catch::Contains("rank_by='speed' (from --rank-by)"));
    // Quiet by default: nothing on stderr without -v.
    CHECK(run({"--model", "8B"}, {"GPUADVISE_CONFIG=" + config}).err.empty());
}

TEST_CASE("settings: the config file is found under XDG_CONFIG_HOME, else ~/.config") {
    TempDir dir;
    std::filesystem::create_directories(dir.path("xdg/gpuadvise"));
    dir.write("xdg/gpuadvise/config.json", R"({"top": 4})");
    CHECK(recommendations(
              run({"--model", "8B", "--json"}, {"XDG_CONFIG_HOME=" + dir.path("xdg")})) == 4);
    std::filesystem::create_directories(dir.path("home/.config/gpuadvise"));
    dir.write("home/.config/gpuadvise/config.json", R"({"top": 5})");
    CHECK(recommendations(run({"--model", "8B", "--json"},
                              {"XDG_CONFIG_HOME=", "HOME=" + dir.path("home")})) == 5);
    // No file where the default path points is no error.
    CHECK(recommendations(
              run({"--model", "8B", "--json"}, {"XDG_CONFIG_HOME=" + dir.path("none")})) == 10);
}

TEST_CASE("settings: a relative catalog path is relative to the config file") {
    TempDir dir;
    std::filesystem::create_directories(dir.path("conf"));
    dir.write("conf/mine.json",
              R"({"schema":1,"gpus":[{"id":"my-card","vendor":"nvidia","name":"Mine",
        "segment":"consumer","arch_family":"ada","memory_bytes":25769803776,"memory_bandwidth_gbps":1000,
        "software":{"platform":"cuda"},"sources":["me"]}]})");
    const std::string config = dir.write("conf/config.json", R"({"catalog": "mine.json"})");
    const ProcessResult r = run({"gpus", "--json"}, {"GPUADVISE_CONFIG=" + config});
    REQUIRE(r.exit_code == 0);
    const json gpus = json::parse(r.out).at("gpus");
    REQUIRE(gpus.size() == 1);
    CHECK(gpus[0]["id"] == "my-card");
}

TEST_CASE("settings: prices from the config file are the plan's price") {
    TempDir dir;
    const std::string config = dir.write("config.json", R"({"prices": {"nvidia-rtx-4090": 1234}})");
    const std::vector<std::string> env{"GPUADVISE_CONFIG=" + config};
    const ProcessResult r = run({"estimate", "--model", "8B", "--gpu", "rtx-4090", "--json"}, env);
    REQUIRE(r.exit_code == 0);
    CHECK(json::parse(r.out).at("plan").at("price_usd") == 1234);
    const ProcessResult show = run({"gpus", "show", "rtx-4090", "--json"}, env);
    REQUIRE(show.exit_code == 0);
    const json price = json::parse(show.out).at("gpu").at("price");
    CHECK(price.at("usd") == 1234);
    CHECK(price.at("source") == "config file '" + config + "': prices.nvidia-rtx-4090");
    // The catalog's own price is kept as the launch price.
    CHECK(json::parse(show.out).at("gpu").at("launch_price").is_object());
}

TEST_CASE("settings: a setting is used only by the commands that take it") {
    TempDir dir;
    const std::string config =
        dir.write("config.json", R"({"top": 3, "rank_by": "speed", "format": "json"})");
    // models takes no --top: the setting is not an error there, and format applies.
    const ProcessResult models = run({"models"}, {"GPUADVISE_CONFIG=" + config, "GPUADVISE_TOP=2"});
    REQUIRE(models.exit_code == 0);
    CHECK(json::parse(models.out).contains("models"));
    // A bad value is an error only where the setting is used.
    CHECK(run({"models"}, {"GPUADVISE_RANK_BY=nonsense"}).exit_code == 0);
    CHECK(run({"--model", "8B"}, {"GPUADVISE_RANK_BY=nonsense"}).exit_code == 2);
}
