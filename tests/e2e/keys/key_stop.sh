#!/usr/bin/env bash
# A key that none of the first 1000 records has stops the run with exit status 1 and writes
# nothing (the records read are held back, as for a run without a readable time), with advice
# fitted to the cause: jq's leading dot, the nearest member names, a wrapper's --records.
# --on-error (pass, drop or fail) keeps what it says; one record with a key is enough to go on.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# run NAME CMD...: runs CMD with stdin from $WORK/in, output in $WORK/NAME.out and .err, exit
# status in $status.
run() {
  local name=$1
  shift
  status=0
  "$@" < "$WORK/in" > "$WORK/$name.out" 2> "$WORK/$name.err" || status=$?
}

# The issue's reproduction: jq's habit, -k .id.
printf '{"ts":1,"id":"a"}\n{"ts":2,"id":"a"}\n' > "$WORK/in"
run dot "$D" -k .id -t ts
check "-k .id: exit 1" 1 "$status"
check "-k .id: nothing written" 0 "$(wc -c < "$WORK/dot.out")"
check "-k .id: the advice is -k id" 1 \
  "$(grep -c 'none of the 2 records has a key (the first, record 1 of (stdin): the key (-k .id) is absent; -k id reads it (a path is written without jq.s leading dot))' "$WORK/dot.err")"
check "-k .id: says how to go on, and that nothing was written" 1 \
  "$(grep -c 'give --on-error pass to pass records without a key through untouched. Nothing was written (the 2 records read were held back)$' "$WORK/dot.err")"
check "-k .id: the error comes last, no total of records passed" 1 \
  "$(tail -1 "$WORK/dot.err" | grep -c 'none of the 2 records' && ! grep -q 'had no key' "$WORK/dot.err")"
run fixed "$D" -k id -t ts
check "-k id, as advised: the duplicate dropped" '{"ts":1,"id":"a"}' "$(cat "$WORK/fixed.out")"
for action in pass drop fail; do
  run "on_$action" "$D" -k .id -t ts --on-error "$action"
  case $action in
    pass) want_status=0 want_lines=2 ;;
    drop) want_status=0 want_lines=0 ;;
    fail) want_status=1 want_lines=0 ;;
  esac
  check "--on-error $action: as before" "$want_status $want_lines" "$status $(wc -l < "$WORK/on_$action.out")"
done
run explain "$D" -k .id --explain
check "--explain shows the records, no stop" "0 3" "$status $(wc -l < "$WORK/explain.out")"

# A name that is nearly right: the nearest members.
printf '{"userId":"u1","user_name":"x"}\n{"userId":"u1","user_name":"y"}\n' > "$WORK/in"
run near "$D" -k userid
check "a near name: exit 1" 1 "$status"
check "a near name: the nearest member named" 1 "$(grep -c 'the nearest member is -k userId; its members: userId, user_name' "$WORK/near.err")"
printf '{"user":{"id":1,"idx":2}}\n' > "$WORK/in"
run nested "$D" -k user.Id
check "nested: the nearest members, in place" 1 "$(grep -c 'the nearest members are -k user.id, -k user.idx; the members of user: id, idx' "$WORK/nested.err")"

# A wrapper without --records: its array is named.
printf '{"Records":[{"eventID":"e1"},{"eventID":"e1"}]}\n' > "$WORK/in"
run wrapper "$D" -k eventID
check "a wrapper: exit 1" 1 "$status"
check "a wrapper: --records named" 1 "$(grep -c 'Records is an array of objects: --records Records makes its elements the records' "$WORK/wrapper.err")"
run wrapped "$D" -k eventID --records Records
check "--records, as advised: one record" '{"eventID":"e1"}' "$(cat "$WORK/wrapped.out")"

# Lines: a field no line has; the fields there are.
printf 'a b c\na b c\n' > "$WORK/in"
run lines "$D" -k 5
check "lines: exit 1" 1 "$status"
check "lines: the fields listed" 1 "$(grep -c 'it has 3 fields: 1 "a", 2 "b", 3 "c"' "$WORK/lines.err")"

# One record with the key among many without is enough to go on (the others pass, warned).
{ printf '{"x":1}\n%.0s' $(seq 5); printf '{"id":1}\n{"id":1}\n'; } > "$WORK/in"
run one "$D" -k id
check "one record with the key: exit 0" 0 "$status"
check "one record with the key: the others pass" 6 "$(wc -l < "$WORK/one.out")"
# Malformed records are no evidence of a wrong key: no stop.
printf '{"id":\n{"id":\n' > "$WORK/in"
run broken "$D" -f json -k id
check "broken JSON only: no stop" 0 "$status"

# Past the first 1000 records the run stops at once: the rest is not read, nothing written.
for i in $(seq 1500); do echo "{\"n\":$i}"; done > "$WORK/in"
run long "$D" -k id --stats=json
check "1500 records without the key: exit 1" 1 "$status"
check "... nothing written" 0 "$(wc -c < "$WORK/long.out")"
check "... stopped at the first 1000" 1 "$(grep -c 'none of the first 1000 records has a key .*; the rest of the input was not read' "$WORK/long.err")"
check "... --stats says what was read" '"records":1000' "$(grep -o '"records":[0-9]*' "$WORK/long.err")"
# The same from a regular file, read ahead on a second thread.
run long_file "$D" -k id --threads 2 "$WORK/in"
check "read ahead: exit 1, nothing written" "1 0" "$status $(wc -c < "$WORK/long_file.out")"
# A key found at record 1200 comes too late: the first 1000 decide.
{ for i in $(seq 1199); do echo "{\"n\":$i}"; done; echo '{"id":1}'; } > "$WORK/in"
run late "$D" -k id
check "the key first at record 1200: exit 1" 1 "$status"
# ... and at record 1000 in time.
{ for i in $(seq 999); do echo "{\"n\":$i}"; done; echo '{"id":1}'; echo '{"id":1}'; } > "$WORK/in"
run in_time "$D" -k id
check "the key at record 1000: exit 0, all but the copy" "0 1000" "$status $(wc -l < "$WORK/in_time.out")"
finish
