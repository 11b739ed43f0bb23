#!/usr/bin/env bash
# Builds everything with AddressSanitizer and UndefinedBehaviorSanitizer (-DTLBF_SANITIZE=ON)
# in build-asan and runs the whole test suite there. Any sanitizer report fails the test that
# triggered it (errors halt the program, UBSan does not recover), so any report fails the run.
# Usage: scripts/sanitize.sh [CTEST ARGS...]   (env ASAN_BUILD_DIR, JOBS)
source "$(dirname "$0")/common.sh"
BUILD_DIR=${ASAN_BUILD_DIR:-$ROOT/build-asan}
install_missing "${PACKAGES[@]}"

# The tests run the real binary from shell scripts; the options travel to it through the
# environment. Leak checking is on: a leak is a bug like any other.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The 10-million-key burst of e2e.attack_burst checks false-positive rates, not memory
# safety; a million keys take the same code paths at a tenth of the (sanitized) time.
export TLBF_ATTACK_KEYS=${TLBF_ATTACK_KEYS:-1000000}

configure_and_build -DTLBF_SANITIZE=ON -DTLBF_BUILD_TESTS=ON -DTLBF_BUILD_BENCH=OFF
cd "$BUILD_DIR"
if ! ctest --output-on-failure -j "$JOBS" "$@"; then
  echo "sanitize.sh: FAILED: tests failed under ASan+UBSan (build in $BUILD_DIR; see the reports above)" >&2
  exit 1
fi
echo "sanitize.sh: the whole suite passed under ASan+UBSan"
