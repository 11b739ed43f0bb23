#!/usr/bin/env bash
# The Redis module's filters survive everything that saves and loads them: DEBUG RELOAD, a
# restart from the RDB file after a crash, DUMP/RESTORE (what cluster slot migration uses),
# and a restart from an AOF whose rewrite wrote the filters as TLBF.LOADCHUNK commands (no
# RDB preamble). "Survive" means the same DEBUG DIGEST-VALUE, the same TLBF.INFO and the same
# TLBF.EXISTS answers for inserted and never inserted items. A value from a newer format
# version is refused by name, through TLBF.LOADCHUNK and in an RDB file at start-up.
source "$(dirname "$0")/../redis_lib.bash"

# 1. RDB: DEBUG RELOAD, then SAVE, a crash, and a restart from the file.
start_server r
check "reserve tlbf" OK "$(rc r TLBF.RESERVE f WINDOW 600000 ERROR 1e-3 CAPACITY 5000 SHARDS 4)"
check "reserve gebf" OK "$(rc r TLBF.RESERVE g WINDOW 600000 ERROR 1e-3 CAPACITY 5000 ALGORITHM gebf)"
check "reserve, never added to" OK "$(rc r TLBF.RESERVE e WINDOW 1000 ERROR 0.5 CAPACITY 1)"
fill r f 0 3000
fill r g 0 3000
snapshot r f g e >"$WORK/before"
check "every inserted item is reported" "f item-%d 3000" "$(grep '^f item' "$WORK/before" | cut -d' ' -f1-3)"
rc r DEBUG RELOAD >/dev/null
snapshot r f g e >"$WORK/reloaded"
check_files "DEBUG RELOAD keeps every filter as it was" "$WORK/before" "$WORK/reloaded"
check "SAVE" OK "$(rc r SAVE)"
crash_server r
start_server r --dbfilename dump.rdb
snapshot r f g e >"$WORK/restarted"
check_files "a restart from the RDB file keeps every filter" "$WORK/before" "$WORK/restarted"

# 2. DUMP / RESTORE into another key, and the restored copy is an independent filter.
python3 - "${PORT[r]}" <<'EOF' >"$WORK/dump"
import sys
from redis_resp import Client
c = Client(int(sys.argv[1]))
print(c.call("RESTORE", "f2", 0, c.call("DUMP", "f")))
print(c.call("DEBUG", "DIGEST-VALUE", "f2") == c.call("DEBUG", "DIGEST-VALUE", "f"))
print(c.call("TLBF.ADD", "f2", "TIME", "*", "only-in-f2"), c.call("TLBF.EXISTS", "f", "TIME", "*", "only-in-f2"))
EOF
check "DUMP/RESTORE gives an equal, independent filter" "OK True [1] [0]" "$(paste -sd' ' "$WORK/dump")"

# 3. AOF without an RDB preamble: the rewrite emits TLBF.LOADCHUNK commands of at most
# 1 MiB; later ADDs follow in the incremental file with the primary's resolved time.
aof=(--appendonly yes --aof-use-rdb-preamble no --appenddirname aof --appendfsync always)
start_server a "${aof[@]}"
# Large enough that its first era, narrowed after the gap between the fills, passes 1 MiB.
check "reserve a large filter" OK "$(rc a TLBF.RESERVE big WINDOW 600000 ERROR 1e-3 CAPACITY 10000000)"
check "reserve a small one" OK "$(rc a TLBF.RESERVE small WINDOW 600000 ERROR 1e-2 CAPACITY 100 ALGORITHM gebf)"
fill a big 0 2000
fill a small 0 500
rc a BGREWRITEAOF >/dev/null
wait_info a persistence aof_rewrite_in_progress 0
wait_info a persistence aof_rewrite_scheduled 0
check "the rewrite succeeded" ok "$(info_field a persistence aof_last_bgrewrite_status)"
fill a big 2000 1000
fill a small 500 500
snapshot a big small >"$WORK/aof-before"
crash_server a
start_server a "${aof[@]}"
snapshot a big small >"$WORK/aof-after"
check_files "a restart from the AOF keeps every filter" "$WORK/aof-before" "$WORK/aof-after"

python3 - "$WORK/a/aof" "${PORT[a]}" <<'EOF' >"$WORK/aof-files"
import glob, sys
from redis_resp import Client, read_commands
base = read_commands(glob.glob(sys.argv[1] + "/*.base.aof")[0])
chunks = {}
for cmd in base:
    if cmd[0].upper() == b"TLBF.LOADCHUNK":
        assert len(cmd[4]) <= 1 << 20
        chunks.setdefault(cmd[1], []).append(cmd[4])
print("chunks of big:", "several" if len(chunks[b"big"]) > 1 else len(chunks[b"big"]), "of small:", len(chunks[b"small"]))
times = [cmd[3] for f in glob.glob(sys.argv[1] + "/*.incr.aof") for cmd in read_commands(f)
         if cmd[0].upper() == b"TLBF.ADD"]
print("ADDs in the incremental file:", "some" if times else "none", "all at a numeric time:", all(t.isdigit() for t in times))
# The same bytes with a newer format version are refused by name, and create nothing.
value = bytearray(b"".join(chunks[b"small"]))
value[8] = 3
c = Client(int(sys.argv[2]))
print(c.call("TLBF.LOADCHUNK", "newer", 0, len(value), bytes(value)))
print(c.call("EXISTS", "newer"))
EOF
check "AOF rewrite: LOADCHUNK commands" "chunks of big: several of small: 1" "$(sed -n 1p "$WORK/aof-files")"
check "AOF: TIME * written as the resolved time" "ADDs in the incremental file: some all at a numeric time: True" "$(sed -n 2p "$WORK/aof-files")"
check "a newer format version is refused" \
  "ERR TLBF: cannot load the filter: written by a newer tlbf_redis (format version 3; this one reads up to 2)" \
  "$(sed -n 3p "$WORK/aof-files")"
check "and creates nothing" 0 "$(sed -n 4p "$WORK/aof-files")"

# 4. An RDB file holding a value of a newer format version: the server refuses to start
# (rather than load something else), and its log names the reason.
start_server v --rdbcompression no
check "reserve in v" OK "$(rc v TLBF.RESERVE f WINDOW 600000 ERROR 1e-2 CAPACITY 100)"
check "SAVE v" OK "$(rc v SAVE)"
stop_server v
python3 - "$WORK/v/dump.rdb" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[data.index(b"TLBFREDS") + 8] = 3  # the format version, little-endian u32 after the magic
open(sys.argv[1], "wb").write(data)
EOF
status=0
timeout 60 "${SERVER_ENV[@]}" redis-server --port "$(free_port)" --bind 127.0.0.1 --dir "$WORK/v" \
  --logfile "$WORK/v/refused.log" --loadmodule "$TLBF_REDIS_MODULE" 2>>"$WORK/v/stderr" || status=$?
check "a newer value in the RDB stops the server from starting" 1 "$status"
check "and the log says why" 1 "$(grep -c 'TLBF: cannot load a filter: written by a newer tlbf_redis (format version 3' "$WORK/v/refused.log")"

check_alive r
check_alive a
finish
