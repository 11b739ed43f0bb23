#!/usr/bin/env bash
# Behaviour check for a change that must not change behaviour: runs two tlbf-dedup binaries
# on the same commands and compares what they write, byte for byte.
#
#   bash scripts/compare-outputs.sh OLD_BIN NEW_BIN
#
# The commands are those of scripts/output-commands.bash (tests/e2e/data/shared_data.sh's over
# ../shared/data, and each filter class on generated inputs of EVENTS events, steady and burst
# profiles, text and NDJSON), which tests/e2e/data/output_identity.sh also runs. For every command
# it compares the exit status, stdout and stderr (warnings, usage errors and the --stats=json
# report, with its two timing fields taken out). Last, the state files the two save for each
# filter must be the same bytes. Both run with the same fixed hash seed (TLBF_DEDUP_HASH_SEED,
# 0x5eed unless set). Prints one line per command and exits 1 when any differs.
#
# Environment: EVENTS (default 2000000); INPUTS, where the generated inputs are kept and
# reused (default /tmp/tlbf-compare, outside the repository); PROFILES (default "steady
# burst"); SHARED_DATA and GEN_EVENTS (default: beside the repository).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 OLD_BIN NEW_BIN" >&2; exit 2; }
OLD=$1 NEW=$2
for bin in "$OLD" "$NEW"; do
  [ -x "$bin" ] || { echo "compare-outputs: $bin is not an executable" >&2; exit 2; }
done
EVENTS=${EVENTS:-2000000}
INPUTS=${INPUTS:-/tmp/tlbf-compare}
PROFILES=${PROFILES:-steady burst}
SHARED_DATA=${SHARED_DATA:-$ROOT/../shared/data}
GEN_EVENTS=${GEN_EVENTS:-$ROOT/tests/gen_events.py}
source "$ROOT/scripts/output-commands.bash"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
differ=0 same=0

# run_one BIN TAG ARGS...: stdout to $WORK/TAG.out, stderr (timings blanked) to $WORK/TAG.err,
# exit status to $WORK/TAG.status.
run_one() {
  local bin=$1 tag=$2 status=0
  shift 2
  "$bin" "$@" >"$WORK/$tag.out" 2>"$WORK/$tag.raw" || status=$?
  echo "$status" >"$WORK/$tag.status"
  normalise_stderr "$WORK/$tag.raw" "$WORK/$tag.err"
}

# compare NAME ARGS...: runs both binaries and reports.
compare() {
  local name=$1 what=""
  shift
  run_one "$OLD" old "$@"
  run_one "$NEW" new "$@"
  cmp -s "$WORK/old.status" "$WORK/new.status" || what+=" exit-status($(cat "$WORK/old.status")/$(cat "$WORK/new.status"))"
  cmp -s "$WORK/old.out" "$WORK/new.out" || what+=" stdout"
  cmp -s "$WORK/old.err" "$WORK/new.err" || what+=" stderr"
  if [ -z "$what" ]; then
    same=$((same + 1))
    printf 'same    %-28s %10s bytes out, exit %s\n' "$name" "$(stat -c %s "$WORK/new.out")" "$(cat "$WORK/new.status")"
  else
    differ=$((differ + 1))
    printf 'DIFFERS %-28s:%s\n' "$name" "$what"
    diff <(head -c 2000 "$WORK/old.err") <(head -c 2000 "$WORK/new.err") | head -6 || true
  fi
  rm -f "$WORK"/old.* "$WORK"/new.*
}

# 1. The real-world files (when present), 2. generated inputs, made once with the same seed
#    and kept in $INPUTS.
[ -d "$SHARED_DATA" ] || echo "compare-outputs: $SHARED_DATA not found; the real-world files are not compared"
make_generated_inputs
output_commands compare

# 3. State files: both binaries save byte-identical files, and continuing from the old
#    binary's file, each writes the same output and saves the same file again.
first=${PROFILES%% *}
head -n "$OUTPUT_STATE_LINES" "$(generated_input "$first" text)" >"$WORK/part.text"
for window in "${OUTPUT_STATE_WINDOWS[@]}"; do
  read -ra args <<<"-k 3 -t 1 $window"
  # A run that fails is a difference to report, not a reason to stop the comparison.
  what="" status_old=0 status_new=0
  "$OLD" "${args[@]}" --state "$WORK/first.old" "$WORK/part.text" >/dev/null 2>&1 || status_old=$?
  "$NEW" "${args[@]}" --state "$WORK/first.new" "$WORK/part.text" >/dev/null 2>&1 || status_new=$?
  [ "$status_old" = "$status_new" ] || what+=" exit-status($status_old/$status_new)"
  touch "$WORK/first.old" "$WORK/first.new"
  cp "$WORK/first.old" "$WORK/again.old"
  cp "$WORK/first.old" "$WORK/again.new"
  status_old=0 status_new=0
  "$OLD" "${args[@]}" --state "$WORK/again.old" "$WORK/part.text" >"$WORK/again.old.out" 2>/dev/null || status_old=$?
  "$NEW" "${args[@]}" --state "$WORK/again.new" "$WORK/part.text" >"$WORK/again.new.out" 2>/dev/null || status_new=$?
  [ "$status_old" = "$status_new" ] || what+=" continued-exit-status($status_old/$status_new)"
  cmp -s "$WORK/first.old" "$WORK/first.new" || what+=" saved-state"
  cmp -s "$WORK/again.old.out" "$WORK/again.new.out" || what+=" continued-stdout"
  cmp -s "$WORK/again.old" "$WORK/again.new" || what+=" continued-state"
  if [ -z "$what" ]; then
    same=$((same + 1))
    printf 'same    state %-22s %10s bytes saved\n' "$window" "$(stat -c %s "$WORK/first.new")"
  else
    differ=$((differ + 1))
    printf 'DIFFERS state %-22s:%s\n' "$window" "$what"
  fi
  rm -f "$WORK"/first.* "$WORK"/again.*
done

echo "$same commands gave the same output, $differ differ"
[ "$differ" -eq 0 ]
