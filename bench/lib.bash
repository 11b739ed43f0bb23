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
}

# The filter's memory lines of tlbf-dedup --stats, joined into one.
filter_line() { grep -E '^(filter|keys) ' | tr -s ' ' | paste -sd ';' -; }

human_size() { stat -c %s "$1" | awk '{ printf "%.0f MB", $1 / 1e6 }'; }

# median NUMBER...: the middle value (mean of the two middle ones for an even count).
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# run_timed CMD [COUNT_FILE]: runs CMD once; prints "WALL_S RSS_KB CPU_S" (CPU = user +
# system, which a busy machine inflates less than wall time), or "fail STATUS". Output is
# discarded, or with COUNT_FILE counted into it (wc -l: a pipe, cheaper than any file).
run_timed() {
  local out t0 t1 status=0
  out=$(mktemp)
  t0=$EPOCHREALTIME
  if [ -n "${2:-}" ]; then
    # run.sh sets pipefail, so a failing command is not hidden behind wc's success.
    /usr/bin/time -f '%M %U %S' -o "$out" bash -c "exec $1" 2>/dev/null | wc -l >"$2" || status=$?
  else
    /usr/bin/time -f '%M %U %S' -o "$out" bash -c "exec $1" >/dev/null 2>&1 || status=$?
  fi
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
# reference for the two ratio columns.
bench_table() {
  local title=$1 file=$2 records=$3
  shift 3
  local bytes ref_t="" ref_rss="" ref_cpu="" label cmd emitted r res t rss cpu
  bytes=$(stat -c %s "$file")
  cat "$file" >/dev/null  # every row reads it from the page cache
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
    awk -v l="$label" -v t="$t" -v rss="$rss" -v cpu="$cpu" -v b="$bytes" -v n="$records" -v e="$emitted" \
      -v rt="$ref_t" -v rr="$ref_rss" -v rc="$ref_cpu" 'BEGIN {
        printf "%-30s %9.3f %7.2f %9.1f %9.2f %9.1f %9s", l, t, cpu, b / 1e6 / t, n / 1e6 / t, rss / 1024, e
        if (rt == "none") printf " %8s %8s %8s\n", "-", "-", "-"
        else if (rc == 0) printf " %8.2f %8s %8.2f\n", t / rt, "-", rss / rr
        else printf " %8.2f %8.2f %8.2f\n", t / rt, cpu / rc, rss / rr }'
  done
}
