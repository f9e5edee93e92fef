#include "gpuadvise/attainable.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <memory>
#include <stdexcept>

#include "gpuadvise/error.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {

namespace {

bool is_16bit(RateDtype d) {
    return d == RateDtype::Fp16 || d == RateDtype::Bf16;
}

bool measured_before(const MeasuredRate& a, std::string_view gpu, RateDtype d) {
    return a.gpu != gpu ? a.gpu < gpu : static_cast<int>(a.dtype) < static_cast<int>(d);
}

const MeasuredRate* find_measured(const AttainableData& data, std::string_view gpu, RateDtype d) {
    if (data.measured_sorted) {
        const auto it = std::lower_bound(
            data.measured.begin(), data.measured.end(), gpu,
            [&](const MeasuredRate& m, std::string_view g) { return measured_before(m, g, d); });
        return it != data.measured.end() && it->gpu == gpu && it->dtype == d ? &*it : nullptr;
    }
    for (const MeasuredRate& m : data.measured)
        if (m.gpu == gpu && m.dtype == d) return &m;
    return nullptr;
}

const ReachClass* find_class(const AttainableData& data, std::string_view id) {
    for (const ReachClass& c : data.reach)
        if (c.id == id) return &c;
    return nullptr;
}

double dtype_ratio(const AttainableData& data, RateDtype d) {
    if (is_16bit(d)) return 1.0;
    for (const DtypeRatio& r : data.ratios)
        if (r.dtype == d) return r.ratio;
    return 1.0;  // no card measured in both: the 16-bit share (said by the basis)
}

const PowerEfficiency* find_power(const AttainableData& data, std::string_view key) {
    if (key.empty()) return nullptr;
    for (const PowerEfficiency& p : data.power)
        if (p.key == key) return &p;
    return nullptr;
}

struct AttainableStorage : json::Storage {};

// The coefficients bench/accuracy fits (bench/accuracy_fit.cpp says on what).
constexpr std::array<std::string_view, 9> kSpeedFitNames{
    "training_width",         "training_width_per_ridge", "hf_expert_iteration_s",
    "hf_fp8_linear_s",        "llamacpp_mmq_share",       "metal_llamacpp_bandwidth_share",
    "diffusion_matmul_share", "eager_kernel_s",           "hf_fp8_expert_linear_s"};

std::vector<std::pair<std::string, double>>& overrides() {
    static std::vector<std::pair<std::string, double>> list;
    return list;
}

}  // namespace

std::span<const std::string_view> speed_fit_names() {
    return kSpeedFitNames;
}

double speed_fit(std::string_view name) {
    for (const auto& [key, value] : overrides())
        if (key == name) return value;
    for (const FittedCoefficient& c : embedded::attainable().fit)
        if (c.name == name) return c.value;
    throw std::logic_error("data/attainable.json has no fitted coefficient " + std::string(name));
}

void set_speed_fit_override(std::string_view name, std::optional<double> value) {
    auto& list = overrides();
    std::erase_if(list, [&](const auto& kv) { return kv.first == name; });
    if (value) list.emplace_back(std::string(name), *value);
}

std::string_view chip_of(const Gpu& gpu) {
    // NVIDIA's die names: two capitals and three characters, the first a
    // digit (AD102, GA10B, GH100, TU104); anything else is not a chip name.
    const std::string_view a = gpu.architecture;
    const auto open = a.find('(');
    if (open == std::string_view::npos) return {};
    const std::string_view rest = a.substr(open + 1);
    const std::string_view chip = rest.substr(0, rest.find_first_of(" ,)"));
    const auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (chip.size() != 5 || !upper(chip[0]) || !upper(chip[1]) || !digit(chip[2]) ||
        !digit(chip[3]))
        return {};
    return chip;
}

bool compute_capability_at_least(const Gpu& gpu, int major, int minor) {
    const std::string_view cc = gpu.compute_capability.value_or("");
    const auto dot = cc.find('.');
    if (dot == std::string_view::npos) return false;
    int ma = 0, mi = 0;
    for (const char c : cc.substr(0, dot)) ma = ma * 10 + (c - '0');
    for (const char c : cc.substr(dot + 1)) mi = mi * 10 + (c - '0');
    return ma > major || (ma == major && mi >= minor);
}

bool half_rate_fp32_accumulate(const Gpu& gpu) {
    // Tensor cores with this split from Turing (compute capability 7.5) on.
    return gpu.vendor == Vendor::Nvidia && gpu.segment == Segment::Consumer &&
           compute_capability_at_least(gpu, 7, 5);
}

std::string_view attainable_class(const Gpu& gpu) {
    switch (gpu.vendor) {
        case Vendor::Nvidia:
            if (half_rate_fp32_accumulate(gpu)) return "nvidia-geforce";
            return gpu.segment == Segment::Datacenter ? "nvidia-datacenter" : "nvidia-workstation";
        case Vendor::Amd:
            return gpu.segment == Segment::Datacenter ? "amd-instinct" : "amd-radeon";
        case Vendor::Intel:
            return gpu.platform == SoftwarePlatform::Habana ? "intel-gaudi" : "intel-arc";
        case Vendor::Apple:
            return "apple";
    }
    return "all";
}

std::string family_reach_key(const Gpu& gpu) {
    const bool full_rate = gpu.vendor == Vendor::Nvidia && !half_rate_fp32_accumulate(gpu);
    return std::string(full_rate ? "nvidia-full-rate" : attainable_class(gpu)) + "/" +
           std::string(gpu.arch_family);
}

std::optional<double> peak_tflops(const Gpu& gpu, RateDtype dtype) {
    const Tflops& t = gpu.tflops;
    switch (dtype) {
        case RateDtype::Fp32:
            return t.fp32;
        case RateDtype::Tf32:
            return t.tf32;
        case RateDtype::Fp16:
            return t.fp16 ? t.fp16 : t.bf16;
        case RateDtype::Bf16:
            return t.bf16 ? t.bf16 : t.fp16;
        case RateDtype::Fp8:
            return t.fp8;
        case RateDtype::Int8:
            return t.int8;
    }
    return std::nullopt;
}

AttainableRate attainable_rate(const Gpu& gpu, RateDtype dtype, Accumulate accumulate) {
    return attainable_rate(gpu, dtype, accumulate, embedded::attainable());
}

AttainableRate attainable_rate(const Gpu& gpu, RateDtype dtype, Accumulate accumulate,
                               const AttainableData& data) {
    AttainableRate out;
    out.dtype = dtype;
    const auto peak = peak_tflops(gpu, dtype);
    if (!peak || !(*peak > 0)) return out;  // unknown stays unknown
    out.peak = *peak;
    // FP16 accumulation doubles a GeForce part's 16-bit rate (the catalog has
    // the FP32-accumulate half); elsewhere both run at the same rate.
    const double acc =
        accumulate == Accumulate::Fp16 && is_16bit(dtype) && half_rate_fp32_accumulate(gpu) ? 2.0
                                                                                            : 1.0;
    const auto finish = [&](double rate, double low, double high, RateBasis basis) {
        out.tflops = rate * acc;
        out.low = low * acc;
        out.high = high * acc;
        out.basis = basis;
        return out;
    };
    if (const MeasuredRate* m = find_measured(data, gpu.id, dtype))
        return finish(m->tflops, m->low, m->high, RateBasis::Measured);
    const double ratio = dtype_ratio(data, dtype);
    // The card's measured share in a 16-bit dtype: the same clocks and power
    // sustain its other tensor paths at their own peaks.
    for (const RateDtype other : {RateDtype::Bf16, RateDtype::Fp16}) {
        const MeasuredRate* m = find_measured(data, gpu.id, other);
        const auto other_peak = peak_tflops(gpu, other);
        if (!m || !other_peak || !(*other_peak > 0)) continue;
        const double share = *peak / *other_peak * ratio;
        return finish(m->tflops * share, m->low * share, m->high * share, RateBasis::CardReach);
    }
    const ReachClass* all = find_class(data, "all");
    // The cards of its architecture and accumulate mode where any was
    // measured (the T4 for a Titan RTX), else its class.
    const ReachClass* c = find_class(data, family_reach_key(gpu));
    RateBasis basis = c ? RateBasis::FamilyReach : RateBasis::ClassReach;
    if (!c) c = find_class(data, attainable_class(gpu));
    if (!c) c = all;
    if (!c) return finish(*peak, *peak, *peak, RateBasis::ClassReach);
    double rate = *peak * c->median * ratio;
    double low = *peak * c->low * ratio, high = *peak * c->high * ratio;
    // A family of few cards has a narrow band of its own: it is at least as
    // uncertain as the class the card belongs to.
    if (basis == RateBasis::FamilyReach)
        if (const ReachClass* cls = find_class(data, attainable_class(gpu))) {
            low = std::min(low, *peak * cls->low * ratio);
            high = std::max(high, *peak * cls->high * ratio);
        }
    // A peak the catalog derived with little confidence (from a marketing
    // figure of another precision, say) is uncertain beyond its class: the
    // band is the wider of the class's and every measured card's.
    if (gpu.confidence == Confidence::Low && all) {
        low = std::min(low, *peak * all->low * ratio);
        high = std::max(high, *peak * all->high * ratio);
    }
    // Full-rate parts run at the clock their power allows: no more than the
    // best TFLOPS per watt measured on the same chip (else architecture).
    if (!half_rate_fp32_accumulate(gpu) && gpu.tdp_watts && *gpu.tdp_watts > 0) {
        const PowerEfficiency* p = find_power(data, chip_of(gpu));
        if (!p) p = find_power(data, gpu.arch_family);
        const auto peak16 = peak_tflops(gpu, RateDtype::Bf16);
        if (p && peak16 && *peak16 > 0) {
            const double cap = p->tflops_per_watt * *gpu.tdp_watts * (*peak / *peak16) * ratio;
            if (cap < rate) {
                const double scale = cap / rate;
                rate = cap;
                low *= scale;
                high = std::min(high, cap / c->median * c->high);
                basis = RateBasis::PowerLimited;
            }
        }
    }
    return finish(rate, std::min(low, rate), std::max(high, rate), basis);
}

ParsedAttainable parse_attainable(std::string_view text, std::string_view source) {
    auto storage = std::make_shared<AttainableStorage>();
    storage->text = std::string(text);
    json::Document doc = json::Document::parse(storage->text, source, "the attainable rates");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.str_or("about", "");
    ParsedAttainable out;
    out.source = root.str("source");
    const auto array = [&](const char* key) {
        const json::Value v = root.required(key);
        if (!v.is_array()) root.fail(key, "must be an array");
        return v;
    };
    const json::Value measured = array("measured"), reach = array("reach"),
                      ratios = array("dtype_ratios"), power = array("power"), fit = array("fit");
    root.finish();
    const auto each = [&](const json::Value& list, const char* key, const auto& read) {
        const json::Path top{nullptr, key};
        std::size_t i = 0;
        for (const json::Value v : list.items()) {
            const json::Path path{&top, {}, i++, true};
            json::ObjectReader r(v, source, &path);
            read(r, path);
            r.finish();
        }
    };
    const auto dtype = [&](json::ObjectReader& r, const json::Path& path) {
        return kRateDtypes.parse(r.str("dtype"), fmt::format("{}: {}/dtype", source, path.str()));
    };
    each(measured, "measured", [&](json::ObjectReader& r, const json::Path& path) {
        MeasuredRate m;
        m.gpu = r.str("gpu");
        m.dtype = dtype(r, path);
        m.tflops = r.number("tflops", 0.001, 1e6);
        m.low = r.number("low", 0.001, 1e6);
        m.high = r.number("high", 0.001, 1e6);
        m.rows = r.integer("rows", 1, 1'000'000);
        m.ids = r.str("ids");
        if (m.low > m.tflops || m.tflops > m.high) r.fail("tflops", "must lie in [low, high]");
        // Kept in (gpu, dtype) order (AttainableData::measured_sorted).
        const auto at = std::lower_bound(out.measured.begin(), out.measured.end(), m,
                                         [](const MeasuredRate& a, const MeasuredRate& b) {
                                             return measured_before(a, b.gpu, b.dtype);
                                         });
        if (at != out.measured.end() && at->gpu == m.gpu && at->dtype == m.dtype)
            r.fail("gpu", "appears twice for the dtype");
        out.measured.insert(at, m);
    });
    each(reach, "reach", [&](json::ObjectReader& r, const json::Path&) {
        ReachClass c;
        c.id = r.str("class");
        c.median = r.number("median", 0.01, 10);
        c.low = r.number("low", 0.01, 10);
        c.high = r.number("high", 0.01, 10);
        c.cards = r.integer("cards", 1, 1'000'000);
        if (c.low > c.median || c.median > c.high) r.fail("median", "must lie in [low, high]");
        out.reach.push_back(c);
    });
    each(ratios, "dtype_ratios", [&](json::ObjectReader& r, const json::Path& path) {
        DtypeRatio d;
        d.dtype = dtype(r, path);
        d.ratio = r.number("ratio", 0.01, 10);
        d.cards = r.integer("cards", 1, 1'000'000);
        out.ratios.push_back(d);
    });
    each(power, "power", [&](json::ObjectReader& r, const json::Path&) {
        PowerEfficiency p;
        p.key = r.str("key");
        p.tflops_per_watt = r.number("tflops_per_watt", 0.001, 100);
        p.cards = r.integer("cards", 1, 1'000'000);
        p.gpus = r.str("gpus");
        out.power.push_back(p);
    });
    each(fit, "fit", [&](json::ObjectReader& r, const json::Path&) {
        FittedCoefficient c;
        c.name = r.str("name");
        c.value = r.number("value", -1e9, 1e9);
        c.rows = r.integer("rows", 0, 1'000'000);
        c.what = r.str("what");
        out.fit.push_back(c);
    });
    if (!find_class(out.view(), "all"))
        throw InputError(fmt::format("{}: reach: must hold the class \"all\"", source));
    storage->strings = std::move(doc).take_strings();
    out.storage = std::move(storage);
    return out;
}

}  // namespace gpuadvise
