#!/usr/bin/env bash
# Outputs of every command of scripts/output-commands.bash (shared_data.sh's commands on
# ../shared/data, each filter class on generated inputs of 100,000 events per profile and
# format), each held to what its filter promises:
#  - exact: `-a exact`, and every command that stops with an error, must write what it wrote
#    when testdata/output_identity.sha256 was recorded: the same exit status, stdout and stderr
#    (timings and input folders taken out), as must the exact filters' state files;
#  - approximate (tlbf, apbf, gebf, tagged): which unique keys are false positives depends on the
#    filter's sizing and probe positions, so the run's decisions (its --explain lines) are
#    judged against exact window semantics instead (tests/e2e/explain_judge.py): no false
#    negatives, no drops at ages of the window plus the filter's slack or more beyond 1.5 x -e
#    of the records exact semantics keep (plus one), and the exit status recorded; the state
#    of each is saved, loaded and judged again.
# A change that means to change an exact output re-records the file and says why in its commit:
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

# exact_filter ARGS...: true when the command runs -a exact (the default filter is tlbf).
exact_filter() {
  local prev="" a
  for a in "$@"; do
    [ "$prev" = -a ] && [ "$a" = exact ] && return 0
    prev=$a
  done
  return 1
}

# digest NAME ARGS...: appends "NAME<TAB>STATUS<TAB>SHA256(stdout)<TAB>SHA256(stderr)" for an
# exact command or one that fails; judges any other (judged_run).
digest() {
  local name=$1 status=0
  shift
  "$TLBF_DEDUP" "$@" >"$WORK/out" 2>"$WORK/raw" || status=$?
  if [ "$status" -ne 0 ] || exact_filter "$@"; then
    normalise_stderr "$WORK/raw" "$WORK/err"
    printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$(sha256sum <"$WORK/out" | cut -d' ' -f1)" \
      "$(sha256sum <"$WORK/err" | cut -d' ' -f1)" >>"$WORK/digests"
  else
    printf '%s\t%s\tjudged\tjudged\n' "$name" "$status" >>"$WORK/digests"
    [ "$record" -eq 1 ] || judged_run "$name" "$WORK/raw" "$@"
  fi
}

# judged_run NAME STATS ARGS...: judges the command's decisions (--explain of every record).
judged_run() {
  local name=$1 stats=$2
  shift 2
  "$TLBF_DEDUP" --explain=1000000000 "$@" >"$WORK/explained" 2>/dev/null
  judge_explained "$name" "$stats" "$@"
}

# judge_explained NAME STATS ARGS...: judges $WORK/explained with the window and slack of the
# filter ARGS ask for, as STATS (its --stats=json) shows it: a time window of the TLBF or APBF
# is late by a cell at most (span / l), the GEBF's by an epoch (span / r, r + 1 of them live),
# the tagged filter's by the slack its stats state ((E + 1) L - span, about span / E); a count
# window the same in inserts.
judge_explained() {
  local name=$1 stats=$2 window slack error count="" refresh="" a prev="" out
  shift 2
  error=1e-5
  for a in "$@"; do
    case "$prev" in
      -w) window=$(duration_seconds "$a") ;;
      -n) window=$a count=--count ;;
      -e) error=$a ;;
    esac
    [ "$a" = --refresh ] && refresh=--refresh
    prev=$a
  done
  slack=$(python3 - "$stats" "$window" <<'PY'
import json, math, sys
report = [line for line in open(sys.argv[1]) if line.startswith("{")][-1]  # after any warnings
f = json.loads(report)["filter"]
if "slack_seconds" in f:  # the tagged filter states its own
    print(f["slack_seconds"])
    sys.exit()
parts = f["l"] if f["l"] else f["slices"] - 1  # a cell of the TLBF or APBF, an epoch of the GEBF
print(math.ceil(float(sys.argv[2]) / parts * 1e9) / 1e9)
PY
)
  out=$(python3 "$E2E_DIR/explain_judge.py" "$WORK/explained" "$window" "$slack" $count $refresh)
  echo "     $name (slack $slack): $out"
  local fn fp kept
  fn=$(sed 's/.*fn=\([0-9]*\).*/\1/' <<<"$out")
  fp=$(sed 's/.*fp=\([0-9]*\).*/\1/' <<<"$out")
  kept=$(sed 's/.*kept_exact=\([0-9]*\).*/\1/' <<<"$out")
  check "$name: no false negatives" 0 "$fn"
  check "$name: drops beyond window + slack <= 1.5 x $error of the kept" 1 \
    "$(python3 -c "print(1 if $fp <= 1.5 * $error * $kept + 1 else 0)")"
}

# duration_seconds D: -w's value (60s, 5m, 1d, 1h, or plain seconds) in seconds.
duration_seconds() {
  python3 -c '
import re, sys
m = re.fullmatch(r"([0-9.]+)(ms|s|m|h|d)?", sys.argv[1])
print(float(m.group(1)) * {"ms": 1e-3, "s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}[m.group(2)])' "$1"
}

: >"$WORK/digests"
output_commands digest

# State files: an exact filter's saved bytes, then a second run continuing from them (its
# stdout and the state it saves again); an approximate filter's state is judged as it goes on.
head -n "$OUTPUT_STATE_LINES" "$(generated_input "${PROFILES%% *}" text)" >"$WORK/part.text"
for window in "${OUTPUT_STATE_WINDOWS[@]}"; do
  read -ra args <<<"-k 3 -t 1 $window"
  rm -f "$WORK/state"
  if exact_filter "${args[@]}"; then
    digest "state $window: first run" "${args[@]}" --state "$WORK/state" "$WORK/part.text"
    printf 'state %s: saved\t-\t%s\t-\n' "$window" "$(sha256sum <"$WORK/state" | cut -d' ' -f1)" >>"$WORK/digests"
    digest "state $window: continued" "${args[@]}" --state "$WORK/state" "$WORK/part.text"
    printf 'state %s: saved again\t-\t%s\t-\n' "$window" "$(sha256sum <"$WORK/state" | cut -d' ' -f1)" >>"$WORK/digests"
  else
    # The first half saved, then the rest from the state, both with --mark: the records'
    # marks, as explain_judge.py's lines (key field 3, time field 1), judged as one run.
    printf 'state %s: first half, then the rest from the state\t0\tjudged\tjudged\n' "$window" >>"$WORK/digests"
    [ "$record" -eq 1 ] && continue
    half=$((OUTPUT_STATE_LINES / 2))
    head -n "$half" "$WORK/part.text" >"$WORK/half1"
    tail -n +"$((half + 1))" "$WORK/part.text" >"$WORK/half2"
    "$TLBF_DEDUP" "${args[@]}" --stats=json --mark --state "$WORK/state" "$WORK/half1" >"$WORK/marked" 2>"$WORK/stats"
    "$TLBF_DEDUP" "${args[@]}" --mark --state "$WORK/state" "$WORK/half2" >>"$WORK/marked"
    awk -F'[\t ]' '{ printf "-\t%s\t-\t-\t%s\t%s\n", $4, $2, $1 }' "$WORK/marked" >"$WORK/explained"
    judge_explained "state $window" "$WORK/stats" "${args[@]}"
  fi
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
