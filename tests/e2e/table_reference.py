#!/usr/bin/env python3
"""The exact reference for tlbf-dedup -a exact over tables (-f csv, -f tsv, Zeek logs): writes the
output the program must write, byte for byte, made here independently of it.

    table_reference.py --format csv|tsv|zeek [--key NAME]... [--time NAME] [--window SECONDS]
                       [--mark NAME] [--count NAME] INPUT... > EXPECTED

Records are framed here: lines, and in CSV a line whose quotes are unbalanced goes on with the
next (a quoted field spanning lines). Fields are read by Python's csv module (CSV) or split at
tabs (TSV, Zeek). The header names the columns: an input's first record (CSV, TSV; written
once, a later input's equal header left out), or Zeek's #fields line; every line starting with
'#' in a Zeek log is written as read. A row's key is its --key columns' values (the whole row
without --key); its time, the --time column read as epoch seconds, RFC 3339 or
"YYYY-MM-DD HH:MM:SS" (UTC); the window is exact_window.kept()'s. Without --time every record
is in the window of the one before. --mark NAME adds a column NAME, true for a duplicate (T in a Zeek
log; every record written); --count NAME adds a column NAME with the number of copies each kept record
stood for (written when its window closes, here all at the end in the order they were kept,
which holds for an untimed run).
"""
import argparse
import csv
import datetime
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exact_window import kept  # noqa: E402


def records(data, quoted):
    """The records of `data` (bytes), each with its terminator."""
    out, start, open_quote, i = [], 0, False, 0
    while i < len(data):
        c = data[i]
        if quoted and c == ord('"'):
            open_quote = not open_quote
        elif c == ord("\n") and not open_quote:
            out.append(data[start:i + 1])
            start = i + 1
        i += 1
    if start < len(data):
        out.append(data[start:])
    return out


def text_of(record):
    if record.endswith(b"\r\n"):
        return record[:-2]
    return record[:-1] if record.endswith(b"\n") else record


def fields_of(text, fmt):
    s = text.decode("utf-8", "surrogateescape")
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(s, newline="")))
        return rows[0] if rows else []
    return s.split("\t")


def time_ns(text):
    text = text.strip()
    try:
        return int(round(float(text) * 10**6)) * 1000
    except ValueError:
        pass
    t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return (int(t.timestamp()) * 10**6 + t.microsecond) * 1000


def with_column(record, value, fmt):
    text = text_of(record)
    sep = b"," if fmt == "csv" else b"\t"
    return text + sep + value.encode() + record[len(text):]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", required=True, choices=["csv", "tsv", "zeek"])
    ap.add_argument("--key", action="append", default=[])
    ap.add_argument("--time")
    ap.add_argument("--window", type=float, default=3600)
    ap.add_argument("--mark")
    ap.add_argument("--count")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    judged = []  # (key, time, (kind, record)): kind "header" or "row"
    first_header = None
    for path in a.inputs:
        with open(path, "rb") as f:
            recs = records(f.read(), a.format == "csv")
        columns = None
        for n, rec in enumerate(recs):
            text = text_of(rec)
            if a.format == "zeek" and text.startswith(b"#"):
                if text.startswith(b"#fields\t"):
                    columns = fields_of(text, a.format)[1:]
                judged.append((None, None, ("header", rec)))
                continue
            if a.format != "zeek" and n == 0:
                columns = fields_of(text, a.format)
                if first_header is None or text != first_header:
                    judged.append((None, None, ("header", rec)))
                first_header = first_header or text
                continue
            f = fields_of(text, a.format)
            if a.key:
                key = tuple(f[columns.index(k)] for k in a.key)
            else:
                key = text
            t = time_ns(f[columns.index(a.time)]) if a.time else None
            judged.append((key, t, ("row", rec)))
    rows = [j for j in judged if j[2][0] == "row"]
    keep = {id(r) for r in kept([(k, t, r) for k, t, r in rows], int(a.window * 10**9))}
    out = sys.stdout.buffer
    if a.count:
        counts, order = {}, []
        for k, t, r in rows:
            if id(r) in keep:
                order.append((k, r))
            counts[k] = counts.get(k, 0) + 1
        assert a.format != "zeek" and not a.time, "--count here: an untimed CSV or TSV run"
        for k, t, (kind, rec) in judged:
            if kind == "header":
                out.write(with_column(rec, a.count, a.format))
        for k, (kind, rec) in order:
            out.write(with_column(rec, str(counts[k]), a.format))
        return
    for k, t, r in judged:
        kind, rec = r
        if a.mark:
            if kind == "header":
                if a.format == "zeek":
                    line = text_of(rec)
                    if line.startswith(b"#fields\t"):
                        rec = with_column(rec, a.mark, a.format)
                    elif line.startswith(b"#types\t"):
                        rec = with_column(rec, "bool", a.format)
                else:
                    rec = with_column(rec, a.mark, a.format)
            else:
                new, dup = ("F", "T") if a.format == "zeek" else ("false", "true")
                rec = with_column(rec, new if id(r) in keep else dup, a.format)
            out.write(rec)
        elif kind == "header" or id(r) in keep:
            out.write(rec)


if __name__ == "__main__":
    main()
