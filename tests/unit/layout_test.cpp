// 3D layouts: what a model allows, the layouts searched, and what a layout
// does to one GPU's memory and to the step time (docs/performance-model.md,
// "3D layouts"); bench/accuracy replays published runs against them.
#include "gpuadvise/layout.hpp"

#include <catch2/catch.hpp>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/rank.hpp"
#include "support/request.hpp"

using namespace gpuadvise;
using test::workload;

namespace {

Architecture llama70() {
    Architecture a;
    a.layers = 80;
    a.hidden = 8192;
    a.intermediate = 28672;
    a.heads = 64;
    a.kv_heads = 8;
    a.head_dim = 128;
    a.vocab = 128256;
    return a;
}

}  // namespace

TEST_CASE("layout: what the model allows, with the dimension and the fix named") {
    const Architecture a = llama70();
    CHECK(layout_problem(a, 4096, {.tp = 8, .pp = 4, .dp = 2}).empty());
    CHECK_THAT(layout_problem(a, 4096, {.tp = 16}), Catch::Contains("8 KV heads"));
    CHECK_THAT(layout_problem(a, 4096, {.tp = 3}), Catch::Contains("64 attention heads"));
    CHECK_THAT(layout_problem(a, 4096, {.pp = 81}), Catch::Contains("80 layers"));
    CHECK_THAT(layout_problem(a, 4097, {.cp = 2}), Catch::Contains("4 chunks"));
    CHECK_THAT(layout_problem(a, 4096, {.ep = 2}), Catch::Contains("mixture-of-experts"));
    CHECK_THAT(layout_problem(a, 4096, {.pp = 40, .vpp = 4}), Catch::Contains("at least 160"));
    Architecture moe = a;
    moe.experts = 8;
    moe.experts_per_token = 2;
    moe.moe_intermediate = 14336;
    CHECK(layout_problem(moe, 4096, {.ep = 8, .dp = 8}).empty());
    CHECK_THAT(layout_problem(moe, 4096, {.ep = 16, .dp = 16}), Catch::Contains("8 experts"));
    CHECK_THAT(layout_problem(moe, 4096, {.ep = 4, .dp = 2}), Catch::Contains("data x context"));
}

TEST_CASE("layout: every candidate multiplies to the count and keeps tp inside the domain") {
    const Architecture a = llama70();
    for (const std::int64_t count : {16, 64, 1536, 16384}) {
        const auto all = candidate_layouts(a, 8192, count, 8, {});
        REQUIRE(!all.empty());
        for (const Layout& l : all) {
            INFO(layout_label(l));
            CHECK(l.gpus() == count);
            CHECK(l.tp <= 8);
            CHECK(layout_problem(a, 8192, l).empty());
        }
    }
    // Long sequences add context parallel; fixed sizes are kept.
    const auto long_seq = candidate_layouts(a, 131072, 1024, 8, {});
    CHECK(std::any_of(long_seq.begin(), long_seq.end(), [](const Layout& l) { return l.cp > 1; }));
    LayoutRequest tp4;
    tp4.tp = 4;
    const auto fixed = candidate_layouts(a, 8192, 64, 8, tp4);
    CHECK(std::all_of(fixed.begin(), fixed.end(), [](const Layout& l) { return l.tp == 4; }));
    CHECK(layout_label({.tp = 8, .pp = 16, .dp = 128, .vpp = 2}) == "tp8 pp16 (vpp2) dp128");
}

TEST_CASE("layout: the most loaded stage, and a requested layout that does not divide") {
    Architecture a = llama70();
    a.layers = 126;
    CHECK(stage_layers(a, {.pp = 16}) == 8);
    CHECK(stage_layers(a, {.pp = 16, .vpp = 2}) == 8);
    CHECK(stage_layers(a, {.pp = 1}) == 126);
    LayoutRequest meta;
    meta.tp = 8;
    meta.pp = 16;
    CHECK(requested_layout(a, 8192, 16384, meta, "--tp 8 --pp 16").dp == 128);
    CHECK_THROWS_AS(requested_layout(a, 8192, 100, meta, "--tp 8 --pp 16"), InputError);
    CHECK(routed_expert_share(a) == 0.0);
}

TEST_CASE("layout: tensor x pipeline parallel splits the weights and the optimizer state") {
    const auto& presets = embedded::model_presets();
    const Workload w = workload({{Field::Model, "llama-3.1-70b"},
                                 {Field::Method, "full"},
                                 {Field::Gpus, "64"},
                                 {Field::Tp, "8"},
                                 {Field::Pp, "4"},
                                 {Field::Seq, "4096"},
                                 {Field::Batch, "1"}},
                                presets);
    REQUIRE(w.layout == Layout{.tp = 8, .pp = 4, .dp = 2});
    CHECK(w.parallel == Parallel::Zero1);  // the distributed optimizer, assumed
    const MemoryEstimate m = estimate(w);
    const double params = static_cast<double>(w.model.params);
    // 16-bit weights and fp32 gradients of one stage's tp shard; the fp32 master and
    // both moments sharded over every GPU (ZeRO-1 over dp x cp on top of tp x pp).
    CHECK(static_cast<double>(m.get(&Components::weights)) == Approx(params * 2 / 32).epsilon(0.1));
    CHECK(static_cast<double>(m.get(&Components::gradients)) ==
          Approx(params * 4 / 32).epsilon(0.1));
    CHECK(static_cast<double>(m.get(&Components::optimizer)) ==
          Approx(params * 12 / 64).epsilon(0.1));
    // 1F1B keeps pp micro-batches in flight on the first stage: more pipeline stages do
    // not shrink the activations of one GPU (each holds fewer layers, for more micro-batches).
    Workload pp8 = w;
    pp8.layout = {.tp = 8, .pp = 8, .dp = 1};
    pp8.grad_accum = 32;
    Workload pp2 = w;
    pp2.layout = {.tp = 8, .pp = 2, .dp = 4};
    pp2.grad_accum = 8;
    CHECK(static_cast<double>(estimate(pp8).get(&Components::activations)) ==
          Approx(static_cast<double>(estimate(pp2).get(&Components::activations))).epsilon(0.05));
}

TEST_CASE("layout: the pipeline bubble and the micro-batches a plan gets by default") {
    const auto& presets = embedded::model_presets();
    const Gpu& h100 = resolve_gpu(embedded::catalog(), "h100-sxm5", "test");
    const auto plan = [&](std::initializer_list<std::pair<Field, std::string>> extra) {
        Request r = test::request({{Field::Model, "llama-3.1-70b"},
                                   {Field::Method, "full"},
                                   {Field::Gpus, "64"},
                                   {Field::Seq, "4096"},
                                   {Field::Batch, "1"}});
        for (const auto& [f, v] : extra) r.set(f, v, std::string(spec(f).flag));
        const Workload w = resolve_workload(r, {}, presets);
        return evaluate_plan(w, h100, 64, RankOptions{});
    };
    // 4 micro-batches per stage by default: (pp - 1) / (m x vpp) = 3/16 of a step idle.
    const Recommendation four = plan({{Field::Tp, "8"}, {Field::Pp, "4"}});
    CHECK(four.micro_batches == 16);
    const Recommendation few = plan({{Field::Tp, "8"}, {Field::Pp, "4"}, {Field::GradAccum, "4"}});
    CHECK(few.micro_batches == 4);
    // Fewer micro-batches leave a larger bubble: a slower rate per GPU.
    CHECK(*few.performance.train_tokens_per_s < *four.performance.train_tokens_per_s);
    // Interleaving shrinks the bubble again.
    const Recommendation inter =
        plan({{Field::Tp, "8"}, {Field::Pp, "4"}, {Field::GradAccum, "4"}, {Field::Vpp, "2"}});
    CHECK(*inter.performance.train_tokens_per_s > *few.performance.train_tokens_per_s);
    // A searched plan lists what it compared and keeps the best that fits first.
    const Recommendation searched = plan({});
    REQUIRE(!searched.layouts.empty());
    CHECK(searched.layouts.front().fits);
    CHECK(searched.layout.gpus() == 64);
}

TEST_CASE("layout: plans evaluated with a ranking's shared estimates equal plans evaluated alone") {
    const auto& presets = embedded::model_presets();
    const Catalog& catalog = embedded::catalog();
    Request r = test::request({{Field::Model, "llama-3.1-70b"}, {Field::Method, "full"}});
    const Workload w = resolve_workload(r, {}, presets);
    SharedEstimates shared(w);
    for (const char* card : {"h100-sxm5", "a100-sxm4-80gb", "mi300x", "rtx-4090"})
        for (const std::int64_t count : {1, 8, 64}) {
            const Gpu& gpu = resolve_gpu(catalog, card, "test");
            INFO(card << " x " << count);
            const Recommendation with =
                evaluate_plan(w, gpu, count, RankOptions{}, &shared, Detail::Numbers);
            const Recommendation alone =
                evaluate_plan(w, gpu, count, RankOptions{}, nullptr, Detail::Numbers);
            CHECK(with.memory.per_gpu_bytes == alone.memory.per_gpu_bytes);
            CHECK(with.fits == alone.fits);
            CHECK(with.layout == alone.layout);
            CHECK(with.micro_batches == alone.micro_batches);
            REQUIRE(with.layouts.size() == alone.layouts.size());
            for (std::size_t i = 0; i < with.layouts.size(); ++i) {
                CHECK(with.layouts[i].layout == alone.layouts[i].layout);
                CHECK(with.layouts[i].per_gpu_bytes == alone.layouts[i].per_gpu_bytes);
            }
            CHECK(with.performance.train_tokens_per_s == alone.performance.train_tokens_per_s);
        }
    // One estimate per plan shape: asked again, the same one; another
    // sharding or micro-batch count is another shape.
    Workload plan = w;
    plan.gpus = 8;
    plan.parallel = Parallel::Fsdp;
    const MemoryEstimate& first = shared.of(plan);
    CHECK(&shared.of(plan) == &first);
    CHECK(first.per_gpu_bytes == estimate(plan).per_gpu_bytes);
    plan.parallel = Parallel::Zero1;
    CHECK(&shared.of(plan) != &first);
    CHECK(shared.of(plan).per_gpu_bytes == estimate(plan).per_gpu_bytes);
    CHECK(shared.single().per_gpu_bytes > first.per_gpu_bytes);
}
