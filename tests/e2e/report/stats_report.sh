#!/usr/bin/env bash
# --stats reports memory per key only where it means something: on a small input it says what
# the memory is sized for (-c) instead of millions of bits per key; once the live keys fill the
# filter's sizing it gives bits per live key, near the README's figure. Every value of the text
# form starts in one column.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# The issue's command.
printf 'a\nb\na\n' | "$D" --stats > "$WORK/small.out" 2> "$WORK/small.err"
check "the issue's command: the records" "$(printf 'a\nb')" "$(cat "$WORK/small.out")"
check "small input: no bits per key" 0 "$(grep -c 'per key\|per live key' "$WORK/small.err" || true)"
check "small input: what the memory is sized for" 1 \
  "$(grep -c '^keys          2 inserted, 2 live (the memory is sized for 100000 keys per window, -c)$' "$WORK/small.err")"
printf 'a\nb\na\n' | "$D" --stats=json 2>&1 > /dev/null | grep -o '"live_keys":[0-9]*,"capacity":[0-9]*,"memory' \
  > "$WORK/small.json" || true
check "small input, JSON: capacity, no bits_per_key" '"live_keys":2,"capacity":100000,"memory' \
  "$(cat "$WORK/small.json")"
check "every value starts in column 15" 0 \
  "$(grep -v '^  ' "$WORK/small.err" | awk '{ if (substr($0, 14, 1) != " " || substr($0, 15, 1) == " ") bad++ } END { print bad + 0 }')"
check "the jumps forward line is aligned" 1 "$(grep -c '^jumps forward 0$' "$WORK/small.err")"

# 60,000 live keys of a filter sized for 100,000: bits per live key, of the order of the README's.
# Event time keeps the figures independent of how fast this machine reads: spread evenly over
# the 60 s window the keys fill 60 % of the steady sizing (48 bits at -e 1e-5, so ~80 bits);
# within one millisecond they are a burst, for which the filter grows past its steady size
# (206 bits here, 132 in the slice-major layout). On the wall clock a burst that spans a few
# ticks is measured as a rate of its own and sized for a window at that rate (800+ bits per
# live key), so that case only has to print a figure.
spread() { awk -v step="$1" 'BEGIN { for (i = 0; i < 60000; i++) printf "%d %d\n", 1700000000000 + int(i * step), i }'; }
bits_of() { sed -n 's/^keys .* \([0-9.]*\) bits per live key$/\1/p' "$1"; }
spread 1 | "$D" -t 1 --time-format epoch-ms -k 2 -w 60s --stats 2> "$WORK/steady.err" > /dev/null
bits=$(bits_of "$WORK/steady.err")
echo "     60,000 keys over the window: ${bits:-none} bits per live key"
check "filled evenly: bits per live key between 60 and 120" 1 \
  "$(awk -v b="${bits:-0}" 'BEGIN { print (b >= 60 && b <= 120) }')"
spread 0 | "$D" -t 1 --time-format epoch-ms -k 2 -w 60s --stats 2> "$WORK/burst.err" > /dev/null
bits=$(bits_of "$WORK/burst.err")
echo "     60,000 keys in one millisecond: ${bits:-none} bits per live key"
check "filled in a burst: bits per live key between 30 and 300" 1 \
  "$(awk -v b="${bits:-0}" 'BEGIN { print (b >= 30 && b <= 300) }')"
seq 60000 | "$D" --stats 2> "$WORK/wall.err" > /dev/null
bits=$(bits_of "$WORK/wall.err")
echo "     60,000 keys on the wall clock: ${bits:-none} bits per live key"
check "wall clock: a bits per live key figure" 1 "$(awk -v b="${bits:-0}" 'BEGIN { print (b > 0) }')"
# A count window is sized by -n.
printf 'a\nb\n' | "$D" -n 1000 --stats 2>&1 > /dev/null | grep -c 'sized for a window of 1000 keys, -n)$' > "$WORK/count" || true
check "count window: sized by -n" 1 "$(cat "$WORK/count")"
finish
