#!/usr/bin/env bash
# Issue 11's composite key over mixed Zeek streams: the four Zeek logs of ../shared/data merged
# by ts, keyed by (_path, uid, trans_id, query, fuid, id.orig_h, id.resp_h). Every record lacks
# one of those members, so without --missing null none has a key (the run stops; with
# --on-error pass every record passes); with it each is keyed and
# the duplicates are those of an exact 60 s window computed here in Python, where an absent
# member is None and a key value keeps its JSON type.
source "$(dirname "$0")/../lib.bash"
need_shared_data
D="$TLBF_DEDUP"
S="$SHARED_DATA"
stat() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
MEMBERS=(_path uid trans_id query fuid id.orig_h id.resp_h)
KEY=()
for m in "${MEMBERS[@]}"; do KEY+=(-k "$m"); done

python3 - "$S" "$WORK/zeek.ndjson" "$WORK/oracle" "${MEMBERS[@]}" <<'PY'
import datetime, json, sys
data, merged, oracle, members = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
records = []
for stream in ("dns", "notice", "rdp", "syslog"):
    with open(f"{data}/zeek_{stream}_wrccdc2018.ndjson") as f:
        records += [(json.loads(line)["ts"], stream, i, line) for i, line in enumerate(f)]
records.sort()
with open(merged, "w") as f:
    f.writelines(r[3] for r in records)
def typed(v):  # JSON type and value; bool before int, since True == 1 in Python
    return ("bool", v) if isinstance(v, bool) else ("number", v) if isinstance(v, (int, float)) else (type(v).__name__, v)
window = 60 * 10**6  # microseconds
clock, last, dups, keyless = None, {}, 0, 0
for _, _, _, line in records:
    r = json.loads(line)
    if not any(m in r for m in members):
        keyless += 1
        continue
    t = datetime.datetime.fromisoformat(r["ts"].replace("Z", "+00:00"))
    us = int(t.timestamp()) * 10**6 + t.microsecond
    clock = us if clock is None else max(clock, us)
    key = tuple(typed(r[m]) if m in r else None for m in members)
    if key in last and clock - last[key] < window:
        dups += 1
    else:
        last[key] = clock
with open(oracle, "w") as f:
    print(len(records), dups, keyless, file=f)
PY
read -r records dups keyless < "$WORK/oracle"
echo "     oracle: $records records, $dups duplicates, $keyless keyless"

status=0
"$D" -q -a exact "${KEY[@]}" -t ts -w 60s "$WORK/zeek.ndjson" > "$WORK/stop.out" 2> /dev/null || status=$?
check "--missing error: no record has a key, the run stops" "1 0" "$status $(wc -c < "$WORK/stop.out")"
"$D" -q --stats=json -a exact "${KEY[@]}" -t ts -w 60s --on-error pass "$WORK/zeek.ndjson" > /dev/null 2> "$WORK/error.json"
check "--missing error: every record lacks a part" "$records" "$(stat "$WORK/error.json" missing_key)"
"$D" -a exact "${KEY[@]}" -t ts -w 60s --on-error pass "$WORK/zeek.ndjson" 2>&1 > /dev/null | head -1 > "$WORK/warning"
check "--missing error: the first warning names the part" 1 "$(grep -c 'key part 3 (-k trans_id) is absent' "$WORK/warning")"

# A user who joins two members with a comma, as a field list would, gets one member name that
# no record has; the run stops, saying how to write the composite key, and with --on-error pass
# the records pass through.
status=0
"$D" -k id.orig_h,query -t ts -w 60s "$S/zeek_dns_wrccdc2018.ndjson" > /dev/null 2> "$WORK/comma_stop.err" || status=$?
check "-k a,b on JSON: the run stops, saying to repeat -k" "1 1" \
  "$status $(grep -c 'none of the first 1000 records has a key .*for a composite key repeat -k (-k id.orig_h -k query)' "$WORK/comma_stop.err")"
"$D" -k id.orig_h,query -t ts -w 60s --on-error pass "$S/zeek_dns_wrccdc2018.ndjson" > "$WORK/comma.out" 2> "$WORK/comma.err"
check "-k a,b on JSON: every record passes through unchanged" "$(md5sum < "$S/zeek_dns_wrccdc2018.ndjson")" \
  "$(md5sum < "$WORK/comma.out")"
check "-k a,b on JSON: the warning says to repeat -k" 1 \
  "$(grep -c 'record 1: .*comma is part of the member name: for a composite key repeat -k (-k id.orig_h -k query)' "$WORK/comma.err")"
"$D" -k 3 -t ts -w 60s --on-error pass "$S/zeek_dns_wrccdc2018.ndjson" 2> "$WORK/field.err" > /dev/null
check "-k 3 on JSON: the warning says field numbers are for lines" 1 \
  "$(grep -c 'record 1: the key (-k 3) is absent; the input is JSON, where -k 3 is a member named "3" (field numbers are for lines)' "$WORK/field.err")"

"$D" -q --stats=json -a exact --missing null "${KEY[@]}" -t ts -w 60s "$WORK/zeek.ndjson" > "$WORK/null.out" 2> "$WORK/null.json"
check "--missing null: records keyed" "$keyless" "$(stat "$WORK/null.json" missing_key)"
check "--missing null: duplicates = the Python exact window" "$dups" "$(stat "$WORK/null.json" duplicates)"
check "--missing null: some records are duplicates" 1 "$(( dups > 0 ? 1 : 0 ))"
"$D" -q --stats=json --missing null "${KEY[@]}" -t ts -w 60s "$WORK/zeek.ndjson" > /dev/null 2> "$WORK/tlbf.json"
tlbf_dups=$(stat "$WORK/tlbf.json" duplicates)
check "--missing null, tlbf: every duplicate, at most 5 false positives" 1 "$(( tlbf_dups >= dups && tlbf_dups <= dups + 5 ? 1 : 0 ))"
finish
