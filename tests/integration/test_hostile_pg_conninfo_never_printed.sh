#!/usr/bin/env bash
# A connection string is never printed (issue 36 item 6), on a real
# PostgreSQL 15 (tests/lib/pg.sh): push and fleet, given a password in every
# libpq spelling (spaces around '=', a quoted value with spaces, a tab before
# '=', backslash escapes, user:password@ and ?password= of a URL, sslpassword,
# a database name that is itself a URL with a password), refuse it and print
# neither the password nor the string, whether the string leads to the live
# server or to a port nobody listens on, or stands where DB or stats go; an
# upper-case PASSWORD= and strings libpq cannot parse are said to be
# unparsable, not echoed. Without a
# password, every message (a refused connection, a foreign schema, no schema
# yet) and the fleet report name the server by host, port, database and user
# as libpq parsed them, never by the string (before: the string was printed
# with "password=****", which left a quoted password's second word, an
# upper-case key and everything else in clear).
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3
. "$(dirname "$0")/../lib/pg.sh"
check "a PostgreSQL 15 server starts in the test directory" pg_start pg
[ -n "${PGURL:-}" ] || finish
S=$PGSOCK
TOK=Sx$RANDOM$RANDOM # in every password: found in no output
MARK=Mk$RANDOM$RANDOM # in every string without a password: found in no output

"$TPMTRACE" record --spawn-swtpm --no-startup --db "$T/h.db" --quiet -- sh -c \
	"'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd startup --quiet >/dev/null"
expect_eq "a trace recorded" "$?" 0

# run NAME CONNINFO ARGS...: push h.db or fleet stats with CONNINFO, output in
# NAME.out, status in NAME.rc; push-swapped and fleet-swapped: CONNINFO in the
# wrong place (where DB or stats go).
run() {
	local name=$1 ci=$2
	shift 2
	if [ "$1" = push ]; then
		"$TPMTRACE" push "$T/h.db" "$ci" >"$T/$name.out" 2>&1
	elif [ "$1" = push-swapped ]; then
		"$TPMTRACE" push "$ci" "$T/h.db" >"$T/$name.out" 2>&1
	elif [ "$1" = fleet-swapped ]; then
		"$TPMTRACE" fleet "${@:2}" "$ci" >"$T/$name.out" 2>&1
	else
		"$TPMTRACE" fleet "$ci" "${@:2}" >"$T/$name.out" 2>&1
	fi
	echo $? >"$T/$name.rc"
}
hidden() { # hidden FILE STRING...: none of the strings is in FILE
	local f=$1 s
	shift
	for s in "$@"; do
		if grep -qF -- "$s" "$f"; then
			echo "$f holds: $(grep -F -- "$s" "$f")" >&2
			return 1
		fi
	done
}
names() { # names FILE PORT [DB]: the server by its parts, as libpq parsed them
	grep -qF "host $S, port $2, database ${3:-postgres}, user tpmtrace" "$1"
}

# ---- a password in every spelling: refused, neither it nor the string shown ----
# LABEL|CONNINFO (PORT stands for the port, SOCK for the socket directory)
spellings=(
	"spaces around =|host=SOCK port=PORT dbname=postgres user=tpmtrace password = 'PG-$TOK'"
	"quoted, a space inside|host=SOCK port=PORT dbname=postgres user=tpmtrace password='PG $TOK'"
	"a tab before =|host=SOCK port=PORT dbname=postgres user=tpmtrace password	='$TOK'"
	"backslash escapes|host=SOCK port=PORT dbname=postgres user=tpmtrace password='P\\'G\\\\ $TOK'"
	"unquoted, last|host=SOCK port=PORT dbname=postgres user=tpmtrace password=$TOK"
	"sslpassword|host=SOCK port=PORT dbname=postgres user=tpmtrace sslpassword='k $TOK'"
	"URL user:password@|postgresql://tpmtrace:$TOK@/postgres?host=SOCK&port=PORT"
	"URL ?password=|postgresql:///postgres?host=SOCK&port=PORT&user=tpmtrace&password=$TOK"
	"URL percent-encoded|postgresql://tpmtrace:%50$TOK@/postgres?host=SOCK&port=PORT"
	"database name a URL with a password|host=SOCK port=PORT user=tpmtrace dbname='postgresql://u:$TOK@/x'"
	"upper-case PASSWORD=|host=SOCK port=PORT dbname=postgres user=tpmtrace PASSWORD='$TOK'"
	"not key=value|host=SOCK port=PORT dbname=postgres $TOK"
	"a URL libpq cannot parse|postgresql://tpmtrace:$TOK@[SOCK/postgres?port=PORT"
)
n=0
for sp in "${spellings[@]}"; do
	label=${sp%%|*}
	for port in 5432 1; do
		ci=${sp#*|}
		ci=${ci//SOCK/$S}
		ci=${ci//PORT/$port}
		for cmd in push fleet; do
			n=$((n + 1))
			run "pw$n" "$ci" $cmd stats
			what="$label, $cmd, port $port"
			expect_eq "$what: exit 1 ($(tr -d '\n' <"$T/pw$n.out" | head -c 300 |
				sed "s/$TOK/<password>/g"))" "$(cat "$T/pw$n.rc")" 1
			check "$what: neither the password nor the string is shown" \
				hidden "$T/pw$n.out" "$TOK" "$ci"
			# The string in the wrong place: not shown either.
			run "sw$n" "$ci" $cmd-swapped stats
			want=2 # fleet: a usage error; push: DB is read as the URL
			[ $cmd = fleet ] || want=1
			expect_eq "$what, in the wrong place: exit $want" "$(cat "$T/sw$n.rc")" $want
			check "$what, in the wrong place: neither the password nor the string is shown" \
				hidden "$T/sw$n.out" "$TOK" "$ci"
			case $label in
			upper-case* | not* | *cannot*)
				check "$what: said to be unparsable" \
					grep -q 'could not be parsed by libpq (not shown' "$T/pw$n.out"
				;;
			database*)
				check "$what: refused as holding a password, the server by its parts" \
					grep -qF "host $S, port $port, database (a connection string, not shown), user tpmtrace) holds a password" \
					"$T/pw$n.out"
				;;
			*)
				check "$what: refused as holding a password, the server by its parts" \
					names "$T/pw$n.out" "$port"
				check "$what: says why and what to do" \
					grep -q 'holds a password, .*~/.pgpass' "$T/pw$n.out"
				;;
			esac
		done
	done
done
expect_eq "nothing was pushed with a password" \
	"$(psql_q -c "SELECT count(*) FROM pg_tables WHERE tablename = 'tpmtrace_meta'")" 0

# ---- no password: the server named by its parts, never by the string ----
KV="host=$S port=PORT dbname=DB user=tpmtrace application_name=$MARK"
URL="postgresql:///DB?host=$S&port=PORT&user=tpmtrace&application_name=$MARK"
psql_q -c "CREATE DATABASE foreign_app" -c "CREATE DATABASE empty" >/dev/null
psql "postgresql:///foreign_app?host=$S&user=tpmtrace" -X -q -c "CREATE TABLE trace (x int)"
for form in KV URL; do
	tmpl=${!form}
	ci() { local c=${tmpl//PORT/$1}; printf %s "${c//DB/$2}"; }
	run "$form-refused" "$(ci 1 postgres)" push
	run "$form-refused-fleet" "$(ci 1 postgres)" fleet stats
	for f in refused refused-fleet; do
		expect_eq "$form, port 1, $f: exit 1 ($(head -c 300 "$T/$form-$f.out"))" \
			"$(cat "$T/$form-$f.rc")" 1
		check "$form, port 1, $f: the server by its parts, libpq's reason" \
			grep -qF "cannot connect to the server (host $S, port 1, database postgres, user tpmtrace): connection to server on socket" \
			"$T/$form-$f.out"
		check "$form, port 1, $f: the string is not shown" hidden "$T/$form-$f.out" "$MARK"
	done
	run "$form-foreign" "$(ci 5432 foreign_app)" push
	expect_eq "$form, a foreign schema: exit 1 ($(head -c 300 "$T/$form-foreign.out"))" \
		"$(cat "$T/$form-foreign.rc")" 1
	check "$form, a foreign schema: the server by its parts" \
		names "$T/$form-foreign.out" 5432 foreign_app
	check "$form, a foreign schema: the string is not shown" \
		hidden "$T/$form-foreign.out" "$MARK"
	run "$form-empty" "$(ci 5432 empty)" fleet stats
	expect_eq "$form, fleet on no schema: exit 1 ($(head -c 300 "$T/$form-empty.out"))" \
		"$(cat "$T/$form-empty.rc")" 1
	check "$form, fleet on no schema: the server by its parts" \
		names "$T/$form-empty.out" 5432 empty
	check "$form, fleet on no schema: the string is not shown" hidden "$T/$form-empty.out" "$MARK"
	run "$form-nested" "host=$S user=tpmtrace dbname='$(ci 5432 postgres)'" push
	expect_eq "$form as a database name: exit 1 ($(head -c 300 "$T/$form-nested.out"))" \
		"$(cat "$T/$form-nested.rc")" 1
	check "$form as a database name: refused, not shown" \
		grep -q 'database (a connection string, not shown).*not expanded' "$T/$form-nested.out"
	check "$form as a database name: the string is not shown" \
		hidden "$T/$form-nested.out" "$MARK"
	run "$form-push" "$(ci 5432 postgres)" push
	expect_eq "$form: push exits 0 ($(head -c 300 "$T/$form-push.out"))" \
		"$(cat "$T/$form-push.rc")" 0
	run "$form-stats" "$(ci 5432 postgres)" fleet stats
	expect_eq "$form: fleet stats exits 0 ($(head -c 300 "$T/$form-stats.out"))" \
		"$(cat "$T/$form-stats.rc")" 0
	"$TPMTRACE" fleet "$(ci 5432 postgres)" report -o "$T/$form.html" >"$T/$form-report.out" 2>&1
	rc=$?
	expect_eq "$form: fleet report exits 0 ($(head -c 300 "$T/$form-report.out"))" "$rc" 0
	check "$form: the report names the server by its parts" \
		grep -qF "server host $S, port 5432, database postgres, user tpmtrace<" "$T/$form.html"
	cat "$T/$form"-*.out "$T/$form.html" >"$T/$form.all"
	check "$form: no output and no report shows the string" hidden "$T/$form.all" "$MARK"
done
expect_eq "the two pushes sent the trace once" \
	"$(psql_q -c "SELECT count(*) FROM trace")" 1
finish
