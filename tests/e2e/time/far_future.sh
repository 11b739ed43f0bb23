#!/usr/bin/env bash
# A stamp past the end of the clock's range (2262-04-11), such as the year 9999, is a time in
# the future, judged as --max-future says, not an unreadable time that suggests --time-format.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

printf '9999-01-01T00:00:00Z a\n2024-01-01T00:00:00Z b\n2024-01-01T00:00:01Z a\n' > "$WORK/far.log"
status=0
"$D" -t 1 -k 2 "$WORK/far.log" > "$WORK/out" 2> "$WORK/err" || status=$?
check "year 9999: exit 0" 0 "$status"
check "year 9999: a future stamp, named as such" 1 \
  "$(grep -c 'record 1: time "9999-01-01T00:00:00Z" is more than --max-future 1d ahead of the wall clock' "$WORK/err")"
check "year 9999: no 'no readable time', no --time-format hint" 0 "$(grep -c 'no readable time\|--time-format' "$WORK/err" || true)"
check "year 9999: judged as untimed, it does not move the clock" "$(cat "$WORK/far.log")" "$(cat "$WORK/out")"

# Alone, it does not stop the run as a file without readable times would (exit 1).
printf '9999-12-31T23:59:59Z a\n' > "$WORK/alone.log"
status=0
"$D" -t 1 -k 2 "$WORK/alone.log" > /dev/null 2> "$WORK/err" || status=$?
check "year 9999 alone: exit 0, not the untimed stop" "0 0" "$status $(grep -c 'none of the' "$WORK/err" || true)"
printf '{"t":"9999-06-01T12:00:00+02:00","k":1}\n' > "$WORK/far.ndjson"
"$D" -q -t t -k k --stats=json "$WORK/far.ndjson" 2> "$WORK/stats" > /dev/null || true
check "JSON, year 9999 with a zone: counted as future, not untimed" "1 0" \
  "$(python3 -c 'import json,sys; s=json.loads(open(sys.argv[1]).readlines()[-1]); print(s["future"], s["untimed"])' \
    "$WORK/stats" 2>&1)"

# Epoch numbers past 2262 are future stamps too, whatever their unit; JSON's exponent form
# ("1.7e9", as some encoders write a float) is read as the number it is.
printf '{"t":99999999999999999999,"k":1}\n{"t":1.7e9,"k":2}\n{"t":1.7e+12,"k":3}\n{"t":"1e400","k":4}\n' > "$WORK/epochs.ndjson"
"$D" -q -t t -k k --stats=json "$WORK/epochs.ndjson" 2> "$WORK/stats" > /dev/null || true
check "epochs past 2262: future, not untimed" "2 0" \
  "$(python3 -c 'import json,sys; s=json.loads(open(sys.argv[1]).readlines()[-1]); print(s["future"], s["untimed"])' \
    "$WORK/stats" 2>&1)"
check "1.7e9 and 1.7e+12: 2023-11-14T22:13:20Z (seconds, then milliseconds by magnitude)" \
  "2023-11-14T22:13:20Z 2023-11-14T22:13:20Z" \
  "$("$D" -t t -k k --explain "$WORK/epochs.ndjson" 2> /dev/null | awk -F'\t' 'NR == 3 || NR == 4 { printf "%s%s", sep, $4; sep = " " }')"
check "--time-format epoch-ms: past 2262 is future" 1 \
  "$(printf '99999999999999999 a\n' | "$D" -t 1 -k 2 --time-format epoch-ms 2>&1 > /dev/null | grep -c 'record 1: time "99999999999999999" is more than --max-future')"
finish
