#include "gpuadvise/platform.hpp"

#include "gpuadvise/units.hpp"

namespace gpuadvise {

std::uint64_t os_reserved_bytes(Os os) {
    return os == Os::Linux ? 0 : kGiB + kGiB / 2;
}

std::uint64_t usable_memory(const Gpu& gpu, Os os) {
    std::uint64_t bytes = gpu.memory_bytes;
    if (gpu.is_apple()) bytes = bytes / 4 * 3;
    const std::uint64_t reserved = os_reserved_bytes(os);
    return bytes > reserved ? bytes - reserved : 0;
}

}  // namespace gpuadvise
