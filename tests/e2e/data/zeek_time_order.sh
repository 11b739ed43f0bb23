#!/usr/bin/env bash
# Zeek writes a log's records as their connections close, so its "ts" runs out of order: in
# ../shared/data, dns by up to 11m11s (13,003 records behind the clock), rdp by up to 14 s.
# Read with --lateness of that much (alone, and the four logs merged), the decisions and the
# output are those of the records sorted by ts, byte for byte with -a exact; without it the
# program says which --lateness would have held them.
source "$(dirname "$0")/../lib.bash"
need_shared_data
D="$TLBF_DEDUP"
cd "$WORK"

# sorted_by_ts FILE...: the records of FILEs (in that order) sorted by ts, ties in that order.
sorted_by_ts() {
  python3 -c '
import json, sys
rows = [l for f in sys.argv[1:] for l in open(f, encoding="utf-8")]
rows.sort(key=lambda l: json.loads(l)["ts"])
sys.stdout.write("".join(rows))' "$@"
}

for case in "dns 12m query" "rdp 14s id.resp_h"; do
  read -r log lateness member <<< "$case"
  key=(-k "$member" -k id.orig_h --missing null)
  file="$SHARED_DATA/zeek_${log}_wrccdc2018.ndjson"
  sorted_by_ts "$file" > "$log.sorted"
  "$D" "${key[@]}" -t ts -w 1m -a exact "$log.sorted" > want.out
  "$D" "${key[@]}" -t ts -w 1m -a exact --lateness "$lateness" "$file" > got.out 2> got.err
  check "zeek $log: some records are duplicates" 1 "$(( $(wc -l < want.out) < $(wc -l < "$file") ? 1 : 0 ))"
  check_files "zeek $log with --lateness $lateness: as sorted by ts" want.out got.out
  check "... quietly" "" "$(cat got.err)"
  "$D" "${key[@]}" -t ts -w 1m -a exact "$file" > /dev/null 2> late.err
  check "zeek $log without it: the fix is named" 1 "$(grep -c "record(s) were late.*--lateness $lateness holds records" late.err)"
done

# The four logs of one capture, merged and held.
files=()
for log in dns notice rdp syslog; do files+=("$SHARED_DATA/zeek_${log}_wrccdc2018.ndjson"); done
sorted_by_ts "${files[@]}" > all.sorted
"$D" -k uid -t ts -w 1m -a exact all.sorted > want.out
"$D" -k uid -t ts -w 1m -a exact --lateness 12m "${files[@]}" > got.out 2> got.err
check_files "four zeek logs merged with --lateness 12m: as sorted by ts" want.out got.out
check "... quietly" "" "$(cat got.err)"
finish
