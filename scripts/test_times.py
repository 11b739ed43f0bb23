#!/usr/bin/env python3
"""Measured test times: the table the test tiers are chosen from, and the fast tier's check.

  test_times.py update RUN [--table FILE] [--replace] [--note TEXT]
      writes the time of every test that passed in RUN into the table (tests/test_times.txt
      unless --table), and of a test that failed when the table has none for it (a failure's
      time is a better guess than none); --replace (a run of the whole suite) also drops the
      tests RUN does not name, so that removed tests leave the table.
  test_times.py check RUN --max SECONDS [--max-total SECONDS]
      fails (exit 1) when a test in RUN took over --max, naming it, or when its tests took over
      --max-total together (on two cores, twice the tier's wall time); prints the run's test
      count, the sum of its times and its slowest tests. Run it on `ctest -L fast`'s output.

RUN is what `ctest --output-junit FILE` writes, or ctest's own console output (a saved log).
The table has one test a line, "SECONDS<TAB>NAME", sorted by name, after '#' comment lines
(the first of which say where the times come from, kept by update).
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'test_times.txt')
# "  12/525 Test  #12: NAME ......   Passed    3.21 sec" (also ***Failed, ***Skipped, Not Run)
CONSOLE = re.compile(r'^\s*\d+/\d+ Test\s+#\d+: (.*) \.+\s*(\*\*\*)?(\S.*?)\s+([0-9.]+) sec\s*$')


def add(runs, name, seconds, status):
    """Two tests of one name (doctest cases of one name in two files) share their labels: the
    longer time and the worse status count."""
    if name in runs:
        old_seconds, old_status = runs[name]
        order = ['passed', 'skipped', 'failed']
        seconds = max(seconds, old_seconds)
        status = max(status, old_status, key=order.index)
    runs[name] = (seconds, status)


def read_run(path):
    """{name: (seconds, status)} for every test the run reports: 'passed', 'failed' or 'skipped'
    (skipped or not run: its time says nothing)."""
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    runs = {}
    if text.lstrip().startswith('<?xml'):
        for case in ET.fromstring(text.encode('utf-8')).iter('testcase'):
            status = {'run': 'passed', 'fail': 'failed'}.get(case.get('status'), 'skipped')
            add(runs, case.get('name'), float(case.get('time') or 0), status)
    else:
        for line in text.splitlines():
            m = CONSOLE.match(line)
            if m:
                word = m.group(3)
                status = 'passed' if word == 'Passed' else 'skipped' if word in ('Skipped', 'Not Run') else 'failed'
                add(runs, m.group(1), float(m.group(4)), status)
    if not runs:
        sys.exit(f'test_times: {path} reports no test (neither JUnit XML nor ctest output)')
    return runs


def read_table(path):
    comments, times = [], {}
    if os.path.exists(path):
        with open(path, encoding='utf-8') as f:
            for line in f:
                line = line.rstrip('\n')
                if line.startswith('#') or not line.strip():
                    comments.append(line)
                    continue
                seconds, name = line.split('\t', 1)
                times[name] = float(seconds)
    return comments, times


def update(args):
    comments, times = read_table(args.table)
    runs = read_run(args.run)
    if args.replace:
        times = {n: t for n, t in times.items() if n in runs}
    passed = {n: t for n, (t, status) in runs.items() if status == 'passed'}
    failed = {n: t for n, (t, status) in runs.items() if status == 'failed' and n not in times}
    times.update(passed)
    times.update(failed)
    if args.note is not None:
        comments = [c for c in comments if not c.startswith('# measured:')] + [f'# measured: {args.note}']
    with open(args.table, 'w', encoding='utf-8') as f:
        for c in comments:
            f.write(c + '\n')
        for name in sorted(times):
            f.write(f'{times[name]:.2f}\t{name}\n')
    print(f'test_times: {len(passed)} times of passed tests and {len(failed)} of failed ones new to the '
          f'table written to {args.table} ({len(times)} tests; the others kept their old time)')


def check(args):
    runs = read_run(args.run)
    over = sorted(((t, n) for n, (t, _) in runs.items() if t > args.max), reverse=True)
    slowest = sorted(((t, n) for n, (t, _) in runs.items()), reverse=True)[:5]
    total = sum(t for t, _ in runs.values())
    print(f'test_times: {len(runs)} tests, {total:.0f} s of test time; slowest: ' +
          ', '.join(f'{n} {t:.1f} s' for t, n in slowest))
    for t, n in over:
        print(f'test_times: FAIL: {n} took {t:.1f} s, over the fast tier\'s {args.max:g} s: '
              f'measure it again (scripts/test-times.sh) so that its tier follows its time')
    if args.max_total is not None and total > args.max_total:
        print(f'test_times: FAIL: the tests took {total:.0f} s together, over {args.max_total:g} s: '
              f'measure them again (scripts/test-times.sh) or lower TLBF_FAST_SECONDS (tests/tiers.cmake)')
        return 1
    return 1 if over else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='command', required=True)
    u = sub.add_parser('update')
    u.add_argument('run')
    u.add_argument('--table', default=os.path.normpath(TABLE))
    u.add_argument('--replace', action='store_true')
    u.add_argument('--note')
    c = sub.add_parser('check')
    c.add_argument('run')
    c.add_argument('--max', type=float, required=True)
    c.add_argument('--max-total', type=float)
    args = p.parse_args()
    return update(args) if args.command == 'update' else check(args)


if __name__ == '__main__':
    sys.exit(main() or 0)
