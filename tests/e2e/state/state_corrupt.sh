#!/usr/bin/env bash
# A damaged state file (a flipped byte anywhere, a truncation, another file's contents, a newer
# format version) stops the program before it reads any input: exit 1, a message naming the
# file and the problem, nothing on stdout, and the file left exactly as it was.
# --state-reset then starts fresh.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

python3 "$GEN_EVENTS" --events 3000 --rate 100 --dup-window 10 --seed 5 > "$WORK/in.txt"
"$D" -k 3 -t 1 -w 10s -c 1000 -e 1e-3 --state "$WORK/good.state" "$WORK/in.txt" > /dev/null
size=$(stat -c %s "$WORK/good.state")
check "a state file was written" 1 "$([ "$size" -gt 32 ] && echo 1 || echo 0)"

# refused NAME: the prepared $WORK/bad.state must be refused, named, and left untouched.
refused() {
  local name=$1 status
  cp -p "$WORK/bad.state" "$WORK/bad.copy"
  touch -d '2001-02-03 04:05:06' "$WORK/bad.state" "$WORK/bad.copy"
  status=0
  "$D" -k 3 -t 1 --state "$WORK/bad.state" "$WORK/in.txt" > "$WORK/out" 2> "$WORK/err" || status=$?
  check "$name: exit 1" 1 "$status"
  check "$name: the message names the file" 1 "$(grep -q -F "$WORK/bad.state" "$WORK/err" && echo 1 || echo 0)"
  check "$name: nothing written to stdout" 0 "$(wc -c < "$WORK/out" | tr -d ' ')"
  check_files "$name: the file is unchanged" "$WORK/bad.copy" "$WORK/bad.state"
  check "$name: its mtime is unchanged" "$(stat -c %Y "$WORK/bad.copy")" "$(stat -c %Y "$WORK/bad.state")"
  # (the *.lock files are the runs' lock files, which are meant to stay: see docs/state.md)
  check "$name: no other file appeared" "bad.copy bad.state bad.state.lock err good.state good.state.lock in.txt out" "$(cd "$WORK" && echo *)"
  echo "     message: $(head -1 "$WORK/err")"
}

# flip OFFSET: the good state with the byte at OFFSET inverted.
flip() {
  cp "$WORK/good.state" "$WORK/bad.state"
  local byte
  byte=$(od -An -tu1 -j "$1" -N1 "$WORK/good.state" | tr -d ' ')
  printf "$(printf '\\%03o' $((byte ^ 255)))" | dd of="$WORK/bad.state" bs=1 seek="$1" conv=notrunc status=none
}

for offset in 0 7 8 12 16 24 30 $((size / 2)) $((size - 9)) $((size - 1)); do
  flip "$offset"
  refused "byte $offset flipped"
done
for keep in 0 5 20 31 $((size / 2)) $((size - 1)); do
  head -c "$keep" "$WORK/good.state" > "$WORK/bad.state"
  refused "truncated to $keep bytes"
done
cp "$TESTDATA/sample_access.log" "$WORK/bad.state"
refused "an access log"
head -c 4096 /dev/urandom > "$WORK/bad.state"
refused "random bytes"
# The same state with the format version raised: a newer program wrote it.
cp "$WORK/good.state" "$WORK/bad.state"
printf '\377' | dd of="$WORK/bad.state" bs=1 seek=8 conv=notrunc status=none
refused "a newer format version"
check "the newer version is called so" 1 "$(grep -q 'newer' "$WORK/err" && echo 1 || echo 0)"

# --state-reset ignores the damaged file and replaces it with a good one.
status=0
"$D" -k 3 -t 1 -w 10s --state "$WORK/bad.state" --state-reset "$WORK/in.txt" > "$WORK/out" 2> "$WORK/err" || status=$?
check "--state-reset over a damaged file: exit 0" 0 "$status"
status=0
"$D" -k 3 -t 1 --state "$WORK/bad.state" < /dev/null > /dev/null || status=$?
check "the state written after --state-reset loads" 0 "$status"
finish
