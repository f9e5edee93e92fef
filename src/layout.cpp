#include "gpuadvise/layout.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gpuadvise/error.hpp"

namespace gpuadvise {

std::string layout_label(const Layout& l) {
    std::string out;
    const auto add = [&](std::string_view name, std::int64_t v) {
        if (v > 1) out += fmt::format("{}{}{}", out.empty() ? "" : " ", name, v);
    };
    add("tp", l.tp);
    add("cp", l.cp);
    add("pp", l.pp);
    if (l.pp > 1 && l.vpp > 1) out += fmt::format(" (vpp{})", l.vpp);
    add("dp", l.dp);
    add("ep", l.ep);
    return out.empty() ? "dp1" : out;
}

std::string layout_problem(const Architecture& a, std::int64_t seq, const Layout& l) {
    const std::int64_t layers = std::max<std::int64_t>(a.total_layers(), 1);
    if (l.tp > 1 && a.heads > 0 && a.heads % l.tp != 0)
        return fmt::format("tensor parallel {} does not divide the {} attention heads", l.tp,
                           a.heads);
    if (l.tp > 1 && a.kv_heads > 0 && a.kv_heads % l.tp != 0)
        return fmt::format("tensor parallel {} does not divide the {} KV heads", l.tp, a.kv_heads);
    if (l.pp > layers)
        return fmt::format("pipeline parallel {} is more stages than the model's {} layers", l.pp,
                           layers);
    if (l.vpp > 1 && (l.pp < 2 || layers < l.pp * l.vpp))
        return fmt::format(
            "interleaving {} chunks over {} pipeline stages needs at least {} layers (the model "
            "has {})",
            l.vpp, l.pp, l.pp * l.vpp, layers);
    if (l.cp > 1 && seq % (2 * l.cp) != 0)
        return fmt::format(
            "context parallel {} splits each sequence into {} chunks; {} tokens do not divide",
            l.cp, 2 * l.cp, seq);
    if (l.ep > 1 && !a.is_moe())
        return fmt::format("expert parallel {} needs a mixture-of-experts model", l.ep);
    if (l.ep > 1 && a.experts % l.ep != 0)
        return fmt::format("expert parallel {} does not divide the {} experts", l.ep, a.experts);
    if (l.ep > 1 && (l.dp * l.cp) % l.ep != 0)
        return fmt::format("expert parallel {} does not divide data x context parallel {}", l.ep,
                           l.dp * l.cp);
    return {};
}

namespace {

std::vector<std::int64_t> divisors(std::int64_t n, std::int64_t most) {
    std::vector<std::int64_t> out;
    for (std::int64_t d = 1; d <= std::min(n, most); ++d)
        if (n % d == 0) out.push_back(d);
    return out;
}

std::vector<std::int64_t> powers_of_two(std::int64_t most) {
    std::vector<std::int64_t> out;
    for (std::int64_t v = 1; v <= most; v *= 2) out.push_back(v);
    return out;
}

std::vector<std::int64_t> choices(const std::optional<std::int64_t>& fixed,
                                  std::vector<std::int64_t> free) {
    if (fixed) return {*fixed};
    return free;
}

}  // namespace

std::vector<Layout> candidate_layouts(const Architecture& a, std::int64_t seq, std::int64_t count,
                                      std::int64_t domain, const LayoutRequest& fixed) {
    std::vector<Layout> out;
    if (count < 1) return out;
    const std::int64_t layers = std::max<std::int64_t>(a.total_layers(), 1);
    // Tensor parallel beyond the NVLink domain would put every layer's
    // all-reduces on the fabric; no published run does.
    const auto tps = choices(fixed.tp, powers_of_two(std::min<std::int64_t>(domain, 8)));
    // Context parallel for long sequences only: each rank keeps at least 8K
    // tokens (Llama 3's 131K context ran cp 16).
    const auto cps = choices(fixed.cp, seq >= 16384 ? powers_of_two(seq / 8192) : std::vector{1L});
    const auto vpps = choices(fixed.vpp, {1, 2, 4});
    for (const std::int64_t tp : tps)
        for (const std::int64_t cp : cps) {
            if (count % (tp * cp) != 0) continue;
            const std::int64_t rest = count / (tp * cp);
            for (const std::int64_t pp :
                 choices(fixed.pp, divisors(rest, std::min(layers, 128L)))) {
                if (rest % pp != 0) continue;
                const std::int64_t dp = rest / pp;
                const auto eps = choices(
                    fixed.ep, a.is_moe()
                                  ? powers_of_two(std::min<std::int64_t>({a.experts, dp * cp, 64}))
                                  : std::vector{1L});
                for (const std::int64_t ep : eps)
                    for (const std::int64_t vpp : vpps) {
                        if (vpp > 1 && pp < 2) continue;
                        const Layout l{tp, pp, cp, ep, dp, vpp};
                        if (layout_problem(a, seq, l).empty()) out.push_back(l);
                    }
            }
        }
    return out;
}

Layout requested_layout_sizes(const LayoutRequest& fixed) {
    Layout l;
    l.tp = fixed.tp.value_or(1);
    l.pp = fixed.pp.value_or(1);
    l.cp = fixed.cp.value_or(1);
    l.ep = fixed.ep.value_or(1);
    l.vpp = fixed.vpp.value_or(1);
    return l;
}

Layout requested_layout(const Architecture& a, std::int64_t seq, std::int64_t count,
                        const LayoutRequest& fixed, std::string_view what) {
    Layout l = requested_layout_sizes(fixed);
    const std::int64_t split = l.tp * l.pp * l.cp;
    if (count % split != 0)
        throw InputError(fmt::format(
            "{}: tp {} x cp {} x pp {} = {} does not divide {} GPUs; choose sizes whose product "
            "divides the GPU count",
            what, l.tp, l.cp, l.pp, split, count));
    l.dp = count / split;
    if (const std::string why = layout_problem(a, seq, l); !why.empty())
        throw InputError(fmt::format("{}: {}; choose another size", what, why));
    return l;
}

double routed_expert_share(const Architecture& a) {
    if (!a.is_moe()) return 0.0;
    const ParamCounts counts = count_params(a);
    return counts.total() > 0
               ? static_cast<double>(counts.routed_experts) / static_cast<double>(counts.total())
               : 0.0;
}

std::int64_t stage_layers(const Architecture& a, const Layout& l) {
    const std::int64_t layers = std::max<std::int64_t>(a.total_layers(), 1);
    const std::int64_t chunks = std::max<std::int64_t>(l.pp, 1) * std::max<std::int64_t>(l.vpp, 1);
    return (layers + chunks - 1) / chunks * std::max<std::int64_t>(l.vpp, 1);
}

}  // namespace gpuadvise
