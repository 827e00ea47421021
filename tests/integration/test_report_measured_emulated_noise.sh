#!/usr/bin/env bash
# report keeps measured, emulated and predicted figures apart and reports
# noise as noise (issue 31, item 3). A database holds a recording, two real
# replays under password, a replay emulating a shipped profile (replay
# --emulate) and, made with SQL so that the figures are chosen and the
# verdicts known, two policies' runs: linux-6.12's are copies of the
# password runs (the same runs: within noise), linux-6.10's the same with
# every latency ten times over (higher). The password runs' latencies are set
# to 1 ms and 1.1 ms a command, so no verdict depends on a timing.
#  - report --json: "measured" holds no emulated run, "emulated" holds it
#    with its profile; every row has runs, sd (null for one run) and its
#    verdict against password; the recording (one run) says single runs;
#  - the HTML: svg#policy-measured has no emulated bar, svg#policy-emulated
#    has it; the headline rows say measured or emulated, runs, sd, verdict.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup sqlite3 python3

PROF=slb9670-linux-integrity
db=$T/demo.db
record_demo "$db"
expect_eq "demo workload recorded" "$?" 0
"$TPMTRACE" replay "$db" --trace 1 --policy password --repeat 2 >/dev/null 2>"$T/rep.err"
expect_eq "two password replays" "$?" 0
"$TPMTRACE" replay "$db" --trace 1 --policy password --emulate "$PROF" --emulate-seed 1 >"$T/emu.txt" 2>"$T/emu.err"
expect_eq "an emulated password replay" "$?" 0
check "the emulated run says its figures are emulated" \
	grep -q "^  figures: emulated (latency from profile $PROF), one run (n=1" "$T/emu.txt"
expect_eq "traces 2 and 3 real, 4 emulated" \
	"$(sqlite3 "$db" "SELECT group_concat(id || ':' || policy || ':' || coalesce(emulated, '-'), ' ') FROM trace WHERE kind = 'replay'")" \
	"2:password:- 3:password:- 4:password:$PROF"

# Chosen figures: 1 ms a command in run 2, 1.1 ms in run 3; copies of both
# as linux-6.12 (x1) and linux-6.10 (x10).
sqlite3 "$db" "
UPDATE command SET latency_ns = CASE trace_id WHEN 2 THEN 1000000 ELSE 1100000 END
	WHERE trace_id IN (2, 3) AND NOT flags & 32;
CREATE TEMP TABLE plan (src INTEGER, policy TEXT, k INTEGER);
INSERT INTO plan VALUES (2, 'linux-6.12', 1), (3, 'linux-6.12', 1), (2, 'linux-6.10', 10), (3, 'linux-6.10', 10);
INSERT INTO trace (name, kind, source, started_at, payloads, host, tool_version, parent_id, policy, status, commands, uuid)
	SELECT t.name, 'replay', t.source, t.started_at, t.payloads, t.host, t.tool_version, 1, p.policy, 'complete',
		t.commands, lower(hex(randomblob(16))) FROM plan p JOIN trace t ON t.id = p.src ORDER BY p.rowid;
INSERT INTO command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns, cc, rc, client_id, flags)
	SELECT 4 + p.rowid, c.seq, c.t_submit_ns, c.t_done_ns, c.latency_ns * p.k, c.cc, c.rc, c.client_id, c.flags
	FROM plan p JOIN command c ON c.trace_id = p.src;" 2>"$T/sql.err"
rc=$?
expect_eq "the chosen runs written ($(cat "$T/sql.err"))" "$rc" 0
expect_eq "traces 5-8: linux-6.12 twice, linux-6.10 twice" \
	"$(sqlite3 "$db" "SELECT group_concat(policy, ' ') FROM trace WHERE id > 4")" \
	"linux-6.12 linux-6.12 linux-6.10 linux-6.10"
emu_ms=$(sqlite3 "$db" "SELECT printf('%.6f', sum(latency_ns) / 1e6) FROM command WHERE trace_id = 4 AND NOT flags & 32")

"$TPMTRACE" report "$db" --trace 1 --json >"$T/r.json" 2>"$T/r.err"
expect_eq "report --json: exit status" "$?" 0
"$TPMTRACE" report "$db" --trace 1 -o "$T/r.html" 2>"$T/h.err"
expect_eq "report: exit status" "$?" 0

python3 - "$T/r.json" "$T/r.html" "$PROF" "$emu_ms" <<'PY' >"$T/py.out" 2>&1
import json, sys
from html.parser import HTMLParser
j = json.load(open(sys.argv[1])); page = open(sys.argv[2]).read(); prof = sys.argv[3]; emu_ms = float(sys.argv[4])
bad = []
def want(what, ok):
    print(("PASS " if ok else "FAIL ") + what)
    if not ok: bad.append(what)
meas = {r['policy']: r for r in j['measured']}
want("measured: as recorded, password, linux-6.10, linux-6.12 (%s)" % sorted(meas),
     sorted(meas) == ['as recorded', 'linux-6.10', 'linux-6.12', 'password'])
want("measured: no emulated run", all(r['figures'] == 'measured' and r['emulated'] is None for r in j['measured']))
want("measured: no row of the emulated run's TPM time",
     all(abs(r['tpm_ms'] - emu_ms) > 1e-3 for r in j['measured']))
want("emulated: the one run, with its profile",
     [(r['policy'], r['figures'], r['emulated'], r['runs']) for r in j['emulated']] == [('password', 'emulated', prof, 1)])
want("emulated: its TPM time", abs(j['emulated'][0]['tpm_ms'] - emu_ms) < 1e-3)
want("emulated: one run, no sd", j['emulated'][0]['tpm_ms_sd'] is None)
want("runs: 1 recording, 2 of each policy",
     [meas[p]['runs'] for p in ('as recorded', 'password', 'linux-6.12', 'linux-6.10')] == [1, 2, 2, 2])
pw = meas['password']
# 1 ms and 1.1 ms a command: the sd of the two runs' sums is 0.1/sqrt(2) ms a command.
n = pw['commands']
want("password: mean and sd of its two runs (%s, %s)" % (pw['tpm_ms'], pw['tpm_ms_sd']),
     abs(pw['tpm_ms'] - 1.05 * n) < 1e-6 and abs(pw['tpm_ms_sd'] - 0.1 * n / 2 ** 0.5) < 1e-6)
want("password: no verdict against itself", pw['vs_password'] is None)
want("one run: no sd", meas['as recorded']['tpm_ms_sd'] is None)
want("the recording against password: single runs", meas['as recorded']['vs_password']['verdict'] == 'single runs')
v12, v10 = meas['linux-6.12']['vs_password'], meas['linux-6.10']['vs_password']
want("linux-6.12, the same runs: within noise (%s)" % v12, v12['verdict'] == 'within noise' and v12['diff_ms'] == 0)
want("linux-6.10, ten times: higher (%s)" % v10, v10['verdict'] == 'higher' and abs(v10['ratio'] - 10) < 1e-6)

class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.svg = None; s.bars = {}; s.rows = []
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == 'svg': s.svg = a.get('id')
        if tag == 'g' and a.get('class') == 'bar':
            s.bars.setdefault(s.svg, []).append((a['data-label'], float(a['data-total-ns']) / 1e6))
        if tag == 'tr' and 'headline-row' in a.get('class', ''):
            s.rows.append(a)
    def handle_endtag(s, tag):
        if tag == 'svg': s.svg = None
p = P(); p.feed(page)
m, e = p.bars.get('policy-measured', []), p.bars.get('policy-emulated', [])
want("html: the measured chart has the recording and 3 policies (%s)" % [x for x, _ in m], len(m) == 4)
want("html: no emulated bar in the measured chart",
     all(prof not in lab and abs(ms - emu_ms) > 1e-3 for lab, ms in m))
want("html: the emulated chart holds the emulated run (%s)" % e,
     len(e) == 1 and prof in e[0][0] and abs(e[0][1] - emu_ms) < 1e-3)
rows = {(r['data-figures'], r['data-policy']): r for r in p.rows}
want("html: headline rows by figure (%s)" % sorted(rows),
     sorted(rows) == [('emulated', 'password'), ('measured', 'as recorded'), ('measured', 'linux-6.10'),
                      ('measured', 'linux-6.12'), ('measured', 'password')])
want("html: runs and sd", rows[('measured', 'password')]['data-runs'] == '2'
     and abs(float(rows[('measured', 'password')]['data-sd-ms']) - pw['tpm_ms_sd']) < 1e-5
     and rows[('measured', 'as recorded')]['data-sd-ms'] == '')
want("html: the verdicts", [rows[('measured', k)]['data-verdict'] for k in ('as recorded', 'linux-6.12', 'linux-6.10')]
     == ['single runs', 'within noise', 'higher'])
want("html: the emulated row is priced from its profile", ('emulated: latency from profile ' + prof) in page)
sys.exit(1 if bad else 0)
PY
rc=$?
cat "$T/py.out"
expect_eq "report keeps measured and emulated apart, with n, spread and verdicts" "$rc" 0
finish
