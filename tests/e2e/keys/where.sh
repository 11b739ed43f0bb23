#!/usr/bin/env bash
# --where and --where-regex: only the records that meet every condition are deduplicated; the
# others pass through exactly as read, in their place, uncounted as errors and untouched by
# --mark, --count and --compact. Over a stream shaped like Suricata's eve.json (alerts, dns,
# flow and stats events in one file), the alerts deduplicated with --where event_type=alert
# equal an exact reference; without --where the warning names that --where before --missing
# null.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
EVE="$TESTDATA/suricata_eve.json"
KEY=(-k alert.signature_id -k src_ip -k dest_ip -t timestamp -w 1m)

# The reference: the exact window over the alerts (key and time read here with Python's json),
# every other record kept in its place without moving the clock.
E2E_DIR="$E2E_DIR" python3 - "$EVE" > "$WORK/reference.json" << 'EOF'
import datetime, json, os, sys
sys.path.insert(0, os.environ["E2E_DIR"])
from exact_window import kept
records = []
with open(sys.argv[1], "rb") as f:
    for line in f:
        e = json.loads(line)
        if e.get("event_type") != "alert":
            records.append((None, None, line))
            continue
        t = datetime.datetime.strptime(e["timestamp"], "%Y-%m-%dT%H:%M:%S.%f%z")
        ns = int(t.timestamp()) * 10**9 + t.microsecond * 1000
        records.append(((e["alert"]["signature_id"], e["src_ip"], e["dest_ip"]), ns, line))
sys.stdout.buffer.write(b"".join(kept(records, 60 * 10**9)))
EOF
alerts=$(grep -c '"event_type":"alert"' "$EVE")
others=$(( $(wc -l < "$EVE") - alerts ))
check "the fixture mixes kinds" 1 "$(( alerts >= 10 && others >= 10 ? 1 : 0 ))"
check "the reference drops some alerts" 1 "$(( $(wc -l < "$WORK/reference.json") < $(wc -l < "$EVE") ? 1 : 0 ))"

for threads in 1 2; do
  status=0
  "$D" --where event_type=alert "${KEY[@]}" -a exact --threads $threads --stats=json "$EVE" > "$WORK/where.json" \
    2> "$WORK/where.err" || status=$?
  check "--where event_type=alert (threads $threads): exit 0" 0 "$status"
  check_files "--where event_type=alert (threads $threads): the exact reference" "$WORK/reference.json" "$WORK/where.json"
done
check "--stats=json counts the others as unmatched" "\"unmatched\":$others" "$(grep -o '"unmatched":[0-9]*' "$WORK/where.err")"
check "--stats=json: no errors" '"errors":0' "$(grep -o '"errors":[0-9]*' "$WORK/where.err")"
check "no warning" 0 "$(grep -c warning "$WORK/where.err" || true)"
# The default filter decides as the exact one here; from a pipe, one thread.
"$D" --where event_type=alert "${KEY[@]}" < "$EVE" > "$WORK/pipe.json"
check_files "from a pipe, default filter: the same" "$WORK/reference.json" "$WORK/pipe.json"
"$D" --where event_type=alert "${KEY[@]}" --stats "$EVE" 2>&1 > /dev/null | grep '^passed' > "$WORK/text.stats"
check "--stats text: passed (not matched)" "passed        $others (not matched by --where)" "$(cat "$WORK/text.stats")"

# Other spellings of the same selection.
for cond in "--where alert" "--where event_type!=dns --where event_type!=flow --where event_type!=stats" \
  "--where-regex \"event_type\":\"alert\"" "--where /event_type=alert --where alert.gid=1.0"; do
  # shellcheck disable=SC2086
  "$D" $cond "${KEY[@]}" "$EVE" > "$WORK/spelled.json"
  check_files "$cond: the same output" "$WORK/reference.json" "$WORK/spelled.json"
done
# A record whose selecting string is written with an escape is selected by its value.
sed '3s/"event_type":"alert"/"event_type":"\\u0061lert"/' "$EVE" > "$WORK/escaped.json"
"$D" --where event_type=alert "${KEY[@]}" --stats=json "$WORK/escaped.json" > /dev/null 2> "$WORK/escaped.err"
check "an escaped value is selected by its value" "\"unmatched\":$others" "$(grep -o '"unmatched":[0-9]*' "$WORK/escaped.err")"

# Unmatched records are untouched by --mark, --compact and --count, and --only-dups leaves
# them out.
"$D" --where event_type=alert "${KEY[@]}" --mark "$EVE" > "$WORK/mark.json"
check "--mark: the others exactly as read" "$(grep -v '"event_type":"alert"' "$EVE" | md5sum)" \
  "$(grep -v '"event_type":"alert"' "$WORK/mark.json" | md5sum)"
check "--mark: every alert flagged" "$alerts" "$(grep -c '"dup":\(true\|false\)}$' "$WORK/mark.json")"
jq . "$EVE" | "$D" --where event_type=alert "${KEY[@]}" --compact > "$WORK/compact.json"
check "--compact: the others kept pretty-printed" "$(jq . "$EVE" | grep -c '"event_type": "stats"')" \
  "$(grep -c '"event_type": "stats"' "$WORK/compact.json")"
check "--compact: the kept alerts minified" "$(grep -c '"event_type":"alert"' "$WORK/reference.json")" \
  "$(grep -c '"event_type":"alert"' "$WORK/compact.json")"
"$D" --where event_type=alert "${KEY[@]}" --count "$EVE" > "$WORK/count.json"
check "--count: no count member on the others" 0 "$(grep -v '"event_type":"alert"' "$WORK/count.json" | grep -c dup_count || true)"
check "--count: the others exactly as read, in their order" "$(grep -v '"event_type":"alert"' "$EVE" | md5sum)" \
  "$(grep -v '"event_type":"alert"' "$WORK/count.json" | md5sum)"
check "--count: one record per alert key and window" "$(grep -c '"event_type":"alert"' "$WORK/reference.json")" \
  "$(grep -c '"dup_count"' "$WORK/count.json")"
"$D" --where event_type=alert "${KEY[@]}" --only-dups "$EVE" > "$WORK/dups.json"
check "--only-dups: only the alerts dropped" "$(( $(wc -l < "$EVE") - $(wc -l < "$WORK/reference.json") ))" \
  "$(grep -c '"event_type":"alert"' "$WORK/dups.json")"
check "--only-dups: nothing else" 0 "$(grep -vc '"event_type":"alert"' "$WORK/dups.json" || true)"
"$D" --where event_type=alert "${KEY[@]}" --explain=3 "$EVE" > "$WORK/explain.txt"
check "--explain: an unmatched record says so" 2 "$(grep -c $'\tunmatched$' "$WORK/explain.txt")"

# Without --where: most records have no key (they pass, counted as errors), and the warning
# names the --where that picks the alerts, before --missing null.
"$D" "${KEY[@]}" --stats=json "$EVE" > "$WORK/plain.json" 2> "$WORK/plain.err"
check "without --where: the others pass as errors" "\"errors\":$others" "$(grep -o '"errors":[0-9]*' "$WORK/plain.err")"
check "the warning names --where event_type=alert" 1 "$(grep -c 'have no key, .*; --where event_type=alert deduplicates only' "$WORK/plain.err")"
check "... before --missing null" 1 "$(grep 'have no key' "$WORK/plain.err" | grep -c -- '--where event_type=alert.*--missing null')"

# Lines: a field list and a value; the key stop counts only the records selected.
printf 'GET /a 1\nPOST /a 2\nGET /a 3\nPOST /a 4\n' > "$WORK/req.log"
check "lines: --where 1=GET" "$(printf 'GET /a 1\nPOST /a 2\nPOST /a 4\n')" "$("$D" -k 2 --where 1=GET "$WORK/req.log")"
check "lines: --where 1!=GET" "$(printf 'GET /a 1\nPOST /a 2\nGET /a 3\n')" "$("$D" -k 2 --where 1!=GET "$WORK/req.log")"
check "lines: --where 1,2='GET /a'" "$(printf 'GET /a 1\nPOST /a 2\nPOST /a 4\n')" "$("$D" -k 2 --where '1,2=GET /a' "$WORK/req.log")"
check "lines: --where 4 (absent): all passed" "$(cat "$WORK/req.log")" "$("$D" -k 2 --where 4 "$WORK/req.log" 2> /dev/null)"
check "lines: --where-regex" "$(printf 'GET /a 1\nPOST /a 2\nPOST /a 4\n')" "$("$D" -k 2 --where-regex '^GET ' "$WORK/req.log")"
"$D" -k 2 --where 4 --stats=json "$WORK/req.log" > /dev/null 2> "$WORK/none.err"
check "--where that selects nothing: warned" 1 "$(grep -c 'where selected none of the first 4 records' "$WORK/none.err")"

# A key none of the selected records has stops the run; one only the others lack does not.
status=0
"$D" --where event_type=dns "${KEY[@]}" "$EVE" > "$WORK/dns.out" 2> "$WORK/dns.err" || status=$?
check "selected records without the key: exit 1" 1 "$status"
check "selected records without the key: nothing written" 0 "$(wc -c < "$WORK/dns.out")"
check "... said, with how many were selected" 1 "$(grep -c "none of the [0-9]* records selected by --where (of $(wc -l < "$EVE") read) has a key" "$WORK/dns.err")"
status=0
"$D" --where event_type=alert -k alert.signature_id "$EVE" > /dev/null 2>&1 || status=$?
check "the keyless records not selected: no stop" 0 "$status"

# Conditions that cannot work are usage errors.
check_usage_error "--where without a path" "--where '=x': no member or field before the test" "$D" --where =x "$EVE"
check_usage_error "--where with ==" "write one '=' (event_type=alert)" "$D" --where event_type==alert "$EVE"
check_usage_error "--where-regex that does not compile" "--where-regex '(': " "$D" --where-regex '(' "$EVE"
check_usage_error "lines: --where not a field list" "--where 'method': not a field list" "$D" -f lines --where method=GET "$WORK/req.log"
finish
