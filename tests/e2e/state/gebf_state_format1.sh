#!/usr/bin/env bash
# A time-window GEBF saved in its format 1 (left-closed epochs, written before epochs kept their
# last insert time) still loads, and answers for the window: testdata/state/gebf-time-format1.state
# holds keys k1..k1000 inserted at times 1000 + i/10 s (integer division) with -w 60s -e 1e-7, r = 8.
# Asked at 1101 s, every key younger than the window is a duplicate, and every key older than
# the window plus one epoch (7.5 s) is new again.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

ask_saved_state gebf-time-format1.state
# Age 101 - i/10 s: inside the window (< 60 s) from i = 420 on, beyond 67.5 s up to i = 339.
check "keys inside the window are duplicates" 0 "$(count_numbered "$WORK/out.txt" k 'n >= 420')"
check "keys beyond window + one epoch are new" 339 "$(count_numbered "$WORK/out.txt" k 'n <= 339')"
# The loaded filter is saved in the current format and loads again.
"$D" -k 2 -t 1 --state "$WORK/s.state" "$WORK/in.txt" > "$WORK/again.txt"
check "the state saved after loading format 1 loads" 0 "$(wc -l < "$WORK/again.txt")"
finish
