#!/usr/bin/env bash
# --multiline: a record starts at a line matching the pattern; the lines after it that do not
# match belong to it. The key and time come from its first line and the whole record is kept
# or dropped, byte for byte. On a live stream an open record goes out once the input has
# paused for --multiline-timeout. --max-record bounds one record.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
log="$TESTDATA/app_stacktrace.log"

# The stack-trace fixture: the 10:00:04 error repeats the 10:00:02 one (same message, same
# trace) and is dropped with its whole trace; the 10:00:06 warning repeats 10:00:03. The line
# before the first timestamp is a record of its own.
cat > "$WORK/want" <<'OUT'
Picked up JAVA_TOOL_OPTIONS: -Xmx512m
2024-03-05 10:00:01,100 INFO  Server started on port 8080
2024-03-05 10:00:02,200 ERROR Request failed: java.lang.IllegalStateException: pool exhausted
	at com.example.db.Pool.acquire(Pool.java:88)
	at com.example.api.Handler.handle(Handler.java:41)
Caused by: java.util.concurrent.TimeoutException
	at com.example.db.Pool.waitFor(Pool.java:120)
	... 2 more
2024-03-05 10:00:03,300 WARN  Slow query took 2300 ms
2024-03-05 10:00:05,500 ERROR Request failed: java.lang.NullPointerException
	at com.example.api.Handler.parse(Handler.java:77)
2024-03-05 10:00:07,700 INFO  Shutting down
OUT
"$D" --multiline '^\d{4}-' -k 3- --stats=json "$log" > "$WORK/out" 2> "$WORK/err"
check_files "whole events kept, whole events dropped" "$WORK/want" "$WORK/out"
check "records count events, not lines" 8 "$(python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["records"])' < "$WORK/err")"
"$D" --multiline '^\d{4}-' -k 3- --only-dups "$log" > "$WORK/dups"
check "--only-dups: the dropped events, whole" "2024-03-05 10:00:04,400 ERROR Request failed: java.lang.IllegalStateException: pool exhausted
	at com.example.db.Pool.acquire(Pool.java:88)
	at com.example.api.Handler.handle(Handler.java:41)
Caused by: java.util.concurrent.TimeoutException
	at com.example.db.Pool.waitFor(Pool.java:120)
	... 2 more
2024-03-05 10:00:06,600 WARN  Slow query took 2300 ms" "$(cat "$WORK/dups")"
# Kept and dropped events together are the input, byte for byte, CR LF included.
sed 's/$/\r/' "$log" > "$WORK/crlf.log"
"$D" --multiline '^\d{4}-' -k 3- --mark "$WORK/crlf.log" | sed 's/^\(dup\|new\)\t//' > "$WORK/crlf.out"
check_files "--mark: every byte once, CR LF kept" "$WORK/crlf.log" "$WORK/crlf.out"
# Time from the first line: -t 1,2 reads the header's stamp; continuation lines have none.
status=0
"$D" --multiline '^\d{4}-' -k 3- -t 1,2 --time-format '%Y-%m-%d %H:%M:%S,%f' -w 1s "$log" > "$WORK/timed" 2> "$WORK/timed.err" || status=$?
check "-t from the first line: exit 0" 0 "$status"
check "-t from the first line: 2 s apart is outside a 1 s window, nothing dropped" "$(wc -l < "$log")" "$(wc -l < "$WORK/timed")"
check "-t from the first line: only the preamble is untimed" 1 "$(grep -c '1 record(s) had no readable time' "$WORK/timed.err" || true)"


# Bad combinations and values are usage errors that say why.
status=0; "$D" --multiline x -f json "$log" > /dev/null 2> "$WORK/e1" || status=$?
check "--multiline with -f json: exit 2" 2 "$status"
check "--multiline with -f json: says why" 1 "$(grep -c 'JSON records are framed as JSON values' "$WORK/e1")"
status=0; "$D" --multiline '(' "$log" > /dev/null 2> "$WORK/e2" || status=$?
check "a bad pattern: exit 2 naming it" "2 1" "$status $(grep -c "\-\-multiline '('" "$WORK/e2")"
status=0; "$D" --multiline-timeout 1s "$log" > /dev/null 2>&1 || status=$?
check "--multiline-timeout needs --multiline" 2 "$status"

# --max-record: a record over the bound is an input error naming the file and the record,
# after the records before it were written.
status=0
"$D" --multiline '^\d{4}-' --max-record 200 "$log" > "$WORK/max.out" 2> "$WORK/max.err" || status=$?
check "--max-record: exit 1" 1 "$status"
check "--max-record: names file and record" 1 "$(grep -c "app_stacktrace.log: record 3 is longer than --max-record 200 bytes" "$WORK/max.err")"
check "--max-record: the records before it were written" 2 "$(wc -l < "$WORK/max.out")"
status=0; head -c 300000 /dev/zero | tr '\0' x | "$D" --max-record 64K > /dev/null 2> "$WORK/max2.err" || status=$?
check "--max-record on plain lines too" "1 1" "$status $(grep -c 'record 1 is longer than --max-record 64K' "$WORK/max2.err")"

# Streaming: a record open when the input pauses comes out within the timeout, without more
# input; with a timeout of an hour it is held (nothing arrives for a second).
mkfifo "$WORK/in" "$WORK/fifo_out"
"$D" --multiline '^\d{4}-' --multiline-timeout 200ms -k 3- < "$WORK/in" > "$WORK/fifo_out" &
pid=$!
exec 4> "$WORK/in"
exec 3< "$WORK/fifo_out"
printf '2024-01-01 00:00:00 ERROR boom\n\tat a.b(C.java:1)\n' >&4
IFS= read -r -t 10 first <&3 || first=timeout
IFS= read -r -t 10 second <&3 || second=timeout
check "tail -f: the open record comes out whole after the pause" "2024-01-01 00:00:00 ERROR boom|	at a.b(C.java:1)" "$first|$second"
printf '\tat late(C.java:2)\n2024-01-01 00:00:01 ERROR boom\n\tat a.b(C.java:1)\n2024-01-01 00:00:02 INFO next\n' >&4
IFS= read -r -t 10 third <&3 || third=timeout
IFS= read -r -t 10 fourth <&3 || fourth=timeout
check "tail -f: a late continuation line follows its kept record, the duplicate is dropped" "	at late(C.java:2)|2024-01-01 00:00:02 INFO next" "$third|$fourth"
exec 4>&-
exec 3<&-
wait "$pid"

mkfifo "$WORK/in2" "$WORK/out2"
"$D" --multiline '^\d{4}-' --multiline-timeout 1h < "$WORK/in2" > "$WORK/out2" &
pid=$!
exec 4> "$WORK/in2"
exec 3< "$WORK/out2"
printf '2024-01-01 00:00:00 held\n' >&4
IFS= read -r -t 1 held <&3 || held=nothing
check "a long timeout holds the open record" nothing "$held"
exec 4>&-
IFS= read -r -t 10 held <&3 || held=timeout
check "the end of input releases it" "2024-01-01 00:00:00 held" "$held"
exec 3<&-
wait "$pid"

# A record without a key shares its fate with its late continuation lines too: passed
# (--on-error pass) they follow it, dropped they go with it.
for on_error in pass drop; do
  mkfifo "$WORK/in_$on_error" "$WORK/out_$on_error"
  "$D" --multiline '^\d{4}-' --multiline-timeout 200ms -k 9 --on-error "$on_error" < "$WORK/in_$on_error" \
    > "$WORK/out_$on_error" 2> /dev/null &
  pid=$!
  exec 4> "$WORK/in_$on_error"
  exec 3< "$WORK/out_$on_error"
  printf '2024-01-01 00:00:00 short\n' >&4
  sleep 0.5  # the keyless record is judged after the pause
  printf '\tat late(C.java:2)\n2024-01-01 00:00:01 a b c d e f g\n' >&4
  exec 4>&-
  got=$(timeout 10 cat <&3 | tr '\n' '|')
  exec 3<&-
  wait "$pid"
  want="2024-01-01 00:00:01 a b c d e f g|"
  [ "$on_error" = pass ] && want="2024-01-01 00:00:00 short|	at late(C.java:2)|$want"
  check "tail -f: a late continuation line follows a keyless record --on-error $on_error" "$want" "$got"
done
finish
