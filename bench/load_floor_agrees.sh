#!/usr/bin/env bash
# The load floor is a bound only if it decides as the program does: on small generated inputs
# (text and NDJSON, steady and burst) its output, with one thread and two, must equal
# tlbf-dedup's byte for byte. Its trace step also stops with a message if its copy of the
# filter's probing ever disagrees with the filter (bench/load_floor.hpp). Run by CTest with
# TLBF_DEDUP, TEXT_FLOOR, JSON_FLOOR and GEN_EVENTS set (bench/CMakeLists.txt).
set -euo pipefail
: "${TLBF_DEDUP:?}" "${TEXT_FLOOR:?}" "${JSON_FLOOR:?}" "${GEN_EVENTS:?}"
export TLBF_DEDUP_HASH_SEED=0  # the floors hash with seed 0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for profile in steady burst; do
  for format in text ndjson; do
    in="$dir/$profile.$format"
    python3 "$GEN_EVENTS" --events 30000 --profile "$profile" --format "$format" >"$in"
    if [ "$format" = text ]; then floor=$TEXT_FLOOR args=(-k 3 -t 1 -w 60s); else floor=$JSON_FLOOR args=(-k id -t ts -w 60s); fi
    "$TLBF_DEDUP" "${args[@]}" "$in" >"$dir/program"
    "$floor" --trace-out "$dir/trace" "$in" 2>"$dir/trace.err" >/dev/null || { cat "$dir/trace.err"; exit 1; }
    for threads in 1 2; do
      "$floor" --load "$dir/trace" -j "$threads" "$in" >"$dir/load" 2>/dev/null
      if ! cmp -s "$dir/program" "$dir/load"; then
        echo "FAIL: $profile $format, -j $threads: the load floor's output differs from tlbf-dedup's"
        exit 1
      fi
    done
    # The input must have had duplicates for the check to mean something.
    [ "$(wc -l <"$dir/program")" -lt "$(wc -l <"$in")" ] || { echo "FAIL: $profile $format: no duplicates"; exit 1; }
    echo "ok: $profile $format ($(wc -l <"$dir/program") of $(wc -l <"$in") records kept)"
  done
done
