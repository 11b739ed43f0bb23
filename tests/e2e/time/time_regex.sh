#!/usr/bin/env bash
# --time-regex: the time is a part of a field, as auditd writes it inside
# msg=audit(1569293197.911:672): (testdata/audit.log, raw auditd lines, several records per
# event and a cron job's events repeating). The output with -a exact equals a reference
# computed here; a --key-regex with two groups makes a composite key (the record type and the
# text after the stamp).
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"
cp "$TESTDATA/audit.log" .
KEY='type=(\w+) msg=audit\([0-9.:]+\): (.*)'

# reference.py WINDOW: the records kept, with keys and times read here by Python's re.
cat > reference.py <<'PY'
import re, sys
from decimal import Decimal
sys.path.insert(0, sys.argv[2])
from exact_window import kept
records = []
for line in open("audit.log", "rb").read().decode().splitlines(keepends=True):
    m = re.search(r"type=(\w+) msg=audit\(([0-9.]+):[0-9]+\): (.*)", line)
    records.append(((m[1], m[3]), int(Decimal(m[2]) * 10**9), line))
sys.stdout.write("".join(kept(records, int(sys.argv[1]) * 10**9)))
PY
python3 reference.py 60 "$E2E_DIR" > want.txt
python3 reference.py 1 "$E2E_DIR" > want_short.txt
check "the fixture has duplicates inside a minute, not inside a second" 1 \
  "$(( $(wc -l < want.txt) < $(wc -l < want_short.txt) && $(wc -l < want_short.txt) < $(wc -l < audit.log) ? 1 : 0 ))"

status=0
"$D" --key-regex "$KEY" -t 2 --time-regex 'audit\((\d+\.\d+):' -w 1m -a exact audit.log > out.txt 2> err.txt || status=$?
check "-t 2 --time-regex: exit 0, no warning" "0 0" "$status $(wc -c < err.txt)"
check_files "-t 2 --time-regex: the output is the exact reference's" want.txt out.txt
"$D" --key-regex "$KEY" -t 1- --time-regex 'audit\((\d+\.\d+):' -w 1s -a exact audit.log > short.txt
check_files "-t 1- (the whole line), -w 1s: the reference's" want_short.txt short.txt
# The time text is the capture: --explain shows it, and its time.
check "--explain shows the capture as the time text" "\"1569293197.911\"	2019-09-24T02:46:37.911Z" \
  "$("$D" --key-regex "$KEY" -t 2 --time-regex 'audit\((\d+\.\d+):' --explain=1 audit.log | sed -n 2p | cut -f3,4)"
check "--explain shows the composite key's two parts" '["SYSCALL","arch=c000003e' \
  "$("$D" --key-regex "$KEY" -t 2 --time-regex 'audit\((\d+\.\d+):' --explain=1 audit.log | sed -n 2p | cut -f2 | cut -c1-25)"
# --time-format applies to the capture.
"$D" --key-regex "$KEY" -t 2 --time-regex 'audit\(([0-9]+)\.' --time-format epoch -w 1m -a exact audit.log > whole_seconds.txt
check "--time-format epoch on a capture of whole seconds: read (nothing untimed)" 0 \
  "$("$D" -q --key-regex "$KEY" -t 2 --time-regex 'audit\(([0-9]+)\.' --time-format epoch --stats=json audit.log 2>&1 > /dev/null | grep -o '"untimed":[0-9]*' | cut -d: -f2)"

# The example --help gives reads these stamps.
example=$("$D" --help | sed -n "s/.*: --time-regex '\([^']*\)'\$/\1/p")
check "--help's example: $example" "2019-09-24T02:46:37.911Z" \
  "$("$D" -t 2 --time-regex "$example" --explain=1 audit.log | sed -n 2p | cut -f4)"

# Without --time-regex the field is no time: the run stops, as for any untimed input.
status=0
"$D" --key-regex "$KEY" -t 2 -w 1m audit.log > none.txt 2> none.err || status=$?
check "without --time-regex: exit 1, nothing written" "1 0" "$status $(wc -c < none.txt)"
# A line the regex does not match is untimed, and the warning says why.
{ head -3 audit.log; echo 'type=SYSCALL msg=audit(1569293198:680): x'; } > mixed.log
status=0
"$D" --key-regex "$KEY" -t 2 --time-regex 'audit\((\d+\.\d+):' mixed.log > mixed.txt 2> mixed.err || status=$?
check "a field the regex does not match: exit 0, every record written" "0 4" "$status $(wc -l < mixed.txt)"
check "a field the regex does not match: warned with the reason" 1 \
  "$(grep -c 'no readable time at -t 2: "msg=audit(1569293198:680):".*--time-regex does not match it' mixed.err)"

# JSON: the regex is matched against the -t member's text.
printf '{"msg":"audit(1569293197.911:672): a","k":1}\n{"msg":"audit(1569293198.100:673): b","k":1}\n{"msg":"audit(1569293299.000:674): c","k":1}\n' > audit.ndjson
check "JSON member: two of three inside the minute are one" 2 \
  "$("$D" -k k -t msg --time-regex 'audit\((\d+\.\d+):' -w 1m -a exact audit.ndjson | wc -l)"

check_usage_error "--time-regex without -t" "--time-regex has no effect without -t/--time" \
  "$D" --time-regex 'audit\((\d+)' audit.log
check_usage_error "--time-regex with a backreference" "--time-regex '(a)\\1': \\1: backreferences are not supported" \
  "$D" -t 1 --time-regex '(a)\1' audit.log
check_usage_error "--time-regex that does not compile" "--time-regex '(':" "$D" -t 1 --time-regex '(' audit.log
finish
