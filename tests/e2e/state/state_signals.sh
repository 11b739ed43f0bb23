#!/usr/bin/env bash
# Ending a run early: a reader that closes the pipe (SIGPIPE / EPIPE) ends the program with
# status 0 and the state as it was at the last checkpoint (records decided as kept may not
# have reached the reader, so their keys must not enter the state); SIGTERM, SIGINT and
# SIGHUP (a closing terminal) during a busy stream end it with 143 / 130 / 129 after the
# output is flushed, and a state that loads and holds what was read; the state's lock is
# released on every one of these paths.
# (tests/e2e/cli/signals.sh covers the output flushing and statuses without a busy input.)
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

python3 "$GEN_EVENTS" --events 300000 --rate 1000 --dup-window 600 --seed 9 > "$WORK/in.txt"
head -1 "$WORK/in.txt" > "$WORK/one"

# Downstream closes the pipe after one line, on a run with no state before it.
set +o pipefail
"$D" -k 3 -t 1 -w 10m --state "$WORK/pipe.state" "$WORK/in.txt" 2> "$WORK/pipe.err" | head -1 > "$WORK/first"
status=${PIPESTATUS[0]}
set -o pipefail
check "EPIPE: status 0" 0 "$status"
check "EPIPE: nothing on stderr" "" "$(cat "$WORK/pipe.err")"
check "EPIPE: no state saved (none was checkpointed before)" 0 "$([ -e "$WORK/pipe.state" ] && echo 1 || echo 0)"
check "EPIPE: the lock was released" 1 "$("$D" -k 3 -t 1 --state "$WORK/pipe.state" /dev/null && echo 1)"
# The run after it writes every record the reader did not take: the whole input's output.
"$D" -k 3 -t 1 -w 10m "$WORK/in.txt" > "$WORK/whole.out"
rm -f "$WORK/pipe.state"
set +o pipefail
"$D" -k 3 -t 1 -w 10m --state "$WORK/pipe.state" "$WORK/in.txt" 2>/dev/null | head -1 > /dev/null
set -o pipefail
"$D" -k 3 -t 1 -w 10m --state "$WORK/pipe.state" "$WORK/in.txt" > "$WORK/rerun.out"
check_files "EPIPE: the next run with the state writes what the reader never got" "$WORK/whole.out" "$WORK/rerun.out"

# A state checkpointed before the pipe closed keeps that checkpoint: its keys were all written.
"$D" -k 3 -t 1 -w 10m --state "$WORK/kept.state" "$WORK/one" > /dev/null
set +o pipefail
tail -n +2 "$WORK/in.txt" | "$D" -k 3 -t 1 -w 10m --state "$WORK/kept.state" 2>/dev/null | head -1 > /dev/null
set -o pipefail
check "EPIPE: the last checkpoint stays (the first run's key is still a duplicate)" "" \
  "$("$D" -k 3 -t 1 --state "$WORK/kept.state" "$WORK/one")"

# signal_busy SIGNAL STATUS: signal during a stream that never pauses or ends.
signal_busy() {
  local sig=$1 want=$2 pid status st="$WORK/$1.state"
  # The input never ends (the last line repeated), so the signal always finds the run busy.
  { cat "$WORK/in.txt"; yes "$(tail -1 "$WORK/in.txt")"; } | "$D" -k 3 -t 1 -w 10m --state "$st" > "$WORK/$sig.out" &
  pid=$!
  sleep 0.4
  kill "-$sig" "$pid"
  wait "$pid" && status=0 || status=$?
  check "$sig during a busy stream: status $want" "$want" "$status"
  check "$sig: the state was saved" 1 "$([ -s "$st" ] && echo 1 || echo 0)"
  check "$sig: the saved state holds the records read" "" "$("$D" -k 3 -t 1 --state "$st" "$WORK/one")"
}
signal_busy TERM 143
signal_busy INT 130
signal_busy HUP 129
finish
