# The exact filter under a binding --max-memory (sourced by bench/run.sh and
# bench/exact_cap.sh): 2,000,000 distinct keys (seq), uncapped and under an 8M cap that binds,
# in one table run. Issue 52's target: the capped run within 2x of the uncapped time per record
# (a ratio of 0.5 or more); making room once cost a pass over the table per record.
#
# Needs bench_table and TABLE_WALL/TABLE_CPU (lib.bash), TLBF and DATA; appends its line to
# TARGET_LINES.

# exact_cap_tables
exact_cap_tables() {
  local keys="$DATA/seq-2000000.txt" line
  [ -s "$keys" ] || seq 2000000 > "$keys"
  local open="tlbf-dedup -a exact" capped="tlbf-dedup -a exact, 8M cap"
  bench_table "-a exact under a binding --max-memory, 2,000,000 distinct keys" "$keys" 2000000 \
    "$open" "$TLBF -a exact -w 1h $keys" \
    "$capped" "$TLBF -a exact -w 1h --max-memory 8M --quiet $keys"
  line=$(awk -v t="${TABLE_WALL[$capped]:-}" -v r="${TABLE_WALL[$open]:-}" 'BEGIN {
      if (t == "" || r == "") { print "exact cap: not measured (a row failed)"; exit }
      printf "exact cap: capped at %.2fx the throughput of uncapped in wall time, target 0.5 (%s)\n", r / t,
        r / t >= 0.5 ? "met" : "not met" }')
  echo "$line"
  TARGET_LINES+=("$line")
}
