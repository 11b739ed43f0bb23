#!/usr/bin/env bash
# The time-order measurement alone (bench/order.bash; bench/run.sh runs the same block): the
# 2,000,000-event steady text file split into 8 overlapping files and merged, against the one
# sorted file, and 10 % of it displaced by up to 10 s read with --lateness 10s, against the
# sorted stream; then -a exact under a binding --max-memory against uncapped
# (bench/exact_cap.bash); ratios of medians taken in this one run, every output read through
# a pipe.
#
# Environment: EVENTS (default 2000000), REPS (default 5), KEEP_INPUTS=DIR (reuse or keep the
# generated file there; run.sh's directories are shared), BUILD_DIR (default ../build-bench,
# shared with run.sh), TLBF=/path/to/tlbf-dedup (measure that binary instead of building one).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
source "$BENCH_DIR/lib.bash"
source "$BENCH_DIR/order.bash"
source "$BENCH_DIR/exact_cap.bash"
export BUILD_DIR=${BUILD_DIR:-$BENCH_DIR/../build-bench}

bench_start
bench_data_dir
text=$(bench_input "$EVENTS" steady text)

describe_machine
echo "tlbf-dedup: $("$TLBF" --version 2>&1 | head -1)"
TARGET_LINES=()
order_tables "$text" "$EVENTS"
exact_cap_tables
describe_load_at_end
