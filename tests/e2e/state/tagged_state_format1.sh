#!/usr/bin/env bash
# A tagged filter saved in format 1 (fixed slots, before the blocks were quotient filters) still
# loads and answers for the window: testdata/state/tagged-time-format1.state holds keys
# k1..k1000 inserted at times 1000 + i/10 s (integer division) with -a tagged -w 60s -e 1e-5.
# Asked at 1101 s, every key younger than the window is a duplicate, and every key older than
# the window plus the slack (3.75 s) is new again. The loaded filter takes new keys into a
# format 2 table and finds them, and saves and loads again.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

ask_saved_state tagged-time-format1.state
# Age 101 - i/10 s: inside the window (< 60 s) from i = 420 on, beyond 63.75 s up to i = 372.
check "keys inside the window are duplicates" 0 "$(count_numbered "$WORK/out.txt" k 'n >= 420')"
check "keys beyond window + slack are new" 372 "$(count_numbered "$WORK/out.txt" k 'n <= 372')"
continue_saved_state "after loading format 1"
"$D" -k 2 -t 1 --stats=json --state "$WORK/s.state" "$WORK/again.txt" > /dev/null 2> "$WORK/stats.json"
check "the state saved after loading format 1 loads as tagged" 1 "$(grep -c '"algorithm":"tagged"' "$WORK/stats.json")"
finish
