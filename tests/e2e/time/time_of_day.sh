#!/usr/bin/env bash
# Stamps that are a time of day only, as log4j's %d{HH:mm:ss,SSS} writes them into Tomcat's
# catalina.out (testdata/catalina.out: Tomcat's own dated lines first, then the application's
# records with stack traces, from 23:41 on one day past midnight, one record a little late
# across midnight). With --date, or from the file's modification time, each is dated and the
# date rolls over at midnight; the output with -a exact equals a reference computed here.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"
cp "$TESTDATA/catalina.out" .
RUN=(--multiline '^\d\d:\d\d:\d\d,' -t 1 -k 2,4- -w 5m -a exact)

# reference.py MODE: the records kept (MODE kept) or each record's time (MODE times, one a
# line, "-" for none), read here: a record starts at a line with a time of day, the lines
# before the first are one record; the key is fields 2 and 4 on of its first line; the days
# from 2024-03-05 by the rule of exact_window.day_rollover (MODE same-day: never rolled).
cat > reference.py <<'PY'
import datetime, re, sys
sys.path.insert(0, sys.argv[2])
from exact_window import day_rollover, kept
mode = sys.argv[1]
records, current = [], []
for line in open("catalina.out", "rb").read().decode().splitlines(keepends=True):
    if re.match(r"\d\d:\d\d:\d\d,", line) and current:
        records.append("".join(current))
        current = []
    current.append(line)
records.append("".join(current))
tods, keys = [], []
for r in records:
    first = r.split("\n")[0].split()
    m = re.fullmatch(r"(\d\d):(\d\d):(\d\d),(\d{3})", first[0])
    tods.append(((int(m[1]) * 60 + int(m[2])) * 60 + int(m[3])) * 10**9 + int(m[4]) * 10**6 if m else None)
    keys.append(" ".join([first[1]] + first[3:]))
day0 = (datetime.date(2024, 3, 5) - datetime.date(1970, 1, 1)).days
days = [day0 if t is not None else None for t in tods] if mode == "same-day" else day_rollover(tods, day0)
times = [d * 86400 * 10**9 + t if t is not None else None for d, t in zip(days, tods)]
if mode == "times":
    for t in times:
        print("-" if t is None else t)
else:
    sys.stdout.write("".join(kept(list(zip(keys, times, records)), 300 * 10**9)))
PY
python3 reference.py kept "$E2E_DIR" > want.txt
python3 reference.py same-day "$E2E_DIR" > same_day.txt
check "the fixture tells a rolled date from a fixed one" 1 "$(cmp -s want.txt same_day.txt || echo 1)"

status=0
"$D" "${RUN[@]}" --date 2024-03-05 catalina.out > out.txt 2> err.txt || status=$?
check "--date: exit 0" 0 "$status"
check_files "--date: the output is the exact reference's" want.txt out.txt
check "the preamble is the one untimed record" 1 "$(grep -c 'no readable time at -t 1: "NOTE:"' err.txt)"

# The times, as --explain shows them, are the reference's: the next day after midnight, the
# late record on the day before.
python3 reference.py times "$E2E_DIR" > want_times.txt
"$D" "${RUN[@]}" --date 2024-03-05 --explain=1000 catalina.out 2> /dev/null |
  awk -F'\t' 'NR > 1 { print $4 }' |
  python3 -c 'import sys, datetime
for l in sys.stdin:
    l = l.strip()
    if l == "-": print("-"); continue
    frac = l[20:-1] if "." in l else ""
    dt = datetime.datetime.strptime(l[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    print(int(dt.timestamp()) * 10**9 + int(frac.ljust(9, "0")))' > times.txt
check_files "--explain's times are the reference's, midnight crossed" want_times.txt times.txt
check "after midnight: the next day" 1 "$(grep -c '^catalina.out:[0-9]*.*"00:02:07,799"	2024-03-06T00:02:07.799Z' <("$D" "${RUN[@]}" --date 2024-03-05 --explain=1000 catalina.out 2> /dev/null))"
check "late across midnight: the day before" 1 "$(grep -c '"23:59:58,950"	2024-03-05T23:59:58.95Z' <("$D" "${RUN[@]}" --date 2024-03-05 --explain=1000 catalina.out 2> /dev/null))"

# Without --date: the date of the file's modification time (the day before, for a first
# stamp later in the day than the file was last written).
touch -d '2024-03-06 00:40:00 UTC' catalina.out
"$D" "${RUN[@]}" catalina.out > mtime.txt 2> /dev/null
check_files "no --date: dated from the modification time, as --date 2024-03-05" want.txt mtime.txt
check "no --date: the same times" "$("$D" "${RUN[@]}" --date 2024-03-05 --explain=1000 catalina.out 2> /dev/null | cut -f4 | md5sum)" \
  "$("$D" "${RUN[@]}" --explain=1000 catalina.out 2> /dev/null | cut -f4 | md5sum)"
# A pipe: dated by the wall clock, which changes the dates and not the decisions.
"$D" "${RUN[@]}" < catalina.out > piped.txt 2> /dev/null
check_files "from a pipe: the same records" want.txt piped.txt

# A pattern without a date reads times of day too; --date needs -t and a date.
"$D" "${RUN[@]}" --time-format '%H:%M:%S,%f' --date 2024-03-05 catalina.out > pattern.txt 2> /dev/null
check_files "--time-format '%H:%M:%S,%f': the same records" want.txt pattern.txt
check_usage_error "--date without -t" "--date has no effect without -t" "$D" --date 2024-03-05 catalina.out
check_usage_error "--date 2024-02-30" "--date '2024-02-30': expected a date YYYY-MM-DD" "$D" -t 1 --date 2024-02-30 catalina.out
check_usage_error "--date 05.03.2024" "expected a date YYYY-MM-DD" "$D" -t 1 --date 05.03.2024 catalina.out
finish
