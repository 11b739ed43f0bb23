#!/usr/bin/env bash
# Output is flushed whenever the input pauses, without --line-buffered: with input "a" and
# then a pause, the reader downstream gets "a" before anything else is written.
source "$(dirname "$0")/../lib.bash"
# The writer sends "a", keeps its end of the pipe open and sends nothing more until "a" has
# come out (or 5 s passed): "a" can only arrive if the pause itself flushed it. No clock is
# compared, so a slow start of any process cannot fail the check.
mkfifo "$WORK/in" "$WORK/out"
"$TLBF_DEDUP" < "$WORK/in" > "$WORK/out" &
pid=$!
exec 4> "$WORK/in"
exec 3< "$WORK/out"
echo a >&4
read -r -t 5 first <&3 || first=timeout
check "a arrives while the input is open and idle" "a" "$first"
echo b >&4
exec 4>&-
read -r -t 5 second <&3 || second=timeout
check "b arrives after it is written" "b" "$second"
exec 3<&-
wait "$pid"

# The same through tail -f on a growing file, and with a time window from record times.
printf '1 a\n' > "$WORK/log"
mkfifo "$WORK/in2" "$WORK/out2"
tail -n +1 -f "$WORK/log" > "$WORK/in2" &
tail_pid=$!
"$TLBF_DEDUP" -k 2 -t 1 -w 10 < "$WORK/in2" > "$WORK/out2" &
pid=$!
exec 3< "$WORK/out2"
read -r -t 5 first <&3 || first=timeout
check "tail -f: first line shows up without more input" "1 a" "$first"
printf '2 a\n3 b\n' >> "$WORK/log"
read -r -t 5 second <&3 || second=timeout
check "tail -f: the duplicate is dropped, the next new line shows up" "3 b" "$second"
kill "$tail_pid" "$pid" 2> /dev/null || true
exec 3<&-
wait "$pid" 2> /dev/null || true
finish
