#!/usr/bin/env bash
# Issue 52, item 1, in the Redis module: through `tlbf-dedup --redis`, a unique record is lost
# at most at 1.5 x -e when the rate jumps up by 10^4 and back down (10 records a second for a
# minute, 10^5 in one second, 10 a second for a minute; every key distinct, so each record
# dropped is a false positive). The module's filters are the library's (redis-module/), whose
# property test runs the jumps of 10x to 10^6x; this checks the module's path to them.
source "$(dirname "$0")/../redis_lib.bash"
D=$TLBF_DEDUP

awk 'BEGIN { t = 1700000000; i = 0
  for (s = 0; s < 60; s++) for (j = 0; j < 10; j++) printf "%.3f k%d\n", t + s + j / 10, i++
  t += 60; for (j = 0; j < 100000; j++) printf "%.6f k%d\n", t + j / 1e5, i++
  t += 1; for (s = 0; s < 60; s++) for (j = 0; j < 10; j++) printf "%.3f k%d\n", t + s + j / 10, i++ }' > "$WORK/jump.txt"
start_server s
for e in 1e-2 1e-3; do
  kept=$("$D" --redis "redis://127.0.0.1:${PORT[s]}" --redis-key "jump$e" -k 2 -t 1 -w 1m -e "$e" "$WORK/jump.txt" | wc -l)
  lost=$((101200 - kept))
  check "--redis, a jump of 10^4x up and down, -e $e: $lost of 101200 lost, at most 1.5 x -e" 1 \
    "$(awk -v l="$lost" -v e="$e" 'BEGIN { print (l <= 1.5 * e * 101200 + 1) }')"
done
finish
