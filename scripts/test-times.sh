#!/usr/bin/env bash
# Measures the test suite again and writes the times into tests/test_times.txt, the table the
# tiers are chosen from (tests/tiers.cmake). Run it on an otherwise idle 2-core machine, with
# ../shared/data beside the clone, after adding tests or making one slower or faster, and commit
# the table. Without arguments it runs the whole suite (tests that are gone leave the table);
# with ctest arguments (e.g. -R 'e2e\.count') only those tests are measured again.
# Usage: scripts/test-times.sh [CTEST ARGS...]   (env BUILD_DIR, JOBS)
source "$(dirname "$0")/common.sh"
install_missing "${PACKAGES[@]}"
configure_and_build -DTLBF_BUILD_TESTS=ON -DTLBF_BUILD_BENCH=ON
junit="$BUILD_DIR/test-times.xml"
status=0
(cd "$BUILD_DIR" && ctest -j "$JOBS" --output-junit "$junit" "$@") || status=$?
# A whole run replaces the table's rows and its "measured:" line; a partial one updates rows.
args=()
if [ $# -eq 0 ]; then
  cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
  args=(--replace --note "$(nproc) cores ($cpu), ctest -j $JOBS, $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end")
fi
python3 "$ROOT/scripts/test_times.py" update "$junit" "${args[@]}"
[ "$status" -eq 0 ] || echo "test-times.sh: some tests failed; their old times were kept" >&2
exit "$status"
