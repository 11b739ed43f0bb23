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

# Issue 52, W2: each warning states the true reason. A path through a scalar or past an
# array's end is not an absent member; a record of valid JSON that is not an object says what
# it is; a valid object deeper than simdjson's 1024 levels is not called unreadable.
why() { "$D" "$@" --on-error fail 2>&1 > /dev/null | sed 's/^tlbf-dedup: (stdin): record [0-9]*: //'; }
check "W2: a key path through a number" \
  "the key (-k a.b.c.d) cannot be read: a.b.c is the number 1, not an object (--on-error fail)" \
  "$(printf '{"a":{"b":{"c":1}}}\n' | why -k a.b.c.d)"
check "W2: an index past an array's end" \
  "key part 2 (-k /a/5) cannot be read: /a is an array of 2 elements, without element 5 (--on-error fail)" \
  "$(printf '{"id":1,"a":[1,2]}\n' | why -k id -k /a/5)"
check "W2: an absent member is still absent" "the key (-k a.x) is absent (--on-error fail)" \
  "$(printf '{"a":{"b":1}}\n' | why -k a.x)"
check "W2: the first keyless record's summary does not list members beside the reason" 1 \
  "$(printf '{"a":{"b":{"c":1}}}\n' | "$D" -k a.b.c.d --on-error pass 2>&1 > /dev/null |
    grep -c 'record 1 of (stdin): the key (-k a.b.c.d) cannot be read: a.b.c is the number 1, not an object)$')"
for rec in '[1,2]|an array' '5|the number 5' '"s"|the string "s"' 'null|null'; do
  check "W2: ${rec%%|*} is not a JSON object, and said so" "not a JSON object: ${rec#*|} (--on-error fail)" \
    "$(printf '{"id":1}\n%s\n' "${rec%%|*}" | why -k id)"
done
check "W2: broken JSON says what broke" "not a readable JSON object (invalid UTF-8) (--on-error fail)" \
  "$(printf '{"id":"\xff"}\n' | why -k id)"
python3 -c 'print("{\"b\":1,\"a\":" + "{\"x\":" * 1100 + "1" + "}" * 1100 + "}")' > "$WORK/deep.json"
"$D" -k b -t a "$WORK/deep.json" > /dev/null 2> "$WORK/deep.err" || true
check "W2: a time path reaching an object in a record deeper than 1024 levels says so (warning, error)" 2 \
  "$(grep -c -- '-t a leads to no time: a is an object;' "$WORK/deep.err")"
check "W2: ... and calls it neither absent nor unreadable" 0 "$(grep -c 'not in the record\|not a readable' "$WORK/deep.err")"
"$D" --key-except b "$WORK/deep.json" > /dev/null 2> "$WORK/deep_except.err" || true
check "W2: --key-except on a record too deep to key says so" 1 \
  "$(grep -c 'record 1: the record nests arrays and objects deeper than 1024 levels, too deep to key (--key-except)' \
    "$WORK/deep_except.err")"

# Issue 52, W20: a NUL byte inside a line is not JSON: the record is malformed, passed through
# whole (not keyed by the object before the NUL); with -z, NUL separates records.
printf '{"id":1}\n{"id":1}\0{"id":2}\n{"id":2}\n' > "$WORK/nul.json"
"$D" -k id --stats=json "$WORK/nul.json" > "$WORK/nul.out" 2> "$WORK/nul.err"
check_files "W20: the record with a NUL passes through, whole" "$WORK/nul.json" "$WORK/nul.out"
check "W20: counted as malformed" 1 "$(grep '^{"records"' "$WORK/nul.err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["malformed"])')"
check "W20: the warning names the NUL's place" 1 \
  "$(grep -c 'record 2: not a readable JSON object: a NUL byte at byte 9 (NUL is not JSON; -z reads records separated by NUL)' "$WORK/nul.err")"
check "W20: -z: NUL separates the records" "$(printf '{"id":1}\0{"id":2}\0' | od -c)" \
  "$(printf '{"id":1}\0{"id":1}\0{"id":2}\0' | "$D" -z -k id | od -c)"

# Issue 52, W4: a blank (whitespace-only) line in NDJSON is no record: written as read, not
# judged, counted or warned about, and --on-error fail goes past it, trailing or not.
printf '{"id":1}\n\n{"id":2}\n \t\r\n{"id":1}\n\n' > "$WORK/blank.json"
printf '{"id":1}\n\n{"id":2}\n \t\r\n\n' > "$WORK/blank.want"
status=0
"$D" -k id --on-error fail --stats=json "$WORK/blank.json" > "$WORK/blank.out" 2> "$WORK/blank.err" || status=$?
check "W4: --on-error fail passes blank lines: exit 0" 0 "$status"
check_files "W4: blank lines written as read, in place" "$WORK/blank.want" "$WORK/blank.out"
grep '^{"records"' "$WORK/blank.err" > "$WORK/blank.stats" || true
check "W4: blank lines are not records, not errors" "3 0" \
  "$(stat "$WORK/blank.stats" records 2> /dev/null) $(stat "$WORK/blank.stats" errors 2> /dev/null)"
check "W4: no warning" 0 "$(grep -c warning "$WORK/blank.err")"
check "W4: -f json, a leading blank line too" "$(printf '\n{"id":1}\n' | od -c)" \
  "$(printf '\n{"id":1}\n{"id":1}\n' | "$D" -f json -k id --on-error fail | od -c)"
check "W4: --only-dups writes duplicates only" '{"id":1}' "$("$D" -k id --only-dups "$WORK/blank.json")"
finish
