// Golden files: the exact output of a dozen everyday commands, so a change to
// a table, a number or a message shows up in review as a diff of
// tests/golden/. After an intended change, refresh them with
//   GPUADVISE_UPDATE_GOLDEN=1 ctest -R golden
// and read the diff before committing it.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_process.hpp"

namespace {

struct Golden {
    std::string name;  // tests/golden/<name>.txt
    std::vector<std::string> args;
    int exit_code = 0;
};

const std::vector<Golden>& goldens() {
    static const std::vector<Golden> g{
        {"recommend-qlora-8b", {"--model", "8B", "--method", "qlora"}},
        {"recommend-70b-int4", {"--model", "llama-3.1-70b", "--quant", "int4", "--top", "5"}},
        {"recommend-serve-70b-markdown",
         {"--task", "serve-70b", "--format", "markdown", "--top", "3"}},
        {"recommend-70b-csv", {"--model", "70B", "--format", "csv", "--top", "5"}},
        {"estimate-full-8b-8gpus",
         {"estimate", "--model", "8B", "--method", "full", "--gpus", "8"}},
        {"estimate-gpu-json", {"estimate", "--model", "8B", "--gpu", "rtx-4090", "--json"}},
        {"check-lora-4090", {"check", "--gpu", "rtx-4090", "--model", "8B", "--method", "lora"}},
        {"check-no-70b-4090", {"check", "--gpu", "rtx-4090", "--model", "70B"}, 1},
        {"compare-4090-3090", {"compare", "rtx-4090", "rtx-3090", "--model", "8B"}},
        {"gpus-amd", {"gpus", "--vendor", "amd"}},
        {"gpus-show-h100", {"gpus", "show", "h100-sxm5"}},
        {"models", {"models"}},
        {"rules", {"rules"}},
    };
    return g;
}

std::string read_all(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("golden: everyday commands print exactly the reviewed output") {
    const std::filesystem::path dir =
        std::filesystem::path(GPUADVISE_SOURCE_DIR) / "tests" / "golden";
    const char* update = std::getenv("GPUADVISE_UPDATE_GOLDEN");
    const bool updating = update != nullptr && std::string(update) == "1";
    for (const Golden& g : goldens()) {
        std::vector<std::string> args{GPUADVISE_BIN};
        args.insert(args.end(), g.args.begin(), g.args.end());
        // A fixed width: the golden files must not depend on the terminal.
        const ProcessResult r = run_process(args, "", {"COLUMNS=120"});
        INFO(g.name << "\nstderr: " << r.err);
        CHECK(r.exit_code == g.exit_code);
        CHECK(r.err.empty());
        const std::filesystem::path file = dir / (g.name + ".txt");
        if (updating) {
            std::filesystem::create_directories(dir);
            std::ofstream(file, std::ios::binary) << r.out;
            continue;
        }
        REQUIRE(std::filesystem::exists(file));
        const std::string expected = read_all(file);
        if (r.out != expected) {
            // The first differing line, so the failure reads like a diff.
            std::istringstream a(expected), b(r.out);
            std::string la, lb;
            int line = 0;
            while (true) {
                ++line;
                const bool ga = static_cast<bool>(std::getline(a, la)),
                           gb = static_cast<bool>(std::getline(b, lb));
                if (la != lb || ga != gb || (!ga && !gb)) break;
            }
            FAIL_CHECK(
                "tests/golden/"
                << g.name << ".txt differs at line " << line << "\n  expected: " << la
                << "\n  actual:   " << lb
                << "\n(after an intended change: GPUADVISE_UPDATE_GOLDEN=1 ctest -R golden)");
        }
    }
    // Every golden file belongs to a command above: none is left behind.
    std::size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".txt") ++files;
    CHECK(files == goldens().size());
}
