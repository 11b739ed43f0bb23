#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_*.cpp) with clang in build-fuzz and runs each for
# FUZZ_SECONDS (default 30). A crash, sanitizer report, broken invariant, leak, timeout or
# out-of-memory in any target fails the run; the input that caused it is saved under
# build-fuzz/artifacts/. Prints the executions per target.
# Usage: scripts/fuzz.sh [TARGET...]   e.g. scripts/fuzz.sh fuzz_state
#   env FUZZ_SECONDS (per target), FUZZ_BUILD_DIR, JOBS
source "$(dirname "$0")/common.sh"
BUILD_DIR=${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
install_missing "${PACKAGES[@]}" clang libclang-rt-14-dev

cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DTLBF_FUZZ=ON -DTLBF_BUILD_TESTS=OFF -DTLBF_BUILD_BENCH=OFF
cmake --build "$BUILD_DIR" -j "$JOBS" --target fuzzers

# Longest input worth trying per target: beyond it the parser only sees more of the same.
max_len_for() {
  case "$1" in
    fuzz_state) echo 16384 ;;
    fuzz_duration | fuzz_timestamp) echo 128 ;;
    fuzz_field_list) echo 512 ;;
    *) echo 4096 ;;
  esac
}

# Seeds: fuzz/corpus/<name>/ (small hand-written files) plus generated ones.
seed_dirs_for() {
  local name=${1#fuzz_} dirs=()
  [ -d "$ROOT/fuzz/corpus/$name" ] && dirs+=("$ROOT/fuzz/corpus/$name")
  case "$1" in
    fuzz_state)
      mkdir -p "$BUILD_DIR/seeds/state"
      "$BUILD_DIR/fuzz/make_state_seeds" "$BUILD_DIR/seeds/state"
      dirs+=("$BUILD_DIR/seeds/state") ;;
    fuzz_record_reader | fuzz_extract)
      [ -d "$ROOT/testdata" ] && dirs+=("$ROOT/testdata") ;;
  esac
  echo "${dirs[@]}"
}

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for exe in "$BUILD_DIR"/fuzz/fuzz_*; do [ -x "$exe" ] && targets+=("$(basename "$exe")"); done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: FAILED: no fuzz targets were built in $BUILD_DIR/fuzz" >&2
  exit 1
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$BUILD_DIR/artifacts" "$BUILD_DIR/logs"
summary=()
failed=0
for t in "${targets[@]}"; do
  corpus="$BUILD_DIR/corpus/${t#fuzz_}"  # grows across runs; the seeds stay read-only
  mkdir -p "$corpus"
  log="$BUILD_DIR/logs/$t.log"
  echo "== $t: ${FUZZ_SECONDS}s, max_len $(max_len_for "$t")"
  status=0
  "$BUILD_DIR/fuzz/$t" -max_total_time="$FUZZ_SECONDS" -max_len="$(max_len_for "$t")" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
    -artifact_prefix="$BUILD_DIR/artifacts/$t-" "$corpus" $(seed_dirs_for "$t") >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$status" -ne 0 ]; then
    failed=1
    echo "FAIL $t (exit $status): last lines of $log:" >&2
    tail -40 "$log" >&2
    summary+=("$(printf '%-24s FAILED after %s executions (artifacts in %s)' "$t" "${execs:-?}" "$BUILD_DIR/artifacts")")
  else
    summary+=("$(printf '%-24s ok  %12s executions in %ss, corpus %s files' "$t" "${execs:-?}" "$FUZZ_SECONDS" "$(ls "$corpus" | wc -l)")")
  fi
done
printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
  echo "fuzz.sh: FAILED: at least one fuzz target found a bug" >&2
  exit 1
fi
echo "fuzz.sh: all ${#targets[@]} targets ran clean"
