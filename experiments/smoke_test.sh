#!/bin/bash
# Smoke test of tlbf-experiments --quick: it runs, writes every CSV, and what it measured
# holds the guarantees (GEBF live false negatives 0; no false negatives for the time-window
# filters against the exact oracle).
set -euo pipefail
bin=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$bin" --out "$out" --quick --no-plots > "$out/log.txt"
fail=0
for f in gebf_table1.csv gebf_table1_runs.csv gebf_fpr_model.csv tlbf_fig1_3.csv tlbf_table2.csv tlbf_fig4_5.csv gebf_timed.csv; do
  if [ ! -s "$out/$f" ] || [ "$(wc -l < "$out/$f")" -lt 2 ]; then echo "FAIL: $f missing or empty"; fail=1; fi
done
# gebf_table1_runs.csv: column 3 filter, column 10 live_fnr.
bad=$(awk -F, 'NR > 1 && $3 ~ /^gebf/ && $10 != 0' "$out/gebf_table1_runs.csv" | wc -l)
[ "$bad" -eq 0 ] || { echo "FAIL: GEBF runs with live false negatives: $bad"; fail=1; }
gebf_rows=$(awk -F, 'NR > 1 && $3 ~ /^gebf/' "$out/gebf_table1_runs.csv" | wc -l)
[ "$gebf_rows" -ge 8 ] || { echo "FAIL: only $gebf_rows GEBF rows"; fail=1; }
# The counting baseline does measure false positives (the FPR column is live, not constant).
awk -F, 'NR > 1 && $3 == "counting-4bit" && $8 > 0.05 { found = 1 } END { exit !found }' "$out/gebf_table1_runs.csv" \
  || { echo "FAIL: counting baseline FPR not measured"; fail=1; }
# gebf_timed.csv: column 9 false_negatives, for every filter and profile.
bad=$(awk -F, 'NR > 1 && $9 != 0' "$out/gebf_timed.csv" | wc -l)
[ "$bad" -eq 0 ] || { echo "FAIL: time-window false negatives in $bad rows"; cat "$out/gebf_timed.csv"; fail=1; }
[ "$fail" -eq 0 ] && echo "ok: tlbf-experiments --quick"
exit "$fail"
