#!/usr/bin/env bash
# push reads each trace's TPM and the response codes from the command rows
# it sends (db/pg/pg_push.c), on a real PostgreSQL 15 (tests/lib/pg.sh): a
# file of three traces of three chips (tests/lib/set_chip.py) pushed in one
# batch, its middle trace on the server already, stores each trace's own
# TPM in its host row, the one trace_chip_load reads for predict; every
# response code of the rows stored has its text in tpm_rc, and no other (not
# the codes of a trace left unpushed: they were all sent before).
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pg.sh"
need swtpm tpm2_getcap tpm2_getrandom tpm2_readpublic sqlite3 python3

check "a PostgreSQL 15 server starts in the test directory" pg_start pg
[ -n "${PGURL:-}" ] || finish

F=$T/f.db
rec() { # rec N: a trace recorded into f.db; the last command fails (no such handle)
	"$TPMTRACE" record --spawn-swtpm --db "$F" --quiet -- sh -c \
		"tpm2_getcap properties-fixed >/dev/null && for k in \$(seq $1); do
		tpm2_getrandom 8 >/dev/null; done; tpm2_readpublic -c 0x81000099 >/dev/null 2>&1;
		true" >>"$T/rec.out" 2>&1
}
chip() { # chip TRACE MANUFACTURER FW1 FW2 VENDOR
	SET_CHIP_TRACE=$1 python3 "$TPMTRACE_TEST_LIB/set_chip.py" "$F" "${@:2}"
}
rec_chip() { # rec_chip N TRACE MANUFACTURER FW1 FW2 VENDOR
	rec "$1" && chip "${@:2}"
}
check "trace 1 recorded, its answers an SLB9670's" rec_chip 3 1 IFX 0x00070055 0x0011CB00 SLB9670
check "trace 2 recorded, swtpm's own answers" rec 5
check "trace 3 recorded, its answers another chip's" rec_chip 2 3 TST 0x00010002 0x00030004 TESTCHIP
check "trace 4 recorded" rec 1
# Trace 4 unfinished (not pushed), one of its rows answered TPM_RC_RETRY.
sqlite3 "$F" "UPDATE trace SET status = 'recording' WHERE id = 4;
	UPDATE command SET rc = 2338 WHERE id = (SELECT max(id) FROM command WHERE trace_id = 4)"
expect_eq "three finished traces in the file, and an unfinished one" \
	"$(sqlite3 "$F" "SELECT group_concat(status, ' ') FROM trace")" \
	"complete complete complete recording"

host() { # host TRACE: its host row on the server, by the file's UUID
	psql_q -c "SELECT concat_ws('|', tpm_manufacturer, tpm_vendor, tpm_firmware,
		coalesce(tpm_profile, '-')) FROM trace_host h JOIN trace t ON t.id = h.trace_id
		WHERE t.uuid = '$(sqlite3 "$F" "SELECT uuid FROM trace WHERE id = $1")'"
}
"$TPMTRACE" push "$F" --trace 2 "$PGURL" >"$T/push2.out" 2>&1
expect_eq "trace 2 pushed alone" "$?" 0
alone=$(host 2)
check "... its host row names swtpm's TPM ($alone)" grep -q '^IBM|' <<<"$alone"

"$TPMTRACE" push "$F" "$PGURL" >"$T/push.out" 2>&1
expect_eq "the file pushed: exit status" "$?" 0
check "... traces 1 and 3 in one batch, 2 already there ($(head -c 200 "$T/push.out"))" \
	grep -q "^pushed 2 traces (.*); 1 already on the server; 1 unfinished left" "$T/push.out"
expect_eq "trace 1's host row: the SLB9670 and its shipped profile" "$(host 1)" \
	"IFX|SLB9670|7.85.17.51968|ifx-slb9670-fw7.85.17.51968"
expect_eq "trace 2's host row as when pushed alone" "$(host 2)" "$alone"
expect_eq "trace 3's host row: its own chip, no shipped profile" "$(host 3)" \
	"TST|TESTCHIP|1.2.3.4|-"

# The response codes: the pushed rows hold success and a failure at least.
want=$(sqlite3 "$F" "SELECT group_concat(rc, ' ') FROM (SELECT DISTINCT rc FROM command
	WHERE rc IS NOT NULL AND trace_id < 4 ORDER BY rc)")
check "the pushed rows hold more than one response code ($want)" test "$(wc -w <<<"$want")" -gt 1
expect_eq "tpm_rc holds the codes of the rows stored, each once" \
	"$(psql_q -c "SELECT string_agg(rc::text, ' ' ORDER BY rc) FROM tpm_rc")" "$want"
expect_eq "every stored row's code has its text" \
	"$(psql_q -c "SELECT count(*) FROM command WHERE rc IS NOT NULL AND tpm_rc_text(rc) IS NULL")" 0

finish
