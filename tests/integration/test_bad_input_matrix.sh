#!/usr/bin/env bash
# Bad input to every subcommand, as a matrix: a missing file, a directory, a
# text file, an empty file, an SQLite file that is not tpmtrace's, a tpmtrace
# database with no trace, an unknown trace id, an output that is an input
# (directly, through a symlink, the database's -wal) and bad option values.
# For each cell: the exit status documented (1 error, 2 usage error), exactly
# one error line "tpmtrace SUB: ..." naming the problem (a usage error adds
# "Try 'tpmtrace SUB --help'."), nothing on stdout, no file created (in the
# inputs' directory or the working directory) and every input byte for byte
# as it was (sha256 before and after).
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 sha256sum tpm2_getrandom
I=$T/in
W=$T/cwd
mkdir -p "$I" "$W"

# ---- the inputs ----
"$TPMTRACE" record --spawn-swtpm --db "$I/good.db" --quiet -- tpm2_getrandom 8 >/dev/null 2>&1
check "good.db recorded" test -s "$I/good.db"
mkdir "$I/dir.db"
printf 'this is not a database\n' >"$I/text.db"
: >"$I/empty.db"
sqlite3 "$I/foreign.db" 'CREATE TABLE t (x); INSERT INTO t VALUES (1)'
"$TPMTRACE" profile export slb9670-linux-integrity -o "$I/p.profile" 2>/dev/null
"$TPMTRACE" profile import profile "$I/p.profile" "$I/nodata.db" >/dev/null 2>&1
expect_eq "nodata.db: a tpmtrace database without a trace" \
	"$(sqlite3 "$I/nodata.db" 'SELECT count(*) FROM trace')" 0
ln -s good.db "$I/link.db"
cp "$TPMTRACE_SHARED_DATA/pcap/esys-get-random.int.pcap" "$I/good.pcap" 2>/dev/null ||
	cp "$I/text.db" "$I/good.pcap"
ln -s good.pcap "$I/link.pcap"

state() { # every file under the inputs and the working directory, with its sha256
	(cd "$T" && find in cwd -mindepth 1 -print0 | sort -z | while IFS= read -r -d '' f; do
		if [ -f "$f" ] && [ ! -L "$f" ]; then
			printf '%s %s\n' "$f" "$(sha256sum <"$f" | cut -d' ' -f1)"
		else
			printf '%s %s\n' "$f" "$(stat -c %F "$f")"
		fi
	done)
}

# cell NAME RC PATTERN SUB ARGS...: runs tpmtrace SUB ARGS in $W and checks it.
cell() {
	local name=$1 want=$2 pat=$3 sub=$4
	shift 4
	local before after rc lines
	before=$(state)
	(cd "$W" && exec "$TPMTRACE" "$sub" "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	after=$(state)
	expect_eq "$sub [$name]: exit status ($(head -c 300 "$T/err"))" "$rc" "$want"
	lines=$(wc -l <"$T/err")
	if [ "$want" -eq 2 ]; then
		expect_eq "$sub [$name]: a usage error is two lines" "$lines" 2
		expect_eq "$sub [$name]: ...the second points at --help" "$(sed -n 2p "$T/err")" \
			"Try 'tpmtrace $sub --help'."
	else
		expect_eq "$sub [$name]: one error line" "$lines" 1
	fi
	check "$sub [$name]: the line is 'tpmtrace $sub: ...'" grep -q "^tpmtrace $sub: " "$T/err"
	check "$sub [$name]: it names the problem (/$pat/)" grep -qE -- "$pat" "$T/err"
	expect_eq "$sub [$name]: nothing on stdout" "$(head -c 200 "$T/out")" ""
	expect_eq "$sub [$name]: no file created or changed" "$after" "$before"
}

# cell_ok NAME SUB ARGS...: a case that is no error (exit 0, nothing on
# stderr), which still creates and changes nothing.
cell_ok() {
	local name=$1 sub=$2
	shift 2
	local before after rc
	before=$(state)
	(cd "$W" && exec "$TPMTRACE" "$sub" "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	after=$(state)
	expect_eq "$sub [$name]: exit status ($(head -c 300 "$T/err"))" "$rc" 0
	expect_eq "$sub [$name]: nothing on stderr" "$(cat "$T/err")" ""
	expect_eq "$sub [$name]: no file created or changed" "$after" "$before"
}

# The reading subcommands: SUB ARGS-AFTER-DB...
readers=(
	"list"
	"stats"
	"show"
	"sql|SELECT 1"
	"verify"
	"export|--csv|$T/cwd/o.csv"
	"pcrs"
	"replay"
	"predict|--profile|slb9670-linux-integrity|--host-crypto|estimate"
	"report|-o|$T/cwd/r.html"
)
for r in "${readers[@]}"; do
	IFS='|' read -r -a a <<<"$r"
	sub=${a[0]}
	rest=("${a[@]:1}")
	cell missing 1 "$I/missing.db" "$sub" "$I/missing.db" "${rest[@]}"
	cell directory 1 "$I/dir.db" "$sub" "$I/dir.db" "${rest[@]}"
	cell text 1 "$I/text.db" "$sub" "$I/text.db" "${rest[@]}"
	cell empty 1 "$I/empty.db" "$sub" "$I/empty.db" "${rest[@]}"
	cell foreign-sqlite 1 "$I/foreign.db.*not a tpmtrace database" "$sub" "$I/foreign.db" "${rest[@]}"
done
# A database without a trace: an error for those that read one.
for r in stats show "export|--csv|$T/cwd/o.csv" pcrs replay \
	"predict|--profile|slb9670-linux-integrity|--host-crypto|estimate" "report|-o|$T/cwd/r.html"; do
	IFS='|' read -r -a a <<<"$r"
	cell "empty database" 1 "holds no trace" "${a[0]}" "$I/nodata.db" "${a[@]:1}"
	cell "unknown trace" 1 "no trace 99" "${a[0]}" "$I/good.db" --trace 99 "${a[@]:1}"
	cell "bad trace id" 2 "--trace takes a trace id" "${a[0]}" "$I/good.db" --trace abc "${a[@]:1}"
	cell "negative trace id" 2 "--trace takes a trace id" "${a[0]}" "$I/good.db" --trace=-3 "${a[@]:1}"
	cell "unknown option" 2 "unknown option '--bogus'" "${a[0]}" "$I/good.db" --bogus "${a[@]:1}"
done
# Reading a database without a trace is no error for these.
cell_ok "empty database" list "$I/nodata.db"
cell_ok "empty database" sql "$I/nodata.db" 'SELECT count(*) FROM trace'
cell_ok "empty database" verify "$I/nodata.db"
cell "--limit abc" 2 "--limit takes a whole number" show "$I/good.db" --limit abc
cell "--limit -3" 2 "--limit takes a whole number" show "$I/good.db" --limit -3
cell "no query" 2 "a database file and one query" sql "$I/good.db"
cell "bad query" 1 "no such table: nosuchtable" sql "$I/good.db" 'SELECT * FROM nosuchtable'
cell "unknown option" 2 "unknown option '--bogus'" list "$I/good.db" --bogus
cell "unknown option" 2 "unknown option '--bogus'" verify "$I/good.db" --bogus
cell "--pcrs 99" 2 "--pcrs" pcrs "$I/good.db" --pcrs 99
cell "--repeat 0" 2 "--repeat takes" replay "$I/good.db" --repeat 0
cell "--policy bogus" 2 "--policy" replay "$I/good.db" --policy bogus
cell "--min-fidelity 101" 2 "--min-fidelity takes" replay "$I/good.db" --min-fidelity 101
cell "--host-crypto bogus" 2 "--host-crypto takes measure or estimate" predict "$I/good.db" --profile slb9670-linux-integrity --host-crypto bogus
cell "no --profile, a TPM without a shipped profile" 1 "none shipped for this TPM" predict "$I/good.db"
cell "--synthetic, no --profile" 2 "--profile is required with --synthetic" predict --synthetic pcr-extend:10
cell "--link bogus" 2 "--link takes" export "$I/good.db" --link bogus --pcapng "$T/cwd/o.pcapng"
cell "--port 0" 2 "--port takes" export "$I/good.db" --port 0 --pcapng "$T/cwd/o.pcapng"
cell "--max-marks abc" 2 "--max-marks takes" report "$I/good.db" --max-marks abc -o "$T/cwd/r.html"
cell "no -o" 2 "-o FILE is required" report "$I/good.db"
cell "unknown profile" 1 "nosuch" report "$I/good.db" --profile nosuch -o "$T/cwd/r.html"

# Outputs that are inputs: refused before anything is read or written.
cell "output is the database" 2 "would overwrite the input" report "$I/good.db" -o "$I/good.db"
cell "output is a symlink to it" 2 "would overwrite the input" report "$I/good.db" -o "$I/link.db"
cell "output is its -wal" 2 "would overwrite the input" report "$I/good.db" -o "$I/good.db-wal"
cell "csv onto the database" 2 "would overwrite the input" export "$I/good.db" --csv "$I/good.db"
cell "pcapng through a symlink" 2 "would overwrite the input" export "$I/good.db" --pcapng "$I/link.db"
cell "events-jsonl onto -shm" 2 "would overwrite the input" export "$I/good.db" --events-jsonl "$I/good.db-shm"
cell "output is the database" 2 "would overwrite the input" pcrs "$I/good.db" -o "$I/good.db"
cell "output through a symlink" 2 "would overwrite the input" pcrs "$I/good.db" -o "$I/link.db"
cell "learn onto the database" 2 "would overwrite the input" profile learn "$I/good.db" --output "$I/good.db"
cell "learn through a symlink" 2 "would overwrite the input" profile learn "$I/good.db" --output "$I/link.db"
cell "import onto the capture" 2 "would overwrite the input" import pcap "$I/good.pcap" --db "$I/good.pcap"
cell "import through a symlink" 2 "would overwrite the input" import pcap "$I/good.pcap" --db "$I/link.pcap"
cell "output is the database" 2 "would overwrite the input" calibrate --db "$I/good.db" -o "$I/good.db"
cell "output through a symlink" 2 "would overwrite the input" calibrate --db "$I/good.db" -o "$I/link.db"

# profile: its DB operand.
cell missing 1 "$I/missing.db" profile learn "$I/missing.db"
cell directory 1 "$I/dir.db" profile learn "$I/dir.db"
cell text 1 "$I/text.db" profile learn "$I/text.db"
cell empty 1 "$I/empty.db" profile learn "$I/empty.db"
cell foreign-sqlite 1 "not a tpmtrace database" profile learn "$I/foreign.db"
cell "empty database" 1 "holds no trace" profile learn "$I/nodata.db"
cell "unknown trace" 1 "no trace 99" profile learn "$I/good.db" --trace 99
cell "bad trace id" 2 "--trace takes a trace id" profile learn "$I/good.db" --trace abc
cell "unknown action" 2 "unknown action 'bogus'" profile bogus
cell "option of another action" 2 "--trace does not go with profile show" profile show slb9670-linux-integrity --trace 1
cell "text as a profile" 1 "$I/text.db" profile import profile "$I/text.db"

# import: its FILE operand (of every KIND), and its --db.
for k in pcap ima tcglog swtpm-log ftrace; do
	cell "$k: missing" 1 "$I/missing.db" import "$k" "$I/missing.db" --db "$T/cwd/new.db"
	cell "$k: directory" 1 "$I/dir.db: is a directory" import "$k" "$I/dir.db" --db "$T/cwd/new.db"
	cell "$k: text" 1 "$I/text.db: not (a|an|ftrace) " import "$k" "$I/text.db" --db "$T/cwd/new.db"
	cell "$k: empty" 1 "$I/empty.db" import "$k" "$I/empty.db" --db "$T/cwd/new.db"
	cell "$k: sqlite" 1 "$I/foreign.db: not (a|an|ftrace) " import "$k" "$I/foreign.db" --db "$T/cwd/new.db"
done
cell "--db is a directory" 1 "$I/dir.db" import pcap "$I/good.pcap" --db "$I/dir.db"
cell "--db is a text file" 1 "$I/text.db" import pcap "$I/good.pcap" --db "$I/text.db"
cell "--db is empty" 1 "$I/empty.db" import pcap "$I/good.pcap" --db "$I/empty.db"
cell "--db is another SQLite file" 1 "not a tpmtrace database" import pcap "$I/good.pcap" --db "$I/foreign.db"
cell "--db in a missing directory" 1 "nodir" import pcap "$I/good.pcap" --db "$T/cwd/nodir/x.db"
cell "--port abc" 2 "--port takes" import pcap "$I/good.pcap" --db "$T/cwd/new.db" --port abc
cell "--kernel-rule bogus" 2 "--kernel-rule takes" import ima "$I/good.pcap" --db "$T/cwd/new.db" --kernel-rule bogus
cell "an option of another KIND" 2 "--port does not go with import ima" import ima "$I/good.pcap" --db "$T/cwd/new.db" --port 2321
cell "unknown KIND" 2 "unknown KIND 'bogus'" import bogus "$I/good.pcap" --db "$T/cwd/new.db"
cell "no --db" 2 "--db DB is required" import pcap "$I/good.pcap"

# record, vm-record, calibrate: the database they write to.
for s in record vm-record calibrate; do
	case $s in
	record) run=(--spawn-swtpm --quiet --db) tail=(-- true) ;;
	vm-record) run=(--quiet --db) tail=(-- true) ;;
	calibrate) run=(--iterations 1 --warmup 0 --quiet --db) tail=() ;;
	esac
	cell "--db in a missing directory" 1 "nodir" "$s" "${run[@]}" "$T/cwd/nodir/x.db" "${tail[@]}"
	cell "--db is a directory" 1 "$I/dir.db" "$s" "${run[@]}" "$I/dir.db" "${tail[@]}"
	cell "--db is a text file" 1 "$I/text.db" "$s" "${run[@]}" "$I/text.db" "${tail[@]}"
	cell "--db is empty" 1 "$I/empty.db" "$s" "${run[@]}" "$I/empty.db" "${tail[@]}"
	cell "--db is another SQLite file" 1 "not a tpmtrace database" "$s" "${run[@]}" "$I/foreign.db" "${tail[@]}"
	cell "unknown option" 2 "unknown option '--bogus'" "$s" --bogus
done
cell "--timeout abc" 2 "--timeout takes" record --spawn-swtpm --timeout abc -- true
cell "--queue-size 3" 2 "--queue-size takes a power of two" record --spawn-swtpm --queue-size 3 -- true
cell "--payloads bogus" 2 "--payloads takes none, redacted or full" record --spawn-swtpm --payloads bogus -- true
cell "--listen bogus" 2 "--listen 'bogus'" record --spawn-swtpm --listen bogus -- true
cell "--listen-mssim unix:" 2 "--listen-mssim" record --spawn-swtpm --listen-mssim unix:/x -- true
cell "no backend" 2 "exactly one of --spawn-swtpm and --backend" record -- true
cell "--port without --pcap-live" 2 "--port does not go" record --spawn-swtpm --port 1 -- true
cell "--tpm-device bogus" 2 "--tpm-device takes" vm-record --tpm-device bogus -- true
cell "--iterations 0" 2 "--iterations takes" calibrate --iterations 0
cell "--warmup -1" 2 "--warmup takes" calibrate --warmup -1
finish
