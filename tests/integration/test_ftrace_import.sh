#!/bin/bash
# `tpmtrace import ftrace`: function_graph text in the form posted on
# linux-integrity, generated here with random durations (the generator writes
# down what it put in; the import must give back exactly that): one command
# per timed TPM command, code from the enclosing tpm2_* function, latency the
# tpm_transmit_cmd duration, HMAC authorization when a session was started
# inside, two CPUs interleaved, '+ ! # * @ $' markers, ms durations; with
# funcgraph-abstime the kernel's times are kept, without it commands are laid
# end to end and flagged. No bytes: payloads 'none', rc and sizes NULL.
. "$(dirname "$0")/../lib/common.sh"
need python3 sqlite3

gen() { # gen OUT EXPECTED ABSTIME(0|1) SEED
	python3 - "$@" <<'EOF'
import random, sys
out, exp, abstime, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
lines, want = [], []
clock = [100.0]  # seconds

def mark(us):
    # function_graph's markers: + >10us ! >100us # >1ms * >10ms @ >100ms $ >1s
    for lim, m in ((1e6, '$'), (1e5, '@'), (1e4, '*'), (1e3, '#'), (100, '!'), (10, '+')):
        if us > lim:
            return m
    return ' '

def emit(cpu, dur_us, depth, text, t=None):
    ts = ('%12.6f | ' % (clock[0] if t is None else t)) if abstime else ''
    d = ('%s %.3f us' % (mark(dur_us), dur_us)) if dur_us is not None else ''
    lines.append('%s %d) %13s |  %s%s' % (ts, cpu, d, '  ' * depth, text))

def transmit(cpu, depth, fn, cc, auth):
    us = round(rnd.uniform(20, 200000), 3)
    t0 = clock[0]
    if rnd.random() < 0.5:
        emit(cpu, us, depth, 'tpm_transmit_cmd();')
    else:  # opened and closed, with an inner tpm_try_transmit
        emit(cpu, None, depth, 'tpm_transmit_cmd() {')
        inner = round(us * 0.98, 3)
        emit(cpu, inner, depth + 1, 'tpm_try_transmit();')
        clock[0] = t0 + us / 1e6
        emit(cpu, us, depth, '}')
    clock[0] = t0 + us / 1e6 + 0.000002
    want.append((cc, auth, round(us * 1000), int(round(t0 * 1e9))))

def op(cpu, kind):
    t0 = clock[0]
    if kind == 'extend-hmac':  # Linux >= 6.10: session around the extend
        emit(cpu, None, 0, 'tpm2_pcr_extend() {')
        emit(cpu, None, 1, 'tpm2_start_auth_session() {')
        emit(cpu, None, 2, 'tpm2_load_context() {')
        transmit(cpu, 3, 'tpm2_load_context', 'ContextLoad', 0)
        emit(cpu, 1.0, 2, '}')
        transmit(cpu, 2, 'tpm2_start_auth_session', 'StartAuthSession', 0)
        emit(cpu, None, 2, 'tpm2_flush_context() {')
        transmit(cpu, 3, 'tpm2_flush_context', 'FlushContext', 0)
        emit(cpu, 1.0, 2, '}')
        emit(cpu, 1.0, 1, '}')
        transmit(cpu, 1, 'tpm2_pcr_extend', 'PCR_Extend', 2)
        emit(cpu, (clock[0] - t0) * 1e6, 0, '}')
    elif kind == 'extend':
        emit(cpu, None, 0, 'tpm2_pcr_extend() {')
        transmit(cpu, 1, 'tpm2_pcr_extend', 'PCR_Extend', 1)
        emit(cpu, (clock[0] - t0) * 1e6, 0, '}')
    elif kind == 'random-leaf':  # only tpm2_* functions traced: the function's own time
        us = round(rnd.uniform(100, 9000), 3)
        emit(cpu, us, 0, 'tpm2_get_random();')
        want.append(('GetRandom', 0, round(us * 1000), int(round(t0 * 1e9))))
        clock[0] += us / 1e6 + 0.000002
    elif kind == 'stray':  # a transmission outside any tpm2_* function: skipped
        emit(cpu, 55.5, 0, 'tpm_transmit_cmd();')
        clock[0] += 0.0001

lines += ['# tracer: function_graph', '#', '# CPU  DURATION                  FUNCTION CALLS',
          '# |     |   |                     |   |   |   |']
for i in range(40):
    cpu = rnd.choice((0, 1, 3))
    op(cpu, rnd.choice(('extend-hmac', 'extend', 'random-leaf', 'extend-hmac')))
    if i == 7:
        lines.append(' ------------------------------------------')
        lines.append(' 1)  kworker-42   =>   systemd-1   ')
        lines.append(' ------------------------------------------')
        op(0, 'stray')
open(out, 'w').write('\n'.join(lines) + '\n')
with open(exp, 'w') as f:
    for cc, auth, ns, t in want:
        f.write('%s|%d|%d|%d\n' % (cc, auth, ns, t))
EOF
}

DB=$T/t.db
gen "$T/plain.txt" "$T/plain.want" 0 1
"$TPMTRACE" import ftrace "$T/plain.txt" --db "$DB" >"$T/out" 2>"$T/err"
rc=$?
expect_eq "import of function_graph text ($(cat "$T/err"))" "$rc" 0
id=$(sqlite3 "$DB" "SELECT id FROM trace WHERE source='$T/plain.txt'")
sqlite3 "$DB" "SELECT n.name, c.auth_kind, c.latency_ns FROM command c JOIN tpm_cc n ON n.cc = c.cc
	WHERE trace_id=$id ORDER BY seq" >"$T/plain.got"
cut -d'|' -f1-3 "$T/plain.want" >"$T/plain.want3"
if diff -q "$T/plain.want3" "$T/plain.got" >/dev/null; then PASS=$((PASS + 1)); else
	FAIL=$((FAIL + 1)); echo "FAILED: commands, auth and latencies differ:" >&2
	diff "$T/plain.want3" "$T/plain.got" | head >&2; fi
expect_eq "one command per timed TPM command" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM command WHERE trace_id=$id")" "$(wc -l <"$T/plain.want")"
expect_eq "no bytes: payloads none, cmd/rsp/rc/sizes NULL" \
	"$(sqlite3 "$DB" "SELECT (SELECT payloads FROM trace WHERE id=$id), count(*) FROM command
		WHERE trace_id=$id AND cmd IS NULL AND rsp IS NULL AND rc IS NULL AND cmd_size IS NULL
		AND rsp_size IS NULL AND pcr IS NULL")" "none|$(wc -l <"$T/plain.want")"
expect_eq "no timestamps: flag 16 on every row, laid end to end from 0" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM command c WHERE trace_id=$id AND (flags != 16 OR t_submit_ns !=
		coalesce((SELECT t_done_ns FROM command p WHERE p.trace_id=$id AND p.seq < c.seq ORDER BY seq DESC LIMIT 1), 0))")" 0
expect_eq "the stray transmission is noted, not stored" \
	"$(sqlite3 "$DB" "SELECT notes LIKE '%1 timed transmissions outside a known tpm2_* function skipped%' FROM trace WHERE id=$id")" 1
expect_eq "an 'ftrace' event per command names the function" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM event WHERE trace_id=$id AND kind='ftrace' AND detail LIKE 'tpm2_%'")" \
	"$(wc -l <"$T/plain.want")"
# stats reads the latencies (command_stats view): the PCR_Extend total.
expect_eq "command_stats totals the PCR_Extend latencies" \
	"$(sqlite3 "$DB" "SELECT total_ns FROM command_stats WHERE trace_id=$id AND name='PCR_Extend'")" \
	"$(awk -F'|' '$1 == "PCR_Extend" { s += $3 } END { printf "%.0f\n", s }' "$T/plain.want")"

# With funcgraph-abstime: the kernel's clock is kept, no flag.
gen "$T/abs.txt" "$T/abs.want" 1 2
"$TPMTRACE" import ftrace "$T/abs.txt" --db "$DB" --name abs >/dev/null 2>"$T/err"
rc=$?
expect_eq "import with funcgraph-abstime ($(cat "$T/err"))" "$rc" 0
aid=$(sqlite3 "$DB" "SELECT id FROM trace WHERE name='abs'")
sqlite3 "$DB" "SELECT n.name, c.auth_kind, c.latency_ns, c.t_submit_ns, c.flags FROM command c
	JOIN tpm_cc n ON n.cc = c.cc WHERE trace_id=$aid ORDER BY seq" >"$T/abs.got"
# The printed clock has microsecond resolution.
python3 - "$T/abs.want" "$T/abs.got" <<'EOF'
import sys
w = [l.strip().split('|') for l in open(sys.argv[1])]
g = [l.strip().split('|') for l in open(sys.argv[2])]
assert len(w) == len(g), (len(w), len(g))
for a, b in zip(w, g):
    assert a[:3] == b[:3], (a, b)
    assert abs(int(a[3]) - int(b[3])) <= 1000, (a, b)
    assert b[4] == '0', b
EOF
check "abstime: codes, auth, latencies, start times (to 1 us), no flag" test $? -eq 0

# Bad input: a duration that is not a number, named by file and line; no trace.
before=$(sqlite3 "$DB" "SELECT count(*) FROM trace")
sed '12s/[0-9][0-9]*\.[0-9]* us/1x2.5 us/' "$T/plain.txt" >"$T/bad.txt"
grep -q '1x2.5 us' "$T/bad.txt" || sed -i '12s/|/1x2.5 us |/' "$T/bad.txt"
"$TPMTRACE" import ftrace "$T/bad.txt" --db "$DB" >/dev/null 2>"$T/err"
check "a bad duration fails" test $? -eq 1
check "naming file and line ($(cat "$T/err"))" grep -q "bad.txt:12: duration" "$T/err"
printf '# tracer: function_graph\n 0)   5.0 us | schedule();\n' >"$T/none.txt"
"$TPMTRACE" import ftrace "$T/none.txt" --db "$DB" >/dev/null 2>"$T/err"
check "no TPM functions fails" test $? -eq 1
check "and says so ($(cat "$T/err"))" grep -q "not ftrace function_graph output of the kernel's TPM functions (no timed" "$T/err"
expect_eq "failed imports leave no trace" "$(sqlite3 "$DB" "SELECT count(*) FROM trace")" "$before"

# The same text through the profile importer (the other consumer of the parser)
# gives the same per-command means.
"$TPMTRACE" profile import ftrace "$T/plain.txt" "$DB" --name ft >/dev/null 2>"$T/err"
rc=$?
expect_eq "profile import ftrace of the same text ($(cat "$T/err"))" "$rc" 0
expect_eq "profile means equal the imported latencies' means" \
	"$(sqlite3 "$DB" "SELECT group_concat(x, ' ') FROM (SELECT n.name || '=' || round(avg(c.latency_ns)) AS x
			FROM command c JOIN tpm_cc n ON n.cc=c.cc WHERE trace_id=$id GROUP BY c.cc, c.auth_kind ORDER BY c.cc, c.auth_kind)")" \
	"$(sqlite3 "$DB" "SELECT group_concat(x, ' ') FROM (SELECT n.name || '=' || round(avg(e.mean_ns)) AS x
			FROM profile_entry e JOIN tpm_cc n ON n.cc=e.cc GROUP BY e.cc, e.auth ORDER BY e.cc, CASE e.auth WHEN 'none' THEN 0 WHEN 'password' THEN 1 ELSE 2 END)")"
finish
