#!/usr/bin/env bash
# Issue 52, item 1, through the program: a unique record is lost at most at 1.5 x -e when the
# insertion rate jumps up by 10^3 or 10^5 and back down, on the record clock (-t) and on the
# wall clock (a trickle, a flood, a trickle). Every key is distinct, so each record dropped is
# a false positive. (The library's property test, tests/tlbf/test_window_properties.cpp, runs
# the jumps of 10x to 10^6x at 1e-2, 1e-3 and 1e-5; tests/e2e/redis/redis_rate_jump.sh the
# Redis module.)
source "$(dirname "$0")/../lib.bash"
D=$TLBF_DEDUP

# jump_file N: 10 records a second for a minute, N in one second, 10 a second for a minute.
jump_file() {
  awk -v n="$1" 'BEGIN { t = 1700000000; i = 0
    for (s = 0; s < 60; s++) for (j = 0; j < 10; j++) printf "%.3f k%d\n", t + s + j / 10, i++
    t += 60; for (j = 0; j < n; j++) printf "%.7f k%d\n", t + j / n, i++
    t += 1; for (s = 0; s < 60; s++) for (j = 0; j < 10; j++) printf "%.3f k%d\n", t + s + j / 10, i++ }'
}
# within LABEL ERROR TOTAL KEPT: the records lost are at most 1.5 x ERROR of TOTAL.
within() {
  local lost=$(($3 - $4))
  check "$1: $lost of $3 lost, at most 1.5 x -e" 1 "$(awk -v l="$lost" -v e="$2" -v n="$3" 'BEGIN { print (l <= 1.5 * e * n + 1) }')"
}

for n in 10000 1000000; do
  jump_file "$n" > "$WORK/jump.txt"
  total=$((n + 1200))
  for e in 1e-2 1e-3; do
    kept=$("$D" -k 2 -t 1 -w 1m -e "$e" "$WORK/jump.txt" | wc -l)
    within "record clock, a jump of $((n / 10))x up and down, -e $e" "$e" "$total" "$kept"
  done
done

# The wall clock: 10 lines over 2 s, 10^5 at once, 10 more over 2 s; a 10 s window.
for e in 1e-2 1e-3; do
  kept=$({ for i in $(seq 10); do echo "before $i"; sleep 0.2; done
           seq 100000 | sed 's/^/flood /'
           for i in $(seq 10); do echo "after $i"; sleep 0.2; done; } | "$D" -w 10s -e "$e" | wc -l)
  within "wall clock, a trickle, 10^5 lines at once, a trickle, -e $e" "$e" 100020 "$kept"
done
finish
