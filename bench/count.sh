#!/usr/bin/env bash
# The --count measurement alone (bench/count.bash; bench/run.sh runs the same block): the
# 2,000,000-event steady text file, `tlbf-dedup --count` against gawk '{c[$3]++} END {...}' and
# cut | sort | uniq -c, ratios of medians taken in this one run with every output read through
# a pipe, and the peak RSS per held record.
#
# Environment: EVENTS (default 2000000), REPS (default 5), KEEP_INPUTS=DIR (reuse or keep the
# generated file there; run.sh's directories are shared), BUILD_DIR (default ../build-bench,
# shared with run.sh), TLBF=/path/to/tlbf-dedup (measure that binary instead of building one).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
source "$BENCH_DIR/lib.bash"
source "$BENCH_DIR/count.bash"
export BUILD_DIR=${BUILD_DIR:-$BENCH_DIR/../build-bench}
command -v gawk >/dev/null || { echo "bench: gawk is needed (apt-get install gawk)" >&2; exit 1; }

bench_start
bench_data_dir
text=$(bench_input "$EVENTS" steady text)

describe_machine
echo "tlbf-dedup: $("$TLBF" --version 2>&1 | head -1); $(gawk --version | head -1); $(sort --version | head -1)"
TARGET_LINES=()
count_tables "$text" "$EVENTS"
describe_load_at_end
