// A program outside the project that uses the installed filter library. tests/e2e/package/downstream.sh
// builds it twice, once through find_package(tlbf CONFIG) (CMakeLists.txt here) and once with
// the flags of `pkg-config --cflags --libs tlbf`, and runs both: a key is new once, a duplicate
// inside the window and new again after it; anything else exits 1.
#include <tlbf/tlbf.hpp>

#include <cstdio>

int main() {
  tlbf::FilterConfig cfg;
  cfg.span = 60 * tlbf::kSecond;
  cfg.error_rate = 1e-3;
  auto filter = tlbf::make_filter(cfg);
  const tlbf::Time start = 1700000000 * tlbf::kSecond;
  const bool first = filter->insert_if_absent(tlbf::hash_key("key"), start);
  const bool inside = filter->insert_if_absent(tlbf::hash_key("key"), start + 59 * tlbf::kSecond);
  const bool after = filter->insert_if_absent(tlbf::hash_key("key"), start + 120 * tlbf::kSecond);
  std::printf("new %d, duplicate inside the window %d, new after it %d\n", first, !inside, after);
  return first && !inside && after ? 0 : 1;
}
