#!/usr/bin/env bash
# A binding --max-memory under --count: the held records whose windows close first are
# written early with the counts they have, the run says so at once (naming the record) and
# at exit, --stats counts them, and no copy is lost: the counts still add up to the input.
# --on-cap fail ends the run with status 1 after writing every held record. A record over
# the cap by itself is written at once (it crashed the holder once).
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

python3 "$GEN_EVENTS" --events 50000 --profile burst --phase 5000 --seed 5 > "$WORK/in.txt"
"$D" -k 3 -t 1 -w 1h --count --max-memory 256K --stats=json "$WORK/in.txt" > "$WORK/out" 2> "$WORK/err"
cat "$WORK/err"
check "the cap warns at once, naming the record" 1 \
  "$(grep -c "^tlbf-dedup: warning: $WORK/in.txt: record [0-9]*: the memory cap (--max-memory) bound: " "$WORK/err")"
check "and at exit, with the total" 1 "$(grep -c 'bound in this run: [0-9]* held record(s) were written before' "$WORK/err")"
early=$(sed -n 's/.*"written_early":\([0-9]*\).*/\1/p' "$WORK/err")
check "--stats counts the records written early" 1 "$([ "${early:-0}" -gt 1000 ] && echo 1 || echo 0)"
check "--stats: the held records stayed near the cap" 1 \
  "$(sed -n 's/.*"peak_bytes":\([0-9]*\).*/\1/p' "$WORK/err" | awk '{ print ($1 <= 300 * 1024) ? 1 : 0 }')"
check "no copy lost: the counts add up to the input" 50000 "$(awk '{ n += $1 } END { print n }' "$WORK/out")"
"$D" -k 3 -t 1 -w 1h --count "$WORK/in.txt" > "$WORK/whole"
check "written early means more records than without the cap" 1 \
  "$([ "$(wc -l < "$WORK/out")" -gt "$(wc -l < "$WORK/whole")" ] && echo 1 || echo 0)"

status=0
"$D" -k 3 -t 1 -w 1h --count --max-memory 256K --on-cap fail "$WORK/in.txt" > "$WORK/fail.out" 2> "$WORK/fail.err" ||
  status=$?
check "--on-cap fail: exit status 1" 1 "$status"
check "--on-cap fail: the message names the record" 1 \
  "$(grep -c 'record [0-9]*: the memory cap (--max-memory) bound: .*(--on-cap fail)' "$WORK/fail.err")"
read_records=$(awk '{ n += $1 } END { print n }' "$WORK/fail.out")
check "--on-cap fail: every held record written first (counts add up to what was read)" 1 \
  "$([ "$read_records" -gt 0 ] && [ "$read_records" -lt 50000 ] && echo 1 || echo 0)"
# One record larger than the cap: written at once, with its count, under --count and --keep last.
head -c 70000 /dev/zero | tr '\0' a > "$WORK/big.txt"
printf '\nb\nb\n' >> "$WORK/big.txt"
count_big() { awk '{ if (gsub(/a/, "a") == 70000) n++ } END { print n + 0 }' "$1"; }  # lines holding it whole
for mode in --count "--keep last"; do
  status=0
  # shellcheck disable=SC2086  # the mode is two words
  "$D" $mode --max-memory 64K "$WORK/big.txt" > "$WORK/big.out" 2> "$WORK/big.err" || status=$?
  check "$mode, a record over the cap by itself: exit status 0" 0 "$status"
  check "$mode: every record written" 2 "$(wc -l < "$WORK/big.out")"
  check "$mode: the big record whole" 1 "$(count_big "$WORK/big.out")"
  check "$mode: the cap's warning names the record" 1 \
    "$(grep -c "$WORK/big.txt: record 1: the memory cap (--max-memory) bound: 1 held record" "$WORK/big.err")"
done
status=0
"$D" --count --max-memory 64K --on-cap fail "$WORK/big.txt" > "$WORK/big.out" 2> "$WORK/big.err" || status=$?
check "--on-cap fail, a record over the cap by itself: exit status 1" 1 "$status"
check "--on-cap fail: that record written first" 1 "$(count_big "$WORK/big.out")"
finish
