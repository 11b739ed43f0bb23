#!/usr/bin/env python3
"""Compares two answer files of redis_lib.bash's answers(): prints "same" when the second
keeps the first's filter parameters and clock (TLBF.INFO), every item the first held (the first
300 items added, and the "events" lines as they are), and has no more false positives among
the items never added than 1.5 x the filter's error rate allows (plus 3); otherwise what differs.

Usage: same_answers.py OLD NEW
"""
import ast
import sys

KEPT = (b"algorithm", b"window_ms", b"error_rate", b"capacity", b"max_memory", b"shards", b"clock_ms", b"k", b"l")
ADDED = 300


def read(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        name, rest = line.rstrip("\n").split(" ", 1)
        if rest.startswith("["):
            info = ast.literal_eval(rest)
            fields = dict(zip(info[0::2], info[1::2]))
            out[name, "info"] = {f: fields.get(f) for f in KEPT}
        else:
            what, answers = rest.split(" ", 1)
            out[name, what] = answers
    return out


def main():
    old, new = read(sys.argv[1]), read(sys.argv[2])
    bad = []
    for key, want in old.items():
        got = new.get(key)
        if key[1] in ("info", "events") or got is None:
            if got != want:
                bad.append(f"{key}: {want} -> {got}")
            continue
        bits_want, bits_got = want.split(" ")[-1], got.split(" ")[-1]
        error = float(old[key[0], "info"][b"error_rate"])
        held = {i for i, c in enumerate(bits_want) if c == "1" and key[1] == "item-%d" and i < ADDED}
        lost = sum(1 for i in held if bits_got[i] != "1")
        extra = sum(1 for i, c in enumerate(bits_got) if c == "1" and i not in held)
        if lost or extra > 1.5 * error * len(bits_got) + 3:
            bad.append(f"{key}: {lost} held items lost, {extra} false positives")
    print("; ".join(bad) or "same")


main()
