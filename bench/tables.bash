# The table measurement (sourced by bench/run.sh and bench/tables.sh): the steady text file
# made a CSV table of 2,000,000 rows with a header (ts,host,id,method,path,status,bytes, none
# quoted), read by column name as the text table reads its fields, `tlbf-dedup -f csv -k id -t
# ts -w 60s`, against what a user would otherwise run: Miller by name (mlr --icsv --ocsv head -n
# 1 -g id) and gawk by number (gawk -F, '!seen[$3]++', which reads unquoted data only), both
# keeping each key's first row over the whole file. Beside them, `-a exact` without -t (the
# peers' decisions: an untimed run shorter than its 5-minute window) and the same file read as
# lines split at commas (-d ,), what reading it as a table costs beyond splitting fields.
# Every output is read through a pipe as in the other tables. Targets (issue 54): >= 10x mlr,
# >= 3x gawk.
#
# Needs bench_table and TABLE_WALL/TABLE_CPU (lib.bash), target_line, TLBF and DATA; appends
# its lines to TARGET_LINES.

# table_tables TEXT EVENTS
table_tables() {
  local text=$1 events=$2 csv="$DATA/events-$2-steady.csv"
  [ -s "$csv" ] || awk 'BEGIN { print "ts,host,id,method,path,status,bytes" }
    { for (i = 2; i <= NF; i++) sub(/^[a-z]*=/, "", $i); $1 = $1; print }' OFS=, "$text" > "$csv"
  local ours="tlbf-dedup -f csv -k id -t ts -w 60s" by_mlr="mlr --icsv --ocsv head -n 1 -g id"
  local by_gawk="gawk -F, '!seen[\$3]++'"
  bench_table "tables: CSV by column name ($(human_size "$csv"), $events rows)" "$csv" "$events" \
    "$ours" "$TLBF -f csv -k id -t ts -w 60s $csv" \
    "tlbf-dedup -f csv --threads 1" "$TLBF -f csv -k id -t ts -w 60s --threads 1 $csv" \
    "tlbf-dedup -f csv -k id -a exact" "$TLBF -f csv -k id -a exact $csv" \
    "tlbf-dedup -d , -k 3 -t 1 (lines)" "$TLBF -d , -k 3 -t 1 -w 60s $csv" \
    "$by_mlr" "mlr --icsv --ocsv head -n 1 -g id $csv" \
    "$by_gawk" "gawk -F, '!seen[\$3]++' $csv"
  target_line "csv by name" "$ours" "$by_mlr" "mlr --icsv --ocsv head -n 1 -g id" 10
  target_line "csv by name" "$ours" "$by_gawk" "gawk -F, '!seen[\$3]++'" 3
}
