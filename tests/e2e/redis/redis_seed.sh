#!/usr/bin/env bash
# Each filter hashes its items with a secret seed of its own, drawn from the OS at
# TLBF.RESERVE. Under seed 0 (the previous module's) anyone can compute offline an item whose
# probes cover another's, and so hide that event from every producer for a window: the test
# finds such pairs (tlbf_redis_collide), shows them working on a filter of seed 0 and not on
# a reserved one. The seed never shows in TLBF.INFO and a client cannot choose it; it reaches
# the replica (full sync and stream), DEBUG RELOAD and the AOF, which then answer alike; and
# an RDB written by the previous module loads with seed 0 and answers as before (the one it
# made for tests/e2e/redis/data/; made afresh with that module when TLBF_OLD_REDIS_MODULE
# names it, whose attack pair then collides only while the library probes as it did).
source "$(dirname "$0")/../redis_lib.bash"

COLLIDE="$BUILD_DIR/tests/redis-module/tlbf_redis_collide"
OLD_MODULE=${TLBF_OLD_REDIS_MODULE:-}
DATA="$(cd "$(dirname "$0")" && pwd)/data"
# k = 2 probes in slices of 4096 bits: a cover takes some 16 million tries offline, and a
# reserved filter holding three items covers an event by chance once in ~10^6 runs.
PARAMS=(WINDOW 600000 ERROR 0.5 CAPACITY 2838)
T=$((T0 + 1000))
E="ERR TLBF:"

# 0. Offline, with the library's hashing at seed 0: an item covering each of three events.
"$COLLIDE" --seed0-value "$WORK/seed0.value" 600000 0.5 2838 event-1 event-2 event-3 >"$WORK/pairs"
read -r -a attackers <<<"$(cut -d' ' -f1 "$WORK/pairs" | paste -sd' ')"
read -r -a victims <<<"$(cut -d' ' -f2 "$WORK/pairs" | paste -sd' ')"
check "three pairs found offline" 3 "${#attackers[@]}"

aof=(--appendonly yes --appenddirname aof --appendfsync always)
start_server p --rdbcompression no "${aof[@]}"
start_server r --rdbcompression no
add() { rc "$1" TLBF.ADD "$2" TIME "$T" "${@:3}" | paste -sd' '; }

# 1. Seed 0: a fresh filter as the previous module made it (its byte form, loaded). The
# attacker's items go in first; the events, never added, are then judged duplicates.
check "load a fresh filter of seed 0" OK "$(python3 - "${PORT[p]}" "$WORK/seed0.value" <<'EOF'
import sys
from redis_resp import Client
value = open(sys.argv[2], "rb").read()
print(Client(int(sys.argv[1])).call("TLBF.LOADCHUNK", "plain", 0, len(value), value))
EOF
)"
check "seed 0: the attacker's items are new" "1 1 1" "$(add p plain "${attackers[@]}")"
check "seed 0: the events are hidden" "0 0 0" "$(add p plain "${victims[@]}")"

# 2. Reserved filters draw their own seeds: the same items cover nothing.
check "reserve before replication" OK "$(rc p TLBF.RESERVE before "${PARAMS[@]}")"
check "REPLICAOF" OK "$(rc r REPLICAOF 127.0.0.1 "${PORT[p]}")"
wait_info r replication master_link_status up
check "reserve through the replication stream" OK "$(rc p TLBF.RESERVE f "${PARAMS[@]}")"
for key in before f; do
  check "$key: the attacker's items are new" "1 1 1" "$(add p $key "${attackers[@]}")"
  check "$key: the events are not hidden" "0 0 0" "$(rc p TLBF.EXISTS $key TIME "$T" "${victims[@]}" | paste -sd' ')"
  check "$key: and are new when they come" "1 1 1" "$(add p $key "${victims[@]}")"
done
fill p f 0 3000
fill p before 0 3000
seed_f=$(filter_seed p f)
seed_before=$(filter_seed p before)
check "each filter has a seed of its own, not 0" yes \
  "$([ "$seed_f" != 0 ] && [ "$seed_before" != 0 ] && [ "$seed_f" != "$seed_before" ] && echo yes)"
check "the loaded filter keeps seed 0" 0 "$(filter_seed p plain)"

# 3. The seed is nowhere in TLBF.INFO, and no client can choose one.
rc p TLBF.INFO f >"$WORK/info"
hex=$(printf '%016x' "$seed_f")
check "INFO has no seed field and no seed value" 0 \
  "$(grep -c -i -e seed -e "$seed_f" -e "$hex" -e "$(printf '%x' "$seed_f")" "$WORK/info" || true)"
check "SEED from a client is refused" "$E SEED is not a client's option: each filter draws its own secret seed" \
  "$(rc p TLBF.RESERVE x "${PARAMS[@]}" SEED 0)"
check "and creates nothing" 0 "$(rc p EXISTS x)"

# 4. The replica holds the same seeds: 'before' came with the full synchronisation, 'f' as
# the RESERVE the primary replicated with its seed. Both answer as the primary.
check "the replica acknowledged everything" 1 "$(rc p WAIT 1 10000)"
check "the replica's seeds" "$seed_f $seed_before 0" "$(filter_seed r f) $(filter_seed r before) $(filter_seed r plain)"
snapshot p f before plain >"$WORK/primary"
snapshot r f before plain >"$WORK/replica"
check_files "the replica answers as the primary" "$WORK/primary" "$WORK/replica"

# 5. DEBUG RELOAD and a restart from the AOF keep the seeds and the answers.
rc p DEBUG RELOAD >/dev/null
snapshot p f before plain >"$WORK/reloaded"
check_files "DEBUG RELOAD answers alike" "$WORK/primary" "$WORK/reloaded"
python3 - "$WORK/p/aof" <<'EOF' >"$WORK/aof-reserve"
import glob, sys
from redis_resp import read_commands
for f in sorted(glob.glob(sys.argv[1] + "/*.incr.aof")):
    for cmd in read_commands(f):
        if cmd[0].upper() == b"TLBF.RESERVE" and cmd[1] == b"f":
            print(b" ".join(cmd[2:]).decode())
EOF
check "the AOF holds f's RESERVE with its MAXMEMORY and seed" \
  "WINDOW 600000 ERROR 0.5 CAPACITY 2838 MAXMEMORY 1073741824 SEED $seed_f" "$(cat "$WORK/aof-reserve")"
crash_server p
start_server p --rdbcompression no "${aof[@]}"
snapshot p f before plain >"$WORK/restarted"
check_files "a restart from the AOF answers alike" "$WORK/primary" "$WORK/restarted"
check "and keeps the seeds" "$seed_f $seed_before" "$(filter_seed p f) $(filter_seed p before)"

# 6. An RDB written by the previous module: its filters load with seed 0 and answer as
# before, the attack on one of them included. Times are fixed, so the answers are too.
TOLD=1700000000000
old_filters() {  # old_filters NAME: the previous module's filters, filled at fixed times
  rc "$1" TLBF.RESERVE old-tlbf WINDOW 600000 ERROR 1e-2 CAPACITY 500 >/dev/null
  rc "$1" TLBF.RESERVE old-gebf WINDOW 600000 ERROR 1e-2 CAPACITY 500 ALGORITHM gebf >/dev/null
  rc "$1" TLBF.RESERVE old-attack "${PARAMS[@]}" >/dev/null
  python3 - "${PORT[$1]}" "$TOLD" "${attackers[@]}" <<'EOF'
import sys
from redis_resp import Client
c, t = Client(int(sys.argv[1])), int(sys.argv[2])
for key in ("old-tlbf", "old-gebf"):
    c.pipeline([["TLBF.ADD", key, "TIME", t + i, "item-%d" % i] for i in range(300)])
c.call("TLBF.ADD", "old-attack", "TIME", t, *sys.argv[3:])
EOF
}
old_answers() {  # old_answers NAME: what the previous module's filters answer, at fixed times
  SNAPSHOT_TIME=$((TOLD + 1000)) answers "$1" old-tlbf old-gebf old-attack
  echo "old-attack events $(rc "$1" TLBF.EXISTS old-attack TIME "$TOLD" "${victims[@]}" | paste -sd' ')"
}
mkdir -p "$WORK/n"
if [ -n "$OLD_MODULE" ] && [ -f "$OLD_MODULE" ]; then
  MODULE=$OLD_MODULE start_server o --rdbcompression no
  old_filters o
  check "the previous module saves" OK "$(rc o SAVE)"
  old_answers o >"$WORK/old-answers"
  check_files "the previous module answers as it did for data/" "$DATA/previous_module.answers" "$WORK/old-answers"
  cp "$WORK/o/dump.rdb" "$WORK/n/dump.rdb"
else
  echo "note: the previous module's RDB comes from $DATA"
  cp "$DATA/previous_module.answers" "$WORK/old-answers"
  cp "$DATA/previous_module.rdb" "$WORK/n/dump.rdb"
fi
start_server n --rdbcompression no --dbfilename dump.rdb
old_answers n >"$WORK/new-answers"
# Its filters keep their parameters, clock and every item they hold (the 300 items added, the
# attack's events); an item never added may be a false positive of the library's current
# layout instead of the old one's, as many as the error rate allows.
check "the previous module's RDB answers as before" same \
  "$(python3 "$E2E_DIR/redis/same_answers.py" "$WORK/old-answers" "$WORK/new-answers")"
check "its filters keep seed 0" "0 0 0" "$(filter_seed n old-tlbf) $(filter_seed n old-gebf) $(filter_seed n old-attack)"

check_alive p
check_alive r
check_alive n
finish
