// Time-limited Bloom filter over a time window (Rodrigues, Shtul, Baquero, Almeida 2023).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tlbf/config.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/params.hpp"

namespace tlbf {

class TimeLimitedFilter final : public WindowFilter {
 public:
  explicit TimeLimitedFilter(const FilterConfig& cfg) : cfg_(cfg) {}
  static std::unique_ptr<TimeLimitedFilter> load(ByteReader& in) {
    (void)in;
    throw state_error("state: tlbf load not implemented");
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
    s.algorithm = "tlbf";
    return s;
  }
  void save(ByteWriter& out) const override { out.u8(static_cast<std::uint8_t>(Algorithm::tlbf)); }

 private:
  FilterConfig cfg_;
};

}  // namespace tlbf
