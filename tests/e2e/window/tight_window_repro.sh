#!/usr/bin/env bash
# The reproductions of issue 10 for the default filters, and the stated slack:
#  - time window (tlbf): a key is a duplicate iff its age is below the window; at exactly
#    the window it is new. A at 0 s, 59 other keys at 1..59 s, A at 60 s: A twice.
#  - count window (apbf): A, 80 other keys, A with -n 2 (and -n 10): A twice; within the
#    window (8 other keys, -n 10) once.
#  - the slack, with times off the grid of cells: a key is reported up to age < window and
#    never (beyond the false-positive rate) from age window + window/l on; in between,
#    either answer may come.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

count_a() { grep -c '^\(.* \)\?A$' || true; }

check "-w 60s, A at 0 s and at exactly 60 s: A twice" 2 \
  "$( (echo "0 A"; for i in $(seq 59); do echo "$i k$i"; done; echo "60 A") | "$D" -k 2 -t 1 -w 60s | count_a)"
check "-w 60s, A at 0 s and at 59.999 s: A once" 1 \
  "$( (echo "0 A"; for i in $(seq 59); do echo "$i k$i"; done; echo "59.999 A") | "$D" -k 2 -t 1 -w 60s | count_a)"
check "-n 2, A, 80 other keys, A: A twice" 2 "$( (echo A; seq 80; echo A) | "$D" -n 2 | count_a)"
check "-n 10, A, 80 other keys, A: A twice" 2 "$( (echo A; seq 80; echo A) | "$D" -n 10 | count_a)"
check "-n 10, A, 8 other keys, A: A once" 1 "$( (echo A; seq 8; echo A) | "$D" -n 10 | count_a)"

# Offset times: A at 0.37 s, a record every second; the slack at -w 60s is 60/l s (l from
# --stats=json). Ages just below 60 s must be duplicates; ages of 60 s + slack must be new.
l=$( (echo "0 x") | "$D" -q -k 2 -t 1 -w 60s --stats=json 2>&1 >/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["filter"]["l"])')
slack=$(awk -v l="$l" 'BEGIN { printf "%.3f", int(60e9 / l) / 1e9 + 0.0005 }')
echo "     l=$l, slack ${slack} s"
late_new=0
early_dup=0
for offset in 0.37 0.5 0.99 13.2 41.7; do
  # A at `offset`, then one key a second from offset+0.25 on.
  gen() { awk -v o="$offset" 'BEGIN { printf "%.3f A\n", o; for (i = 0; i <= 65; i++) printf "%.3f k%d\n", o + 0.25 + i, i }'; }
  before=$(awk -v o="$offset" 'BEGIN { printf "%.3f", o + 59.999 }')
  after=$(awk -v o="$offset" -v s="$slack" 'BEGIN { printf "%.3f", o + 60 + s }')
  a_early=$( (gen | awk -v t="$before" '$1 < t'; echo "$before A") | "$D" -k 2 -t 1 -w 60s | count_a)
  a_late=$( (gen | awk -v t="$after" '$1 < t'; echo "$after A") | "$D" -k 2 -t 1 -w 60s | count_a)
  early_dup=$((early_dup + (a_early == 1)))
  late_new=$((late_new + (a_late == 2)))
done
check "offset times: A at age 59.999 s is a duplicate (5 phases)" 5 "$early_dup"
check "offset times: A at age 60 s + slack is new (5 phases)" 5 "$late_new"
finish
