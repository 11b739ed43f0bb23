// Age-partitioned Bloom filter over a count window (Shtul, Baquero, Almeida 2020).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tlbf/config.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/params.hpp"

namespace tlbf {

class AgePartitionedFilter final : public WindowFilter {
 public:
  explicit AgePartitionedFilter(const FilterConfig& cfg) : cfg_(cfg) {}
  static std::unique_ptr<AgePartitionedFilter> load(ByteReader& in) {
    (void)in;
    throw state_error("state: apbf load not implemented");
  }
  bool may_contain(KeyHash h, Time now) const override {
    (void)h;
    (void)now;
    return false;
  }
  void insert(KeyHash h, Time now) override {
    (void)h;
    (void)now;
  }
  FilterStats stats(Time now) const override {
    (void)now;
    FilterStats s;
    s.algorithm = "apbf";
    return s;
  }
  void save(ByteWriter& out) const override { out.u8(static_cast<std::uint8_t>(Algorithm::apbf)); }

 private:
  FilterConfig cfg_;
};

}  // namespace tlbf
