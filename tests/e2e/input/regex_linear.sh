#!/usr/bin/env bash
# --multiline and --key-regex match in time linear in the line (RE2): a backreference, which
# no such matcher has, is a usage error naming it; patterns that take a backtracking matcher
# exponential time run at once in bounded memory; a stop signal is honoured at once; the
# documented syntax (POSIX extended, \d) keeps working.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
# An address-space bound, except under the sanitizers (TLBF_SANITIZED), whose shadow memory
# takes terabytes of it; ASan's allocator stops an absurd allocation by itself.
vmem() { if [ -n "${TLBF_SANITIZED:-}" ]; then echo unlimited; else echo "$1"; fi; }
# Time bounds, with room for the sanitizers' slower start and exit.
slowdown=$([ -n "${TLBF_SANITIZED:-}" ] && echo 4 || echo 1)

# The issue's run: 400 a's and a pattern with backreferences, under `timeout 2`.
python3 -c 'print("a" * 400)' > "$WORK/p.txt"
start=$(date +%s%N)
status=0
timeout -k 3 2 "$D" --multiline '^(.*)(.*)\2\1x' "$WORK/p.txt" > "$WORK/out" 2> "$WORK/err" || status=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "--multiline with backreferences: a usage error" 2 "$status"
check "the message names the backreference" 1 "$(grep -c "\-\-multiline '^(.\*)(.\*)\\\\2\\\\1x': \\\\2: backreferences are not supported" "$WORK/err")"
check "at once (under 1 s; took ${ms} ms)" 1 "$((ms < 1000 * slowdown ? 1 : 0))"
check_usage_error "--key-regex with a backreference" "--key-regex '(a)\1': \1: backreferences are not supported" \
  "$D" --key-regex '(a)\1' "$WORK/p.txt"
check_usage_error "\\< is refused by name" "\\< is not supported" "$D" --key-regex '\<a' "$WORK/p.txt"
check_usage_error "[[=a=]] is refused by name" "equivalence classes" "$D" --multiline '[[=a=]]' "$WORK/p.txt"

# Without the backreferences, and other patterns a backtracking matcher takes exponential or
# polynomial time over: a line of 2,000,000 a's, each run bounded in time and memory.
python3 -c 'print("a" * 2000000); print("b")' > "$WORK/long.txt"
for re in '^(.*)(.*)x' '^(a|aa)*b' '^(a*)*$x' '(.*a){20}x'; do
  for option in --multiline --key-regex; do
    start=$(date +%s%N)
    status=0
    (ulimit -v "$(vmem 1000000)" && timeout -k 1 $((5 * slowdown)) "$D" -q --on-error pass "$option" "$re" "$WORK/long.txt" > "$WORK/out") || status=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    check "$option '$re' over 2 MB of a's: exit 0 in under 2 s (${ms} ms)" "0 1" "$status $((ms < 2000 * slowdown ? 1 : 0))"
  done
done

# A stop signal during a long run over many lines ends it within a second, state saved.
python3 -c '
import sys
line = "a" * 5000 + "\n"
sys.stdout.write("".join(str(i) + " " + line for i in range(40000)))' > "$WORK/many.txt"
for option in --multiline --key-regex; do
  "$D" -q "$option" '^[0-9]+ (a|aa)*$' --state "$WORK/s$option.state" "$WORK/many.txt" "$WORK/many.txt" \
    "$WORK/many.txt" "$WORK/many.txt" "$WORK/many.txt" > /dev/null &
  pid=$!
  sleep 0.5
  kill -TERM "$pid" || true
  start=$(date +%s%N)
  wait_bounded "$pid" $((50 * slowdown))
  ms=$((($(date +%s%N) - start) / 1000000))
  check "$option: SIGTERM mid-run ends it with 143 within a second (${ms} ms)" "143 1" "$status $((ms < 1000 * slowdown ? 1 : 0))"
  check "$option: the state was saved" yes "$([ -s "$WORK/s$option.state" ] && echo yes || echo no)"
done

# The documented syntax: POSIX extended with \d, ^ and $ at the line's ends, brackets and
# classes, alternation, -i with --key-regex.
printf '2024-01-01 a\n  at x\n[b] y\n2024-01-02 a\n' > "$WORK/doc.log"
check "--multiline '^\\d{4}-': two records" 2 "$("$D" --multiline '^\d{4}-' -k 1 "$WORK/doc.log" | grep -c '^2024')"
check "--multiline '^\\[' starts a record at a bracket" 4 "$("$D" --multiline '^(\[|[[:digit:]]{4}-)' "$WORK/doc.log" | wc -l)"
printf 'GET /a?id=7 x\nget /b?ID=7 y\nGET /c?id=8 z\n' > "$WORK/re.txt"
check "--key-regex 'id=([0-9]+)' -i: group 1, case folded" 2 "$("$D" -i --key-regex 'id=([0-9]+)' "$WORK/re.txt" | wc -l)"
check "--key-regex without a group: the whole, longest match" 3 "$("$D" -q --key-regex 'GET|GET /[a-z]' "$WORK/re.txt" | wc -l)"
finish
