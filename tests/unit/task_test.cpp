#include <catch2/catch.hpp>

#include "gpuadvise/build_sheet.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/embedded.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/rank.hpp"
#include "gpuadvise/task.hpp"

using namespace gpuadvise;

namespace {

Workload task_workload(const TaskPreset& t) {
    WorkloadRequest r;
    if (t.model) {
        r.model = t.model;
        r.method = t.method;
    } else {
        r.fixed_bytes = t.requirements.min_memory_bytes;
        r.fixed_label = t.id;
    }
    return resolve_workload(r, {});
}

}  // namespace

TEST_CASE("every fitting recommendation of each document task row satisfies the row's constraints") {
    const Catalog& catalog = embedded::catalog();
    for (const TaskPreset& t : task_presets()) {
        INFO(t.id);
        RankOptions options;
        options.task = t.requirements;
        const auto recs = rank(task_workload(t), catalog, options);
        std::size_t fitting = 0;
        for (const auto& r : recs) {
            if (!r.fits) continue;
            ++fitting;
            INFO(r.gpu->id);
            CHECK(r.gpu->memory_bytes >= t.requirements.min_memory_bytes);
            CHECK(r.gpu->memory_bandwidth_gbps >= t.requirements.min_bandwidth_gbps);
            if (t.requirements.needs_nvlink) CHECK(r.gpu->interconnect_type != "none");
            if (t.requirements.needs_av1) CHECK(r.gpu->av1_encode.value_or(false));
            CHECK(r.memory.per_gpu_bytes <= r.usable_bytes);
        }
        CHECK(fitting > 0);
    }
}

TEST_CASE("task rows reject the cards the document's constraints exclude") {
    const Catalog& catalog = embedded::catalog();
    RankOptions video;
    video.task = find_task("video").requirements;
    const Recommendation a100 =
        evaluate_plan(task_workload(find_task("video")), resolve_gpu(catalog, "nvidia-a100-80gb-sxm"), 1, video);
    CHECK_FALSE(a100.fits);  // no hardware AV1 encoder
    const Recommendation flex = evaluate_plan(task_workload(find_task("video")), resolve_gpu(catalog, "flex-170"), 1, video);
    CHECK(flex.fits);
    RankOptions full13;
    full13.task = find_task("full-13b").requirements;
    const Recommendation rtx = evaluate_plan(task_workload(find_task("full-13b")), resolve_gpu(catalog, "4090"), 8, full13);
    CHECK_FALSE(rtx.fits);  // 24 GB < 40 GB, no NVLink, 1008 GB/s < 1500 GB/s
    CHECK_THROWS_WITH(find_task("full-13"), Catch::Contains("did you mean 'full-13b'"));
}

TEST_CASE("a task without a model takes no model flags") {
    WorkloadRequest r;
    r.fixed_bytes = 12'000'000'000ULL;
    r.fixed_label = "sdxl";
    r.model = "8B";
    CHECK_THROWS_WITH(resolve_workload(r, {}), Catch::Contains("not a language-model workload"));
}

TEST_CASE("the build sheet generalises the document's 850 W rule") {
    const Catalog& catalog = embedded::catalog();
    const BuildSheet one = build_sheet(resolve_gpu(catalog, "4090"), 1);
    REQUIRE(one.psu_watts);
    CHECK(*one.psu_watts == 850);  // document §4: a 450 W RTX 4090 wants an 850 W supply
    CHECK(one.slots == 1);
    const BuildSheet two = build_sheet(resolve_gpu(catalog, "4090"), 2);
    CHECK(*two.psu_watts > 850);
    CHECK(two.slots == 2);
    const BuildSheet hgx = build_sheet(resolve_gpu(catalog, "h100-sxm5"), 8);
    CHECK_FALSE(hgx.psu_watts);
    CHECK(hgx.slots == 0);
    CHECK_THAT(hgx.power_note, Catch::Contains("server power"));
    CHECK_THAT(hgx.software, Catch::Contains("compute capability 9.0"));
}
