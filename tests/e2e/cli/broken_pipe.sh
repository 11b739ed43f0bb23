#!/usr/bin/env bash
# A reader downstream that closes the pipe ends the program quietly: status 0, no stderr
# except the --stats summary when it was asked for.
source "$(dirname "$0")/../lib.bash"
seq 1 3000000 > "$WORK/big.in"
set +o pipefail
"$TLBF_DEDUP" "$WORK/big.in" 2> "$WORK/err" | head -1 > "$WORK/first"
status=${PIPESTATUS[0]}
set -o pipefail
check "status 0 after head closed the pipe" 0 "$status"
check "nothing on stderr" "" "$(cat "$WORK/err")"
check "head got the first record" 1 "$(cat "$WORK/first")"

# The same while reading a pipe that keeps producing (the write fails, not the read).
set +o pipefail
seq 1 3000000 | "$TLBF_DEDUP" --stats 2> "$WORK/err2" | head -2 > /dev/null
status=${PIPESTATUS[1]}
set -o pipefail
check "status 0 from a pipe" 0 "$status"
check "--stats is printed all the same" 1 "$(grep -c '^records ' "$WORK/err2")"
check "and nothing else" 0 "$(grep -vc -e '^[a-z][a-z ]* ' "$WORK/err2" || true)"
check "it counts the records decided before the pipe closed" 1 \
  "$(awk '/^records / { print ($2 >= 2 && $2 <= 3000000) }' "$WORK/err2")"
finish
