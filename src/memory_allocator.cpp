// The caching allocator's block bookkeeping (memory_allocator.hpp): the
// constants and rules are c10/cuda/CUDACachingAllocator.cpp's (kMinBlockSize,
// kSmallSize, kSmallBuffer, kLargeBuffer, kMinLargeAlloc, kRoundLarge,
// get_allocation_size, should_split, try_merge_blocks).
#include "memory_allocator.hpp"

#include <algorithm>
#include <cmath>

namespace gpuadvise::memory_detail {
namespace {

constexpr std::uint64_t kMiB = 1024ULL * 1024ULL;
constexpr std::uint64_t kMinBlockSize = 512;       // every request rounds up to it
constexpr std::uint64_t kSmallSize = kMiB;         // largest "small" request
constexpr std::uint64_t kSmallBuffer = 2 * kMiB;   // segment of the small pool
constexpr std::uint64_t kLargeBuffer = 20 * kMiB;  // segment for large requests under
constexpr std::uint64_t kMinLargeAlloc = 10 * kMiB;
constexpr std::uint64_t kRoundLarge = 2 * kMiB;  // larger segments round up to it
constexpr std::uint64_t kPage = 2 * kMiB;        // expandable segments map 2 MiB pages

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) {
    return (v + to - 1) / to * to;
}

std::uint64_t request_size(double bytes) {
    const double b = std::max(bytes, 1.0);
    const auto v = static_cast<std::uint64_t>(std::ceil(std::min(b, 1e18)));
    return round_up(std::max(v, kMinBlockSize), kMinBlockSize);
}

std::uint64_t segment_size(std::uint64_t size) {
    if (size <= kSmallSize) return kSmallBuffer;
    if (size < kMinLargeAlloc) return kLargeBuffer;
    return round_up(size, kRoundLarge);
}

}  // namespace

void CachingAllocator::insert_free(int b) {
    Block& blk = blocks_[static_cast<std::size_t>(b)];
    if (blk.free) return;
    blk.at = pool(blk.small).insert(Key{blk.size, blk.address, b}).first;
    blk.free = true;
    if (whole_segment(blk)) whole_free_ += blk.size;
}

void CachingAllocator::erase_free(int b) {
    Block& blk = blocks_[static_cast<std::size_t>(b)];
    if (!blk.free) return;
    pool(blk.small).erase(blk.at);
    blk.free = false;
    if (whole_segment(blk)) whole_free_ -= blk.size;
}

int CachingAllocator::split(int b, std::uint64_t size) {
    Block& blk = blocks_[static_cast<std::size_t>(b)];
    const std::uint64_t rest = blk.size - size;
    const bool split_it = blk.small ? rest >= kMinBlockSize : rest > kSmallSize;
    if (!split_it) return b;
    Block tail;
    tail.address = blk.address + size;
    tail.size = rest;
    tail.small = blk.small;
    tail.prev = b;
    tail.next = blk.next;
    blk.size = size;
    const int t = static_cast<int>(blocks_.size());
    blocks_.push_back(tail);
    Block& head = blocks_[static_cast<std::size_t>(b)];  // push_back may have moved it
    if (head.next >= 0) blocks_[static_cast<std::size_t>(head.next)].prev = t;
    head.next = t;
    insert_free(t);
    return b;
}

int CachingAllocator::allocate(double bytes) {
    const std::uint64_t size = request_size(bytes);
    const bool small = size <= kSmallSize;
    FreeList& free = pool(small);
    int b = -1;
    if (const auto it = free.lower_bound(Key{size, 0, -1}); it != free.end()) {
        b = it->block;
        erase_free(b);
    } else if (expandable_ && !small) {
        // One growing segment: extend the free block at its end, or map new
        // pages after the last block.
        int last = -1;
        for (int i = static_cast<int>(blocks_.size()) - 1; i >= 0; --i)
            if (blocks_[static_cast<std::size_t>(i)].live &&
                !blocks_[static_cast<std::size_t>(i)].small &&
                blocks_[static_cast<std::size_t>(i)].next < 0) {
                last = i;
                break;
            }
        const bool extend = last >= 0 && !blocks_[static_cast<std::size_t>(last)].allocated;
        const std::uint64_t have = extend ? blocks_[static_cast<std::size_t>(last)].size : 0;
        const std::uint64_t grow = round_up(size - have, kPage);
        reserved_ += grow;
        if (extend) {
            erase_free(last);
            blocks_[static_cast<std::size_t>(last)].size += grow;
            b = last;
        } else {
            Block blk;
            blk.address = next_address_;
            blk.size = grow;
            blk.prev = last;
            next_address_ += grow;
            b = static_cast<int>(blocks_.size());
            blocks_.push_back(blk);
            if (last >= 0) blocks_[static_cast<std::size_t>(last)].next = b;
        }
    } else {
        Block blk;
        blk.address = next_address_;
        blk.size = segment_size(size);
        blk.small = small;
        next_address_ += blk.size + kPage;  // segments are not neighbours
        reserved_ += blk.size;
        b = static_cast<int>(blocks_.size());
        blocks_.push_back(blk);
    }
    b = split(b, size);
    Block& blk = blocks_[static_cast<std::size_t>(b)];
    blk.allocated = true;
    allocated_ += blk.size;
    peak_allocated_ = std::max(peak_allocated_, allocated_);
    peak_reserved_ = std::max(peak_reserved_, reserved_);
    // Expandable segments unmap their free pages on a retry: only the
    // allocated bytes (page-rounded) are pinned.
    peak_pinned_ =
        std::max(peak_pinned_, expandable_ ? round_up(allocated_, kPage) : reserved_ - whole_free_);
    return b;
}

void CachingAllocator::merge(int into, int other) {
    // `other` is the free neighbour right after `into`.
    erase_free(other);
    Block& a = blocks_[static_cast<std::size_t>(into)];
    Block& o = blocks_[static_cast<std::size_t>(other)];
    a.size += o.size;
    a.next = o.next;
    if (o.next >= 0) blocks_[static_cast<std::size_t>(o.next)].prev = into;
    o.live = false;
}

void CachingAllocator::release(int handle) {
    if (handle < 0 || static_cast<std::size_t>(handle) >= blocks_.size()) return;
    Block& blk = blocks_[static_cast<std::size_t>(handle)];
    if (!blk.live || !blk.allocated) return;
    blk.allocated = false;
    allocated_ -= blk.size;
    int b = handle;
    if (const int n = blocks_[static_cast<std::size_t>(b)].next;
        n >= 0 && !blocks_[static_cast<std::size_t>(n)].allocated)
        merge(b, n);
    if (const int p = blocks_[static_cast<std::size_t>(b)].prev;
        p >= 0 && !blocks_[static_cast<std::size_t>(p)].allocated) {
        erase_free(p);
        merge(p, b);
        b = p;
    }
    insert_free(b);
}

}  // namespace gpuadvise::memory_detail
