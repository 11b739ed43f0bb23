# Shared helpers for the end-to-end tests (sourced, not run as a test: it does not end in .sh).
# Each test runs the real binary named by $TLBF_DEDUP. A test that needs ../shared/data calls
# need_shared_data, which says clearly that it skips (exit 77, reported by CTest as skipped),
# or fails when TLBF_REQUIRE_SHARED_DATA=1 (CI, which has the data, sets it).
set -euo pipefail
: "${TLBF_DEDUP:?TLBF_DEDUP must name the tlbf-dedup binary}"
: "${TESTDATA:?}"
# Every new filter draws a secret hash seed; the suite fixes one, so that the checks that bound
# false positives (at most a few extra duplicates, ...) judge the same filter on every run. A
# test of the seed itself sets or clears the variable.
export TLBF_DEDUP_HASH_SEED="${TLBF_DEDUP_HASH_SEED-0x5eed}"
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)  # the shared helpers sit here
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fails=0
checks=0

need_shared_data() {
  if [ ! -d "${SHARED_DATA:-}" ]; then
    if [ "${TLBF_REQUIRE_SHARED_DATA:-0}" = 1 ]; then
      echo "FAIL: ../shared/data not found at ${SHARED_DATA:-<unset>} (TLBF_REQUIRE_SHARED_DATA=1)"
      exit 1
    fi
    echo "SKIP: ../shared/data not found at ${SHARED_DATA:-<unset>}"
    exit 77
  fi
}
# check NAME EXPECTED ACTUAL
check() {
  checks=$((checks + 1))
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected [$2], got [$3]"; fails=$((fails + 1)); fi
}
# check_files NAME EXPECTED_FILE ACTUAL_FILE: byte-for-byte comparison
check_files() {
  checks=$((checks + 1))
  if cmp -s "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: $2 and $3 differ"; cmp "$2" "$3" | head -3 || true; fails=$((fails + 1)); fi
}
# count_numbered FILE PREFIX CONDITION: lines whose second field is PREFIX followed by a
# number n meeting the awk CONDITION on n (e.g. 'n >= 420'), as written for numbered keys.
count_numbered() {
  awk -v p="^$2" '{n = $2; sub(p, "", n); n += 0} '"$3"' {c++} END {print c + 0}' "$1"
}
# wait_bounded PID [TENTHS]: sets $status to the background job PID's exit status, or to
# "hung" when it outlived TENTHS tenths of a second (default 150: 15 s; then it is killed).
wait_bounded() {
  local waited=0 limit=${2:-150}
  while kill -0 "$1" 2> /dev/null && [ "$waited" -lt "$limit" ]; do sleep 0.1; waited=$((waited + 1)); done
  if kill -0 "$1" 2> /dev/null; then kill -KILL "$1"; wait "$1" || true; status=hung; return; fi
  wait "$1" && status=0 || status=$?
}
finish() {
  echo "$((checks - fails)) passed, $fails failed"
  [ "$fails" -eq 0 ]
}
# check_usage_error LABEL TEXT CMD...: CMD exits 2 with TEXT in its message and writes nothing.
check_usage_error() {
  local label=$1 text=$2 status=0
  shift 2
  "$@" > "$WORK/usage.out" 2> "$WORK/usage.err" || status=$?
  check "$label: usage error" 2 "$status"
  check "$label: the message names it" 1 "$(grep -cF -- "$text" "$WORK/usage.err")"
  check "$label: nothing written" 0 "$(wc -c < "$WORK/usage.out")"
}

# ask_saved_state NAME: copies testdata/state/NAME to $WORK/s.state and asks it for keys
# k1..k1000 at 1101 s (`-k 2 -t 1 --state`), writing what is kept to $WORK/out.txt: the
# question the saved-state fixtures (keys k1..k1000 inserted at 1000 + i/10 s) are made for.
ask_saved_state() {
  cp "$TESTDATA/state/$1" "$WORK/s.state"
  for i in $(seq 1000); do echo "1101 k$i"; done > "$WORK/in.txt"
  "$TLBF_DEDUP" -k 2 -t 1 --state "$WORK/s.state" "$WORK/in.txt" > "$WORK/out.txt"
}

# continue_saved_state WHEN: after ask_saved_state, 2,000 new keys n1..n2000 over the next
# 200 s, all new; then the same keys at 1301 s, found inside the window (i >= 1410) by a filter
# that went on from the loaded state; WHEN names that in the check.
continue_saved_state() {
  for i in $(seq 2000); do echo "$((1101 + i / 10)) n$i"; done > "$WORK/more.txt"
  "$TLBF_DEDUP" -k 2 -t 1 --state "$WORK/s.state" "$WORK/more.txt" > "$WORK/more_out.txt"
  check "new keys are all new" 2000 "$(wc -l < "$WORK/more_out.txt")"
  for i in $(seq 2000); do echo "1301 n$i"; done > "$WORK/again.txt"
  "$TLBF_DEDUP" -k 2 -t 1 --state "$WORK/s.state" "$WORK/again.txt" > "$WORK/again_out.txt"
  # Age 200 - i/10 s: inside the window from i = 1410 on.
  check "keys inserted $1 are found inside the window" 0 "$(count_numbered "$WORK/again_out.txt" n 'n >= 1410')"
}

# judge NAME WINDOW SLACK MAX_RATE MARKED: no false negatives, drops beyond the slack <= MAX_RATE.
judge() {
  local out fn fp kept
  out=$(python3 "$E2E_DIR/window_judge.py" "$5" "$2" "$3")
  echo "     $1: $out"
  fn=$(sed 's/.*fn=\([0-9]*\).*/\1/' <<<"$out")
  fp=$(sed 's/.*fp=\([0-9]*\).*/\1/' <<<"$out")
  kept=$(sed 's/.*kept_exact=\([0-9]*\).*/\1/' <<<"$out")
  check "$1: no false negatives" 0 "$fn"
  check "$1: drops beyond window + slack <= $4 of the records exact keeps" 1 \
    "$(python3 -c "print(1 if $fp <= $4 * $kept + 1 else 0)")"
}
