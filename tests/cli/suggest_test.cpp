// "When it does not fit, what to change", end to end: check and estimate
// --gpu print a "to fit" block and a `suggestions` array; each suggestion's
// flags, appended to the command (after dropping the words it replaces),
// make `check` exit 0 with the memory the suggestion said; check still exits
// 1 for the miss itself; recommend suggests against its closest miss when
// nothing fits.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/run_gpuadvise.hpp"

using gpuadvise_test::joined;
using gpuadvise_test::run;
using gpuadvise_test::run_json;
using Args = std::vector<std::string>;

namespace {

Args cat(Args a, const Args& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// `args` with a suggestion applied as a user edits the command: the words it
// replaces taken out (a flag and, for a valued flag, its value), its flags added.
Args applied(Args args, const nlohmann::json& s) {
    const auto& replaces = s.at("replaces");
    for (std::size_t i = 0; i < replaces.size(); ++i) {
        const std::string word = replaces[i].get<std::string>();
        const bool valued =
            i + 1 < replaces.size() && replaces[i + 1].get<std::string>().rfind("--", 0) != 0;
        const auto at = std::find(args.begin(), args.end(), word);
        REQUIRE(at != args.end());
        if (valued) {
            REQUIRE(at + 1 != args.end());
            CHECK(*(at + 1) == replaces[i + 1].get<std::string>());
            args.erase(at, at + 2);
            ++i;
        } else {
            args.erase(at);
        }
    }
    for (const auto& f : s.at("flags")) args.push_back(f.get<std::string>());
    return args;
}

// Misses with something to suggest: a 70B on one 24 GB card, a full fine-tune,
// a long context, a large batch, and a box of two cards.
const std::vector<Args> kMisses{
    {"check", "--gpu", "rtx-4090", "--model", "llama-3.1-70b", "--engine", "llama.cpp"},
    {"check", "--gpu", "rtx-4090", "--model", "70B"},
    {"check", "--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--method", "full"},
    {"check", "--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--prompt", "120000", "--gen", "2000",
     "--engine", "llama.cpp"},
    {"check", "--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--batch", "256", "--seq", "8192"},
    {"check", "--gpu", "rtx-3090,rtx-3060-12gb", "--model", "llama-3.1-70b", "--quant", "q4_k_m",
     "--engine", "llama.cpp"},
    {"check", "--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--method", "lora", "--seq", "2048",
     "--batch", "1", "--no-grad-ckpt"},
    // The default engine does not run on a Mac: the plan's engine is named.
    {"check", "--gpu", "apple-m2-ultra-76c-192gb", "--model", "llama-3.1-405b"},
    // --max-gpus searches the count, as plan_box does, for every probe.
    {"check", "--gpu", "rtx-4090", "--model", "70B", "--max-gpus", "4"},
    {"check", "--gpu", "rtx-3050-8gb", "--model", "flux-dev"},
    // The default engine (vLLM) keeps the whole model on the card: llama.cpp offloads.
    {"check", "--gpu", "rtx-4060", "--model", "qwen3-30b-a3b"},
    // FLUX in fp8 misses a 24 GB card only by the text encoders diffusers keeps.
    {"check", "--gpu", "rtx-4090", "--model", "flux-dev", "--quant", "fp8"},
};

}  // namespace

TEST_CASE("suggestions: appending a suggestion's flags makes check exit 0") {
    for (const Args& miss : kMisses) {
        INFO(joined(miss));
        const auto doc = run_json(miss, {1});  // the miss itself still answers no
        const auto& plan = doc.at("plan");
        REQUIRE(plan.at("fits") == false);
        REQUIRE(plan.contains("suggestions"));
        const auto& list = plan.at("suggestions");
        CHECK_FALSE(list.empty());
        CHECK(list.size() <= 5);
        for (const auto& s : list) {
            const Args fixed = applied(miss, s);
            INFO(joined(fixed));
            CHECK(s.at("fits") == true);
            const auto after = run_json(fixed, {0});
            CHECK(after.at("plan").at("fits") == true);
            CHECK(after.at("plan").at("per_gpu_bytes") == s.at("per_gpu_bytes"));
            CHECK(after.at("plan").at("fit") == s.at("fit"));
            CHECK_FALSE(after.at("plan").contains("suggestions"));  // a fit needs none
        }
    }
}

TEST_CASE("suggestions: an image model first tries ComfyUI's setup, faster than CPU offload") {
    const auto doc =
        run_json({"check", "--gpu", "rtx-4090", "--model", "flux-dev", "--quant", "fp8"}, {1});
    const auto& list = doc.at("plan").at("suggestions");
    REQUIRE_FALSE(list.empty());
    CHECK(list.at(0).at("flags") == nlohmann::json::array({"--image-setup", "comfyui"}));
    // Given already, it is not suggested again.
    const auto given = run_json(
        {"check", "--gpu", "rtx-3050-8gb", "--model", "flux-dev", "--image-setup", "comfyui"}, {1});
    for (const auto& s : given.at("plan").at("suggestions"))
        CHECK(s.at("flags").at(0) != "--image-setup");
}

TEST_CASE("suggestions: an engine that offloads, when the default one keeps all on the card") {
    // Qwen3-30B-A3B on an 8 GB card: vLLM (the default) cannot place it on
    // one card; llama.cpp runs it at Q4_K_M with experts in host memory,
    // faster than the four cards vLLM would need.
    const auto doc = run_json({"check", "--gpu", "rtx-4060", "--model", "qwen3-30b-a3b"}, {1});
    const auto& list = doc.at("plan").at("suggestions");
    REQUIRE_FALSE(list.empty());
    CHECK(list.at(0).at("flags") == nlohmann::json::array({"--engine", "llama.cpp", "--quant",
                                                           "q4_k_m", "--offload", "auto"}));
    CHECK_THAT(list.at(0).at("note").get<std::string>(), Catch::Contains("on the host"));
    // An engine the user chose is kept: no other engine is suggested.
    const auto chosen = run_json(
        {"check", "--gpu", "rtx-4060", "--model", "qwen3-30b-a3b", "--engine", "vllm"}, {1});
    for (const auto& s : chosen.at("plan").at("suggestions"))
        CHECK(s.at("flags").at(0) != "--engine");
}

TEST_CASE("suggestions: a shorter context than an engine's default says whose default it was") {
    // Two 24 GiB cards: Ollama allocates 262144 tokens (cut to the trained
    // length for a preset; "70B" by size states none), which a 70B's KV cache
    // cannot hold; the request itself was 4096 tokens.
    const auto doc = run_json(
        {"check", "--gpu", "rtx-4090", "--gpus", "2", "--model", "70B", "--engine", "ollama"}, {1});
    bool found = false;
    for (const auto& s : doc.at("plan").at("suggestions"))
        if (s.at("flags").at(0) == "--seq") {
            found = true;
            CHECK_THAT(s.at("note").get<std::string>(),
                       Catch::EndsWith("(Ollama's default context: 262144)"));
        }
    CHECK(found);
}

TEST_CASE("suggestions: the text block under check's verdict, in the order given") {
    const Args miss{"check",  "--gpu", "rtx-4090", "--model",  "llama-3.1-8b", "--prompt",
                    "120000", "--gen", "2000",     "--engine", "llama.cpp"};
    const auto r = run(miss);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::StartsWith("does not fit:"));
    CHECK_THAT(r.out, Catch::Contains("To fit on nvidia-rtx-4090, change one of these"));
    // Each change on its own line, with its memory, its fit and its speed.
    const auto doc = run_json(miss, {1});
    std::size_t last = 0;
    for (const auto& s : doc.at("plan").at("suggestions")) {
        const std::string change = s.at("change").get<std::string>();
        const std::size_t at = r.out.find("\n  " + change + " ");
        INFO(change << "\n" << r.out);
        REQUIRE(at != std::string::npos);
        CHECK(at > last);
        last = at;
    }
    CHECK_THAT(r.out, Catch::Contains("tok/s instead of ~"));
    // The same block in estimate --gpu.
    Args estimate = miss;
    estimate[0] = "estimate";
    const auto e = run(estimate);
    CHECK(e.exit_code == 0);
    CHECK_THAT(e.out, Catch::Contains("To fit on nvidia-rtx-4090, change one of these"));
    CHECK(run_json(estimate).at("plan").at("suggestions") == doc.at("plan").at("suggestions"));
}

TEST_CASE("suggestions: none for a plan that fits, none in CSV, a line when nothing is enough") {
    const Args fits{"check", "--gpu", "rtx-4090", "--model", "llama-3.1-8b"};
    CHECK(run(fits).out.find("To fit") == std::string::npos);
    CHECK_FALSE(run_json(fits).at("plan").contains("suggestions"));
    const Args miss{"check", "--gpu", "rtx-4090", "--model", "llama-3.1-8b", "--method", "full"};
    const auto csv = run(cat(miss, {"--format", "csv"}));
    CHECK(csv.exit_code == 1);
    CHECK(csv.out.find("To fit") == std::string::npos);  // CSV is one table
    CHECK_THAT(run(cat(miss, {"--format", "markdown"})).out, Catch::Contains("## To fit on"));
    // 405B trained on at most two 8 GB cards: nothing one change does is enough.
    const Args huge{"check",    "--gpu", "rtx-3050-8gb", "--model", "405B",
                    "--method", "full",  "--max-gpus",   "2"};
    const auto none = run_json(huge, {1});
    CHECK(none.at("plan").at("suggestions").empty());
    CHECK_THAT(run(huge).out, Catch::Contains("no single change gpuadvise tries"));
}

TEST_CASE("suggestions: recommend, when nothing fits, names changes for the closest miss") {
    const Args ask{"--model", "llama-3.1-405b", "--method", "full", "--top", "3"};
    const auto doc = run_json(ask);
    const auto& recs = doc.at("recommendations");
    REQUIRE_FALSE(recs.empty());
    for (const auto& r : recs) REQUIRE(r.at("fits") == false);
    const auto& closest = recs.front();
    REQUIRE(closest.contains("suggestions"));
    CHECK_FALSE(recs.at(1).contains("suggestions"));  // only the closest miss
    const auto& list = closest.at("suggestions");
    REQUIRE_FALSE(list.empty());
    for (const auto& s : list) {
        const Args fixed = applied(ask, s);
        INFO(joined(fixed));
        const auto after = run_json(fixed);
        const auto& ranked = after.at("recommendations");
        CHECK(std::any_of(ranked.begin(), ranked.end(),
                          [](const nlohmann::json& r) { return r.at("fits") == true; }));
    }
    CHECK_THAT(run(ask).out, Catch::Contains("(the closest miss), change one of these"));
}
