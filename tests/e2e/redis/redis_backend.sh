#!/usr/bin/env bash
# tlbf-dedup --redis on one node: a real redis-server with the module on a free loopback port.
# Two runs fed the halves of one stream keep every key exactly once between them, each in its
# input order; event time decides as a local run does; a paused input gets its decisions
# written; --stats shows the module's TLBF.INFO; an unreachable server, a server without the
# module, a server killed mid-stream (with and without --redis-fallback local) and bad
# arguments each give a clear message and the documented exit status; so does a stop signal
# with the output blocked.
source "$(dirname "$0")/../redis_lib.bash"

start_server r
URL="redis://127.0.0.1:${PORT[r]}"

# 1. Two producers at once, each fed every other line of one stream in which most keys occur
# in both halves (wall-clock window of 10 minutes, longer than the test).
two_producers 10000 "$URL" "$URL" --redis-key shared -w 10m -e 1e-7 -c 10000
# Each output is its input's first occurrences minus the keys the other producer had first,
# in input order: a subsequence of the input.
for h in 0 1; do
  check "producer $h keeps its input order" yes "$(python3 - "$WORK/half$h" "$WORK/kept$h" <<'EOF'
import sys
it = iter(open(sys.argv[1]).read().split("\n"))
print("yes" if all(any(line == x for x in it) for line in open(sys.argv[2]).read().split("\n")[:-1]) else "no")
EOF
)"
done
check "the filter was reserved with the command line's parameters" "600000 1e-07 10000 1" \
  "$(rc r TLBF.INFO shared | paste - - | awk '$1 ~ /^(window_ms|error_rate|capacity|shards)$/ { printf "%s ", $2 }' | sed 's/ $//;s/9.9999999999999995e-08/1e-07/')"
# --stats shows the filter as TLBF.INFO does. A producer reads it at its own end, while the
# other may still be adding, so a run on empty input after both ended gives the figures.
"$TLBF_DEDUP" --redis "$URL" --redis-key shared -w 10m -e 1e-7 -c 10000 --stats=json < /dev/null 2> "$WORK/stats1"
for field in algorithm k l slices bits_allocated keys_inserted live_keys; do
  check "--stats filter.$field is TLBF.INFO's" "$(rc r TLBF.INFO shared | paste - - | awk -v f=$field '$1 == f { print $2 }')" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["filter"][sys.argv[2]])' "$WORK/stats1" $field)"
done

# 2. Event time: the same decisions as a local run with the same window, including records
# that come back after the window and late ones (judged at the clock).
python3 - >"$WORK/timed" <<'EOF'
import random
random.seed(3)
t = 1_700_000_000_000
for i in range(15000):
    t += random.randrange(0, 40)
    late = random.random() < 0.01
    print("%d k%d" % (t - (90_000 if late else 0), random.randrange(3000)))
EOF
"$TLBF_DEDUP" -t 1 --time-format epoch-ms -k 2 -w 1m -e 1e-7 -c 5000 "$WORK/timed" >"$WORK/timed.local"
"$TLBF_DEDUP" --redis "$URL" --redis-key timed -t 1 --time-format epoch-ms -k 2 -w 1m -e 1e-7 -c 5000 \
  "$WORK/timed" >"$WORK/timed.redis" 2>/dev/null
check "event time: as a local run decides" "$(md5sum <"$WORK/timed.local")" "$(md5sum <"$WORK/timed.redis")"
check "event time: some keys came back after the window" yes \
  "$([ "$(wc -l <"$WORK/timed.local")" -gt 3000 ] && echo yes)"
# The filter's clock is its latest insert's time: the decision clock (the largest record time
# so far) at the last record kept.
check "event time: the filter's clock is the clock of the last record kept" "$(python3 - "$WORK/timed" "$WORK/timed.local" <<'EOF'
import sys
last = open(sys.argv[2]).read().split("\n")[-2]
clock = 0
for line in open(sys.argv[1]).read().split("\n")[:-1]:
    clock = max(clock, int(line.split()[0]))
    if line == last:
        at = clock
print(at)
EOF
)" "$(rc r TLBF.INFO timed | paste - - | awk '$1 == "clock_ms" { print $2 }')"
# Batches travel as TLBF.MADD; where the server refuses it (here an ACL, as an older module
# would not know it), as TLBF.ADD, with the same decisions.
calls() { rc r INFO commandstats | tr -d '\r' | awk -F'[=,:]' -v c="cmdstat_$1" '$1 == c { print $3 }'; }
check "event time: the batches went as TLBF.MADD" yes "$([ "$(calls tlbf.madd)" -gt 10 ] && echo yes)"
check "an ACL denying TLBF.MADD" OK "$(rc r ACL SETUSER default -tlbf.madd)"
adds_before=$(calls tlbf.add)
"$TLBF_DEDUP" --redis "$URL" --redis-key timed-add -t 1 --time-format epoch-ms -k 2 -w 1m -e 1e-7 -c 5000 \
  "$WORK/timed" >"$WORK/timed.redis-add" 2>/dev/null
check "event time through TLBF.ADD: as a local run decides" "$(md5sum <"$WORK/timed.local")" \
  "$(md5sum <"$WORK/timed.redis-add")"
check "and the batches went as TLBF.ADD" yes "$([ "$(($(calls tlbf.add) - ${adds_before:-0}))" -gt 10 ] && echo yes)"
check "the ACL lifted" OK "$(rc r ACL SETUSER default +tlbf.madd)"

# 3. Streaming: what was read before the input paused is decided and written at once.
mkfifo "$WORK/in"
"$TLBF_DEDUP" --redis "$URL" --redis-key stream -w 10m <"$WORK/in" >"$WORK/streamed" 2>"$WORK/streamed.err" &
streamer=$!
exec 3>"$WORK/in"
printf 'one\ntwo\none\n' >&3
for ((i = 0; i < 200; i++)); do [ "$(wc -l <"$WORK/streamed")" -ge 2 ] && break; sleep 0.05; done
check "a paused input has its records written" "one two" "$(paste -sd' ' "$WORK/streamed")"

# 4. The server killed mid-stream: what was decided is written, then exit 1 naming the server.
printf 'three\n' >&3
for ((i = 0; i < 200; i++)); do [ "$(wc -l <"$WORK/streamed")" -ge 3 ] && break; sleep 0.05; done
crash_server r
# The run may end between two writes of these lines: a write then meets a closed pipe, which
# is expected here and must not end the test.
trap '' PIPE
printf 'four\nfive\n' >&3 2>/dev/null || true
exec 3>&-
wait $streamer && status=0 || status=$?
check "server lost: exit 1" 1 "$status"
check "server lost: the decided records were written" "one two three" "$(paste -sd' ' "$WORK/streamed")"
check "server lost: the message names the server" yes \
  "$(grep -q "^tlbf-dedup: $URL: .*the records decided before were written" "$WORK/streamed.err" && echo yes)"

# 5. The same with --redis-fallback local: the run goes on with a local filter that has seen
# every key of the run (b, sent before the loss, is still a duplicate after it), and says so once.
start_server r
URL="redis://127.0.0.1:${PORT[r]}"
mkfifo "$WORK/in2"
"$TLBF_DEDUP" --redis "$URL" --redis-key fb -w 10m --redis-fallback local <"$WORK/in2" >"$WORK/fallback" \
  2>"$WORK/fallback.err" &
streamer=$!
exec 3>"$WORK/in2"
printf 'a\nb\na\n' >&3
for ((i = 0; i < 200; i++)); do [ "$(wc -l <"$WORK/fallback")" -ge 2 ] && break; sleep 0.05; done
crash_server r
printf 'c\nb\nc\nd\n' >&3
sleep 0.2
printf 'e\nc\n' >&3
exec 3>&-
wait $streamer && status=0 || status=$?
check "fallback: exit 0" 0 "$status"
check "fallback: every record decided, locally after the loss, which knows the run's own keys" "a b c d e" \
  "$(paste -sd' ' "$WORK/fallback")"
check "fallback: said once on stderr" 1 "$(grep -c 'deciding with a local filter from here on (--redis-fallback local)' "$WORK/fallback.err")"

# The same at scale: 20,000 keys, then after the loss the same 20,000 again inside the window.
# Every repeat is this run's own key, so none may pass.
start_server r
URL="redis://127.0.0.1:${PORT[r]}"
( seq 1 20000; sleep 3; seq 1 20000 ) |
  "$TLBF_DEDUP" --redis "$URL" --redis-key fb2 --redis-fallback local -w 1h >"$WORK/fb2" 2>"$WORK/fb2.err" &
streamer=$!
sleep 1.5
crash_server r
wait $streamer && status=0 || status=$?
check "fallback, 20,000 keys twice: exit 0" 0 "$status"
check "fallback, 20,000 keys twice: each key written once" "20000 20000" \
  "$(wc -l <"$WORK/fb2") $(sort -u "$WORK/fb2" | wc -l)"
check "fallback: the warning says what is lost (only other producers' keys)" 1 \
  "$(grep -c 'it knows every key of this run; keys other producers sent or send are not seen' "$WORK/fb2.err")"

# 6. Unreachable at the start, and a server without the module.
"$TLBF_DEDUP" --redis "$URL" --redis-key x </dev/null >/dev/null 2>"$WORK/err" && status=0 || status=$?
check "unreachable: exit 1" 1 "$status"
check "unreachable: the message names the URL" yes "$(grep -q "^tlbf-dedup: $URL: cannot connect to" "$WORK/err" && echo yes)"
plain_port=$(free_port)
mkdir -p "$WORK/plain"
redis-server --port "$plain_port" --bind 127.0.0.1 --dir "$WORK/plain" --save '' --appendonly no >"$WORK/plain/log" 2>&1 &
PID[plain]=$!
PORT[plain]=$plain_port
wait_ready plain
echo x | "$TLBF_DEDUP" --redis "redis://127.0.0.1:$plain_port" --redis-key x >/dev/null 2>"$WORK/err" && status=0 || status=$?
check "no module: exit 1" 1 "$status"
check "no module: the message names the module to load" yes "$(grep -q 'load the TLBF module tlbf_redis.so' "$WORK/err" && echo yes)"
rc plain SET str 1 >/dev/null
echo x | "$TLBF_DEDUP" --redis "redis://127.0.0.1:$plain_port" --redis-key str >/dev/null 2>"$WORK/err" && status=0 || status=$?
check "no module, key taken: still exit 1" 1 "$status"

# 7. Bad arguments: exit 2 with a message, no crash. A filter that exists keeps its parameters.
start_server r
URL="redis://127.0.0.1:${PORT[r]}"
rc r SET str 1 >/dev/null
bad() {  # bad NAME EXPECTED_STATUS EXPECTED_MESSAGE_PART ARGS...
  local name=$1 want=$2 part=$3 status
  shift 3
  echo x | "$TLBF_DEDUP" "$@" >/dev/null 2>"$WORK/err" && status=0 || status=$?
  check "$name: exit $want" "$want" "$status"
  check "$name: message" yes "$(grep -qF -- "$part" "$WORK/err" && echo yes || cat "$WORK/err")"
}
bad "--redis without --redis-key" 2 "--redis requires --redis-key" --redis "$URL"
bad "--redis-key without --redis" 2 "--redis-key requires --redis" --redis-key k
bad "a URL of another scheme" 2 "expected redis://host[:port][/db]" --redis "http://127.0.0.1:1" --redis-key k
bad "a bad port" 2 "the port is not a number" --redis "redis://127.0.0.1:99999" --redis-key k
bad "a password" 2 "passwords are not supported" --redis "redis://u:p@127.0.0.1:1" --redis-key k
bad "--redis with --state" 2 "--state excludes --redis" --redis "$URL" --redis-key k --state "$WORK/s"
bad "--redis with -n" 2 "--window-count excludes --redis" --redis "$URL" --redis-key k -n 10
bad "--redis with --refresh" 2 "--refresh excludes --redis" --redis "$URL" --redis-key k --refresh
bad "--redis with --on-cap" 2 "--on-cap excludes --redis" --redis "$URL" --redis-key k --on-cap fail
bad "--redis with -a exact" 2 "the Redis module keeps tlbf or gebf filters" --redis "$URL" --redis-key k -a exact
bad "--redis with a sub-millisecond window" 2 "a whole number of milliseconds" --redis "$URL" --redis-key k -w 1500us
bad "--redis-fallback other" 2 "expected stop or local" --redis "$URL" --redis-key k --redis-fallback maybe
bad "--redis-shards on one node" 2 "without a redis+cluster:// URL" --redis "$URL" --redis-key k --redis-shards 4
bad "a cluster name with braces" 2 "cannot contain { or }" --redis "redis+cluster://127.0.0.1:1" --redis-key "a{b}"
echo x | "$TLBF_DEDUP" --redis "$URL" --redis-key shared2 -w 1m >/dev/null
bad "an existing filter's window" 2 "-w/--window differs from the Redis filter 'shared2'" --redis "$URL" --redis-key shared2 -w 2m
bad "a key that holds a string" 1 "holds something other than a TLBF filter" --redis "$URL" --redis-key str

# 8. --top with --redis: the duplicates are counted when their answers come, as a local run
# counts them (the same keys and counts; the module's filter and a local one agree here).
printf '%s\n' 'user 1 in' 'user 2 in' 'user 3 out' 'user 4 in' 'user 5 out' 'user 6 in' > "$WORK/top.log"
"$TLBF_DEDUP" --redis "$URL" --redis-key top -w 10m --mask numbers --top 2 "$WORK/top.log" 2>"$WORK/top.redis" >/dev/null
"$TLBF_DEDUP" -w 10m --mask numbers --top 2 "$WORK/top.log" 2>"$WORK/top.local" >/dev/null
check "--top with --redis: the report a local run gives" "$(cat "$WORK/top.local")" "$(cat "$WORK/top.redis")"
check "--top with --redis: 'user <N> in' repeated 3 times" 1 "$(grep -cE '^ +3 overestimate 0 +\["user <N> in"\]$' "$WORK/top.redis")"

# 9. A stop signal with the output blocked (a fifo nobody reads): the run ends, and the message
# says the unwritten records' keys are in the Redis filter already.
pad=$(printf '%0100d' 0)
for i in $(seq 30000); do echo "k$i $pad"; done > "$WORK/wide.txt"
mkfifo "$WORK/fifo"
exec 4<> "$WORK/fifo"
"$TLBF_DEDUP" --redis "$URL" --redis-key blocked -w 10m -k 1 "$WORK/wide.txt" > "$WORK/fifo" 2> "$WORK/blocked.err" &
pid=$!
sleep 1.5
kill -TERM "$pid"
wait_bounded "$pid"
exec 4<&-
check "--redis, blocked output: SIGTERM ends the run with 143" 143 "$status"
check "--redis, blocked output: the message says the keys are in the Redis filter" 1 \
  "$(grep -c 'kept records were not written; their keys are in the Redis filter already' "$WORK/blocked.err")"
check_alive r
finish
