#!/usr/bin/env bash
# Two runs on one state file: the second never runs unlocked. Without --lock-timeout it ends
# at once (exit 1, a message naming the file and the holder's pid) before reading anything;
# with it, it waits for the first to end and then continues its window. The lock dies with
# its holder, kill -9 included, and a lock file left on disk blocks no one.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
st="$WORK/c.state"

# A holder: a run whose input stays open until the test writes to the fifo's other end.
start_holder() {
  mkfifo "$WORK/fifo"
  "$D" -w 1h --state "$st" < "$WORK/fifo" > "$WORK/holder.out" &
  holder=$!
  exec 3> "$WORK/fifo"
  # The holder has the lock once it wrote its pid into the lock file.
  for _ in $(seq 100); do [ "$(cat "$st.lock" 2> /dev/null)" == "$holder" ] && break; sleep 0.05; done
}

# 1. A second run while the first holds the lock: exit 1 at once, the message names both.
start_holder
check "the holder wrote its pid into the lock file" "$holder" "$(cat "$st.lock")"
echo 7 > "$WORK/seven"
"$D" -w 1h --state "$st" "$WORK/seven" > "$WORK/second.out" 2> "$WORK/second.err" && status=0 || status=$?
check "busy lock: exit 1" 1 "$status"
check "busy lock: nothing emitted" "" "$(cat "$WORK/second.out")"
grep -q "state file '$st' is in use by another run (pid $holder holds the lock '$st.lock')" "$WORK/second.err" &&
  named=1 || named=0
check "busy lock: the message names the state file and the holder's pid" 1 "$named"

# 2. With --lock-timeout the second run waits for the first, then sees its keys.
"$D" -w 1h --state "$st" --lock-timeout 30s "$WORK/seven" > "$WORK/waiter.out" 2> "$WORK/waiter.err" 3>&- &
waiter=$!
sleep 0.3
check "the waiter is still waiting while the holder runs" 1 "$(kill -0 "$waiter" 2> /dev/null && echo 1 || echo 0)"
echo 7 >&3
exec 3>&-
wait "$holder"
wait "$waiter" && status=0 || status=$?
check "waiter: exit 0 once the holder ended" 0 "$status"
check "holder emitted its key" 7 "$(cat "$WORK/holder.out")"
check "waiter: the holder's key is remembered" "" "$(cat "$WORK/waiter.out")"

# 3. --lock-timeout that runs out: exit 1, and the message says which timeout.
rm "$WORK/fifo"
start_holder
"$D" -w 1h --state "$st" --lock-timeout 200ms "$WORK/seven" > /dev/null 2> "$WORK/late.err" && status=0 || status=$?
check "timeout runs out: exit 1" 1 "$status"
grep -q "was not released within --lock-timeout 200ms" "$WORK/late.err" && said=1 || said=0
check "timeout runs out: the message says so" 1 "$said"

# 4. kill -9 of the holder: the lock file stays, but the next run is not blocked.
kill -9 "$holder"
wait "$holder" 2> /dev/null || true
exec 3>&-
check "the lock file is left behind" 1 "$([ -e "$st.lock" ] && echo 1 || echo 0)"
echo 8 | "$D" -w 1h --state "$st" > "$WORK/after.out" 2> "$WORK/after.err" && status=0 || status=$?
check "after kill -9: the next run is not blocked" 0 "$status"
check "after kill -9: it runs normally" 8 "$(cat "$WORK/after.out")"

# 5. The race of two cron jobs on one state: neither loses the other's keys. Each waits for
#    the other; then every one of the 100000 keys is remembered.
race="$WORK/race.state"
(seq 1 50000 | "$D" --state "$race" -w 1h --lock-timeout 60s > "$WORK/o1") &
r1=$!
(seq 50001 100000 | "$D" --state "$race" -w 1h --lock-timeout 60s > "$WORK/o2") &
r2=$!
wait "$r1" && s1=0 || s1=$?
wait "$r2" && s2=0 || s2=$?
check "race: both runs succeed" "0 0" "$s1 $s2"
check "race: each emitted its keys" "50000 50000" "$(wc -l < "$WORK/o1") $(wc -l < "$WORK/o2")"
check "race: every key is remembered afterwards" 0 "$(seq 1 100000 | "$D" --state "$race" -w 1h | wc -l)"

# 6. The same race without --lock-timeout: a run that overlaps the other fails with the lock
#    message (and emits nothing); every key of the runs that succeeded is remembered.
race="$WORK/race2.state"
(seq 1 50000 | "$D" --state "$race" -w 1h > "$WORK/p1" 2> "$WORK/p1.err") &
r1=$!
(seq 50001 100000 | "$D" --state "$race" -w 1h > "$WORK/p2" 2> "$WORK/p2.err") &
r2=$!
wait "$r1" && s1=0 || s1=$?
wait "$r2" && s2=0 || s2=$?
expect=0
for i in 1 2; do
  s=$([ $i == 1 ] && echo "$s1" || echo "$s2")
  if [ "$s" == 0 ]; then
    expect=$((expect + 50000))
  else
    echo "run $i failed (status $s): $(cat "$WORK/p$i.err")"
    check "race without timeout: run $i failed with the lock message" 1 \
      "$(grep -q 'is in use by another run' "$WORK/p$i.err" && [ "$s" == 1 ] && [ ! -s "$WORK/p$i" ] && echo 1 || echo 0)"
  fi
done
check "race without timeout: the keys of the runs that succeeded are all remembered" $((100000 - expect)) \
  "$(seq 1 100000 | "$D" --state "$race" -w 1h | wc -l)"
finish
