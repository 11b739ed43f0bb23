#!/usr/bin/env bash
# Compressed input: gzip (one member or several, as `cat a.gz b.gz` makes) and zstd files and
# stdin are read as their contents, recognised by their magic bytes, not their names; output
# stays plain. A truncated or corrupt archive is an error naming the file and the compressed
# byte offset (exit 1, as for an unreadable input), after everything decoded before the
# damage was decided and written.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
command -v gzip > /dev/null && command -v zstd > /dev/null || { echo "SKIP: gzip or zstd not installed"; exit 77; }

log="$TESTDATA/sample_access.log"
"$D" -k 1 "$log" > "$WORK/plain.out"
check "the plain run keeps some and drops some" 1 "$(( $(wc -l < "$WORK/plain.out") < $(wc -l < "$log") ? 1 : 0 ))"

gzip -c "$log" > "$WORK/log.gz"
"$D" -k 1 "$WORK/log.gz" > "$WORK/gz.out"
check_files "gzip file: the same output as the plain file" "$WORK/plain.out" "$WORK/gz.out"
"$D" -k 1 < "$WORK/log.gz" > "$WORK/stdin.out"
check_files "gzip on stdin (a regular file)" "$WORK/plain.out" "$WORK/stdin.out"
cat "$WORK/log.gz" | "$D" -k 1 > "$WORK/pipe.out"
check_files "gzip through a pipe" "$WORK/plain.out" "$WORK/pipe.out"
cp "$WORK/log.gz" "$WORK/named.txt"
check_files "detected by content, not name" "$WORK/plain.out" <("$D" -k 1 "$WORK/named.txt")

# Several members: the file split in two, each half compressed, the archives concatenated.
lines=$(wc -l < "$log")
head -n $((lines / 2)) "$log" | gzip -c > "$WORK/multi.gz"
tail -n +$((lines / 2 + 1)) "$log" | gzip -c >> "$WORK/multi.gz"
"$D" -k 1 "$WORK/multi.gz" > "$WORK/multi.out"
check_files "multi-member gzip: one stream" "$WORK/plain.out" "$WORK/multi.out"

zstd -q -c "$log" > "$WORK/log.zst"
check_files "zstd file" "$WORK/plain.out" <("$D" -k 1 "$WORK/log.zst")
{ head -n 10 "$log" | zstd -q -c; tail -n +11 "$log" | zstd -q -c; } | "$D" -k 1 > "$WORK/zpipe.out"
check_files "zstd frames one after another, through a pipe" "$WORK/plain.out" "$WORK/zpipe.out"

# Compressed and plain inputs in one run: each a stream of its own, as plain files are.
head -n 5 "$log" > "$WORK/head.log"
tail -n +6 "$log" | gzip -c > "$WORK/tail.gz"
check_files "a plain file then a gzip file" "$WORK/plain.out" <("$D" -k 1 "$WORK/head.log" "$WORK/tail.gz")

# Truncated: the first half of a gzip file of many records.
for i in $(seq 1 3000); do echo "$i key$((i % 1000)) payload $((i * 7919 % 104729))"; done > "$WORK/many.log"
gzip -c "$WORK/many.log" > "$WORK/many.gz"
size=$(stat -c %s "$WORK/many.gz")
head -c $((size / 2)) "$WORK/many.gz" > "$WORK/cut.gz"
status=0
"$D" -k 2 -a exact "$WORK/cut.gz" > "$WORK/cut.out" 2> "$WORK/cut.err" || status=$?
check "truncated gzip: exit 1" 1 "$status"
check "truncated gzip: the message names the file and the offset" 1 \
  "$(grep -c "cut.gz: truncated gzip data: the input ends inside a member at compressed byte $((size / 2))" "$WORK/cut.err")"
got=$(wc -l < "$WORK/cut.out")
check "truncated gzip: the records before the damage were written" 1 "$(( got > 500 ? 1 : 0 ))"
# What was written is what a run over the decodable part writes (zcat's own output, minus the
# partial last line, which is written without a newline: compare the complete lines).
{ zcat "$WORK/cut.gz" 2> /dev/null || true; } | head -n "$got" | "$D" -k 2 -a exact > "$WORK/cut.want"
check_files "truncated gzip: exactly the decisions of the intact part" "$WORK/cut.want" <(head -n "$got" "$WORK/cut.out")

# Corrupt: a damaged deflate block in the middle of the file.
cp "$WORK/many.gz" "$WORK/bad.gz"
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$WORK/bad.gz" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
status=0
"$D" -k 2 "$WORK/bad.gz" > "$WORK/bad.out" 2> "$WORK/bad.err" || status=$?
check "corrupt gzip: exit 1" 1 "$status"
check "corrupt gzip: the message names the file and says where" 1 "$(grep -c "bad.gz: corrupt gzip data at or before compressed byte [0-9]" "$WORK/bad.err")"
check "corrupt gzip: records before the damage were written" 1 "$(( $(wc -l < "$WORK/bad.out") > 100 ? 1 : 0 ))"

# A corrupt file is an input error like an unreadable one: the state is not saved.
"$D" -k 2 --state "$WORK/s.state" "$WORK/bad.gz" > /dev/null 2>&1 || true
check "corrupt gzip: no state saved" no "$([ -e "$WORK/s.state" ] && echo yes || echo no)"

# --progress: a compressed input's size is unknown, so rates only, no percentage.
"$D" -k 1 --progress "$WORK/log.gz" 2> "$WORK/progress.err" > /dev/null
check "--progress over gzip shows rates, no percentage" 0 "$(grep -c '%' "$WORK/progress.err" || true)"
finish
