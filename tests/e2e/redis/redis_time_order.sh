#!/usr/bin/env bash
# --redis with inputs merged by time and records held for --lateness: the decisions the shared
# filter answers later come back for records in time order, the same as for the sorted stream.
source "$(dirname "$0")/../redis_lib.bash"

start_server r
URL="redis://127.0.0.1:${PORT[r]}"
cd "$WORK"
python3 "$GEN_EVENTS" --events 6000 --rate 100 --dup-window 20 --seed 9 > sorted.log
split -d -n l/4 sorted.log piece.
python3 "$GEN_EVENTS" --events 6000 --rate 100 --dup-window 20 --seed 9 --displace 0.4:3 > shuffled.log

"$TLBF_DEDUP" -k 3 -t 1 -w 20s -e 1e-7 --redis "$URL" --redis-key sorted sorted.log > want.out
"$TLBF_DEDUP" -k 3 -t 1 -w 20s -e 1e-7 --redis "$URL" --redis-key merged piece.03 piece.01 piece.00 piece.02 > merged.out
check_files "--redis, four pieces merged: as the sorted file" want.out merged.out
"$TLBF_DEDUP" -k 3 -t 1 -w 20s -e 1e-7 --redis "$URL" --redis-key held --lateness 3s shuffled.log > held.out 2> held.err
check_files "--redis, --lateness 3s over a displaced stream: as the sorted file" want.out held.out
check "... quietly" "" "$(cat held.err)"
check "the local filter agrees" "$(md5sum < want.out)" "$("$TLBF_DEDUP" -k 3 -t 1 -w 20s -e 1e-7 sorted.log | md5sum)"
finish
