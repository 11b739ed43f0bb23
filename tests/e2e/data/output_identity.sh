#!/usr/bin/env bash
# Output identity: every command of scripts/output-commands.bash (shared_data.sh's commands
# on ../shared/data, each filter class on generated inputs of 100,000 events per profile and
# format) must write what it wrote when testdata/output_identity.sha256 was recorded: the same
# exit status, the same stdout and the same stderr (timings and input folders taken out), as
# must the state files of the state checks. A speed change must keep all of them; a change
# that means to change an output (the filters' sizing or probe positions decide which unique
# keys are false positives) re-records the file and says why in its commit:
#
#   TLBF_DEDUP=path/to/tlbf-dedup bash tests/e2e/data/output_identity.sh --record
#
# Skips (exit 77) without ../shared/data, as the digests cover those files too.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
: "${TESTDATA:=$ROOT/testdata}" "${SHARED_DATA:=$ROOT/../shared/data}"
: "${GEN_EVENTS:=$ROOT/tests/gen_events.py}"
source "$HERE/../lib.bash"
record=0
case "${1:-}" in
  --record) record=1 ;;
  "") ;;
  *) echo "usage: $0 [--record]" >&2; exit 2 ;;
esac
need_shared_data
DIGESTS=$TESTDATA/output_identity.sha256
[ -f "$GEN_EVENTS" ] || { echo "FAIL: $GEN_EVENTS not found"; exit 1; }
# The recorded digests hold for exactly these inputs and this hash seed, whatever the caller's
# environment says: lib.bash and output-commands.bash keep a TLBF_DEDUP_HASH_SEED the caller
# exported (the benchmarks use 0, and one exported by hand to repeat them stays in the shell),
# and under another seed other unique keys are false positives and every state file differs.
EVENTS=100000
PROFILES="steady burst"
export TLBF_DEDUP_HASH_SEED=0x5eed
INPUTS=$WORK/inputs
source "$ROOT/scripts/output-commands.bash"
make_generated_inputs

# digest NAME ARGS...: appends "NAME<TAB>STATUS<TAB>SHA256(stdout)<TAB>SHA256(stderr)".
digest() {
  local name=$1 status=0
  shift
  "$TLBF_DEDUP" "$@" >"$WORK/out" 2>"$WORK/raw" || status=$?
  normalise_stderr "$WORK/raw" "$WORK/err"
  printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$(sha256sum <"$WORK/out" | cut -d' ' -f1)" \
    "$(sha256sum <"$WORK/err" | cut -d' ' -f1)" >>"$WORK/digests"
}
: >"$WORK/digests"
output_commands digest

# State files: the saved bytes, then a second run continuing from them (its stdout and the
# state it saves again).
head -n "$OUTPUT_STATE_LINES" "$(generated_input "${PROFILES%% *}" text)" >"$WORK/part.text"
for window in "${OUTPUT_STATE_WINDOWS[@]}"; do
  read -ra args <<<"-k 3 -t 1 $window"
  rm -f "$WORK/state"
  digest "state $window: first run" "${args[@]}" --state "$WORK/state" "$WORK/part.text"
  printf 'state %s: saved\t-\t%s\t-\n' "$window" "$(sha256sum <"$WORK/state" | cut -d' ' -f1)" >>"$WORK/digests"
  digest "state $window: continued" "${args[@]}" --state "$WORK/state" "$WORK/part.text"
  printf 'state %s: saved again\t-\t%s\t-\n' "$window" "$(sha256sum <"$WORK/state" | cut -d' ' -f1)" >>"$WORK/digests"
done

if [ "$record" -eq 1 ]; then
  {
    echo "# Digests of tlbf-dedup's outputs for tests/e2e/data/output_identity.sh, recorded with"
    echo "# $("$TLBF_DEDUP" --version 2>&1 | head -1) on $EVENTS generated events per file."
    echo "# command<TAB>exit status<TAB>sha256 of stdout (or of the state file)<TAB>sha256 of stderr"
    cat "$WORK/digests"
  } >"$DIGESTS"
  echo "recorded $(wc -l <"$WORK/digests") digests in $DIGESTS"
  exit 0
fi

[ -f "$DIGESTS" ] || { echo "FAIL: $DIGESTS not found; record it with --record"; exit 1; }
grep -v '^#' "$DIGESTS" >"$WORK/recorded"
check "every command recorded was run, and only those" "$(cut -f1 "$WORK/recorded")" "$(cut -f1 "$WORK/digests")"
# One check per command, naming what changed.
while IFS=$'\t' read -r name status out err; do
  want=$(awk -F'\t' -v n="$name" '$1 == n { print $2 "\t" $3 "\t" $4; exit }' "$WORK/recorded")
  [ -n "$want" ] || continue  # already reported by the list check above
  IFS=$'\t' read -r want_status want_out want_err <<<"$want"
  what=""
  [ "$status" = "$want_status" ] || what+=" exit status $want_status -> $status"
  if [ "$out" != "$want_out" ]; then
    if [ "$want_err" = - ]; then what+=" state file"; else what+=" stdout"; fi
  fi
  [ "$err" = "$want_err" ] || what+=" stderr"
  check "$name: as recorded" same "${what:-same}"
done <"$WORK/digests"
if [ "$fails" -gt 0 ]; then
  echo "An output changed. If the change means it (new filter sizing or probe positions change which"
  echo "unique keys are false positives), re-record with --record and say why in the commit."
fi
finish
