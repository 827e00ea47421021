#!/usr/bin/env bash
# Protocol facts by name (issue 32, docs/architecture.md): tests/lib/named_facts.py
# reads the C sources of the rooms and the front ends. It passes on the tree as
# it stands (no hex literal in an SQL string outside model/tpm and db's view
# texts) and prints the count of command-code comparisons in C outside
# model/tpm, which fails over 15 (naming the files); it fails, naming the file, the line and the literal, on a copy of
# the tree with one command code written in hex in an SQL string, on the same
# literal in a fixture string and when the SQL is split over literals joined by
# a macro; a hex literal in model/tpm, in a string that is no SQL and a
# printf format in SQL ('0x%08X') pass.
. "$(dirname "$0")/../lib/common.sh"
need python3
N=$TPMTRACE_TEST_LIB/named_facts.py
Q='static const char q[] = "SELECT seq FROM command WHERE cc = 0x176";'

# scan OUT [FILE LINE]: the scanner on the tree, or on a copy of what it reads
# with LINE appended to FILE; its exit status in $rc, its output in $T/OUT.
scan() {
	local out=$1 src=$TPMTRACE_SRC
	if [ $# = 3 ]; then
		rm -rf "$T/c"
		mkdir -p "$T/c"
		(cd "$TPMTRACE_SRC" && cp -r model replayer recorder db tools "$T/c/")
		printf '%s\n' "$3" >>"$T/c/$2"
		src=$T/c
	fi
	python3 "$N" "$src" >"$T/$out" 2>&1
	rc=$?
	cat "$T/$out"
}

scan tree.out
check "the tree: no hex literal in an SQL string outside model/tpm and db's views" [ "$rc" = 0 ]
check "... and says so, with the count of command-code comparisons" \
	grep -Eq '^named_facts: [0-9]+ files; 0 hex literals in SQL strings; [0-9]+ command-code comparisons' \
	"$T/tree.out"

ncmp=$(sed -n 's/^named_facts: .* \([0-9][0-9]*\) command-code comparisons.*/\1/p' "$T/tree.out")
check "the tree: at most 15 command-code comparisons outside model/tpm (got $ncmp)" [ "${ncmp:-99}" -le 15 ]
more=$(for _ in $(seq $((16 - ${ncmp:-0}))); do printf 'static int f(unsigned c) { return c == 1 ? 0 : TPM_CC_Clear == c; }\n'; done)
scan over.out replayer/replay_learn.c "$more"
check "comparisons added past 15 fail" [ "$rc" = 1 ]
check "... naming the files and their counts" grep -Eq '^named_facts: 16 command-code comparisons, over 15: .*replayer/replay_learn.c [0-9]+' "$T/over.out"

scan added.out model/advise.c "$Q"
check "a hex command code added to SQL in model/advise.c fails" [ "$rc" = 1 ]
check "... naming the file, the line and the literal" \
	grep -Eq '^model/advise.c:[0-9]+: 0x176 in SQL: "SELECT seq FROM command WHERE cc = 0x176"' \
	"$T/added.out"
scan tpm.out model/tpm/tpm_cc.c "$Q"
check "the same literal in model/tpm, the tables' room, passes" [ "$rc" = 0 ]

# Fixture strings: the scanner alone, on one file's text (FIXTURE STATUS).
fixture() {
	python3 "$N" "$TPMTRACE_SRC" --string "$1" >"$T/s.out" 2>&1
	rc=$?
	cat "$T/s.out"
	[ "$rc" = "$2" ]
}
check "a fixture: retry codes in hex in SQL fail" \
	fixture 'q = "SELECT rc FROM command" " WHERE rc IN (0x922, 0x908)";' 1
check "... each named" [ "$(grep -c ' in SQL: ' "$T/s.out")" = 2 ]
check "a fixture: SQL split by a macro, its hex code in the second literal, fails" \
	fixture 'q = "SELECT id FROM command WHERE " DB_CLIENT_CMDS " AND cc = 0x131";' 1
check "a fixture: hex outside SQL strings passes" \
	fixture 'printf("0x%08x", cc); x = 0x176; q = "tpm_cc(%s) is 0x176";' 0
check "a fixture: a printf format and a command by name in SQL pass" \
	fixture "q = \"SELECT printf('0x%08X', cc) FROM command WHERE cc = tpm_cc('Clear')\";" 0
check "a fixture: SQL in a comment passes" fixture '/* SELECT x WHERE cc = 0x176 */ q = "SELECT 1";' 0

# The hash algorithms have one table (model/tpm/tpm_hash.def, beside the
# algorithm table tpm_alg.def): the bank table, its names as option choices
# and OpenSSL's digests are made from it, and a hash by name is in no C file
# of the rooms and front ends.
named=$(cd "$TPMTRACE_SRC" && grep -rli 'sha384' --include=*.c --include=*.h --include=*.def \
	model replayer recorder db tools | sort | tr '\n' ' ')
expect_eq "sha384 named in the two algorithm tables only" "$named" \
	"model/tpm/tpm_alg.def model/tpm/tpm_hash.def "

finish
