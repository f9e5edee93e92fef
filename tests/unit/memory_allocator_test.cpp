// The model of PyTorch's CUDA caching allocator (src/memory_allocator.hpp):
// its rules checked on small sequences whose outcome the C++ source fixes.
#include "../../src/memory_allocator.hpp"

#include <catch2/catch.hpp>

using gpuadvise::memory_detail::CachingAllocator;

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}

TEST_CASE("requests round to 512 bytes and take segments by size class") {
    CachingAllocator a;
    a.allocate(100);  // small: a 2 MiB segment, 512 bytes allocated
    CHECK(a.allocated() == 512);
    CHECK(a.reserved() == 2 * kMiB);
    a.allocate(4 * kMiB);  // large under 10 MiB: a 20 MiB segment
    CHECK(a.reserved() == 22 * kMiB);
    // The next large request is served from that segment's 16 MiB rest.
    a.allocate(11 * kMiB);
    CHECK(a.reserved() == 22 * kMiB);
    CHECK(a.allocated() == 512 + 15 * kMiB);
    CachingAllocator b;
    b.allocate(11 * kMiB);  // 10 MiB or more: its own segment, rounded to 2 MiB
    CHECK(b.reserved() == 12 * kMiB);
    // The 1 MiB rest is not split (a large block splits only above 1 MiB):
    // it counts as allocated.
    CHECK(b.allocated() == 12 * kMiB);
}

TEST_CASE("a freed block is cached, reused by best fit, and merges with its neighbours") {
    CachingAllocator a;
    const int big = a.allocate(100 * kMiB);
    a.release(big);
    CHECK(a.allocated() == 0);
    CHECK(a.reserved() == 100 * kMiB);  // cached, not returned
    // Two requests split the cached block; nothing new is reserved.
    const int x = a.allocate(40 * kMiB);
    const int y = a.allocate(40 * kMiB);
    CHECK(a.reserved() == 100 * kMiB);
    // Freed, they merge back: a 100 MiB request fits again.
    a.release(x);
    a.release(y);
    a.allocate(100 * kMiB);
    CHECK(a.reserved() == 100 * kMiB);
    // A request larger than every cached block takes a new segment.
    a.allocate(101 * kMiB);
    CHECK(a.reserved() == 100 * kMiB + 102 * kMiB);
}

TEST_CASE("a block still live pins its segment, wholly free segments can be released") {
    CachingAllocator a;
    const int first = a.allocate(100 * kMiB);
    const int second = a.allocate(100 * kMiB);
    a.release(first);
    // A small tensor lands in the freed 100 MiB block and pins it.
    a.allocate(2 * kMiB);
    a.release(second);  // the second segment is wholly free now
    const int need = a.allocate(150 * kMiB);
    (void)need;
    CHECK(a.peak_reserved() == 100 * kMiB + 100 * kMiB + 150 * kMiB);
    // At the peak the second segment was free: a retry would have released
    // it. The first one holds the small tensor: pinned.
    CHECK(a.peak_pinned() == 100 * kMiB + 150 * kMiB);
}

TEST_CASE("expandable segments grow in place and pin only what is allocated") {
    CachingAllocator a(true);
    const int x = a.allocate(100 * kMiB);
    a.release(x);
    a.allocate(150 * kMiB);  // extends the free tail instead of a new segment
    CHECK(a.reserved() == 150 * kMiB);
    CHECK(a.peak_pinned() == 150 * kMiB);
}
