#!/usr/bin/env python3
"""Judges a run's decisions, as its --explain lines show them, against exact window semantics.

Usage: explain_judge.py EXPLAINED WINDOW SLACK [--count] [--refresh]
EXPLAINED holds tlbf-dedup --explain=N lines (file:record, key parts, time text, time, clock,
decision), so any input format and any key and time options can be judged: the key is its
parts as the tool read them and the time is the tool's clock, in nanoseconds (lines made from
other output may give plain seconds as the clock). WINDOW and SLACK
are seconds; with --count they are inserts, and a record's time is the number of keys inserted
before it (a count window). With --refresh every copy of a key restarts its window (the tool's
--refresh), otherwise only an emitted one does. For each record the judge knows the tool's last
emitted (or, with --refresh, seen) copy of its key, and prints:
  fn      records let through although that copy is inside the window
  fp      records dropped with no such copy, or one at least WINDOW + SLACK old
  slack   records dropped whose copy is WINDOW..WINDOW + SLACK old (allowed)
  kept_exact  records exact window semantics would emit (the base of the rate)
Records the tool could not read (decision `error`) pass through and are not judged.
"""
import calendar
import sys


def nanos(clock):
    """2025-11-21T18:33:20.001Z (or plain seconds, 1763750000.001) -> nanoseconds since the
    epoch, exactly."""
    if "T" not in clock:
        whole, _, fraction = clock.partition(".")
        return int(whole) * 10**9 + int((fraction + "000000000")[:9])
    stamp = clock.rstrip("Z")
    whole, _, fraction = stamp.partition(".")
    seconds = calendar.timegm(tuple(int(x) for x in whole.replace("T", "-").replace(":", "-").split("-")) + (0, 0, 0))
    return seconds * 10**9 + int((fraction + "000000000")[:9])


def main():
    path, window, slack = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    count = "--count" in sys.argv[4:]
    refresh = "--refresh" in sys.argv[4:]
    scale = 1 if count else 10**9
    window_units, slack_units = round(window * scale), round(slack * scale)
    last = {}
    clock = None
    inserts = 0
    n = fn = fp = in_slack = kept_exact = 0
    with open(path, encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            decision = fields[5].split()[0]
            if decision == "error":
                continue
            n += 1
            key = fields[1]
            now = inserts if count else nanos(fields[4])
            clock = now if clock is None else max(clock, now)
            prev = last.get(key)
            age = None if prev is None else clock - prev
            # A count window remembers the last WINDOW inserts, the key's own among them.
            inside = age is not None and (age <= window_units if count else age < window_units)
            kept_exact += not inside
            if decision == "dup":
                if age is None or age >= window_units + slack_units + (1 if count else 0):
                    fp += 1
                elif not inside:
                    in_slack += 1
            elif inside:
                fn += 1
            if decision == "new" or refresh:
                last[key] = clock
                inserts += 1
    print(f"records={n} kept_exact={kept_exact} fn={fn} fp={fp} slack={in_slack}")


main()
