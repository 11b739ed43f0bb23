#!/usr/bin/env bash
# A JSON key nested deeper than 1024 arrays and objects is unreadable, not a crash: the record
# has no key (--on-error decides; the warning names the file, the record, the -k and the
# depth) and every other record is judged as usual. Nesting outside the key costs nothing.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
nest() { python3 -c 'import sys; n = int(sys.argv[1]); print("[" * n + "]" * n)' "$1"; }
objects() { python3 -c 'import sys; n = int(sys.argv[1]); print("{\"a\":" * n + "1" + "}" * n)' "$1"; }
deep=$(nest 50000)

# The issue's file: a normal record, then one whose key is 50,000 arrays deep; and 1,000 normal
# records before it, with a repeat after it, so that the decisions around it show.
printf '{"id":1}\n{"id":%s}\n' "$deep" > "$WORK/deep.ndjson"
status=0
"$D" -k id "$WORK/deep.ndjson" > "$WORK/deep.out" 2> "$WORK/deep.err" || status=$?
check "a key 50,000 arrays deep: exit 0" 0 "$status"
check_files "a key 50,000 arrays deep: passed through as unkeyed (--on-error pass)" "$WORK/deep.ndjson" "$WORK/deep.out"
check "the warning names the file, the record, the -k and the depth" 1 \
  "$(grep -c "deep.ndjson: record 2: the key (-k id) nests arrays and objects deeper than 1024 levels" "$WORK/deep.err")"
check "the summary counts it as a record without a key" 1 "$(grep -c '1 record(s) had no key' "$WORK/deep.err")"

{
  for i in $(seq 1000); do echo "{\"id\":$i}"; done
  printf '{"id":%s}\n' "$deep"
  for i in $(seq 990 1010); do echo "{\"id\":$i}"; done
} > "$WORK/around.ndjson"
for threads in 1 2; do
  status=0
  "$D" -k id -q --threads "$threads" --state "$WORK/around$threads.state" "$WORK/around.ndjson" \
    > "$WORK/around.out" 2> "$WORK/around.err" || status=$?
  check "--threads $threads: exit 0" 0 "$status"
  check "--threads $threads: 1,000 records, the deep one, then the 10 new ids" 1011 "$(wc -l < "$WORK/around.out")"
  check "--threads $threads: the state was saved" yes "$([ -s "$WORK/around$threads.state" ] && echo yes || echo no)"
done

# Objects as deep as arrays, stdin, --on-error drop and fail, --explain, --mask, -a exact.
printf '{"id":1}\n{"id":%s}\n' "$(objects 50000)" > "$WORK/objects.ndjson"
check "objects 50,000 deep: passed through" 2 "$("$D" -k id -q < "$WORK/objects.ndjson" | wc -l)"
check "--on-error drop: dropped" 1 "$("$D" -k id -q --on-error drop "$WORK/deep.ndjson" | wc -l)"
status=0
"$D" -k id --on-error fail "$WORK/deep.ndjson" > /dev/null 2> "$WORK/fail.err" || status=$?
check "--on-error fail: exit 1 naming the record and the depth" "1 1" \
  "$status $(grep -c 'record 2: the key (-k id) nests arrays and objects deeper than 1024 levels' "$WORK/fail.err")"
check "--explain: the record is an error" 1 "$("$D" -k id -q --explain "$WORK/deep.ndjson" | grep -c ':2	-	.*error$')"
check "--mask numbers: passed through" 2 "$("$D" -k id -q --mask numbers "$WORK/deep.ndjson" | wc -l)"
check "-a exact: passed through" 2 "$("$D" -k id -q -a exact "$WORK/deep.ndjson" | wc -l)"
check "a composite key names the part" 1 \
  "$("$D" -k id -k x --missing null "$WORK/deep.ndjson" 2>&1 > /dev/null | grep -c "key part 1 (-k id) nests")"

# The limit: 1024 levels are a key (two equal records are one), 1025 are not.
printf '{"id":%s}\n{"id":%s}\n' "$(nest 1024)" "$(nest 1024)" > "$WORK/1024.ndjson"
printf '{"id":%s}\n{"id":%s}\n' "$(nest 1025)" "$(nest 1025)" > "$WORK/1025.ndjson"
check "1024 levels: a key" 1 "$("$D" -k id -q "$WORK/1024.ndjson" | wc -l)"
check "1025 levels: no key" 2 "$("$D" -k id -q "$WORK/1025.ndjson" | wc -l)"

# Deep nesting beside the key is skipped, not read: the key is found after it.
printf '{"x":%s,"id":1}\n{"id":1}\n' "$deep" > "$WORK/beside.ndjson"
check "nesting beside the key: the repeat of id 1 is dropped" 1 "$("$D" -k id "$WORK/beside.ndjson" 2> /dev/null | wc -l)"

# A small stack does not change the outcome: nested values are walked without recursion.
printf '{"id":%s}\n' "$(objects 1024)" > "$WORK/1024objects.ndjson"
for input in deep.ndjson 1024objects.ndjson; do
  status=0
  (ulimit -s 256 && "$D" -k id -q --threads 1 "$WORK/$input" > /dev/null) || status=$?
  check "ulimit -s 256, $input: exit 0" 0 "$status"
done

# Memory: an 8 MB record of 4,000,000 levels is indexed once, its warning's reasons found by a
# scan, not by a parser as deep as the record (issue 52, W14: once 23 bytes a byte, 190 MB).
python3 -c "import sys; sys.stdout.write('{\"a\":' + '[' * 4000000 + ']' * 4000000 + '}\\n')" > "$WORK/deep8.json"
/usr/bin/time -f '%M' -o "$WORK/rss" "$D" -k a "$WORK/deep8.json" > "$WORK/deep8.out" 2> "$WORK/deep8.err"
rss=$(tail -1 "$WORK/rss")
echo "     peak RSS ${rss} KB"
check "4,000,000 levels: passed through whole, said too deep" "1 1" \
  "$(cmp -s "$WORK/deep8.json" "$WORK/deep8.out" && echo 1) $(grep -c 'record 1: .* too deep' "$WORK/deep8.err")"
limit=$([ -n "${TLBF_SANITIZED:-}" ] && echo 400 || echo 96)
check "4,000,000 levels: peak RSS under ${limit}M" 1 "$((rss < limit * 1024 ? 1 : 0))"
finish
