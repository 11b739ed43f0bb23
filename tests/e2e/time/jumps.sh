#!/usr/bin/env bash
# Jumps in record time: a forward gap alone (a quiet night) is normal and not warned about; a step
# back makes records late, warned about with how late as people read it (18h22m, not
# 66177601500us) and advice that works for the input at hand, which is run here: a single file
# out of order is held for time order (--lateness) or sorted (sort(1) for text times, jq for
# NDJSON); inputs given newest first are merged by time unless --no-merge is given. A time that
# does not sort as text gets no command that would sort it wrongly.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"

# steps ERR: the warnings about late records in ERR.
steps() { grep -c 'behind the clock' "$1" || true; }
# advice ERR: the command the warning gives, "CMD > FILE".
advice() { sed -n 's/.*sort it by time first: \(.*\) (further late records.*/\1/p' "$1" | head -1; }

# A low-traffic access log: a request every 10 minutes by day, nights of 2h5m32s without any.
awk 'BEGIN { t = 1431849600; for (d = 0; d < 3; d++) { for (i = 0; i < 60; i++) { printf "%d 10.0.0.%d GET /p%d\n", t, i % 7, i % 5; t += 600 } t += 7532 } }' \
  > quiet.log
"$D" -k 2- -t 1 -w 30s --stats quiet.log > quiet.out 2> quiet.err
check "quiet nights: no warning" 0 "$(grep -c warning quiet.err || true)"
check "quiet nights: the jumps forward are counted" 1 "$(grep -c '^jumps forward 2$' quiet.err)"

# An export out of order (Zeek writes streams as they close): a step back of 66177.6015 s.
printf '%s\n' '{"ts":"2018-03-25T11:38:00.000000Z","uid":"C1"}' '{"ts":"2018-03-25T11:38:01.000000Z","uid":"C2"}' \
  '{"ts":"2018-03-24T17:15:03.398500Z","uid":"C3"}' '{"ts":"2018-03-24T17:15:04.000000Z","uid":"C3"}' > zeek.ndjson
"$D" -k uid -t ts -w 60s zeek.ndjson > zeek.out 2> zeek.err
check "the step back is read as people read it" 1 "$(grep -c 'is 18h22m behind the clock' zeek.err)"
check "no raw unit" 0 "$(grep -c '[0-9]us\b' zeek.err || true)"
command=$(advice zeek.err)
check "one NDJSON file: the advice sorts it with jq" "jq -c -s 'sort_by(.ts)[]' zeek.ndjson > zeek.sorted.ndjson" "$command"
if command -v jq > /dev/null; then
  bash -c "$command"
  "$D" -k uid -t ts -w 60s --stats zeek.sorted.ndjson > sorted.out 2> sorted.err
  check "the advice works: no step back, nothing late" "0 1" "$(steps sorted.err) $(grep -c '^late          0$' sorted.err)"
  check "the advice works: the four records, one duplicate within the minute" 3 "$(wc -l < sorted.out)"
else
  echo "SKIP (part): jq not installed, the NDJSON advice is not run"
fi

# Two logs joined end to end in one file: the advice sorts it with sort(1), and works.
printf '2017-01-02 00:00:%02d host%d ok\n' 0 1 1 2 2 1 > day2.log
printf '2017-01-01 00:00:%02d host%d ok\n' 0 1 1 2 2 1 > day1.log
cat day2.log day1.log > joined.log
"$D" -k 3- -t 1,2 -w 10s joined.log > joined.out 2> joined.err
check "joined logs: one warning at once, and the total" 2 "$(steps joined.err)"
check "joined logs: the lateness that would hold them" 1 "$(grep -c 'not in time order: --lateness 25h holds records' joined.err)"
"$D" -k 3- -t 1,2 -w 10s --lateness 25h joined.log > held.out 2> held.err
check "--lateness 25h: nothing late" 0 "$(steps held.err)"
command=$(advice joined.err)
check "joined logs: the advice sorts by the time fields" "LC_ALL=C sort -s -b -k1,2 joined.log > joined.sorted.log" "$command"
bash -c "$command"
"$D" -k 3- -t 1,2 -w 10s --stats joined.sorted.log > /dev/null 2> fixed.err
check "the advice works: no step back, nothing late" "0 1" "$(steps fixed.err) $(grep -c '^late          0$' fixed.err)"

# Two files given newest first: merged by time, nothing is late; with --no-merge, read one
# after another, the advice is to leave it out.
"$D" -k 3- -t 1,2 -w 10s --stats day2.log day1.log > merged.out 2> merged.err
check "inputs newest first, merged: nothing late" "0 1" "$(steps merged.err) $(grep -c '^late          0$' merged.err)"
check "... and the output is in time order" "$(cat day1.log day2.log | grep -v :02)" "$(cat merged.out)"
"$D" -k 3- -t 1,2 -w 10s --no-merge day2.log day1.log > /dev/null 2> order.err
check "inputs newest first, --no-merge: the advice is to merge" 1 \
  "$(grep -c 'the inputs overlap in time (day1.log has records older than day2.log.s) and --no-merge reads them one after another: leave out --no-merge' order.err)"

# A time that does not sort as text (CLF): no sort command that would order it wrongly.
printf '%s\n' '1.2.3.4 - - [02/Feb/2017:00:00:00 +0000] "GET / HTTP/1.1" 200 1' \
  '1.2.3.4 - - [01/Mar/2017:00:00:00 +0000] "GET /a HTTP/1.1" 200 1' \
  '1.2.3.4 - - [01/Jan/2017:00:00:00 +0000] "GET /b HTTP/1.1" 200 1' > clf.log
"$D" -k 6- -t 4,5 -w 10s clf.log > /dev/null 2> clf.err
check "CLF: said to sort it, without a command" 1 "$(grep -c 'sort it by time first (its time text does not sort as text)' clf.err)"
finish
