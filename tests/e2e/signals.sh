#!/usr/bin/env bash
# SIGINT and SIGTERM stop the reading (even while blocked waiting for input), flush what
# was decided, save the state, and end with 130 / 143.
source "$(dirname "$0")/lib.bash"
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
finish
