// Slabs lent to containers (src/base/slab.hpp): the first array that fits takes the slab,
// the rest and what outgrows it go to the heap, and a slab given back is lent again.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/slab.hpp"

TEST_SUITE("slab") {
  using namespace tlbf_dedup;

  TEST_CASE("the slab goes to the first array that fits, and back when it is freed") {
    HugeBlock block(256);
    std::byte* const memory = block.data();
    Slab slab{memory, 256};
    SlabAllocator<std::uint64_t> a(&slab);
    CHECK(a.room() == 32);
    std::uint64_t* big = a.allocate(33);  // too big: the heap
    CHECK(reinterpret_cast<std::byte*>(big) != memory);
    CHECK_FALSE(slab.lent);
    std::uint64_t* first = a.allocate(32);
    CHECK(reinterpret_cast<std::byte*>(first) == memory);
    CHECK(slab.lent);
    std::uint64_t* second = a.allocate(1);  // lent already: the heap
    CHECK(reinterpret_cast<std::byte*>(second) != memory);
    a.deallocate(second, 1);
    a.deallocate(big, 33);
    CHECK(slab.lent);
    a.deallocate(first, 32);
    CHECK_FALSE(slab.lent);
    CHECK(reinterpret_cast<std::byte*>(a.allocate(4)) == memory);
    a.deallocate(reinterpret_cast<std::uint64_t*>(memory), 4);
  }

  TEST_CASE("a container outgrows its slab onto the heap and takes it again once cleared") {
    HugeBlock block(std::size_t{1} << 16);
    Slab slab{block.data(), std::size_t{1} << 16};
    using Bytes = std::basic_string<char, std::char_traits<char>, SlabAllocator<char>>;
    Bytes s{SlabAllocator<char>(&slab)};
    s.reserve(slab.size - 1);
    CHECK(reinterpret_cast<std::byte*>(s.data()) == block.data());
    s.append(slab.size - 1, 'a');
    CHECK(reinterpret_cast<std::byte*>(s.data()) == block.data());
    s.push_back('b');  // one past the slab: moved, the slab free again
    CHECK(reinterpret_cast<std::byte*>(s.data()) != block.data());
    CHECK_FALSE(slab.lent);
    CHECK(s.size() == slab.size);
    CHECK(s.back() == 'b');
    CHECK(s[slab.size - 2] == 'a');
    Bytes(s.get_allocator()).swap(s);
    s.reserve(100);
    CHECK(reinterpret_cast<std::byte*>(s.data()) == block.data());

    std::vector<int, SlabAllocator<int>> other{SlabAllocator<int>(&slab)};
    other.reserve(4);  // the slab is the string's: the heap
    CHECK(reinterpret_cast<std::byte*>(other.data()) != block.data());
  }

  TEST_CASE("a huge block is on a 2 MiB boundary and writable throughout") {
    const std::size_t bytes = std::size_t{3} << 20;
    HugeBlock block(bytes);
    CHECK(reinterpret_cast<std::uintptr_t>(block.data()) % (std::size_t{2} << 20) == 0);
    block.data()[0] = std::byte{1};
    block.data()[bytes - 1] = std::byte{2};
    CHECK(block.data()[bytes - 1] == std::byte{2});
  }
}
