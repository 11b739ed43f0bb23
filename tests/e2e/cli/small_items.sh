#!/usr/bin/env bash
# The smaller promises of the command line: blank lines before the first record, --mark on
# an object that already has the member, optional values written without '=', --progress
# in a log file, overlong durations, the range of -e.
source "$(dirname "$0")/../lib.bash"
T=$TLBF_DEDUP

# Auto format: leading blank lines are judged like later ones (lines: a blank line is a
# record, the second one a duplicate), and marked.
check "lines: a leading blank line dedups a later one" "$(printf '\na\nb\n')" "$(printf '\na\n\nb\n\n' | "$T")"
check "lines: leading blank lines are marked" "$(printf 'new\t\ndup\t\nnew\ta\n')" "$(printf '\n\na\n' | "$T" --mark)"
check "auto is the same as -f lines" "$(printf '\n \n\na\n\n' | "$T" -f lines | od -c)" "$(printf '\n \n\na\n\n' | "$T" | od -c)"
check "an input of blank lines only is lines" "$(printf '\n')" "$(printf '\n\n\n' | "$T")"
# JSON: a leading blank line is what a later one is, no record: written as read, not counted.
printf '\n{"a":1}\n\n{"a":1}\n' | "$T" -k a --stats 2> "$WORK/json.err" > "$WORK/json.out"
check "json: blank lines pass, the duplicate object is dropped" "$(printf '\n{"a":1}\n\n')" "$(cat "$WORK/json.out")"
check "json: neither blank line is a record or an error" 2 "$(grep -c '^records *2$\|errors *0$' "$WORK/json.err")"
check "json: no warning about them" 0 "$(grep -c 'warning' "$WORK/json.err")"

# --mark on an object that has the member already: its value is replaced, never doubled.
check "--mark replaces an existing member" \
  "$(printf '%s\n' '{"a":1,"dup":false}' '{"a":1,"dup":true }' '{"dup": false, "a":2}')" \
  "$(printf '%s\n' '{"a":1,"dup":false}' '{"a":1,"dup":false }' '{"dup": {"x":[1,"}"]}, "a":2}' | "$T" -k a --mark)"
check "--mark=NAME replaces only a top-level NAME" '{"b":{"seen":1},"seen":false}' \
  "$(echo '{"b":{"seen":1}}' | "$T" -k b --mark=seen)"

# Optional values are attached with '=': written apart, a value that is no file is a usage error.
set +e
echo a | "$T" --mark dup 2> "$WORK/mark.err" > /dev/null
check "--mark dup: usage error" 2 "$?"
echo a | "$T" --stats json 2> "$WORK/stats.err" > /dev/null
check "--stats json: usage error" 2 "$?"
set -e
check "--mark dup: says how to write it" 1 "$(grep -c -- "written --mark=dup (with '=')" "$WORK/mark.err")"
check "--stats json: says how to write it" 1 "$(grep -c -- "written --stats=json (with '=')" "$WORK/stats.err")"
check "--mark followed by another option is the flag" "$(printf 'new\ta\n')" "$(echo a | "$T" --mark --stats=json 2> /dev/null)"
(cd "$WORK" && printf 'x\nx\n' > json && "$T" --stats json 2> stats2.err > stats2.out)
check "--stats FILE still reads an existing file named json" "x" "$(cat "$WORK/stats2.out")"
check "--stats FILE: text summary" 1 "$(grep -c '^records  *2' "$WORK/stats2.err")"

# --progress into a file: whole lines, no carriage return.
seq 5000 | "$T" --progress 2> "$WORK/progress" > /dev/null
check "--progress in a file has no CR" 0 "$(tr -cd '\r' < "$WORK/progress" | wc -c)"
check "--progress in a file ends with a newline" 1 "$(tail -c 1 "$WORK/progress" | od -An -c | grep -c '\\n')"
check "--progress's last line counts every record" 1 "$(tail -n 1 "$WORK/progress" | grep -c '^5000 records')"

# Durations too long for the clock say so; -e outside its range says the range.
set +e
echo a | "$T" -w 1000000d 2> "$WORK/w.err" > /dev/null
check "-w 1000000d: usage error" 2 "$?"
echo a | "$T" -e 1e-50 2> "$WORK/e.err" > /dev/null
check "-e 1e-50: usage error" 2 "$?"
echo a | "$T" -e 0.9 2> /dev/null > /dev/null
check "-e 0.9: usage error" 2 "$?"
set -e
check "-w 1000000d: names the longest" 1 "$(grep -c "'1000000d': longer than the longest duration, 36500d" "$WORK/w.err")"
check "-e 1e-50: names the range" 1 "$(grep -c "'1e-50': expected a rate from 1e-12 to 0.5" "$WORK/e.err")"
check "-w 36500d is accepted" "a" "$(echo a | "$T" -w 36500d)"
check "-w 36500d judges by event time without overflow" 2 "$(printf '1700000000 a\n1700000001 b\n1700000002 a\n' | "$T" -k 2 -t 1 -w 36500d | wc -l)"
set +e
echo a | "$T" -w 36501d 2> /dev/null > /dev/null
check "-w 36501d: usage error" 2 "$?"
set -e
check "-e 1e-12 is accepted" "a" "$(echo a | "$T" -e 1e-12)"
# A state saved at a small rate names it readably when another rate is asked for.
echo a | "$T" -e 1e-11 --state "$WORK/s" > /dev/null
set +e
echo a | "$T" -e 1e-3 --state "$WORK/s" 2> "$WORK/s.err" > /dev/null
set -e
check "a state's error rate is printed as a number, not 0.000000" 1 "$(grep -c '1e-11' "$WORK/s.err")"
finish
