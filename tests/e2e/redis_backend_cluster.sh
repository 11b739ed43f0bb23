#!/usr/bin/env bash
# tlbf-dedup --redis redis+cluster:// on a 3-master Redis Cluster on loopback ports: one
# logical filter as S shard filters NAME{0} .. NAME{S-1} over the masters. Two producers fed
# the halves of one stream, through different nodes, keep every key exactly once between
# them, and every master holds part of the filter; a shard whose slot moves to another
# master while a run goes on is followed there (MOVED) with its state.
source "$(dirname "$0")/redis_lib.bash"

MASTERS=(n1 n2 n3)
start_cluster "${MASTERS[@]}"

# 1. Two producers at once, through two different nodes, each fed every other line.
two_producers 5000 "redis+cluster://127.0.0.1:${PORT[n1]}" "redis+cluster://127.0.0.1:${PORT[n2]}" --redis-key shared \
  -w 10m -e 1e-7 -c 5000
total=0
inserted=0
for n in "${MASTERS[@]}"; do
  held=$(rc "$n" --scan --pattern 'shared{*}' | wc -l)
  check "master $n holds part of the filter" yes "$([ "$held" -ge 1 ] && echo yes || echo "no: $held shards")"
  total=$((total + held))
  for key in $(rc "$n" --scan --pattern 'shared{*}'); do
    check "$key records the shard count (4 per master)" 12 "$(rc "$n" TLBF.INFO "$key" | paste - - | awk '$1 == "shards" { print $2 }')"
    inserted=$((inserted + $(rc "$n" TLBF.INFO "$key" | paste - - | awk '$1 == "keys_inserted" { print $2 }')))
  done
done
check "12 shards, each once" 12 "$total"
check "every key inserted once, spread over the shards" 5000 "$inserted"
# Read after both producers ended (each reads at its own end, the other may still be adding).
"$TLBF_DEDUP" --redis "redis+cluster://127.0.0.1:${PORT[n3]}" --redis-key shared -w 10m -e 1e-7 -c 5000 --stats=json \
  < /dev/null 2> "$WORK/stats1"
check "--stats sums the shards" "$inserted" \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["filter"]["keys_inserted"])' "$WORK/stats1")"

# 2. A run that goes on while the slot of one of its shards moves to another master: it is
# answered MOVED there and follows, and the moved shard keeps what it held.
seq -f 'a%g' 1 200 >"$WORK/first"
mkfifo "$WORK/in"
"$TLBF_DEDUP" --redis "redis+cluster://127.0.0.1:${PORT[n3]}" --redis-key moving --redis-shards 3 -w 10m -e 1e-7 -c 1000 \
  <"$WORK/in" >"$WORK/moving" 2>"$WORK/moving.err" &
mover=$!
exec 3>"$WORK/in"
cat "$WORK/first" >&3
for ((i = 0; i < 200; i++)); do [ "$(wc -l <"$WORK/moving")" -ge 200 ] && break; sleep 0.05; done
check "the first part is written" 200 "$(wc -l <"$WORK/moving")"
owner=""
for n in "${MASTERS[@]}"; do [ "$(rc "$n" EXISTS 'moving{0}')" = 1 ] && owner=$n; done
target=n1
[ "$owner" = n1 ] && target=n2
move_slot_of "$owner" "$target" 'moving{0}'
{ cat "$WORK/first"; seq -f 'b%g' 1 200; } >&3
exec 3>&-
wait $mover && status=0 || status=$?
check "after the move: exit 0" 0 "$status"
check "after the move: the repeated keys are duplicates, the new ones kept" "$(cat "$WORK/first"; seq -f 'b%g' 1 200)" \
  "$(cat "$WORK/moving")"
check "after the move: the shard is on its new master" 1 "$(rc "$target" EXISTS 'moving{0}')"
check "nothing on stderr" "" "$(cat "$WORK/moving.err")"

for n in "${MASTERS[@]}"; do check_alive "$n"; done
finish
