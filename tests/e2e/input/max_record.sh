#!/usr/bin/env bash
# --max-record is one limit, exact, on every kind of input: a regular file, a pipe, gzip and
# zstd, lines and multi-line records; a record of exactly the limit passes, one byte more is an
# input error (exit 1) after the records before it; memory stays near the limit.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
# An address-space bound, except under the sanitizers (TLBF_SANITIZED), whose shadow memory
# takes terabytes of it; ASan's allocator stops an absurd allocation by itself.
vmem() { if [ -n "${TLBF_SANITIZED:-}" ]; then echo unlimited; else echo "$1"; fi; }

# The issue's file: one line of 8,000,000 bytes.
python3 -c 'import sys; sys.stdout.write("y" * 8000000 + "\n")' > "$WORK/big.txt"
status=0
"$D" --max-record 4M "$WORK/big.txt" > "$WORK/big.out" 2> "$WORK/big.err" || status=$?
check "a regular file over --max-record 4M: exit 1, nothing written" "1 0" "$status $(wc -c < "$WORK/big.out")"
check "the message names the file and the record" 1 \
  "$(grep -c 'big.txt: record 1 is longer than --max-record 4M' "$WORK/big.err")"

# Exact, on each kind of input: 1000 bytes pass (with LF, with CR LF, without a terminator),
# 1001 do not; a short record before it is written first.
python3 - "$WORK" <<'PY'
import sys
w = sys.argv[1]
for name, data in {
    "fit.lf": b"a\n" + b"x" * 1000 + b"\n",
    "fit.crlf": b"a\r\n" + b"x" * 1000 + b"\r\n",
    "fit.last": b"a\n" + b"x" * 1000,
    "over.lf": b"a\n" + b"x" * 1001 + b"\n",
    "over.crlf": b"a\r\n" + b"x" * 1001 + b"\r\n",
    "over.last": b"a\n" + b"x" * 1001,
}.items():
    open(f"{w}/{name}", "wb").write(data)
PY
for f in fit.lf fit.crlf fit.last over.lf over.crlf over.last; do
  gzip -c "$WORK/$f" > "$WORK/$f.gz"
  zstd -q -c "$WORK/$f" > "$WORK/$f.zst"
done
for f in fit.lf fit.crlf fit.last; do
  for input in "$f" "$f.gz" "$f.zst"; do
    status=0
    "$D" --max-record 1000 "$WORK/$input" > "$WORK/out" 2> /dev/null || status=$?
    check "$input: a record of exactly --max-record passes (file)" "0 1" "$status $(cmp -s "$WORK/$f" "$WORK/out" && echo 1)"
    status=0
    "$D" --max-record 1000 < "$WORK/$input" > "$WORK/out" 2> /dev/null || status=$?
    check "$input: a record of exactly --max-record passes (pipe)" "0 1" "$status $(cmp -s "$WORK/$f" "$WORK/out" && echo 1)"
  done
done
for f in over.lf over.crlf over.last; do
  for input in "$f" "$f.gz" "$f.zst"; do
    status=0
    "$D" --max-record 1000 "$WORK/$input" > "$WORK/out" 2> "$WORK/err" || status=$?
    check "$input: one byte over --max-record is exit 1 after record 1 (file)" "1 1 1" \
      "$status $(grep -c 'record 2 is longer than --max-record 1000 bytes' "$WORK/err") $(grep -c '^a' "$WORK/out")"
    status=0
    "$D" --max-record 1000 < "$WORK/$input" > "$WORK/out" 2> "$WORK/err" || status=$?
    check "$input: one byte over --max-record is exit 1 after record 1 (pipe)" "1 1 1" \
      "$status $(grep -c 'record 2 is longer than --max-record 1000 bytes' "$WORK/err") $(grep -c '^a' "$WORK/out")"
  done
done

# Multi-line records: the record's bytes without its last terminator.
printf 'A 1\n%s\n%s\nA 2\n' "$(printf 'y%.0s' $(seq 500))" "$(printf 'y%.0s' $(seq 495))" > "$WORK/ml"
size=$(($(head -3 "$WORK/ml" | wc -c) - 1))
check "the multi-line record is 1000 bytes" 1000 "$size"
check "--multiline: a record of exactly --max-record passes" 2 \
  "$("$D" --multiline '^A' --max-record 1000 "$WORK/ml" | grep -c '^A')"
status=0
"$D" --multiline '^A' --max-record 999 "$WORK/ml" > /dev/null 2> "$WORK/err" || status=$?
check "--multiline: one byte over is exit 1" "1 1" "$status $(grep -c 'record 1 is longer than --max-record 999' "$WORK/err")"

# The default 64M holds for a regular file too: a 100 MB line is refused, in bounded memory
# (the reader's buffer never grows past the limit).
python3 -c 'import sys; sys.stdout.write("y" * 100000000 + "\n")' > "$WORK/100m.txt"
status=0
(ulimit -v "$(vmem 400000)" && "$D" "$WORK/100m.txt" > "$WORK/out" 2> "$WORK/err") || status=$?
check "a 100 MB line, default --max-record 64M: exit 1, nothing written" "1 0" "$status $(wc -c < "$WORK/out")"
check "a 100 MB line: the message says why" 1 "$(grep -c 'record 1 is longer than --max-record 64M' "$WORK/err")"
rm -f "$WORK/100m.txt"

# A gzip of zeros (no terminator ever): the run stops at the limit with the buffer at most
# about the limit (measured: peak RSS under limit + 16 MB).
head -c 300000000 /dev/zero | gzip -1 > "$WORK/zeros.gz"
for input in file pipe; do
  status=0
  if [ "$input" = file ]; then
    /usr/bin/time -f '%M' -o "$WORK/rss" "$D" --max-record 32M "$WORK/zeros.gz" > /dev/null 2> "$WORK/err" || status=$?
  else
    /usr/bin/time -f '%M' -o "$WORK/rss" "$D" --max-record 32M < "$WORK/zeros.gz" > /dev/null 2> "$WORK/err" || status=$?
  fi
  rss=$(tail -1 "$WORK/rss")
  check "gzip of zeros ($input): exit 1 at --max-record 32M" "1 1" \
    "$status $(grep -c 'record 1 is longer than --max-record 32M' "$WORK/err")"
  echo "     peak RSS ${rss} KB"
  # Under ASan a realloc() copies, and freed memory waits in its quarantine.
  limit=$([ -n "${TLBF_SANITIZED:-}" ] && echo $((3 * 32 + 256)) || echo $((32 + 16)))
  check "gzip of zeros ($input): peak RSS under ${limit}M" 1 "$((rss < limit * 1024 ? 1 : 0))"
done
# Auto mode: an input that starts with more blank lines than a record may hold is lines, not
# one record too long (issue 52, item 9): 65 MiB of newlines, then a record.
status=0
{ head -c $((65 << 20)) /dev/zero | tr '\0' '\n'; echo 'a b'; echo 'a c'; } | "$D" -k 1 > "$WORK/blanks.out" 2> "$WORK/blanks.err" || status=$?
check "65 MiB of blank lines first: exit 0, no --max-record error" "0 0" "$status $(grep -c 'max-record' "$WORK/blanks.err" || true)"
check "... the blank lines and the first record are written" "a b" "$(grep -v '^$' "$WORK/blanks.out")"
# ... and memory stays small however many blank (or, with -z, empty) records come first:
# at most a batch of them is held until a record with content decides the format (issue 52,
# W14: a million were held, some 200 MB).
seq 1 2000000 | tr -d '0-9' > "$WORK/blank.txt"
head -c 2000000 /dev/zero > "$WORK/nul.bin"
for input in blank.txt nul.bin; do
  z=$([ "$input" = nul.bin ] && echo -z || true)
  /usr/bin/time -f '%M' -o "$WORK/rss" "$D" $z "$WORK/$input" > /dev/null
  rss=$(tail -1 "$WORK/rss")
  echo "     peak RSS ${rss} KB"
  limit=$([ -n "${TLBF_SANITIZED:-}" ] && echo 256 || echo 64)
  check "2,000,000 blank records ($input), auto mode: peak RSS under ${limit}M" 1 "$((rss < limit * 1024 ? 1 : 0))"
done
finish
