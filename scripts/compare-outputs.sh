#!/usr/bin/env bash
# Behaviour check for a change that must not change behaviour: runs two tlbf-dedup binaries
# on the same commands and compares what they write, byte for byte.
#
#   bash scripts/compare-outputs.sh OLD_BIN NEW_BIN
#
# The commands are those of tests/e2e/shared_data.sh (its `run NAME ARGS...` lines, read from
# that file, over ../shared/data) and, on generated inputs of EVENTS events (steady and burst
# profiles, text and NDJSON), `-k 3 -t 1 -w 60s` and `-k id -t ts -w 60s` with each of
# -a tlbf, apbf, gebf and exact, and beside them the count window (`-k 3 -n 200000` with
# apbf, gebf and exact) and --refresh, so every filter class and both decision paths run.
# For every command it compares the exit status, stdout and stderr (warnings, usage errors
# and the --stats=json report, with its two timing fields taken out). Last, the state files
# the two save for each filter must be the same bytes. Prints one line per command and exits
# 1 when any differs.
#
# Environment: EVENTS (default 2000000); INPUTS, where the generated inputs are kept and
# reused (default /tmp/tlbf-compare, outside the repository); PROFILES (default "steady
# burst"); SHARED_DATA and GEN_EVENTS (default: beside the repository); TLBF_DEDUP_HASH_SEED
# (default 1).
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
GEN_EVENTS=${GEN_EVENTS:-$ROOT/../shared/tools/gen_events.py}
# Both binaries hash with one fixed seed: with a fresh random seed per run, the false
# positives (hence the tlbf, apbf and gebf outputs) differ from run to run of one binary.
export TLBF_DEDUP_HASH_SEED=${TLBF_DEDUP_HASH_SEED:-1}
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
  sed -E 's/"seconds":[0-9.e+-]+/"seconds":-/; s/"records_per_second":[0-9.e+-]+/"records_per_second":-/' \
    "$WORK/$tag.raw" >"$WORK/$tag.err"
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

# 1. The real-world files, with shared_data.sh's own commands (its `run` lines, where $S is
#    the data folder); warnings are compared too, so -q is not added here.
if [ -d "$SHARED_DATA" ]; then
  S=$SHARED_DATA
  run() { local name=$1; shift; compare "shared:$name" --stats=json "$@"; }
  n=0
  while IFS= read -r line; do
    eval "$line"
    n=$((n + 1))
  done < <(grep -E '^run [a-z0-9_]+ ' "$ROOT/tests/e2e/shared_data.sh")
  [ "$n" -gt 0 ] || { echo "compare-outputs: no run lines found in tests/e2e/shared_data.sh" >&2; exit 1; }
else
  echo "compare-outputs: $SHARED_DATA not found; the real-world files are not compared"
fi

# 2. Generated inputs, made once with the same seed and kept in $INPUTS.
mkdir -p "$INPUTS"
for profile in $PROFILES; do
  for format in text ndjson; do
    f="$INPUTS/events-$EVENTS-$profile.$format"
    if [ ! -s "$f" ]; then
      python3 "$GEN_EVENTS" --events "$EVENTS" --profile "$profile" --format "$format" >"$f.tmp"
      mv "$f.tmp" "$f"
    fi
  done
  for a in tlbf apbf gebf exact; do
    compare "$profile.text -a $a" --stats=json -k 3 -t 1 -w 60s -a "$a" "$INPUTS/events-$EVENTS-$profile.text"
    compare "$profile.ndjson -a $a" --stats=json -k id -t ts -w 60s -a "$a" "$INPUTS/events-$EVENTS-$profile.ndjson"
  done
  for a in apbf gebf exact; do
    compare "$profile.text -n -a $a" --stats=json -k 3 -n 200000 -a "$a" "$INPUTS/events-$EVENTS-$profile.text"
  done
  compare "$profile.text --refresh" --stats=json -k 3 -t 1 -w 60s --refresh "$INPUTS/events-$EVENTS-$profile.text"
  compare "$profile.ndjson --refresh" --stats=json -k id -t ts -w 60s --refresh "$INPUTS/events-$EVENTS-$profile.ndjson"
done

# 3. State files: both binaries save byte-identical files, and continuing from the old
#    binary's file, each writes the same output and saves the same file again.
first=${PROFILES%% *}
head -n 300000 "$INPUTS/events-$EVENTS-$first.text" >"$WORK/part.text"
for window in "-w 60s -a tlbf" "-w 60s -a gebf" "-w 60s -a exact" "-n 50000 -a apbf" "-n 50000 -a gebf" "-n 50000 -a exact"; do
  read -ra args <<<"-k 3 -t 1 $window"
  "$OLD" "${args[@]}" --state "$WORK/first.old" "$WORK/part.text" >/dev/null
  "$NEW" "${args[@]}" --state "$WORK/first.new" "$WORK/part.text" >/dev/null
  cp "$WORK/first.old" "$WORK/again.old"
  cp "$WORK/first.old" "$WORK/again.new"
  "$OLD" "${args[@]}" --state "$WORK/again.old" "$WORK/part.text" >"$WORK/again.old.out"
  "$NEW" "${args[@]}" --state "$WORK/again.new" "$WORK/part.text" >"$WORK/again.new.out"
  what=""
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
