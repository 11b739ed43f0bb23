#!/usr/bin/env bash
# Event time as real logs have it (the clock model of tlbf-dedup(1), EVENT TIME): a stamp
# from the future, jumps, syslog's year rollover, untimed input, several files.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# One 2099 stamp used to freeze the clock, and the second b, four days later, was dropped.
printf '%s\n' '{"id":"z","ts":"2099-01-01T00:00:00Z"}' '{"id":"b","ts":"2020-01-01T00:01:00Z"}' \
  '{"id":"b","ts":"2020-01-05T00:01:00Z"}' > "$WORK/future.in"
"$D" -k id -t ts -w 60s --stats=json "$WORK/future.in" > "$WORK/future.out" 2> "$WORK/future.err"
check_files "a future stamp does not capture the clock: the second b is kept" "$WORK/future.in" "$WORK/future.out"
check "the future stamp is warned about with file, record and value" 1 \
  "$(grep -c "future.in: record 1: time \"2099-01-01T00:00:00Z\" is more than --max-future 1d ahead" "$WORK/future.err")"
check "--stats counts it" 1 "$(grep -o '"future":[0-9]*' "$WORK/future.err" | cut -d: -f2)"
check "--max-future 100y accepts it (and the second b is then a duplicate)" 2 \
  "$("$D" -q -k id -t ts -w 60s --max-future 36500d "$WORK/future.in" | wc -l)"

# Syslog without a year: January after December is the next year, so both lines are kept.
check "the year rolls over at New Year" "$(printf 'a Dec 31 23:59:50\na Jan 1 05:00:00\n')" \
  "$(printf 'a Dec 31 23:59:50\na Jan 1 05:00:00\n' | "$D" -k 1 -t 2- --year 2023 -w 60s)"
# Without --year, a file's year comes from its modification time: a December line in a file
# last written in January is from the year before.
printf 'a Dec 31 23:59:50\na Jan  1 00:00:10\n' > "$WORK/syslog.in"
touch -d '2024-01-01 12:00:00 UTC' "$WORK/syslog.in"
"$D" -k 1 -t 2- -w 60s --explain "$WORK/syslog.in" > "$WORK/syslog.explain"
check "the year comes from the file's modification time" 1 "$(grep -c $'\t2023-12-31T23:59:50Z\t' "$WORK/syslog.explain")"
check "... and rolls over inside the file" 1 "$(grep -c $'\t2024-01-01T00:00:10Z\t' "$WORK/syslog.explain")"

# Jumps: concatenated logs step back; the late records are warned about once with how late,
# counted (a jump forward alone only counted: tests/e2e/time/jumps.sh).
printf '%s\n' '0 a' '1 b' '90000 c' '2 d' '3 e' > "$WORK/jump.in"
"$D" -k 2 -t 1 -w 10s --stats=json "$WORK/jump.in" > /dev/null 2> "$WORK/jump.err"
check "a jump forward is counted" 1 "$(grep -o '"jumps_forward":[0-9]*' "$WORK/jump.err" | cut -d: -f2)"
check "a late record is warned about with how late" 1 "$(grep -c 'record 4: time "2" is 1d behind the clock ' "$WORK/jump.err")"
check "late records are counted" 2 "$(grep -o '"late":[0-9]*' "$WORK/jump.err" | cut -d: -f2)"
check "... with the largest lateness" 89998000000000 "$(grep -o '"max_lateness_ns":[0-9]*' "$WORK/jump.err" | cut -d: -f2)"
check "--jump-threshold raises the jump threshold" 0 \
  "$("$D" -k 2 -t 1 -w 10s --jump-threshold 2d --stats=json "$WORK/jump.in" 2>&1 > /dev/null | grep -o '"jumps_forward":[0-9]*' | cut -d: -f2)"

# Spark's yy/MM/dd stamps are read by auto-detection.
printf '17/06/09 20:10:40 INFO a\n17/06/09 20:10:45 INFO a\n17/06/09 20:12:40 INFO a\n' > "$WORK/spark.in"
check "Spark stamps parse without --time-format" "$(printf '17/06/09 20:10:40 INFO a\n17/06/09 20:12:40 INFO a')" \
  "$("$D" -k 3- -t 1,2 -w 60s "$WORK/spark.in")"

# Untimed input is loud: no readable time in the run is exit 1 with a suggestion.
for i in $(seq 1 1200); do echo "09-06-2017 20:10:$((i % 60)) k$i"; done > "$WORK/untimed.in"
set +e
"$D" -k 3 -t 1,2 --stats "$WORK/untimed.in" > "$WORK/untimed.out" 2> "$WORK/untimed.err"
status=$?
set -e
check "no readable time in the first 1000 records: exit 1" 1 "$status"
check "the message suggests --time-format" 1 "$(grep -c 'none of the first 1000 records has a readable time at -t 1,2.*--time-format' "$WORK/untimed.err")"
check "the first untimed record is warned about with its value" 1 "$(grep -c 'record 1: no readable time at -t 1,2: "09-06-2017 20:10:1"' "$WORK/untimed.err")"
check "the run fails the check: nothing is written" 0 "$(wc -c < "$WORK/untimed.out")"
check "--stats is still printed" 1 "$(grep -c '^untimed       1000$' "$WORK/untimed.err")"
check "--allow-untimed goes on" 0 "$("$D" -q -k 3 -t 1,2 --allow-untimed "$WORK/untimed.in" > /dev/null; echo $?)"
check "a pattern reads them" 1200 "$("$D" -k 3 -t 1,2 --time-format '%d-%m-%Y %H:%M:%S' "$WORK/untimed.in" | wc -l)"

# A date alone is warned about once: the window became a day.
printf '2017-05-16 10:00:00 x\n2017-05-16 10:05:00 x\n' > "$WORK/date.in"
"$D" -k 3 -t 1 -w 60s "$WORK/date.in" > "$WORK/date.out" 2> "$WORK/date.err"
check "a date-only time is warned about" 1 "$(grep -c 'time "2017-05-16" at -t 1 is a date without a time of day' "$WORK/date.err")"
check "-t 1,2 reads the time of day" 2 "$("$D" -k 3 -t 1,2 -w 60s "$WORK/date.in" | wc -l)"

# Several files: a\nb and b\nc\n are a, b, b, c, deduplicated to a, b, c.
printf 'a\nb' > "$WORK/1"
printf 'b\nc\n' > "$WORK/2"
check "two files are two streams" "$(printf 'a\nb\nc\n' | od -c)" "$("$D" "$WORK/1" "$WORK/2" | od -c)"
finish
