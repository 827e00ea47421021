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
same() { # same DB WANT CMD ARGS...: CMD's output and status without --trace =
	# with --trace WANT (predict: the trace its JSON names; its host-crypto
	# figures are measured anew each run)
	local db=$1 want=$2 cmd=$3 rc1 rc2
	shift 3
	"$TPMTRACE" "$cmd" "$db" "$@" >"$T/dflt.out" 2>"$T/dflt.err"
	rc1=$?
	"$TPMTRACE" "$cmd" "$db" "$@" --trace "$want" >"$T/want.out" 2>"$T/want.err"
	rc2=$?
	if [ "$cmd" = predict ]; then
		for f in dflt want; do
			python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trace"])' \
				"$T/$f.out" >"$T/$f.out.t" 2>&1 && mv "$T/$f.out.t" "$T/$f.out"
		done
	fi
	[ "$rc1" = "$rc2" ] && [ -s "$T/dflt.out" -o -s "$T/dflt.err" ] &&
		cmp -s "$T/dflt.out" "$T/want.out" && cmp -s "$T/dflt.err" "$T/want.err"
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
