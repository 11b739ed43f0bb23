// The decision for one record: is its key a duplicate within the window?
//
// The default filter (the TLBF) is called directly rather than through the WindowFilter
// interface: the class is final, so its query and insert inline into the record loop and
// share the key's probe hashes. Any other filter goes through the virtual interface. Both
// paths make the same decisions; only the call differs.
#pragma once

#include "options.hpp"
#include "tlbf/filter.hpp"
#include "tlbf/hash.hpp"
#include "tlbf/time_limited.hpp"

namespace tlbf_dedup {

// Without refresh the window runs from the last emitted copy: only new keys are inserted,
// so a duplicate does not extend its key's life. With refresh every occurrence renews it.
class Decider {
 public:
  Decider(tlbf::WindowFilter& filter, Refresh refresh) : refresh_(refresh) { set_filter(filter); }

  bool is_duplicate(std::string_view key, tlbf::Time now) { return is_duplicate(tlbf::hash_key(key), now); }
  bool is_duplicate(tlbf::KeyHash h, tlbf::Time now) {
    if (tlbf_ && refresh_ == Refresh::no) return !tlbf_->add_if_absent(h, now);
    if (refresh_ == Refresh::no) return !filter_->insert_if_absent(h, now);
    bool present = filter_->may_contain(h, now);
    filter_->insert(h, now);
    return present;
  }

  void set_filter(tlbf::WindowFilter& filter) {
    filter_ = &filter;
    tlbf_ = dynamic_cast<tlbf::TimeLimitedFilter*>(&filter);
  }

 private:
  tlbf::WindowFilter* filter_ = nullptr;
  tlbf::TimeLimitedFilter* tlbf_ = nullptr;  // the same filter when it is a TLBF
  Refresh refresh_;
};

}  // namespace tlbf_dedup
