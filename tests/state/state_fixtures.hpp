// What the state tests share: a directory of their own, and the smallest filter to save.
#pragma once

#include "temp_dir.hpp"
#include "tlbf/config.hpp"

// An empty exact filter's configuration: a one-second window for 16 keys.
inline tlbf::FilterConfig one_second_exact() {
  tlbf::FilterConfig c;
  c.algorithm = tlbf::Algorithm::exact;
  c.span = tlbf::kSecond;
  c.capacity = 16;
  return c;
}
