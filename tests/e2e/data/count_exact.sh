#!/usr/bin/env bash
# --count on the real-world files of ../shared/data against the exact reference of
# tests/e2e/count_reference.py: every file's lines counted whole (one window over the run,
# as sort | uniq -c counts them, in first-copy order), and time windows over the files' own
# timestamps (CLF, epoch seconds and milliseconds, RFC 3339 in JSON), late records included:
# every count, time, kept copy and the order exactly as the reference has them.
source "$(dirname "$0")/../lib.bash"
need_shared_data
S=$SHARED_DATA
D="$TLBF_DEDUP"
REF="$E2E_DIR/count_reference.py"

# reference NAME INPUT REFERENCE-OPTIONS -- PROGRAM-OPTIONS
reference() {
  local name=$1 input=$2 ref=() result
  shift 2
  while [ "$1" != -- ]; do ref+=("$1"); shift; done
  shift
  "$D" -q "$@" "$input" > "$WORK/$name.out"
  result=$(python3 "$REF" "${ref[@]}" --out "$WORK/$name.out" "$input")
  echo "     $name: $result"
  check "$name: as the reference" ok "${result%%:*}"
}

# 1. Whole lines, one window over the run: the counts of sort | uniq -c.
for f in "$S"/*.log "$S"/*.ndjson; do
  reference "whole $(basename "$f")" "$f" -- -f lines -w 3650d --count
done
check "whole lines: the counts are uniq -c's" "$(sort "$S/loghub_proxifier_2k.log" | uniq -c | awk '{ print $1 }' | sort -n | md5sum)" \
  "$("$D" -f lines -w 3650d --count "$S/loghub_proxifier_2k.log" | cut -d' ' -f1 | sort -n | md5sum)"

# 2. Time windows over the records' own times.
reference apache_clf "$S/apache_access_elastic.log" --key 1-3,6- --time 4,5 --window 60 -- -k 1-3,6- -t 4,5 -w 60s --count
reference bgl_epoch "$S/loghub_bgl_2k.log" --key 9- --time 2 --window 60 -- -k 9- -t 2 -w 60s --count
reference hpc_unsorted "$S/loghub_hpc_2k.log" --key 2-4 --time 5 --window 3600 --keep last -- \
  -k 2-4 -t 5 -w 1h --keep last --count
reference zeek_dns "$S/zeek_dns_wrccdc2018.ndjson" --json --key query --time ts --window 60 -- -k query -t ts -w 60s --count
reference zeek_notice "$S/zeek_notice_wrccdc2018.ndjson" --json --key id.orig_h --time ts --window 60 --refresh -- \
  -k id.orig_h -t ts -w 60s --refresh --count
reference nginx_ms "$S/nginxplus_status_elastic.ndjson" --json --key address --time timestamp --window 600 -- \
  -k address -t timestamp -w 10m --count
finish
