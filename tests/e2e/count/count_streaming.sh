#!/usr/bin/env bash
# --count on a live stream: with the wall clock, a held record is written when its window
# closes, while the input is idle (tail -f through a pipe), within a second of the close; a
# stop signal writes every held record before the run ends (with --state they are kept in
# the state instead, and a later run writes them).
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# stamp: each line read, prefixed by the time it arrived.
stamp() { while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done; }
# wait_lines FILE N: until FILE has N lines, at most 10 s.
wait_lines() {
  local i
  for i in $(seq 100); do
    [ "$(wc -l < "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

# 1. tail -f through a pipe: "a" twice, then "b" a second and a half later; the input stays
#    open. Each record must come out after its 1 s window closes and less than a second later.
: > "$WORK/log"
mkfifo "$WORK/pipe"
tail -n +1 -s 0.1 -f "$WORK/log" > "$WORK/pipe" &
tail_pid=$!
"$D" --count -w 1s < "$WORK/pipe" > >(stamp > "$WORK/stamped") &
pid=$!
t_a=$EPOCHREALTIME
printf 'a\na\n' >> "$WORK/log"
sleep 1.5
t_b=$EPOCHREALTIME
printf 'b\n' >> "$WORK/log"
wait_lines "$WORK/stamped" 2 || true
kill "$tail_pid"
wait_bounded "$pid"
check "tail -f: the run ends when its input does" 0 "$status"
sleep 0.2  # the stamping reader drains
cat "$WORK/stamped"
check "tail -f: each record once, with its count" "2 a|1 b" "$(cut -d' ' -f2- "$WORK/stamped" | paste -sd '|')"
delay() { awk -v got="$(sed -n "$1p" "$WORK/stamped" | cut -d' ' -f1)" -v sent="$2" \
  'BEGIN { d = got - sent - 1; print (d > -0.05 && d < 1.0) ? "yes" : "no (" d " s after the close)" }'; }
check "a: written within a second after its window closed" yes "$(delay 1 "$t_a")"
check "b: written within a second after its window closed" yes "$(delay 2 "$t_b")"

# 2. A stop signal: every held record is written, in window-close order, then 143 / 130 / 129.
stop_with() {  # SIGNAL OPTIONS...: "status output"
  local sig=$1 pid status
  shift
  rm -f "$WORK/in" "$WORK/out"
  mkfifo "$WORK/in"
  "$D" -w 1h "$@" < "$WORK/in" > "$WORK/out" &
  pid=$!
  exec 3> "$WORK/in"
  printf 'a\nb\na\nc\n' >&3
  sleep 0.5
  kill "-$sig" "$pid"
  wait "$pid" && status=0 || status=$?
  exec 3>&-
  echo "$status $(paste -sd '|' "$WORK/out")"
}
check "SIGTERM writes every held record" "143 2 a|1 b|1 c" "$(stop_with TERM --count)"
check "SIGINT writes every held record" "130 2 a|1 b|1 c" "$(stop_with INT --count)"
check "SIGHUP writes every held record" "129 2 a|1 b|1 c" "$(stop_with HUP --count)"
check "--keep last too" "143 a|b|c" "$(stop_with TERM --keep last)"

# 3. With --state they are kept in the state, and written by the run that drains it.
check "SIGTERM with --state: nothing written, the state keeps them" "143 " "$(stop_with TERM --count --state "$WORK/s.state")"
check "... and a later run writes them, with its own copies counted" "3 a|1 b|1 c|1 d" \
  "$(printf 'a\nd\n' | "$D" --state "$WORK/s.state" --drain | paste -sd '|')"
finish
