#!/usr/bin/env bash
# One logical filter over a 3-master Redis Cluster on loopback ports: S = 6 shard filters
# NAME{0} .. NAME{5}, each reserved with SHARDS 6, land on every master (the hash tag {i}
# decides the slot). The TLBF commands declare their key, so a node answers MOVED for a
# shard it does not hold and redis-cli -c reaches every shard from any node; each shard's
# INFO records the shard count. A shard moved to another master with MIGRATE keeps its state.
# Two producers fed the halves of one stream keep every key exactly once between them.
source "$(dirname "$0")/../redis_lib.bash"

masters=(n1 n2 n3)
MASTERS=("${masters[@]}")
start_cluster "${masters[@]}"

# 1. Reserve the shards from one node; the cluster sends each to its master.
S=6
for ((i = 0; i < S; i++)); do
  check "reserve shard $i" OK "$(redis-cli -c -p "${PORT[n1]}" TLBF.RESERVE "events{$i}" WINDOW 60000 ERROR 1e-3 CAPACITY 1000 SHARDS $S)"
done
total=0
for n in "${masters[@]}"; do
  held=$(rc "$n" DBSIZE)
  check "master $n holds part of the filter" yes "$([ "$held" -ge 1 ] && echo yes || echo "no: $held shards")"
  total=$((total + held))
  for key in $(rc "$n" --scan --pattern 'events{*}'); do
    check "$key on $n is a shard filter" TLBFilter "$(rc "$n" TYPE "$key")"
    check "$key records the shard count" $S "$(rc "$n" TLBF.INFO "$key" | paste - - | awk '$1 == "shards" { print $2 }')"
  done
done
check "every shard exists once" $S "$total"

# 2. Items through any node: redis-cli -c follows MOVED to the shard's master.
for ((i = 0; i < S; i++)); do
  node=${masters[$((i % 3))]}
  check "add to shard $i through $node" "1 1 0" "$(redis-cli -c -p "${PORT[$node]}" TLBF.ADD "events{$i}" TIME '*' "a$i" "b$i" "a$i" | paste -sd' ')"
done
for ((i = 0; i < S; i++)); do
  node=${masters[$(((i + 1) % 3))]}
  check "exists in shard $i through $node" "1 1 0" "$(redis-cli -c -p "${PORT[$node]}" TLBF.EXISTS "events{$i}" TIME '*' "a$i" "b$i" "c$i" | paste -sd' ')"
done

# 3. Without -c a node redirects to the shard's master.
slot=$(rc n1 CLUSTER KEYSLOT 'events{0}')
owner=""
for n in "${masters[@]}"; do [ "$(rc "$n" EXISTS 'events{0}')" = 1 ] && owner=$n; done
other=n1
[ "$owner" = n1 ] && other=n2
check "MOVED to the shard's master" "MOVED $slot 127.0.0.1:${PORT[$owner]}" "$(rc "$other" TLBF.ADD 'events{0}' TIME '*' x | head -1)"

# 4. Move shard 0's slot to another master with MIGRATE (DUMP/RESTORE of the value).
digest=$(rc "$owner" DEBUG DIGEST-VALUE 'events{0}')
move_slot_of "$owner" "$other" 'events{0}'
check "the moved shard is the same filter" "$digest" "$(rc "$other" DEBUG DIGEST-VALUE 'events{0}')"
check "and answers as before" "1 1 0" "$(redis-cli -c -p "${PORT[n3]}" TLBF.EXISTS 'events{0}' TIME '*' a0 b0 c0 | paste -sd' ')"

# 5. Two producers at once, each fed half of one stream in which most keys occur in both
# halves, route their items to the shards of a fresh filter and keep what TLBF.ADD reports
# new: between them every key is kept exactly once. They share a shard rule (crc32 here,
# which python has; the documented rule needs XXH3) and read the slot owners once.
for ((i = 0; i < S; i++)); do
  redis-cli -c -p "${PORT[n1]}" TLBF.RESERVE "stream{$i}" WINDOW 600000 ERROR 1e-7 CAPACITY 5000 SHARDS $S >/dev/null
done
python3 - $S 2000 >"$WORK/stream" <<'EOF'
import random, sys
random.seed(11)
shards, keys = int(sys.argv[1]), int(sys.argv[2])
stream = ["key-%d" % random.randrange(keys) for _ in range(6 * keys)] + ["key-%d" % k for k in range(keys)]
random.shuffle(stream)
print("\n".join(stream))
EOF
owners=""
for ((i = 0; i < S; i++)); do
  for n in "${masters[@]}"; do [ "$(rc "$n" EXISTS "stream{$i}")" = 1 ] && owners+="${PORT[$n]},"; done
done
produce() {  # produce HALF: keeps the items of every other line, from line HALF on
  python3 - "$owners" $S "$1" "$WORK/stream" <<'EOF'
import sys, zlib
from redis_resp import Client, ReplyError
ports = [int(p) for p in sys.argv[1].rstrip(",").split(",")]
shards, half = int(sys.argv[2]), int(sys.argv[3])
items = [line.strip() for i, line in enumerate(open(sys.argv[4])) if i % 2 == half]
clients = {p: Client(p) for p in set(ports)}
for start in range(0, len(items), 50):
    batch = items[start:start + 50]
    by_shard = {}
    for item in batch:
        by_shard.setdefault(zlib.crc32(item.encode()) % shards, []).append(item)
    for shard, group in by_shard.items():
        reply = clients[ports[shard]].call("TLBF.ADD", "stream{%d}" % shard, "TIME", "*", *group)
        assert not isinstance(reply, ReplyError), reply
        for item, new in zip(group, reply):
            if new:
                print(item)
EOF
}
produce 0 >"$WORK/kept0" &
producer0=$!
produce 1 >"$WORK/kept1"
wait $producer0
check "each producer kept some keys" yes "$([ -s "$WORK/kept0" ] && [ -s "$WORK/kept1" ] && echo yes)"
check "between them, every key kept exactly once" "2000 2000" \
  "$(cat "$WORK/kept0" "$WORK/kept1" | wc -l) $(cat "$WORK/kept0" "$WORK/kept1" | sort -u | wc -l)"

for n in "${masters[@]}"; do check_alive "$n"; done
finish
