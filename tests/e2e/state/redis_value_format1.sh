#!/usr/bin/env bash
# A TLBF value saved by the Redis module before the bit-sliced layout (value format 1 holding
# the TLBF's format 2) still loads into this module and answers for its window; saved again
# (DEBUG RELOAD), it holds the current format and answers the same.
# testdata/state/redis-tlbf-value-format1.dump.hex is the DUMP of a filter reserved with
# WINDOW 60000 ERROR 0.00001 CAPACITY 1000 (k = 21, l = 43) holding items k1..k1000 added at
# 1,000,000 + 100 i ms. Asked at 1,101,000 ms, every item younger than the window is present,
# and every item older than the window plus one cell (60000/43 ms) is absent.
source "$(dirname "$0")/../redis_lib.bash"

start_server r
# exists_count NAME LO HI: how many of items kLO..kHI the filter reports at 1,101,000 ms.
exists_count() {
  python3 - "${PORT[$1]}" "$2" "$3" <<'PY'
import sys
from redis_resp import Client
port, lo, hi = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
reply = Client(port).call("TLBF.EXISTS", "f", "TIME", 1101000, *["k%d" % i for i in range(lo, hi + 1)])
print(sum(reply) if isinstance(reply, list) else reply)
PY
}
python3 - "${PORT[r]}" "$TESTDATA/state/redis-tlbf-value-format1.dump.hex" <<'PY' >"$WORK/restore"
import sys
from redis_resp import Client
payload = bytes.fromhex(open(sys.argv[2]).read().replace("\n", ""))
print(Client(int(sys.argv[1])).call("RESTORE", "f", 0, payload))
PY
check "the old value is restored" OK "$(cat "$WORK/restore")"
# Age 101,000 - 100 i ms: inside the window from i = 411 on, beyond 61,395 ms up to i = 396.
check "items inside the window are present" 590 "$(exists_count r 411 1000)"
check "items beyond window + one cell are absent" 0 "$(exists_count r 1 396)"
check "DEBUG RELOAD saves and loads it in the current format" OK "$(rc r DEBUG RELOAD)"
check "items inside the window are still present" 590 "$(exists_count r 411 1000)"
check "items beyond window + one cell are still absent" 0 "$(exists_count r 1 396)"
finish
