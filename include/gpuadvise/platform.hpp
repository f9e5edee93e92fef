#pragma once
// The operating system's share of a card's memory, and what the GPU of a
// machine with unified memory may use (the host keeps the rest).
#include <cstdint>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/enum_table.hpp"

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
// (Apple, MI300A) gets the share the OS lets it wire: macOS's default
// recommendedMaxWorkingSetSize is about 75 % (see docs/engines.md).
std::uint64_t usable_memory(const Gpu& gpu, Os os);

}  // namespace gpuadvise
