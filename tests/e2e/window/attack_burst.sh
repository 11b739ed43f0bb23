#!/usr/bin/env bash
# An adversarial burst: 10 million distinct keys inside one window at the default settings.
# Afterwards a million fresh keys must be judged unique at the false-positive rate the user
# asked for (at most 1.5 × -e), or, if a memory cap bound, the run must have said so. Prints
# the peak RSS of the run and the filter's statistics, the figures of the attack.
# TLBF_ATTACK_KEYS overrides the burst size (the sanitizer run uses fewer keys: ASan makes
# the 10-million-key run several times slower without checking anything more).
source "$(dirname "$0")/../lib.bash"
keys=${TLBF_ATTACK_KEYS:-10000000}
fresh=1000000
error_rate=1e-5  # the default, named so the bound below can use it

# One event time for all: every key is inside the window when the fresh keys come.
awk -v n="$keys" -v m="$fresh" 'BEGIN {
  for (i = 0; i < n; i++) print "1700000000 burst" i
  for (i = 0; i < m; i++) print "1700000001 fresh" i
}' > "$WORK/in"
python3 - "$TLBF_DEDUP" "$WORK" <<'PY'
import resource, subprocess, sys
binary, work = sys.argv[1], sys.argv[2]
with open(f"{work}/in", "rb") as i, open(f"{work}/out", "wb") as o, open(f"{work}/err", "wb") as e:
    status = subprocess.call([binary, "-k", "2", "-t", "1", "--only-dups", "--stats"], stdin=i, stdout=o, stderr=e)
peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(f"{work}/status", "w").write(f"{status}\n")
open(f"{work}/peak", "w").write(f"{peak_kib}\n")
PY
check "exit status 0" 0 "$(cat "$WORK/status")"
false_burst=$(grep -c ' burst' "$WORK/out" || true)
false_fresh=$(grep -c ' fresh' "$WORK/out" || true)
echo "burst of $keys distinct keys: $false_burst judged duplicates; $fresh fresh keys after it: $false_fresh judged duplicates"
echo "peak RSS $(( $(cat "$WORK/peak") / 1024 )) MiB"
grep -E '^(filter|keys|memory|peak)' "$WORK/err" || true
if grep -q 'memory cap' "$WORK/err" && ! grep -q 'memory cap *not reached' "$WORK/err"; then
  check "a binding cap was said at once" 1 "$(grep -c 'warning: .*cap' "$WORK/err")"
else
  # At most 1.5 × -e on the fresh keys, and on the burst's own keys.
  check "fresh keys: false positives within 1.5 x -e" 1 "$(awk -v f="$false_fresh" -v n="$fresh" -v e="$error_rate" 'BEGIN { print (f <= 1.5 * e * n) }')"
  check "burst keys: false positives within 1.5 x -e" 1 "$(awk -v f="$false_burst" -v n="$keys" -v e="$error_rate" 'BEGIN { print (f <= 1.5 * e * n) }')"
fi
finish
