#!/usr/bin/env bash
# A replay keeps who sent what (issue 31, item 7): a tpm2-tools recording
# (tpm2_createprimary, tpm2_getrandom, tpm2_pcrread) replayed under
# linux-6.10 has its source's clients (the same numbers, pids and names), each
# replayed command the client of its source command, in the source's order;
# the commands the policy added are marked (flag 128), as many as predict says
# the policy adds to the trace, each with a client of the trace; `show` marks
# them with '+', `show -V` says "added by policy linux-6.10", and
# `show --client tpm2_getrandom` keeps that process's commands and what the
# policy added for them.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3 tpm2_createprimary tpm2_getrandom tpm2_pcrread

cd "$T" || exit 1
db=$T/r.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --quiet -- sh -c \
	'tpm2_createprimary -C o -c p.ctx >/dev/null && tpm2_getrandom 8 >/dev/null && tpm2_pcrread sha256:0 >/dev/null' \
	2>"$T/rec.err"
rc=$?
expect_eq "recording ($(tail -n 2 "$T/rec.err"))" "$rc" 0
"$TPMTRACE" replay "$db" --trace 1 --policy linux-6.10 >"$T/replay.out" 2>&1
rc=$?
expect_eq "replay under linux-6.10 ($(tail -n 2 "$T/replay.out"))" "$rc" 0
q() { sqlite3 "$db" "$1"; }
expect_eq "the run is trace 2, a replay of 1" "$(q "SELECT kind || ' ' || parent_id FROM trace WHERE id=2")" "replay 1"
# The replay folds the WAL into the file once the run's time is taken
# (writer_cfg.fold_at_close): the file alone, without its -wal, holds the
# whole run when the replay has exited.
check "no WAL left beside the file" [ ! -s "$db-wal" ]
cp "$db" "$T/alone.db"
expect_eq "the file alone holds every row of the run, and its end" \
	"$(sqlite3 "$T/alone.db" "SELECT count(*) || ' ' || (SELECT status || ' ' || (fidelity IS NOT NULL)
	   FROM trace WHERE id=2) FROM command WHERE trace_id=2")" \
	"$(q "SELECT count(*) FROM command WHERE trace_id=2") complete 1"

clients() { q "SELECT group_concat(id || ':' || coalesce(pid, '-') || ':' || coalesce(comm, '-'), ' ')
	FROM (SELECT * FROM client WHERE trace_id=$1 ORDER BY id)"; }
check "the source has its three programs" [ "$(q "SELECT count(*) FROM client WHERE trace_id=1 AND comm LIKE 'tpm2_%'")" -eq 3 ]
expect_eq "the replay's clients are the source's (numbers, pids, names)" "$(clients 2)" "$(clients 1)"
src_rows() { q "SELECT group_concat(cc || '@' || client_id, ' ') FROM (SELECT cc, client_id FROM command
	WHERE trace_id=$1 AND flags & $2 = 0 ORDER BY seq)"; }
expect_eq "each replayed command has its source command's client, in order" \
	"$(src_rows 2 160)" "$(src_rows 1 32)"
expect_eq "every row of the replay has a client of the trace" \
	"$(q "SELECT count(*) FROM command c WHERE trace_id=2 AND NOT EXISTS
	   (SELECT 1 FROM client l WHERE l.trace_id=2 AND l.id=c.client_id)")" 0
expect_eq "each client's first_ns is its first command in the run" \
	"$(q "SELECT count(*) FROM client l WHERE trace_id=2 AND first_ns IS NOT (SELECT min(t_submit_ns)
	   FROM command c WHERE c.trace_id=2 AND c.client_id=l.id)")" 0

# as many added as predict says the policy adds to this trace
"$TPMTRACE" predict "$db" --trace 1 --policy linux-6.10 --profile slb9670-linux-integrity --json \
	>"$T/predict.json" 2>/dev/null
added=$(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["policies"][0]
print(sum(n for role, n in p["by_role"].items() if role != "original"))' "$T/predict.json")
check "predict: linux-6.10 adds commands to this trace" [ "${added:-0}" -gt 0 ]
expect_eq "the commands marked added (flag 128) are predict's count" \
	"$(q "SELECT count(*) FROM command WHERE trace_id=2 AND flags & 128")" "$added"
expect_eq "none of them the replay's own (flag 32)" \
	"$(q "SELECT count(*) FROM command WHERE trace_id=2 AND flags & 128 AND flags & 32")" 0

"$TPMTRACE" show "$db" --trace 2 >"$T/show.txt"
expect_eq "show marks each added command with '+'" \
	"$(grep -Ec '^ *[0-9]+ +[0-9.]+\+[A-Za-z]' "$T/show.txt")" "$added"
s=$(q "SELECT seq FROM command WHERE trace_id=2 AND flags & 128 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') LIMIT 1")
cl=$(q "SELECT l.comm FROM command c JOIN client l ON l.trace_id=2 AND l.id=c.client_id WHERE c.trace_id=2 AND c.seq=$s")
"$TPMTRACE" show "$db" --trace 2 --seq "$s" -V >"$T/v.txt"
check "show -V: an added StartAuthSession says so, with its client ($cl)" \
	grep -q "^Command: seq $s, trace 2, client [0-9]* ($cl), added by policy linux-6.10, StartAuthSession" "$T/v.txt"
gr=$(q "SELECT count(*) FROM command c JOIN client l ON l.trace_id=2 AND l.id=c.client_id
	WHERE c.trace_id=2 AND l.comm='tpm2_getrandom'")
expect_eq "show --client tpm2_getrandom: its commands and the policy's for them" \
	"$("$TPMTRACE" show "$db" --trace 2 --client tpm2_getrandom | wc -l)" "$gr"
check "... of which some the policy added" \
	[ "$(q "SELECT count(*) FROM command c JOIN client l ON l.trace_id=2 AND l.id=c.client_id
	   WHERE c.trace_id=2 AND l.comm='tpm2_getrandom' AND c.flags & 128")" -gt 0 ]

# first_ns is noted as the run sends (replayer/replay_clients.c), by client
# number up to 65535, and found by SQL beyond: a copy whose tpm2_getrandom is
# client 70000 and which has a client that sent nothing, replayed as trace 3.
db2=$T/r2.db
cp "$db" "$db2"
sqlite3 "$db2" "UPDATE command SET client_id=70000 WHERE trace_id=1 AND client_id=
	(SELECT id FROM client WHERE trace_id=1 AND comm='tpm2_getrandom');
	UPDATE client SET id=70000 WHERE trace_id=1 AND comm='tpm2_getrandom';
	INSERT INTO client (trace_id, id, comm) VALUES (1, 50, 'idle')"
"$TPMTRACE" replay "$db2" --trace 1 --policy linux-6.10 >"$T/replay2.out" 2>&1
rc=$?
expect_eq "replay of the renumbered copy ($(tail -n 2 "$T/replay2.out"))" "$rc" 0
q2() { sqlite3 "$db2" "$1"; }
expect_eq "... each client's first_ns is its first command in the run" \
	"$(q2 "SELECT count(*) FROM client l WHERE trace_id=3 AND first_ns IS NOT (SELECT min(t_submit_ns)
	   FROM command c WHERE c.trace_id=3 AND c.client_id=l.id)")" 0
expect_eq "... client 70000's is set, the idle one's NULL" \
	"$(q2 "SELECT group_concat(id || ':' || (first_ns IS NULL), ' ') FROM
	   (SELECT * FROM client WHERE trace_id=3 AND id IN (50, 70000) ORDER BY id)")" "50:1 70000:0"
finish
