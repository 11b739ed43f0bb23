# The time-order measurement (sourced by bench/run.sh and bench/order.sh): the steady text file
# split at random into 8 files that all overlap in time, merged by -t, against the one sorted
# file; and a copy of the stream with 10 % of its records displaced by up to 10 s, read with
# --lateness 10s, against the sorted stream with --lateness 0. Each ratio is wall time of the
# reference row over the row's, in one table run (the targets of issue 51: 0.8 or more). The
# merged and held runs read on one thread; the sorted file's --threads 1 row shows what the
# second core buys the reference.
#
# Needs bench_table and TABLE_WALL/TABLE_CPU (lib.bash), TLBF, DATA and GEN_EVENTS; appends its
# lines to TARGET_LINES.

# order_tables TEXT EVENTS
order_tables() {
  local text=$1 events=$2 line parts displaced
  parts="$DATA/order-$events"
  if [ ! -s "$parts/part.7" ]; then
    mkdir -p "$parts"
    awk -v dir="$parts" 'BEGIN { srand(51) } { print > (dir "/part." int(rand() * 8)) }' "$text"
  fi
  local sorted="tlbf-dedup, one sorted file" merged="tlbf-dedup, 8 files merged"
  bench_table "merging by time, text, steady profile ($(human_size "$text"), $events lines)" "$text" "$events" \
    "$sorted" "$TLBF -k 3 -t 1 -w 60s $text" \
    "$merged" "$TLBF -k 3 -t 1 -w 60s $parts/part.0 $parts/part.1 $parts/part.2 $parts/part.3 $parts/part.4 $parts/part.5 $parts/part.6 $parts/part.7" \
    "one sorted file, --threads 1" "$TLBF -k 3 -t 1 -w 60s --threads 1 $text"
  line=$(ratio_line "order: 8 overlapping files merged" "$merged" "the one sorted file" "$sorted")
  echo "$line"
  TARGET_LINES+=("$line")

  displaced="$DATA/events-$events-steady-displaced.text"
  [ -s "$displaced" ] || python3 "$GEN_EVENTS" --events "$events" --displace 0.1:10 > "$displaced"
  local plain="tlbf-dedup, sorted, --lateness 0" held="tlbf-dedup --lateness 10s"
  bench_table "--lateness 10s, text, 10 % of the records up to 10 s late ($(human_size "$displaced"))" "$text" "$events" \
    "$plain" "$TLBF -k 3 -t 1 -w 60s $text" \
    "$held" "$TLBF -k 3 -t 1 -w 60s --lateness 10s $displaced" \
    "sorted, --threads 1" "$TLBF -k 3 -t 1 -w 60s --threads 1 $text"
  line=$(ratio_line "order: --lateness 10s on 10 % displaced" "$held" "the sorted stream with --lateness 0" "$plain")
  echo "$line"
  TARGET_LINES+=("$line")
}

# ratio_line WHAT ROW REFERENCE_WHAT REFERENCE_ROW: "WHAT at N x the throughput of REF (CPU
# time M x), target 0.8".
ratio_line() {
  awk -v what="$1" -v t="${TABLE_WALL[$2]:-}" -v ref="$3" -v r="${TABLE_WALL[$4]:-}" \
    -v ct="${TABLE_CPU[$2]:-}" -v cr="${TABLE_CPU[$4]:-}" 'BEGIN {
      if (t == "" || r == "") { print what ": not measured (a row failed)"; exit }
      printf "%s: %.2fx the throughput of %s in wall time", what, r / t, ref
      if (ct > 0) printf " (CPU time %.2fx)", cr / ct
      printf ", target 0.8 (%s)\n", r / t >= 0.8 ? "met" : "not met" }'
}
