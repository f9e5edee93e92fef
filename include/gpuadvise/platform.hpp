#pragma once
// What a GPU plugs into. The operating system's share of a card's memory,
// what the GPU of a machine with unified memory may use, and the host
// platforms of data/platforms.json: a plan is a whole system, and its cost is
// the cards plus the platform that holds them.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/engines.hpp"
#include "gpuadvise/enum_table.hpp"
#include "gpuadvise/json.hpp"

namespace gpuadvise {

enum class Os : std::uint8_t { Linux, Windows, Wsl };
inline constexpr auto kOses = make_enum_table<Os>(
    {{Os::Linux, "linux"}, {Os::Windows, "windows"}, {Os::Wsl, "wsl"}, {Os::Wsl, "wsl2", true}});
inline std::string_view to_string(Os v) {
    return kOses.name(v);
}

// Memory the OS keeps from the GPU: Windows reserves 1-2 GB for the display
// (document §2.1; we take 1.5 GiB), WSL shares the Windows driver's reservation.
std::uint64_t os_reserved_bytes(Os os);

// Usable memory of one card under an OS. A GPU that shares the host's memory
// gets the share its catalog entry's unified_pool gives by default (macOS's
// recommendedMaxWorkingSetSize: 2/3 of 32 GB and smaller machines, 3/4 of
// larger ones; AMD's default GTT of half the RAM; see docs/catalog.md).
std::uint64_t usable_memory(const Gpu& gpu, Os os);
// The same less what `engine` keeps free on the card (Ollama's reserve);
// `engine` may be null.
std::uint64_t usable_memory(const Gpu& gpu, Os os, const Engine* engine);

enum class PlatformKind : std::uint8_t { Desktop, Workstation, Server, Baseboard, Apple };
inline constexpr auto kPlatformKinds =
    make_enum_table<PlatformKind>({{PlatformKind::Desktop, "desktop"},
                                   {PlatformKind::Workstation, "workstation"},
                                   {PlatformKind::Server, "server"},
                                   {PlatformKind::Baseboard, "baseboard"},
                                   {PlatformKind::Apple, "apple"}});

// One row of data/platforms.json.
// A host's own draw under load where its platform row gives no host_watts:
// a desktop CPU, board, drives and fans (assumed; the build sheet's figure).
inline constexpr double kSystemBaseWatts = 200.0;

struct HostPlatform {
    std::string_view id;
    std::string_view name;
    PlatformKind kind = PlatformKind::Desktop;
    std::int64_t max_gpus = 1;
    // GPUs per purchase: baseboards are sold populated (an HGX board with 8
    // modules), so a plan of fewer still pays for them. nullopt: any count.
    std::optional<std::int64_t> sold_in;
    std::string_view sold_in_source;
    std::span<const FormFactor> forms;       // the cards it takes
    std::span<const Vendor> vendors;         // empty: any vendor
    std::span<const std::string_view> gpus;  // non-empty: only these cards (and before any other)
    bool passive_cooling = false;            // server airflow for fanless cards
    std::optional<std::int64_t> lanes_per_gpu;
    std::optional<double> usd;  // without the GPUs; nullopt = not found
    PriceKind price_kind = PriceKind::Estimate;
    std::string_view usd_basis;
    std::string_view date;
    std::optional<double> host_watts;  // CPUs, memory, fans, NICs under load
    // Host memory, for layers offloaded from the GPU: size and peak bandwidth
    // (channels x data rate x 8 bytes); nullopt = not fixed by the platform.
    std::optional<double> ram_gb;
    std::optional<double> ram_bandwidth_gbps;
    std::string_view ram_source;
    // The share of that peak a CPU decoding offloaded weights reaches, where
    // this class of host was measured (many-channel servers reach less than
    // desktops); nullopt: the desktop figure of performance.cpp.
    std::optional<double> ram_decode_share;
    std::string_view ram_decode_share_source;
    std::string_view source;

    bool holds(const Gpu& gpu, std::int64_t count) const;
};

std::span<const HostPlatform> host_platforms();
// The platform a plan of `count` cards of `gpu` goes into: the one that names
// the card, else the first that holds them; nullptr when none does.
const HostPlatform* choose_platform(const Gpu& gpu, std::int64_t count);
// A platform by id or name; throws InputError naming `what`.
const HostPlatform& parse_platform(std::string_view text, std::string_view what);
std::vector<std::string> platform_choices();

Parsed<HostPlatform> parse_platforms(std::string_view text, std::string_view source);

// The compiled-in host platforms (data/platforms.json, generated at build time).
namespace embedded {
std::string_view platforms_json();
std::span<const HostPlatform> platforms();
}  // namespace embedded

}  // namespace gpuadvise
