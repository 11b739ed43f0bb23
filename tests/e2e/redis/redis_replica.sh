#!/usr/bin/env bash
# A replica of a server with TLBF filters holds the same filters: what existed when
# REPLICAOF was given arrives with the full synchronisation (the RDB path), and every later
# TLBF.RESERVE, TLBF.ADD and TLBF.MADD through the replication stream, TIME * included, which the
# primary replicates as the time it resolved. The replica answers TLBF.EXISTS and TLBF.INFO
# exactly as its primary, and its filters have the same DEBUG DIGEST-VALUE.
source "$(dirname "$0")/../redis_lib.bash"

start_server p
start_server r
check "reserve before replication" OK "$(rc p TLBF.RESERVE f WINDOW 600000 ERROR 1e-3 CAPACITY 5000)"
fill p f 0 1500

check "REPLICAOF" OK "$(rc r REPLICAOF 127.0.0.1 "${PORT[p]}")"
wait_info r replication master_link_status up
check "reserve after replication" OK "$(rc p TLBF.RESERVE g WINDOW 600000 ERROR 1e-3 CAPACITY 5000 ALGORITHM gebf)"
fill p f 1500 1500
fill p g 0 3000
# TLBF.MADD, replicated as a list of the items it inserted (new items beside duplicates, or
# TIME *), or as it came when every item was new at the client's time.
python3 - "${PORT[p]}" "$T0" <<'EOF'
import sys
from redis_resp import Client
c = Client(int(sys.argv[1]))
def names(r):
    return ["item-%d" % i for i in r]
t = str(int(sys.argv[2]) + 3000)
for key, t, items, dups in (("f", t, names(range(3000, 3200)) + names(range(50)), 50), ("g", "*", names(range(3000, 3200)), 0),
                            ("f", t, names(range(3200, 3300)), 0)):
    answers = c.call("TLBF.MADD", key, "TIME", t, "".join("%d:%s," % (len(x), x) for x in items))
    new, seen = answers[:len(items) - dups], answers[len(items) - dups:]
    # The items seen inside the window are never new; a new one is taken for seen only as a
    # false positive (each filter draws its own hash seed: 0.2 of them expected at 1e-3).
    assert len(answers) == len(items) and seen == b"0" * dups, answers
    assert set(new) <= set(b"01") and new.count(b"0") <= 3, answers
EOF
# A few more at TIME *, some milliseconds apart, so that a replica reading its own clock
# would end with another clock (INFO clock_ms) than the primary.
for i in 1 2 3; do
  rc p TLBF.ADD f TIME '*' "late-$i" >/dev/null
  rc p TLBF.ADD g TIME '*' "late-$i" >/dev/null
  sleep 0.02
done
check "the replica acknowledged everything" 1 "$(rc p WAIT 1 10000)"

snapshot p f g >"$WORK/primary"
snapshot r f g >"$WORK/replica"
check_files "the replica's filters answer as the primary's" "$WORK/primary" "$WORK/replica"
check "and at TIME * too" "$(rc p TLBF.EXISTS f TIME '*' late-1 late-2 item-1 never-1 | paste -sd' ')" \
  "$(rc r TLBF.EXISTS f TIME '*' late-1 late-2 item-1 never-1 | paste -sd' ')"
check "the replica refuses writes" READONLY "$(rc r TLBF.ADD f TIME '*' x | cut -d' ' -f1)"
check_alive p
check_alive r
finish
