#include "gpuadvise/rank.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/rules.hpp"
#include "gpuadvise/units.hpp"
#include "support/request.hpp"

using namespace gpuadvise;

namespace {

// small: 8 GiB, cheap, PCIe only; mid: 24 GiB; big: 80 GiB with an NVLink
// domain of 8; bf16-less: a Turing card.
const char* kTiny = R"({"schema":1,"gpus":[
 {"id":"small","vendor":"nvidia","name":"Small","segment":"consumer","arch_family":"ada","memory_bytes":8589934592,
  "memory_bandwidth_gbps":300,"tflops":{"bf16":40,"fp16":40},"tdp_watts":150,"pcie":{"gen":4,"lanes":8},
  "interconnect":{"type":"none","bandwidth_gbps":null,"max_gpus":1},"price":{"usd":300,"kind":"msrp","source":"t"},"software":{"platform":"cuda"},"sources":["t"]},
 {"id":"mid","vendor":"nvidia","name":"Mid","segment":"consumer","arch_family":"ada","memory_bytes":25769803776,
  "memory_bandwidth_gbps":1000,"tflops":{"bf16":160,"fp16":160},"tdp_watts":450,"pcie":{"gen":4,"lanes":16},
  "interconnect":{"type":"none","bandwidth_gbps":null,"max_gpus":1},"price":{"usd":1600,"kind":"msrp","source":"t"},"software":{"platform":"cuda"},"sources":["t"]},
 {"id":"big","vendor":"nvidia","name":"Big","segment":"datacenter","arch_family":"hopper","memory_bytes":85899345920,
  "memory_bandwidth_gbps":3350,"tflops":{"bf16":990,"fp16":990,"fp8":1979},"tdp_watts":700,"pcie":{"gen":5,"lanes":16},
  "form_factor":"SXM5","form":"module","interconnect":{"type":"nvlink","bandwidth_gbps":900,"max_gpus":8,"topology":"switch"},
  "price":{"usd":30000,"kind":"street-estimate","source":"t"},"ecc":true,"software":{"platform":"cuda"},"sources":["t"]},
 {"id":"old","vendor":"nvidia","name":"Old","segment":"datacenter","arch_family":"turing","memory_bytes":17179869184,
  "memory_bandwidth_gbps":320,"tflops":{"fp16":65},"tdp_watts":70,"pcie":{"gen":3,"lanes":16},
  "interconnect":{"type":"none","bandwidth_gbps":null,"max_gpus":1},"software":{"platform":"cuda"},"sources":["t"]}]})";

Workload make(const char* model, const char* method, const char* precision = "bf16") {
    return test::workload(
        {{Field::Model, model}, {Field::Method, method}, {Field::Precision, precision}});
}

bool fired(const Recommendation& r, const std::string& id) {
    for (const auto& h : r.fired)
        if (h.id == id) return true;
    return false;
}

const Recommendation& find(const std::vector<Recommendation>& recs, const std::string& id) {
    for (const auto& r : recs)
        if (r.gpu->id == id) return r;
    FAIL("no " << id);
    return recs.front();
}

}  // namespace

TEST_CASE(
    "ranking puts fitting plans first, picks the smallest plan that fits, and is deterministic") {
    const Catalog c = parse_catalog(kTiny, "tiny");
    const Workload w = make("8B", "inference");  // 16 GB of bf16 weights
    const auto recs = rank(w, c, {});
    REQUIRE(recs.size() == 4);
    CHECK(find(recs, "mid").count == 1);
    CHECK(find(recs, "big").count == 1);
    CHECK(find(recs, "small").count ==
          4);  // 3 x 8 GiB is not a power-of-two plan; 4 over PCIe fits
    CHECK(find(recs, "small").strategy == Parallel::Pp);
    CHECK_FALSE(find(recs, "old").fits);  // Turing: no bf16
    CHECK(fired(find(recs, "old"), "precision-bf16"));
    bool seen_miss = false;
    for (const auto& r : recs) {
        if (!r.fits)
            seen_miss = true;
        else
            CHECK_FALSE(seen_miss);
    }
    // The score never rises down the list (tight plans are discounted by
    // their chance of fitting, not moved), and standings come in order.
    for (std::size_t i = 1; i < recs.size(); ++i) {
        CHECK(recs[i - 1].score >= recs[i].score);
        if (recs[i].fits && recs[i - 1].fits) CHECK(recs[i - 1].standing <= recs[i].standing);
    }
    const auto again = rank(w, c, {});
    for (std::size_t i = 0; i < recs.size(); ++i) CHECK(again[i].gpu->id == recs[i].gpu->id);
}

TEST_CASE("rank-by changes the order for the right reason") {
    const Catalog c = parse_catalog(kTiny, "tiny");
    const Workload w = make("8B", "inference");
    RankOptions speed;
    speed.rank_by = RankBy::Speed;
    CHECK(rank(w, c, speed).front().gpu->id == "big");
    RankOptions memory;
    memory.rank_by = RankBy::Memory;
    CHECK(rank(w, c, memory).front().gpu->id == "big");
    RankOptions cost;
    cost.rank_by = RankBy::Cost;
    const auto by_cost = rank(w, c, cost);
    CHECK(by_cost.front().gpu->id != "big");
}

TEST_CASE(
    "an interconnect domain bounds one server, and beyond it a plan is whole nodes on a fabric") {
    const Catalog c = parse_catalog(kTiny, "tiny");
    const Workload w = make("8B", "inference");
    RankOptions sixteen;
    sixteen.fixed_gpus = 16;
    // big: NVLink domain of 8, SXM: sixteen are two HGX nodes on the default fabric.
    const Recommendation r = evaluate_plan(w, c.gpus[2], 16, sixteen);
    CHECK_FALSE(fired(r, "interconnect-domain"));
    CHECK(r.nodes == 2);
    REQUIRE(r.network != nullptr);
    CHECK(r.network->id == kDefaultNetwork);
    CHECK(r.topology.kind == TopologyKind::Fabric);
    // Twelve are not whole nodes: nothing holds them.
    const Recommendation odd = evaluate_plan(w, c.gpus[2], 12, sixteen);
    CHECK(fired(odd, "interconnect-domain"));
    CHECK_FALSE(odd.fits);
    const Recommendation ok = evaluate_plan(w, c.gpus[2], 8, sixteen);
    CHECK_FALSE(fired(ok, "interconnect-domain"));
    CHECK(ok.nodes == 1);
}

TEST_CASE("rules fire with their numbers and stay quiet otherwise") {
    const Catalog c = parse_catalog(kTiny, "tiny");
    const Gpu& small = c.gpus[0];
    const Gpu& mid = c.gpus[1];
    const Gpu& big = c.gpus[2];
    RankOptions o;
    // memory-fit: 8B bf16 inference does not fit 8 GiB, does fit 80 GiB.
    const Recommendation miss = evaluate_plan(make("8B", "inference"), small, 1, o);
    REQUIRE(fired(miss, "memory-fit"));
    CHECK(miss.reasons.front().find("GiB per GPU, card has 8.0 GiB usable") != std::string::npos);
    CHECK_FALSE(fired(evaluate_plan(make("8B", "inference"), big, 1, o), "memory-fit"));
    // pcie-x8 with gradient checkpointing (training) on the x8 card, not on x16.
    CHECK(fired(evaluate_plan(make("1B", "qlora"), small, 1, o), "pcie-x8"));
    CHECK_FALSE(fired(evaluate_plan(make("1B", "qlora"), mid, 1, o), "pcie-x8"));
    // prefer-bf16 tip for fp16 training on a bf16 card.
    CHECK(fired(evaluate_plan(make("1B", "lora", "fp16"), mid, 1, o), "prefer-bf16"));
    CHECK_FALSE(fired(evaluate_plan(make("1B", "lora", "bf16"), mid, 1, o), "prefer-bf16"));
    // pcie-allreduce: full fine-tune of 13B across PCIe cards, not over NVLink.
    RankOptions four;
    four.fixed_gpus = 4;
    CHECK(fired(evaluate_plan(make("13B", "full"), mid, 4, four), "pcie-allreduce"));
    CHECK_FALSE(fired(evaluate_plan(make("13B", "full"), big, 4, four), "pcie-allreduce"));
    // no-ecc-serving: a consumer card with unknown ECC fires; "big" has ECC.
    CHECK(fired(evaluate_plan(make("1B", "inference"), mid, 1, o), "no-ecc-serving"));
    CHECK_FALSE(fired(evaluate_plan(make("1B", "inference"), big, 1, o), "no-ecc-serving"));
    // Platforms: four consumer cards go into a workstation, two into a dual-GPU
    // desktop, one into a desktop; the system's price is cards + platform.
    const Recommendation four_cards = evaluate_plan(make("8B", "inference"), small, 4, four);
    REQUIRE(four_cards.platform != nullptr);
    CHECK(four_cards.platform->id == "workstation-4gpu");
    CHECK(evaluate_plan(make("8B", "inference"), small, 2, four).platform->id == "desktop-2gpu");
    const Recommendation one_card = evaluate_plan(make("1B", "inference"), small, 1, o);
    REQUIRE(one_card.platform != nullptr);
    CHECK(one_card.platform->id == "desktop");
    CHECK(one_card.total_usd == Approx(one_card.price_usd + *one_card.platform->usd));
    // budget: the whole system counts, unless the host is owned already
    RankOptions budget;
    budget.budget_usd = one_card.price_usd + 100;
    CHECK(fired(evaluate_plan(make("1B", "inference"), small, 1, budget), "budget"));
    budget.have_host = true;
    CHECK_FALSE(fired(evaluate_plan(make("1B", "inference"), small, 1, budget), "budget"));
    CHECK(evaluate_plan(make("1B", "inference"), small, 1, budget).total_usd ==
          Approx(one_card.price_usd));
    // fp8 weights need an FP8 path
    const Workload fp8 = test::workload({{Field::Model, "1B"}, {Field::Quant, "fp8"}});
    CHECK(fired(evaluate_plan(fp8, mid, 1, o), "precision-fp8"));  // no fp8 figure
    CHECK_FALSE(fired(evaluate_plan(fp8, big, 1, o), "precision-fp8"));
}

TEST_CASE("Windows reserves display memory") {
    const Catalog c = parse_catalog(kTiny, "tiny");
    CHECK(usable_memory(c.gpus[1], Os::Windows) == c.gpus[1].memory_bytes - kGiB - kGiB / 2);
    CHECK(usable_memory(c.gpus[1], Os::Linux) == c.gpus[1].memory_bytes);
}

TEST_CASE("a mixed box splits layers by free memory and is bounded by its tightest card") {
    const Catalog c = parse_catalog(kTiny, "tiny");
    Workload w = make("8B", "inference");
    w.engine = find_engine("llama.cpp");
    const Gpu* box[] = {&c.gpus[1], &c.gpus[0]};  // mid (24 GiB) + small (8 GiB)
    const Recommendation r = evaluate_box(w, box, {});
    REQUIRE(r.placement.size() == 2);
    std::int64_t layers = 0;
    for (const Placement& p : r.placement) layers += p.layers;
    CHECK(layers == w.model.arch.total_layers());
    CHECK(r.placement[0].layers > 2 * r.placement[1].layers);  // 24 vs 8 GiB, less the fixed parts
    CHECK(r.fits);
    for (const Placement& p : r.placement) CHECK(p.bytes <= p.usable_bytes);
    CHECK(plan_label(r) == "mid + small");
    // A token passes both cards: slower than the fast card alone would decode it.
    const Recommendation alone = evaluate_plan(w, c.gpus[1], 1, {});
    REQUIRE(alone.performance.decode_tokens_per_s);
    CHECK(*r.performance.decode_tokens_per_s < *alone.performance.decode_tokens_per_s);
    // The same card twice is an ordinary plan, with no placement.
    const Gpu* same[] = {&c.gpus[1], &c.gpus[1]};
    const Recommendation two = evaluate_box(w, same, {});
    CHECK(two.placement.empty());
    CHECK(two.count == 2);
}

TEST_CASE("a mixed box for training gives equal shards, sized by the smallest card") {
    const Catalog c = parse_catalog(kTiny, "tiny");
    const Workload w = make("1B", "lora");
    const Gpu* box[] = {&c.gpus[1], &c.gpus[0]};
    const Recommendation r = evaluate_box(w, box, {});
    REQUIRE(r.placement.size() == 2);
    CHECK(r.gpu->id == "small");
    CHECK(r.placement[0].bytes == r.placement[1].bytes);
    CHECK(r.placement[0].layers == 0);
}

TEST_CASE("tight fits rank after comfortable ones") {
    const Catalog c = parse_catalog(kTiny, "tiny");
    const auto recs = rank(make("8B", "inference"), c, {});
    bool seen_tight = false;
    for (const auto& r : recs) {
        if (!r.fits) break;
        if (r.tight) seen_tight = true;
        if (!r.tight) CHECK_FALSE(seen_tight);
        CHECK(r.tight == fired(r, "thin-headroom"));
    }
}

TEST_CASE("a ranking's shared estimates equal each plan's own, also where the cards set defaults") {
    // Card defaults that change the workload: mlx-lm trains QLoRA on Apple
    // silicon (its own base format and optimizer), Ollama's context by the
    // cards' memory, fp16 for vision models on cards without bf16.
    const Catalog& catalog = embedded::catalog();
    const std::vector<Workload> workloads{
        test::workload({{Field::Model, "8B"}, {Field::Method, "qlora"}}),
        test::workload({{Field::Model, "8B"}, {Field::Engine, "ollama"}}),
        test::workload({{Field::Model, "resnet50"}, {Field::Method, "full"}},
                       embedded::model_presets())};
    for (const Workload& w : workloads) {
        SharedEstimates shared(w);
        for (const char* card :
             {"rtx-4090", "apple-m4-max-40c-64gb", "apple-m2-8c-8gb", "mi300x", "v100-sxm2-32gb",
              "rtx-3060-12gb", "h100-sxm5", "rtx-4090", "apple-m4-max-40c-64gb"})
            for (const std::int64_t count : {1, 2, 8}) {
                const Gpu& gpu = resolve_gpu(catalog, card, "test");
                INFO(w.model.name << " on " << card << " x " << count);
                const Recommendation with =
                    evaluate_plan(w, gpu, count, RankOptions{}, &shared, Detail::Numbers);
                const Recommendation alone =
                    evaluate_plan(w, gpu, count, RankOptions{}, nullptr, Detail::Numbers);
                CHECK(with.memory.per_gpu_bytes == alone.memory.per_gpu_bytes);
                CHECK(with.fits == alone.fits);
                CHECK(with.performance.rate() == alone.performance.rate());
                // The verdict alone: the same answer and headroom.
                const Recommendation verdict =
                    evaluate_plan(w, gpu, count, RankOptions{}, &shared, Detail::Verdict);
                CHECK(verdict.fits == alone.fits);
                CHECK(verdict.headroom_bytes == alone.headroom_bytes);
            }
    }
}

TEST_CASE("same_card_defaults tells the values a card default writes") {
    const Workload w = test::workload({{Field::Model, "8B"}, {Field::Method, "qlora"}});
    Workload apple = w;
    const Gpu& mac = resolve_gpu(embedded::catalog(), "apple-m4-max-40c-64gb", "test");
    REQUIRE(apply_card_defaults(apple, mac, 1, false));
    CHECK_FALSE(same_card_defaults(w, apple));
    // The sentences are not part of the values.
    Workload recorded = w;
    apply_card_defaults(recorded, mac, 1, true);
    CHECK(same_card_defaults(apple, recorded));
    CHECK(recorded.assumed != w.assumed);
    CHECK(apple.assumed == w.assumed);
}
