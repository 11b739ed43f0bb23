// The decision for one record: is its key a duplicate within the window?
#pragma once

#include "options.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"

namespace tlbf_dedup {

// Without refresh the window runs from the last emitted copy: only new keys are inserted,
// so a duplicate does not extend its key's life. With refresh every occurrence renews it.
class Decider {
 public:
  Decider(tlbf::WindowFilter& filter, Refresh refresh) : filter_(&filter), refresh_(refresh) {}

  bool is_duplicate(std::string_view key, tlbf::Time now) { return is_duplicate(tlbf::hash_key(key), now); }
  bool is_duplicate(tlbf::KeyHash h, tlbf::Time now) {
    if (refresh_ == Refresh::no) return !filter_->insert_if_absent(h, now);
    bool present = filter_->may_contain(h, now);
    filter_->insert(h, now);
    return present;
  }

  void set_filter(tlbf::WindowFilter& filter) { filter_ = &filter; }

 private:
  tlbf::WindowFilter* filter_;
  Refresh refresh_;
};

}  // namespace tlbf_dedup
