#!/usr/bin/env bash
# The library promise of README.md: include/tlbf/tlbf.hpp compiles on its own with
# `g++ -std=c++17 -Iinclude` (xxHash's header used inline), and the README's C++ example
# works as written: it is extracted, wrapped in main() and run.
source "$(dirname "$0")/../lib.bash"
: "${SOURCE_DIR:?}"
CXX=${CXX:-g++}

awk '/^```cpp/ { inside = 1; next } inside && /^```/ { inside = 0; next } inside { print }' \
  "$SOURCE_DIR/README.md" > "$WORK/example_body.inc"
check "README.md has a C++ example" 1 "$(( $(wc -l < "$WORK/example_body.inc") > 2 ? 1 : 0 ))"

cat > "$WORK/example.cpp" <<'CPP'
#include <tlbf/tlbf.hpp>
#include <cstdio>
int main() {
  tlbf::Time now_ns = 1700000000 * tlbf::kSecond;
#include "example_body.inc"
  // The README's key was just inserted: it is new once, a duplicate inside the window,
  // and new again a full window later.
  bool dup_inside = !filter->insert_if_absent(tlbf::hash_key("key"), now_ns + 59 * tlbf::kSecond);
  bool new_after = filter->insert_if_absent(tlbf::hash_key("key"), now_ns + 120 * tlbf::kSecond);
  std::printf("%d %d %d\n", is_new ? 1 : 0, dup_inside ? 1 : 0, new_after ? 1 : 0);
  return 0;
}
CPP
status=0
"$CXX" -std=c++17 -Wall -Wextra -I"$SOURCE_DIR/include" -I"$WORK" "$WORK/example.cpp" -o "$WORK/example" \
  2> "$WORK/cc.err" || status=$?
check "the umbrella header and the README example compile with only -Iinclude" 0 "$status"
[ "$status" -eq 0 ] || cat "$WORK/cc.err"
if [ "$status" -eq 0 ]; then
  check "new, then duplicate inside the window, then new after it" "1 1 1" "$("$WORK/example")"
fi
finish
