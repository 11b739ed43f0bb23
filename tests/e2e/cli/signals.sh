#!/usr/bin/env bash
# SIGINT and SIGTERM stop the reading (even while blocked waiting for input), flush what
# was decided, save the state, and end with 130 / 143. With the output blocked (a reader that
# stopped reading) the run still ends: after Writer::kStopGraceMs without progress it leaves
# the rest unwritten and does not save the state (a second signal ends the wait at once); a
# slow reader still gets everything.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# stop_with SIGNAL: feeds two records through a fifo that stays open, signals, and
# reports "status output state-file-present".
stop_with() {
  local sig=$1 pid status
  rm -f "$WORK/in" "$WORK/st" "$WORK/out"
  mkfifo "$WORK/in"
  "$D" -t 1 -k 2 -w 1h --state "$WORK/st" < "$WORK/in" > "$WORK/out" &
  pid=$!
  exec 3> "$WORK/in"
  printf '1 a\n2 b\n3 a\n' >&3
  sleep 0.5
  kill "-$sig" "$pid"
  wait "$pid" && status=0 || status=$?
  exec 3>&-
  echo "$status $(tr '\n' ' ' < "$WORK/out")$([ -s "$WORK/st" ] && echo state)"
}
check "SIGTERM: 143, output flushed, state saved" "143 1 a 2 b state" "$(stop_with TERM)"
check "SIGINT: 130, output flushed, state saved" "130 1 a 2 b state" "$(stop_with INT)"
# The saved state holds the keys: a new run drops them.
check "state saved at the signal is usable" "4 c" "$(printf '3 a\n4 c\n' | "$D" -t 1 -k 2 --state "$WORK/st")"

# A signal while input streams in without pause stops the run early, still with the status.
seq 1 1000000000 | "$D" > /dev/null &
pid=$!
sleep 0.3
kill -TERM "$pid"
wait "$pid" && status=0 || status=$?
check "SIGTERM during a busy stream: 143" 143 "$status"

# A blocked output: 200,000 unique lines (~2.6 MB) into a fifo nobody reads (this shell holds
# it open on fd 4), from a regular file (read ahead on a second thread by default) and from a
# pipe (one thread). The signal must end the run; what reached the fifo is a prefix of the
# full output; the state keeps its earlier save.
for i in $(seq 200000); do echo "1000 k$i"; done > "$WORK/big.txt"
"$D" -t 1 -k 2 -w 1h < "$WORK/big.txt" > "$WORK/big.expected"
for mode in file pipe; do
  rm -f "$WORK/fifo" "$WORK/st"
  printf '1000 x\n' | "$D" -t 1 -k 2 -w 1h --state "$WORK/st" > /dev/null
  cp "$WORK/st" "$WORK/st.before"
  mkfifo "$WORK/fifo"
  exec 4<> "$WORK/fifo"
  if [ "$mode" = file ]; then
    "$D" -t 1 -k 2 -w 1h --state "$WORK/st" "$WORK/big.txt" > "$WORK/fifo" 2> "$WORK/err" &
  else
    cat "$WORK/big.txt" | "$D" -t 1 -k 2 -w 1h --state "$WORK/st" > "$WORK/fifo" 2> "$WORK/err" &
  fi
  pid=$!
  sleep 0.5
  kill -TERM "$pid"
  wait_bounded "$pid"
  check "blocked output ($mode): SIGTERM ends the run with 143" 143 "$status"
  timeout 1 cat <&4 > "$WORK/got" || true
  exec 4<&-
  check "blocked output ($mode): the message says what was not written" 1 \
    "$(grep -c 'stopped by signal 15 while the output took nothing for .* bytes of kept records were not written; the state was not saved' "$WORK/err")"
  check "blocked output ($mode): the state keeps its earlier save" same "$(cmp -s "$WORK/st" "$WORK/st.before" && echo same || echo changed)"
  got=$(wc -c < "$WORK/got")
  check "blocked output ($mode): some output, not all" yes "$([ "$got" -gt 0 ] && [ "$got" -lt "$(wc -c < "$WORK/big.expected")" ] && echo yes || echo "no ($got bytes)")"
  check "blocked output ($mode): what was written is a prefix of the full output" yes \
    "$(cmp -s -n "$got" "$WORK/got" "$WORK/big.expected" && echo yes || echo no)"
done

# A second signal cuts the wait for a blocked output short: the run ends at once, not a
# second after the first signal (it is given half a second after the second).
rm -f "$WORK/fifo"
mkfifo "$WORK/fifo"
exec 4<> "$WORK/fifo"
"$D" -t 1 -k 2 -w 1h "$WORK/big.txt" > "$WORK/fifo" 2> "$WORK/err" &
pid=$!
sleep 0.5
kill -TERM "$pid"
sleep 0.1
kill -TERM "$pid"
wait_bounded "$pid" 5
exec 4<&-
check "blocked output, a second SIGTERM: the run ends at once with 143" 143 "$status"

# A slow reader (16 KiB every 20 ms): the signal stops the reading, and everything decided
# still goes out, then the state is saved; a run resumed from it writes the rest, so the two
# outputs together are the full output.
rm -f "$WORK/st" "$WORK/fifo"
mkfifo "$WORK/fifo"
python3 -c 'import sys, time
while True:
    b = sys.stdin.buffer.read1(16384)
    if not b: break
    sys.stdout.buffer.write(b)
    time.sleep(0.02)' < "$WORK/fifo" > "$WORK/slow.out" &
reader=$!
"$D" -t 1 -k 2 -w 1h --state "$WORK/st" "$WORK/big.txt" > "$WORK/fifo" 2> "$WORK/err" &
pid=$!
sleep 0.5
kill -TERM "$pid"
wait_bounded "$pid"
wait "$reader" || true
check "slow reader: SIGTERM ends the run with 143" 143 "$status"
check "slow reader: no complaint about the output" 0 "$(grep -c 'not written' "$WORK/err" || true)"
"$D" -t 1 -k 2 -w 1h --state "$WORK/st" "$WORK/big.txt" > "$WORK/rest.out"
cat "$WORK/slow.out" "$WORK/rest.out" > "$WORK/both.out"
check "slow reader: the interrupted run wrote part" yes \
  "$([ -s "$WORK/slow.out" ] && [ -s "$WORK/rest.out" ] && echo yes || echo no)"
check_files "slow reader: interrupted run + resumed run = the full output" "$WORK/big.expected" "$WORK/both.out"
finish
