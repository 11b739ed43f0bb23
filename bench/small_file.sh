#!/usr/bin/env bash
# The 300,000-event NDJSON target (>= 35x `jq -c .` in wall time), measured with enough runs
# to say on which side of the target a row sits, not only where its median falls.
#
# bench/lib.bash rotating_rounds: each of ROUNDS rounds runs, in an order that rotates from
# round to round, `jq -c .`, the program (`tlbf-dedup -k id -t ts -w 60s`, its default two
# threads) and the load floor on two threads (bench/load_floor.hpp: the same decisions as reads
# only, the fastest parse on a second thread), each with its output read through a pipe
# (run_timed). For the program and the floor it prints the ratio of jq's median to the row's
# median with a 90 % bootstrap interval and a verdict against 35x. bench/run.sh makes the same
# measurement for its 300,000-event verdict; this script is that measurement alone. Run it on
# an idle machine: the load lines say how idle it was. The floor's output, on one thread and two, is
# checked byte for byte against the program's first (check_load_floor).
#
# Environment: ROUNDS (default 41; 21 rounds once gave the floor an interval of 31.8-36.6x,
# which holds the target), KEEP_INPUTS=DIR (reuse or keep the generated file and its trace
# there), BUILD_DIR (default ../build-bench, shared with run.sh).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
source "$BENCH_DIR/lib.bash"
export BUILD_DIR=${BUILD_DIR:-$BENCH_DIR/../build-bench}
ROUNDS=${ROUNDS:-41}
EVENTS=300000
TARGET=35
export TLBF_DEDUP_HASH_SEED=0
JOBS=$(nproc 2>/dev/null || echo 2)
GEN_EVENTS=${GEN_EVENTS:-$ROOT/tests/gen_events.py}
[ -f "$GEN_EVENTS" ] || { echo "bench: $GEN_EVENTS not found" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench: jq is needed (apt-get install jq)" >&2; exit 1; }

cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTLBF_BUILD_TESTS=OFF -DTLBF_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target tlbf-dedup tlbf-bench-ndjson-floor >/dev/null
TLBF="$BUILD_DIR/src/tlbf-dedup"
JSON_FLOOR="$BUILD_DIR/bench/tlbf-bench-ndjson-floor"

bench_data_dir
json=$(bench_input "$EVENTS" steady ndjson)
trace="$DATA/events-$EVENTS-steady.ndjson.trace"
echo "ndjson $EVENTS events: $(load_trace "$JSON_FLOOR" "$json" "$trace")"
floor_check=$(check_load_floor "$JSON_FLOOR" "$TLBF -k id -t ts -w 60s" "$json" "$trace")
echo "$floor_check"
[[ $floor_check != *DIFFERS* ]] || exit 1

describe_machine
rotating_rounds "ndjson, 300,000 events" "$TARGET" "$ROUNDS" \
  "jq -c ." "jq -c . $json" \
  "tlbf-dedup -k id -t ts -w 60s" "$TLBF -k id -t ts -w 60s $json" \
  "load floor, 2nd thread" "$JSON_FLOOR --load $trace -j 2 $json"
describe_load_at_end
