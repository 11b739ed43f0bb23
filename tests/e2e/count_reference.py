#!/usr/bin/env python3
"""The exact reference for tlbf-dedup --count: checks a run's output against counts made here.

    count_reference.py [--window SECONDS] [--key SPEC] [--time SPEC] [--json] [--refresh]
                       [--keep first|last] --out OUTPUT INPUT

Each key's copies are grouped independently of the program: a group starts at a copy and
holds the copies judged before its window closes (a window after its first copy, or with
--refresh after its last). The groups come out in the order their windows close (equal
closes in the order they were set); a record without a key comes out as it arrives,
untouched. Lines: OUTPUT must be exactly "COUNT RECORD" per group, bytes included; JSON: each
line must be the copy's object with dup_count, first_seen and last_seen (the time values as
the input holds them: the earliest and the latest of the group's copies). Records are judged at the largest time read so far (late ones at it),
untimed ones too; without --time each record arrives one tick after the one before.

Keys: --key is a field list of blank-separated fields (3, 1,4, 6-) or, with --json, a
top-level member; without it, the whole record. Times: epoch numbers (seconds to nanoseconds
by magnitude), RFC 3339 with a Z or an offset, or CLF ([10/Oct/2000:13:55:36 -0700]).
Prints one line: "ok: ..." and exits 0, or the first difference and exits 1.
"""
import argparse
import calendar
import json
import re
import sys
from decimal import Decimal

MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}
RFC3339 = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?([Zz]|[+-]\d\d:?\d\d)?$")
CLF = re.compile(r"(\d\d)/(\w{3})/(\d{4}):(\d\d):(\d\d):(\d\d)(?: ([+-]\d{4}))?$")


def offset_seconds(zone):
    if not zone or zone in "Zz":
        return 0
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    return sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)


def parse_time(text):
    """Nanoseconds since the epoch, or None."""
    text = text.strip().strip("[]\"")
    if re.fullmatch(r"\d+(\.\d+)?", text):
        value, whole = Decimal(text), int(text.split(".")[0])
        unit = 10**9 if whole < 10**11 else 10**6 if whole < 10**14 else 10**3 if whole < 10**17 else 1
        return int(value * unit)
    m = RFC3339.match(text)
    if m:
        y, mo, d, h, mi, s, frac, zone = m.groups()
        secs = calendar.timegm((int(y), int(mo), int(d), int(h), int(mi), int(s))) - offset_seconds(zone)
        return secs * 10**9 + int((frac or "0").ljust(9, "0")[:9])
    m = CLF.match(text)
    if m:
        d, mon, y, h, mi, s, zone = m.groups()
        secs = calendar.timegm((int(y), MONTHS[mon], int(d), int(h), int(mi), int(s))) - offset_seconds(zone)
        return secs * 10**9
    return None


def fields(text, spec):
    """The fields a field list names, as a tuple (None when one is missing)."""
    parts = text.split()
    picked = []
    for item in spec.split(","):
        lo, dash, hi = item.partition("-")
        lo = int(lo)
        hi = len(parts) if dash and not hi else int(hi) if dash else lo
        if lo > len(parts):
            return None
        picked.extend(parts[lo - 1:hi])
    return tuple(picked)


def records(data):
    """(record bytes with terminator, text without it) of each record."""
    out, start = [], 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end + 1
        rec = data[start:end]
        text = rec[:-1] if rec.endswith(b"\n") else rec
        if text.endswith(b"\r") and rec.endswith(b"\n"):
            text = text[:-1]
        out.append((rec, text))
        start = end
    return out


def key_and_time(text, a):
    """(key or None, time text or None, parsed time or None) of one record."""
    if a.json:
        obj = json.loads(text)
        key = (json.dumps(obj[a.key]) if a.key in obj else None) if a.key else text
        raw = obj.get(a.time) if a.time else None
        return key, raw, parse_time(str(raw)) if raw is not None else None
    decoded = text.decode("utf-8", "surrogateescape")
    key = fields(decoded, a.key) if a.key else text
    if a.time:
        t = fields(decoded, a.time)
        t = " ".join(t) if t else None
        return key, t, parse_time(t) if t else None
    return key, None, None


def expected(items, a):
    """The records the program should write, in order: (bytes, text, count, first, last)."""
    window = int(Decimal(a.window) * 10**9)
    groups, out_keys, open_group, clock = [], [], {}, 0
    for i, (rec, text) in enumerate(items):
        key, raw, t = key_and_time(text, a)
        clock = max(clock, t if t is not None else 0) if a.time else i
        if key is None:  # written at once, untouched: after the groups closed by now, before later ones
            groups.append({"rec": rec, "text": text, "count": 1, "first": raw, "last": raw, "keyless": True})
            out_keys.append((clock, 1, i, len(groups) - 1))
            continue
        g = open_group.get(key)
        if g is not None and clock < groups[g]["close"]:
            grp = groups[g]
            grp["count"] += 1
            # first and last: the earliest and the latest of the copies' times (a late copy
            # may be earlier than the first); equal times, the later copy's text
            if t is not None and grp["first_t"] is not None and t < grp["first_t"]:
                grp["first"], grp["first_t"] = raw, t
            if t is None or grp["last_t"] is None or t >= grp["last_t"]:
                grp["last"], grp["last_t"] = raw, t
            if a.keep == "last":
                grp["rec"], grp["text"] = rec, text
            if a.refresh:
                grp["close"], grp["set"] = clock + window, i
            continue
        open_group[key] = len(groups)
        groups.append({"rec": rec, "text": text, "count": 1, "first": raw, "last": raw, "close": clock + window,
                       "set": i, "first_t": t, "last_t": t})
    for n, g in enumerate(groups):
        if "close" in g:
            out_keys.append((g["close"], 0, g["set"], n))
    return [groups[k[3]] for k in sorted(out_keys)]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--window", default="315360000")
    p.add_argument("--key")
    p.add_argument("--time")
    p.add_argument("--json", action="store_true")
    p.add_argument("--refresh", action="store_true")
    p.add_argument("--keep", choices=["first", "last"], default="first")
    p.add_argument("--out", required=True)
    p.add_argument("input")
    a = p.parse_args()
    with open(a.input, "rb") as f:
        items = records(f.read())
    with open(a.out, "rb") as f:
        got = records(f.read())
    want = expected(items, a)
    if len(got) != len(want):
        print("DIFFERS: %d records written, %d expected" % (len(got), len(want)))
        return 1
    copies = 0
    for n, (g, (rec, text)) in enumerate(zip(want, got)):
        copies += g["count"]
        if g.get("keyless"):
            line = g["rec"]
            if not line.endswith(b"\n") and n + 1 < len(want):
                line += b"\n"
            ok = rec == line
        elif a.json:
            obj = json.loads(g["text"])
            obj.update({"dup_count": g["count"], "first_seen": g["first"], "last_seen": g["last"]})
            ok = json.loads(text) == obj
        else:
            line = b"%d " % g["count"] + g["rec"]
            if not line.endswith(b"\n") and n + 1 < len(want):
                line += b"\n"
            ok = rec == line
        if not ok:
            print("DIFFERS at output record %d: got %r, expected count %d of %r" % (n + 1, rec[:200], g["count"],
                                                                                 g["rec"][:200]))
            return 1
    print("ok: %d records written for %d copies, counts and order as the reference" % (len(want), copies))
    return 0


if __name__ == "__main__":
    sys.exit(main())
