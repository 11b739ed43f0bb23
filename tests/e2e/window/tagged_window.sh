#!/usr/bin/env bash
# The tagged filter (-a tagged) judged against exact window semantics from the tool's own
# --mark output (tests/e2e/window_judge.py): no record let through whose previous emitted
# copy is younger than the window, and drops beyond window + slack (the slack from
# --stats=json) only at the false-positive rate; on a bursty generated stream, on periodic
# keys returning at 1.05 windows (inside the slack of window/16: those may count as
# duplicates, and are counted apart). Then the state file round trip and --threads 2.
source "$(dirname "$0")/../lib.bash"
: "${GEN_EVENTS:?}"
D="$TLBF_DEDUP"
HERE=$(dirname "$0")

# judge NAME FILE -- ARGS...: one run with --mark and --stats=json, then the judge.
judge_tagged() {
  local name=$1 file=$2 out fn fp exact slack
  shift 3
  "$D" -a tagged -q --mark --stats=json "$@" "$file" > "$WORK/$name.marked" 2> "$WORK/$name.json"
  slack=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["filter"]["slack_seconds"])' "$WORK/$name.json")
  out=$(python3 "$HERE/../window_judge.py" "$WORK/$name.marked" 60 "$slack")
  echo "     $name (slack ${slack}s): $out"
  fn=$(sed 's/.*fn=\([0-9]*\).*/\1/' <<<"$out")
  fp=$(sed 's/.* fp=\([0-9]*\).*/\1/' <<<"$out")
  exact=$(sed 's/.*kept_exact=\([0-9]*\).*/\1/' <<<"$out")
  check "$name: no false negatives" 0 "$fn"
  check "$name: drops beyond window + slack at most 1.5 x -e" 1 "$(awk -v f="$fp" -v n="$exact" 'BEGIN { print (f <= int(1.5e-3 * n) + 1) }')"
}

python3 "$GEN_EVENTS" --events 200000 --profile burst --dup-window 64 --seed 7 | awk '{ print $1, $3 }' > "$WORK/burst.txt"
judge_tagged burst "$WORK/burst.txt" -- -k 2 -t 1 -w 60s -e 1e-3
python3 "$HERE/../gen_periodic.py" 63 900 2000 200 > "$WORK/periodic.txt"
judge_tagged periodic "$WORK/periodic.txt" -- -k 2 -t 1 -w 60s -e 1e-3

# The state file: two runs through --state decide as one run does.
head -n 100000 "$WORK/burst.txt" > "$WORK/first"
tail -n +100001 "$WORK/burst.txt" > "$WORK/second"
"$D" -a tagged -k 2 -t 1 -w 60s "$WORK/burst.txt" > "$WORK/whole"
"$D" -a tagged -k 2 -t 1 -w 60s --state "$WORK/s.state" "$WORK/first" > "$WORK/split"
"$D" -a tagged -k 2 -t 1 -w 60s --state "$WORK/s.state" "$WORK/second" >> "$WORK/split"
check "--state: two runs decide as one" "$(md5sum < "$WORK/whole")" "$(md5sum < "$WORK/split")"
# Two threads decide as one.
"$D" -a tagged -k 2 -t 1 -w 60s --threads 2 "$WORK/burst.txt" > "$WORK/threads"
check "--threads 2 decides as one thread" "$(md5sum < "$WORK/whole")" "$(md5sum < "$WORK/threads")"
# --count and --keep last decide with an exact table of their own, so they refuse -a tagged.
check "--count refuses -a tagged" 2 "$("$D" -a tagged -k 2 -t 1 -w 60s --count "$WORK/first" > /dev/null 2>&1; echo $?)"
finish
