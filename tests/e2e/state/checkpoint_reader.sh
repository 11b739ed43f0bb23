#!/usr/bin/env bash
# A checkpoint covers only what the output's reader has read: records still in a pipe when the
# reader stops reading (and then dies) are not in the saved state, so the next run writes them
# again; with a reader that keeps reading, checkpoints are taken as before.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"
seq 1 10000 > in.txt

# run_killed STATE READER: a live stream of in.txt (the input stays open) through the program,
# checkpoints every 100 ms, its output read by READER ("one": one line, then no more; "all");
# the program is killed (SIGKILL) after 1.5 s.
run_killed() {
  local state=$1 reader=$2 pid feeder
  rm -f feed out
  mkfifo feed out
  (cat in.txt; sleep 20) > feed &
  feeder=$!
  "$D" --state "$state" --checkpoint 100ms < feed > out &
  pid=$!
  exec 3< out
  if [ "$reader" = one ]; then
    IFS= read -r _ <&3
  else
    cat <&3 > /dev/null &
  fi
  sleep 1.5
  kill -KILL "$pid"
  wait "$pid" 2> /dev/null || true
  exec 3<&-
  kill "$feeder" 2> /dev/null || true
  wait 2> /dev/null || true
}

run_killed one.state one
check "a reader that read one line: the next run writes the other 9,999 again" 1 \
  "$(( $("$D" --state one.state < in.txt | wc -l) >= 9999 ))"
run_killed all.state all
check "a reader that read everything: the checkpoint holds every key" 0 "$("$D" --state all.state < in.txt | wc -l)"
finish
