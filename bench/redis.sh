#!/usr/bin/env bash
# The Redis module's benchmark in one command: bash bench/redis.sh
#
# Builds tlbf_redis.so, tlbf-dedup and tlbf-bench-redis in Release into build-bench/, starts
# four redis-servers with the module on free loopback ports (no persistence, files in a
# temporary directory), and runs bench/redis_module.cpp, which compares TLBF.ADD (one item per
# command, and BATCH items per command) and tlbf-dedup --redis (reading the keys from a file)
# with SET key 1 NX EX for the same KEYS distinct keys in one invocation, each case on a fresh
# server. The servers stop on any exit path.
#
# Environment: KEYS (default 1000000), DEPTH keys in flight (default 1000), BATCH items per
# TLBF.ADD (default 1000), ERROR the filter's rate (default 1e-3).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export BUILD_DIR=${BUILD_DIR:-$BENCH_DIR/../build-bench}
source "$BENCH_DIR/../scripts/common.sh"
source "$BENCH_DIR/lib.bash"

# 1. Dependencies and the two targets, in Release.
install_missing "${PACKAGES[@]}"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTLBF_BUILD_TESTS=OFF -DTLBF_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target tlbf_redis tlbf-dedup tlbf-bench-redis >/dev/null

# 2. One fresh server per case (SET, TLBF.ADD 1 item, TLBF.ADD BATCH items, --redis), all stopped
# however this script ends.
DIR=$(mktemp -d "${TMPDIR:-/tmp}/tlbf-bench-redis.XXXXXX")
SERVERS=()
cleanup() {
  local pid
  for pid in "${SERVERS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$DIR"
}
trap cleanup EXIT
PORTS=()
for case in set tlbf1 tlbfbatch dedup; do
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir "$DIR/$case"
  redis-server --port "$port" --bind 127.0.0.1 --dir "$DIR/$case" --logfile "$DIR/$case/log" --save '' \
    --appendonly no --loadmodule "$BUILD_DIR/redis-module/tlbf_redis.so" &
  SERVERS+=($!)
  PORTS+=("$port")
  for _ in $(seq 200); do
    [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && break
    sleep 0.05
  done
done

# 3. Machine, versions, then the figures.
describe_machine
echo "redis-server: $(redis-server --version | cut -d' ' -f3-4); module at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
"$BUILD_DIR/bench/tlbf-bench-redis" --ports "$(IFS=,; echo "${PORTS[*]}")" --keys "${KEYS:-1000000}" \
  --depth "${DEPTH:-1000}" --batch "${BATCH:-1000}" --error "${ERROR:-1e-3}" \
  --dedup "$BUILD_DIR/src/tlbf-dedup" --work "$DIR"
