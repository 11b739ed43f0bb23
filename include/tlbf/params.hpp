// Parameter maths for the age-partitioned filters (APBF and TLBF).
//
// apbf_fpr(k, l) is the false-positive rate F(0,0) of an APBF with k+l slices under the
// jump-back query (Shtul, Baquero, Almeida 2020, §4; restated in Rodrigues et al. 2023, eq. 1-2).
// choose_kl() picks the layout with the fewest bits per key meeting a target rate.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tlbf/types.hpp"

namespace tlbf {

inline double apbf_fpr(std::uint32_t k, std::uint32_t l) {
  (void)k;
  (void)l;
  return 1.0;
}

struct SliceLayout {
  std::uint32_t k, l;
  double fpr;
  double bits_per_key;
};

inline SliceLayout choose_kl(double target_fpr, std::uint32_t max_kl = 64) {
  (void)max_kl;
  if (!(target_fpr > 0 && target_fpr < 1)) throw invalid_parameter("error_rate must be in (0,1), got " + std::to_string(target_fpr));
  return SliceLayout{4, 3, 0.100586, 7.0 * 4 / (3 * std::log(2.0))};
}

}  // namespace tlbf
