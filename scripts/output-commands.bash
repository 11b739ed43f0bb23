# The commands whose outputs are checked (sourced, not run). tests/e2e/data/output_identity.sh
# runs them on one binary: exact ones must match digests recorded in testdata/, approximate
# ones are judged against exact window semantics. scripts/compare-outputs.sh runs them on two
# binaries side by side, byte for byte, for a change that must not change any decision.
# Keeping the list here once is what makes the two check the same thing.
#
# The caller sets SHARED_DATA (the real-world files), INPUTS (where the generated inputs are
# kept), EVENTS (events per generated file), PROFILES and GEN_EVENTS, and sources this file.

# Every new filter draws a secret hash seed, which its state file records: fix one, so that
# two runs (of one binary or two) build the same filters and save the same bytes.
export TLBF_DEDUP_HASH_SEED="${TLBF_DEDUP_HASH_SEED-0x5eed}"

# The state-file checks: the window options of each filter whose saved state is compared,
# each run with -k 3 -t 1 on the first OUTPUT_STATE_LINES lines of the first profile's text.
# shellcheck disable=SC2034  # read by the scripts that source this file
OUTPUT_STATE_WINDOWS=("-w 60s -a tlbf" "-w 60s -a gebf" "-w 60s -a exact" "-w 60s -a tagged" "-n 50000 -a apbf"
  "-n 50000 -a gebf" "-n 50000 -a exact")
# shellcheck disable=SC2034
OUTPUT_STATE_LINES=300000

# generated_input PROFILE FORMAT: the path of one generated input.
generated_input() { echo "$INPUTS/events-$EVENTS-$1.$2"; }

# make_generated_inputs: writes the inputs missing from $INPUTS (gen_events.py's fixed default
# seed, so the same bytes every time). A phase of EVENTS / 20 events puts two bursts (every
# 10th phase) in each burst file whatever EVENTS is; at the default phase of 50,000 events
# the first burst starts at event 450,000, so a shorter burst file was byte for byte the
# steady one. The steady profile does not use the phase (its files are the same bytes).
make_generated_inputs() {
  local profile format f
  mkdir -p "$INPUTS"
  for profile in $PROFILES; do
    for format in text ndjson; do
      f=$(generated_input "$profile" "$format")
      if [ ! -s "$f" ]; then
        python3 "$GEN_EVENTS" --events "$EVENTS" --phase $((EVENTS / 20)) --profile "$profile" --format "$format" \
          >"$f.tmp"
        mv "$f.tmp" "$f"
      fi
    done
  done
}

# output_commands FN: calls `FN NAME ARGS...` for every command, in a fixed order.
#  1. The real-world files of $SHARED_DATA (when it exists) with tests/e2e/data/shared_data.sh's own
#     commands (its `run NAME ARGS...` lines, where $S is the data folder), with --stats=json;
#     warnings are compared too, so -q is not added.
#  2. On each generated input, `-k 3 -t 1 -w 60s` and `-k id -t ts -w 60s` with each of -a tlbf,
#     apbf, gebf, exact and tagged, the count window (`-k 3 -n 200000` with apbf, gebf and exact),
#     the approximate filters again at -e 0.01 (where stdout holds false positives) and
#     --refresh, so every filter class and both decision paths run.
output_commands() {
  local fn=$1 line n=0 profile a text json
  if [ -d "$SHARED_DATA" ]; then
    # shellcheck disable=SC2034  # the run lines name their files by $S
    local S=$SHARED_DATA
    # shellcheck disable=SC2317  # called by the eval'd lines
    run() {
      local name=$1
      shift
      "$fn" "shared:$name" --stats=json "$@"
    }
    while IFS= read -r line; do
      eval "$line"
      n=$((n + 1))
    done < <(grep -E '^run [a-z0-9_]+ ' "$ROOT/tests/e2e/data/shared_data.sh")
    unset -f run
    [ "$n" -gt 0 ] || { echo "output_commands: no run lines found in tests/e2e/data/shared_data.sh" >&2; return 1; }
  fi
  for profile in $PROFILES; do
    text=$(generated_input "$profile" text)
    json=$(generated_input "$profile" ndjson)
    for a in tlbf apbf gebf exact tagged; do
      "$fn" "$profile.text -a $a" --stats=json -k 3 -t 1 -w 60s -a "$a" "$text"
      "$fn" "$profile.ndjson -a $a" --stats=json -k id -t ts -w 60s -a "$a" "$json"
    done
    for a in apbf gebf exact; do
      "$fn" "$profile.text -n -a $a" --stats=json -k 3 -n 200000 -a "$a" "$text"
    done
    # At -e 0.01 some unique keys are false positives, so stdout itself depends on every probe
    # position (at the default 1e-5 these inputs have none, and only the stats would notice).
    for a in tlbf gebf tagged; do
      "$fn" "$profile.text -a $a -e 0.01" --stats=json -k 3 -t 1 -w 60s -a "$a" -e 0.01 "$text"
    done
    "$fn" "$profile.ndjson -a tlbf -e 0.01" --stats=json -k id -t ts -w 60s -a tlbf -e 0.01 "$json"
    for a in apbf gebf; do
      "$fn" "$profile.text -n -a $a -e 0.01" --stats=json -k 3 -n 200000 -a "$a" -e 0.01 "$text"
    done
    "$fn" "$profile.text --refresh" --stats=json -k 3 -t 1 -w 60s --refresh "$text"
    "$fn" "$profile.ndjson --refresh" --stats=json -k id -t ts -w 60s --refresh "$json"
  done
}

# normalise_stderr RAW OUT: RAW's text without what changes from run to run (the two timing
# fields of --stats=json) or from machine to machine (the folders of the inputs).
normalise_stderr() {
  local esc_shared esc_inputs esc_work=NO-WORK-DIRECTORY
  esc_shared=$(printf '%s' "$SHARED_DATA" | sed 's/[][\.*^$|]/\\&/g')
  esc_inputs=$(printf '%s' "$INPUTS" | sed 's/[][\.*^$|]/\\&/g')
  # The scratch directory (a run's state and part files), after the inputs inside it.
  [ -z "${WORK:-}" ] || esc_work=$(printf '%s' "$WORK" | sed 's/[][\.*^$|]/\\&/g')
  sed -E 's/"seconds":[0-9.e+-]+/"seconds":-/; s/"records_per_second":[0-9.e+-]+/"records_per_second":-/' "$1" |
    sed "s|$esc_shared|\$SHARED_DATA|g; s|$esc_inputs|\$INPUTS|g; s|$esc_work|\$WORK|g" >"$2"
}
