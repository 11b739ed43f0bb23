#!/usr/bin/env bash
# --count against an exact reference made independently (tests/e2e/count_reference.py groups
# each key's copies by window and orders the groups by their close) on a generated bursty
# stream, text and NDJSON: counts, first and last times, the copy kept and the order, exactly;
# from the first copy and from the last (--refresh), keeping the first copy and the last.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
REF="$E2E_DIR/count_reference.py"

python3 "$GEN_EVENTS" --events 60000 --rate 100 --profile burst --phase 6000 --dup-window 30 --seed 8 > "$WORK/burst.txt"
python3 "$GEN_EVENTS" --events 30000 --rate 100 --profile burst --phase 3000 --dup-window 30 --seed 9 --format ndjson \
  > "$WORK/burst.ndjson"

# reference NAME INPUT REFERENCE-OPTIONS -- PROGRAM-OPTIONS
reference() {
  local name=$1 input=$2 ref=() result
  shift 2
  while [ "$1" != -- ]; do ref+=("$1"); shift; done
  shift
  "$D" "$@" "$input" > "$WORK/$name.out"
  result=$(python3 "$REF" "${ref[@]}" --out "$WORK/$name.out" "$input")
  echo "     $name: $result"
  check "$name: as the reference" ok "${result%%:*}"
}
reference text "$WORK/burst.txt" --key 3 --time 1 --window 60 -- -k 3 -t 1 -w 60s --count
reference text_refresh "$WORK/burst.txt" --key 3 --time 1 --window 20 --refresh -- -k 3 -t 1 -w 20s --refresh --count
reference text_last "$WORK/burst.txt" --key 3 --time 1 --window 45 --keep last -- -k 3 -t 1 -w 45s --keep last --count
reference wall_clock "$WORK/burst.txt" --key 3 -- -k 3 -w 3650d --count --threads 1
reference json "$WORK/burst.ndjson" --json --key id --time ts --window 60 -- -k id -t ts -w 60s --count
reference json_last "$WORK/burst.ndjson" --json --key id --time ts --window 10 --keep last --refresh -- \
  -k id -t ts -w 10s --keep last --refresh --count

# The reference itself notices a wrong count.
sed '1s/^\([0-9]*\) /\10 /' "$WORK/text.out" > "$WORK/wrong.out"
check "the reference catches a wrong count" DIFFERS \
  "$(python3 "$REF" --key 3 --time 1 --window 60 --out "$WORK/wrong.out" "$WORK/burst.txt" | cut -d' ' -f1)"
finish
