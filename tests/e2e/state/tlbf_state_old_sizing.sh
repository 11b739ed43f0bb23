#!/usr/bin/env bash
# A TLBF state saved before the sizing change (10% headroom and the paper's eq. 4; now 3%,
# eq. 4 relaxed and the rate taken over k generations: docs/filters.md) loads and answers for
# the window: the format is the same, only the sizes of the slices made after loading differ.
# testdata/state/tlbf-time-format2-old-sizing.state holds keys k1..k1000 inserted at times
# 1000 + i/10 s (integer division) with -w 60s -e 1e-6 --capacity 2000 (k = 25, l = 39).
# Asked at 1101 s, every key younger than the window is a duplicate, and every key older than
# the window plus one cell (60/39 s) is new again.
source "$(dirname "$0")/../lib.bash"

ask_saved_state tlbf-time-format2-old-sizing.state
# Age 101 - i/10 s: inside the window (< 60 s) from i = 420 on, beyond 61.6 s up to i = 399.
check "keys inside the window are duplicates" 0 "$(count_numbered "$WORK/out.txt" k 'n >= 420')"
check "keys beyond window + one cell are new" 399 "$(count_numbered "$WORK/out.txt" k 'n <= 399')"
# The filter goes on with the new sizing from the loaded state: 2,000 more keys over the
# next 200 s, then every key younger than the window is found and the state loads again.
continue_saved_state "with the new sizing"
finish
