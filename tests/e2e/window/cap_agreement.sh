#!/usr/bin/env bash
# The memory cap's three reports agree: the warning at the first bind names the window kept
# then, the end-of-run total and --stats (text and JSON) name the same shortest window kept at
# any bind, which is never longer than the first; a cap that only kept the filter smaller than
# -c asked for, losing no key, is not called a shrunk window by --stats and warns nothing.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# A 100x burst against a 10 s window: 100 keys/s for 40 s, 10,000 keys/s in seconds 20-21.
awk 'BEGIN { n = 0; for (s = 0; s < 40; s++) { rate = (s >= 20 && s < 22) ? 10000 : 100;
  for (j = 0; j < rate; j++) printf "%.6f k%d\n", s + j / rate, n++ } }' > "$WORK/burst.txt"
ARGS=(-k 2 -t 1 -w 10s -c 1000 --max-memory 64K)
"$D" "${ARGS[@]}" --stats "$WORK/burst.txt" > /dev/null 2> "$WORK/text.err"
"$D" "${ARGS[@]}" --stats=json "$WORK/burst.txt" > /dev/null 2> "$WORK/json.err"
# The windows as the program writes them (readable_duration): 1.1s, 970ms, 500us, 0ns.
dur='[0-9.][0-9.]*[mun]*s'
first=$(grep -o "the filter now keeps the last $dur" "$WORK/text.err" | grep -o "$dur\$" || true)
total=$(grep -o "shrank to $dur at its shortest" "$WORK/text.err" | grep -o "$dur " | tr -d ' ' || true)
stats=$(grep -o "window kept: $dur at its shortest" "$WORK/text.err" | grep -o "$dur " | tr -d ' ' || true)
json=$(grep -o '"effective_window_ns":[0-9]*' "$WORK/json.err" | cut -d: -f2 || true)
echo "     first bind: $first; total: $total; --stats: $stats; JSON: $json ns"
# seconds TEXT: a written window in seconds; readable NS: nanoseconds written as the program does.
seconds() { awk -v d="$1" 'BEGIN { u = d; sub(/^[0-9.]+/, "", u); v = d + 0
  print v * (u == "ms" ? 1e-3 : u == "us" ? 1e-6 : u == "ns" ? 1e-9 : 1) }'; }
readable() { awk -v ns="$1" 'BEGIN { if (ns >= 1e9) { s = int(ns / 1e9); t = int((ns % 1e9) / 1e8)
    printf (t ? "%d.%ds" : "%ds"), s, t } else if (ns >= 1e6) printf "%dms", int(ns / 1e6)
    else if (ns >= 1e3) printf "%dus", int(ns / 1e3); else printf "%dns", ns }'; }
check "the burst: the cap warns at its first bind" 1 "$([ -n "$first" ] && echo 1 || echo 0)"
check "the total and --stats name the same window" "$total" "$stats"
check "--stats=json names it too" "$total" "$(readable "${json:-0}")"
check "the shortest is no longer than the first bind's" 1 \
  "$(awk -v a="$(seconds "${total:-x}")" -v b="$(seconds "${first:-0}")" 'BEGIN { print (a != "" && a + 0 <= b + 0) }')"
check "a window below a second is read in its unit" "0.9706 0.0005 1.1" "$(seconds 970.6ms) $(seconds 500us) $(seconds 1.1s)"

# A cap that binds only on the filter's size (-c asks for more than --max-memory holds): no
# key is lost, no warning, and --stats says so instead of "window kept: 0s".
printf 'a\nb\na\n' | "$D" -c 10000000 --max-memory 1M --stats > /dev/null 2> "$WORK/size.err"
check "sized down, nothing lost: no warning" 0 "$(grep -c 'warning' "$WORK/size.err" || true)"
check "sized down, nothing lost: --stats says so" 1 \
  "$(grep -c '^memory cap    reached, no key lost: the whole window kept' "$WORK/size.err")"
printf 'a\nb\na\n' | "$D" -c 10000000 --max-memory 1M --stats=json > /dev/null 2> "$WORK/size.json"
check "sized down, nothing lost: --stats=json names no shrunk window" 0 "$(grep -c 'effective_window' "$WORK/size.json" || true)"
finish
