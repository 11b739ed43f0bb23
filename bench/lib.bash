# Helpers for bench/run.sh (sourced): timing a command several times, and printing the
# comparison table. A command is a shell string run as `bash -c "exec CMD"`, so the process
# GNU time measures is the tool itself, not a wrapper shell.

# Prints the machine description the figures belong to.
describe_machine() {
  local model cores mem
  model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
  cores=$(nproc 2>/dev/null || echo '?')
  mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
  echo "machine: ${model:-unknown CPU}, $cores cores, $mem RAM; $(uname -sr);" \
    "L2 $(lscpu 2>/dev/null | sed -n 's/^L2 cache: *//p'), L3 $(lscpu 2>/dev/null | sed -n 's/^L3 cache: *//p')"
  # Other work on the machine slows every row alike only roughly; say how busy it was.
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  cpu_speeds
  MACHINE_CPU_AT_START=$(cpu_ticks)
}

# cpu_speeds: the same single-threaded loop (gawk, 5e6 additions) pinned to each CPU in turn,
# three rounds, medians in seconds, and how much slower the slowest CPU is than the fastest.
# A virtual machine's CPUs need not run alike (another guest may share one's core): a row on
# one thread then runs at the speed of the CPU the scheduler gave it, and a --threads 2 row
# at the pace of the slower of its two. PIN_CPU=N (run_timed) runs every row on CPU N.
cpu_speeds() {
  command -v taskset >/dev/null || { echo "per-CPU speed: taskset not found"; return 0; }
  local cpus c r line
  cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | tr ',' '\n' |
    awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }')
  declare -A took=()
  for r in 1 2 3; do
    for c in $cpus; do
      took[$c]+="$( { /usr/bin/time -f '%e' taskset -c "$c" gawk 'BEGIN { for (i = 0; i < 5e6; i++) s += i }'; } 2>&1) "
    done
  done
  line=""
  for c in $cpus; do
    # shellcheck disable=SC2086
    line+="cpu$c $(median ${took[$c]}) s, "
  done
  echo "per-CPU speed (one gawk loop pinned to each, median of 3): ${line%, };" \
    "$(echo "$line" | tr ',' '\n' | awk '{ if ($2 != "") { v = $2 + 0; if (!n++ || v < lo) lo = v; if (v > hi) hi = v } }
      END { printf "the slowest takes %.2f x the fastest", (lo > 0 ? hi / lo : 0) }')"
}

# cpu_ticks: "BUSY TOTAL", the machine's CPU time so far (all processes) from /proc/stat.
cpu_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat; }

# Prints how busy the machine was since describe_machine: the load average now, and the share
# of all cores that was busy over the run (the harness's own commands included: one busy core
# of two is 50 %, so well above that, others were running too).
describe_load_at_end() {
  local busy0 total0 busy1 total1
  read -r busy0 total0 <<<"$MACHINE_CPU_AT_START"
  read -r busy1 total1 <<<"$(cpu_ticks)"
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); CPU busy over the run:" \
    "$(awk -v b="$((busy1 - busy0))" -v t="$((total1 - total0))" 'BEGIN { printf "%.0f %%", t ? 100 * b / t : 0 }')" \
    "of $(nproc 2>/dev/null || echo '?') cores"
  cpu_speeds
}

# The filter's memory lines of tlbf-dedup --stats, joined into one.
filter_line() { grep -E '^(filter|keys) ' | tr -s ' ' | paste -sd ';' -; }

human_size() { stat -c %s "$1" | awk '{ printf "%.0f MB", $1 / 1e6 }'; }

# median NUMBER...: the middle value (mean of the two middle ones for an even count).
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# run_timed CMD [COUNT_FILE]: runs CMD once with its output read through a pipe by another
# process (wc -l, which reads as cheaply as cat), as a user's pipeline reads it; prints
# "WALL_S RSS_KB CPU_S" or "fail STATUS". WALL is the whole pipeline's, until the reader has
# read everything; RSS and CPU (user + system, which a busy machine inflates less than wall
# time) are CMD's alone, the reader not counted. With COUNT_FILE, the output's line count is
# written there.
run_timed() {
  local out t0 t1 status=0
  out=$(mktemp)
  t0=$EPOCHREALTIME
  # run.sh sets pipefail, so a failing command is not hidden behind the reader's success.
  local pin=()
  [ -n "${PIN_CPU:-}" ] && pin=(taskset -c "$PIN_CPU")
  /usr/bin/time -f '%M %U %S' -o "$out" "${pin[@]}" bash -c "exec $1" 2>/dev/null | wc -l >"${2:-/dev/null}" || status=$?
  t1=$EPOCHREALTIME
  if [ "$status" -ne 0 ]; then
    echo "fail $status"
  else
    tail -1 "$out" | awk -v a="$t0" -v b="$t1" '{ printf "%.6f %s %.2f\n", b - a, $1, $2 + $3 }'
  fi
  rm -f "$out"
}

# bench_table TITLE FILE RECORDS LABEL CMD [LABEL CMD]...
# Times every command REPS times on FILE and prints one table; the first command is the
# reference for the two ratio columns. The medians stay in TABLE_WALL and TABLE_CPU, by
# label, until the next table, for target_line. The first command runs once untimed before
# any timing: the first row used to read slow (steady text 0.803 s against 0.771 s for the
# same command later in a run, NDJSON 1.04 s against 0.83-0.90 s), and every ratio is taken
# against that row, so it now starts warm like the rows after it.
declare -A TABLE_WALL TABLE_CPU
bench_table() {
  TABLE_WALL=() TABLE_CPU=()
  local title=$1 file=$2 records=$3
  shift 3
  local bytes ref_t="" ref_rss="" ref_cpu="" label cmd emitted r res t rss cpu
  bytes=$(stat -c %s "$file")
  cat "$file" >/dev/null  # every row reads it from the page cache
  run_timed "$2" >/dev/null  # the untimed warm-up of the reference row (above; shifted, its command is $2)
  echo
  echo "== $title =="
  printf '%-30s %9s %7s %9s %9s %9s %9s %8s %8s %8s\n' command "median s" "CPU s" "MB/s" "Mrec/s" "RSS MB" emitted \
    "speed x" "CPU x" "RSS /"
  while [ $# -gt 0 ]; do
    label=$1 cmd=$2
    shift 2
    # The first run counts what the command emits. Its time counts too (the page cache is
    # warm from the earlier rows on the same file), and a command slower than SLOW seconds
    # gets only two more runs, so jq and Miller do not stretch the harness to an hour.
    local times=() rsses=() cpus=() failed="" count_file reps=$REPS
    count_file=$(mktemp)
    for ((r = 0; r < reps; r++)); do
      if [ "$r" -eq 0 ]; then
        res=$(run_timed "$cmd" "$count_file")
        emitted=$(tr -d ' ' <"$count_file")
        if [ "${res%% *}" != fail ] && awk -v t="${res%% *}" -v s="${SLOW:-20}" 'BEGIN { exit !(t > s) }'; then
          reps=$((REPS < 3 ? REPS : 3))
        fi
      else
        res=$(run_timed "$cmd")
      fi
      if [ "${res%% *}" = fail ]; then
        failed=${res#fail }
        break
      fi
      read -r t rss cpu <<<"$res"
      times+=("$t")
      rsses+=("$rss")
      cpus+=("$cpu")
    done
    rm -f "$count_file"
    if [ -n "$failed" ]; then
      printf '%-30s failed (exit status %s): %s\n' "$label" "$failed" "$cmd"
      # Without the reference row there is nothing to take ratios against.
      [ -n "$ref_t" ] || ref_t=none
      continue
    fi
    t=$(median "${times[@]}")
    rss=$(median "${rsses[@]}")
    cpu=$(median "${cpus[@]}")
    if [ -z "$ref_t" ]; then
      ref_t=$t ref_rss=$rss ref_cpu=$cpu
    fi
    TABLE_WALL[$label]=$t TABLE_CPU[$label]=$cpu
    awk -v l="$label" -v t="$t" -v rss="$rss" -v cpu="$cpu" -v b="$bytes" -v n="$records" -v e="$emitted" \
      -v rt="$ref_t" -v rr="$ref_rss" -v rc="$ref_cpu" 'BEGIN {
        printf "%-30s %9.3f %7.2f %9.1f %9.2f %9.1f %9s", l, t, cpu, b / 1e6 / t, n / 1e6 / t, rss / 1024, e
        if (rt == "none") printf " %8s %8s %8s\n", "-", "-", "-"
        else if (rc == 0) printf " %8.2f %8s %8.2f\n", t / rt, "-", rss / rr
        else printf " %8.2f %8.2f %8.2f\n", t / rt, cpu / rc, rss / rr }'
  done
}

# target_line WHAT OURS PEER PEER_NAME TARGET: one line of the last table's wall-time ratio
# PEER / OURS (rows named by label) against the target ratio, e.g. "text steady: tlbf-dedup
# 10.3x gawk in wall time (target >= 10x): met (CPU time 12.1x)". Kept in TARGET_LINES for
# the summary at the end.
TARGET_LINES=()
target_line() {
  local what=$1 ours=$2 peer=$3 peer_name=$4 target=$5 line
  if [ -z "${TABLE_WALL[$ours]:-}" ] || [ -z "${TABLE_WALL[$peer]:-}" ]; then
    line="$what: tlbf-dedup against $peer_name (target >= ${target}x): not measured (a row failed)"
  else
    line=$(awk -v w="$what" -v p="$peer_name" -v g="$target" -v to="${TABLE_WALL[$ours]}" -v tp="${TABLE_WALL[$peer]}" \
      -v co="${TABLE_CPU[$ours]}" -v cp="${TABLE_CPU[$peer]}" 'BEGIN {
        r = tp / to
        printf "%s: tlbf-dedup %.1fx %s in wall time (target >= %gx): %s", w, r, p, g, (r >= g) ? "met" : "NOT met"
        if (co > 0) printf " (CPU time %.1fx)", cp / co
        printf "\n" }')
  fi
  echo "$line"
  TARGET_LINES+=("$line")
}

# The floor rows' labels, the same in the text and NDJSON tables, so floor_lines finds them.
FLOOR_TLBF="floor: tight loop, same filter"
FLOOR_TLBF2="floor, parse on a 2nd thread"
FLOOR_EXACT="floor -a exact"
FLOOR_EXACT2="floor -a exact, 2nd thread"
FLOOR_NONE="floor -a none (no filter)"
FLOOR_NONE2="floor -a none, 2nd thread"
FLOOR_SLICED="floor, bit-sliced APBF (count)"

# floor_lines WHAT PEER PEER_NAME TARGET RECORDS: two lines on the last table's floor rows:
# how far each floor gets against PEER (wall-time ratios, as the target is stated), what the
# filter costs per key (floor with the filter minus floor without one, CPU time, one thread),
# and the filter cost per key that would still reach TARGET (PEER's wall time over TARGET,
# less the floor without a filter, over RECORDS). Kept in TARGET_LINES for the summary.
floor_lines() {
  local what=$1 peer=$2 peer_name=$3 target=$4 records=$5 label lines
  for label in "$peer" "$FLOOR_TLBF" "$FLOOR_TLBF2" "$FLOOR_EXACT" "$FLOOR_EXACT2" "$FLOOR_NONE" "$FLOOR_NONE2"; do
    if [ -z "${TABLE_WALL[$label]:-}" ]; then
      lines="$what floor: not measured (row \"$label\" failed)"
      echo "$lines"
      TARGET_LINES+=("$lines")
      return 0
    fi
  done
  mapfile -t lines < <(awk -v w="$what" -v p="$peer_name" -v g="$target" -v n="$records" \
    -v tp="${TABLE_WALL[$peer]}" \
    -v t1="${TABLE_WALL[$FLOOR_TLBF]}" -v t2="${TABLE_WALL[$FLOOR_TLBF2]}" -v c1="${TABLE_CPU[$FLOOR_TLBF]}" \
    -v e1="${TABLE_WALL[$FLOOR_EXACT]}" -v e2="${TABLE_WALL[$FLOOR_EXACT2]}" -v ce="${TABLE_CPU[$FLOOR_EXACT]}" \
    -v z1="${TABLE_WALL[$FLOOR_NONE]}" -v z2="${TABLE_WALL[$FLOOR_NONE2]}" -v cz="${TABLE_CPU[$FLOOR_NONE]}" 'BEGIN {
      printf "%s floor: the default filter'\''s decisions in a tight loop %.1fx %s (2 threads %.1fx); -a exact %.1fx (2 threads %.1fx); without any filter %.1fx (2 threads %.1fx)\n", \
        w, tp / t1, p, tp / t2, tp / e1, tp / e2, tp / z1, tp / z2
      budget = (tp / g - z1) / n * 1e9
      printf "%s floor: the default filter costs %.0f ns per key, -a exact %.0f (floor minus floor -a none, CPU); %gx %s leaves ", \
        w, (c1 - cz) / n * 1e9, (ce - cz) / n * 1e9, g, p
      if (budget > 0) printf "%.0f ns per key for the filter (%s / %g minus floor -a none, wall, one thread)\n", budget, p, g
      else printf "nothing for a filter: floor -a none alone takes %.1fx the %s / %g budget\n", z1 / (tp / g), p, g
    }')
  printf '%s\n' "${lines[@]}"
  TARGET_LINES+=("${lines[@]}")
}

# sliced_line WHAT PEER PEER_NAME TARGET RECORDS COUNT: how far the bit-sliced layout (the
# library's APBF with the TLBF's (k, l), a count window of COUNT keys) gets on the last table's
# floor against PEER, and what it costs per key, beside the budget floor_lines gave.
sliced_line() {
  local what=$1 peer=$2 peer_name=$3 target=$4 records=$5 count=$6 line
  if [ -z "${TABLE_WALL[$FLOOR_SLICED]:-}" ] || [ -z "${TABLE_WALL[$FLOOR_NONE]:-}" ] || [ -z "${TABLE_WALL[$peer]:-}" ]; then
    line="$what floor, bit-sliced: not measured (a row failed)"
  else
    line=$(awk -v w="$what" -v p="$peer_name" -v g="$target" -v n="$records" -v c="$count" \
      -v tp="${TABLE_WALL[$peer]}" -v ts="${TABLE_WALL[$FLOOR_SLICED]}" -v cs="${TABLE_CPU[$FLOOR_SLICED]}" \
      -v cz="${TABLE_CPU[$FLOOR_NONE]}" 'BEGIN {
        printf "%s floor, bit-sliced layout (library APBF, the TLBF'\''s (k, l), count window %d): %.1fx %s, the filter %.0f ns per key (CPU): %s\n", \
          w, c, tp / ts, p, (cs - cz) / n * 1e9, (tp / ts >= g) ? "a layout that reaches the target" : "below the target too" }')
  fi
  echo "$line"
  TARGET_LINES+=("$line")
}

# check_floor FLOOR PROGRAM FILE: a floor row is only a bound if it decides exactly as the
# program does. Compares FLOOR's output (one thread and two; the default filter and -a exact)
# with PROGRAM's (a command line without the file and without -a) and says whether they agree.
check_floor() {
  local floor=$1 program=$2 file=$3 algo threads
  for algo in tlbf exact; do
    for threads in 1 2; do
      # shellcheck disable=SC2086
      if ! cmp -s <("$floor" -a "$algo" -j "$threads" "$file" 2>/dev/null) <($program -a "$algo" "$file"); then
        echo "floor output (-a $algo -j $threads) DIFFERS from tlbf-dedup's: the floor rows are not a bound"
        return 0
      fi
    done
  done
  echo "floor output = tlbf-dedup output, byte for byte (-a tlbf and -a exact, one thread and two)"
}

# The load floor (bench/load_floor.hpp): the default filter's decisions replaced by the words
# they must read, from a trace the floor writes first (--trace-out), so the timed rows do not
# include the trace's own pass through the real filter.
FLOOR_LOAD="load floor (TLBF's reads)"
FLOOR_LOAD2="load floor, 2nd thread"

# load_trace FLOOR FILE TRACE: writes TRACE for FILE and prints the trace's summary line.
load_trace() { "$1" --trace-out "$3" "$2" 2>&1 >/dev/null | grep '^load floor'; }

# thread_cpu CMD: the median CPU seconds of the decide and parse threads of a floor run with
# -j 2 over 3 runs (from its stderr), "DECIDE PARSE". On a loaded machine the wall time of two
# threads says little; the slower thread's CPU time is what an idle second core would give.
thread_cpu() {
  local r d=() p=() line
  for r in 1 2 3; do
    # shellcheck disable=SC2086
    line=$($1 2>&1 >/dev/null | sed -n 's/.*(parse thread \([0-9.]*\) s, decide thread \([0-9.]*\) s).*/\2 \1/p')
    [ -n "$line" ] || { echo "fail"; return 0; }
    d+=("${line% *}") p+=("${line#* }")
  done
  echo "$(median "${d[@]}") $(median "${p[@]}")"
}

# load_floor_line WHAT PEER PEER_NAME TARGET RECORDS THREAD_CPU: the last table's load floor
# rows against PEER: ns per record in wall time (one thread, two), the two threads' CPU time
# per record (THREAD_CPU, from thread_cpu), the wall-time ratios against PEER, PEER's CPU time
# over the slower thread's, and whether the better wall-time ratio reaches TARGET: the targets
# are in wall time, where the two threads share the machine's two cores with the pipe's reader;
# the CPU ratio is what they would give with a core each to themselves. Kept in TARGET_LINES
# for the summary.
load_floor_line() {
  local what=$1 peer=$2 peer_name=$3 target=$4 records=$5 cpu2=$6 line
  if [ -z "${TABLE_WALL[$FLOOR_LOAD]:-}" ] || [ -z "${TABLE_WALL[$FLOOR_LOAD2]:-}" ] || [ -z "${TABLE_WALL[$peer]:-}" ] ||
    [ "$cpu2" = fail ]; then
    line="$what load floor: not measured (a row failed)"
  else
    line=$(awk -v w="$what" -v p="$peer_name" -v g="$target" -v n="$records" -v tp="${TABLE_WALL[$peer]}" \
      -v t1="${TABLE_WALL[$FLOOR_LOAD]}" -v c1="${TABLE_CPU[$FLOOR_LOAD]}" -v t2="${TABLE_WALL[$FLOOR_LOAD2]}" \
      -v ctp="${TABLE_CPU[$peer]}" -v cd="${cpu2% *}" -v cp="${cpu2#* }" 'BEGIN {
        slow = (cd > cp) ? cd : cp
        best = tp / t1; if (tp / t2 > best) best = tp / t2
        printf "%s load floor (identical decisions as reads only): %.0f ns per record one thread (CPU %.0f), %.0f ns two threads (decide thread CPU %.0f, parse thread %.0f): %.1fx %s, 2 threads %.1fx, %s CPU over the slower thread'\''s %.1fx (target >= %gx, %.0f ns per record): %s\n", \
          w, t1 / n * 1e9, c1 / n * 1e9, t2 / n * 1e9, cd / n * 1e9, cp / n * 1e9, tp / t1, p, tp / t2, p, ctp / slow, g, \
          tp / g / n * 1e9, (best >= g) ? "reachable at this floor" : "out of reach even at this floor (wall time)" }')
  fi
  echo "$line"
  TARGET_LINES+=("$line")
}

# check_load_floor FLOOR PROGRAM FILE TRACE: the load floor's output against PROGRAM's (a
# command line without the file), one thread and two.
check_load_floor() {
  local floor=$1 program=$2 file=$3 trace=$4 threads
  for threads in 1 2; do
    # shellcheck disable=SC2086
    if ! cmp -s <("$floor" --load "$trace" -j "$threads" "$file" 2>/dev/null) <($program "$file"); then
      echo "load floor output (-j $threads) DIFFERS from tlbf-dedup's: the load floor rows are not a bound"
      return 0
    fi
  done
  echo "load floor output = tlbf-dedup output, byte for byte (one thread and two)"
}

# rotating_rounds WHAT TARGET ROUNDS PEER_LABEL PEER_CMD PROGRAM_LABEL PROGRAM_CMD FLOOR_LABEL FLOOR_CMD
# A target whose runs are short and whose verdict sits near the line. Rows measured a block
# at a time (bench_table) catch one state of a shared host each: on this project's idle VM the
# same floor run's CPU time ranges 54-76 ms from run to run, with no steal time, and blocks of
# 11 runs gave 32.9x and 40.9x minutes apart. Here each of ROUNDS rounds runs the three
# commands in an order that rotates from round to round, so drift reaches every row alike.
# Prints a table and, per row, the ratio of PEER's median wall time to the row's median with
# a 90 % bootstrap interval (the rounds resampled 2,000 times, both medians recomputed each
# time) and a verdict against TARGET: met (the program) or reachable (the floor) when the
# whole interval is at or above it, not met or out of reach when all of it is below, and
# "undecided" when it holds the target. The two verdict lines go to TARGET_LINES.
rotating_rounds() {
  local what=$1 target=$2 rounds=$3 samples out r i c wall cpu
  local labels=("$4" "$6" "$8") cmds=("$5" "$7" "$9")
  samples=$(mktemp)
  for c in 0 1 2; do run_timed "${cmds[$c]}" >/dev/null; done  # warm-up, untimed
  for ((r = 0; r < rounds; r++)); do
    for i in 0 1 2; do
      c=$(((r + i) % 3))
      read -r wall _ cpu <<<"$(run_timed "${cmds[$c]}")"
      if [ "$wall" = fail ]; then
        rm -f "$samples"
        echo "bench: '${cmds[$c]}' failed" >&2
        TARGET_LINES+=("$what, rotating rounds: not measured (a command failed)")
        return 1
      fi
      echo "$c $r $wall $cpu" >>"$samples"
    done
  done
  out=$(python3 - "$samples" "$target" "$what" "${labels[@]}" <<'PYEOF'
import random, statistics, sys
path, target, what, labels = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
walls = {}
for line in open(path):
    c, r, wall, _ = line.split()
    walls.setdefault(int(c), {})[int(r)] = float(wall)
rounds = sorted(walls[0])
peer = [walls[0][r] for r in rounds]
print(f"== {what}: {len(rounds)} rotating rounds, wall seconds, output through a pipe ==")
print(f"{'command':32s} {'median s':>9s} {'min s':>8s} {'max s':>8s} {'ratio':>7s} {'90 % interval':>16s}  verdict (target >= {target:g}x)")
print(f"{labels[0]:32s} {statistics.median(peer):9.3f} {min(peer):8.3f} {max(peer):8.3f}")
rng = random.Random(1)
summary = []
for c in (1, 2):
    row = [walls[c][r] for r in rounds]
    ratio = statistics.median(peer) / statistics.median(row)
    boot = []
    for _ in range(2000):
        pick = [rng.choice(rounds) for _ in rounds]
        boot.append(statistics.median(walls[0][r] for r in pick) / statistics.median(walls[c][r] for r in pick))
    boot.sort()
    lo, hi = boot[int(0.05 * len(boot))], boot[int(0.95 * len(boot)) - 1]
    above, below = ("met", "NOT met") if c == 1 else ("reachable at this floor", "out of reach at this floor")
    verdict = above if lo >= target else (below if hi < target else "undecided: the interval holds the target")
    print(f"{labels[c]:32s} {statistics.median(row):9.3f} {min(row):8.3f} {max(row):8.3f} {ratio:6.1f}x {lo:7.1f}x-{hi:5.1f}x  {verdict}")
    summary.append(f"TARGET {what}, {len(rounds)} rotating rounds: {labels[c]} {ratio:.1f}x {labels[0]} in wall time "
                   f"(90 % interval {lo:.1f}-{hi:.1f}x; target >= {target:g}x): {verdict}")
print("\n".join(summary))
PYEOF
  )
  rm -f "$samples"
  grep -v '^TARGET ' <<<"$out"
  mapfile -t -O "${#TARGET_LINES[@]}" TARGET_LINES < <(sed -n 's/^TARGET //p' <<<"$out")
  printf '%s\n' "${TARGET_LINES[@]: -2}"
}

# bench_start: what the stand-alone measurements (count.sh, order.sh, tables.sh) share: EVENTS
# (default 2000000), REPS (default 5), a fixed hash seed, JOBS, GEN_EVENTS, and TLBF, the
# tlbf-dedup measured: a Release build in BUILD_DIR unless TLBF names one. Needs ROOT.
bench_start() {
  EVENTS=${EVENTS:-2000000}
  REPS=${REPS:-5}
  export TLBF_DEDUP_HASH_SEED=0
  JOBS=$(nproc 2>/dev/null || echo 2)
  GEN_EVENTS=${GEN_EVENTS:-$ROOT/tests/gen_events.py}
  [ -f "$GEN_EVENTS" ] || { echo "bench: $GEN_EVENTS not found" >&2; exit 1; }
  if [ -z "${TLBF:-}" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTLBF_BUILD_TESTS=OFF -DTLBF_BUILD_BENCH=ON >/dev/null
    cmake --build "$BUILD_DIR" -j "$JOBS" --target tlbf-dedup >/dev/null
    TLBF="$BUILD_DIR/src/tlbf-dedup"
  fi
}

# bench_data_dir: sets DATA, where the generated inputs live: KEEP_INPUTS (kept, and reused by
# the next run), else a temporary folder removed at exit.
bench_data_dir() {
  if [ -n "${KEEP_INPUTS:-}" ]; then
    DATA=$KEEP_INPUTS
    mkdir -p "$DATA"
  else
    DATA=$(mktemp -d "${TMPDIR:-/tmp}/tlbf-bench.XXXXXX")
    trap 'rm -rf "$DATA"' EXIT
  fi
}

# bench_input EVENTS PROFILE FORMAT: the path of that generated file in DATA, made with
# GEN_EVENTS when it is not there yet; every script names a file alike, so they share them.
bench_input() {
  local f="$DATA/events-$1-$2.$3"
  [ -s "$f" ] || python3 "$GEN_EVENTS" --events "$1" --profile "$2" --format "$3" >"$f"
  echo "$f"
}
