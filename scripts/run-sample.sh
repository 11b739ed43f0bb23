#!/usr/bin/env bash
# Sets up and builds only the program (the packages it needs, the target tlbf-dedup), then
# deduplicates the bundled sample: an access log with repeats, keyed on the whole request and
# timed from the log's own CLF timestamps. scripts/test.sh installs and builds the rest.
source "$(dirname "$0")/common.sh"
install_missing "${BUILD_PACKAGES[@]}"
# A first configure leaves out what the program does not need (tests: doctest; benchmarks); a
# build directory that scripts/test.sh configured keeps its settings.
first=()
[ -f "$BUILD_DIR/CMakeCache.txt" ] || first=(-DTLBF_BUILD_TESTS=OFF -DTLBF_BUILD_BENCH=OFF)
configure_and_build "${first[@]}" -- tlbf-dedup
set -x
"$BUILD_DIR/src/tlbf-dedup" --version
"$BUILD_DIR/src/tlbf-dedup" -k 1,6-10 -t 4,5 -w 5m --stats "$ROOT/testdata/sample_access.log"
