#!/usr/bin/env bash
# --records on a CloudTrail-shaped document: one {"Records":[...]} object of EVENTS events
# (default 2,000,000), `tlbf-dedup --records Records -k eventID -t eventTime` against
# `jq -c '.Records[]'` alone (which only unwraps: no deduplication), the ratio of medians taken
# in this one run with every output read through a pipe (wc -l); then the peak RSS of
# tlbf-dedup as the document grows to DOC_MAX_MB (default 1000, so 1 GB), each document
# generated on the fly into a pipe, never stored.
#
# Environment: EVENTS, REPS (default 3), DOC_MAX_MB, TLBF (a tlbf-dedup binary; default: a
# Release build in BUILD_DIR, default ../build-bench, shared with run.sh).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
source "$BENCH_DIR/lib.bash"
EVENTS=${EVENTS:-2000000}
REPS=${REPS:-3}
DOC_MAX_MB=${DOC_MAX_MB:-1000}
export TLBF_DEDUP_HASH_SEED=0
command -v jq >/dev/null || { echo "bench: jq is needed (apt-get install jq)" >&2; exit 1; }
if [ -z "${TLBF:-}" ]; then
  BUILD_DIR=${BUILD_DIR:-$BENCH_DIR/../build-bench}
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTLBF_BUILD_TESTS=OFF -DTLBF_BUILD_BENCH=ON >/dev/null
  cmake --build "$BUILD_DIR" -j "$(nproc 2>/dev/null || echo 2)" --target tlbf-dedup >/dev/null
  TLBF="$BUILD_DIR/src/tlbf-dedup"
fi
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT

# cloudtrail N: one {"Records":[...]} document of N events on stdout, one event every 10 ms
# of eventTime, every 10th event a copy of the one before it (a delivery repeated).
cloudtrail() {
  gawk -v n="$1" 'BEGIN {
    printf "{\"Records\":["
    for (i = 0; i < n; i++) {
      e = (i % 10 == 9) ? i - 1 : i
      t = 1700000000 + int(e / 100)
      printf "%s{\"eventVersion\":\"1.08\",\"userIdentity\":{\"type\":\"IAMUser\",\"userName\":\"user%d\"},", (i ? "," : ""), e % 97
      printf "\"eventTime\":\"%s.%02dZ\",\"eventSource\":\"s3.amazonaws.com\",\"eventName\":\"GetObject\",", strftime("%Y-%m-%dT%H:%M:%S", t, 1), e % 100
      printf "\"awsRegion\":\"eu-west-1\",\"sourceIPAddress\":\"10.%d.%d.%d\",", e % 256, int(e / 256) % 256, int(e / 65536) % 256
      printf "\"requestParameters\":{\"bucketName\":\"logs\",\"key\":\"k/%d\"},\"eventID\":\"%08x-%012d\"}", e, (e * 2654435761) % 4294967296, e
    }
    printf "]}\n"
  }'
}

describe_machine
echo "tlbf-dedup: $("$TLBF" --version 2>&1 | head -1); $(jq --version)"
doc="$DATA/trail.json"
cloudtrail "$EVENTS" >"$doc"
echo "document: $EVENTS events, $(human_size "$doc")"

TLBF_CMD="$TLBF --records Records -k eventID -t eventTime -w 1m $doc"
JQ_CMD="jq -c .Records[] $doc"
declare -a tw tr jw jr
for ((r = 0; r < REPS; r++)); do  # alternated, so both see the same state of the host
  read -r w rss _ <<<"$(run_timed "$TLBF_CMD" "$DATA/tlbf.lines")"
  tw+=("$w") tr+=("$rss")
  read -r w rss _ <<<"$(run_timed "$JQ_CMD" "$DATA/jq.lines")"
  jw+=("$w") jr+=("$rss")
done
tm=$(median "${tw[@]}") jm=$(median "${jw[@]}")
printf '| %-52s | %9s | %10s | %9s |\n|---|---:|---:|---:|\n' command "wall (s)" "peak RSS" "lines out"
printf '| %-52s | %9.2f | %7.0f MB | %9s |\n' "tlbf-dedup --records Records -k eventID -t eventTime" "$tm" \
  "$(($(median "${tr[@]}" | cut -d. -f1) / 1024))" "$(cat "$DATA/tlbf.lines")"
printf '| %-52s | %9.2f | %7.0f MB | %9s |\n' "jq -c '.Records[]' (unwraps only)" "$jm" \
  "$(($(median "${jr[@]}" | cut -d. -f1) / 1024))" "$(cat "$DATA/jq.lines")"
awk -v t="$tm" -v j="$jm" 'BEGIN { printf "ratio jq / tlbf-dedup (medians of %d, this run): %.2f\n", '"$REPS"', j / t }'
rm -f "$doc"

# Peak RSS as the document grows: the same command on documents piped from the generator.
echo
printf '| %-12s | %10s | %10s |\n|---:|---:|---:|\n' document "peak RSS" "wall (s)"
per_event=317  # bytes of one generated event, about
for mb in 125 250 500 "$DOC_MAX_MB"; do
  n=$((mb * 1000000 / per_event))
  stats=$( (cloudtrail "$n" | /usr/bin/time -f '%M %e' -o "$DATA/rss" \
    "$TLBF" --records Records -k eventID -t eventTime -w 1m >/dev/null) 2>&1; cat "$DATA/rss")
  read -r rss wall <<<"$(tail -1 <<<"$stats")"
  printf '| %9d MB | %7d MB | %10s |\n' "$mb" "$((rss / 1024))" "$wall"
done
describe_load_at_end
