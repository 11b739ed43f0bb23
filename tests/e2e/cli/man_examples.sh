#!/usr/bin/env bash
# Every example in the man page, docs/usage.md and README.md runs, over the fixtures in testdata/.
# Examples are the .EX/.EE blocks after a '.\" example' comment (man page) and the ```sh
# blocks after an '<!-- example -->' comment (Markdown). They run in a scratch directory
# holding the fixtures under the names the examples use (app.log: the stack-trace log;
# access.log.1.gz: access.log compressed, a rotated log; trail*.json.gz: CloudTrail files;
# catalina.out, audit.log, windows_events.json as in testdata/; eve.json: suricata_eve.json;
# dns.log: tables/zeek_dns.log; export.csv and dump.tsv as in testdata/tables/),
# with tlbf-dedup first on PATH;
# "tail -F FILE" is run as "tail -n +1 FILE" so the pipeline ends. Each example must
# exit 0 with pipefail and write something (stdout, stderr or a new file).
source "$(dirname "$0")/../lib.bash"
: "${SOURCE_DIR:?}"
mkdir -p "$WORK/bin" "$WORK/run"
ln -s "$TLBF_DEDUP" "$WORK/bin/tlbf-dedup"
export PATH="$WORK/bin:$PATH"

# man page: unescape the roff used in examples.
awk '/^\.\\" example/ { want = 1; next }
     want && /^\.EX/ { inside = 1; n++; next }
     inside && /^\.EE/ { inside = 0; want = 0; next }
     inside { print > (dir "/man_" n ".sh") }' dir="$WORK" "$SOURCE_DIR/man/tlbf-dedup.1"
sed -i 's/\\-/-/g; s/\\e/\\/g; s/\\(aq/'"'"'/g' "$WORK"/man_*.sh
for doc in docs/usage.md README.md; do
  awk '/<!-- example -->/ { want = 1; next }
       want && /^```sh/ { inside = 1; n++; next }
       inside && /^```/ { inside = 0; want = 0; next }
       inside { print > (dir "/" prefix "_" n ".sh") }' dir="$WORK" prefix="$(basename "$doc" .md)" "$SOURCE_DIR/$doc"
done
readme_count=$(ls "$WORK"/README_[0-9]*.sh 2>/dev/null | wc -l)
check "README.md has at least 5 marked examples" 1 "$(( readme_count >= 5 ? 1 : 0 ))"
count=$(ls "$WORK"/man_*.sh | wc -l)
check "the man page has at least 8 marked examples" 1 "$(( count >= 8 ? 1 : 0 ))"

# README examples shown with their output: a ```sh block after '<!-- example output -->', then
# the ```text block that follows it, which must be exactly what the commands write (stdout and
# stderr together, under a fixed hash seed so that no false positive can differ).
awk '/<!-- example output -->/ { want = 1; next }
     want && /^```sh/ { inside = "sh"; n++; next }
     want && /^```text/ { inside = "expected"; next }
     inside && /^```/ { if (inside == "expected") want = 0; inside = ""; next }
     inside { print > (dir "/README_out_" n "." inside) }' dir="$WORK" "$SOURCE_DIR/README.md"
shown_count=$(ls "$WORK"/README_out_*.expected 2>/dev/null | wc -l)
check "README.md shows the output of at least 3 examples" 1 "$(( shown_count >= 3 ? 1 : 0 ))"

# fresh_run: an empty run directory holding the fixtures under the examples' names.
fresh_run() {
  rm -rf "$WORK/run" && mkdir "$WORK/run"
  cp "$TESTDATA/sample_access.log" "$WORK/run/access.log"
  cp "$TESTDATA/app.ndjson" "$TESTDATA/auth.log" "$TESTDATA/hdfs.log" "$WORK/run/"
  cp "$TESTDATA/app_stacktrace.log" "$WORK/run/app.log"
  cp "$TESTDATA/catalina.out" "$TESTDATA/audit.log" "$TESTDATA/windows_events.json" "$WORK/run/"
  cp "$TESTDATA/suricata_eve.json" "$WORK/run/eve.json"
  cp "$TESTDATA/tables/zeek_dns.log" "$WORK/run/dns.log"
  cp "$TESTDATA/tables/export.csv" "$TESTDATA/tables/dump.tsv" "$WORK/run/"
  cp "$TESTDATA"/cloudtrail/trail*.json.gz "$WORK/run/"
  gzip -c "$TESTDATA/sample_access.log" > "$WORK/run/access.log.1.gz"
}

for ex in "$WORK"/README_out_*.sh; do
  [ -f "$ex" ] || continue
  fresh_run
  sed -i 's/tail -F /tail -n +1 /g' "$ex"
  status=0
  (cd "$WORK/run" && TLBF_DEDUP_HASH_SEED=0x5eed bash -o pipefail -e "$ex") > "$WORK/ex.out" 2>&1 || status=$?
  name="$(basename "$ex"): $(head -1 "$ex" | cut -c1-70)"
  check "$name: exit 0" 0 "$status"
  same=same
  cmp -s "$WORK/ex.out" "${ex%.sh}.expected" || same=differs
  check "$name: output as shown" same "$same"
  [ "$same" = same ] || diff "${ex%.sh}.expected" "$WORK/ex.out" | sed 's/^/       /'
done

for ex in "$WORK"/man_*.sh "$WORK"/usage_*.sh "$WORK"/README_[0-9]*.sh; do
  [ -f "$ex" ] || continue
  fresh_run
  sed -i 's/tail -F /tail -n +1 /g; s/tail -f /tail -n +1 /g' "$ex"
  before=$(ls "$WORK/run" | wc -l)
  status=0
  (cd "$WORK/run" && bash -o pipefail -e "$ex") > "$WORK/ex.out" 2> "$WORK/ex.err" || status=$?
  produced=$(( $(wc -c < "$WORK/ex.out") + $(wc -c < "$WORK/ex.err") + $(ls "$WORK/run" | wc -l) - before ))
  name="$(basename "$ex"): $(head -1 "$ex" | cut -c1-70)"
  check "$name: exit 0" 0 "$status"
  [ "$status" -eq 0 ] || sed 's/^/       /' "$WORK/ex.err"
  check "$name: produces output" 1 "$(( produced > 0 ? 1 : 0 ))"
done
finish
