#!/usr/bin/env bash
# Damage in a compressed input is reported at a compressed offset at or after it, with the
# start of its gzip member or zstd frame. Damage that only a member's (frame's) checksum finds
# comes after the member's decoded records, which are written, as documented: holding a whole
# member back until its checksum would take memory without bound.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

python3 -c '
import random
random.seed(7)
for i in range(5000):
    print(f"{i} {random.getrandbits(64):016x} " + "".join(random.choice("abcdef") for _ in range(20)))
' > "$WORK/l.txt"
zstd -q -c "$WORK/l.txt" > "$WORK/l.zst"
gzip -c "$WORK/l.txt" > "$WORK/l.gz"
# One byte flipped in the middle of each.
flip() { python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read()); n = len(b) // 2; b[n] ^= 0x55
open(sys.argv[2], "wb").write(b); print(n)' "$1" "$2"; }
zdamage=$(flip "$WORK/l.zst" "$WORK/bad.zst")
gdamage=$(flip "$WORK/l.gz" "$WORK/bad.gz")

offset_of() { sed -n 's/.*at or before compressed byte \([0-9]*\).*/\1/p' "$1" | head -1; }
for kind in zst gz; do
  damage=$([ $kind = zst ] && echo "$zdamage" || echo "$gdamage")
  unit=$([ $kind = zst ] && echo frame || echo member)
  status=0
  "$D" "$WORK/bad.$kind" > "$WORK/out" 2> "$WORK/err" || status=$?
  check "$kind, one byte flipped at $damage: exit 1" 1 "$status"
  offset=$(offset_of "$WORK/err")
  check "$kind: the offset reported ($offset) is at or after the damage" 1 "$((${offset:-0} >= damage ? 1 : 0))"
  check "$kind: the $unit is named by its start" 1 "$(grep -c "(in the $unit that starts at compressed byte 0)" "$WORK/err")"
  # The same after an intact first member (frame): the damaged one starts after it.
  cat "$WORK/l.$kind" "$WORK/bad.$kind" > "$WORK/two.$kind"
  status=0
  "$D" "$WORK/two.$kind" > "$WORK/out2" 2> "$WORK/err2" || status=$?
  first=$(stat -c %s "$WORK/l.$kind")
  offset=$(offset_of "$WORK/err2")
  check "$kind, two ${unit}s, the second damaged: exit 1" 1 "$status"
  check "$kind: the offset is at or after the damage in the second $unit" 1 "$((${offset:-0} >= first + damage ? 1 : 0))"
  check "$kind: the second $unit is named by its start" 1 \
    "$(grep -c "(in the $unit that starts at compressed byte $first)" "$WORK/err2")"
  check "$kind: the intact first $unit's records were written first" "$(cat "$WORK/l.txt")" "$(head -5000 "$WORK/out2")"
done

# An empty zstd frame, then one whose magic number was hit into a legacy format's (v0.5): libzstd
# fails and moves its output position over 256 KiB it never wrote, which went out as records.
printf '\x28\xb5\x2f\xfd\x20\x00\x01\x00\x00\x25\xb5\x2f\xfd\x20\x00\x01\x00\x00' > "$WORK/legacy.zst"
status=0
"$D" "$WORK/legacy.zst" > "$WORK/legacy.out" 2> "$WORK/legacy.err" || status=$?
check "a damaged legacy frame: exit 1, and no byte that was never decoded" "1 0" "$status $(wc -c < "$WORK/legacy.out")"
check "a damaged legacy frame: named by its start" 1 "$(grep -c '(in the frame that starts at compressed byte 9)' "$WORK/legacy.err")"

# A zstd frame whose checksum fails: its blocks are written first, as gzip's member is.
"$D" "$WORK/bad.zst" > "$WORK/zst.out" 2> /dev/null || true
check "zstd checksum failure: the frame's decoded records are written" 1 "$(($(wc -l < "$WORK/zst.out") > 4000 ? 1 : 0))"

# gzip's CRC: what the damaged member decoded is written, then the error; zcat does the same.
{ zcat "$WORK/bad.gz" 2> /dev/null || true; } | "$D" > "$WORK/zcat.out"
"$D" "$WORK/bad.gz" > "$WORK/bad.out" 2> /dev/null || true
check_files "gzip CRC failure: the member's decoded records, judged as zcat's output would be" \
  "$WORK/zcat.out" "$WORK/bad.out"
# gzip then zstd (or the reverse) in one input: not damage but two formats, said as such after
# the first part's records (once reported as "corrupt gzip data").
seq 1000 > "$WORK/a.txt"
seq 1001 1500 > "$WORK/b.txt"
for order in "gzip zstd" "zstd gzip"; do
  set -- $order
  { "$1" -q -c "$WORK/a.txt"; "$2" -q -c "$WORK/b.txt"; } > "$WORK/mixed"
  status=0
  "$D" "$WORK/mixed" > "$WORK/mixed.out" 2> "$WORK/mixed.err" || status=$?
  check "$1 then $2: exit 1 after the first part's records" "1 1000" "$status $(wc -l < "$WORK/mixed.out")"
  check "$1 then $2: said as two formats, not damage" 1 \
    "$(grep -c "$2 data follows the $1 data at compressed byte [0-9]*; one input holds one compression format" "$WORK/mixed.err")"
done
finish
