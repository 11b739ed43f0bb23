#!/bin/bash
# Count window (-n): no key is re-emitted while it is among the last N inserted keys, for
# every algorithm that supports a count window (apbf, gebf, exact). Without --refresh the
# inserted keys are exactly the emitted records, so the checker replays the input against
# the output: an emitted record whose key is among the previous N emitted keys is a false
# negative (must never happen); a dropped record whose key is not among them is a stale drop
# when the key is among the last 1.25 N (the filters' bounded staleness) and a false positive
# otherwise (rare for the Bloom filters at the default 1e-5, never for exact).
source "$(dirname "$0")/../lib.bash"
: "${GEN_EVENTS:?}"

N=20000
# Duplicates within 30 s at 1000 events/s (some inside the last 20,000 keys, some beyond),
# plus revisits from 2-4 windows ago, over bursty rate phases.
python3 "$GEN_EVENTS" --events 150000 --rate 1000 --profile burst --phase 20000 \
  --dup-share 0.4 --dup-window 30 --revisit-share 0.1 --seed 42 > "$WORK/in.txt"

cat > "$WORK/check.py" <<'PY'
import sys
from collections import deque

class Window:  # multiset of the last n emitted keys
    def __init__(self, n):
        self.n, self.q, self.count = n, deque(), {}
    def __contains__(self, k):
        return self.count.get(k, 0) > 0
    def push(self, k):
        self.q.append(k)
        self.count[k] = self.count.get(k, 0) + 1
        if len(self.q) > self.n:
            old = self.q.popleft()
            self.count[old] -= 1

inp, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
emitted = open(out).read().splitlines()
# Bloom window filters may keep a key a little past the window (GEBF: (r+1)*ceil(n/r) inserts,
# APBF: one generation): a drop of a key among the last 1.25 n is stale, not a false positive.
live, recent = Window(n), Window(n + n // 4)
fn = fp = stale = i = 0
for line in open(inp).read().splitlines():
    k = line.split()[2]
    if i < len(emitted) and emitted[i] == line:
        i += 1
        fn += k in live
        live.push(k)
        recent.push(k)
    elif k not in live:
        if k in recent: stale += 1
        else: fp += 1
print(f"{fn} {fp} {stale} {int(i == len(emitted))} {len(emitted)}")
PY

run_case() {  # NAME MAX_FALSE_POSITIVES ARGS...
  local name=$1 max_fp=$2
  shift 2
  if ! "$TLBF_DEDUP" -n "$N" -k 3 "$@" < "$WORK/in.txt" > "$WORK/out.txt" 2> "$WORK/err.txt"; then
    check "$name runs" "0" "exit $(head -c 300 "$WORK/err.txt")"
    return
  fi
  read -r fn fp stale subseq emitted < <(python3 "$WORK/check.py" "$WORK/in.txt" "$WORK/out.txt" "$N")
  echo "     $name: $emitted emitted, $fn false negatives, $fp false positives, $stale stale drops"
  check "$name output is an ordered subset of the input" 1 "$subseq"
  check "$name: no key re-emitted while among the last $N inserted" 0 "$fn"
  check "$name: false positives <= $max_fp" 1 "$([ "$fp" -le "$max_fp" ] && echo 1 || echo 0)"
  # Something must actually be dropped, or the check above proves nothing.
  check "$name drops duplicates" 1 "$([ "$emitted" -lt 140000 ] && echo 1 || echo 0)"
}

run_case exact 0 -a exact
check "exact has no stale drops" 0 "$stale"
run_case gebf 20 -a gebf
run_case gebf-coarse 3000 -a gebf -e 1e-2
run_case apbf 20 -a apbf
run_case apbf-coarse 3000 -a apbf -e 1e-2
finish
