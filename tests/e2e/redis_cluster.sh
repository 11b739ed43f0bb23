#!/usr/bin/env bash
# One logical filter over a 3-master Redis Cluster on loopback ports: S = 6 shard filters
# NAME{0} .. NAME{5}, each reserved with SHARDS 6, land on every master (the hash tag {i}
# decides the slot). The TLBF commands declare their key, so a node answers MOVED for a
# shard it does not hold and redis-cli -c reaches every shard from any node; each shard's
# INFO records the shard count. A shard moved to another master with MIGRATE keeps its state.
source "$(dirname "$0")/redis_lib.bash"

masters=(n1 n2 n3)
for n in "${masters[@]}"; do
  start_server "$n" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-port "$(free_port)" \
    --cluster-node-timeout 5000
done
redis-cli --cluster create "127.0.0.1:${PORT[n1]}" "127.0.0.1:${PORT[n2]}" "127.0.0.1:${PORT[n3]}" \
  --cluster-replicas 0 --cluster-yes >"$WORK/create.log" 2>&1 || { cat "$WORK/create.log"; exit 1; }
for n in "${masters[@]}"; do
  for ((i = 0; i < 600; i++)); do
    rc "$n" CLUSTER INFO | grep -q '^cluster_state:ok' && break
    sleep 0.05
  done
  check "cluster state seen by $n" ok "$(rc "$n" CLUSTER INFO | tr -d '\r' | sed -n 's/^cluster_state://p')"
done

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
owner_id=$(rc "$owner" CLUSTER MYID)
other_id=$(rc "$other" CLUSTER MYID)
rc "$other" CLUSTER SETSLOT "$slot" IMPORTING "$owner_id" >/dev/null
rc "$owner" CLUSTER SETSLOT "$slot" MIGRATING "$other_id" >/dev/null
check "MIGRATE the shard" OK "$(rc "$owner" MIGRATE 127.0.0.1 "${PORT[$other]}" 'events{0}' 0 10000)"
for n in "${masters[@]}"; do rc "$n" CLUSTER SETSLOT "$slot" NODE "$other_id" >/dev/null; done
check "the moved shard is the same filter" "$digest" "$(rc "$other" DEBUG DIGEST-VALUE 'events{0}')"
check "and answers as before" "1 1 0" "$(redis-cli -c -p "${PORT[n3]}" TLBF.EXISTS 'events{0}' TIME '*' a0 b0 c0 | paste -sd' ')"

for n in "${masters[@]}"; do check_alive "$n"; done
finish
