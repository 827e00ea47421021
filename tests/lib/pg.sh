# PostgreSQL for the fleet tests (sourced after common.sh): a real server from
# Debian's postgresql package per test, in $T, on a unix socket only, run as
# an unprivileged user (nobody when the test runs as root: initdb refuses
# root). Skips (77) when the server binaries are not installed.
PGBIN=${TPMTRACE_PGBIN:-/usr/lib/postgresql/15/bin}
[ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] ||
	skip "PostgreSQL 15 is not installed ($PGBIN/initdb; apt-get install postgresql)"
need psql
PG_USER_OS=$(id -un)
PG_AS=()
if [ "$(id -u)" -eq 0 ]; then
	PG_USER_OS=nobody
	PG_AS=(runuser -u nobody --)
fi
PG_DIRS=()

# pg_start NAME: a server in $T/NAME (socket dir $T/NAME/sock), superuser
# tpmtrace (trust on the socket, where hba_extra adds no line before);
# sets PGSOCK and PGURL (the postgres database as tpmtrace).
pg_start() {
	local d=$T/$1
	chmod 711 "$T"
	mkdir -p "$d/data" "$d/sock"
	chown "$PG_USER_OS" "$d/data" "$d/sock"
	chmod 700 "$d/data"
	chmod 777 "$d/sock"
	"${PG_AS[@]}" "$PGBIN/initdb" -D "$d/data" -U tpmtrace --auth-local=trust \
		--auth-host=reject -E UTF8 >"$d/initdb.log" 2>&1 || return 1
	if [ -n "${PG_HBA:-}" ]; then
		printf '%s\n' "$PG_HBA" | cat - "$d/data/pg_hba.conf" >"$d/hba" &&
			cat "$d/hba" >"$d/data/pg_hba.conf"
	fi
	pg_ctl_start "$1" || return 1
	PG_DIRS+=("$d")
	PGSOCK=$d/sock
	PGURL="postgresql:///postgres?host=$PGSOCK&user=tpmtrace"
}

pg_ctl_start() {
	local d=$T/$1
	"${PG_AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -l "$d/data/server.log" -w -t 60 \
		-o "-k $d/sock -c listen_addresses='' -c fsync=off -c max_connections=40" \
		start >"$d/pg_ctl.log" 2>&1
}

# pg_stop NAME [MODE]: stops the server (fast by default).
pg_stop() {
	"${PG_AS[@]}" "$PGBIN/pg_ctl" -D "$T/$1/data" -m "${2:-fast}" -w stop >/dev/null 2>&1
}

pg_stop_all() {
	local d
	for d in "${PG_DIRS[@]}"; do
		"${PG_AS[@]}" "$PGBIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null 2>&1
	done
}
trap 'pg_stop_all; cleanup' EXIT

# psql_q SQL...: one value or rows unaligned, as the superuser.
psql_q() {
	psql "$PGURL" -X -At -v ON_ERROR_STOP=1 "$@"
}
