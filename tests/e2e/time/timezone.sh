#!/usr/bin/env bash
# --timezone: stamps without a zone are local times there. testdata/windows_events.json holds
# Windows security events as NXLog writes them, EventTime in the machine's local time
# (Europe/Berlin) with no zone, across the night the clocks go forward. With -a exact the
# output equals a reference that reads the times with Python's zoneinfo; the same run read as
# UTC, or with the fixed winter offset, decides differently. %Z reads only the zone names it
# knows (and the abbreviations of --timezone's zone), never an unknown one as UTC.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"
cp "$TESTDATA/windows_events.json" .
RUN=(-k EventID -k TargetUserName -k IpAddress -t EventTime -w 2m -a exact)

# reference.py ZONE: the records kept, their EventTime read as local times in ZONE (an IANA
# name, or an offset such as +01:00).
cat > reference.py <<'PY'
import datetime, json, sys, zoneinfo
sys.path.insert(0, sys.argv[2])
from exact_window import kept
zone = sys.argv[1]
if zone[0] in "+-":
    h, m = zone[1:].split(":")
    tz = datetime.timezone((-1 if zone[0] == "-" else 1) * datetime.timedelta(hours=int(h), minutes=int(m)))
else:
    tz = zoneinfo.ZoneInfo(zone)
records = []
for line in open("windows_events.json", "rb").read().decode().splitlines(keepends=True):
    e = json.loads(line)
    local = datetime.datetime.strptime(e["EventTime"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=tz)
    records.append(((e["EventID"], e["TargetUserName"], e["IpAddress"]), int(local.timestamp()) * 10**9, line))
sys.stdout.write("".join(kept(records, 120 * 10**9)))
PY
python3 reference.py Europe/Berlin "$E2E_DIR" > want.txt
python3 reference.py +00:00 "$E2E_DIR" > want_utc.txt
python3 reference.py +01:00 "$E2E_DIR" > want_winter.txt
check "the fixture tells Europe/Berlin from UTC and from +01:00" "1 1" \
  "$(cmp -s want.txt want_utc.txt || echo 1) $(cmp -s want.txt want_winter.txt || echo 1)"

status=0
"$D" "${RUN[@]}" --timezone Europe/Berlin windows_events.json > out.txt 2> err.txt || status=$?
check "--timezone Europe/Berlin: exit 0, no warning" "0 0" "$status $(wc -c < err.txt)"
check_files "--timezone Europe/Berlin: the output is the exact reference's" want.txt out.txt
"$D" "${RUN[@]}" windows_events.json > utc.txt
check_files "no --timezone: read as UTC" want_utc.txt utc.txt
"$D" "${RUN[@]}" --timezone +01:00 windows_events.json > winter.txt
check_files "--timezone +01:00: a fixed offset" want_winter.txt winter.txt
check "--explain: 03:00:20 local is 01:00:20 UTC (summer time), a copy of 01:58:45 (00:58:45 UTC)" 1 \
  "$("$D" "${RUN[@]}" --timezone Europe/Berlin --explain=100 windows_events.json |
    grep -c '"2024-03-31 03:00:20"	2024-03-31T01:00:20Z	2024-03-31T01:00:20Z	dup')"
# A stamp that names its zone, or an epoch number, is not moved.
printf '{"t":"2024-07-01T12:00:00Z","k":1}\n{"t":1719835200,"k":2}\n{"t":"2024-07-01 14:00:00","k":3}\n' > zoned.ndjson
check "a zoned stamp, an epoch and a local stamp: one instant" \
  "2024-07-01T12:00:00Z 2024-07-01T12:00:00Z 2024-07-01T12:00:00Z" \
  "$("$D" -k k -t t --timezone Europe/Berlin --explain zoned.ndjson | awk -F'\t' 'NR > 1 { printf "%s%s", sep, $4; sep = " " }')"

# %Z: known names with their offsets; others untimed and warned, not read as UTC.
printf '2024-07-01 12:00:00 CEST a\n2024-07-01 12:00:30 XYZ a\n2024-07-01 12:00:00 EST b\n' > named.log
"$D" -k 4 -t 1-3 --time-format '%Y-%m-%d %H:%M:%S %Z' --explain named.log > named.txt 2> named.err
check "%Z without --timezone: CEST and XYZ untimed, EST read" "- - 2024-07-01T17:00:00Z" \
  "$(awk -F'\t' 'NR > 1 { printf "%s%s", sep, $4; sep = " " }' named.txt)"
check "%Z: the unknown name is warned about" 1 "$(grep -c 'no readable time at -t 1-3: "2024-07-01 12:00:00 CEST"' named.err)"
"$D" -k 4 -t 1-3 --time-format '%Y-%m-%d %H:%M:%S %Z' --timezone Europe/Berlin --explain named.log > berlin.txt 2> /dev/null
check "%Z with --timezone Europe/Berlin: CEST is +02:00, XYZ untimed" "2024-07-01T10:00:00Z - 2024-07-01T17:00:00Z" \
  "$(awk -F'\t' 'NR > 1 { printf "%s%s", sep, $4; sep = " " }' berlin.txt)"

# A state file records --timezone: a later run may not read times in another zone.
"$D" "${RUN[@]}" --timezone Europe/Berlin --state s.state windows_events.json > /dev/null
cp s.state s2.state
check_usage_error "--timezone against the state's" "--timezone 'UTC' differs from the state file" \
  "$D" --state s.state -t EventTime --timezone UTC windows_events.json
"$D" --state s.state windows_events.json > recorded.txt
"$D" --state s2.state "${RUN[@]}" --timezone Europe/Berlin windows_events.json > given.txt
check_files "the state's --timezone is used when none is given" given.txt recorded.txt

check_usage_error "an unknown zone" "--timezone 'Europe/Nowhere': no time zone of that name" \
  "$D" -t 1 --timezone Europe/Nowhere windows_events.json
check_usage_error "a bad offset" "--timezone '+2': not an offset such as +02:00" "$D" -t 1 --timezone +2 windows_events.json
check_usage_error "a path" "--timezone '../../etc/passwd': expected an IANA zone name" \
  "$D" -t 1 --timezone ../../etc/passwd windows_events.json
check_usage_error "--timezone without -t" "--timezone has no effect without -t" "$D" --timezone UTC windows_events.json
finish
