#!/usr/bin/env bash
# No client can make the module allocate more than its memory limit: MAX_FILTER_MEMORY (a
# module argument, 64 MiB here) or the server's maxmemory when lower. A RESERVE over it is
# refused with a message naming the limit, before anything is allocated, and the server stays
# up; a default MAXMEMORY is lowered to it; a filter reserved for many keys starts small and
# grows as they come; TLBF.LOADCHUNK holds a client's value to the same limit. The servers run
# under a 1 GiB address-space limit, so a regression gets "out of memory" rather than the
# machine's memory.
source "$(dirname "$0")/../redis_lib.bash"

LIMIT=$((64 << 20))
VMEM_KB=$((1 << 20))
MODULE_ARGS=(MAX_FILTER_MEMORY "$LIMIT")
start_server s --maxmemory 512mb --rdbcompression no
info() { rc s TLBF.INFO "$1" | paste - - | awk -v f="$2" '$1 == f { print $2 }'; }
E="ERR TLBF:"

# 1. The RESERVEs that took the server down, both values inside the documented ranges.
check "MAXMEMORY over the limit is refused" \
  "$E MAXMEMORY 1099511627776 is over the limit of 67108864 bytes per filter (the module's MAX_FILTER_MEMORY)" \
  "$(rc s TLBF.RESERVE k WINDOW 1000 ERROR 0.01 CAPACITY 281474976710656 MAXMEMORY 1099511627776)"
check "a CAPACITY whose filter needs 70 TB is refused" \
  "$E CAPACITY 281474976710656 needs more than MAXMEMORY 67108864 bytes (70368744177664 bytes); raise MAXMEMORY or lower CAPACITY" \
  "$(rc s TLBF.RESERVE k WINDOW 1000 ERROR 0.01 CAPACITY 281474976710656)"
check "so is one that needs 2.83 GB" \
  "$E CAPACITY 1000000000 needs more than MAXMEMORY 67108864 bytes (2825640448 bytes); raise MAXMEMORY or lower CAPACITY" \
  "$(rc s TLBF.RESERVE k WINDOW 1000 ERROR 0.01 CAPACITY 1000000000)"
check "gebf alike" yes \
  "$(rc s TLBF.RESERVE k WINDOW 1000 ERROR 0.01 CAPACITY 281474976710656 ALGORITHM gebf | grep -q 'needs more than MAXMEMORY' && echo yes)"
check "MAXMEMORY one byte over the limit is refused" \
  "$E MAXMEMORY 67108865 is over the limit of 67108864 bytes per filter (the module's MAX_FILTER_MEMORY)" \
  "$(rc s TLBF.RESERVE k WINDOW 1000 ERROR 0.01 CAPACITY 10 MAXMEMORY $((LIMIT + 1)))"
check "nothing was created" 0 "$(rc s EXISTS k)"
check_alive s

# 2. Within the limit: a MAXMEMORY at the limit is accepted, a default one is lowered to it,
# and a filter for 10^7 keys (28.3 MB at 1e-2) starts within 8 MiB and grows as keys arrive.
check "MAXMEMORY at the limit" OK "$(rc s TLBF.RESERVE at WINDOW 60000 ERROR 0.01 CAPACITY 1000 MAXMEMORY $LIMIT)"
check "RESERVE for 10^7 keys" OK "$(rc s TLBF.RESERVE big WINDOW 600000 ERROR 0.01 CAPACITY 10000000)"
check "its default MAXMEMORY is the limit" "$LIMIT" "$(info big max_memory)"
check "it starts within 8 MiB, not 28.3 MB" yes "$([ "$(info big bits_allocated)" -le $((8 << 23)) ] && echo yes)"
fill s big 0 20000
check "and decides" "20000 0" "$(info big keys_inserted) $(rc s TLBF.ADD big TIME "$T0" item-7)"
# A small filter is built for its whole capacity: its k first slices at the size the window
# needs (the other l are added as the window fills).
check "a small filter is built whole" "$(info at slice0_bits)" "$(($(info at bits_allocated) / $(info at k)))"

# 3. The server's maxmemory, when lower, is the limit; CONFIG SET applies to the next RESERVE.
check "CONFIG SET maxmemory 16mb" OK "$(rc s CONFIG SET maxmemory 16mb)"
check "over maxmemory is refused naming it" \
  "$E MAXMEMORY 33554432 is over the limit of 16777216 bytes per filter (the server's maxmemory)" \
  "$(rc s TLBF.RESERVE m WINDOW 1000 ERROR 0.01 CAPACITY 10 MAXMEMORY 33554432)"
check "a default MAXMEMORY is maxmemory" "OK 16777216" \
  "$(rc s TLBF.RESERVE m WINDOW 1000 ERROR 0.01 CAPACITY 10) $(info m max_memory)"
check "maxmemory 0 (none) gives MAX_FILTER_MEMORY back" "OK OK $LIMIT" \
  "$(rc s CONFIG SET maxmemory 0) $(rc s TLBF.RESERVE m2 WINDOW 1000 ERROR 0.01 CAPACITY 10) $(info m2 max_memory)"

# 4. TLBF.LOADCHUNK holds a client's value to the limit: no total over it is taken, and a
# value reserved elsewhere with a larger MAXMEMORY is refused.
check "a LOADCHUNK total over the limit" \
  "$E a value of 1099511627776 bytes is more than a filter within the limit of 67108864 bytes per filter (the module's MAX_FILTER_MEMORY) takes" \
  "$(rc s TLBF.LOADCHUNK n 0 1099511627776 abc)"
MODULE_ARGS=()
start_server wide --rdbcompression no
check "a server with the default limit takes MAXMEMORY 128 MiB" OK \
  "$(rc wide TLBF.RESERVE x WINDOW 1000 ERROR 0.01 CAPACITY 10 MAXMEMORY 134217728)"
python3 - "${PORT[wide]}" "${PORT[s]}" >"$WORK/loadchunk" <<'EOF'
import sys
from redis_resp import Client
dump = Client(int(sys.argv[1])).call("DUMP", "x")
value = dump[dump.index(b"TLBFREDS"):-11]  # the RDB string, before the EOF opcode, version and CRC
c = Client(int(sys.argv[2]))
print(c.call("TLBF.LOADCHUNK", "x", 0, len(value), value))
print(c.call("EXISTS", "x"))
EOF
check "its value is refused by LOADCHUNK under 64 MiB" \
  "$E MAXMEMORY 134217728 is over the limit of 67108864 bytes per filter (the module's MAX_FILTER_MEMORY)" \
  "$(sed -n 1p "$WORK/loadchunk")"
check "and creates nothing" 0 "$(sed -n 2p "$WORK/loadchunk")"

# 5. A bad module argument stops the server from starting, and its log says why.
status=0
timeout 60 "${SERVER_ENV[@]}" redis-server --port "$(free_port)" --bind 127.0.0.1 --dir "$WORK/s" \
  --logfile "$WORK/s/refused.log" --loadmodule "$TLBF_REDIS_MODULE" MAX_FILTER_MEMORY 1gb 2>>"$WORK/s/stderr" || status=$?
check "MAX_FILTER_MEMORY 1gb stops the server" 1 "$status"
check "and the log says why" 1 \
  "$(grep -c "MAX_FILTER_MEMORY must be a whole number of bytes in \[4096, 1099511627776\], got '1gb'" "$WORK/s/refused.log")"

# 6. All along, the server held little memory.
peak=$(peak_rss_kb s)
check "the server's peak memory stayed under 256 MiB" yes "$([ "$peak" -lt $((256 << 10)) ] && echo yes || echo "no: $peak KiB")"
check_alive s
check_alive wide
finish
