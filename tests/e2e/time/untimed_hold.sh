#!/usr/bin/env bash
# A run that fails for want of time writes nothing: with -t, output is held back until a record
# has a readable time (or the untimed check's records passed), so `-t eventTime` on records
# without that member exits 1 with an empty output, and `| gzip > out` is not left holding the
# input as if deduplicated. The advice fits the cause: an absent field lists the fields the
# record has; an unreadable value gets a --time-format that reads it, which works. Holding does
# not delay a live stream whose records are timed.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"

# The issue's situation: 103 CloudTrail-like records without eventTime, through gzip.
for i in $(seq 103); do
  printf '{"eventVersion":"1.05","userIdentity":{"type":"IAMUser"},"eventTime":null,"eventName":"Get%d","awsRegion":"us-east-1"}\n' "$i"
done | sed 's/"eventTime":null,//' > trail.ndjson
set +e
"$D" -k eventName -t eventTime --stats trail.ndjson 2> trail.err | gzip > out.gz
status=${PIPESTATUS[0]}
set -e
check "-t eventTime absent: exit 1" 1 "$status"
check "-t eventTime absent: nothing written" 0 "$(gzip -dc out.gz | wc -c)"
check "the advice lists the record's members" 1 \
  "$(grep -c 'none of the 103 records has a readable time at -t eventTime .*-t eventTime is not in the record; its members: eventVersion, userIdentity, eventName, awsRegion' trail.err)"
check "the message says nothing was written" 1 "$(grep -c 'Nothing was written' trail.err)"
check "--stats: emitted 0, bytes out 0" "emitted       0 bytes out     0" \
  "$(grep -E '^(emitted|bytes out) ' trail.err | tr '\n' ' ' | sed 's/ $//')"

# Lines: a field list past the end of the records lists their fields.
printf 'a 1\nb 2\n' > short.txt
"$D" -k 1 -t 7 short.txt > short.out 2> short.err || true
check "-t 7 on two-field lines: the fields listed" 1 "$(grep -c 'none of the 2 records .*-t 7 is not in the record; it has 2 fields: 1 "a", 2 "1"' short.err)"
check "-t 7 on two-field lines: nothing written" 0 "$(wc -c < short.out)"

# An unreadable value: the advice names a format that reads it, and that format works.
for i in $(seq 30); do echo "2005.11.$(printf %02d $((i % 28 + 1))) node$((i % 5)) KERNEL INFO"; done > dotted.log
status=0
"$D" -k 2- -t 1 -w 1d dotted.log > dotted.out 2> dotted.err || status=$?
check "2005.11.09: exit 1, nothing written" "1 0" "$status $(wc -c < dotted.out)"
format=$(sed -n "s/.*--time-format '\([^']*\)' reads it.*/\1/p" dotted.err | head -1)
check "2005.11.09: the advice is %Y.%m.%d" "%Y.%m.%d" "$format"
status=0
"$D" -k 2- -t 1 -w 1d --time-format "$format" dotted.log > fixed.out 2> fixed.err || status=$?
check "the advice works: exit 0, no untimed record" "0 0" "$status $(grep -c 'no readable time' fixed.err || true)"
check "the advice works: one record per node and day" 30 "$(wc -l < fixed.out)"

# Untimed records, then timed ones: all of them written, in order, once the check passed.
printf '# header\n# more\n2017-01-01T00:00:00Z a\n2017-01-01T00:00:01Z a\n2017-01-01T00:00:02Z b\n' > mixed.log
"$D" -k 2 -t 1 -w 1m mixed.log > mixed.out 2> mixed.err
check "untimed, then timed: written in order" "$(printf '# header\n# more\n2017-01-01T00:00:00Z a\n2017-01-01T00:00:02Z b')" "$(cat mixed.out)"

# A live stream of timed records is not held: the first record shows while the input is open.
mkfifo live
("$D" -k 2 -t 1 -w 1m < live > live.out 2> live.err) &
pid=$!
{
  echo "2017-01-01T00:00:00Z first"
  for _ in $(seq 50); do [ -s live.out ] && break; sleep 0.1; done
  [ -s live.out ] && echo shown > live.flag
  echo "2017-01-01T00:00:01Z second"
} > live
wait_bounded "$pid"
check "a live timed stream: the first record shows before the input ends" shown "$(cat live.flag 2> /dev/null)"
check "a live timed stream: exit 0, both records" "0 2" "$status $(wc -l < live.out)"
# A live stream whose first records have no time: they go out once the input pauses, not when
# a timed record comes (issue: the first line showed only after 3 s).
rm -f live && mkfifo live
("$D" -k id -t ts < live > untimed_live.out 2> untimed_live.err) &
{
  echo '{"id":1}'
  for _ in $(seq 30); do [ -s untimed_live.out ] && break; sleep 0.1; done
  [ -s untimed_live.out ] && echo shown > untimed_live.flag
  echo '{"id":3,"ts":1700000000}'
} > live
wait
check "a live stream's untimed first record shows while the input pauses" shown "$(cat untimed_live.flag 2> /dev/null)"
check "... and both records are written" 2 "$(wc -l < untimed_live.out)"
# ... and when no time ever comes, the error says the records were written.
rm -f live && mkfifo live
status=0
("$D" -k id -t ts < live > never.out 2> never.err) &
pid=$!
{ echo '{"id":1}'; sleep 0.5; echo '{"id":2}'; } > live
wait "$pid" || status=$?
check "a live stream with no time at all: exit 1, its records written" "1 2" "$status $(wc -l < never.out)"
check "... and the error says so" 1 "$(grep -c 'The 2 records read were written as they came (the input paused before a time was found)' never.err)"
finish
