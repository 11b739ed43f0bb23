# Helpers for the Redis server tests, tests/e2e/redis_*.sh (sourced, not run: it does not
# end in .sh). Each test starts real redis-server processes with the built module
# (TLBF_REDIS_MODULE) on free loopback ports, in a temporary directory, and stops every one
# of them on any exit path. It says SKIP (exit 77) when redis-server or redis-cli is
# missing; scripts/test.sh installs them (Debian packages redis-server and redis-tools).
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
: "${TLBF_REDIS_MODULE:?TLBF_REDIS_MODULE must name tlbf_redis.so}"
# Test scripts in python import redis_resp.py from here.
export PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"

if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  echo "SKIP: redis-server or redis-cli is not installed (scripts/test.sh installs redis-server and redis-tools)"
  exit 77
fi

# A module built with AddressSanitizer (scripts/sanitize.sh) needs the runtime loaded first,
# so the server runs with it preloaded. Leak checking stays off for the server: it does not
# free everything at exit, and that is not the module's doing.
SERVER_ENV=()
asan_runtime=$(ldd "$TLBF_REDIS_MODULE" | awk '/libasan/ { print $3 }')
if [ -n "$asan_runtime" ]; then
  SERVER_ENV=(env "LD_PRELOAD=$asan_runtime" "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1")
fi

declare -A PORT=() PID=()
# What start_server loads, for the servers started after they are set: MODULE (default the
# built module), MODULE_ARGS (its arguments), and VMEM_KB, an address-space limit (ulimit -v)
# under which a regression that allocates too much gets "out of memory" instead of taking the
# machine's memory; it is not applied under AddressSanitizer, which reserves terabytes.
MODULE=${TLBF_REDIS_MODULE}
MODULE_ARGS=()
VMEM_KB=""

stop_all() {
  local name
  for name in "${!PID[@]}"; do stop_server "$name"; done
  rm -rf "$WORK"
}
trap stop_all EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# rc NAME ARGS...: redis-cli against server NAME.
rc() {
  local name=$1
  shift
  redis-cli -p "${PORT[$name]}" "$@"
}

# wait_ready NAME: until the server answers PING (not LOADING), at most 30 s.
wait_ready() {
  local name=$1 i
  for ((i = 0; i < 600; i++)); do
    kill -0 "${PID[$name]}" 2>/dev/null || return 1
    [ "$(redis-cli -p "${PORT[$name]}" PING 2>/dev/null)" = PONG ] && return 0
    sleep 0.05
  done
  return 1
}

# start_server NAME [redis-server options...]: a server with the module, its files in
# $WORK/NAME (the same directory when NAME is started again). Later options win.
start_server() {
  local name=$1 try vmem=""
  shift
  [ ${#SERVER_ENV[@]} -eq 0 ] && vmem=$VMEM_KB
  mkdir -p "$WORK/$name"
  for try in 1 2 3; do
    PORT[$name]=$(free_port)
    (cd "$WORK/$name" && { [ -z "$vmem" ] || ulimit -v "$vmem"; } && exec "${SERVER_ENV[@]}" redis-server \
      --port "${PORT[$name]}" --bind 127.0.0.1 --dir "$WORK/$name" --logfile "$WORK/$name/log" --save '' \
      --appendonly no --enable-debug-command local --loadmodule "$MODULE" ${MODULE_ARGS[@]+"${MODULE_ARGS[@]}"} \
      "$@" 2>>"$WORK/$name/stderr") &
    PID[$name]=$!
    if wait_ready "$name"; then return 0; fi
    stop_server "$name"  # most likely the port was taken meanwhile: try another
  done
  echo "FAIL: redis-server '$name' did not start; its log ends:"
  tail -20 "$WORK/$name/log" || true
  exit 1
}

# stop_server NAME: SIGTERM, then SIGKILL after 10 s.
stop_server() {
  local name=$1 pid=${PID[$1]:-} i
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset "PID[$name]"
}

# start_cluster NAME...: a server per NAME in cluster mode, joined into one cluster of that
# many masters without replicas, waited for until every node sees it ok.
start_cluster() {
  local n i addresses=()
  for n in "$@"; do
    start_server "$n" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-port "$(free_port)" \
      --cluster-node-timeout 5000
    addresses+=("127.0.0.1:${PORT[$n]}")
  done
  redis-cli --cluster create "${addresses[@]}" --cluster-replicas 0 --cluster-yes >"$WORK/create.log" 2>&1 ||
    { cat "$WORK/create.log"; exit 1; }
  for n in "$@"; do
    for ((i = 0; i < 600; i++)); do
      rc "$n" CLUSTER INFO | grep -q '^cluster_state:ok' && break
      sleep 0.05
    done
    check "cluster state seen by $n" ok "$(rc "$n" CLUSTER INFO | tr -d '\r' | sed -n 's/^cluster_state://p')"
  done
}

# two_producers KEYS URL0 URL1 OPTIONS...: a stream of 5 x KEYS lines in which every one of
# KEYS keys occurs and most occur in both halves; tlbf-dedup --redis URL0 OPTIONS on the odd
# lines and --redis URL1 OPTIONS --stats=json on the even ones, at the same time (outputs in
# $WORK/kept0, kept1, the second's stats in $WORK/stats1, inputs in half0, half1). Checks that
# both succeed and that between them every key is kept exactly once.
two_producers() {
  local keys=$1 url0=$2 url1=$3 status0 status1
  shift 3
  python3 - "$keys" >"$WORK/stream" <<'EOF'
import random, sys
random.seed(7)
keys = int(sys.argv[1])
stream = ["key-%d" % random.randrange(keys) for _ in range(4 * keys)] + ["key-%d" % k for k in range(keys)]
random.shuffle(stream)
print("\n".join(stream))
EOF
  awk 'NR % 2 == 1' "$WORK/stream" >"$WORK/half0"
  awk 'NR % 2 == 0' "$WORK/stream" >"$WORK/half1"
  "$TLBF_DEDUP" --redis "$url0" "$@" "$WORK/half0" >"$WORK/kept0" 2>"$WORK/err0" &
  local producer0=$!
  "$TLBF_DEDUP" --redis "$url1" "$@" --stats=json "$WORK/half1" >"$WORK/kept1" 2>"$WORK/stats1" && status1=0 || status1=$?
  wait $producer0 && status0=0 || status0=$?
  check "both producers succeed" "0 0" "$status0 $status1"
  check "each producer kept some keys" yes "$([ -s "$WORK/kept0" ] && [ -s "$WORK/kept1" ] && echo yes)"
  check "between them, every key kept exactly once" "$keys $keys" \
    "$(cat "$WORK/kept0" "$WORK/kept1" | wc -l) $(cat "$WORK/kept0" "$WORK/kept1" | sort -u | wc -l)"
}

# migrate_slot_of FROM TO KEY: starts moving the slot of KEY from master FROM to master TO
# (FROM MIGRATING, TO IMPORTING) and moves KEY itself (MIGRATE). Until finish_slot_move, FROM
# still owns the slot and answers a command on KEY with ASK (the key is gone from it); TO
# serves it only after ASKING.
migrate_slot_of() {
  local from=$1 to=$2 key=$3 slot
  slot=$(rc "$from" CLUSTER KEYSLOT "$key")
  rc "$to" CLUSTER SETSLOT "$slot" IMPORTING "$(rc "$from" CLUSTER MYID)" >/dev/null
  rc "$from" CLUSTER SETSLOT "$slot" MIGRATING "$(rc "$to" CLUSTER MYID)" >/dev/null
  check "MIGRATE $key" OK "$(rc "$from" MIGRATE 127.0.0.1 "${PORT[$to]}" "$key" 0 10000)"
}

# finish_slot_move TO KEY: tells every node of the cluster ($MASTERS) that TO owns KEY's slot.
finish_slot_move() {
  local to=$1 key=$2 slot n
  slot=$(rc "$to" CLUSTER KEYSLOT "$key")
  for n in "${MASTERS[@]}"; do rc "$n" CLUSTER SETSLOT "$slot" NODE "$(rc "$to" CLUSTER MYID)" >/dev/null; done
}

# move_slot_of FROM TO KEY: moves the slot of KEY, and KEY with it, from master FROM to TO.
move_slot_of() {
  migrate_slot_of "$1" "$2" "$3"
  finish_slot_move "$2" "$3"
}

# crash_server NAME: SIGKILL, as a power cut would stop it (nothing saved at exit).
crash_server() {
  kill -KILL "${PID[$1]}" 2>/dev/null || true
  wait "${PID[$1]}" 2>/dev/null || true
  unset "PID[$1]"
}

# info_field NAME SECTION FIELD: one field of INFO SECTION.
info_field() {
  rc "$1" INFO "$2" | tr -d '\r' | sed -n "s/^$3://p"
}

# wait_info NAME SECTION FIELD VALUE: until INFO shows that value, at most 30 s.
wait_info() {
  local i
  for ((i = 0; i < 600; i++)); do
    [ "$(info_field "$1" "$2" "$3")" = "$4" ] && return 0
    sleep 0.05
  done
  echo "FAIL: INFO $2 of '$1' did not reach $3:$4 (it shows $3:$(info_field "$1" "$2" "$3"))"
  return 1
}

# check_alive NAME: the server still answers, and neither its log nor its stderr (where the
# sanitizers report) shows a crash or a sanitizer report.
check_alive() {
  check "server '$1' still answers" PONG "$(rc "$1" PING 2>&1)"
  check "server '$1' logged no crash" 0 \
    "$(cat "$WORK/$1/log" "$WORK/$1/stderr" | grep -c -E 'crashed by signal|ASSERTION FAILED|ERROR: AddressSanitizer|runtime error:' || true)"
}

# Filling and comparing filters. T0 lies half a minute back, so a window of 10 minutes holds
# every item of a test, added at an explicit time from T0 on or at TIME *, however slowly
# the test runs (sanitizers, a busy machine).
T0=$(($(date +%s%3N) - 30000))

# fill NAME KEY FIRST COUNT: adds item-FIRST ..., 100 to a call, pipelined; the calls
# alternate between TIME * and an explicit time (T0 + the call's first item number, in ms).
fill() {
  python3 - "${PORT[$1]}" "$2" "$3" "$4" "$T0" <<'EOF'
import sys
from redis_resp import Client, ReplyError
port, key, first, count, t0 = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
c = Client(port)
cmds = []
for start in range(first, first + count, 100):
    t = "*" if (start // 100) % 2 else str(t0 + start)
    cmds.append(["TLBF.ADD", key, "TIME", t] + ["item-%d" % i for i in range(start, min(start + 100, first + count))])
for r in c.pipeline(cmds):
    assert not isinstance(r, ReplyError), r
EOF
}

# snapshot NAME KEY...: digests, INFO and EXISTS answers for 2 x 3000 items, as one text.
# The queries ask at T0, which every filter judges at its own clock (the latest insert), so
# the answers do not depend on when the snapshot is taken.
snapshot() {
  SNAPSHOT_TIME=$T0 SNAPSHOT_DIGEST=1 answers "$@"
}

# answers NAME KEY...: INFO and EXISTS answers for 2 x 3000 items at SNAPSHOT_TIME (default
# T0), and with SNAPSHOT_DIGEST=1 the digests first: what a filter answers, as one text.
answers() {
  local name=$1
  shift
  python3 - "${PORT[$name]}" "${SNAPSHOT_TIME:-$T0}" "${SNAPSHOT_DIGEST:-0}" "$@" <<'EOF'
import sys
from redis_resp import Client
c = Client(int(sys.argv[1]))
for key in sys.argv[4:]:
    if sys.argv[3] == "1":
        print(key, c.call("DEBUG", "DIGEST-VALUE", key))
    print(key, c.call("TLBF.INFO", key))
    for probe in ("item-%d", "never-%d"):
        reply = c.call("TLBF.EXISTS", key, "TIME", sys.argv[2], *[probe % i for i in range(3000)])
        print(key, probe, sum(reply), "".join(map(str, reply)))
EOF
}

# filter_seed NAME KEY: the hash seed of the filter at KEY, in decimal, read from the value's
# byte form in its DUMP (the server must write it uncompressed: --rdbcompression no); "none"
# for a value of the format before seeds.
filter_seed() {
  python3 - "${PORT[$1]}" "$2" <<'EOF'
import struct, sys
from redis_resp import Client
dump = Client(int(sys.argv[1])).call("DUMP", sys.argv[2])
value = dump[dump.index(b"TLBFREDS"):]
if struct.unpack_from("<I", value, 8)[0] < 2:
    print("none")
else:
    print(struct.unpack_from("<Q", value, 16 + 45)[0])  # after the header and the fields up to the clock
EOF
}

# peak_rss_kb NAME: the most memory the server has held (VmHWM), in KiB.
peak_rss_kb() {
  awk '/^VmHWM:/ { print $2 }' "/proc/${PID[$1]}/status"
}
