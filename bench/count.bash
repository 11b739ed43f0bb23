# The --count measurement (sourced by bench/run.sh and bench/count.sh): on the text file,
# `tlbf-dedup --count` (each key's records counted per 60 s window, written as windows close)
# against the counting commands a user would otherwise write, which count each key over the
# whole file: gawk '{c[$3]++} END {...}' and cut | sort | uniq -c, every output read through a
# pipe as in the other tables; then what a held record costs in memory: a run whose window
# outlasts the file holds every key to the end, and its peak RSS, less a one-record run's,
# over the records it held at once (with the holder's own count from --stats=json beside it).
#
# Needs bench_table and TABLE_WALL/TABLE_CPU (lib.bash), TLBF and DATA; appends its lines to
# TARGET_LINES.

# count_tables TEXT EVENTS
count_tables() {
  local text=$1 events=$2 line stats rss base held held_bytes own
  local ours="tlbf-dedup --count" by_gawk="gawk '{c[\$3]++} END {...}'" by_sort="cut -d' ' -f3 | sort | uniq -c"
  bench_table "--count, text, steady profile ($(human_size "$text"), $events lines)" "$text" "$events" \
    "$ours" "$TLBF -k 3 -t 1 -w 60s --count $text" \
    "tlbf-dedup --count --threads 1" "$TLBF -k 3 -t 1 -w 60s --count --threads 1 $text" \
    "$by_gawk" "gawk '{c[\$3]++} END {for (k in c) print c[k], k}' $text" \
    "$by_sort" "cut -d' ' -f3 $text | sort | uniq -c"
  line=$(awk -v t="${TABLE_WALL[$ours]:-}" -v g="${TABLE_WALL[$by_gawk]:-}" -v s="${TABLE_WALL[$by_sort]:-}" \
    -v ct="${TABLE_CPU[$ours]:-}" -v cg="${TABLE_CPU[$by_gawk]:-}" -v cs="${TABLE_CPU[$by_sort]:-}" 'BEGIN {
      if (t == "" || g == "" || s == "") { print "count: not measured (a row failed)"; exit }
      printf "count: tlbf-dedup --count %.1fx gawk '\''{c[$3]++} END {...}'\'' and %.1fx cut | sort | uniq -c in wall time", g / t, s / t
      if (ct > 0) printf " (CPU time %.1fx and %.1fx)", cg / ct, cs / ct
      printf ", output read through a pipe\n" }')
  echo "$line"
  TARGET_LINES+=("$line")

  # Memory: every key held to the end of the run.
  stats="$DATA/count.stats.json"
  /usr/bin/time -f '%M' -o "$DATA/count.rss" "$TLBF" -k 3 -t 1 -w 1000d --count --stats=json "$text" 2> "$stats" |
    wc -l > /dev/null
  rss=$(tail -1 "$DATA/count.rss")
  head -n 1 "$text" > "$DATA/count.one"
  /usr/bin/time -f '%M' -o "$DATA/count.rss" "$TLBF" -k 3 -t 1 -w 1000d --count "$DATA/count.one" > /dev/null
  base=$(tail -1 "$DATA/count.rss")
  held=$(sed -n 's/.*"held":{"peak":\([0-9]*\).*/\1/p' "$stats" | tail -1)
  held_bytes=$(sed -n 's/.*"held":{"peak":[0-9]*,"peak_bytes":\([0-9]*\).*/\1/p' "$stats" | tail -1)
  # What a record brings itself: its line, its key (field 3) and twice its time text (field 1).
  own=$(awk '{ n += length($0) + 1; k += length($3) + 2 * length($1) } END { printf "%.1f %.1f", n / NR, (n + k) / NR }' "$text")
  line=$(awk -v rss="$rss" -v base="$base" -v n="$held" -v b="$held_bytes" -v own="$own" 'BEGIN {
      if (n == "" || n == 0 || rss == "") { print "count memory: not measured (no held records in --stats)"; exit }
      split(own, o, " ")
      printf "count memory: %d records held at once, peak RSS %.0f MB (one-record run %.1f MB): %.0f bytes of RSS per held record, %.0f of them its own (its %.0f-byte line, key and time texts); the holder counts %.0f bytes per record against --max-memory\n", \
        n, rss / 1024, base / 1024, (rss - base) * 1024 / n, o[2], o[1], b / n }')
  echo "$line"
  TARGET_LINES+=("$line")
}
