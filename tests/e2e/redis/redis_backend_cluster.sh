#!/usr/bin/env bash
# tlbf-dedup --redis redis+cluster:// on a 3-master Redis Cluster on loopback ports: one
# logical filter as S shard filters NAME{0} .. NAME{S-1} over the masters. Two producers fed
# the halves of one stream, through different nodes, keep every key exactly once between
# them, and every master holds part of the filter; a shard whose slot moves to another
# master while a run goes on is followed there (MOVED), and so is one caught in the middle
# of its migration (ASK, then ASKING on the new master), with its state.
source "$(dirname "$0")/../redis_lib.bash"

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

# across_a_move KEY HOW: a run on the filter KEY (3 shards) that goes on while the slot of
# KEY{0} leaves its master: after the first 200 keys are written, `HOW FROM TO KEY{0}` moves
# it; then the same 200 keys and 200 new ones follow. The repeated keys must be duplicates and
# the new ones kept, so the run found the moved shard with its state. Sets OWNER and TARGET.
across_a_move() {
  local key=$1 how=$2 mover status n i
  seq -f 'a%g' 1 200 >"$WORK/first"
  rm -f "$WORK/in"
  mkfifo "$WORK/in"
  "$TLBF_DEDUP" --redis "redis+cluster://127.0.0.1:${PORT[n3]}" --redis-key "$key" --redis-shards 3 -w 10m -e 1e-7 -c 1000 \
    <"$WORK/in" >"$WORK/$key" 2>"$WORK/$key.err" &
  mover=$!
  exec 3>"$WORK/in"
  cat "$WORK/first" >&3
  for ((i = 0; i < 200; i++)); do [ "$(wc -l <"$WORK/$key")" -ge 200 ] && break; sleep 0.05; done
  check "$key: the first part is written" 200 "$(wc -l <"$WORK/$key")"
  OWNER=""
  for n in "${MASTERS[@]}"; do [ "$(rc "$n" EXISTS "$key{0}")" = 1 ] && OWNER=$n; done
  TARGET=n1
  [ "$OWNER" = n1 ] && TARGET=n2
  "$how" "$OWNER" "$TARGET" "$key{0}"
  { cat "$WORK/first"; seq -f 'b%g' 1 200; } >&3
  exec 3>&-
  wait $mover && status=0 || status=$?
  check "$key: exit 0" 0 "$status"
  check "$key: the repeated keys are duplicates, the new ones kept" "$(cat "$WORK/first"; seq -f 'b%g' 1 200)" \
    "$(cat "$WORK/$key")"
  # ASKING first: while the slot is still importing, the new master serves only after it.
  check "$key: the shard is on its new master" 1 "$(printf 'ASKING\nEXISTS %s\n' "$key{0}" | rc "$TARGET" | tail -1)"
  check "$key: nothing on stderr" "" "$(cat "$WORK/$key.err")"
}

# 2. The slot moves completely while the run goes on: the old master answers MOVED, and the
# run follows to the new one.
across_a_move moving move_slot_of

# 3. The slot is caught in the middle of its migration: the old master still owns it but the
# shard has left, so it answers ASK, and only ASKING before the command lets the new master
# serve it. Every command of the second part goes through that redirection.
across_a_move asking migrate_slot_of
slot=$(rc "$OWNER" CLUSTER KEYSLOT 'asking{0}')
check "asking: the slot was still migrating when the run ended (so only ASK could redirect)" 1 \
  "$(rc "$OWNER" CLUSTER NODES | grep myself | grep -c -- "\[$slot->-")"
finish_slot_move "$TARGET" 'asking{0}'
check "asking: after the move ends, a new run finds every key of both parts" "" \
  "$({ cat "$WORK/first"; seq -f 'b%g' 1 200; } | "$TLBF_DEDUP" --redis "redis+cluster://127.0.0.1:${PORT[n1]}" \
    --redis-key asking --redis-shards 3 -w 10m -e 1e-7 -c 1000)"

for n in "${MASTERS[@]}"; do check_alive "$n"; done
finish
