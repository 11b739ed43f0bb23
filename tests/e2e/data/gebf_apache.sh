#!/usr/bin/env bash
# The time-window GEBF on a real log: the Apache access log of ../shared/data, judged against
# exact window semantics from the tool's own --mark output (tests/e2e/window_judge.py): no
# false negatives, and drops beyond the window + one epoch at most at 1.5 x -e.
source "$(dirname "$0")/../lib.bash"
need_shared_data
D="$TLBF_DEDUP"

# Its times converted to seconds (the judge needs them); key = client, request and status.
python3 - "$SHARED_DATA/apache_access_elastic.log" > "$WORK/apache.txt" <<'PY'
import sys
from datetime import datetime
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    f = line.split()
    if len(f) < 9:
        continue
    t = datetime.strptime(f[3][1:] + " " + f[4][:-1], "%d/%b/%Y:%H:%M:%S %z").timestamp()
    print(f"{t:.0f} {f[0]}|{f[5]}|{f[6]}|{f[8]}")
PY
"$D" -a gebf -w 60s -e 1e-5 -k 2 -t 1 --mark "$WORK/apache.txt" > "$WORK/apache.gebf"
judge "apache log, gebf" 60 3 1.5e-5 "$WORK/apache.gebf"
finish
