#!/usr/bin/env bash
# Several inputs with -t are one stream in time order: rotated logs in any order (plain or
# compressed), two relays of one stream, inputs with records without a time, stdin among
# files, hundreds of inputs, and --no-merge, which reads them one after another and says so
# when that makes records late. Each merged run equals the run over the time-sorted file.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"

# The issue's reproduction: access.log.1 (older) and access.log, in both orders.
head -20 "$TESTDATA/sample_access.log" > access.log.1
tail -20 "$TESTDATA/sample_access.log" > access.log
check "rotated logs, oldest first: 33" 33 "$("$D" -k 1,6-8 -t 4,5 -w 5m access.log.1 access.log | wc -l)"
"$D" -k 1,6-8 -t 4,5 -w 5m access.log access.log.1 > glob.out 2> glob.err
check "rotated logs in glob order: 33" 33 "$(wc -l < glob.out)"
check "... and nothing to warn about" "" "$(cat glob.err)"
"$D" -k 1,6-8 -t 4,5 -w 5m --no-merge access.log access.log.1 > nomerge.out 2> nomerge.err
check "--no-merge reads them as given: 25" 25 "$(wc -l < nomerge.out)"
check "... and says why, at once" 1 "$(grep -c 'access.log.1: record 1: time .* behind the clock .*leave out --no-merge' nomerge.err)"
check "... and in the total" 1 "$(grep -c 'record(s) were late.*leave out --no-merge' nomerge.err)"

# Three and ten rotated pieces of a time-sorted log, in shuffled orders, some compressed: the
# output is the sorted file's, byte for byte.
python3 "$GEN_EVENTS" --events 6000 --rate 50 --dup-window 20 --seed 3 > sorted.log
for run in -a-exact tlbf; do
  args=(-k 3 -t 1 -w 20s)
  [ "$run" = tlbf ] || args+=(-a exact)
  "$D" "${args[@]}" sorted.log > want.out
  for pieces in 3 10; do
    rm -f piece.*
    split -d -n "l/$pieces" sorted.log piece.
    for f in piece.0[13579]; do [ -f "$f" ] && gzip "$f"; done
    mapfile -t files < <(ls piece.* | shuf --random-source=<(yes))
    "$D" "${args[@]}" "${files[@]}" > got.out 2> got.err
    check_files "$pieces pieces in shuffled order ($run): as the sorted file" want.out got.out
    check "... quietly" "" "$(cat got.err)"
  done
done

# Two relays of one stream: a holds 1000 events a second apart; b 90 % of them, 0-2 s later,
# and 100 of its own; each in time order.
awk 'BEGIN { srand(7); for (i = 0; i < 1000; i++) printf "%.3f e%d relayA\n", 1700000000 + i, i }' > a.log
awk 'BEGIN { srand(8); for (i = 0; i < 1000; i++) if (rand() < 0.9) printf "%.3f e%d relayB\n", 1700000000 + i + 2 * rand(), i;
             for (j = 0; j < 100; j++) printf "%.3f own%d relayB\n", 1700000000 + 1000 * rand(), j }' | sort -n > b.log
check "two relays: 1100" 1100 "$("$D" -k 2 -t 1 -w 60s a.log b.log | wc -l)"
check "two relays, b first: 1100" 1100 "$("$D" -k 2 -t 1 -w 60s b.log a.log | wc -l)"
check "as sort -m gives" "$(sort -m -s -n -k1,1 a.log b.log | "$D" -k 2 -t 1 -w 60s | md5sum)" \
  "$("$D" -k 2 -t 1 -w 60s a.log b.log | md5sum)"

# Records without a time stay after the record before them in their input; a record's name
# and number in --explain are its own input's.
printf '10 a x\nno time here\n30 c x\n' > one.log
printf '20 b y\n40 a y\n' > two.log
check "untimed records keep their place" "$(printf '10 a x\nno time here\n20 b y\n30 c x\n')" \
  "$("$D" -k 2 -t 1 -w 60s --quiet one.log two.log)"
check "--explain names each record's input and number" "one.log:1 one.log:2 two.log:1 one.log:3 two.log:2" \
  "$("$D" -k 2 -t 1 -w 60s --quiet --explain one.log two.log | tail -n +2 | cut -f1 | tr '\n' ' ' | sed 's/ $//')"

# stdin among the inputs; stdin twice is refused.
check "stdin merged with a file" "$(printf '10 a x\nno time here\n20 b y\n30 c x\n')" \
  "$("$D" -k 2 -t 1 -w 60s --quiet one.log - < two.log)"
status=0
"$D" -k 2 -t 1 - - < one.log > /dev/null 2> twice.err || status=$?
check "stdin twice: exit 1" 1 "$status"
check "... saying why" 1 "$(grep -c "stdin ('-') is given twice" twice.err)"

# JSON inputs, one of them an array, merged by a member.
printf '{"ts":1,"id":"a"}\n{"ts":3,"id":"b"}\n' > x.ndjson
printf '[{"ts":2,"id":"a"},{"ts":4,"id":"c"}]\n' > y.json
check "JSON and an array merged by ts" '{"ts":1,"id":"a"} {"ts":3,"id":"b"} {"ts":4,"id":"c"}' \
  "$("$D" -k id -t ts -w 60s x.ndjson y.json | tr '\n' ' ' | sed 's/ $//')"

# Multi-line records merged whole; --records elements merged by their member.
printf '2024-01-01 00:00:01 a first\n  trace 1\n2024-01-01 00:00:03 b x\n' > m1.log
printf '2024-01-01 00:00:02 c y\n  trace 2\n  trace 3\n2024-01-01 00:00:04 a first\n' > m2.log
check "--multiline records merged whole" \
  "$(printf '2024-01-01 00:00:01 a first\n  trace 1\n2024-01-01 00:00:02 c y\n  trace 2\n  trace 3\n2024-01-01 00:00:03 b x\n')" \
  "$("$D" --multiline '^\d{4}-' -k 3- -t 1,2 -w 1m m1.log m2.log)"
printf '{"Records":[{"t":2,"id":"a"},{"t":4,"id":"b"}]}\n' > r1.json
printf '{"Records":[{"t":1,"id":"a"},{"t":3,"id":"c"}]}\n' > r2.json
check "--records elements merged" '{"t":1,"id":"a"} {"t":3,"id":"c"} {"t":4,"id":"b"}' \
  "$("$D" --records Records -k id -t t -w 1m r1.json r2.json | tr '\n' ' ' | sed 's/ $//')"

# Hundreds of inputs: merged within the limit of open files, which is raised as far as it may
# be; below what they need, a clear message.
mkdir many && awk '{ print > sprintf("many/part%03d.log", NR % 300) }' sorted.log
"$D" -k 3 -t 1 -w 20s -a exact sorted.log > want.out
"$D" -k 3 -t 1 -w 20s -a exact many/*.log > many.out
check_files "300 inputs merged: as the sorted file" want.out many.out
status=0
(ulimit -n 100 && "$D" -k 3 -t 1 -w 20s many/*.log > /dev/null 2> limit.err) || status=$?
check "300 inputs under ulimit -n 100: exit 1" 1 "$status"
check "... saying how many at once, and what to do" 1 \
  "$(grep -c '300 inputs to merge by time, but only .* files may be open at once (ulimit -n 100).*--no-merge' limit.err)"
check "... --no-merge reads them one at a time" "$(cat many/*.log | "$D" -k 3 -t 1 -w 20s -a exact | wc -l)" \
  "$(ulimit -n 100 && "$D" -k 3 -t 1 -w 20s -a exact --quiet --no-merge many/*.log | wc -l)"

# Without -t, inputs are read in order as before.
check "without -t: in order" "$(cat access.log access.log.1 | "$D" -k 1,6-8 | md5sum)" \
  "$("$D" -k 1,6-8 access.log access.log.1 | md5sum)"
status=0
"$D" -k 1 --no-merge access.log > /dev/null 2> opt.err || status=$?
check "--no-merge without -t: a usage error" "2 1" "$status $(grep -c 'no effect without -t' opt.err)"
finish
