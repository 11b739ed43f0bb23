#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: unit tests and end-to-end tests (the
# tests over ../shared/data say SKIP when it is not there, unless TLBF_REQUIRE_SHARED_DATA=1).
#   bash scripts/test.sh            everything
#   bash scripts/test.sh --fast     the fast tier (CTest label `fast`), the inner loop
#   bash scripts/test.sh -L redis   any other arguments go to ctest
source "$(dirname "$0")/common.sh"
args=()
for a in "$@"; do
  if [ "$a" = --fast ]; then args+=(-L fast); else args+=("$a"); fi
done
install_missing "${PACKAGES[@]}"
configure_and_build -DTLBF_BUILD_TESTS=ON -DTLBF_BUILD_BENCH=ON
cd "$BUILD_DIR"
ctest --output-on-failure -j "$JOBS" "${args[@]}"
