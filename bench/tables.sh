#!/usr/bin/env bash
# The table measurement alone (bench/tables.bash; bench/run.sh runs the same block): the
# 2,000,000-event steady text file as a CSV table, `tlbf-dedup -f csv -k id -t ts -w 60s` against Miller
# and gawk, ratios of medians taken in this one run with every output read through a pipe.
#
# Environment: EVENTS (default 2000000), REPS (default 5), KEEP_INPUTS=DIR (reuse or keep the
# generated files there; run.sh's directories are shared), BUILD_DIR (default ../build-bench,
# shared with run.sh); TLBF=/path/to/tlbf-dedup measures that binary instead of building one.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
source "$BENCH_DIR/lib.bash"
source "$BENCH_DIR/tables.bash"
export BUILD_DIR=${BUILD_DIR:-$BENCH_DIR/../build-bench}
for tool in gawk mlr; do
  command -v $tool >/dev/null || { echo "bench: $tool is needed (apt-get install gawk miller)" >&2; exit 1; }
done

bench_start
bench_data_dir
text=$(bench_input "$EVENTS" steady text)

describe_machine
echo "tlbf-dedup: $("$TLBF" --version 2>&1 | head -1); $(gawk --version | head -1); mlr $(mlr --version | awk '{print $NF}')"
TARGET_LINES=()
table_tables "$text" "$EVENTS"
describe_load_at_end
