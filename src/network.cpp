#include "gpuadvise/network.hpp"

#include <fmt/format.h>

#include "gpuadvise/error.hpp"
#include "gpuadvise/json.hpp"
#include "gpuadvise/names.hpp"
#include "gpuadvise/text.hpp"

namespace gpuadvise {

std::vector<Network> parse_networks(std::string_view text, std::string_view source) {
    const std::string owned(text);
    json::Document doc = json::Document::parse(owned, source, "a JSON list of networks");
    json::ObjectReader root(doc.root(), source);
    root.opt_integer("schema", 1, 1);
    root.str_or("about", "");
    const json::Value list = root.required("networks");
    if (!list.is_array()) root.fail("networks", "must be an array");
    root.finish();
    std::vector<Network> out;
    const json::Path top{nullptr, "networks"};
    std::size_t i = 0;
    for (const json::Value v : list.items()) {
        const json::Path path{&top, {}, i++, true};
        json::ObjectReader r(v, source, &path);
        Network n;
        n.id = std::string(r.str("id"));
        n.name = std::string(r.str("name"));
        n.per_gpu_gbps = r.number("per_gpu_gbps", 0.1, 10'000);
        n.source = std::string(r.str("source"));
        r.finish();
        for (const Network& earlier : out)
            if (earlier.id == n.id) r.fail("id", fmt::format("repeats the id '{}'", n.id));
        out.push_back(std::move(n));
    }
    if (out.empty()) root.fail("networks", "must list at least one network");
    return out;
}

std::span<const Network> networks() {
    static const std::vector<Network> rows =
        parse_networks(embedded::networks_json(), "embedded data/networks.json");
    return rows;
}

std::vector<std::string> network_choices() {
    std::vector<std::string> out;
    for (const Network& n : networks()) out.push_back(n.id);
    return out;
}

const Network& parse_network(std::string_view text, std::string_view what) {
    const std::string id = parse_choice(text, what, network_choices());
    for (const Network& n : networks())
        if (n.id == id) return n;
    throw InputError(fmt::format("{} {}: no such network", what, quote(text)));
}

const Network& default_network() {
    static const Network& n = parse_network(kDefaultNetwork, "the default network");
    return n;
}

std::optional<NodeLayout> choose_nodes(const Gpu& gpu, std::int64_t count,
                                       std::optional<std::int64_t> per_node) {
    for (const HostPlatform& p : host_platforms()) {
        if (p.kind != PlatformKind::Server && p.kind != PlatformKind::Baseboard) continue;
        const std::int64_t node = per_node.value_or(p.max_gpus);
        if (node < 1 || node > p.max_gpus || count <= node || count % node != 0) continue;
        if (!p.holds(gpu, node)) continue;
        return NodeLayout{&p, count / node, node};
    }
    return std::nullopt;
}

}  // namespace gpuadvise
