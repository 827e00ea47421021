#!/usr/bin/env bash
# tpmtrace push and fleet on a real PostgreSQL 15 (tests/lib/pg.sh): 200
# simulated hosts - each a trace recorded through tpmtrace against its own
# swtpm, under one of four emulated TPM profiles or none (swtpm's own
# identity), with a host identity of its own (the TPMTRACE_HOST_ID_* test
# hook) - pushed by 8 concurrent pushers with overlapping sets. Then: every
# command, event and client row on the server equals the file's (count and
# checksum per trace), command_stats on the server equals the union of the
# files', a second push of everything adds no row, fleet stats gives the
# per-group p50/p95/max computed here from the files, and fleet report
# renders in Chromium with every model named.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pg.sh"
need swtpm tpm2_getcap tpm2_getrandom sqlite3 python3
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "chromium is not installed (apt-get install chromium)"
CHECK=$TPMTRACE_SRC/tests/lib/fleet_check.py
HOSTS=${TPMTRACE_TEST_FLEET_HOSTS:-200}

check "a PostgreSQL 15 server starts in the test directory" pg_start pg
[ -n "${PGURL:-}" ] || finish

# ---- the hosts: one real recording each ----
PROFILES=(ifx-slb9670-tpmscan intel-ptt-tpmscan amd-ftpm-tpmscan ntc-npct75x-tpmscan "")
KERNELS=(6.1.0-31-amd64 6.12.12-amd64)
mkdir -p "$T/hosts"
record_host() { # record_host I
	local i=$1 p=${PROFILES[$(($1 % 5))]} em=()
	[ -n "$p" ] && em=(--emulate "$p" --emulate-seed "$i")
	TPMTRACE_HOST_ID_HOSTNAME=host$i TPMTRACE_HOST_ID_MACHINE_ID=machine-$i \
		TPMTRACE_HOST_ID_KERNEL_RELEASE=${KERNELS[$((i / 5 % 2))]} \
		TPMTRACE_HOST_ID_KERNEL_CMDLINE="root=/dev/vda quiet host=$i" \
		TPMTRACE_HOST_ID_BOOT_ID=$(printf 'b00710d0-0000-4000-8000-%012d' "$i") \
		"$TPMTRACE" record --spawn-swtpm "${em[@]}" --db "$T/hosts/h$i.db" --quiet \
		--name "boot of host$i" -- sh -c "tpm2_getcap properties-fixed >/dev/null &&
			for k in \$(seq $((1 + i % 3))); do tpm2_getrandom 8 >/dev/null; done &&
			{ [ $((i % 2)) = 1 ] || ! tpm2_readpublic -c 0x81000099 >/dev/null 2>&1; }" \
		>"$T/hosts/h$i.log" 2>&1 || echo "host$i: record failed" >>"$T/record.failed"
}
for ((i = 0; i < HOSTS; i++)); do
	record_host $i &
	(((i + 1) % 4 == 0)) && wait
done
wait
expect_eq "$HOSTS hosts recorded" "$(cat "$T/record.failed" 2>/dev/null)" ""
DBS=()
for ((i = 0; i < HOSTS; i++)); do DBS+=("$T/hosts/h$i.db"); done
expect_eq "each file holds one complete trace with a UUID and its host" \
	"$(for d in "${DBS[@]}"; do sqlite3 "$d" "SELECT count(*) FROM trace t JOIN trace_host h
		ON h.trace_id = t.id WHERE t.status = 'complete' AND length(t.uuid) = 36"; done |
		sort | uniq -c | sed 's/^ *//')" "$HOSTS 1"
expect_eq "the machine id is stored as its SHA-256" \
	"$(sqlite3 "$T/hosts/h7.db" "SELECT machine_id_sha256 FROM trace_host")" \
	"$(printf 'machine-7' | sha256sum | cut -d' ' -f1)"

# ---- 8 concurrent pushers, overlapping: pusher k pushes hosts [25k, 25k+50) of 200 ----
pusher() { # pusher K
	local j i
	for ((j = HOSTS / 8 * $1; j < HOSTS / 8 * $1 + HOSTS / 4; j++)); do
		i=$((j % HOSTS))
		"$TPMTRACE" push "$T/hosts/h$i.db" "$PGURL" >>"$T/push$1.out" 2>&1 ||
			echo "pusher $1: host$i exit $?" >>"$T/push.failed"
	done
}
for k in 0 1 2 3 4 5 6 7; do pusher $k & done
wait
expect_eq "every push of the 8 pushers exits 0" "$(cat "$T/push.failed" 2>/dev/null)" ""
sent=$(cat "$T"/push?.out | sed -n 's/^pushed \([0-9]*\) traces.*/\1/p' | paste -sd+ | bc)
present=$(cat "$T"/push?.out | sed -n 's/.*; \([0-9]*\) already on the server.*/\1/p' |
	paste -sd+ | bc)
expect_eq "each trace sent once, the overlap found on the server" "$sent $present" \
	"$HOSTS $((2 * HOSTS - HOSTS))"
expect_eq "the server holds $HOSTS traces, one per UUID" \
	"$(psql_q -c "SELECT count(*), count(DISTINCT uuid) FROM trace")" "$HOSTS|$HOSTS"
python3 "$CHECK" rows "$PGURL" "${DBS[@]}" >"$T/rows.out" 2>&1
rc=$?
tail -4 "$T/rows.out"
check "every command, event and client row on the server equals the file's" test $rc -eq 0
python3 "$CHECK" stats "$PGURL" "${DBS[@]}" >"$T/stats.out" 2>&1
rc=$?
tail -2 "$T/stats.out"
check "command_stats on the server is the union of the files' command_stats" test $rc -eq 0

# ---- a second push of everything: nothing new ----
counts() { psql_q -c "SELECT (SELECT count(*) FROM trace), (SELECT count(*) FROM command),
	(SELECT count(*) FROM event), (SELECT count(*) FROM client),
	(SELECT count(*) FROM trace_host)"; }
before=$(counts)
for d in "${DBS[@]}"; do "$TPMTRACE" push "$d" "$PGURL" --json; done >"$T/repush.json" 2>&1
rc=$?
check "the second push exits 0" test $rc -eq 0
expect_eq "the second push sends no trace" \
	"$(python3 -c 'import json,sys; print(sum(json.loads(l)["pushed"] for l in open(sys.argv[1])))' \
		"$T/repush.json")" 0
expect_eq "the second push adds no row" "$(counts)" "$before"
echo "server rows (traces|commands|events|clients|hosts): $before"

# ---- fleet stats: the groups computed here from the files ----
"$TPMTRACE" fleet "$PGURL" stats --json >"$T/fleet.json" 2>"$T/fleet.err"
rc=$?
check "fleet stats --json exits 0 ($(head -c 300 "$T/fleet.err"))" test $rc -eq 0
python3 "$CHECK" groups "$T/fleet.json" "${DBS[@]}" >"$T/groups.out" 2>&1
rc=$?
cat "$T/groups.out"
check "fleet stats per model, firmware, kernel and policy: hosts, boots, p50, p95, max as computed from the files" \
	test $rc -eq 0
expect_eq "ten groups: five TPM models under two kernels" \
	"$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["groups"]))' "$T/fleet.json")" 10
"$TPMTRACE" fleet "$PGURL" stats >"$T/fleet.txt" 2>&1
rc=$?
check "fleet stats exits 0" test $rc -eq 0
check "fleet stats names the dominant commands and the slowest hosts" \
	grep -q 'dominant: GetCapability\|dominant: GetRandom' "$T/fleet.txt"
expect_eq "fleet stats fits 100 columns" "$(awk 'length > 100' "$T/fleet.txt")" ""
"$TPMTRACE" fleet "$PGURL" list >"$T/list.txt" 2>&1
rc=$?
check "fleet list exits 0" test $rc -eq 0
expect_eq "fleet list: one line per host" "$(grep -c '^host[0-9]' "$T/list.txt")" "$HOSTS"
expect_eq "fleet list fits 100 columns" "$(awk 'length > 100' "$T/list.txt")" ""

# ---- fleet report in Chromium ----
"$TPMTRACE" fleet "$PGURL" report -o "$T/fleet.html" >"$T/report.out" 2>&1
rc=$?
check "fleet report -o exits 0" test $rc -eq 0
expect_eq "the page is 0600" "$(stat -c %a "$T/fleet.html")" 600
# report --fleet is the same page by another spelling (the time it was made aside).
"$TPMTRACE" report --fleet "$PGURL" -o "$T/fleet2.html" >"$T/report2.out" 2>&1
rc=$?
check "report --fleet -o exits 0 ($(head -c 200 "$T/report2.out"))" test $rc -eq 0
check "report --fleet writes the fleet report's page" \
	cmp -s <(grep -v -i 'generated\|made at\|[0-9]:[0-9][0-9]:[0-9][0-9]' "$T/fleet.html") \
	<(grep -v -i 'generated\|made at\|[0-9]:[0-9][0-9]:[0-9][0-9]' "$T/fleet2.html")
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run \
	--user-data-dir="$(mktemp -d "$T/chromium.XXXXXX")" --dump-dom "file://$T/fleet.html" \
	>"$T/fleet.dom" 2>"$T/chromium.log"
rc=$?
check "Chromium renders the page" test $rc -eq 0
check "the page's script ran in Chromium" grep -q 'data-script-ok="1"' "$T/fleet.dom"
python3 - "$T/fleet.dom" "$T/fleet.json" >"$T/models.out" <<'PY'
import html.parser, json, sys
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.cells = []; s.inmodel = False
    def handle_starttag(s, tag, a):
        s.inmodel = tag == "td" and "model" in (dict(a).get("class") or "")
    def handle_data(s, d):
        if s.inmodel: s.cells.append(d)
    def handle_endtag(s, tag): s.inmodel = False
p = P(); p.feed(open(sys.argv[1]).read())
models = sorted({g["model"] for g in json.load(open(sys.argv[2]))["groups"]})
missing = [m for m in models if m not in p.cells]
print("models:", models, "missing:", missing)
sys.exit(1 if missing or len(models) != 5 else 0)
PY
rc=$?
cat "$T/models.out"
check "the rendered page names every TPM model of the fleet" test $rc -eq 0

# ---- docs/fleet.md: its fleet commands and its ten questions, on these hosts ----
python3 - "$TPMTRACE_SRC/docs/fleet.md" "$T/docs" "$PGURL" <<'PY'
import os, re, shlex, sys
s = open(sys.argv[1]).read()
os.makedirs(sys.argv[2])
# The example server's URL is this test's.
sh = "".join(re.findall(r"^```sh fleet\n(.*?)^```", s, re.S | re.M))
sh = sh.replace("postgresql://fleet.example.org/tpmtrace", shlex.quote(sys.argv[3]))
open(os.path.join(sys.argv[2], "fleet.sh"), "w").write(sh)
part = s[s.index("## Ten fleet questions"):]
for i, q in enumerate(re.findall(r"^```sql\n(.*?)^```", part, re.S | re.M), 1):
    open(os.path.join(sys.argv[2], "q%02d.sql" % i), "w").write(q)
PY
expect_eq "docs/fleet.md asks ten questions" "$(ls "$T/docs"/q*.sql | wc -l)" 10
# The Examples of push --help and fleet --help, on a copy of a host's file.
for sub in push fleet; do
	"$TPMTRACE" $sub --help | python3 -c '
import shlex, sys
ex = sys.stdin.read().split("\nExamples:\n", 1)[1]
for l in ex.splitlines():
    if l.startswith("  tpmtrace "):
        print(l[2:].replace("postgresql://fleet.example.org/tpmtrace", shlex.quote(sys.argv[1])))
' "$PGURL" >>"$T/docs/fleet.sh"
done
expect_eq "push --help and fleet --help have two examples each" \
	"$(grep -c '^tpmtrace push\|^tpmtrace fleet' "$T/docs/fleet.sh")" 8
cp "$T/hosts/h3.db" "$T/docs/boot.db"
(cd "$T/docs" && PATH=$(dirname "$TPMTRACE"):$PATH bash -eu fleet.sh) >"$T/docs/fleet.out" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -5 "$T/docs/fleet.out"
check "the fleet commands of docs/fleet.md and the --help examples run" test $rc -eq 0
check "docs/fleet.md's report is written" test -s "$T/docs/fleet.html"
for q in "$T/docs"/q*.sql; do
	n=$(basename "$q" .sql)
	psql_q -f "$q" >"$T/docs/$n.out" 2>&1
	rc=$?
	check "docs/fleet.md question ${n#q}: runs ($(head -c 200 "$T/docs/$n.out"))" test $rc -eq 0
	# 6 (replays) and 7 (hosts silent for a week) have no rows on a fresh fleet.
	case $n in q06 | q07) ;; *)
		check "docs/fleet.md question ${n#q}: answers" test -s "$T/docs/$n.out" ;;
	esac
done
finish
