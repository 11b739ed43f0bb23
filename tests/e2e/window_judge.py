#!/usr/bin/env python3
"""Judges a tool's --mark output on "<seconds> <key>" records against exact window semantics.

Usage: window_judge.py MARKED WINDOW SLACK
MARKED holds "dup|new<TAB><seconds> <key>" lines (tlbf-dedup --mark -k 2 -t 1). For each
record the judge knows the tool's last emitted copy of its key and the clock (the largest
time seen), and prints:
  fn      records let through although their previous emitted copy is younger than WINDOW
  fp      records dropped with no emitted copy, or one at least WINDOW + SLACK old
  slack   records dropped whose previous emitted copy is WINDOW..WINDOW + SLACK old (allowed)
  kept_exact  records exact window semantics would emit (the base of the rate)
"""
import sys

marked, window, slack = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
last = {}
clock = float("-inf")
n = fn = fp = in_slack = kept_exact = 0
with open(marked, encoding="utf-8") as f:
    for line in f:
        n += 1
        flag, rest = line.rstrip("\n").split("\t", 1)
        t, key = rest.split(" ", 1)
        clock = max(clock, float(t))
        prev = last.get(key)
        age = None if prev is None else clock - prev
        inside = age is not None and age < window
        if not inside:
            kept_exact += 1
        if flag == "dup":
            if age is None or age >= window + slack:
                fp += 1
            elif not inside:
                in_slack += 1
        else:
            if inside:
                fn += 1
            last[key] = clock
print(f"records={n} kept_exact={kept_exact} fn={fn} fp={fp} slack={in_slack}")
