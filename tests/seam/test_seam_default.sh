#!/usr/bin/env bash
# The default trace (docs/cli.md, "Which trace"): without --trace every read
# command takes the newest trace that may be the default (a finished
# recording or a timed import; never a replay, a derived trace, an untimed
# import or an unfinished trace), the same one for every command: each
# command's output without --trace is its output with --trace of the trace the
# rule names. On the seam corpus (every kind, an unfinished recording newest)
# and on a database shaped as ./tools/demo leaves it (a recording, a replay,
# advise --prove's rewrites after it: the recording is the default).
. "$(dirname "$0")/../lib/common.sh"
need python3 sqlite3
C=${TPMTRACE_SEAM_CORPUS:-$TPMTRACE_TEST_BUILD/seam-corpus}
[ -s "$C/corpus.txt" ] || { echo "no seam corpus at $C (ctest runs seam/corpus first)" >&2; exit 1; }
cd "$T"
# The rule, from the corpus's own names of its traces.
want=$(awk '$2 == "record" || $2 == "import-timed" { id = $1 } END { print id }' "$C/corpus.txt")
check "the corpus has a default (a recording or a timed import)" test -n "$want"
same() { # same DB WANT CMD ARGS...: CMD's output without --trace = with --trace WANT
	local db=$1 want=$2 cmd=$3
	shift 3
	"$TPMTRACE" "$cmd" "$db" "$@" >"$T/dflt.out" 2>/dev/null
	local rc=$?
	"$TPMTRACE" "$cmd" "$db" "$@" --trace "$want" >"$T/want.out" 2>/dev/null
	[ "$rc" -eq 0 ] && cmp -s "$T/dflt.out" "$T/want.out"
}
for db in "$C/corpus.db" "$C/demo.db"; do
	[ "$db" = "$C/demo.db" ] && want=1
	name=$(basename "$db")
	check "$name: stats takes trace $want" same "$db" "$want" stats --json
	check "$name: show takes trace $want" same "$db" "$want" show
	check "$name: pcrs takes trace $want" same "$db" "$want" pcrs --json
	check "$name: predict takes trace $want" same "$db" "$want" predict \
		--profile slb9670-linux-integrity --json
	check "$name: advise takes trace $want" same "$db" "$want" advise --json
	check "$name: report takes trace $want" same "$db" "$want" report --json -o -
done
finish
