#!/usr/bin/env bash
# The proxy path under Valgrind memcheck: tpmtrace record (spawned swtpm,
# writer thread, checkpoint thread) serving raw clients, an MS-simulator
# client, several at once, one connection per command, malformed input and
# tpm2-tools, then stopping cleanly. Zero memcheck errors and zero definitely
# lost bytes. (Skipped in the sanitizer build: memcheck and ASan exclude each
# other.)
. "$(dirname "$0")/../lib/common.sh"
need valgrind swtpm sqlite3 tpm2_getrandom
case ${TPMTRACE_TEST_BUILD:-} in
*asan* | *fuzz*) skip "valgrind does not run sanitizer builds" ;;
esac

db=$T/vg.db
C=$TPMCLIENT
valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite --log-file="$T/vg.log" \
	"$TPMTRACE" record --spawn-swtpm --no-startup --db "$db" -- bash -c "
	set -e
	'$C' --connect \"\$TPMTRACE_TCTI\" --cmd startup >/dev/null
	'$C' --connect \"\$TPMTRACE_TCTI\" --cmd pcrextend --count 300 >/dev/null &
	'$C' --connect \"\$TPMTRACE_TCTI\" --cmd getrandom --count 300 --new-conn >/dev/null &
	'$C' --connect \"\$TPMTRACE_TCTI\" --cmd big --count 50 >/dev/null &
	wait
	'$C' --connect \"\$TPMTRACE_TCTI\" --cmd getcap --count 100 --mssim >/dev/null
	'$C' --connect \"\$TPMTRACE_TCTI\" --hex 68656c6c6f2c2074706d21 >/dev/null
	'$C' --connect \"\$TPMTRACE_TCTI\" --hex 80010000006400000144 >/dev/null
	'$C' --connect \"\$TPMTRACE_TCTI\" --hex 12340000000a00000144 >/dev/null
	tpm2_getrandom 16 >/dev/null
	tpm2_pcrread sha256:16 >/dev/null
	" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || { cat "$T/err" >&2; tail -30 "$T/vg.log" >&2; }
expect_eq "record under memcheck: exit status (99 = memcheck errors)" "$rc" 0
errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$T/vg.log" | tail -1)
expect_eq "memcheck errors" "$errors" 0
definite=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$T/vg.log" | tr -d , | tail -1)
expect_eq "definitely lost bytes" "${definite:-0}" 0
check "memcheck ran to the end" grep -q "ERROR SUMMARY" "$T/vg.log"
expect_eq "commands recorded (startup, 300 + 300 + 50 + 100, 3 malformed, tpm2-tools)" \
	"$(sqlite3 "$db" "SELECT count(*) >= 754 FROM command")" 1
expect_eq "trace closed" "$(sqlite3 "$db" "SELECT status FROM trace")" complete
finish
