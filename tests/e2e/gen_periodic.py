#!/usr/bin/env python3
"""Periodic keys among unique ones, as "<seconds> <key>" lines in time order.

Usage: gen_periodic.py PERIOD DURATION NKEYS BGRATE [SEED]
NKEYS keys p0.. each repeat every PERIOD seconds from a random phase, over DURATION
seconds, among BGRATE unique keys u0.. per second at random times. With PERIOD a little
above a filter's window every periodic repeat is new under exact window semantics, so a
filter that remembers past its window drops them.
"""
import random
import sys

period, duration = float(sys.argv[1]), float(sys.argv[2])
nkeys, bgrate = int(sys.argv[3]), float(sys.argv[4])
random.seed(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
events = []
for i in range(nkeys):
    t = random.random() * period
    while t < duration:
        events.append((t, "p%d" % i))
        t += period
for j in range(int(duration * bgrate)):
    events.append((random.random() * duration, "u%d" % j))
events.sort()
out = sys.stdout
for t, k in events:
    out.write("%.3f %s\n" % (t, k))
