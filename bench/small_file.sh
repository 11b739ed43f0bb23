#!/usr/bin/env bash
# The 300,000-event NDJSON target (>= 35x `jq -c .` in wall time), measured with enough runs
# to say on which side of the target a row sits, not only where its median falls.
#
# Each of ROUNDS rounds (default 21) runs, in an order that rotates from round to round,
# `jq -c .`, the program (`tlbf-dedup -k id -t ts -w 60s`, its default two threads) and the
# load floor on two threads (bench/load_floor.hpp: the same decisions as reads only, the
# fastest parse on a second thread), each with its output read through a pipe (bench/lib.bash
# run_timed). For the program and the floor it prints the ratio of jq's median to the row's
# median and a 90 % bootstrap interval of that ratio (the rounds resampled 2,000 times, both
# medians recomputed each time), then a verdict per row against 35x: met (the program) or
# reachable (the floor) when the whole interval is at or above it, not met or out of reach when
# the whole interval is below it, and "undecided" when the interval contains it. Run it on an
# idle machine: the load lines say how idle it was. The floor's output is checked byte for byte
# against the program's first.
#
# Environment: ROUNDS (default 21), KEEP_INPUTS=DIR (reuse or keep the generated file and
# its trace there), BUILD_DIR (default ../build-bench, shared with run.sh).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
source "$BENCH_DIR/lib.bash"
export BUILD_DIR=${BUILD_DIR:-$BENCH_DIR/../build-bench}
ROUNDS=${ROUNDS:-21}
EVENTS=300000
TARGET=35
export TLBF_DEDUP_HASH_SEED=0
JOBS=$(nproc 2>/dev/null || echo 2)
GEN_EVENTS=${GEN_EVENTS:-$ROOT/../shared/tools/gen_events.py}
[ -f "$GEN_EVENTS" ] || { echo "bench: $GEN_EVENTS not found (the shared tools sit beside the repository)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench: jq is needed (apt-get install jq)" >&2; exit 1; }

cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTLBF_BUILD_TESTS=OFF -DTLBF_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target tlbf-dedup tlbf-bench-ndjson-floor >/dev/null
TLBF="$BUILD_DIR/src/tlbf-dedup"
JSON_FLOOR="$BUILD_DIR/bench/tlbf-bench-ndjson-floor"

if [ -n "${KEEP_INPUTS:-}" ]; then
  DATA=$KEEP_INPUTS
  mkdir -p "$DATA"
else
  DATA=$(mktemp -d)
  trap 'rm -rf "$DATA"' EXIT
fi
# The file run.sh makes (same generator arguments), so KEEP_INPUTS directories are shared.
json="$DATA/events-$EVENTS-steady.ndjson"
[ -s "$json" ] || python3 "$GEN_EVENTS" --events "$EVENTS" --profile steady --format ndjson >"$json"
trace="$DATA/events-$EVENTS-steady.ndjson.trace"
echo "ndjson $EVENTS events: $(load_trace "$JSON_FLOOR" "$json" "$trace")"
if ! cmp -s <("$TLBF" -k id -t ts -w 60s "$json") <("$JSON_FLOOR" --load "$trace" -j 2 "$json" 2>/dev/null); then
  echo "bench: the load floor's output differs from tlbf-dedup's" >&2
  exit 1
fi

describe_machine
labels=("jq -c ." "tlbf-dedup -k id -t ts -w 60s" "load floor, 2nd thread")
cmds=("jq -c . $json" "$TLBF -k id -t ts -w 60s $json" "$JSON_FLOOR --load $trace -j 2 $json")
samples=$(mktemp)
for c in 0 1 2; do run_timed "${cmds[$c]}" >/dev/null; done  # warm-up, untimed
for ((r = 0; r < ROUNDS; r++)); do
  for i in 0 1 2; do
    c=$(((r + i) % 3))
    read -r wall _ cpu <<<"$(run_timed "${cmds[$c]}")"
    [ "$wall" != fail ] || { echo "bench: '${cmds[$c]}' failed" >&2; exit 1; }
    echo "$c $r $wall $cpu" >>"$samples"
  done
done
describe_load_at_end

python3 - "$samples" "$TARGET" "${labels[@]}" <<'EOF'
import random, statistics, sys
path, target, labels = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
walls = {}
for line in open(path):
    c, r, wall, _ = line.split()
    walls.setdefault(int(c), {})[int(r)] = float(wall)
rounds = sorted(walls[0])
jq = [walls[0][r] for r in rounds]
print(f"== ndjson, 300,000 events: {len(rounds)} rounds, wall seconds, output through a pipe ==")
print(f"{'command':32s} {'median s':>9s} {'min s':>8s} {'max s':>8s} {'x jq':>7s} {'90 % interval':>16s}  verdict (target >= {target:g}x)")
print(f"{labels[0]:32s} {statistics.median(jq):9.3f} {min(jq):8.3f} {max(jq):8.3f}")
rng = random.Random(1)
for c in (1, 2):
    row = [walls[c][r] for r in rounds]
    ratio = statistics.median(jq) / statistics.median(row)
    boot = []
    for _ in range(2000):
        pick = [rng.choice(rounds) for _ in rounds]
        boot.append(statistics.median(walls[0][r] for r in pick) / statistics.median(walls[c][r] for r in pick))
    boot.sort()
    lo, hi = boot[int(0.05 * len(boot))], boot[int(0.95 * len(boot)) - 1]
    above, below = ("met", "not met") if c == 1 else ("reachable at this floor", "out of reach at this floor")
    verdict = above if lo >= target else (below if hi < target else "undecided: the interval holds the target")
    print(f"{labels[c]:32s} {statistics.median(row):9.3f} {min(row):8.3f} {max(row):8.3f} {ratio:6.1f}x {lo:7.1f}x-{hi:5.1f}x  {verdict}")
EOF
rm -f "$samples"
