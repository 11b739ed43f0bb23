#!/usr/bin/env bash
# --multiline on a real log: the Kafka state-change log of ../shared/data, whose events are a
# header line starting with '[' and their stack-trace lines.
source "$(dirname "$0")/../lib.bash"
need_shared_data
D="$TLBF_DEDUP"

# The shared Kafka log: every continuation line in the output follows its own header (the
# output's events are input events, whole and in order), and repeated traces are dropped.
kafka="$SHARED_DATA/kafka_state_change_multiline_elastic.log"
"$D" --multiline '^\[' -k 3- -w 1h "$kafka" > "$WORK/kafka.out"
python3 - "$kafka" "$WORK/kafka.out" > "$WORK/kafka.check" <<'PY'
import sys
def events(path):
    out = []
    for line in open(path, 'rb').read().splitlines(keepends=True):
        if line.startswith(b'[') or not out:
            out.append(line)
        else:
            out[-1] += line
    return out
inp, got = events(sys.argv[1]), events(sys.argv[2])
i = 0
for e in got:
    while i < len(inp) and inp[i] != e:
        i += 1
    if i == len(inp):
        print("not an input event in order:", e[:80]); break
    i += 1
else:
    print("ok", len(inp), len(got), sum(e.count(b'\n') > 1 for e in got))
PY
read -r verdict n_in n_out n_multi < "$WORK/kafka.check"
check "kafka: the output is whole input events in order" ok "$verdict"
check "kafka: some events dropped" 1 "$(( n_out < n_in ? 1 : 0 ))"
check "kafka: multi-line events kept with their traces" 1 "$(( n_multi > 0 ? 1 : 0 ))"
finish
