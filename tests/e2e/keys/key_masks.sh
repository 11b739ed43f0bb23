#!/usr/bin/env bash
# --mask rewrites the key, never the output: "user 123 logged in" and "user 456 logged in" are
# one key; masks work on fields, composite keys, --key-regex and JSON string values; a bad
# list is a usage error; a state file records the masks like the other key options.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

printf '%s\n' 'user 123 logged in' 'user 456 logged in' 'user 7 logged out' > "$WORK/users.log"
check "without --mask: three keys" 3 "$("$D" "$WORK/users.log" | wc -l)"
"$D" --mask numbers "$WORK/users.log" > "$WORK/users.out"
check "--mask numbers: user 123 and user 456 logged in are one key; output bytes unmasked" \
  "$(printf '%s\n' 'user 123 logged in' 'user 7 logged out')" "$(cat "$WORK/users.out")"
check "--explain shows the masked key" '["user <N> logged in"]' \
  "$("$D" --mask numbers --explain=1 "$WORK/users.log" | sed -n 2p | cut -f2)"

# Each class, as a field (-k 2) of otherwise equal lines: the second line of each pair is dropped.
cat > "$WORK/classes.log" <<'LOG'
a 1.5 numbers
a 27 numbers
b 0x1f hex
b deadbeef42 hex
c 123e4567-e89b-12d3-a456-426614174000 uuid
c 00000000-0000-0000-0000-00000000abcd uuid
d 10.0.0.1:8080 ip
d fe80::1 ip
e 'first' quoted
e 'second' quoted
LOG
check "each class masks its field" "$(sed -n '1~2p' "$WORK/classes.log")" \
  "$("$D" -k 1,2 --mask numbers,hex,uuid,ip,quoted "$WORK/classes.log")"
check "a class not listed leaves its matches alone (uuid only)" 9 "$("$D" -k 1,2 --mask uuid "$WORK/classes.log" | wc -l)"

# Composite keys: each part masked on its own; --key-regex: the match masked.
printf '%s\n' 'ha GET /a/17 200' 'hb GET /a/18 200' 'ha GET /a/19 500' > "$WORK/composite.log"
check "composite -k 1 -k 3: parts masked one by one" 2 "$("$D" -k 1 -k 3 --mask numbers "$WORK/composite.log" | wc -l)"
check "--key-regex: the captured text is masked" 1 \
  "$("$D" --key-regex 'GET ([^ ]*)' --mask numbers "$WORK/composite.log" | wc -l)"

# JSON: string values are masked after unescaping; numbers stay numbers.
printf '%s\n' '{"msg":"retry 1 of 3"}' '{"msg":"retry \u0032 of 3"}' '{"msg":5}' '{"msg":6}' > "$WORK/msgs.ndjson"
check "JSON: masked string values, unmasked numbers" "$(sed -n '1p;3p;4p' "$WORK/msgs.ndjson")" \
  "$("$D" -k msg --mask numbers "$WORK/msgs.ndjson")"

# Bad lists: exit 2, the option and the bad name named, nothing written.
for bad in 'numbers,ipv4' 'numbers,' ''; do
  check_usage_error "--mask '$bad'" "--mask '$bad'" "$D" --mask "$bad" "$WORK/users.log"
done

# State files record the masks: a run without --mask inherits them, other masks are refused,
# and a state made without masks refuses a run with them.
"$D" --mask numbers --state "$WORK/s" "$WORK/users.log" > /dev/null
check "state with --mask: a later run without it still masks" 0 \
  "$(printf 'user 999 logged in\n' | "$D" --state "$WORK/s" | wc -l)"
status=0
printf 'user 1 logged in\n' | "$D" --mask hex --state "$WORK/s" > /dev/null 2> "$WORK/state.err" || status=$?
check "state with --mask numbers: --mask hex is refused" 2 "$status"
check "the refusal names the state's masks" 1 "$(grep -c "made with --mask 'numbers'" "$WORK/state.err")"
"$D" --state "$WORK/plain" "$WORK/users.log" > /dev/null
status=0
printf 'user 1 logged in\n' | "$D" --mask numbers --state "$WORK/plain" > /dev/null 2> "$WORK/plain.err" || status=$?
check "state without masks: --mask is refused" 2 "$status"
check "the refusal says what to do" 1 "$(grep -c -- "--state-reset" "$WORK/plain.err")"
finish
