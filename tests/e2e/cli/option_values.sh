#!/usr/bin/env bash
# Option values that used to slip past their checks: a blank before a minus sign ("-n ' -3'"
# ran with a window of 2^64 - 3 keys), a value on a flag ("--refresh=no" turned refresh on),
# an empty value after '=' ("--state= FILE" took FILE as the state). Each is a usage error
# (exit 2) naming the option, and nothing is read or written.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"
seq 3 > in

check_usage_error "-n ' -3'" "-n/--window-count ' -3': expected a whole number > 0" timeout -k 1 5 "$D" -n " -3" in
check_usage_error "-c ' 7'" "-c/--capacity ' 7': expected a whole number > 0" "$D" -c " 7" in
check_usage_error "--top ' 5'" "--top ' 5': expected a whole number from 1 to" "$D" --top " 5" in
check_usage_error "--refresh=no" "--refresh=no: --refresh is a flag and takes no value" "$D" --refresh=no in
check_usage_error "--quiet=false" "--quiet=false: --quiet is a flag and takes no value" "$D" --quiet=false in
check_usage_error "--mark=" "--mark=NAME: the name is empty" "$D" --mark= in
check_usage_error "--state=" "--state: empty file name" "$D" --state= in
check "--state= took no file as the state" no "$([ -e in.lock ] && echo yes || echo no)"
check_usage_error "--window=" "-w/--window '': expected a duration > 0" "$D" --window= in
check_usage_error "--stats=" "--stats='': expected text or json" "$D" --stats= in

# What is right stays right.
check "-n 3" "$(seq 3)" "$("$D" -n 3 in)"
# A window of 10^14 keys: the filter's sizing once ran for hours, deaf to SIGTERM. Now the
# memory cap binds at once (apbf), or the value is refused as gebf and the state refuse it.
# (Under the sanitizers, the capped filter's memory takes seconds to map and poison.)
limit=$([ -n "${TLBF_SANITIZED:-}" ] && echo 60 || echo 8)
status=0
timeout -k 1 "$limit" "$D" -n 100000000000000 in > out 2> err || status=$?
check "-n 10^14: done at once, every record" "0 3" "$status $(wc -l < out)"
check_usage_error "-n 2^62 + 1" "is too large for apbf" timeout -k 1 "$limit" "$D" -n 4611686018427387905 in
# A filter larger than the process may take: a message naming the options, not a bare
# "std::bad_alloc" (under the sanitizers, whose shadow memory needs the address space, skipped).
if [ -z "${TLBF_SANITIZED:-}" ]; then
  status=0
  (ulimit -v 2000000 && "$D" -c 100000000000 --max-memory 1T in > out 2> err) || status=$?
  check "a filter that does not fit: exit 1, saying which" "1 1" \
    "$status $(grep -c 'the filter (-c 100000000000 keys a window with --max-memory .* bytes) does not fit' err)"
fi
check "--refresh" "$(seq 3)" "$("$D" --refresh in)"
check "--mark=seen" "new	1" "$("$D" --mark=seen in | head -1)"
check "after --, a word with '=' is a file" "$(seq 3)" "$(cp in ./--refresh=no && "$D" -- --refresh=no)"
finish
