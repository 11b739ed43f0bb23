#!/usr/bin/env python3
"""Synthetic event streams with known duplicates, for tlbf-dedup's tests and benchmarks.

Every event has an event time and a key. A key is one of three kinds:
  repeat   (share --dup-share) a key first drawn less than --dup-window seconds of event
           time ago: a duplicate for any window of at least --dup-window
  revisit  (share --revisit-share) a key first drawn 2 to 4 dup-windows ago: not a
           duplicate for a window of --dup-window, so a filter must let it through again
  new      otherwise, a key never drawn before ("k" and a 12-digit serial)
The rate of events per second of event time follows --profile, phase by phase (a phase is
--phase events), so that filters which adapt to the insertion rate are exercised:
  steady   --rate throughout
  burst    every 10th phase at 10 x --rate
  ramp     phases at 0.1, 0.3, 1, 3, 10, 3, 1, 0.3 x --rate, repeating
  idle     --rate, and every 5th phase starts after a silence of 3 dup-windows
--displace SHARE:MAX delays that share of the events by up to MAX seconds each (uniformly):
they come later in the stream than their time says, as in an export a few seconds out of
order; the others keep their order (sort -s -n -k1,1 for text, by "ts" for ndjson, puts
the stream back in time order, ties in the order written).
The same arguments always give the same bytes (the generator has no other input).

Formats (time: epoch seconds with milliseconds, from 2025-11-21T18:33:20Z):
  text     "<time> host=web-N id=<key> method=GET path=/p/N status=200 bytes=N"
           (blank-separated: the key is field 3, the time field 1)
  ndjson   {"ts":<time>,"id":"<key>","host":"web-N","req":{"method":"GET","path":"/p/N"},"status":200}
"""
import argparse
import bisect
import collections
import heapq
import json
import random
import sys

START = 1763750000.0
PATHS = ("/api/items", "/api/users", "/login", "/static/app.js", "/search")
RAMP = (0.1, 0.3, 1.0, 3.0, 10.0, 3.0, 1.0, 0.3)


def rate_of(profile, base, phase):
    """Events per second of event time during `phase`."""
    if profile == "burst":
        return base * 10 if phase % 10 == 9 else base
    if profile == "ramp":
        return base * RAMP[phase % len(RAMP)]
    return base


def times(a):
    """Each event's time, in order."""
    t = START
    for i in range(a.events):
        phase, offset = divmod(i, a.phase)
        if a.profile == "idle" and offset == 0 and phase % 5 == 4:
            t += 3 * a.dup_window
        t += 1.0 / rate_of(a.profile, a.rate, phase)
        yield t


def keys(a, rng):
    """(time, key) for each event, with the three kinds drawn as the docstring says."""
    recent = collections.deque()  # (first time, key) of keys first drawn within dup-window
    first_times, first_keys = [], []  # every key's first time, in order, for revisits
    serial = 0
    for t in times(a):
        while recent and recent[0][0] < t - a.dup_window:
            recent.popleft()
        u = rng.random()
        if recent and u < a.dup_share:
            yield t, recent[rng.randrange(len(recent))][1]
            continue
        lo = bisect.bisect_left(first_times, t - 4 * a.dup_window)
        hi = bisect.bisect_left(first_times, t - 2 * a.dup_window)
        if hi > lo and u < a.dup_share + a.revisit_share:
            yield t, first_keys[rng.randrange(lo, hi)]
            continue
        key = "k%012d" % serial
        serial += 1
        recent.append((t, key))
        first_times.append(t)
        first_keys.append(key)
        yield t, key


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=1_000_000)
    p.add_argument("--rate", type=float, default=1000.0, help="events per second of event time")
    p.add_argument("--profile", choices=["steady", "burst", "ramp", "idle"], default="steady")
    p.add_argument("--phase", type=int, default=50_000, help="events per rate phase")
    p.add_argument("--dup-share", type=float, default=0.3)
    p.add_argument("--dup-window", type=float, default=60.0, help="seconds")
    p.add_argument("--revisit-share", type=float, default=0.05)
    p.add_argument("--format", choices=["text", "ndjson"], default="text")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--displace", default="0:0", metavar="SHARE:MAX",
                   help="delay SHARE of the events by up to MAX seconds each")
    a = p.parse_args()
    if a.events < 0 or a.rate <= 0 or a.phase <= 0 or a.dup_window <= 0:
        p.error("--events must be >= 0; --rate, --phase and --dup-window > 0")
    try:
        share, most = (float(x) for x in a.displace.split(":"))
    except ValueError:
        p.error("--displace: expected SHARE:MAX, such as 0.4:5")

    rng = random.Random(a.seed)
    shift = random.Random(a.seed + 1)  # its own draws: the events are those of the same seed undisplaced
    out = sys.stdout
    lines = []
    waiting = []  # (arrival, serial, line): displaced lines, written once the stream reaches them

    def emit(t, line):
        while waiting and waiting[0][0] <= t:
            lines.append(heapq.heappop(waiting)[2])
        lines.append(line)

    for serial, (t, key) in enumerate(keys(a, rng)):
        host, path, n = rng.randrange(8), PATHS[rng.randrange(len(PATHS))], rng.randrange(10000)
        if a.format == "text":
            line = ("%.3f host=web-%d id=%s method=GET path=%s/%d status=200 bytes=%d\n"
                    % (t, host, key, path, n, rng.randrange(100, 90000)))
        else:
            record = {"ts": round(t, 3), "id": key, "host": "web-%d" % host,
                      "req": {"method": "GET", "path": "%s/%d" % (path, n)}, "status": 200}
            line = json.dumps(record, separators=(",", ":")) + "\n"
        if share > 0 and shift.random() < share:
            heapq.heappush(waiting, (t + shift.uniform(0, most), serial, line))
        else:
            emit(t, line)
        if len(lines) >= 4096:
            out.write("".join(lines))
            lines.clear()
    while waiting:
        lines.append(heapq.heappop(waiting)[2])
    out.write("".join(lines))


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # e.g. | head: the reader has what it wanted
        sys.stderr.close()
