#pragma once
// Fabrics that join the nodes of a multi-node plan (data/networks.json) and
// how a plan beyond one server is laid out in nodes.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/platform.hpp"

namespace gpuadvise {

struct Network {
    std::string id;
    std::string name;
    double per_gpu_gbps = 0;  // GB/s per direction per GPU
    std::string source;
};

std::vector<Network> parse_networks(std::string_view text, std::string_view source);
std::span<const Network> networks();  // the embedded data/networks.json
// A network by id; throws InputError with a did-you-mean naming `what`.
const Network& parse_network(std::string_view text, std::string_view what);
std::vector<std::string> network_choices();
// The fabric a multi-node plan gets when --network is not given: NDR
// InfiniBand, the common fabric of H100/H200-class clusters (stated in the
// plan's reasons as an assumption).
inline constexpr std::string_view kDefaultNetwork = "ib-ndr";
const Network& default_network();

// A plan of `count` cards of `gpu` as whole nodes of a server platform that
// holds several of them: nodes x per_node == count.
struct NodeLayout {
    const HostPlatform* platform = nullptr;
    std::int64_t nodes = 1;
    std::int64_t per_node = 1;
};
// `per_node` (--gpus-per-node) fixes the node size; it must divide `count`
// and the platform must hold that many.
std::optional<NodeLayout> choose_nodes(const Gpu& gpu, std::int64_t count,
                                       std::optional<std::int64_t> per_node = std::nullopt);

// The compiled-in fabrics (data/networks.json).
namespace embedded {
std::string_view networks_json();
}  // namespace embedded

}  // namespace gpuadvise
