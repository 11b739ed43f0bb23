#!/usr/bin/env bash
# Random combinations of options (a fixed seed, a few hundred runs at a small size) over small
# text and NDJSON inputs, files and stdin: every run ends with exit status 0, 1 or 2 (never a
# signal or a crash, which the sanitized suite also turns into a failure), a run that fails
# says why on stderr, and a run that succeeds writes no more records than it read (with
# --explain, one line more).
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"

python3 "$GEN_EVENTS" --events 300 --rate 20 --dup-window 5 --seed 4 > a.log
python3 "$GEN_EVENTS" --events 300 --rate 20 --dup-window 5 --seed 5 --displace 0.3:2 > b.log
python3 "$GEN_EVENTS" --events 300 --rate 20 --dup-window 5 --seed 6 --format ndjson > a.ndjson
printf '%s\n' 'no time here' '' '{"ts":1,"id":"x"}' '{"ts":"bad","id":"x"}' '{not json' > odd.log

python3 - "$D" <<'PYEOF'
import random, subprocess, sys
tool = sys.argv[1]
rng = random.Random(52)
choices = [
    lambda: ["-k", rng.choice(["1", "3", "2,3", "1-", "id", "req.path", "/id"])],
    lambda: ["-t", rng.choice(["1", "ts", "2"])],
    lambda: ["-w", rng.choice(["1ms", "1s", "5m", "1d"])],
    lambda: ["-n", rng.choice(["1", "10", "100000"])],
    lambda: ["-e", rng.choice(["0.5", "1e-2", "1e-9"])],
    lambda: ["-a", rng.choice(["tlbf", "apbf", "gebf", "exact"])],
    lambda: ["--max-memory", rng.choice(["64K", "1M", "1G"])],
    lambda: ["--count"], lambda: ["--keep", "last"], lambda: ["--mark"], lambda: ["--only-dups"],
    lambda: ["--compact"], lambda: ["--refresh"], lambda: ["--lateness", rng.choice(["0", "1s", "1h"])],
    lambda: ["--no-merge"], lambda: ["--threads", rng.choice(["1", "2"])],
    lambda: [rng.choice(["--stats", "--stats=json"])], lambda: ["--explain=3"], lambda: ["--top", "3"],
    lambda: ["--mask", "numbers"], lambda: ["-i"], lambda: ["--missing", "null"],
    lambda: ["--on-error", rng.choice(["pass", "drop", "fail"])], lambda: ["--on-cap", "fail"],
    lambda: ["-f", rng.choice(["auto", "lines", "json"])], lambda: ["--multiline", "^[0-9]"],
    lambda: ["--key-except", "ts"], lambda: ["--allow-untimed"], lambda: ["--max-future", "1s"],
    lambda: ["--line-buffered"], lambda: ["--quiet"], lambda: ["-z"],
]
inputs = [["a.log"], ["a.log", "b.log"], ["b.log"], ["a.ndjson"], ["odd.log"], ["a.log", "a.ndjson"], ["-"]]
failures = runs = 0
for run in range(400):
    args = [x for c in rng.sample(choices, rng.randrange(1, 7)) for x in c()]
    files = rng.choice(inputs)
    stdin = open("b.log", "rb")
    p = subprocess.run([tool, *args, *files], stdin=stdin, capture_output=True, timeout=60)
    read = sum(open(f, "rb").read().count(b"\n") for f in files if f != "-") + (300 if "-" in files else 0)
    written = p.stdout.count(b"\n")
    ok = p.returncode in (0, 1, 2) and (p.returncode == 0 or p.stderr.strip()) and \
        (p.returncode != 0 or written <= read + 1 or "-z" in args)
    runs += 1
    if not ok:
        failures += 1
        print("FAIL", p.returncode, " ".join(args + files), p.stderr.decode(errors="replace")[-300:])
print("ok   %d random option combinations ran, %d failed" % (runs, failures))
print("%d passed, %d failed" % (runs - failures, failures))
sys.exit(1 if failures else 0)
PYEOF
