#!/usr/bin/env bash
# Output is flushed whenever the input pauses, without --line-buffered: with input
# "a", a 1 s pause, then "b", the reader downstream gets "a" well before "b" is written.
source "$(dirname "$0")/lib.bash"
mkfifo "$WORK/out"
(echo a; sleep 1; echo b) | "$TLBF_DEDUP" > "$WORK/out" &
pid=$!
# Timestamp each line as it arrives (python3: millisecond clock, unbuffered).
python3 -u -c '
import sys, time
start = time.monotonic()
for line in sys.stdin:
    print(line.strip(), round((time.monotonic() - start) * 1000))
' < "$WORK/out" > "$WORK/arrivals"
wait "$pid"
a_ms=$(awk '$1 == "a" { print $2 }' "$WORK/arrivals")
b_ms=$(awk '$1 == "b" { print $2 }' "$WORK/arrivals")
echo "     a arrived at ${a_ms} ms, b at ${b_ms} ms"
# The reader's clock starts after its own start-up, so compare the gap between the lines.
check "a arrives before the pause ends (>= 500 ms before b)" 1 "$(( b_ms - a_ms >= 500 ? 1 : 0 ))"

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
