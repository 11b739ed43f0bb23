#!/usr/bin/env bash
# Every report shows a key as the user would write it: --explain, --top and --stats=json show a
# JSON key part as its value (443, null, "443", compact arrays and objects) and a text part as
# a string, composite keys part by part; --stats=json is valid UTF-8 JSON for every key kind,
# also for text keys that are not valid UTF-8 (their bad bytes read U+FFFD).
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# The issue's command: a JSON parser reads the statistics.
printf '{"id":443}\n{"id":443}\n{"id":null}\n{"id":null}\n' |
  "$D" -k id --top 2 --stats=json 2>&1 > /dev/null |
  python3 -c 'import sys, json; s = json.loads(sys.stdin.buffer.read()); print("\n".join(sorted(json.dumps(k["key"]) for k in s["top"])))' \
    > "$WORK/issue.keys" 2> "$WORK/issue.err" || true
check "the issue's command: --stats=json parses, keys as values" "$(printf '[443]\n[null]')" "$(cat "$WORK/issue.keys")"

# Every kind of key, twice each so that --top counts it: a record's key parts, as the user
# wrote them, against what every report shows.
cat > "$WORK/kinds.ndjson" << 'EOF'
{"id":443,"n":1}
{"id":"443","n":2}
{"id":null,"n":3}
{"id":true,"n":4}
{"id":[1,"a",null],"n":5}
{"id":{"b":2,"a":1},"n":6}
{"id":1.50,"n":7}
{"id":"caf\u00e9 \"q\" \\","n":8}
EOF
sed 's/"n":\([0-9]\)/"n":\1,"again":1/' "$WORK/kinds.ndjson" >> "$WORK/kinds.ndjson"
expected='[443]
["443"]
[null]
[true]
[[1,"a",null]]
[{"a":1,"b":2}]
[1.5]
["café \"q\" \\"]'
# shown FILE COLUMN: the key column of --explain's lines (after the header), re-encoded by a
# JSON parser (so that escapes compare alike), one per line.
shown() { python3 -c '
import json, sys
for line in open(sys.argv[1], encoding="utf-8").read().splitlines()[1:]:
    print(json.dumps(json.loads(line.split("\t")[1]), ensure_ascii=False, separators=(",", ":")))' "$1"; }
"$D" -k id --explain=8 "$WORK/kinds.ndjson" > "$WORK/explain.out"
check "--explain: each JSON key kind as its value" "$expected" "$(shown "$WORK/explain.out")"

# --stats=json over every report field: valid UTF-8 JSON, the top keys as the values.
stats_keys() { python3 -c '
import json, sys
s = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
for k in s["top"]: print(json.dumps(k["key"], ensure_ascii=False, separators=(",", ":")))' "$1" | sort; }
"$D" -k id --top 10 --stats=json "$WORK/kinds.ndjson" > /dev/null 2> "$WORK/kinds.stats"
check "--stats=json: valid, each JSON key kind as its value" "$(sort <<< "$expected")" "$(stats_keys "$WORK/kinds.stats")"
"$D" -k id --top 10 "$WORK/kinds.ndjson" > /dev/null 2> "$WORK/kinds.top"
check "--top: the number 443 as 443" 1 "$(grep -c ' \[443\]$' "$WORK/kinds.top")"
check "--top: the string \"443\" quoted" 1 "$(grep -c ' \["443"\]$' "$WORK/kinds.top")"
check "--top: an object as compact JSON" 1 "$(grep -cF ' [{"a":1,"b":2}]' "$WORK/kinds.top")"
check "--top: no tag byte in any report" 0 "$(cat "$WORK/kinds.top" "$WORK/kinds.stats" "$WORK/explain.out" | LC_ALL=C grep -c $'[\xf8-\xff]' || true)"

# A composite JSON key, with --missing null: parts joined as a JSON array of values.
printf '%s\n' '{"a":1,"b":"x"}' '{"a":1,"b":"x"}' '{"a":2}' '{"a":2}' > "$WORK/composite.ndjson"
"$D" -k a -k b --missing null --top 5 --stats=json "$WORK/composite.ndjson" > /dev/null 2> "$WORK/composite.stats"
check "composite JSON key: parts as values, an absent one as null" '[1,"x"] [2,null]' \
  "$(stats_keys "$WORK/composite.stats" | tr '\n' ' ' | sed 's/ $//')"

# Text keys that are not valid UTF-8, alone and in a composite key: valid UTF-8 JSON still.
printf 'k\xfb443 x\nk\xfb443 x\n\xff\xfe y\n\xff\xfe y\ncaf\xc3\xa9 z\ncaf\xc3\xa9 z\n' > "$WORK/bytes.txt"
"$D" -k 1 --top 5 --stats=json "$WORK/bytes.txt" > /dev/null 2> "$WORK/bytes.stats"
check "text keys: valid JSON, bad bytes as U+FFFD" '["\ufffd\ufffd"] ["caf\u00e9"] ["k\ufffd443"]' \
  "$(python3 -c '
import json, sys
s = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
print(" ".join(sorted(json.dumps(k["key"]) for k in s["top"])))' "$WORK/bytes.stats")"
"$D" -k 1 -k 2 --top 5 --stats=json "$WORK/bytes.txt" > /dev/null 2> "$WORK/bytes2.stats"
check "composite text keys: valid JSON, parts joined" 1 "$(python3 -c '
import json, sys
s = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
print(int(["k\ufffd443", "x"] in [k["key"] for k in s["top"]]))' "$WORK/bytes2.stats")"
"$D" -k 1 --explain "$WORK/bytes.txt" > "$WORK/bytes.explain"
check "--explain of text keys: valid UTF-8 JSON key column" 6 "$(python3 -c '
import json, sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()[1:]
print(sum(1 for l in lines if isinstance(json.loads(l.split("\t")[1]), list)))' "$WORK/bytes.explain")"
finish
