#!/usr/bin/env bash
# The benchmark harness in one command: bash bench/run.sh
#
# Installs the peer tools from Debian where missing, builds the project in Release into
# build-bench/, generates the inputs with tests/gen_events.py into a temporary
# directory, and runs tlbf-dedup and the peers a user would otherwise pick on the same file
# in one invocation, so every ratio compares figures taken on the same machine minutes
# apart. Every command's output is read through a pipe by another process (wc -l), which is
# how the tool is used: wall time is the whole pipeline's, CPU time and RSS the command's
# alone. Each command runs REPS times (the first run also counts its output records); the
# table shows the median wall time, throughput, peak RSS (GNU time's %M) and the ratio of
# tlbf-dedup's default command to each row. The targets of issue 15 are printed as explicit
# lines beside the tables and again together at the end: text against gawk '!seen[$3]++'
# and NDJSON against jq -c . in wall time (2,000,000 events and a 300,000-event NDJSON
# file), the default filter's bits per live key at -e 1e-3, and the throughput of the
# filters as the window grows (tlbf-bench-scaling). Last, the library micro-benchmarks
# (tlbf-bench-micro). The machine, its load and how busy it was are printed at both ends.
# The text and NDJSON tables have an -a tagged row, and a line under each gives its wall time
# over the default filter's, same options otherwise (issue 55's target: at most 1x).
# Beside each speed target, floor lines say what the tight loops of bench/text_floor.cpp and
# bench/ndjson_floor.cpp (same decisions, output checked byte for byte against the program's)
# reach with the default filter, with -a exact and without a filter, what the filter costs
# per key, and what it could cost if the target were to be met; the 300,000-event target
# gets the program's start-up (one-record runs) plus the NDJSON floor's cost per record. Load
# floor rows and lines (bench/load_floor.hpp) price the default filter's identical decisions
# as the memory reads they must make, at the filter's real size, with no search around them.
# The program's rows run its default (--threads 2: files parsed one batch ahead on a second
# core); a --threads 1 row beside each shows what that second core buys.
#
# Environment: EVENTS (default 2000000) and REPS (default 5) scale it; EVENTS=200000 REPS=1
# is a quick check (SMALL_REPS, default max(REPS, 11), is the 300,000-event table's, and
# SMALL_ROUNDS, default 41, the rotating rounds that give its verdicts). A command whose
# first run takes over SLOW seconds (default 20) is run three times in all. KEEP_INPUTS=DIR
# keeps the generated inputs there (and reuses them); SKIP_MICRO=1 skips the micro-benchmarks; MICRO_ARGS passes options to tlbf-bench-micro;
# SKIP_SCALING=1 skips the window-growth table, SCALING_ARGS passes options to it. SKIP_COUNT=1,
# SKIP_ORDER=1, SKIP_EXACT_CAP=1 and SKIP_TABLES=1 skip the --count, time-order, capped-exact and
# CSV tables.
# BASELINE=/path/to/tlbf-dedup adds a "baseline" row, that binary with the default row's
# arguments, under the default row of each text and NDJSON table: before/after figures of a
# change from one run. Without it, BASELINE_COMMIT (default b53a743, the last commit before
# the tight window) is built beside this tree, RelWithDebInfo, into $BUILD_DIR-BASELINE_COMMIT,
# and is the baseline; BASELINE_COMMIT=none runs without one. The program's own scaling table
# (bench/scaling_table.bash, 10^7 keys; SKIP_PROGRAM_SCALING=1 skips it) has a row for it too.
# PIN_CPU=N runs every timed command on CPU N alone (taskset; the program then takes one
# thread): the machine lines give each CPU's speed, and where they differ a row's time
# depends on the CPU the scheduler picked, a --threads 2 row's on the slower of the two.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export BUILD_DIR=${BUILD_DIR:-$BENCH_DIR/../build-bench}
source "$BENCH_DIR/../scripts/common.sh"
source "$BENCH_DIR/lib.bash"
source "$BENCH_DIR/count.bash"
source "$BENCH_DIR/tables.bash"
source "$BENCH_DIR/order.bash"
source "$BENCH_DIR/exact_cap.bash"
source "$BENCH_DIR/scaling_table.bash"

EVENTS=${EVENTS:-2000000}
BASELINE=${BASELINE:-}
BASELINE_COMMIT=${BASELINE_COMMIT:-b53a743}
# build_baseline COMMIT: builds tlbf-dedup at COMMIT (from git archive, outside the tree)
# and prints its path.
build_baseline() {
  local dir="$BUILD_DIR-$1" bin
  bin=$(find "$dir/build" -name tlbf-dedup -type f -perm -u+x 2>/dev/null | head -1)
  if [ -z "$bin" ]; then
    rm -rf "$dir/src" && mkdir -p "$dir/src"
    git -C "$ROOT" archive "$1" | tar -x -C "$dir/src"
    cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTLBF_BUILD_TESTS=OFF >/dev/null
    cmake --build "$dir/build" -j "$JOBS" --target tlbf-dedup >/dev/null
    bin=$(find "$dir/build" -name tlbf-dedup -type f -perm -u+x | head -1)
  fi
  echo "$bin"
}
if [ -z "$BASELINE" ] && [ "$BASELINE_COMMIT" != none ]; then BASELINE=$(build_baseline "$BASELINE_COMMIT"); fi
if [ -n "$BASELINE" ]; then
  [ -x "$BASELINE" ] || { echo "bench: BASELINE=$BASELINE is not an executable" >&2; exit 1; }
  BASELINE=$(cd "$(dirname "$BASELINE")" && pwd)/$(basename "$BASELINE")
fi
# baseline_row ARGS...: the label and command of the baseline row, or nothing without BASELINE.
baseline_row() {
  [ -n "$BASELINE" ] && printf '%s\0%s\0' "baseline: $(basename "$BASELINE")" "$BASELINE $*"
  return 0
}
REPS=${REPS:-5}
# The floor hashes keys with seed 0; the program draws a secret seed unless told. With 0 for
# both they make the same decisions (the floor check below compares their outputs: with a
# random seed a false positive or two would differ), and every run of a row decides alike.
export TLBF_DEDUP_HASH_SEED=0
GEN_EVENTS=${GEN_EVENTS:-$ROOT/tests/gen_events.py}
[ -f "$GEN_EVENTS" ] || { echo "bench: $GEN_EVENTS not found" >&2; exit 1; }

# 1. Install the build dependencies and the peers (Debian 12 package names).
install_missing "${PACKAGES[@]}" gawk mawk coreutils jq miller time gzip zstd

# 2. Build the program and the micro-benchmarks in Release; tests are not needed here.
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTLBF_BUILD_TESTS=OFF -DTLBF_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target tlbf-dedup tlbf-bench-micro tlbf-bench-gebf-layouts tlbf-bench-text-floor \
  tlbf-bench-scaling tlbf-bench-ndjson-floor tlbf-bench-eras >/dev/null
TLBF="$BUILD_DIR/src/tlbf-dedup"
MICRO="$BUILD_DIR/bench/tlbf-bench-micro"
FLOOR="$BUILD_DIR/bench/tlbf-bench-text-floor"
JSON_FLOOR="$BUILD_DIR/bench/tlbf-bench-ndjson-floor"
SCALING="$BUILD_DIR/bench/tlbf-bench-scaling"

# 3. Generate the inputs (same seed every time, so runs are comparable).
bench_data_dir
for profile in steady burst; do
  for format in text ndjson; do bench_input "$EVENTS" "$profile" "$format" >/dev/null; done
done
# The small-file NDJSON target: start-up and small-file costs count there.
SMALL_EVENTS=300000
small_json=$(bench_input "$SMALL_EVENTS" steady ndjson)

# 4. Machine and versions, so the table can be read later.
describe_machine
echo "tlbf-dedup: $("$TLBF" --version 2>&1 | head -1) ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
[ -n "$BASELINE" ] && echo "baseline: $BASELINE: $("$BASELINE" --version 2>&1 | head -1)"
echo "peers: $(gawk --version | head -1); mawk $(mawk -W version 2>&1 | head -1 | awk '{print $2}');" \
  "$(sort --version | head -1); $(jq --version); mlr $(mlr --version | awk '{print $NF}')"
echo "events: $EVENTS per file; $REPS timed runs per command (median shown); output read through a pipe (| wc -l)"

# tagged_line WHAT TLBF_ROW: the last table's "tlbf-dedup -a tagged" row against the default
# filter's row, same options otherwise (issue 55: -a tagged at least as fast as the TLBF on
# default runs), in wall and CPU time. Kept in TARGET_LINES.
tagged_line() {
  local what=$1 ours=$2 line
  line=$(awk -v w="$what" -v a="${TABLE_WALL[tlbf-dedup -a tagged]:-}" -v b="${TABLE_WALL[$ours]:-}" \
    -v ca="${TABLE_CPU[tlbf-dedup -a tagged]:-}" -v cb="${TABLE_CPU[$ours]:-}" 'BEGIN {
      if (a == "" || b == "") { printf "%s: -a tagged against the TLBF: not measured (a row failed)\n", w; exit }
      printf "%s: -a tagged %.2fx the TLBF'"'"'s wall time (target <= 1x): %s", w, a / b, (a <= b) ? "met" : "NOT met"
      if (cb > 0) printf " (CPU time %.2fx)", ca / cb
      printf "\n" }')
  echo "$line"
  TARGET_LINES+=("$line")
}

# 5. The comparisons. The first command of each table is the reference for the ratios.
# An exact time window in awk: keep the last emitted time per key, drop when younger than 60 s.
EXACT_AWK='{ if (($3 in last) && $1 - last[$3] < 60) next; last[$3] = $1; print }'
for profile in steady burst; do
  text="$DATA/events-$EVENTS-$profile.text"
  mapfile -d '' base_text < <(baseline_row -k 3 -t 1 -w 60s "$text")
  # The bit-sliced layout on the same floor: the library's APBF with the TLBF's (k, l) and a
  # count window of the keys a 60 s window holds on average (the emitted keys times 60 s over
  # the input's span); not the program's decisions, the fastest layout built for this path.
  slice_count=$(awk -v n="$("$TLBF" -k 3 -t 1 -w 60s -a exact "$text" | wc -l)" \
    -v first="$(head -n 1 "$text" | cut -d' ' -f1)" -v last="$(tail -n 1 "$text" | cut -d' ' -f1)" \
    'BEGIN { printf "%d", n * 60 / (last - first) + 0.5 }')
  # The load floor's trace: the words each of the default filter's decisions must read.
  text_trace="$DATA/events-$EVENTS-$profile.text.trace"
  echo "text $profile: $(load_trace "$FLOOR" "$text" "$text_trace")"
  bench_table "text, $profile profile ($(human_size "$text"), $EVENTS lines)" "$text" "$EVENTS" \
    "tlbf-dedup -k 3 -t 1 -w 60s" "$TLBF -k 3 -t 1 -w 60s $text" \
    "tlbf-dedup --threads 1" "$TLBF -k 3 -t 1 -w 60s --threads 1 $text" \
    ${base_text[@]+"${base_text[@]}"} \
    "tlbf-dedup -a exact" "$TLBF -k 3 -t 1 -w 60s -a exact $text" \
    "tlbf-dedup -a gebf" "$TLBF -k 3 -t 1 -w 60s -a gebf $text" \
    "tlbf-dedup -a tagged" "$TLBF -k 3 -t 1 -w 60s -a tagged $text" \
    "$FLOOR_TLBF" "$FLOOR $text" \
    "$FLOOR_TLBF2" "$FLOOR -j 2 $text" \
    "$FLOOR_EXACT" "$FLOOR -a exact $text" \
    "$FLOOR_EXACT2" "$FLOOR -a exact -j 2 $text" \
    "$FLOOR_NONE" "$FLOOR -a none $text" \
    "$FLOOR_NONE2" "$FLOOR -a none -j 2 $text" \
    "$FLOOR_SLICED" "$FLOOR -a apbf -n $slice_count $text" \
    "$FLOOR_LOAD" "$FLOOR --load $text_trace $text" \
    "$FLOOR_LOAD2" "$FLOOR --load $text_trace -j 2 $text" \
    "gawk '!seen[\$3]++'" "gawk '!seen[\$3]++' $text" \
    "mawk '!seen[\$3]++'" "mawk '!seen[\$3]++' $text" \
    "sort -u -k3,3" "sort -u -k3,3 $text" \
    "gawk exact 60 s window" "gawk '$EXACT_AWK' $text" \
    "mawk exact 60 s window" "mawk '$EXACT_AWK' $text"
  target_line "text $profile" "tlbf-dedup -k 3 -t 1 -w 60s" "gawk '!seen[\$3]++'" gawk 10
  tagged_line "text $profile" "tlbf-dedup -k 3 -t 1 -w 60s"
  floor_lines "text $profile" "gawk '!seen[\$3]++'" gawk 10 "$EVENTS"
  sliced_line "text $profile" "gawk '!seen[\$3]++'" gawk 10 "$EVENTS" "$slice_count"
  load_floor_line "text $profile" "gawk '!seen[\$3]++'" gawk 10 "$EVENTS" "$(thread_cpu "$FLOOR --load $text_trace -j 2 $text")"
  check_floor "$FLOOR" "$TLBF -k 3 -t 1 -w 60s" "$text"
  check_load_floor "$FLOOR" "$TLBF -k 3 -t 1 -w 60s" "$text" "$text_trace"

  json="$DATA/events-$EVENTS-$profile.ndjson"
  mapfile -d '' base_json < <(baseline_row -k id -t ts -w 60s "$json")
  json_trace="$DATA/events-$EVENTS-$profile.ndjson.trace"
  echo "ndjson $profile: $(load_trace "$JSON_FLOOR" "$json" "$json_trace")"
  bench_table "ndjson, $profile profile ($(human_size "$json"), $EVENTS records)" "$json" "$EVENTS" \
    "tlbf-dedup -k id -t ts -w 60s" "$TLBF -k id -t ts -w 60s $json" \
    "tlbf-dedup --threads 1" "$TLBF -k id -t ts -w 60s --threads 1 $json" \
    ${base_json[@]+"${base_json[@]}"} \
    "tlbf-dedup -a exact" "$TLBF -k id -t ts -w 60s -a exact $json" \
    "tlbf-dedup -a gebf" "$TLBF -k id -t ts -w 60s -a gebf $json" \
    "tlbf-dedup -a tagged" "$TLBF -k id -t ts -w 60s -a tagged $json" \
    "$FLOOR_TLBF" "$JSON_FLOOR $json" \
    "$FLOOR_TLBF2" "$JSON_FLOOR -j 2 $json" \
    "$FLOOR_EXACT" "$JSON_FLOOR -a exact $json" \
    "$FLOOR_EXACT2" "$JSON_FLOOR -a exact -j 2 $json" \
    "$FLOOR_NONE" "$JSON_FLOOR -a none $json" \
    "$FLOOR_NONE2" "$JSON_FLOOR -a none -j 2 $json" \
    "$FLOOR_LOAD" "$JSON_FLOOR --load $json_trace $json" \
    "$FLOOR_LOAD2" "$JSON_FLOOR --load $json_trace -j 2 $json" \
    "jq -c . (parse only)" "jq -c . $json" \
    "mlr head -n 1 -g id" "mlr --ijson --ojsonl head -n 1 -g id $json"
  target_line "ndjson $profile" "tlbf-dedup -k id -t ts -w 60s" "jq -c . (parse only)" "jq -c ." 50
  tagged_line "ndjson $profile" "tlbf-dedup -k id -t ts -w 60s"
  floor_lines "ndjson $profile" "jq -c . (parse only)" "jq -c ." 50 "$EVENTS"
  json_cpu2=$(thread_cpu "$JSON_FLOOR --load $json_trace -j 2 $json")
  load_floor_line "ndjson $profile" "jq -c . (parse only)" "jq -c ." 50 "$EVENTS" "$json_cpu2"
  check_floor "$JSON_FLOOR" "$TLBF -k id -t ts -w 60s" "$json"
  check_load_floor "$JSON_FLOOR" "$TLBF -k id -t ts -w 60s" "$json" "$json_trace"
  # The 300,000-event floor line takes the steady floor's cost per record (the same 60 s of
  # keys live in both files, so the filter works alike).
  if [ "$profile" = steady ] && [ -n "${TABLE_WALL[$FLOOR_TLBF]:-}" ]; then
    json_floor_per_record=$(awk -v t="${TABLE_WALL[$FLOOR_TLBF]}" -v n="$EVENTS" 'BEGIN { printf "%.9f", t / n }')
  fi
  # And the load floor's: its two-thread wall time and its slower thread's CPU time.
  if [ "$profile" = steady ] && [ -n "${TABLE_WALL[$FLOOR_LOAD2]:-}" ] && [ "$json_cpu2" != fail ]; then
    json_load_per_record=$(awk -v t="${TABLE_WALL[$FLOOR_LOAD2]}" -v c="$json_cpu2" -v n="$EVENTS" 'BEGIN {
      split(c, x, " "); s = (x[1] > x[2]) ? x[1] : x[2]; printf "%.9f %.9f", t / n, s / n }')
  fi

  # What --mask costs. On field 3 (id=k000000000000) hex,uuid,ip,quoted scan every byte and
  # match nothing, so the decisions are the default row's and the difference is the scan
  # alone; on the whole line all five classes match (numbers collapse most keys, so the
  # filter's work differs too: read that row as the cost of a realistic use).
  if [ "$profile" = steady ]; then
    bench_table "key masks, text, $profile profile: --mask cost" "$text" "$EVENTS" \
      "tlbf-dedup -k 3 -t 1 -w 60s" "$TLBF -k 3 -t 1 -w 60s $text" \
      "-k 3 --mask hex,uuid,ip,quoted" "$TLBF -k 3 -t 1 -w 60s --mask hex,uuid,ip,quoted $text" \
      "whole line, no mask" "$TLBF -t 1 -w 60s $text" \
      "whole line, --mask (all five)" "$TLBF -t 1 -w 60s --mask numbers,hex,uuid,ip,quoted $text"
  fi

  # What the default filter held on these inputs (memory per live key at the window's end).
  echo "tlbf-dedup --stats, $profile: text: $("$TLBF" -k 3 -t 1 -w 60s --stats "$text" 2>&1 >/dev/null | filter_line);" \
    "ndjson: $("$TLBF" -k id -t ts -w 60s --stats "$json" 2>&1 >/dev/null | filter_line)"
  # The memory target: the default filter at -e 1e-3, its bits allocated over its live keys
  # from --stats=json (which leaves out its own bits_per_key while the window holds under
  # half of -c's keys).
  bits=$("$TLBF" -k 3 -t 1 -w 60s -e 1e-3 --stats=json "$text" 2>&1 >/dev/null |
    sed -n 's/.*"filter":{[^}]*"bits_allocated":\([0-9]*\),[^}]*"live_keys":\([0-9]*\)[,}].*/\1 \2/p' |
    awk '$2 > 0 { printf "%.2f", $1 / $2 }')
  line=$(awk -v p="$profile" -v b="$bits" 'BEGIN {
    if (b == "") { printf "memory at -e 1e-3, %s text: no bits_allocated and live_keys in --stats=json\n", p; exit }
    printf "memory at -e 1e-3, %s text: %.1f bits per live key (target <= 22): %s\n", p, b, (b <= 22) ? "met" : "NOT met" }')
  echo "$line"
  TARGET_LINES+=("$line")
done

# Counting: --count against gawk and cut | sort | uniq -c on the steady text file, and the
# memory per held record (bench/count.bash; bench/count.sh is this block alone). SKIP_COUNT=1
# skips it.
if [ -z "${SKIP_COUNT:-}" ]; then
  count_tables "$DATA/events-$EVENTS-steady.text" "$EVENTS"
fi

# Tables: a 2,000,000-row CSV read by column name against Miller and gawk (bench/tables.bash;
# bench/tables.sh is this block alone). SKIP_TABLES=1 skips it.
if [ -z "${SKIP_TABLES:-}" ]; then
  table_tables "$DATA/events-$EVENTS-steady.text" "$EVENTS"
fi

# Time order: 8 overlapping files merged against the one sorted file, and --lateness 10s on a
# stream 10 % of whose records are up to 10 s late against the sorted stream (bench/order.bash;
# bench/order.sh is this block alone). SKIP_ORDER=1 skips it.
if [ -z "${SKIP_ORDER:-}" ]; then
  order_tables "$DATA/events-$EVENTS-steady.text" "$EVENTS"
fi

# -a exact under a binding --max-memory against uncapped (bench/exact_cap.bash; bench/order.sh
# runs it too). SKIP_EXACT_CAP=1 skips it.
if [ -z "${SKIP_EXACT_CAP:-}" ]; then
  exact_cap_tables
fi

# Start-up: what a one-record input costs, 20 runs in one timed loop (GNU time counts CPU
# in hundredths of a second, too coarse for one run); /bin/true is the cost of any process.
one_json="$DATA/one-record.ndjson"
head -1 "$small_json" >"$one_json"
STARTUP_RUNS=20
startup_loop() { echo "bash -c 'for ((i = 0; i < $STARTUP_RUNS; i++)); do $*; done'"; }
bench_table "start-up: $STARTUP_RUNS runs on a one-record NDJSON input" "$one_json" "$STARTUP_RUNS" \
  "tlbf-dedup -k id -t ts -w 60s" "$(startup_loop "$TLBF" -k id -t ts -w 60s "$one_json")" \
  "tlbf-dedup -a exact" "$(startup_loop "$TLBF" -k id -t ts -w 60s -a exact "$one_json")" \
  "/bin/true" "$(startup_loop /bin/true)"
startup_tlbf=${TABLE_WALL[tlbf-dedup -k id -t ts -w 60s]:-}
startup_cpu=${TABLE_CPU[tlbf-dedup -k id -t ts -w 60s]:-}
startup_true=${TABLE_WALL[/bin/true]:-}
startup_line=$(awk -v a="$startup_tlbf" -v e="${TABLE_WALL[tlbf-dedup -a exact]:-}" -v t="$startup_true" \
  -v ca="${TABLE_CPU[tlbf-dedup -k id -t ts -w 60s]:-}" -v ce="${TABLE_CPU[tlbf-dedup -a exact]:-}" \
  -v ct="${TABLE_CPU[/bin/true]:-}" -v r="$STARTUP_RUNS" 'BEGIN {
    if (a == "" || e == "" || t == "") { print "start-up: not measured (a row failed)"; exit }
    printf "start-up per run: tlbf-dedup %.1f ms (CPU %.1f), -a exact %.1f ms (CPU %.1f), /bin/true %.1f ms (CPU %.1f)\n", \
      1e3 * a / r, 1e3 * ca / r, 1e3 * e / r, 1e3 * ce / r, 1e3 * t / r, 1e3 * ct / r }')
echo "$startup_line"
TARGET_LINES+=("$startup_line")

# The small NDJSON file, where start-up costs count. Its load floor rows are measured on the
# file itself (a whole process each, start-up included), beside the line below that prices it
# from the 2,000,000-event floor's cost per record.
small_trace="$DATA/events-$SMALL_EVENTS-steady.ndjson.trace"
echo "ndjson 300,000 events: $(load_trace "$JSON_FLOOR" "$small_json" "$small_trace")"
# Its runs are short (jq about 1.5 s, the rest under 0.1 s) and its verdict sits near the line,
# so it takes SMALL_REPS runs a row (default 11, at least REPS) where the others take REPS.
SMALL_REPS=${SMALL_REPS:-$((REPS > 11 ? REPS : 11))}
REPS=$SMALL_REPS bench_table "ndjson, 300,000 events, steady profile ($(human_size "$small_json"), $SMALL_REPS runs a row)" "$small_json" "$SMALL_EVENTS" \
  "tlbf-dedup -k id -t ts -w 60s" "$TLBF -k id -t ts -w 60s $small_json" \
  "tlbf-dedup --threads 1" "$TLBF -k id -t ts -w 60s --threads 1 $small_json" \
  "tlbf-dedup -a exact" "$TLBF -k id -t ts -w 60s -a exact $small_json" \
  "$FLOOR_LOAD" "$JSON_FLOOR --load $small_trace $small_json" \
  "$FLOOR_LOAD2" "$JSON_FLOOR --load $small_trace -j 2 $small_json" \
  "jq -c . (parse only)" "jq -c . $small_json"
target_line "ndjson 300,000 events" "tlbf-dedup -k id -t ts -w 60s" "jq -c . (parse only)" "jq -c ." 35
line=$(awk -v t1="${TABLE_WALL[$FLOOR_LOAD]:-}" -v t2="${TABLE_WALL[$FLOOR_LOAD2]:-}" \
  -v jq="${TABLE_WALL[jq -c . (parse only)]:-}" -v reps="$SMALL_REPS" 'BEGIN {
    if (t1 == "" || t2 == "" || jq == "") { print "ndjson 300,000 events load floor, measured: not measured (a row failed)"; exit }
    printf "ndjson 300,000 events load floor, measured on the file (whole runs, %d a row): %.1fx jq -c . one thread, %.1fx two (no verdict: the rotating rounds below give it)\n", \
      reps, jq / t1, jq / t2 }')
echo "$line"
TARGET_LINES+=("$line")
check_load_floor "$JSON_FLOOR" "$TLBF -k id -t ts -w 60s" "$small_json" "$small_trace"
# The verdicts of this target. Rows timed a block at a time each catch one state of the host
# (the floor's blocks of 11 gave 32.9x and 40.9x minutes apart on the idle VM), so the program
# and the floor are timed again against jq in SMALL_ROUNDS rounds whose order rotates
# (bench/small_file.sh is this measurement alone).
SMALL_ROUNDS=${SMALL_ROUNDS:-41}
echo
rotating_rounds "ndjson 300,000 events" 35 "$SMALL_ROUNDS" \
  "jq -c ." "jq -c . $small_json" \
  "tlbf-dedup -k id -t ts -w 60s" "$TLBF -k id -t ts -w 60s $small_json" \
  "$FLOOR_LOAD2" "$JSON_FLOOR --load $small_trace -j 2 $small_json" || true
# The floor of this target: the program's start-up plus the NDJSON floor's cost per record.
line=$(awk -v s="$startup_tlbf" -v st="$startup_true" -v r="$STARTUP_RUNS" -v f="${json_floor_per_record:-}" \
  -v n="$SMALL_EVENTS" -v jq="${TABLE_WALL[jq -c . (parse only)]:-}" 'BEGIN {
    if (s == "" || f == "" || jq == "") { print "ndjson 300,000 events floor: not measured (a row failed)"; exit }
    s /= r; st /= r
    printf "ndjson 300,000 events floor: start-up %.1f ms + %d x %.0f ns (the steady NDJSON floor per record) = %.3f s, %.1fx jq -c . (target >= 35x); with /bin/true'\''s start-up (%.1f ms) %.1fx\n", \
      1e3 * s, n, 1e9 * f, s + n * f, jq / (s + n * f), 1e3 * st, jq / (st + n * f) }')
echo "$line"
TARGET_LINES+=("$line")
# The same with the load floor's cost per record (identical decisions as reads only, steady,
# two threads): in wall time, and in CPU time (start-up's, the slower thread's, jq's). An
# estimate only: the rotating rounds above measure the floor on the file itself.
line=$(awk -v s="$startup_tlbf" -v cs="$startup_cpu" -v r="$STARTUP_RUNS" \
  -v f="${json_load_per_record:-}" -v n="$SMALL_EVENTS" -v jq="${TABLE_WALL[jq -c . (parse only)]:-}" \
  -v cjq="${TABLE_CPU[jq -c . (parse only)]:-}" 'BEGIN {
    if (s == "" || f == "" || jq == "" || cs == "") { print "ndjson 300,000 events load floor: not measured (a row failed)"; exit }
    split(f, x, " "); s /= r; cs /= r
    w = jq / (s + n * x[1]); c = cjq / (cs + n * x[2])
    printf "ndjson 300,000 events load floor, priced: start-up %.1f ms + %d x %.0f ns (the steady load floor per record, two threads) = %.3f s, %.1fx jq -c . (target >= 35x); in CPU time %.1f ms + %d x %.0f ns (the slower thread) = %.3f s, %.1fx (an estimate from the 2,000,000-event run, no verdict: the rotating rounds above measure the file)\n", \
      1e3 * s, n, 1e9 * x[1], s + n * x[1], w, 1e3 * cs, n, 1e9 * x[2], cs + n * x[2], c }')
echo "$line"
TARGET_LINES+=("$line")
# Compressed input: the same text file as .gz and .zst. The reference row is tlbf-dedup reading
# the archive itself (decompressing on its second thread); zcat alone is the floor a user
# compares with, and `zcat | tlbf-dedup` the pipeline they would otherwise write. MB/s and
# Mrec/s count compressed bytes and input records.
text="$DATA/events-$EVENTS-steady.text"
[ -s "$text.gz" ] || gzip -6 -c "$text" >"$text.gz"
[ -s "$text.zst" ] || zstd -q -3 -c "$text" >"$text.zst"
bench_table "gzip input, steady profile ($(human_size "$text.gz") compressed, $EVENTS lines)" "$text.gz" "$EVENTS" \
  "tlbf-dedup FILE.gz" "$TLBF -k 3 -t 1 -w 60s $text.gz" \
  "zcat FILE.gz | tlbf-dedup" "zcat $text.gz | $TLBF -k 3 -t 1 -w 60s" \
  "zcat FILE.gz > /dev/null" "zcat $text.gz" \
  "tlbf-dedup FILE (plain)" "$TLBF -k 3 -t 1 -w 60s $text"
bench_table "zstd input, steady profile ($(human_size "$text.zst") compressed, $EVENTS lines)" "$text.zst" "$EVENTS" \
  "tlbf-dedup FILE.zst" "$TLBF -k 3 -t 1 -w 60s $text.zst" \
  "zstdcat FILE.zst | tlbf-dedup" "zstdcat $text.zst | $TLBF -k 3 -t 1 -w 60s" \
  "zstdcat FILE.zst > /dev/null" "zstdcat $text.zst"

cat <<'EOF'
gzip/zstd input: CPU s of a pipeline is both processes' CPU; tlbf-dedup's own row includes its
decompression thread. Wall time near zcat's alone means the decoding is the bottleneck and
deduplication hides behind it on the second core.
floor: bench/text_floor.cpp (text) and bench/ndjson_floor.cpp (NDJSON), the same decisions in
one tight loop (reads, memchr, the fields or the two JSON members, XXH3, the library's filter):
what the program could reach with today's filter; "2nd thread" parses one batch ahead on the
other core (its wall time needs an idle second core to mean anything); -a exact the exact
table's decisions, -a none no filter at all (a coin toss on the hash): floor minus floor -a
none is what a filter costs per key. The floor lines under each table are ratios of these
rows' medians; start-up rows time 20 runs on a one-record input in one loop.
Output: every command's output is read through a pipe by another process (wc -l); median s is
the whole pipeline's wall time, CPU s and RSS MB the command's alone (the reader not counted).
CPU s: median user + system time (sort -u runs two threads, so it can exceed the wall time);
CPU x: this row's CPU time over the reference's, steadier than wall time on a busy machine.
Commands slower than SLOW (20) seconds are run 3 times instead of REPS.
emitted: records written by the first run. The unbounded peers (gawk/mawk '!seen', sort -u,
mlr head -g) keep every key forever, so they emit fewer records than a 60 s window; the exact
awk windows and tlbf-dedup -a exact implement the window itself and should agree with each
other (tlbf-dedup's default may drop a few more: its false positives). speed x and RSS /:
the reference row's throughput over this row's, and this row's peak RSS over the reference's.
EOF

# 6. Cost as the window grows: the filters alone, 10^3 to 10^7 live keys.
if [ -z "${SKIP_SCALING:-}" ]; then
  scaling_args=(--reps "$REPS")
  # A quick run stops at 10^6 live keys.
  [ "$EVENTS" -ge 2000000 ] || scaling_args+=(--max-live 1000000)
  # shellcheck disable=SC2086
  "$SCALING" "${scaling_args[@]}" ${SCALING_ARGS:-} | tee "$DATA/scaling.out"
  mapfile -t scaling_lines < <(grep -F '(target' "$DATA/scaling.out")
  TARGET_LINES+=(${scaling_lines[@]+"${scaling_lines[@]}"})
fi

# 6b. The program as the window grows, 10^3 to 10^7 live keys, against the baseline.
if [ -z "${SKIP_PROGRAM_SCALING:-}" ]; then
  scaling_input "$DATA/scaling-1e7.txt"
  scaling_table "$TLBF" "$BASELINE" "$DATA/scaling-1e7.txt"
fi
# The TLBF's live eras and bits per live key on steady, bursty, ramping and idle streams.
echo
"$BUILD_DIR/bench/tlbf-bench-eras"

# 7. The library micro-benchmarks, and the GEBF layouts beside the library's.
if [ -z "${SKIP_MICRO:-}" ]; then
  echo
  "$BUILD_DIR/bench/tlbf-bench-gebf-layouts" "$REPS"
  micro_args=(--reps "$REPS")
  # A quick run also shrinks the large-window case.
  [ "$EVENTS" -ge 2000000 ] || micro_args+=(--large-keys 1000000)
  # shellcheck disable=SC2086
  "$MICRO" "${micro_args[@]}" ${MICRO_ARGS:-}
fi

echo
echo "== Targets (issue 15): ratios of medians in this run, output read through a pipe =="
printf '%s\n' "${TARGET_LINES[@]}"
describe_load_at_end
