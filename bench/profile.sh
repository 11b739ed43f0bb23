#!/usr/bin/env bash
# The instruction profiles of both paths in one command: bash bench/profile.sh
#
# Builds tlbf-dedup and the two floors in RelWithDebInfo into build-profile/ (optimised as
# Release, with the line tables the grouping below needs), generates EVENTS (default 300,000)
# steady events in text and NDJSON with tests/gen_events.py (its default seed, so
# every run reads the same bytes), and runs under `valgrind --tool=callgrind`, with
# TLBF_DEDUP_HASH_SEED=0 and the output read through a pipe by wc -l:
#   tlbf-dedup -k 3 -t 1 -w 60s FILE.text      and the same with -a exact
#   tlbf-dedup -k id -t ts -w 60s FILE.ndjson  and the same with -a exact
#   tlbf-bench-text-floor -a tlbf|exact|none FILE.text, tlbf-bench-ndjson-floor likewise
# It prints a markdown table of the program's instructions per record (Ir over the input's
# records) by stage, one column per run, and a line with the floors' totals per record.
# Callgrind counts instructions, not time, so the figures do not depend on the machine's load
# and a rerun prints the same numbers; they change with the code, the compiler and the input.
# The ten callgrind runs take about 20 s in all at 300,000 events (callgrind is run without
# its cache simulation), after the build.
#
# How the instructions are split into stages (every instruction is counted once, so the
# stages add up to the total):
#  1. An instruction of the program's binary whose line is in one of our files counts in that
#     file's stage: include/tlbf/ filter (hash.hpp aside, see 2); extract*, json_scan,
#     field_list, key_mask: field split / JSON scan; timestamp, duration: time parsing;
#     pipeline, decider: record loop; record_reader, byte_source, decompress: framing;
#     writer: writing; xxhash.h (inlined, XXH_INLINE_ALL): hashing; every other file of
#     src/ (main, cli, options, stats, ...): start-up and the rest.
#  2. An instruction inlined from a file that is not one of ours (the C++ and simdjson
#     headers, intrinsics) or from include/tlbf/hash.hpp (the probe mix inside the filter, the
#     key hash's wrapper in the record loop) counts in the stage that has most of its
#     function's own instructions (rule 1).
#  3. A call from one of our functions into code that is not ours (a shared library such as
#     libc's memchr and writev or libsimdjson, an out-of-line std:: template) counts whole,
#     inclusive, in the stage of the line that calls it (rules 1 and 2).
#  4. "start-up and the rest" also takes what no call of ours reaches: the dynamic loader,
#     the C and C++ run-time's set-up and exit, static constructors; that is, the total less
#     rules 1-3. The kernel is not counted (callgrind sees user space only).
# The script warns if a library called from our code calls back into our code, which rule 3
# would count twice. To see a stage's functions, keep the profiles (KEEP_PROFILES=DIR) and
# read one with callgrind_annotate --inclusive=yes.
#
# Environment: EVENTS (default 300000); KEEP_INPUTS=DIR keeps the generated inputs there (and
# reuses them); KEEP_PROFILES=DIR keeps the callgrind.out files; BUILD_DIR (default
# build-profile/) and GEN_EVENTS (default tests/gen_events.py) as in bench/run.sh.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export BUILD_DIR=${BUILD_DIR:-$BENCH_DIR/../build-profile}
source "$BENCH_DIR/../scripts/common.sh"

EVENTS=${EVENTS:-300000}
# The floors hash keys with seed 0; with 0 the program makes the same decisions, run after run.
export TLBF_DEDUP_HASH_SEED=0
GEN_EVENTS=${GEN_EVENTS:-$ROOT/tests/gen_events.py}
[ -f "$GEN_EVENTS" ] || { echo "profile: $GEN_EVENTS not found" >&2; exit 1; }

# 1. Install the build dependencies and valgrind (Debian 12 package names).
install_missing "${PACKAGES[@]}" valgrind

# 2. Build the program and the floors with optimisation and line tables; tests are not needed.
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTLBF_BUILD_TESTS=OFF -DTLBF_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" --target tlbf-dedup tlbf-bench-text-floor tlbf-bench-ndjson-floor >/dev/null
TLBF="$BUILD_DIR/src/tlbf-dedup"
TEXT_FLOOR="$BUILD_DIR/bench/tlbf-bench-text-floor"
JSON_FLOOR="$BUILD_DIR/bench/tlbf-bench-ndjson-floor"

# 3. Generate the inputs (the generator's default seed: the same bytes every time).
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/tlbf-profile.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
DATA=${KEEP_INPUTS:-$SCRATCH}
PROFILES=${KEEP_PROFILES:-$SCRATCH}
mkdir -p "$DATA" "$PROFILES"
for format in text ndjson; do
  f="$DATA/events-$EVENTS-steady.$format"
  [ -s "$f" ] || python3 "$GEN_EVENTS" --events "$EVENTS" --profile steady --format "$format" >"$f"
done
TEXT="$DATA/events-$EVENTS-steady.text"
NDJSON="$DATA/events-$EVENTS-steady.ndjson"
RECORDS=$(wc -l <"$TEXT")
[ "$(wc -l <"$NDJSON")" -eq "$RECORDS" ] || { echo "profile: the text and NDJSON inputs differ in records" >&2; exit 1; }

# profile NAME CMD...: runs CMD under callgrind into $PROFILES/callgrind.out.NAME, its output
# read through a pipe as a user's pipeline reads it; prints how many lines it emitted.
profile() {
  local name=$1 out
  shift
  out="$PROFILES/callgrind.out.$name"
  # Uncompressed names and positions: the grouping below reads the file line by line.
  if ! valgrind --tool=callgrind --callgrind-out-file="$out" --compress-strings=no --compress-pos=no "$@" \
    2>"$out.log" | wc -l; then
    echo "profile: $name failed under callgrind:" >&2
    tail -20 "$out.log" >&2
    exit 1
  fi
}

# 4. Profile the program on both paths, with the default filter and -a exact, then the floors.
declare -A EMITTED
EMITTED[text-tlbf]=$(profile text-tlbf "$TLBF" -k 3 -t 1 -w 60s "$TEXT")
EMITTED[text-exact]=$(profile text-exact "$TLBF" -k 3 -t 1 -w 60s -a exact "$TEXT")
EMITTED[ndjson-tlbf]=$(profile ndjson-tlbf "$TLBF" -k id -t ts -w 60s "$NDJSON")
EMITTED[ndjson-exact]=$(profile ndjson-exact "$TLBF" -k id -t ts -w 60s -a exact "$NDJSON")
for algo in tlbf exact none; do
  profile text-floor-$algo "$TEXT_FLOOR" -a $algo "$TEXT" >/dev/null
  profile ndjson-floor-$algo "$JSON_FLOOR" -a $algo "$NDJSON" >/dev/null
done

# 5. Group each profile's instructions into stages (the rules above) and print the table.
echo "tlbf-dedup at $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?');" \
  "$(c++ --version | head -1); $(valgrind --version)"
python3 - "$ROOT" "$(readlink -f "$TLBF")" "$RECORDS" "$PROFILES" \
  "${EMITTED[text-tlbf]}" "${EMITTED[text-exact]}" "${EMITTED[ndjson-tlbf]}" "${EMITTED[ndjson-exact]}" <<'PY'
import os
import sys
from collections import defaultdict

root, binary, records, profiles = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
emitted = [int(n) for n in sys.argv[5:9]]
root = os.path.realpath(root)
FILTER, SCAN, TIME, LOOP, FRAMING, HASHING, WRITING, REST = STAGES = [
    "filter", "field split / JSON scan", "time parsing", "record loop (pipeline.cpp, decider.hpp)",
    "framing (record_reader.cpp, memchr)", "hashing (XXH3-128)", "writing (writer.cpp)",
    "start-up and the rest"]
BY_STEM = {"extract": SCAN, "extract_json": SCAN, "json_scan": SCAN, "field_list": SCAN, "key_mask": SCAN,
           "timestamp": TIME, "duration": TIME, "pipeline": LOOP, "decider": LOOP,
           "record_reader": FRAMING, "byte_source": FRAMING, "decompress": FRAMING, "writer": WRITING}


def file_stage(path):
    """Rule 1: the stage of a line of this file; None where rule 2 decides."""
    if os.path.basename(path) == "xxhash.h":
        return HASHING
    if not path.startswith(root + "/"):
        return None
    rel = path[len(root) + 1:]
    if rel.startswith("include/tlbf/"):
        return None if rel == "include/tlbf/hash.hpp" else FILTER
    return BY_STEM.get(os.path.basename(rel).split(".")[0], REST)


def read(path):
    """Self cost by (object, function) and file; inclusive cost of calls by caller, file and callee."""
    self_cost = defaultdict(lambda: defaultdict(int))
    calls = defaultdict(lambda: defaultdict(int))
    total = 0
    ob = fl = fi = fn = cob = cfn = callee = None
    with open(path) as f:
        for line in f:
            if line[0].isdigit():
                fields = line.split()
                cost = int(fields[1]) if len(fields) > 1 else 0
                if callee is not None:
                    calls[(ob, fn)][(fi, callee)] += cost
                    callee = None
                else:
                    self_cost[(ob, fn)][fi] += cost
                continue
            key, _, value = line.rstrip("\n").partition("=")
            if key == "ob":
                ob = value
            elif key == "fl":
                fl = fi = value
            elif key in ("fi", "fe"):
                fi = value
            elif key == "fn":
                fn, fi = value, fl
            elif key == "cob":
                cob = value
            elif key == "cfn":
                cfn = value
            elif key == "calls":
                callee, cob = (cob or ob, cfn), None
            elif line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
    return total, self_cost, calls


def stages(path):
    total, self_cost, calls = read(path)
    ours = {k for k in self_cost if k[0] == binary and any(file_stage(f) for f in self_cost[k])}
    out = defaultdict(int)
    callbacks = set()
    for k in ours:
        own = defaultdict(int)
        for file, ir in self_cost[k].items():
            if file_stage(file):
                own[file_stage(file)] += ir
        main = max(own, key=own.get)
        for file, ir in self_cost[k].items():
            out[file_stage(file) or main] += ir
        for (file, callee), ir in calls[k].items():
            if callee not in ours:
                out[file_stage(file) or main] += ir
                # Rule 3 counts the callee inclusive: a call back into our code would count twice.
                callbacks |= {(callee[1], back[1], back_ir) for (_, back), back_ir in calls[callee].items()
                              if back in ours and back_ir}
    for library, back, back_ir in sorted(callbacks):
        print(f"profile: {os.path.basename(path)}: {library} calls back into {back}"
              f" ({back_ir / records:.0f} per record counted twice)", file=sys.stderr)
    out[REST] += total - sum(out.values())
    return total, out


def per_record(ir):
    return f"{ir / records:,.0f}"


columns = [("text, tlbf", "text-tlbf"), ("text, exact", "text-exact"),
           ("NDJSON, tlbf", "ndjson-tlbf"), ("NDJSON, exact", "ndjson-exact")]
results = [stages(os.path.join(profiles, "callgrind.out." + name)) for _, name in columns]
print()
print(f"Callgrind, {records:,} steady events, RelWithDebInfo, instructions per record by stage (records"
      f" emitted: text {emitted[0]:,} and {emitted[1]:,} with -a exact, NDJSON {emitted[2]:,} and {emitted[3]:,}):")
print()
print("| stage | " + " | ".join(title for title, _ in columns) + " |")
print("|---|" + "---:|" * len(columns))
for stage in STAGES:
    print(f"| {stage} | " + " | ".join(per_record(out[stage]) for _, out in results) + " |")
print("| total | " + " | ".join(per_record(total) for total, _ in results) + " |")


def floor_total(name):
    return per_record(read(os.path.join(profiles, "callgrind.out." + name))[0])


print()
print("The floors on the same input: text " +
      ", ".join(f"{floor_total('text-floor-' + a)} ({a})" for a in ("tlbf", "exact", "none")) +
      "; NDJSON " + ", ".join(floor_total("ndjson-floor-" + a) for a in ("tlbf", "exact", "none")) + ".")
PY
