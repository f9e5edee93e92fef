#pragma once
// A model of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp)
// for one stream, replayed over the allocations a workload makes
// (memory_pool.cpp builds the trace). Private to the memory module.
#include <cstdint>
#include <memory_resource>
#include <set>
#include <vector>

namespace gpuadvise::memory_detail {

// The allocator's block bookkeeping, as the C++ source does it:
// - a request is rounded up to 512 bytes; requests of at most 1 MiB are served
//   from the small pool (2 MiB segments), larger ones from the large pool;
// - a request takes the smallest free block of its pool that holds it (best
//   fit, lowest address among equals, std::set<Block*, BlockComparator>);
// - none: a new segment (cudaMalloc) of 2 MiB (small), 20 MiB (a large
//   request under 10 MiB) or the request rounded up to 2 MiB;
// - the block is split when the rest is at least 512 bytes (small pool) or
//   over 1 MiB (large pool); an unsplit rest counts as allocated;
// - a freed block merges with free neighbours of its segment and stays
//   cached: segments go back to the driver only on an out-of-memory retry
//   or empty_cache(), which this model does not do (the card is assumed to
//   have room: the pool is what a run that fits keeps);
// - with expandable_segments a pool is one segment that maps 2 MiB pages at
//   its end as it grows and a request takes free space anywhere in it, so
//   reserved follows the allocated peak (page rounding aside).
class CachingAllocator {
  public:
    explicit CachingAllocator(bool expandable = false) : expandable_(expandable) {}
    // A handle for release().
    int allocate(double bytes);
    void release(int handle);
    double allocated() const { return static_cast<double>(allocated_); }
    double reserved() const { return static_cast<double>(reserved_); }
    double peak_allocated() const { return static_cast<double>(peak_allocated_); }
    double peak_reserved() const { return static_cast<double>(peak_reserved_); }
    // The most the segments that hold a live block took at once: what an
    // out-of-memory retry cannot give back (release_cached_blocks frees only
    // wholly free segments; with expandable segments, free pages).
    double peak_pinned() const { return static_cast<double>(peak_pinned_); }

  private:
    // A free block in the allocator's order: size, then address (addresses
    // are unique, so the block index never decides the order).
    struct Key {
        std::uint64_t size = 0, address = 0;
        int block = -1;
        bool operator<(const Key& o) const {
            return size < o.size || (size == o.size && address < o.address);
        }
        bool operator==(const Key& o) const { return address == o.address && size == o.size; }
    };
    // A pool's free blocks in the allocator's order (size, then address): a
    // balanced tree whose nodes come from the replay's own arena. A pool
    // holds from a few dozen free blocks to thousands (the holes between a
    // 70B's saved activations): a sorted vector's moves grew with that (4.2 G
    // instructions for one `check` of a 70B), and a heap allocation per
    // node cost more than the rest of the replay.
    using FreeList = std::pmr::set<Key>;
    struct Block {
        std::uint64_t address = 0, size = 0;
        bool small = false, allocated = false, live = true, free = false;
        int prev = -1, next = -1;  // neighbours in the segment
        FreeList::iterator at;     // its place in its pool's list, while free
    };
    FreeList& pool(bool small) { return small ? free_small_ : free_large_; }
    int split(int b, std::uint64_t size);
    void merge(int into, int other);
    // The free lists, with the bytes of wholly free segments kept up to date
    // (a block keeps its place in its list: no search to take it out).
    void insert_free(int b);
    void erase_free(int b);
    bool whole_segment(const Block& b) const { return b.prev < 0 && b.next < 0; }

    bool expandable_;
    std::vector<Block> blocks_;
    // The lists' nodes, freed with the replay (a replay inserts some 10^4 to
    // 10^5 free blocks, a few MB of nodes): no per-node bookkeeping.
    std::pmr::monotonic_buffer_resource nodes_;  // before the lists that use it
    FreeList free_small_{&nodes_}, free_large_{&nodes_};
    std::uint64_t next_address_ = 0;
    std::uint64_t allocated_ = 0, reserved_ = 0, peak_allocated_ = 0, peak_reserved_ = 0;
    std::uint64_t whole_free_ = 0, peak_pinned_ = 0;
};

}  // namespace gpuadvise::memory_detail
