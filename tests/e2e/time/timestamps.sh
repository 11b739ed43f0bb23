#!/usr/bin/env bash
# Timestamps as real logs write them, through the real binary: syslog stamps without a year
# roll over at New Year (and stay in their year when a record is only slightly out of order),
# patterns without %Y roll over too, and the forms auto-detection reads (Spark's yy/mm/dd,
# yyyy/mm/dd, log4j's comma fraction, RFC 2822, lowercase t/z in RFC 3339) time the records:
# none is untimed, a repeat inside the window is dropped and one after it is kept.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
stats_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
lines() { printf '%s\n' "$@"; }

# Issue 11's reproduction: after New Year the records are five hours later, not eleven
# months earlier, so the second line is no duplicate of the first.
check "syslog Dec 31 → Jan 1 rolls over: both lines" "$(lines 'a Dec 31 23:59:50' 'a Jan 1 05:00:00')" \
  "$(lines 'a Dec 31 23:59:50' 'a Jan 1 05:00:00' | "$D" -k 1 -t 2- --year 2023 -w 60s)"
# Back by one month (out of order at a month boundary): the same year, 40 s earlier, so a
# duplicate; read as the next year it would have been kept.
check "one month back stays in the year: a duplicate" 'b Feb 1 00:00:30' \
  "$(lines 'b Feb 1 00:00:30' 'b Jan 31 23:59:50' | "$D" -k 1 -t 2- --year 2023 -w 60s)"
# A pattern without %Y rolls over the same way (Android's logcat stamps): five hours after
# the first line is new, 20 s after that a duplicate.
lines '12-31 23:59:50.000 a' '01-01 05:00:00.000 a' '01-01 05:00:20.000 a' > "$WORK/logcat.txt"
"$D" -k 3 -t 1,2 --time-format '%m-%d %H:%M:%S.%f' --year 2023 -w 60s --stats=json "$WORK/logcat.txt" \
  > "$WORK/logcat.out" 2> "$WORK/logcat.err"
grep '^{"records"' "$WORK/logcat.err" > "$WORK/logcat.json"
check "pattern without %Y rolls over: the first two lines kept" "$(sed -n '1,2p' "$WORK/logcat.txt")" "$(cat "$WORK/logcat.out")"
check "pattern without %Y: all timed" 0 "$(stats_field "$WORK/logcat.json" untimed)"

# Spark without --time-format: read by auto-detection, so the window is the window. Untimed
# records would all be judged at one instant and the third line dropped too.
lines '17/06/09 20:10:40 INFO storage.BlockManager: Found block rdd_2_3 locally' \
  '17/06/09 20:10:50 INFO storage.BlockManager: Found block rdd_2_3 locally' \
  '17/06/09 20:12:00 INFO storage.BlockManager: Found block rdd_2_3 locally' > "$WORK/spark.log"
"$D" -k 3- -t 1,2 -w 60s --stats=json "$WORK/spark.log" > "$WORK/spark.out" 2> "$WORK/spark.err"
grep '^{"records"' "$WORK/spark.err" > "$WORK/spark.json"
check "spark: no record untimed" 0 "$(stats_field "$WORK/spark.json" untimed)"
check "spark: the repeat after 10 s dropped, the one after 80 s kept" \
  "$(sed -n '1p;3p' "$WORK/spark.log")" "$(cat "$WORK/spark.out")"

# Every new auto-detected form, in JSON (its blanks need no field list): the same key at
# t, t + 30 s and t + 120 s with -w 60s keeps the first and the third.
form_check() {
  local name=$1 t0=$2 t30=$3 t120=$4
  printf '{"id":1,"ts":"%s"}\n' "$t0" "$t30" "$t120" > "$WORK/form.ndjson"
  "$D" -k id -t ts -w 60s --stats=json "$WORK/form.ndjson" > "$WORK/form.out" 2> "$WORK/form.err"
  grep '^{"records"' "$WORK/form.err" > "$WORK/form.json"
  check "$name: no record untimed" 0 "$(stats_field "$WORK/form.json" untimed)"
  check "$name: first and third kept" "$(sed -n '1p;3p' "$WORK/form.ndjson")" "$(cat "$WORK/form.out")"
}
form_check "yyyy/mm/dd" '2017/06/09 20:10:40' '2017/06/09 20:11:10' '2017/06/09 20:12:40'
form_check "log4j comma fraction" '2023-10-10 10:00:05,123' '2023-10-10 10:00:35,123' '2023-10-10 10:02:05,123'
form_check "RFC 2822" 'Tue, 10 Oct 2023 10:00:05 +0000' 'Tue, 10 Oct 2023 12:00:35 +0200' '10 Oct 2023 10:02:05 GMT'
form_check "RFC 3339 lowercase t and z" '2023-10-10t10:00:05z' '2023-10-10t10:00:35z' '2023-10-10t10:02:05z'
finish
