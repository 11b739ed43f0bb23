#!/usr/bin/env bash
# A filter in Redis decides exactly as tlbf-dedup's own filter with the same window, error
# rate and capacity: 20,000 records with event times (non-decreasing, spanning many windows)
# and repeated keys go through tlbf-dedup, and the same (time, key) pairs through TLBF.ADD
# one per call. The records kept must be the same ones, and TLBF.INFO must show the values
# tlbf-dedup --stats=json reports under the same names. Both for tlbf and gebf.
source "$(dirname "$0")/../redis_lib.bash"

start_server s --rdbcompression no
python3 - "$T0" >"$WORK/events" <<'EOF'
import random, sys
random.seed(7)
t = int(sys.argv[1]) - 300000  # five minutes back, spanning about 50 s
for i in range(20000):
    t += random.choice((0, 0, 1, 2, 5))
    key = "k%d" % random.randrange(3000) if i < 19999 else "last-one"  # the run ends with an insert
    print(t, key)
EOF

for algorithm in tlbf gebf; do
  # Each filter hashes with a secret seed of its own (docs/redis.md); only with the same seed
  # can their false positives agree, so the local run takes the filter's (read from its DUMP).
  check "reserve $algorithm" OK "$(rc s TLBF.RESERVE $algorithm WINDOW 2000 ERROR 1e-3 CAPACITY 1000 ALGORITHM $algorithm)"
  TLBF_DEDUP_HASH_SEED=$(filter_seed s $algorithm) "$TLBF_DEDUP" -k 2 -t 1 --time-format epoch-ms -w 2s -e 1e-3 \
    -c 1000 -a $algorithm --stats=json "$WORK/events" >"$WORK/local.$algorithm" 2>"$WORK/stats.$algorithm"
  python3 - "${PORT[s]}" $algorithm "$WORK/events" "$WORK/stats.$algorithm" >"$WORK/redis.$algorithm" 2>"$WORK/compare.$algorithm" <<'EOF'
import json, sys
from redis_resp import Client
c = Client(int(sys.argv[1]))
key = sys.argv[2]
events = [line.split() for line in open(sys.argv[3])]
replies = c.pipeline([["TLBF.ADD", key, "TIME", t, k] for t, k in events])
for (t, k), r in zip(events, replies):
    if r == [1]:
        print(t, k)
info = c.call("TLBF.INFO", key)
info = {info[i].decode(): info[i + 1] for i in range(0, len(info), 2)}
local = json.load(open(sys.argv[4]))["filter"]
for name, value in local.items():
    mine = info[name]
    if isinstance(value, bool):
        mine = bool(mine)
    elif isinstance(value, float):
        mine = round(float(mine), 2)
    elif isinstance(value, str):
        mine = mine.decode()
    sys.stderr.write("%s %s %s\n" % (name, value, "same" if mine == value else "differs: %r" % (mine,)))
EOF
  check_files "$algorithm: Redis keeps the records tlbf-dedup keeps" "$WORK/local.$algorithm" "$WORK/redis.$algorithm"
  check "$algorithm: some records were duplicates" yes "$([ "$(wc -l <"$WORK/local.$algorithm")" -lt 20000 ] && echo yes)"
  check "$algorithm: every --stats filter field in TLBF.INFO" 12 "$(wc -l <"$WORK/compare.$algorithm")"
  sed "s/^/  $algorithm: /" "$WORK/compare.$algorithm"
  check "$algorithm: with the same values" "" "$(grep -v ' same$' "$WORK/compare.$algorithm" || true)"
done
check_alive s
finish
