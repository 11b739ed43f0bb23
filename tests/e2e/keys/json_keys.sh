#!/usr/bin/env bash
# JSON keys are values: types differ, strings compare unescaped, numbers by value, objects by
# content; dotted paths and pointers index arrays; --missing null keys records by the parts
# they have, and a missing-key warning names the absent -k part.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
stat() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# Types: six different keys, then a repeat of each written another way (escapes, number forms,
# spacing), which must all be dropped.
printf '%s\n' '{"k":1}' '{"k":"1"}' '{"k":null}' '{"k":"null"}' '{"k":true}' '{"k":"true"}' \
  '{"k":1.0}' '{"k":"\u0031"}' '{"k" : null}' '{"k":"n\u0075ll"}' '{"k":true }' '{"k":10e-1}' > "$WORK/types.ndjson"
"$D" -k k "$WORK/types.ndjson" > "$WORK/types.out"
check "types: 1, \"1\", null, \"null\", true, \"true\" are six keys; other spellings repeat them" 6 "$(wc -l < "$WORK/types.out")"
check "types: the first six are kept" "$(head -6 "$WORK/types.ndjson")" "$(cat "$WORK/types.out")"

# Objects and arrays as keys: member order and spacing do not matter; element order does.
printf '%s\n' '{"k":{"a":1,"b":[1,2]}}' '{"k":{ "b" : [1, 2], "a" : 1 }}' '{"k":{"a":1,"b":[2,1]}}' \
  '{"k":{"a":"1","b":[1,2]}}' > "$WORK/objects.ndjson"
"$D" -k k "$WORK/objects.ndjson" > "$WORK/objects.out"
check "objects: reordered members are one key; other values are not" \
  "$(sed -n '1p;3p;4p' "$WORK/objects.ndjson")" "$(cat "$WORK/objects.out")"

# Paths index arrays, dotted or as pointers, and agree.
printf '%s\n' '{"a":[{"b":"x"},{"b":"y"}]}' '{"a":[{"b":"x"}]}' '{"a":[{"b":"z"}]}' '{"a":{"0":{"b":"z"}}}' '{"a":[]}' \
  > "$WORK/arrays.ndjson"
"$D" -k a.0.b --stats=json "$WORK/arrays.ndjson" > "$WORK/dotted.out" 2> "$WORK/dotted.err"
"$D" -k /a/0/b "$WORK/arrays.ndjson" > "$WORK/pointer.out" 2> /dev/null
check "arrays: a.0.b finds the first element's b, and a member named 0" \
  "$(sed -n '1p;3p;5p' "$WORK/arrays.ndjson")" "$(cat "$WORK/dotted.out")"
check "arrays: an empty array has no key" 1 "$(stat <(grep '^{"records"' "$WORK/dotted.err") missing_key)"
check_files "arrays: /a/0/b = a.0.b" "$WORK/dotted.out" "$WORK/pointer.out"

# --missing: records of two kinds, each with only some of the members.
printf '%s\n' '{"s":"dns","uid":"C1","query":"a.example"}' '{"s":"files","uid":"C1","fuid":"F1"}' \
  '{"s":"dns","uid":"C1","query":"a.example"}' '{"s":"files","uid":"C1","fuid":"F1"}' \
  '{"s":"files","uid":"C1","fuid":"F1","query":null}' '{"s":"files","uid":"C1","fuid":"F1","query":"null"}' \
  '{"other":1}' > "$WORK/mixed.ndjson"
"$D" -k s -k uid -k query -k fuid --stats=json "$WORK/mixed.ndjson" > "$WORK/error.out" 2> "$WORK/error.err"
check "--missing error (default): every record lacks a part, so none has a key" 7 "$(wc -l < "$WORK/error.out")"
check "--missing error: the warning names the absent part" 1 \
  "$(grep -c 'record 1: key part 4 (-k fuid) is absent' "$WORK/error.err")"
"$D" -k s -k uid -k query -k fuid --missing null --stats=json "$WORK/mixed.ndjson" > "$WORK/null.out" 2> "$WORK/null.err"
grep '^{"records"' "$WORK/null.err" > "$WORK/null.json"
check "--missing null: an absent part is null, so repeats match (an explicit null too)" \
  "$(sed -n '1p;2p;6p;7p' "$WORK/mixed.ndjson")" "$(cat "$WORK/null.out")"
check "--missing null: duplicates" 3 "$(stat "$WORK/null.json" duplicates)"
check "--missing null: a record with none of the parts still has no key" 1 "$(stat "$WORK/null.json" missing_key)"
check "--missing null: its warning says so" 1 "$(grep -c 'record 7: every key part is absent' "$WORK/null.err")"
check "--missing null, --on-error drop: the keyless record is dropped" 3 \
  "$("$D" -q -k s -k uid -k query -k fuid --missing null --on-error drop "$WORK/mixed.ndjson" | wc -l)"

# Usage errors: status 2 and a message naming the option.
usage() { "$D" "$@" < /dev/null > /dev/null 2> "$WORK/usage.err" && echo 0 || echo $?; }
check "--missing maybe: status 2" 2 "$(usage -k a -k b --missing maybe)"
check "--missing maybe: named" 1 "$(grep -c "^tlbf-dedup: --missing 'maybe'" "$WORK/usage.err")"
check "--missing null with one -k: status 2" 2 "$(usage -k a --missing null)"
check "--missing null with lines: status 2" 2 "$(usage -f lines -k 1 -k 2 --missing null)"
check "--missing null with lines: named" 1 "$(grep -c 'missing null applies to JSON records' "$WORK/usage.err")"
check "-k with a bad pointer escape: status 2" 2 "$(usage -f json -k '/a~2')"
finish
