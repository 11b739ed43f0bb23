#!/usr/bin/env bash
# kill -9 at random moments while the state is checkpointed every 10 ms never leaves a state
# file that does not load: saving goes through a temporary file, fsync and rename, so the file
# is always the previous complete state or the next one. 100 runs, each continuing the state
# of the one before (a run that saved replaced the file: new inode and mtime); temporary
# files of killed runs are cleaned up by later saves.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
RUNS=${STATE_KILL_RUNS:-100}

python3 "$GEN_EVENTS" --events 400000 --rate 2000 --dup-window 30 --seed 3 > "$WORK/in.txt"
st="$WORK/kill.state"
# A complete first state, so every killed run starts by loading one, as from cron.
head -n 5000 "$WORK/in.txt" | "$D" -k 3 -t 1 -w 30s -c 20000 --state "$st" > /dev/null
loads=0
saved=0
mid_save=0
failures=0
slowdown=$([ -n "${TLBF_SANITIZED:-}" ] && echo 4 || echo 1)
for ((i = 1; i <= RUNS; i++)); do
  before=$(stat -c "%i %y" "$st" 2> /dev/null || true)
  "$D" -k 3 -t 1 -w 30s -c 20000 --state "$st" --checkpoint 10ms "$WORK/in.txt" > /dev/null 2> "$WORK/run.err" &
  pid=$!
  # 20 to 400 ms: past start-up and the load, into the checkpoints; four times that under
  # sanitizers, whose start-up and load alone can take longer than 400 ms.
  delay_ms=$(( (RANDOM % 381 + 20) * slowdown ))
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -9 "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  compgen -G "$st.tmp.*" > /dev/null && mid_save=$((mid_save + 1))
  if [ -e "$st" ]; then
    [ "$(stat -c "%i %y" "$st")" != "$before" ] && saved=$((saved + 1))
    if "$D" -k 3 -t 1 --state "$st" < /dev/null > /dev/null 2> "$WORK/load.err"; then
      loads=$((loads + 1))
    else
      failures=$((failures + 1))
      echo "run $i: the state left by kill -9 does not load: $(head -1 "$WORK/load.err")"
      rm -f "$st"  # start over so the following runs still test something
    fi
  fi
done
echo "     $RUNS runs killed; $saved had saved a new state before the kill, $mid_save were killed during a save; a state loaded after $loads"
check "every state file left by kill -9 loads" 0 "$failures"
check "most runs saved a state before the kill" 1 "$([ "$saved" -ge $((RUNS / 2)) ] && echo 1 || echo 0)"
leftover=$(find "$WORK" -name 'kill.state.tmp.*' | wc -l)
check "temporary files of killed runs do not pile up (left: $leftover)" 1 "$([ "$leftover" -le 1 ] && echo 1 || echo 0)"
finish
