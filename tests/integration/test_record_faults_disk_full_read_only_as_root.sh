#!/usr/bin/env bash
# Faults while recording that need root: (1) disk full (a size-limited tmpfs):
# traffic continues, one warning, drops counted exactly, recording resumes
# when space returns; (1b) a disk full when the recorder stops: the trace
# closed, or a message and a non-zero exit; (1c) an import meeting a full disk
# stores nothing of its file; (2) the database directory and files made
# read-only mid-recording (the recorder running as nobody): traffic continues, counts
# exact. Skipped as a whole without root (tests/README.md, "Skips").
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 setpriv
[ "$(id -u)" -eq 0 ] || skip "needs root: mounts a size-limited tmpfs and runs the recorder as nobody"

# on_full_disk NAME CMD COUNT: a recorder of a private swtpm with its database
# on a 1 MB tmpfs ($T/NAME; db=$T/NAME/full.db, socket $T/NAME.sock), a
# client's Startup and COUNT commands CMD committed; then the disk filled.
on_full_disk() {
	mkdir -p "$T/$1"
	mount -t tmpfs -o size=1m tpmtrace-test "$T/$1"
	expect_eq "$1: a 1 MB tmpfs for the database" "$?" 0
	start_swtpm "$T/sw-$1"
	db=$T/$1/full.db
	record_bg "$db" --backend "swtpm:path=$T/sw-$1/s.sock" --listen "unix:$T/$1.sock" --payloads full
	wait_for_socket "$T/$1.sock"
	"$TPMCLIENT" --connect "unix:$T/$1.sock" --cmd startup >/dev/null
	check "$1: before" "$TPMCLIENT" --connect "unix:$T/$1.sock" --cmd "$2" --count "$3"
	check "$1: the first $(($3 + 1)) commands committed" \
		wait_until "[ \"\$(sqlite3 '$db' 'SELECT count(*) FROM command')\" = $(($3 + 1)) ]"
	dd if=/dev/zero of="$T/$1/filler" bs=4k 2>/dev/null
}

# -- 1. Disk full.
{
	on_full_disk full getrandom 200
	check "disk full: traffic continues" "$TPMCLIENT" --connect "unix:$T/full.sock" --cmd big --count 2000
	check "disk full: the recorder saw its writes fail" wait_until "grep -q 'cannot write' '$T/record.err'"
	# The space comes back once the writer has dealt with (dropped) all
	# of them: a backlog stored after would fill the disk again.
	check "disk full: the writer's queue drained (its status line, SIGUSR1)" record_drained
	rm -f "$T/full/filler"
	check "disk full: after" "$TPMCLIENT" --connect "unix:$T/full.sock" --cmd getrandom --count 200
	check "disk full: recording resumed" \
		wait_until "grep -q 'writes to .* succeed again' '$T/record.err'"
	kill -TERM $RECORD_PID
	wait $RECORD_PID
	expect_eq "disk full: the recorder's exit status" "$?" 0
	read -r fwd rec drop _ <<<"$(record_summary)"
	expect_eq "disk full: commands forwarded" "$fwd" 2401
	check "disk full: drops counted" [ "${drop:-0}" -gt 0 ]
	expect_eq "disk full: recorded + dropped = forwarded" "$((rec + drop))" 2401
	expect_eq "disk full: rows stored = recorded" "$(sqlite3 "$db" "SELECT count(*) FROM command")" "$rec"
	expect_eq "disk full: a single warning" "$(grep -c 'cannot write' "$T/record.err")" 1
	check "disk full: commands after the space returned are stored" \
		[ "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom')")" -gt 200 ]
	expect_eq "disk full: integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
	st=$(sqlite3 "$db" "SELECT status FROM trace")
	expect_eq "disk full: trace closed" "$st" complete
	[ "$st" = complete ] || cat "$T/record.err" >&2
	umount "$T/full"
}

# -- 1b. Disk full when the recorder stops: the closing write of the trace row
# may fail (the recorder folds the WAL in and tries once more). Either it
# closed the trace and exits 0, or it says so and exits non-zero: never a
# trace left 'recording' with an exit 0.
{
	on_full_disk full2 big 300
	kill -TERM $RECORD_PID
	wait $RECORD_PID
	rc=$?
	rm -f "$T/full2/filler"
	st=$(sqlite3 "$db" "SELECT status FROM trace")
	echo "full at stop: exit status $rc, trace status $st"
	check "full at stop: exit 0 only with the trace closed (exit $rc, status $st)" \
		[ "$rc" = 0 -a "$st" = complete -o "$rc" != 0 -a "$st" = recording ]
	if [ "$rc" != 0 ]; then
		check "full at stop: the message says the trace could not be finalized" \
			grep -q 'could not finalize trace' "$T/record.err"
	fi
	expect_eq "full at stop: integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
	umount "$T/full2"
}

# -- 1c. An import that meets a full disk stores nothing of its file (issue
# 36, item 9: an import is one transaction). Before, it left an incomplete
# trace of the rows committed so far, which it could not remove.
{
	mkdir -p "$T/imp"
	mount -t tmpfs -o size=1m tpmtrace-test "$T/imp"
	expect_eq "import: a 1 MB tmpfs for the database" "$?" 0
	FIX=$TPMTRACE_SRC/tests/integration/pcap_fixture.py
	python3 "$FIX" many 10 "$T/small.pcap" && python3 "$FIX" many 20000 "$T/big.pcap"
	check "import: the captures made" [ $? -eq 0 ]
	db=$T/imp/i.db
	check "import: a small capture first (trace 1)" \
		"$TPMTRACE" import pcap "$T/small.pcap" --db "$db" --quiet
	"$TPMTRACE" import pcap "$T/big.pcap" --db "$db" --quiet 2>"$T/imp.err"
	expect_eq "import: a capture larger than the disk fails" "$?" 1
	check "import: ... saying nothing of it is stored ($(tr '\n' ' ' <"$T/imp.err"))" \
		grep -q "nothing of it is stored" "$T/imp.err"
	expect_eq "import: nothing of it left (traces; commands, clients beyond trace 1)" \
		"$(sqlite3 "$db" "SELECT count(*), (SELECT count(*) FROM command WHERE trace_id > 1),
			(SELECT count(*) FROM client WHERE trace_id > 1) FROM trace")" "1|0|0"
	expect_eq "import: integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
	umount "$T/imp"
}

# -- 2. Read-only directory and files, recorder running as nobody.
{
	mkdir -p "$T/ro" "$T/rotmp"
	chown nobody "$T/ro" "$T/rotmp"
	NB=$(for_others "$TPMTRACE")
	chmod 755 "$T"
	db=$T/ro/ro.db
	TMPDIR=$T/rotmp setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$NB" record --db "$db" --spawn-swtpm --listen "unix:$T/rotmp/p4.sock" 2>"$T/record.err" &
	RECORD_PID=$!
	PIDS+=($RECORD_PID)
	wait_for_socket "$T/rotmp/p4.sock"
	"$TPMCLIENT" --connect "unix:$T/rotmp/p4.sock" --cmd startup >/dev/null
	check "read-only: before" "$TPMCLIENT" --connect "unix:$T/rotmp/p4.sock" --cmd getrandom --count 300
	chmod 0444 "$db"*
	chmod 0555 "$T/ro"
	check "read-only: traffic continues" "$TPMCLIENT" --connect "unix:$T/rotmp/p4.sock" --cmd getrandom --count 300
	kill -TERM $RECORD_PID
	wait $RECORD_PID
	read -r fwd rec drop _ <<<"$(record_summary)"
	# 600 getrandom and the client's startup (the figures count the clients'
	# commands: docs/schema.md, "Figures"); tpmtrace's own Startup of the
	# swtpm it spawned is counted on its own line.
	expect_eq "read-only: commands forwarded" "$fwd" 601
	expect_eq "read-only: recorded + dropped = forwarded" "$((rec + drop))" 601
	expect_eq "read-only: the clients' rows stored = recorded" \
		"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE flags & 32 = 0")" "$rec"
	check "read-only: tpmtrace's own Startup on its own line" \
		grep -q "1 own commands (Startup, resource-manager flushes)" "$T/record.err"
	expect_eq "read-only: integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
	chmod 0755 "$T/ro"
}
finish
