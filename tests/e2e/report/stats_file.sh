#!/usr/bin/env bash
# --stats-file PATH: the statistics go to a file of their own, so a script reads them with a
# JSON parser whatever warnings stderr carries (a warning written into the same stream made
# `tlbf-dedup --stats=json f 2> s.json; jq .duplicates s.json` fail). The format is --stats's,
# else json for a name ending in .json, else text; --top's keys go with them; a file that
# cannot be written is an error (exit 1) after the records were written.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"

# A log with a step back in time: a warning on stderr beside the statistics.
printf '%s\n' '0 a' '1 b' '90000 c' '2 d' '3 a' > log.txt
status=0
"$D" -k 2 -t 1 -w 10s --stats-file s.json log.txt > out.txt 2> err.txt || status=$?
check "exit 0" 0 "$status"
check "the records are written" 5 "$(wc -l < out.txt)"
check "the warning stays on stderr" 1 "$(grep -c 'warning: log.txt: record 4' err.txt)"
check "the statistics are not on stderr" 0 "$(grep -c '"records"' err.txt || true)"
check "s.json: JSON a parser reads, duplicates and records" "0 5" \
  "$(python3 -c 'import json; s = json.load(open("s.json")); print(s["duplicates"], s["records"])')"
if command -v jq > /dev/null; then
  check "the issue's script: jq .duplicates" 0 "$(jq .duplicates s.json)"
else
  echo "SKIP (part): jq not installed"
fi

# The format: by the name, or --stats's; --top's keys go into the file too.
"$D" -k 2 --top 3 --stats-file s.txt log.txt > /dev/null 2> err2.txt
check "s.txt: the text form" 1 "$(grep -c '^duplicates    1$' s.txt)"
check "s.txt: --top's keys with it" 1 "$(grep -c ' \["a"\]$' s.txt)"
check "nothing on stderr" 0 "$(wc -c < err2.txt)"
"$D" -k 2 --stats=json --stats-file stats.out log.txt > /dev/null
check "--stats=json wins over the name" 1 "$(python3 -c 'import json; print(int("records" in json.load(open("stats.out"))))')"
"$D" -k 2 --top 2 --stats-file top.json log.txt > /dev/null
check "top.json: --top in the JSON" '["a"]' "$(python3 -c 'import json; print(json.dumps(json.load(open("top.json"))["top"][0]["key"]))')"

# A file that cannot be written: the records are written, the run fails and says why.
status=0
"$D" -k 2 --stats-file missing/s.json log.txt > out3.txt 2> err3.txt || status=$?
check "unwritable: exit 1" 1 "$status"
check "unwritable: the records are written" 4 "$(wc -l < out3.txt)"
check "unwritable: the message names the file" 1 "$(grep -c "^tlbf-dedup: --stats-file 'missing/s.json'" err3.txt)"
check_usage_error "an empty name" "--stats-file: empty file name" "$D" log.txt --stats-file=
finish
