// The questions of issue 25, read as an ML-infrastructure lead reads an
// answer: properties of the top plans (what they cost, whether their speed
// and price are known, when a job ends), never exact picks, so a better
// estimate or a new card can change the answer without breaking the test.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_gpuadvise.hpp"

using nlohmann::json;

namespace {

json answer(std::vector<std::string> args) {
    return gpuadvise_test::run_json(std::move(args));
}

std::string tag(const json& r) {
    return r.at("gpu").get<std::string>() + " x" + std::to_string(r.at("count").get<int>());
}

std::vector<json> fitting(const json& doc, std::size_t n) {
    std::vector<json> out;
    for (const auto& r : doc.at("recommendations"))
        if (r.at("fits").get<bool>() && out.size() < n) out.push_back(r);
    return out;
}

// Every list: fitting plans first, then standing ranked < late < unknown,
// and the score never rises down the ranked plans.
void check_order(const json& doc) {
    const auto order = [](const json& r) {
        if (!r.at("fits").get<bool>()) return 3;
        const std::string s = r.at("standing");
        return s == "ranked" ? 0 : s == "late" ? 1 : 2;
    };
    int last = 0;
    double score = 1e300;
    for (const auto& r : doc.at("recommendations")) {
        INFO(tag(r));
        CHECK(order(r) >= last);
        last = order(r);
        if (order(r) == 0) {
            CHECK(r.at("score").get<double>() <= score);
            score = r.at("score").get<double>();
        }
    }
}

}  // namespace

TEST_CASE("advice: 8B full fine-tune under $15,000: the first plan fits the budget with a speed") {
    const json doc = answer({"--model", "llama-3.1-8b", "--method", "full", "--budget", "15000"});
    check_order(doc);
    const auto best = fitting(doc, 1);
    REQUIRE(best.size() == 1);
    INFO(tag(best.front()));
    CHECK(best.front().at("total_usd").get<double>() <= 15000.0);
    CHECK(best.front().at("performance").at("train_tokens_per_s").get<double>() > 0);
    CHECK(best.front().at("standing") == "ranked");
}

TEST_CASE("advice: serving a 70B on datacenter parts ranks priced H100/H200/MI300X-class plans") {
    for (const std::vector<std::string>& ask :
         {std::vector<std::string>{"--task", "serve-70b"},
          {"--model", "llama-3.1-70b", "--quant", "fp8", "--segment", "datacenter"}}) {
        const json doc = answer(ask);
        check_order(doc);
        const auto top3 = fitting(doc, 3);
        REQUIRE(top3.size() == 3);
        bool known_part = false;
        for (const auto& r : top3) {
            INFO(tag(r));
            // Priced as bought: the whole system has a sourced price.
            CHECK(r.at("total_usd").is_number());
            CHECK(r.at("standing") == "ranked");
            const std::string id = r.at("gpu");
            for (const char* part : {"h100", "h200", "mi300x", "mi325x", "b200", "b100"})
                known_part = known_part || id.find(part) != std::string::npos;
        }
        CHECK(known_part);
        // One session's load: the first plan uses the GPUs it buys, not one
        // module of an eight-GPU board whose other copies nobody asked for.
        CHECK(top3.front().at("replicas") == 1);
    }
    // A load that fills a board (--users) lets its speed earn its price:
    // some plan among the top three is a datacenter board or module.
    const json load = answer(
        {"--model", "llama-3.1-70b", "--quant", "fp8", "--segment", "datacenter", "--users", "64"});
    bool board = false;
    for (const auto& r : fitting(load, 3)) {
        INFO(tag(r));
        board = board || r.at("form") == "module";
    }
    CHECK(board);
    // The task's floors follow the fact-checked figures: its own pick fits.
    const json task = answer({"--task", "serve-70b"});
    CHECK(task.at("document_pick").at("fits") == true);
}

TEST_CASE(
    "advice: a 70B pre-training run on up to 64 GPUs: no plan over 120 days first, days said") {
    const json doc = answer({"--model", "70B", "--method", "full", "--max-gpus", "64", "--tokens",
                             "1T", "--top", "20"});
    check_order(doc);
    const auto top3 = fitting(doc, 3);
    REQUIRE_FALSE(top3.empty());
    CHECK(top3.front().at("performance").at("days").get<double>() <= 120.0);
    for (const auto& r : top3) {
        INFO(tag(r));
        CHECK_THAT(r.at("reasons").at(0).get<std::string>(), Catch::Contains(" days"));
        CHECK_THAT(r.at("reasons").at(0).get<std::string>(), Catch::Contains("% MFU"));
    }
    // By a date: later plans are misses that say their days; the rest rank by cost.
    const json soon = answer({"--model", "70B", "--method", "full", "--max-gpus", "64", "--tokens",
                              "1T", "--deadline", "30d"});
    const auto& first = soon.at("recommendations").at(0);
    if (!first.at("fits").get<bool>()) {
        CHECK_THAT(first.at("reasons").at(0).get<std::string>(),
                   Catch::Contains("after the 30-day deadline"));
        CHECK(first.at("performance").at("days").is_number());
    }
    const json year = answer({"--model", "70B", "--method", "full", "--max-gpus", "64", "--tokens",
                              "1T", "--deadline", "1y", "--top", "10"});
    CHECK(year.at("rank_by") == "cost");
    for (const auto& r : fitting(year, 10)) {
        INFO(tag(r));
        CHECK(r.at("performance").at("days").get<double>() <= 365.0);
    }
}

TEST_CASE("advice: a cluster is never GeForce cards, which are not licensed for a datacenter") {
    // 70B pre-training on up to 64 GPUs: a plan beyond one 8-card server is a
    // cluster; NVIDIA's consumer cards may not be deployed in one.
    const json doc = answer({"--model", "llama-3.1-70b", "--method", "full", "--max-gpus", "64",
                             "--tokens", "100B", "--top", "40"});
    for (const auto& r : fitting(doc, 40)) {
        INFO(tag(r));
        CHECK_FALSE((r.at("vendor") == "nvidia" && r.at("segment") == "consumer" &&
                     r.at("count").get<int>() > 8));
    }
    // Asked for, the plan says why it is refused (and exits 1, a "no").
    const json c =
        gpuadvise_test::run_json({"check", "--model", "llama-3.1-70b", "--method", "full", "--gpus",
                                  "64", "--gpu", "rtx-5090", "--tokens", "100B"},
                                 {1});
    CHECK(c.at("plan").at("fits") == false);
    CHECK_THAT(c.at("plan").at("reasons").at(0).get<std::string>(),
               Catch::Contains("GeForce driver licence excludes datacenter deployment"));
    // One box of GeForce cards is not a cluster: two RTX 4090s for a 70B QLoRA are not refused.
    const json box = gpuadvise_test::run_json({"check", "--model", "llama-3.1-70b", "--method",
                                               "qlora", "--gpus", "2", "--gpu", "rtx-4090"},
                                              {0, 1});
    for (const auto& f : box.at("plan").at("rules_fired"))
        CHECK(f.at("id") != "geforce-datacenter");
}

TEST_CASE("advice: compare ranks by its key, and --keep-order keeps the order given and says so") {
    const std::vector<std::string> cards{"h100-sxm5", "rtx-4090", "rtx-3090"};
    std::vector<std::string> ask{"compare"};
    ask.insert(ask.end(), cards.begin(), cards.end());
    ask.insert(ask.end(), {"--model", "8B"});
    const json ranked = answer(ask);
    check_order(ranked);
    CHECK(ranked.at("recommendations").at(0).at("gpu") != "nvidia-h100-sxm5");  // $279k board last
    ask.emplace_back("--keep-order");
    const json kept = answer(ask);
    const auto& recs = kept.at("recommendations");
    REQUIRE(recs.size() == 3);
    for (std::size_t i = 0; i < cards.size(); ++i)
        CHECK_THAT(recs.at(i).at("gpu").get<std::string>(), Catch::EndsWith(cards[i]));
    const auto text = gpuadvise_test::run(ask);  // the text table too, with its heading
    CHECK_THAT(text.out, Catch::Contains("in the order given (--keep-order)"));
}

TEST_CASE("advice: DeepSeek-V3 at home is an offload box or a big unified-memory machine") {
    const json doc =
        answer({"--model", "deepseek-v3", "--quant", "q4_k_m", "--engine", "llama.cpp"});
    check_order(doc);
    const auto top3 = fitting(doc, 3);
    REQUIRE(top3.size() == 3);
    for (const auto& r : top3) {
        INFO(tag(r));
        // What people buy for it: a box that holds the experts in RAM with one
        // card, or a machine of 512 GB unified memory; never a $95k cluster.
        const bool offload = r.at("offload").is_object() && r.at("offload").at("host_bytes") > 0;
        const bool unified = r.at("memory_bytes").get<double>() >= 400e9;
        CHECK((offload || unified));
        CHECK(r.at("total_usd").get<double>() < 20000.0);
        CHECK(r.at("performance").at("decode_tokens_per_s").get<double>() >= 5.0);
    }
}

TEST_CASE(
    "advice: Wan 2.1 14B at 720p: the first plans make a clip within two hours, slow "
    "boxes come after and say why") {
    const json doc = answer({"--model", "wan2.1-t2v-14b", "--frames", "81", "--top", "100"});
    check_order(doc);
    const auto top = fitting(doc, 3);
    REQUIRE(top.size() == 3);
    bool workstation = false;
    for (const json& r : top) {
        INFO(tag(r));
        CHECK(r.at("standing") == "ranked");
        // An expert buys a card that makes the clip in an afternoon, not overnight.
        CHECK(r.at("performance").at("seconds_per_clip").get<double>() <= 7200.0);
        workstation = workstation || r.at("total_usd").get<double>() < 20000.0;
    }
    // One answer a studio can buy without a server.
    CHECK(workstation);
    // A plan slower than two hours a clip (an 8.8-hour Jetson) ranks after, saying so.
    std::size_t late = 0;
    for (const auto& r : doc.at("recommendations")) {
        if (!r.at("fits").get<bool>() || r.at("standing") != "late") continue;
        ++late;
        INFO(tag(r));
        CHECK(r.at("performance").at("seconds_per_clip").get<double>() > 7200.0);
        bool said = false;
        for (const auto& why : r.at("reasons"))
            said = said || why.get<std::string>().find("make a clip sooner") != std::string::npos;
        CHECK(said);
    }
    CHECK(late > 0);
}

namespace {

// Training tokens/s of each card a `compare` answer names, by card id.
std::map<std::string, double> train_rates(const json& doc) {
    std::map<std::string, double> out;
    for (const auto& r : doc.at("recommendations"))
        out[r.at("gpu").get<std::string>()] =
            r.at("performance").at("train_tokens_per_s").get<double>();
    return out;
}

std::size_t rank_of(const json& doc, const std::string& gpu) {
    const auto& recs = doc.at("recommendations");
    for (std::size_t i = 0; i < recs.size(); ++i)
        if (recs.at(i).at("gpu") == gpu) return i;
    return recs.size();
}

}  // namespace

TEST_CASE(
    "advice: 8B QLoRA: a workstation card trains at about its GeForce sibling's speed, so the "
    "GeForce card at a fraction of the price ranks above it") {
    const json doc = answer({"compare", "rtx-6000-ada", "rtx-4090", "rtx-a6000", "rtx-3090",
                             "titan-rtx", "--model", "llama-3.1-8b", "--method", "qlora"});
    check_order(doc);
    const auto rate = train_rates(doc);
    // Published training benchmarks of these pairs measure about 1.0-1.3x (Lambda: BERT-large
    // AMP 0.85 and 1.31, ResNet-50 0.88 and 1.01): a 300 W full-rate part sustains little
    // more than the half-rate 450 W or 350 W GeForce card, and the step's bandwidth-bound
    // part runs at the GDDR6 it shares with it.
    const double ada = rate.at("nvidia-rtx-6000-ada") / rate.at("nvidia-rtx-4090");
    const double ampere = rate.at("nvidia-rtx-a6000") / rate.at("nvidia-rtx-3090");
    CHECK(ada >= 1.0);
    CHECK(ada <= 1.4);
    CHECK(ampere >= 1.0);
    CHECK(ampere <= 1.4);
    // The Titan RTX (Turing) does not outrun the 3090 (Lambda measures 0.80-0.85).
    CHECK(rate.at("nvidia-titan-rtx") <= 1.05 * rate.at("nvidia-rtx-3090"));
    // At a half to a third of the price, the GeForce card is the better buy.
    CHECK(rank_of(doc, "nvidia-rtx-4090") < rank_of(doc, "nvidia-rtx-6000-ada"));
    CHECK(rank_of(doc, "nvidia-rtx-3090") < rank_of(doc, "nvidia-rtx-a6000"));
    CHECK(rank_of(doc, "nvidia-rtx-3090") < rank_of(doc, "nvidia-titan-rtx"));
}

TEST_CASE(
    "advice: 8B LoRA: the RTX 4090 is 1.5-2.0x the RTX 3090, not its 2.2x matmul rate, and the "
    "RTX 5000 Ada is slower than the RTX 5090") {
    const json doc = answer({"compare", "rtx-4090", "rtx-3090", "rtx-5090", "rtx-5000-ada",
                             "--model", "llama-3.1-8b", "--method", "lora"});
    const auto rate = train_rates(doc);
    // The step's norms, rotary, activation and adapters run at the bandwidth, which differs
    // by 8 % between the two; Lambda's FP16 training benchmark measures 1.6-1.8x.
    const double ratio = rate.at("nvidia-rtx-4090") / rate.at("nvidia-rtx-3090");
    CHECK(ratio >= 1.5);
    CHECK(ratio <= 2.0);
    // A 250 W card of 576 GB/s against a 575 W card of 1,792 GB/s.
    CHECK(rate.at("nvidia-rtx-5000-ada") < rate.at("nvidia-rtx-5090"));
}

TEST_CASE(
    "advice: Llama 3.1 8B, 70B and 405B pre-training on 16K H100s cost about the GPU-hours Meta "
    "published") {
    // Meta Llama 3.1 model card: 1.46M, 7.0M and 30.84M H100 GPU-hours; within 1.3x.
    for (const auto& [model, hours] : std::vector<std::pair<std::string, double>>{
             {"llama-3.1-8b", 1.46e6}, {"llama-3.1-70b", 7.0e6}, {"llama-3.1-405b", 30.84e6}}) {
        INFO(model);
        const json doc = answer({"estimate", "--model", model, "--method", "full", "--gpu",
                                 "h100-sxm5", "--gpus", "16384", "--seq", "8192", "--batch", "1",
                                 "--tokens", "15T", "--network", "roce-400"});
        const json& p = doc.at("performance");
        CHECK(p.at("goodput").get<double>() < 1.0);  // restarts, evaluation, checkpoints
        const double estimated = p.at("gpu_hours").get<double>();
        CHECK(estimated >= hours / 1.3);
        CHECK(estimated <= hours * 1.3);
        // Smaller models use their GPUs less well at this scale.
        if (model == "llama-3.1-8b") CHECK(p.at("mfu").get<double>() < 0.3);
    }
}
TEST_CASE(
    "advice: SDXL, 30 steps at 1024x1024: the RTX 4090 makes an image in under 6 s and ranks "
    "above the cards three times its price that are not faster") {
    const json doc = answer({"--model", "sdxl", "--steps", "30", "--top", "200"});
    check_order(doc);
    const auto& list = doc.at("recommendations");
    std::size_t at = list.size();
    for (std::size_t i = 0; i < list.size(); ++i)
        if (list[i].at("gpu") == "nvidia-rtx-4090" && list[i].at("count") == 1) at = i;
    REQUIRE(at < list.size());
    const json& rtx = list[at];
    CHECK(rtx.at("standing") == "ranked");
    const double seconds = rtx.at("performance").at("seconds_per_image").get<double>();
    CHECK(seconds < 6.0);  // about 4 s measured (issue 27); 3.4 s for 25 steps (HF's LCM blog)
    const double price = rtx.at("total_usd").get<double>();
    const double rate = rtx.at("performance").at("images_per_s").get<double>();
    for (std::size_t i = 0; i < at; ++i) {
        const json& r = list[i];
        if (!r.at("fits").get<bool>() || !r.at("total_usd").is_number()) continue;
        INFO(tag(r));
        // Anything ranked above it that costs three times as much is faster.
        if (r.at("total_usd").get<double>() >= 3.0 * price)
            CHECK(r.at("performance").at("images_per_s").get<double>() > rate);
    }
}

TEST_CASE("advice: FLUX.1-dev in fp8 in ComfyUI fits an RTX 4090 and makes an image in seconds") {
    const json doc = answer({"check", "--gpu", "rtx-4090", "--model", "flux-dev", "--quant", "fp8",
                             "--image-setup", "comfyui"});
    CHECK(doc.at("plan").at("fits").get<bool>());
    // ComfyUI's 20 steps at 1024x1024: 12-20 s as users run it (issue 27),
    // not the minutes of a card that swaps the 12B model in every step.
    const double seconds = doc.at("performance").at("seconds_per_image").get<double>();
    CHECK(seconds > 8.0);
    CHECK(seconds < 30.0);
    CHECK(doc.at("workload").at("steps") == 20);
    // The same checkpoint with diffusers keeping T5-XXL resident does not fit.
    const json resident = gpuadvise_test::run_json(
        {"check", "--gpu", "rtx-4090", "--model", "flux-dev", "--quant", "fp8"}, {1});
    CHECK_FALSE(resident.at("plan").at("fits").get<bool>());
}

TEST_CASE(
    "advice: FLUX.1-dev in diffusers: a card that holds it only with model offload is ranked, "
    "with the offload said and costed") {
    const json doc = answer({"--model", "flux-dev", "--top", "10"});
    check_order(doc);
    // The whole pipeline (36.7 GiB) needs a 48 GB card; diffusers' model
    // offload (FLUX's model card) runs it on a 32 GB one. A ranking that
    // offers only $5,000-plus cards leaves out what most buyers would run.
    bool offloaded_in_top3 = false;
    for (const auto& r : fitting(doc, 3)) {
        INFO(tag(r));
        if (r.at("cpu_offload").is_null()) continue;
        offloaded_in_top3 = true;
        CHECK(r.at("cpu_offload") == "model");
        CHECK(r.at("total_usd").get<double>() < 5000.0);
        CHECK(r.at("reasons").at(0).get<std::string>().find("--cpu-offload model") !=
              std::string::npos);
    }
    CHECK(offloaded_in_top3);
    // Its copies cost it: the same card is slower with offload than a card
    // of the same chip that holds the whole pipeline (RTX PRO 6000 Blackwell).
    double offloaded = 0, whole = 0;
    for (const auto& r : doc.at("recommendations")) {
        if (r.at("gpu") == "nvidia-rtx-5090")
            offloaded = r.at("performance").at("seconds_per_image");
        if (r.at("gpu") == "nvidia-rtx-pro-6000-blackwell")
            whole = r.at("performance").at("seconds_per_image");
    }
    REQUIRE(offloaded > 0);
    REQUIRE(whole > 0);
    CHECK(offloaded > whole);
    // compare makes each card's plan as the ranking does: the 24 GB card
    // runs it only with sequential offload, which costs minutes an image.
    const json compared = answer({"compare", "rtx-4090", "rtx-5090", "--model", "flux-dev"});
    for (const auto& r : compared.at("recommendations")) {
        INFO(tag(r));
        CHECK(r.at("fits").get<bool>());
        CHECK(r.at("cpu_offload") == (r.at("gpu") == "nvidia-rtx-5090" ? "model" : "sequential"));
    }
    CHECK(compared.at("recommendations").at(0).at("gpu") == "nvidia-rtx-5090");
    // An offload the user gave is every plan's: --cpu-offload none leaves the
    // 32 GB cards out, and no plan adds one.
    const json asked = answer({"--model", "flux-dev", "--cpu-offload", "none", "--top", "40"});
    for (const auto& r : asked.at("recommendations")) {
        INFO(tag(r));
        CHECK(r.at("cpu_offload").is_null());
        if (r.at("gpu") == "nvidia-rtx-5090") CHECK_FALSE(r.at("fits").get<bool>());
    }
}

TEST_CASE("advice: 100 chat users are served at reading speed or more, unless asked for less") {
    const json doc = answer({"--model", "llama-3.1-8b", "--users", "100", "--top", "10"});
    check_order(doc);
    const auto best = fitting(doc, 10);
    REQUIRE(best.size() >= 3);
    for (const auto& r : best) {
        INFO(tag(r));
        // Each session streams at least as fast as people read (5.3 tok/s,
        // data/rules.json latency), with the load it was ranked under.
        CHECK(r.at("load").at("users") == 100);
        CHECK(r.at("load").at("per_user_tokens_per_s").get<double>() >= 5.3);
        CHECK(r.at("load").at("meets").get<bool>());
    }
    // A box that holds the sessions but streams them slower is refused, and
    // says why; asking for less lets it back.
    const json slow = gpuadvise_test::run_json(
        {"check", "--gpu", "jetson-thor", "--model", "llama-3.1-8b", "--users", "100"}, {1});
    CHECK_FALSE(slow.at("plan").at("fits").get<bool>());
    bool said = false;
    for (const auto& hit : slow.at("plan").at("rules_fired"))
        said = said || (hit.at("id") == "latency" && hit.at("message").get<std::string>().find(
                                                         "reading speed") != std::string::npos);
    CHECK(said);
    const json asked = answer({"check", "--gpu", "jetson-thor", "--model", "llama-3.1-8b",
                               "--users", "100", "--tok-s-per-user", "1"});
    CHECK(asked.at("plan").at("fits").get<bool>());
}

TEST_CASE("advice: ResNet-50 training with AMP: H100 over A100 over RTX 4090, as published") {
    const auto rate = [](const char* card) {
        const json doc = answer({"estimate", "--gpu", card, "--model", "resnet50", "--method",
                                 "full", "--precision", "fp16"});
        return doc.at("performance").at("images_per_s").get<double>();
    };
    const double h100 = rate("h100-sxm5"), a100 = rate("nvidia-a100-80gb-sxm"),
                 rtx = rate("rtx-4090");
    CHECK(h100 > a100);
    CHECK(a100 > rtx);
    // DeepLearningExamples measures 2,470 img/s on an A100 80GB with AMP
    // (bench/data V-0411); the estimate is no longer the card's GB/s.
    CHECK(a100 > 2000.0);
    CHECK(a100 < 3000.0);
}

TEST_CASE(
    "advice: 70B AWQ serving at batch 16 on four cards: 4 x RTX 3090 is not slower than 4 x "
    "RTX A5000") {
    // Decode at batch 16 streams the weights once per step: the 3090's 936 GB/s
    // against the A5000's 768. Both run NCCL's ring over PCIe (vLLM's one-shot
    // all-reduce takes two PCIe cards at most), the 3090's through host memory.
    const auto decode = [](const char* gpu) {
        const json doc = answer({"estimate", "--model", "llama-3.1-70b", "--quant", "awq-int4",
                                 "--batch", "16", "--gpus", "4", "--gpu", gpu});
        return doc.at("performance").at("decode_tokens_per_s").get<double>();
    };
    CHECK(decode("rtx-3090") >= decode("rtx-a5000"));
}

TEST_CASE(
    "advice: llama.cpp decode at batch 1: an A100 is nowhere near its 2.2x bandwidth over an "
    "RTX 3090") {
    // llama.cpp's decode kernels keep few bytes in flight per SM: the A100's 108
    // SMs stream about what the 3090's 82 do (discussion 15013, Llama 2 7B Q4_0
    // tg128: A100 80GB 191 tok/s, RTX 3090 158).
    const auto decode = [](const char* gpu) {
        const json doc = answer({"estimate", "--model", "llama-3.1-8b", "--quant", "q4_k_m",
                                 "--engine", "llama.cpp", "--gpu", gpu});
        return doc.at("performance").at("decode_tokens_per_s").get<double>();
    };
    const double ratio = decode("a100-80gb-sxm") / decode("rtx-3090");
    CHECK(ratio > 1.0);
    CHECK(ratio < 1.5);
}

TEST_CASE("advice: a unified-memory plan says the GPU's share and the setting that moves it") {
    // DeepSeek-R1 Q4_K_M fills a 512 GB M3 Ultra's default GPU share: the
    // answer names macOS's wired limit, the one setting that makes room.
    const json mac =
        gpuadvise_test::run_json({"check", "--model", "deepseek-r1", "--quant", "q4_k_m",
                                  "--engine", "llama.cpp", "--gpu", "apple-m3-ultra-80c"},
                                 {0, 1});
    bool said = false;
    for (const auto& w : mac.at("plan").at("warnings"))
        said =
            said || (w.get<std::string>().find("384 GiB of it by default") != std::string::npos &&
                     w.get<std::string>().find("iogpu.wired_limit_mb") != std::string::npos);
    CHECK(said);
    // Strix Halo: the GTT budget by default and how far the kernel setting moves it.
    const json apu = gpuadvise_test::run_json(
        {"check", "--model", "gpt-oss-120b", "--gpu", "ryzen-ai-max-plus-395-128gb"}, {0, 1});
    bool gtt = false;
    for (const auto& w : apu.at("plan").at("warnings"))
        gtt = gtt || (w.get<std::string>().find("up to 96 GiB") != std::string::npos &&
                      w.get<std::string>().find("amdgpu.gttsize") != std::string::npos);
    CHECK(gtt);
}
