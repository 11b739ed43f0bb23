#!/usr/bin/env bash
# --lateness DUR: records held until the clock passed them by DUR are judged in time order, so
# a stream out of order by at most DUR is decided as its time-sorted stream is, and written in
# time order. Without it the late records are warned about with the lateness that would fix
# them. Held records are judged at the end, on SIGTERM, on a live stream once the input paused
# for DUR, and before a --state is saved; they count against --max-memory and show in --stats.
# A record without a key moves the clock. --count, --keep last and two threads see the same
# time order.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"

# An export 40 % of whose records came up to 5 s late (the Suricata case), and its sorted form.
python3 "$GEN_EVENTS" --events 20000 --rate 100 --dup-window 30 --seed 5 --displace 0.4:5 > shuffled.log
sort -s -n -k1,1 shuffled.log > sorted.log
check "the stream is out of order" 1 "$(sort -s -n -k1,1 -c shuffled.log 2> /dev/null && echo 0 || echo 1)"
for algorithm in exact tlbf gebf; do
  "$D" -k 3 -t 1 -w 30s -a "$algorithm" sorted.log > want.out
  "$D" -k 3 -t 1 -w 30s -a "$algorithm" --lateness 5s shuffled.log > got.out 2> got.err
  check_files "--lateness 5s, -a $algorithm: as the sorted stream, byte for byte" want.out got.out
  check "... quietly" "" "$(cat got.err)"
done
check "the output is in time order" 0 "$(sort -s -n -k1,1 -c got.out > /dev/null 2>&1; echo $?)"
"$D" -k 3 -t 1 -w 30s shuffled.log > late.out 2> late.err
check "without --lateness: the first late record at once, with the fix" 1 \
  "$(grep -c 'record [0-9]*: time "[0-9.]*" is [0-9.]*m\?s behind the clock .*--lateness [0-9]*m\?s holds records' late.err)"
check "... their share after the first thousand records" 1 \
  "$(grep -c 'of the first [0-9]* records ([0-9.]*%) were late, behind the clock by up to [0-9.]*s: .*--lateness 5s' late.err)"
check "... and the total at exit" 1 "$(grep -c '^tlbf-dedup: warning: [0-9]* record(s) were late, behind the clock by up to' late.err)"
check "... and decisions differ from the sorted run" 1 "$(cmp -s want.out late.out && echo 0 || echo 1)"

# --stats: the late records and the largest lateness; the lateness held, and what it took.
"$D" -k 3 -t 1 -w 30s --stats=json shuffled.log 2>&1 > /dev/null | tail -1 > late.json
python3 - late.json <<'EOF' > late.check
import json, sys
s = json.load(open(sys.argv[1]))
print(s["late"] > 1000, 0 < s["max_lateness_ns"] <= 5_000_000_000, "lateness" not in s)
EOF
check "--stats=json: late, max_lateness_ns, no lateness object without --lateness" "True True True" "$(cat late.check)"
"$D" -k 3 -t 1 -w 30s --lateness 5s --stats=json shuffled.log 2>&1 > /dev/null | tail -1 > held.json
python3 - held.json <<'EOF' > held.check
import json, sys
s = json.load(open(sys.argv[1]))["lateness"]
print(s["ns"], s["held_most"] > 100, s["held_most_bytes"] > 10000, s["released_early"])
EOF
check "--stats=json with --lateness: held records" "5000000000 True True 0" "$(cat held.check)"
"$D" -k 3 -t 1 -w 30s --lateness 5s --stats shuffled.log 2>&1 > /dev/null | grep -E '^(late|lateness) ' > held.txt
check "--stats: the lateness line" 1 "$(grep -c '^lateness      5s: held up to [0-9]* records ([0-9]* bytes)$' held.txt)"
check "--stats: nothing late" 1 "$(grep -c '^late          0$' held.txt)"

# Memory: held records take at most a quarter of --max-memory; past it the oldest go early.
"$D" -k 3 -t 1 -w 30s -a exact --lateness 1h --max-memory 2M --stats shuffled.log 2> early.err > early.out
check "the oldest let go early for memory, counted" 1 "$(grep -c '^lateness      1h: held up to .* let go early for memory$' early.err)"
check "... and no record lost" 20000 "$(( $(wc -l < early.out) + $(awk '$1 == "duplicates" { print $2 }' early.err) ))"

# The holding stages and the second thread see the records in time order.
for extra in "-w 30s --count" "-w 30s --keep last" "-w 30s --threads 2" "-w 30s --threads 1" "-n 500"; do
  read -ra more <<< "$extra"
  "$D" -k 3 -t 1 -a exact "${more[@]}" sorted.log > want.out
  "$D" -k 3 -t 1 -a exact "${more[@]}" --lateness 5s shuffled.log > got.out
  check_files "--lateness 5s with $extra: as the sorted stream" want.out got.out
done

# Held records far longer than a chunk of the hold (1 MiB), and many of them in flight: the
# batches point into the held records' memory until they are judged and written.
awk 'BEGIN { srand(7); pad = sprintf("%1500000s", ""); gsub(/ /, "x", pad)
  for (i = 0; i < 40; i++) { t = i + (rand() < 0.4 ? 2 * rand() : 0); printf "%.3f k%d %s\n", t, i % 5, (i % 3 ? "s" : pad) } }' \
  > long.log
sort -s -n -k1,1 long.log > long_sorted.log
for threads in 1 2; do
  "$D" -k 2 -t 1 -w 5s -a exact --threads "$threads" long_sorted.log > want.out
  "$D" -k 2 -t 1 -w 5s -a exact --threads "$threads" --lateness 2s long.log > got.out
  check_files "--lateness with records longer than a chunk, --threads $threads: as the sorted stream" want.out got.out
done
check "... where the order decides: some dropped, not as read out of order" "28 26" \
  "$(wc -l < got.out) $("$D" -k 2 -t 1 -w 5s -a exact long.log 2> /dev/null | wc -l)"

# --state: everything held is judged before the state is saved; a second run over the same
# records finds them all, so nothing is written twice across runs.
"$D" -k 3 -t 1 -w 1h -a exact --state s.state --lateness 1h shuffled.log > first.out
check "--state, first run: every unique record" "$("$D" -k 3 -t 1 -w 1h -a exact sorted.log | wc -l)" "$(wc -l < first.out)"
"$D" -k 3 -t 1 -a exact --state s.state --lateness 1h shuffled.log > second.out 2> second.err
check "--state, second run: nothing again" 0 "$(wc -l < second.out)"
check "... its records are late for the saved clock, and the warnings say so, not --lateness" "3 0" \
  "$(grep -c 'the clock was saved by an earlier run (--state)' second.err) $(grep -c -- '--lateness' second.err)"

# A stop signal: the held records are judged and written first (exit 143).
mkfifo in.fifo
"$D" -k 2 -t 1 -w 1m --lateness 1h < in.fifo > stop.out 2> stop.err &
pid=$!
exec 3> in.fifo
printf '%s\n' '5 a' '3 b' '4 a' '1 c' >&3
sleep 0.5
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
exec 3>&-
check "SIGTERM with records held: exit 143" 143 "$status"
check "... after writing them in time order" "1 c|3 b|4 a" "$(paste -sd'|' stop.out)"

# A live stream: held records go out once the input has paused for the lateness.
rm -f in.fifo && mkfifo in.fifo
"$D" -k 2 -t 1 -w 1m --lateness 1s < in.fifo > live.out &
pid=$!
exec 3> in.fifo
printf '%s\n' '2 a' '1 b' >&3
sleep 2.5
check "a paused live stream: held records out within the lateness" "1 b|2 a" "$(paste -sd'|' live.out)"
exec 3>&-
wait "$pid"

# A record without a key moves the clock: the third record is judged at 100, a minute and more
# after the first copy of a.
printf '%s\n' '{"ts":1,"id":"a"}' '{"ts":100}' '{"ts":2,"id":"a"}' > keyless.ndjson
"$D" -k id -t ts -w 10s --stats=json keyless.ndjson > keyless.out 2> keyless.err
check "a keyless record's time moves the clock" 3 "$(wc -l < keyless.out)"
check "... so the record after it is late" 1 "$(grep -o '"late":[0-9]*' keyless.err | cut -d: -f2)"
finish
