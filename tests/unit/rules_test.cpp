// Every rule of the registry has a case where it fires and one where it stays
// quiet; a rule added without both fails this test.
#include "gpuadvise/rules.hpp"

#include <catch2/catch.hpp>
#include <functional>
#include <map>

#include "gpuadvise/embedded.hpp"
#include "gpuadvise/task.hpp"
#include "support/request.hpp"

using namespace gpuadvise;

namespace {

// A plain card: 24 GiB, CUDA, PCIe 4.0 x16, consumer, with bf16 and fp8 paths.
Gpu card() {
    Gpu g;
    g.id = "test-card";
    g.name = "Test Card";
    g.memory_bytes = 24ULL << 30U;
    g.memory_bandwidth_gbps = 1000;
    g.arch_family = "ada";
    g.tflops.bf16 = 100;
    g.tflops.fp16 = 100;
    g.tflops.fp8 = 200;
    g.pcie_gen = 4;
    g.pcie_lanes = 16;
    g.tdp_watts = 300;
    g.price = Price{1000, PriceKind::Msrp, "2025-01", "t"};
    g.ecc = false;
    g.av1_encode = true;
    return g;
}

const HostPlatform& desktop() {
    return host_platforms().front();
}

struct Case {
    Workload workload;
    Gpu gpu = card();
    std::uint64_t usable = 24ULL << 30U;
    const TaskRequirements* task = nullptr;
    std::optional<double> budget = std::nullopt;
    double price = 1000;
    const HostPlatform* platform = &desktop();
    const HostPlatform* forced_platform = nullptr;
    // The software the plan needs: its engine by default (rank.cpp's software_needs).
    std::vector<SoftwareNeed> software = {};
    std::optional<OffloadPlan> offload = std::nullopt;
    std::optional<std::uint64_t> host_ram = std::nullopt;
    JobOptions job = {};
    Os os = Os::Linux;
    std::int64_t nodes = 1;  // servers joined by a fabric
};

bool fires(const std::string& id, const Case& c) {
    const MemoryEstimate m = estimate(c.workload);
    const Performance p =
        estimate_performance(c.workload, m, c.gpu, c.job, std::nullopt, nullptr, c.usable);
    std::vector<SoftwareNeed> software = c.software;
    if (software.empty() && c.workload.engine)
        software.push_back({c.workload.engine, QuantFamily::None});
    PlanContext ctx{c.workload,
                    c.gpu,
                    m,
                    p,
                    c.usable,
                    c.task,
                    c.budget,
                    c.price,
                    true,
                    c.platform,
                    c.forced_platform,
                    software,
                    nullptr,
                    std::nullopt,
                    nullptr,
                    false,
                    c.nodes};
    ctx.offload = c.offload ? &*c.offload : nullptr;
    ctx.host_ram = c.host_ram;
    ctx.deadline_hours = c.job.deadline_hours;
    ctx.os = c.os;
    for (const auto& hit : evaluate_rules(ctx)) {
        if (hit.id != id) continue;
        CHECK_FALSE(hit.message.empty());
        return true;
    }
    return false;
}

Workload w(test::Values v) {
    return test::workload(v);
}

const TaskRequirements kBig{"big", 40'000'000'000ULL, 2000, true, true};

struct Pair {
    std::function<Case()> fires, quiet;
};

std::map<std::string, Pair> cases() {
    std::map<std::string, Pair> m;
    const auto small = [] { return w({{Field::Model, "1B"}}); };
    m["memory-fit"] = {[] {
                           return Case{w({{Field::Model, "70B"}})};
                       },
                       [&] { return Case{small()}; }};
    m["precision-bf16"] = {[&] {
                               Case c{small()};
                               c.gpu.tflops.bf16.reset();
                               c.gpu.arch_family = "turing";
                               return c;
                           },
                           [&] { return Case{small()}; }};
    m["precision-fp8"] = {[] {
                              Case c{w({{Field::Model, "1B"}, {Field::Quant, "fp8"}})};
                              c.gpu.tflops.fp8.reset();
                              return c;
                          },
                          [] {
                              return Case{w({{Field::Model, "1B"}, {Field::Quant, "fp8"}})};
                          }};
    // vLLM's FP8 Marlin: an Ampere card (compute capability 8.0, no FP8 path)
    // runs FP8 weights as weight-only FP8; an Ada card runs them natively.
    m["fp8-weight-only"] = {[] {
                                Case c{w({{Field::Model, "1B"}, {Field::Quant, "fp8"}})};
                                c.gpu.tflops.fp8.reset();
                                c.gpu.compute_capability = "8.0";
                                return c;
                            },
                            [] {
                                Case c{w({{Field::Model, "1B"}, {Field::Quant, "fp8"}})};
                                c.gpu.compute_capability = "8.9";
                                return c;
                            }};
    m["windows-sysmem-fallback"] = {
        [&] {
            Case c{small()};
            c.usable = estimate(c.workload).per_gpu_bytes + (1ULL << 20U);
            c.os = Os::Windows;
            return c;
        },
        [&] {
            Case c{small()};  // the same tight plan on Linux
            c.usable = estimate(c.workload).per_gpu_bytes + (1ULL << 20U);
            return c;
        }};
    m["interconnect-domain"] = {
        [] {
            return Case{w({{Field::Model, "1B"}, {Field::Gpus, "16"}, {Field::Parallel, "tp"}})};
        },
        [] {
            return Case{w({{Field::Model, "1B"}, {Field::Gpus, "8"}, {Field::Parallel, "pp"}})};
        }};
    // Two servers of NVIDIA consumer cards are a cluster; one is a box.
    m["geforce-datacenter"] = {[] {
                                   Case c{w({{Field::Model, "1B"}, {Field::Gpus, "16"}})};
                                   c.gpu.vendor = Vendor::Nvidia;
                                   c.gpu.segment = Segment::Consumer;
                                   c.nodes = 2;
                                   return c;
                               },
                               [] {
                                   Case c{w({{Field::Model, "1B"}, {Field::Gpus, "8"}})};
                                   c.gpu.vendor = Vendor::Nvidia;
                                   c.gpu.segment = Segment::Consumer;
                                   return c;
                               }};
    m["task-memory"] = {[&] {
                            Case c{small()};
                            c.task = &kBig;
                            return c;
                        },
                        [&] { return Case{small()}; }};
    m["task-bandwidth"] = m["task-memory"];
    m["task-nvlink"] = m["task-memory"];
    m["feature-av1"] = {[&] {
                            Case c{small()};
                            c.task = &kBig;
                            c.gpu.av1_encode = false;
                            return c;
                        },
                        [&] {
                            Case c{small()};
                            c.task = &kBig;
                            return c;
                        }};
    // Video: resnet50 on 12 streams at 30 fps, encoded in HEVC or AV1.
    const auto video = [](const char* streams, const char* codec) {
        return test::workload(
            {{Field::Model, "resnet50"}, {Field::Streams, streams}, {Field::Codec, codec}},
            embedded::model_presets());
    };
    m["video-encoder"] = {[&] {
                              Case c{video("2", "hevc")};
                              c.gpu.nvenc = 0;  // an A100: no NVENC
                              return c;
                          },
                          [&] {
                              Case c{video("2", "hevc")};
                              c.gpu.nvenc = 1;
                              return c;
                          }};
    m["video-sessions"] = {[&] {
                               Case c{video("12", "hevc")};
                               c.gpu.vendor = Vendor::Nvidia;
                               c.gpu.segment = Segment::Consumer;
                               return c;
                           },
                           [&] {
                               Case c{video("12", "hevc")};
                               c.gpu.vendor = Vendor::Nvidia;
                               c.gpu.segment = Segment::Datacenter;
                               return c;
                           }};
    m["video-throughput"] = {[&] {
                                 Case c{video("5000", "hevc")};  // 150,000 frames/s
                                 return c;
                             },
                             [&] { return Case{video("2", "hevc")}; }};
    m["budget"] = {[&] {
                       Case c{small()};
                       c.budget = 500;
                       return c;
                   },
                   [&] {
                       Case c{small()};
                       c.budget = 5000;
                       return c;
                   }};
    // A LoRA job of `tokens` on the test card, with an optional deadline.
    const auto job = [](double tokens, std::optional<double> deadline_hours) {
        Case c{w({{Field::Model, "1B"}, {Field::Method, "lora"}})};
        c.job.tokens = tokens;
        c.job.deadline_hours = deadline_hours;
        return c;
    };
    m["deadline"] = {[=] { return job(1e12, 24.0); }, [=] { return job(1e12, 1e9); }};
    // 1B on a 1 TB/s card decodes a few hundred tokens a second: no session
    // gets a token a millisecond, every one gets five a second.
    m["latency"] = {
        [] {
            return Case{w({{Field::Model, "1B"}, {Field::Users, "8"}, {Field::Tpot, "1ms"}})};
        },
        [] {
            return Case{w({{Field::Model, "1B"},
                           {Field::Users, "2"},
                           {Field::TokSPerUser, "5"},
                           {Field::Ttft, "10s"}})};
        }};
    m["long-job"] = {[=] { return job(1e13, std::nullopt); },
                     [=] { return job(1e6, std::nullopt); }};
    // A 720p clip of the 14B model takes hours on a 100-TFLOPS card; the
    // 1.3B model's 480p clip minutes.
    m["slow-output"] = {[] {
                            return Case{test::workload({{Field::Model, "wan2.1-t2v-14b"},
                                                        {Field::Frames, "81"},
                                                        {Field::Resolution, "1280x720"}},
                                                       embedded::model_presets())};
                        },
                        [] {
                            return Case{test::workload({{Field::Model, "wan2.1-t2v-1.3b"},
                                                        {Field::Frames, "81"},
                                                        {Field::Resolution, "832x480"}},
                                                       embedded::model_presets())};
                        }};
    m["pcie-allreduce"] = {
        [] {
            return Case{w({{Field::Model, "13B"}, {Field::Method, "full"}, {Field::Gpus, "4"}})};
        },
        [] {
            return Case{w({{Field::Model, "7B"}, {Field::Method, "full"}, {Field::Gpus, "4"}})};
        }};
    // Two cards training over PCIe: the test card states no peer-to-peer;
    // a card whose catalog says (GeForce: none) is quiet.
    m["p2p-unknown"] = {
        [] {
            return Case{w({{Field::Model, "1B"}, {Field::Method, "lora"}, {Field::Gpus, "2"}})};
        },
        [] {
            Case c{w({{Field::Model, "1B"}, {Field::Method, "lora"}, {Field::Gpus, "2"}})};
            c.gpu.pcie_p2p = false;
            return c;
        }};
    m["pcie-x8"] = {[] {
                        Case c{w({{Field::Model, "1B"}, {Field::Method, "qlora"}})};
                        c.gpu.pcie_lanes = 8;
                        return c;
                    },
                    [] {
                        return Case{w({{Field::Model, "1B"}, {Field::Method, "qlora"}})};
                    }};
    m["platform-holds"] = {[&] {
                               Case c{small()};
                               c.platform = nullptr;
                               return c;
                           },
                           [&] { return Case{small()}; }};
    m["software-runs"] = {[&] {
                              Case c{small()};  // vLLM, the default engine, on Metal
                              c.gpu.platform = SoftwarePlatform::Metal;
                              return c;
                          },
                          [&] { return Case{small()}; }};
    m["software-caveat"] = {[&] {
                                Case c{small()};  // vLLM on Intel XPU is a preview
                                c.gpu.platform = SoftwarePlatform::Oneapi;
                                return c;
                            },
                            [&] { return Case{small()}; }};
    m["more-cards"] = {
        [] {
            return Case{w({{Field::Model, "1B"}, {Field::Gpus, "2"}, {Field::Parallel, "pp"}})};
        },
        [&] { return Case{small()}; }};
    m["paged-optimizer"] = {[] {
                                // 1B full fine-tune with paged AdamW: 8 GB of state, 1 GiB to
                                // spare.
                                Case c{w({{Field::Model, "1B"},
                                          {Field::Method, "full"},
                                          {Field::Optimizer, "paged-adamw-32bit"}})};
                                c.usable = estimate(c.workload).per_gpu_bytes + (1ULL << 30U);
                                return c;
                            },
                            [] {
                                // The same run with room for its paged state beside the rest.
                                Case c{w({{Field::Model, "1B"},
                                          {Field::Method, "full"},
                                          {Field::Optimizer, "paged-adamw-32bit"}})};
                                const MemoryEstimate est = estimate(c.workload);
                                c.usable =
                                    est.per_gpu_bytes + est.paged_optimizer_bytes + (1ULL << 30U);
                                return c;
                            }};
    // 70B Q4_K_M with 40 of 80 layers on the card.
    const auto offloaded = [] {
        Case c{w({{Field::Model, "70B"}, {Field::Quant, "q4_k_m"}, {Field::Engine, "llama.cpp"}})};
        c.offload = plan_offload(c.workload, estimate(c.workload), 24ULL << 30U, 1,
                                 {OffloadKind::Layers, 40});
        return c;
    };
    m["host-memory"] = {[=] {
                            Case c = offloaded();
                            c.host_ram = 16ULL << 30U;  // 20 GiB of layers do not fit in 16 GiB
                            return c;
                        },
                        [=] {
                            Case c = offloaded();
                            c.host_ram = 64ULL << 30U;
                            return c;
                        }};
    m["partial-offload"] = {offloaded, [] {
                                Case c{w({{Field::Model, "1B"}, {Field::Engine, "llama.cpp"}})};
                                c.offload = plan_offload(c.workload, estimate(c.workload),
                                                         24ULL << 30U, 1, {OffloadKind::Auto, 0});
                                return c;
                            }};
    m["thin-headroom"] = {[&] {
                              Case c{small()};
                              c.usable = estimate(c.workload).per_gpu_bytes + (1ULL << 20U);
                              return c;
                          },
                          [&] { return Case{small()}; }};
    m["stack-maturity"] = {[&] {
                               Case c{small()};
                               c.gpu.platform = SoftwarePlatform::Rocm;
                               return c;
                           },
                           [&] { return Case{small()}; }};
    m["no-ecc-serving"] = {[&] { return Case{small()}; },
                           [&] {
                               Case c{small()};
                               c.gpu.ecc = true;
                               return c;
                           }};
    m["bnb-backend"] = {[] {
                            Case c{w({{Field::Model, "1B"}, {Field::Method, "qlora"}})};
                            c.gpu.platform = SoftwarePlatform::Rocm;
                            return c;
                        },
                        [] {
                            return Case{w({{Field::Model, "1B"}, {Field::Method, "qlora"}})};
                        }};
    m["unified-memory"] = {[&] {
                               Case c{small()};
                               c.gpu.vendor = Vendor::Apple;
                               c.gpu.form = FormFactor::Soc;
                               return c;
                           },
                           [&] { return Case{small()}; }};
    m["no-price"] = {[&] {
                         Case c{small()};
                         c.gpu.price.reset();
                         return c;
                     },
                     [&] { return Case{small()}; }};
    // PyTorch's allocator tip on a plan that runs on it; the context tip on
    // vLLM, which reserves its memory up front; each quiet on the other's plan.
    const auto thin = [](Workload wl) {
        Case c{std::move(wl)};
        c.usable = estimate(c.workload).per_gpu_bytes + (1ULL << 20U);
        return c;
    };
    m["alloc-conf"] = {[=] {
                           return thin(w({{Field::Model, "1B"}, {Field::Engine, "transformers"}}));
                       },
                       [=] {
                           return thin(w({{Field::Model, "1B"}, {Field::Engine, "vllm"}}));
                       }};
    m["shrink-context"] = {[=] {
                               return thin(w({{Field::Model, "1B"}, {Field::Engine, "llama.cpp"}}));
                           },
                           [=] {
                               return thin(w({{Field::Model, "1B"}, {Field::Method, "lora"}}));
                           }};
    m["prefer-bf16"] = {
        [] {
            return Case{
                w({{Field::Model, "1B"}, {Field::Method, "lora"}, {Field::Precision, "fp16"}})};
        },
        [] {
            return Case{
                w({{Field::Model, "1B"}, {Field::Method, "lora"}, {Field::Precision, "bf16"}})};
        }};
    m["pinned-memory"] = {[] {
                              Case c{w({{Field::Model, "1B"}, {Field::Method, "lora"}})};
                              c.gpu.memory_bandwidth_gbps = 300;
                              return c;
                          },
                          [] {
                              return Case{w({{Field::Model, "1B"}, {Field::Method, "lora"}})};
                          }};
    const auto platform = [&](SoftwarePlatform p) {
        return Pair{[=] {
                        Case c{small()};
                        c.gpu.platform = p;
                        return c;
                    },
                    [&] { return Case{small()}; }};
    };
    m["ecosystem-rocm"] = platform(SoftwarePlatform::Rocm);
    m["ecosystem-oneapi"] = platform(SoftwarePlatform::Oneapi);
    m["ecosystem-metal"] = platform(SoftwarePlatform::Metal);
    return m;
}

}  // namespace

TEST_CASE("every rule fires on its case and stays quiet on its neighbour") {
    const auto all = cases();
    for (const Rule& r : rule_registry()) {
        const std::string id(r.id);
        INFO(id);
        const auto it = all.find(id);
        REQUIRE(it != all.end());  // a new rule needs a case here
        CHECK(fires(id, it->second.fires()));
        CHECK_FALSE(fires(id, it->second.quiet()));
    }
    CHECK(all.size() == rule_registry().size());
}

TEST_CASE("rules only decide while ranking, and messages are formatted when described") {
    const Workload wl = w({{Field::Model, "70B"}});
    const MemoryEstimate m = estimate(wl);
    const Performance p = estimate_performance(wl, m, card());
    const Gpu g = card();
    const PlanContext quiet{
        wl,    g,          m,       p,  24ULL << 30U, nullptr,      std::nullopt, 1000,
        false, &desktop(), nullptr, {}, nullptr,      std::nullopt, nullptr,      false};
    const auto hits = evaluate_rules(quiet);
    REQUIRE_FALSE(hits.empty());
    for (const auto& h : hits) CHECK(h.message.empty());
}

TEST_CASE("score rules carry their factor from data/rules.json") {
    for (const Rule& r : rule_registry())
        if (r.kind == RuleKind::Score) CHECK(rule_data(r.id).get("score_factor") < 1.0);
    CHECK(rule_data("thin-headroom").get("min_headroom_share") == Approx(0.1));
}

TEST_CASE("FP8 weights on Ampere are weight-only FP8 with vLLM, refused below its kernel") {
    const auto fp8 = [] { return Case{w({{Field::Model, "1B"}, {Field::Quant, "fp8"}})}; };
    Case ampere = fp8();
    ampere.gpu.tflops.fp8.reset();
    ampere.gpu.compute_capability = "8.0";
    CHECK_FALSE(fires("precision-fp8", ampere));
    CHECK(fires("fp8-weight-only", ampere));
    Case volta = ampere;  // vLLM's FP8 Marlin needs compute capability 7.5
    volta.gpu.compute_capability = "7.0";
    CHECK(fires("precision-fp8", volta));
    CHECK_FALSE(fires("fp8-weight-only", volta));
    // An FP8 KV cache needs the FP8 path itself: no weight-only way round it.
    Case kv{w({{Field::Model, "1B"}, {Field::KvDtype, "fp8"}})};
    kv.gpu.tflops.fp8.reset();
    kv.gpu.compute_capability = "8.0";
    CHECK(fires("precision-fp8", kv));
}

TEST_CASE("an image model's FP8 weights are storage, upcast per forward on any card") {
    // FLUX in FP8 on a Volta or Ampere card: diffusers' layerwise casting and
    // ComfyUI cast each weight to the compute dtype; no FP8 path is needed.
    Case flux{test::workload({{Field::Model, "flux-dev"}, {Field::Quant, "fp8"}},
                             embedded::model_presets())};
    REQUIRE(flux.workload.is_diffusion());
    flux.gpu.tflops.fp8.reset();
    flux.gpu.compute_capability = "7.0";
    CHECK_FALSE(fires("precision-fp8", flux));
    // A language model's FP8 weights on that card still have no kernel.
    Case llm{w({{Field::Model, "1B"}, {Field::Quant, "fp8"}})};
    llm.gpu = flux.gpu;
    CHECK(fires("precision-fp8", llm));
}

TEST_CASE("Windows warns of the driver's shared-memory fallback only on NVIDIA cards") {
    Case c{w({{Field::Model, "1B"}})};
    c.usable = estimate(c.workload).per_gpu_bytes + (1ULL << 20U);
    c.os = Os::Windows;
    CHECK(fires("windows-sysmem-fallback", c));
    c.gpu.vendor = Vendor::Amd;
    CHECK_FALSE(fires("windows-sysmem-fallback", c));
    Case roomy{w({{Field::Model, "1B"}})};
    roomy.os = Os::Windows;
    CHECK_FALSE(fires("windows-sysmem-fallback", roomy));
}
