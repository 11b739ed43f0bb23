#!/usr/bin/env bash
# --top N names the keys with the most duplicates: on the shared HPC log (periodic monitoring
# messages of a cluster, keyed on component, state and message with the numbers masked) the
# five periodic messages; its counts agree with the decisions --explain shows, within the
# stated bound; the output is the same with and without --top; every filter and output mode
# counts; --stats=json carries it; bad values are usage errors.
source "$(dirname "$0")/../lib.bash"
need_shared_data
D="$TLBF_DEDUP"
HPC="$SHARED_DATA/loghub_hpc_2k.log"
KEY=(-k 3,4,7- --mask numbers -w 1d)

# What --top reports, as "count<TAB>overestimate<TAB>key" lines, from --stats=json.
top_of() { python3 -c '
import json, sys
s = json.loads([l for l in open(sys.argv[1]) if l.startswith("{\"records\"")][0])
print(s["top_bound"], s["top_counted"], s["duplicates"])
for k in s["top"]: print(k["count"], k["overestimate"], json.dumps(k["key"]), sep="\t")' "$1"; }

"$D" "${KEY[@]}" --top 5 --stats=json "$HPC" > "$WORK/top.out" 2> "$WORK/top.err"
top_of "$WORK/top.err" > "$WORK/top.txt"
read -r bound counted dups < "$WORK/top.txt"
check "every duplicate is counted" "$dups" "$counted"
check "five keys reported" 5 "$(tail -n +2 "$WORK/top.txt" | wc -l)"
# The periodic messages: link error intervals, node and switch temperatures, node status.
for msg in 'switch_module error Linkerror event interval expired' 'node temperature ambient=<N>' \
  'gige temperature normal' 'gige temperature warning' 'node status running'; do
  check "the top five name '$msg'" 1 "$(grep -cF "\"$msg\"" "$WORK/top.txt")"
done

# The exact duplicates per key, from --explain over every record, against the report.
"$D" "${KEY[@]}" --explain=100000 "$HPC" | awk -F'\t' '$6 ~ /^dup/ { n[$2]++ } END { for (k in n) print n[k] "\t" k }' \
  | sort -rn > "$WORK/exact.txt"
tail -n +2 "$WORK/top.txt" | while IFS=$'\t' read -r count over key; do
  exact=$(awk -F'\t' -v k="$key" '$2 == k { print $1 }' "$WORK/exact.txt")
  ok=$(( count >= exact && count - over <= exact && over <= bound ? 1 : 0 ))
  echo "$ok $key: reported $count (overestimate $over, bound $bound), exact $exact"
done > "$WORK/compare.txt"
check "each count is within its overestimate of the exact count" 5 "$(grep -c '^1 ' "$WORK/compare.txt")"
check "the reported top five are the exact top five" "$(head -5 "$WORK/exact.txt" | cut -f2 | sort)" \
  "$(tail -n +2 "$WORK/top.txt" | cut -f3 | sort)"

# --top changes nothing on stdout; alone, it writes its text report to stderr.
"$D" "${KEY[@]}" "$HPC" > "$WORK/plain.out"
check_files "the output is the same with --top" "$WORK/plain.out" "$WORK/top.out"
"$D" "${KEY[@]}" --top 2 "$HPC" 2> "$WORK/alone.err" > /dev/null
check "--top alone: a text report on stderr, header and two keys" 3 "$(wc -l < "$WORK/alone.err")"
check "--top alone: the first key is the link error" 1 "$(sed -n 2p "$WORK/alone.err" | grep -c 'Linkerror event interval expired')"
"$D" "${KEY[@]}" --top 2 --stats "$HPC" 2> "$WORK/text.err" > /dev/null
check "--stats text ends with the report" 1 "$(tail -3 "$WORK/text.err" | head -1 | grep -c '^top ')"

# Every filter and output mode counts the same duplicates (the exact filter decides exactly;
# the others may differ by a false positive).
for mode in "" "--mark" "--only-dups"; do
  for algo in tlbf exact apbf gebf; do
    window=(-w 1d)
    [ "$algo" = apbf ] && window=(-n 5000)
    # shellcheck disable=SC2086
    "$D" -k 3,4,7- --mask numbers "${window[@]}" -a "$algo" $mode --top 1 --stats=json "$HPC" 2> "$WORK/m.err" > /dev/null
    first=$(top_of "$WORK/m.err" | sed -n 2p)
    check "-a $algo ${mode:-(drop)}: the top key is the link error, 393 times" \
      $'393\t0\t["switch_module error Linkerror event interval expired"]' "$first"
  done
done

# Bad values: exit 2 with the option named, nothing read.
for bad in 0 -1 abc 10001; do
  check_usage_error "--top $bad" "--top '$bad'" "$D" --top "$bad" "$HPC"
done
finish
