#!/usr/bin/env bash
# Bad input is data: malformed JSON, records without the key, unparseable timestamps and
# binary bytes pass through as unique (or are dropped, or stop the run, as --on-error says),
# are counted in --stats, and are warned about once with a count, not once per record.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
stat() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# Records 2, 3, 4 and 8 are not readable JSON objects (truncated, not JSON, an array,
# invalid UTF-8 inside a string); record 6 has no "id"; record 7 repeats "id" (the first
# occurrence counts, so it duplicates record 1); record 5 duplicates record 1.
printf '{"id":1}\n{"id":\nnot json\n[1,2]\n{"id":1}\n{"other":2}\n{"id":1,"id":2}\n{"id":"\xff"}\n{"id" : 3 , "x":1}\n' > "$WORK/bad.ndjson"
printf '{"id":1}\n{"id":\nnot json\n[1,2]\n{"other":2}\n{"id":"\xff"}\n{"id" : 3 , "x":1}\n' > "$WORK/pass.want"
printf '{"id":1}\n{"id" : 3 , "x":1}\n' > "$WORK/drop.want"

"$D" -k id --stats=json "$WORK/bad.ndjson" > "$WORK/pass.out" 2> "$WORK/pass.err" && status=0 || status=$?
grep '^{"records"' "$WORK/pass.err" > "$WORK/pass.json"
check "pass: status 0" 0 "$status"
check_files "pass: bad records pass through untouched, duplicates dropped" "$WORK/pass.want" "$WORK/pass.out"
check "pass: malformed counted" 4 "$(stat "$WORK/pass.json" malformed)"
check "pass: missing key counted" 1 "$(stat "$WORK/pass.json" missing_key)"
check "pass: errors total" 5 "$(stat "$WORK/pass.json" errors)"
check "pass: duplicates" 2 "$(stat "$WORK/pass.json" duplicates)"
# (and, five of the nine records being without a key, one that says most of them were)
check "pass: one immediate warning per kind + one summary per kind" 5 "$(grep -c 'warning' "$WORK/pass.err")"
check "pass: most records had no key" 1 "$(grep -c 'warning: 5 of the first 9 records have no key' "$WORK/pass.err")"
check "pass: the summary has the count" 1 "$(grep -c '4 record(s) were not readable JSON objects' "$WORK/pass.err")"
check "pass: the first warning names the record" 1 "$(grep -c 'record 2: not a readable JSON object' "$WORK/pass.err")"

"$D" -k id --on-error drop "$WORK/bad.ndjson" > "$WORK/drop.out" 2> "$WORK/drop.err"
check_files "drop: bad records dropped" "$WORK/drop.want" "$WORK/drop.out"
check "drop: the warning says dropped" 1 "$(grep -c '4 record(s) were not readable JSON objects (dropped)' "$WORK/drop.err")"

"$D" -k id --on-error fail "$WORK/bad.ndjson" > "$WORK/fail.out" 2> "$WORK/fail.err" && status=0 || status=$?
check "fail: status 1" 1 "$status"
check "fail: the records before the bad one are written" '{"id":1}' "$(cat "$WORK/fail.out")"
check "fail: one message naming the record" 1 "$(grep -c 'record 2: not a readable JSON object' "$WORK/fail.err")"

"$D" -q -k id "$WORK/bad.ndjson" > /dev/null 2> "$WORK/quiet.err"
check "-q: no warnings" "" "$(cat "$WORK/quiet.err")"

# Lines: a key field past the end of the line is a missing key.
printf 'a 1\nb\na 2\nb\n' > "$WORK/short.txt"
"$D" -k 2 --stats=json "$WORK/short.txt" > "$WORK/short.out" 2> "$WORK/short.err"
grep '^{"records"' "$WORK/short.err" > "$WORK/short.json"
check "lines: short lines pass through" "$(printf 'a 1\nb\na 2\nb')" "$(cat "$WORK/short.out")"
check "lines: missing key counted" 2 "$(stat "$WORK/short.json" missing_key)"
printf 'id=1 x\nfoo\nid=1 y\n' | "$D" --key-regex 'id=([0-9]+)' --on-error drop 2> /dev/null > "$WORK/re.out"
check "lines: no regex match is a missing key" "id=1 x" "$(cat "$WORK/re.out")"

# Unparseable timestamps are not errors: the record is untimed, judged at the current clock.
printf '10 a\nnonsense b\n12 a\n100 a\nbad a\n' > "$WORK/times.txt"
"$D" -k 2 -t 1 -w 5 -a exact --stats=json "$WORK/times.txt" > "$WORK/times.out" 2> "$WORK/times.err"
grep '^{"records"' "$WORK/times.err" > "$WORK/times.json"
check "untimed: counted" 2 "$(stat "$WORK/times.json" untimed)"
check "untimed: not errors" 0 "$(stat "$WORK/times.json" errors)"
check "untimed: judged at the clock (100 a kept, bad a at clock 100 dropped)" "$(printf '10 a\nnonsense b\n100 a')" "$(cat "$WORK/times.out")"
check "untimed: warned once with the count" 1 "$(grep -c '2 record(s) had no readable time' "$WORK/times.err")"

# JSON time of the wrong type or format.
printf '{"k":1,"t":"yesterday"}\n{"k":1,"t":true}\n{"k":2,"t":{"x":1}}\n' | "$D" -k k -t t --allow-untimed --stats=json 2> "$WORK/jt.err" > /dev/null
grep '^{"records"' "$WORK/jt.err" > "$WORK/jt.json"
check "json: unusable times are untimed" 3 "$(stat "$WORK/jt.json" untimed)"

# A large JSON record (8 MB) and a deeply nested key path.
python3 -c '
import json
big = {"id": "big", "pad": "x" * (8 << 20), "n": {"a": {"b": {"c": 7}}}}
print(json.dumps(big)); print(json.dumps(big)); print(json.dumps({"id": "small", "n": {"a": {"b": {"c": 7}}}}))
' > "$WORK/large.ndjson"
check "json: 8 MB records, duplicate dropped" 2 "$("$D" -k id "$WORK/large.ndjson" | wc -l)"
check "json: nested path in large records" 1 "$("$D" -k n.a.b.c "$WORK/large.ndjson" | wc -l)"

# JSON that breaks while the time is looked up: the record passes through as malformed (this
# crashed once, reusing the broken document for the key lookup).
printf '{"id":"a" "c"}\n{"id":"b","ts":1}\n' > "$WORK/broken_mid.ndjson"
status=0
"$D" -k id -t ts "$WORK/broken_mid.ndjson" > "$WORK/broken_mid.out" 2> "$WORK/broken_mid.err" || status=$?
check "json broken mid-document: exit 0" 0 "$status"
check_files "json broken mid-document: both records pass, bytes intact" "$WORK/broken_mid.ndjson" "$WORK/broken_mid.out"
check "json broken mid-document: counted as malformed" 1 "$(grep -c 'not a readable JSON object' "$WORK/broken_mid.err" | tr -d ' ' | awk '{print ($1 >= 1)}')"
# An input that auto mode reads as lines (it starts with "[]", not '{' or '[{') and a JSON -k:
# the error says how the format was chosen and how to read JSON (issue 52, W1), merged or not.
printf '[]\n{"id":1}\n{"id":1}\n' > "$WORK/empty_array.json"
for inputs in "$WORK/empty_array.json" "$WORK/empty_array.json $WORK/empty_array.json"; do
  status=0
  # shellcheck disable=SC2086
  "$D" -k id -t id $inputs > /dev/null 2> "$WORK/w1.err" || status=$?
  check "lines by auto mode, JSON -k ($(wc -w <<< "$inputs") input(s)): exit 2, saying why" "2 1" \
    "$status $(grep -c "the input was read as lines, since its first record ('\[\]') does not start with '{' or '\[{': -f json reads it as JSON" "$WORK/w1.err")"
done
check "... and -f json reads it" '{"id":1}' "$("$D" -k id -f json "$WORK/empty_array.json" 2> /dev/null | grep id)"
finish
