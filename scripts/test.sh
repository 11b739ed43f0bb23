#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: unit tests and end-to-end tests
# (the latter use ../shared/data when it is there and say SKIP when it is not).
source "$(dirname "$0")/common.sh"
install_missing "${PACKAGES[@]}"
configure_and_build -DTLBF_BUILD_TESTS=ON
cd "$BUILD_DIR"
ctest --output-on-failure -j "$JOBS" "$@"
