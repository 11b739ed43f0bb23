#!/usr/bin/env bash
# A binding --max-memory gives up window length and keeps the error rate, for every filter:
# 2,000,000 distinct lines (so every line not written is a false positive) under caps that
# bind, untimed (the wall clock: the whole input falls inside one cell of a 1 h window) and
# with a count window of all of them. Unique lines lost stay within sampling error of -e:
# at most e N plus three standard deviations of a binomial count (e N (1 - e)), N = 2,000,000.
# The issue's reproduction (-e 1e-3 --max-memory 256K -w 1h) lost 2,364 lines (1.2e-3) and at
# -e 1e-2 --max-memory 64K 21,613 (about 11 deviations over) before generations of a capped
# TLBF ended at the fill its layout was chosen for.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

python3 -c 'import sys; sys.stdout.write("".join(f"key{i}\n" for i in range(2000000)))' > "$WORK/d2m.txt"
# lost_within NAME E ARGS...: runs -e E ARGS on the input and checks the lines lost.
lost_within() {
  local name=$1 e=$2 kept bound
  shift 2
  kept=$("$D" -q -e "$e" "$@" "$WORK/d2m.txt" | wc -l)
  bound=$(awk -v e="$e" 'BEGIN { n = 2000000; printf "%d", e * n + 3 * sqrt(e * (1 - e) * n) }')
  echo "     $name: $((2000000 - kept)) lost (at most $bound)"
  check "$name: unique lines lost at most at the rate -e asks" 1 "$([ $((2000000 - kept)) -le "$bound" ] && echo 1 || echo 0)"
}
lost_within "tlbf, 256K" 1e-3 --max-memory 256K -w 1h
lost_within "tlbf, 64K" 1e-2 --max-memory 64K -w 1h
lost_within "tlbf, 32K" 1e-2 --max-memory 32K -w 1h
lost_within "apbf, 256K" 1e-3 -a apbf --max-memory 256K -n 2000000
lost_within "apbf, 64K" 1e-2 -a apbf --max-memory 64K -n 2000000
lost_within "gebf time, 256K" 1e-3 -a gebf --max-memory 256K -w 1h
lost_within "gebf time, 64K" 1e-2 -a gebf --max-memory 64K -w 1h
lost_within "gebf count, 256K" 1e-3 -a gebf --max-memory 256K -n 2000000
lost_within "gebf count, 64K" 1e-2 -a gebf --max-memory 64K -n 2000000
lost_within "exact time, 1M" 1e-3 -a exact --max-memory 1M -w 1h
lost_within "exact count, 1M" 1e-3 -a exact --max-memory 1M -n 2000000
# The caps did bind: the run says so.
"$D" -e 1e-3 --max-memory 256K -w 1h "$WORK/d2m.txt" 2> "$WORK/err" > /dev/null
check "the TLBF's cap bound and was reported" 1 "$([ "$(grep -c 'memory cap (--max-memory) bound' "$WORK/err")" -ge 1 ] && echo 1 || echo 0)"
finish
