#!/usr/bin/env bash
# A state file knows what its keys and times were made of: a later run that gives other key
# or time options (-k, --key-regex, -d, -i, -t, --time-format) is refused with exit 2 naming
# the difference, one that gives none continues with the recorded ones (and says so), and --state-reset
# starts over. The state also keeps its hash seed.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
st="$WORK/s.state"
printf 'a 1600000000\nb 1600000000\n' > "$WORK/in"
printf 'a 1600000001\nA 1600000001\nc 1600000001\n' > "$WORK/more"

"$D" -k 1 -t 2 -w 1h --state "$st" "$WORK/in" > /dev/null

# refused NAME EXPECTED_MESSAGE ARGS...: exit 2, the message, nothing emitted, state untouched.
refused() {
  local name=$1 msg=$2 status
  shift 2
  cp "$st" "$WORK/before"
  "$D" "$@" --state "$st" "$WORK/more" > "$WORK/out" 2> "$WORK/err" && status=0 || status=$?
  check "$name: exit 2" 2 "$status"
  check "$name: the message names the difference" 1 "$(grep -qF -- "$msg" "$WORK/err" && echo 1 || echo 0)"
  check "$name: nothing emitted" "" "$(cat "$WORK/out")"
  check_files "$name: the state is untouched" "$WORK/before" "$st"
}
refused "other key field" "--key '2' differs from the state file $st (made with --key '1' --time '2')" -k 2
refused "a key regex instead" "--key-regex '^(.)' differs" --key-regex '^(.)'
refused "case folding added" "--ignore-case differs" -i
refused "another delimiter" "--delimiter ',' differs" -d ,
refused "another time field" "--time '1' differs" -t 1
refused "a time format added" "--time-format 'epoch' differs" -t 2 --time-format epoch

# A state made with the wall clock refuses an event-time run, and says what it was made with.
"$D" -w 1h --state "$WORK/wall.state" "$WORK/in" > /dev/null
st="$WORK/wall.state"
refused "event time on a wall-clock state" "(made with whole-record keys, times from the wall clock)" -k 1 -t 2
st="$WORK/s.state"

# Giving none of them continues with the recorded ones: key field 1, time field 2.
check "no options: the recorded key and time are used" "A 1600000001
c 1600000001" "$("$D" --state "$st" "$WORK/more")"
# ... and says so on stderr, once (not silently, not under -q, not when they are given).
echo 'd 1600000002' | "$D" --state "$st" 2> "$WORK/notice" > /dev/null
check "no options: stderr names the options the state gives" \
  "tlbf-dedup: warning: the state file $st gives --key=1 --time=2 (as the run that made it)" "$(cat "$WORK/notice")"
check "... not under -q" "" "$(echo 'd 1600000002' | "$D" -q --state "$st" 2>&1 > /dev/null)"
# The same options again are accepted, without the notice.
check "the same options: accepted" "" "$(echo 'c 1600000002' | "$D" -k 1 -t 2 --state "$st" 2> "$WORK/notice")"
check "... and nothing said" "" "$(cat "$WORK/notice")"
# --state-reset starts over with the new options.
check "--state-reset: other options accepted, window empty" "a 1600000001" \
  "$(echo 'a 1600000001' | "$D" -k 2 --state "$st" --state-reset)"
refused "after a reset, the new options are recorded" "--key '1' differs from the state file $st (made with --key '2', times from the wall clock)" -k 1

# The hash seed is the state's: a later run hashes with it whatever TLBF_DEDUP_HASH_SEED says
# (a new seed would make every remembered key look new).
seq 1 1000 > "$WORK/keys"
TLBF_DEDUP_HASH_SEED=0x1234 "$D" -w 1h --state "$WORK/seed.state" "$WORK/keys" > /dev/null
check "seed: a later run without the variable remembers every key" 0 \
  "$("$D" --state "$WORK/seed.state" "$WORK/keys" | wc -l)"
check "seed: a later run with another seed in the variable too" 0 \
  "$(TLBF_DEDUP_HASH_SEED=99 "$D" --state "$WORK/seed.state" "$WORK/keys" | wc -l)"
TLBF_DEDUP_HASH_SEED=0x-1 "$D" -w 1h "$WORK/keys" > /dev/null 2> "$WORK/seed.err" && status=0 || status=$?
check "seed: a malformed variable is an error" 1 "$status"
check "seed: its message names the variable" 1 "$(grep -q "TLBF_DEDUP_HASH_SEED '0x-1'" "$WORK/seed.err" && echo 1 || echo 0)"
finish
