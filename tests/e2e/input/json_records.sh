#!/usr/bin/env bash
# JSON as it is shipped: top-level arrays, --records wrappers (gzipped CloudTrail files),
# pretty-printed and concatenated documents, --key-except, --compact, a byte-order mark, and
# damage: a truncated array keeps every complete element before it and exits 1, naming the
# file, the record and the byte offset.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
NL=$'\n'

# The issue's reproductions.
check "a top-level array: its elements are the records" "{\"id\":1,\"ts\":1}$NL{\"id\":2,\"ts\":3}" \
  "$(printf '[{"id":1,"ts":1},{"id":1,"ts":2},{"id":2,"ts":3}]\n' | "$D" -k id)"
check "pretty-printed documents: one record each" "{$NL  \"id\": 1$NL}" \
  "$(printf '{\n  "id": 1\n}\n{\n  "id": 1\n}\n' | "$D" -k id)"
check "--records Records: the wrapper's elements" '{"eventID":"a"}' \
  "$(printf '{"Records":[{"eventID":"a"},{"eventID":"a"}]}\n' | "$D" --records Records -k eventID)"
check "values on one line, and an array after them" "{\"a\":1}$NL{\"a\":2}$NL{\"a\":3}" \
  "$(printf '{"a":1} {"a":1}  {"a":2}\n[{"a":3},{"a":2}]\n' | "$D" -k a)"

# CloudTrail: three gzipped files whose events overlap, each event kept once, byte for byte.
T=$TESTDATA/cloudtrail
"$D" --records Records -k eventID -t eventTime "$T"/trail1.json.gz "$T"/trail2.json.gz "$T"/trail3.json.gz \
  > "$WORK/trail.out"
check_files "three overlapping CloudTrail files: each event once, as written" "$T/expected.ndjson" "$WORK/trail.out"
check "the fixture does hold copies" 1 "$(($(zcat "$T"/trail*.json.gz | grep -o '"eventID"' | wc -l) > 22))"
zcat "$T/trail1.json.gz" | zstd -q -c > "$WORK/trail1.json.zst"
check "zstd and a path to a nested member" 10 \
  "$(zcat "$T/trail1.json.gz" | sed 's/^{"Records"/{"log":{"Records"/; s/}$/}}/' | "$D" --records log.Records -k eventID |
    wc -l)"
check "a zstd file frames alike" "$(head -10 "$T/expected.ndjson")" \
  "$("$D" --records Records -k eventID "$WORK/trail1.json.zst")"

# jq . of an NDJSON file keeps the same records as the file itself.
N=$TESTDATA/app.ndjson
jq . "$N" > "$WORK/pretty.json"
"$D" -k id -t ts "$N" > "$WORK/ndjson.out"
check "jq . output: the same kept records" "$(jq -c . "$WORK/ndjson.out")" "$("$D" -k id -t ts "$WORK/pretty.json" | jq -c .)"
check "--compact writes them as lines" "$("$D" --compact -k id -t ts "$N")" \
  "$("$D" --compact -k id -t ts "$WORK/pretty.json")"
check "--compact: a record that is not JSON is written as read" 'hello   world  x|1 2|{"a": 1' \
  "$(printf 'hello   world  x\n1 2\n{"a": 1\n' | "$D" -f json --compact | tr '\n' '|' | sed 's/|$//')"
check "jq -s . (one array): the same kept records" "$(cat "$WORK/ndjson.out")" \
  "$(jq -s -c . "$N" | "$D" -k id -t ts)"
# A pretty-printed array comes out as NDJSON: an element over several lines minified onto
# one, an element on one line as read.
jq -s . "$N" > "$WORK/pretty_array.json"
"$D" -k id -t ts "$WORK/pretty_array.json" > "$WORK/pretty_array.out"
check "jq -s . (pretty array): NDJSON out, one kept record a line" "$(wc -l < "$WORK/ndjson.out")" \
  "$(wc -l < "$WORK/pretty_array.out")"
check "... the same records, minified" "$(jq -c . "$WORK/ndjson.out")" "$(cat "$WORK/pretty_array.out")"
check "... an element on one line is written as read, its spaces kept" '{"id": 1, "m": "a  b"}|{"id":2}' \
  "$(printf '[{"id": 1, "m": "a  b"},\n  {\n    "id": 2\n  }\n]\n' | "$D" -k id | tr '\n' '|' | sed 's/|$//')"
check "... --records: alike" '{"eventID":"a"}|{"eventID":"b"}' \
  "$(printf '{"Records": [\n {\n  "eventID": "a"\n },\n {"eventID":"b"}\n]}\n' | "$D" --records Records -k eventID |
    tr '\n' '|' | sed 's/|$//')"

# --key-except: the record without the members named, in a canonical form.
check "--key-except ts: order and spacing do not split a key" '{"a":1,"ts":1}' \
  "$(printf '{"a":1,"ts":1}\n{"ts":2, "a": 1}\n' | "$D" --key-except ts)"
check "--key-except: any other member does" 2 \
  "$(printf '{"a":1,"ts":1}\n{"a":1,"b":0,"ts":2}\n' | "$D" --key-except ts | wc -l)"
check "--key-except with --mask" 1 \
  "$(printf '{"m":"id 12","ts":1}\n{"ts":2,"m":"id 13"}\n' | "$D" --key-except ts --mask numbers | wc -l)"
# A dotted path leaves out Zeek's flat member as well as the nested one; a JSON pointer names
# exactly its member (once, both kept the member and deduplicated nothing, without a word).
ZEEK='{"id.orig_h":"10.0.0.1","id.orig_p":%d,"q":"a"}\n'
check "--key-except id.orig_p: Zeek's flat member" 1 \
  "$(printf "$ZEEK$ZEEK" 53 54 | "$D" --key-except id.orig_p | wc -l)"
check "--key-except /id.orig_p: the same by a JSON pointer" 1 \
  "$(printf "$ZEEK$ZEEK" 53 54 | "$D" --key-except /id.orig_p | wc -l)"
check "--key-except id.orig_p: nested, as -k reads it" 1 \
  "$(printf '{"id":{"orig_p":%d},"q":"a"}\n' 53 54 | "$D" --key-except id.orig_p | wc -l)"
check "--key-except /id.orig_p: a pointer does not nest at dots" 2 \
  "$(printf '{"id":{"orig_p":%d},"q":"a"}\n' 53 54 | "$D" --key-except /id.orig_p | wc -l)"
check_usage_error "--key-except, a stray ~ in a pointer" "'~' in a JSON pointer must be ~0 or ~1" \
  "$D" --key-except /a~2 "$N"
check_usage_error "--key-except with -k" "--key-except" "$D" --key-except ts -k a
check_usage_error "--key-except with -f lines" "--key-except" "$D" --key-except ts -f lines
check_usage_error "--records with an empty name" "--records" "$D" --records 'a..b'

# --mark and --count work on array elements as on NDJSON lines.
check "--mark on array elements" "{\"a\":1,\"dup\":false}$NL{\"a\":1,\"dup\":true}" \
  "$(printf '[{"a":1},{"a":1}]' | "$D" --mark -k a)"
check "--count on array elements" '{"a":1,"t":1,"dup_count":2,"first_seen":1,"last_seen":2}' \
  "$(printf '[{"a":1,"t":1},\n {"a":1,"t":2}]' | "$D" --count -k a -t t)"

# A UTF-8 byte-order mark is skipped, in auto mode and with -f json.
check "a byte-order mark, auto mode" '{"id":1}' "$(printf '\xef\xbb\xbf{"id":1}\n{"id":1}\n' | "$D" -k id)"
check "a byte-order mark, -f json" '{"id":1}' "$(printf '\xef\xbb\xbf{"id":1}\n{"id":1}\n' | "$D" -f json -k id)"

# Damage: every complete element first, then exit 1 with the file, record and byte offset.
printf '[{"a":1},{"a":2},{"a":1},{"a":' > "$WORK/cut.json"
status=0
"$D" -k a "$WORK/cut.json" > "$WORK/cut.out" 2> "$WORK/cut.err" || status=$?
check "a truncated array: exit 1" 1 "$status"
check "a truncated array: its complete elements" "{\"a\":1}$NL{\"a\":2}" "$(cat "$WORK/cut.out")"
check "a truncated array: the message names file, record and offset" 1 \
  "$(grep -c "cut.json: record 4 at byte 25: the input ends inside a record" "$WORK/cut.err")"
# Cut after a complete element (no ']'): that element is still written as a line.
printf '[{"a":1},{"a":2}' > "$WORK/open.json"
status=0
"$D" -k a "$WORK/open.json" > "$WORK/open.out" 2> "$WORK/open.err" || status=$?
check "an array without its ']': exit 1" 1 "$status"
check "an array without its ']': every element a line, the last too" "$(printf '{"a":1}\n{"a":2}\n' | od -c)" \
  "$(od -c < "$WORK/open.out")"
check "an array without its ']': said so" 1 "$(grep -c 'open.json: .*the input ends inside an array' "$WORK/open.err")"
zcat "$T/trail2.json.gz" | head -c 2000 | gzip -c > "$WORK/cut.json.gz"
status=0
"$D" --records Records -k eventID "$WORK/cut.json.gz" > "$WORK/cutgz.out" 2> "$WORK/cutgz.err" || status=$?
check "a truncated gzipped wrapper: exit 1" 1 "$status"
check "a truncated gzipped wrapper: the gzip damage is named" 1 "$(grep -c "cut.json.gz: .*truncated" "$WORK/cutgz.err")"
check "a truncated gzipped wrapper: its complete elements" "$(sed -n 8,12p "$T/expected.ndjson")" \
  "$(cat "$WORK/cutgz.out")"
status=0
printf '{"Other":[1]}\n' | "$D" --records Records > /dev/null 2> "$WORK/nomember.err" || status=$?
check "a wrapper without the member: exit 1" 1 "$status"
check "a wrapper without the member: said" 1 "$(grep -c "without the array member of --records" "$WORK/nomember.err")"
# --records reads its path as -k does (issue 52, W17): a member literally named "a.b", member
# b of member a, a JSON pointer; a second array in one object (a member named twice, or both
# readings of the dots) is refused after the first one's records.
check "--records a.b: a member named \"a.b\"" '{"id":1}|{"id":2}' \
  "$(printf '{"a.b":[{"id":1},{"id":2}]}\n' | "$D" --records a.b -k id | paste -sd '|')"
check "--records a.b: member b of member a" '{"id":3}' "$(printf '{"a":{"b":[{"id":3}]}}\n' | "$D" --records a.b -k id)"
check "--records /a~1b/c: a JSON pointer" '{"id":4}' \
  "$(printf '{"a/b":{"c":[{"id":4}]}}\n' | "$D" --records '/a~1b/c' -k id)"
check_usage_error "--records with a stray '~' in a pointer" "--records" "$D" --records '/a~2'
for doc in '{"R":[{"id":1}],"R":[{"id":2}]}' '{"R.x":[{"id":1}],"R":{"x":[{"id":2}]}}'; do
  path=R && [[ $doc == *R.x* ]] && path=R.x
  status=0
  printf '%s\n{"R":[{"id":3}]}\n' "$doc" | "$D" --records "$path" -k id > "$WORK/twice.out" 2> "$WORK/twice.err" || status=$?
  check "--records $path, two arrays in one object: exit 1, the first one's records out" '1 {"id":1}' \
    "$status $(cat "$WORK/twice.out")"
  check "--records $path, two arrays in one object: said" 1 \
    "$(grep -c 'record 2 at byte [0-9]*: a second array for --records in one object' "$WORK/twice.err")"
done
# A wrapper read without --records: one keyless record, and the warning names the way out.
# A wrapper without --records: no record has the key, so the run stops and writes nothing
# (tests/e2e/keys/key_stop.sh), naming --records; with --on-error pass it is passed whole.
status=0
printf '{"Records":[{"eventID":"a"},{"eventID":"a"}]}\n' | "$D" -k eventID > "$WORK/wrapped.out" 2> "$WORK/wrapped.err" ||
  status=$?
check "a wrapper without --records: exit 1, nothing written" "1 0" "$status $(wc -c < "$WORK/wrapped.out")"
check "a wrapper without --records: passed through whole with --on-error pass" 1 \
  "$(printf '{"Records":[{"eventID":"a"},{"eventID":"a"}]}\n' | "$D" -k eventID --on-error pass 2> /dev/null | wc -l)"
check "a wrapper without --records: the message names --records Records" 1 \
  "$(grep -c 'Records is an array of objects: --records Records makes its elements the records' "$WORK/wrapped.err")"
finish
