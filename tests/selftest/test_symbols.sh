#!/usr/bin/env bash
# Every external symbol of a room carries its room's prefix (docs/architecture.md
# "Symbol prefixes"): tests/lib/symbols.py reads nm -g --defined-only of each
# room's library in the build. It passes on the build as it stands, and fails,
# naming the symbol, its object and the room's prefixes, on a copy of a room's
# archive with one object added that defines an unprefixed global, on one
# that defines another room's prefix, and on a prefix table with a room left
# out or one room's prefix starting with another's. The symbols of tpm and
# replayer still to be renamed (tests/lib/symbols_pending_rename.txt) are
# counted apart, and only while that list names them.
. "$(dirname "$0")/../lib/common.sh"
need python3
need nm
need ar
S=$TPMTRACE_SRC
B=$TPMTRACE_TEST_BUILD
L=$TPMTRACE_TEST_LIB/symbols.py

python3 "$L" "$S" "$B" >"$T/tree.out" 2>&1
rc=$?
cat "$T/tree.out"
check "the build: every external symbol of every room carries its room's prefix" [ "$rc" = 0 ]
check "... over 9 rooms and 400 symbols or more" \
	grep -Eq '^symbols: ([9]|[1-9][0-9]) rooms, ([4-9][0-9][0-9]|[1-9][0-9]{3,}) external symbols, 0 offenders' "$T/tree.out"

CC=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$B/CMakeCache.txt" 2>/dev/null)
check "the build's CMakeCache.txt names its compiler ($B)" [ -n "$CC" ]
db=$B/libtpmtrace_db.a
check "the db room's library is built ($db)" [ -f "$db" ]

# One object with an unprefixed global (data and a function), added to a copy
# of the db room's archive.
printf 'int unprefixed_global;\nint unprefixed_fn(void) { return unprefixed_global; }\n' >"$T/bad.c"
"$CC" -c "$T/bad.c" -o "$T/bad.o"
cp "$db" "$T/libdb.a"
ar r "$T/libdb.a" "$T/bad.o" 2>/dev/null
python3 "$L" "$S" "$B" --lib "db=$T/libdb.a" >"$T/bad.out" 2>&1
rc=$?
cat "$T/bad.out"
check "an added unprefixed global fails" [ "$rc" = 1 ]
check "... naming the room, the object and the symbol" \
	grep -q '^symbols: db: bad.o: B unprefixed_global (room prefixes: db_ json_)' "$T/bad.out"
check "... and the function beside it" grep -q '^symbols: db: bad.o: T unprefixed_fn ' "$T/bad.out"
check "... and nothing else" grep -q ', 2 offenders,' "$T/bad.out"

# Another room's prefix is no prefix of this room.
printf 'int tpm_in_the_wrong_room;\n' >"$T/other.c"
"$CC" -c "$T/other.c" -o "$T/other.o"
cp "$db" "$T/libdb2.a"
ar r "$T/libdb2.a" "$T/other.o" 2>/dev/null
python3 "$L" "$S" "$B" --lib "db=$T/libdb2.a" >"$T/other.out" 2>&1
rc=$?
check "a symbol with another room's prefix (tpm_ in db) fails" [ "$rc" = 1 ]
check "... naming it" grep -q '^symbols: db: other.o: B tpm_in_the_wrong_room ' "$T/other.out"

# A pending-rename list does not hide a symbol it does not name, and an entry
# for a symbol that is no longer an offender is reported.
{
	cat "$S/tests/lib/symbols_pending_rename.txt"
	printf 'db unprefixed_global\ndb no_such_symbol\n'
} >"$T/pending.txt"
python3 "$L" "$S" "$B" --lib "db=$T/libdb.a" --pending "$T/pending.txt" >"$T/pend.out" 2>&1
rc=$?
check "a pending entry allows that symbol only" [ "$rc" = 1 ]
check "... the other is still an offender" grep -q '^symbols: db: bad.o: T unprefixed_fn ' "$T/pend.out"
check "... the only offender" grep -q ', 1 offenders, ' "$T/pend.out"
n=$(sed -n 's/.* \([0-9]*\) pending rename$/\1/p' "$T/tree.out")
check "... the named one counted as pending (one more than the tree's ${n:-?})" \
	grep -q ", 1 offenders, $((${n:-0} + 1)) pending rename" "$T/pend.out"
check "... not reported as an offender" bash -c "! grep -q 'B unprefixed_global' '$T/pend.out'"
check "... a stale entry reported" grep -q 'pending db no_such_symbol is no longer an offender' "$T/pend.out"

# The table itself: a room without a row, and overlapping prefixes.
mkdir -p "$T/src/docs" "$T/src/tests/lib"
cp "$S/CMakeLists.txt" "$T/src/"
cp "$S/tests/lib/symbols_pending_rename.txt" "$T/src/tests/lib/"
grep -v '^| `kernel` |' "$S/docs/architecture.md" >"$T/src/docs/architecture.md"
python3 "$L" "$T/src" "$B" >"$T/norow.out" 2>&1
rc=$?
check "a room with no row in the table fails" [ "$rc" = 1 ]
check "... naming it" grep -q 'room kernel has no row in docs/architecture.md' "$T/norow.out"
sed 's/^| `kernel` | `kernel_` |/| `kernel` | `kernel_` `db_x` |/' "$S/docs/architecture.md" >"$T/src/docs/architecture.md"
python3 "$L" "$T/src" "$B" >"$T/overlap.out" 2>&1
rc=$?
check "a prefix that starts with another room's fails" [ "$rc" = 1 ]
check "... naming both" grep -q 'prefix db_x of room kernel starts with db_ of room db' "$T/overlap.out"
finish
