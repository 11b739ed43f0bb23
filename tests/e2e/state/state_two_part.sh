#!/usr/bin/env bash
# Running an input in parts with the same --state gives, byte for byte, the output of running
# it whole: the state carries the filter and the clock from one run to the next. Checked for
# every filter, for text and NDJSON, for a split in two and in five, and with the window
# options left out of the later runs (the state file supplies them).
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
# The whole run and the first part draw their own hash seeds unless fixed; with one seed even
# their false positives are the same, so the outputs can be compared byte for byte.
export TLBF_DEDUP_HASH_SEED=11

python3 "$GEN_EVENTS" --events 20000 --rate 200 --dup-window 20 --profile burst --phase 2000 --seed 11 > "$WORK/all.txt"
python3 "$GEN_EVENTS" --events 6000 --rate 200 --dup-window 20 --format ndjson --seed 12 > "$WORK/all.ndjson"

# two_part NAME INPUT PARTS OPTIONS...: runs INPUT whole, then in PARTS pieces with one state
# file (the later pieces with only the key/time options), and compares the outputs.
parts_run() {
  local name=$1 input=$2 parts=$3
  shift 3
  local lines per i st="$WORK/$name.state"
  rm -f "$st" "$WORK/$name".part* "$WORK/$name.parts.out"
  "$D" "$@" "$input" > "$WORK/$name.whole.out"
  lines=$(wc -l < "$input")
  per=$(((lines + parts - 1) / parts))
  split -l "$per" -d -a 2 "$input" "$WORK/$name.part"
  i=0
  for part in "$WORK/$name".part*; do
    if [ $i -eq 0 ]; then
      "$D" "$@" --state "$st" "$part" >> "$WORK/$name.parts.out"
    else
      "$D" "${KEY_TIME[@]}" --state "$st" "$part" >> "$WORK/$name.parts.out"
    fi
    i=$((i + 1))
  done
  check "$name: $i runs were made" "$parts" "$i"
  check "$name: the whole run dropped duplicates" 1 "$([ "$(wc -l < "$WORK/$name.whole.out")" -lt "$lines" ] && echo 1 || echo 0)"
  check_files "$name: parts = whole" "$WORK/$name.whole.out" "$WORK/$name.parts.out"
}

KEY_TIME=(-k 3 -t 1)
parts_run tlbf "$WORK/all.txt" 2 -k 3 -t 1 -w 20s
parts_run tlbf-5 "$WORK/all.txt" 5 -k 3 -t 1 -w 20s -e 1e-3 -c 500
parts_run gebf-time "$WORK/all.txt" 2 -k 3 -t 1 -w 20s -a gebf
parts_run exact-time "$WORK/all.txt" 3 -k 3 -t 1 -w 20s -a exact
parts_run apbf "$WORK/all.txt" 2 -k 3 -t 1 -n 3000
parts_run gebf-count "$WORK/all.txt" 2 -k 3 -t 1 -n 3000 -a gebf
parts_run exact-count "$WORK/all.txt" 4 -k 3 -t 1 -n 3000 -a exact
KEY_TIME=(-k id -t ts)
parts_run tlbf-ndjson "$WORK/all.ndjson" 2 -k id -t ts -w 20s

# Repeating a window option with the value the state holds is accepted; a different one is a
# usage error that names the option, and leaves the state alone.
st="$WORK/tlbf.state"
cp "$st" "$WORK/tlbf.state.before"
status=0
"$D" -k 3 -t 1 -w 20s --state "$st" < /dev/null > /dev/null || status=$?
check "the same -w as the state: accepted" 0 "$status"
cp "$st" "$WORK/tlbf.state.before"
status=0
"$D" -k 3 -t 1 -w 30s --state "$st" < /dev/null > /dev/null 2> "$WORK/conflict.err" || status=$?
check "a different -w than the state: usage error" 2 "$status"
check "the message names the option" yes "$(grep -q -e '-w' -e '--window' "$WORK/conflict.err" && echo yes || echo no)"
check_files "the state is untouched after the usage error" "$WORK/tlbf.state.before" "$st"
finish
