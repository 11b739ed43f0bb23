#!/usr/bin/env bash
# A TLBF state of state format 2, whose filter is in the TLBF's format 2 (the tight window's
# slices one after the other, written before the bit-sliced layout), still loads and answers
# for the window, and is saved again in state format 4: its slices answer as they are until
# they expire, beside a bit-sliced era that takes the new keys (docs/filters.md).
# testdata/state/tlbf-time-format2.state holds keys k1..k1000 inserted at times 1000 + i/10 s
# (integer division) with -w 60s and the default -e 1e-5 (k = 21, l = 43), hash seed 0x5eed.
# Asked at 1101 s, every key younger than the window is a duplicate, and every key older than
# the window plus one cell (60/43 s) is new again.
source "$(dirname "$0")/../lib.bash"

ask_saved_state tlbf-time-format2.state
# Age 101 - i/10 s: inside the window (< 60 s) from i = 420 on, beyond 61.4 s up to i = 399.
check "keys inside the window are duplicates" 0 "$(count_numbered "$WORK/out.txt" k 'n >= 420')"
check "keys beyond window + one cell are new" 399 "$(count_numbered "$WORK/out.txt" k 'n <= 399')"
check "the state is saved again in state format 4" 4 "$(od -A n -t u4 -j 8 -N 4 "$WORK/s.state" | tr -d ' ')"
# 2,000 more keys over the next 200 s go to the new era; then every key younger than the
# window is found, old and new, and the state loads again.
continue_saved_state "after loading"
finish
