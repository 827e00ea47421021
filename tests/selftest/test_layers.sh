#!/usr/bin/env bash
# The rooms and their order (docs/architecture.md): tests/lib/layers.py reads
# the tpmtrace_room() declarations of CMakeLists.txt and every #include of
# the rooms. It passes on the tree as it stands, and fails, naming the file
# and the rooms, on copies of the tree with one upward include added, with a
# room linking one above it, and with a folder of C files that is no room.
# Then the same upward include is shown to break the build: the room's
# library does not link the room it reached for.
. "$(dirname "$0")/../lib/common.sh"
need python3
S=$TPMTRACE_SRC
L=$TPMTRACE_TEST_LIB/layers.py

python3 "$L" "$S" >"$T/tree.out" 2>&1
rc=$?
cat "$T/tree.out"
check "the tree: every include downward, no cycle" [ "$rc" = 0 ]
check "... over 7 rooms or more" grep -Eq '^layers: ([7-9]|[1-9][0-9]) rooms' "$T/tree.out"
check "the top-level folders are exactly the mission's" \
	[ -f "$S/CMakeLists.txt" -a "$(cd "$S" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -name 'build*' -printf '%f\n' | sort | tr '\n' ' ')" = \
	"db docs model recorder replayer tests tools " ]

copy() { # a copy of what layers.py reads
	rm -rf "$T/c"
	mkdir -p "$T/c"
	(cd "$S" && cp -r CMakeLists.txt model db recorder replayer "$T/c/")
}

# An upward include: the protocol room reaching the replayer.
copy
printf '#include "replayer/replay.h"\n' >>"$T/c/model/tpm/wire.h"
python3 "$L" "$T/c" >"$T/up.out" 2>&1
rc=$?
cat "$T/up.out"
check "an upward include (model/tpm -> replayer) fails" [ "$rc" = 1 ]
check "... naming the file and the rooms" \
	grep -q 'model/tpm/wire.h includes replayer/replay.h: room tpm may not use room replayer (upward)' "$T/up.out"

# A cycle between two rooms: db including the cost model, which includes db.
copy
printf '#include "model/predict.h"\n' >>"$T/c/db/db.h"
python3 "$L" "$T/c" >"$T/cyc.out" 2>&1
rc=$?
check "a cycle (db -> model -> db) fails" [ "$rc" = 1 ]
check "... reported as a cycle" grep -q 'cycle: .*db -> model -> db\|cycle: .*model -> db -> model' "$T/cyc.out"

# A room linking a room declared above it.
copy
sed -i 's/^tpmtrace_room(db db tpm)$/tpmtrace_room(db db tpm replayer)/' "$T/c/CMakeLists.txt"
python3 "$L" "$T/c" >"$T/link.out" 2>&1
rc=$?
check "a room linking upward fails" [ "$rc" = 1 ]
check "... naming it" grep -q 'room db links replayer, which is declared after it (upward)' "$T/link.out"

# A folder of C files outside every room, and a room including a front end.
copy
mkdir -p "$T/c/recorder/stray"
printf 'int stray;\n' >"$T/c/recorder/stray/stray.c"
printf '#include "tools/tpmtrace/common.h"\n' >>"$T/c/db/db.c"
python3 "$L" "$T/c" >"$T/stray.out" 2>&1
rc=$?
check "a folder of C files that is no room fails" [ "$rc" = 1 ]
check "... naming the folder" grep -q 'recorder/stray/ holds C files but is no room' "$T/stray.out"
check "a room including tools/ fails" grep -q 'db/db.c includes tools/tpmtrace/common.h: a room may not use the front ends' "$T/stray.out"

# The build enforces the same order: a function of a higher room called from
# a lower one is an undefined reference when a program links only the lower
# room. (The room libraries are static: only what a program links is there.)
B=${TPMTRACE_TEST_BUILD}
CC=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$B/CMakeCache.txt" 2>/dev/null)
if [ -n "$CC" ]; then
	san=
	! grep -q '^TPMTRACE_SANITIZE:BOOL=ON' "$B/CMakeCache.txt" || san=-fsanitize=address,undefined
	libtpm=$(find "$B" -maxdepth 1 -name 'libtpmtrace_tpm.a' | head -1)
	check "the protocol room's library is built on its own ($B/libtpmtrace_tpm.a)" [ -n "$libtpm" ]
	cat >"$T/probe.c" <<-'EOF'
		#include "model/tpm/tpm_cc.h"
		int main(void) { return tpm_cc_name(0x144) == 0; }
	EOF
	cat >"$T/upward.c" <<-'EOF'
		#include "model/tpm/tpm_cc.h"
		#include "db/db.h"
		int main(int argc, char **argv)
		{
			(void)argv;
			return argc > 9 ? db_open(0, 0, 0, 0, 0) : tpm_cc_name(0x144) == 0;
		}
	EOF
	flags=$(pkg-config --libs libcrypto tss2-rc)
	"$CC" $san -I"$S" -I"$B/generated" "$T/probe.c" "$libtpm" $flags -o "$T/probe" >"$T/probe.err" 2>&1
	rc=$?
	check "a program of the protocol room links with that room alone" [ "$rc" = 0 ]
	"$CC" $san -I"$S" -I"$B/generated" "$T/upward.c" "$libtpm" $flags -o "$T/upward" >"$T/upward.err" 2>&1
	rc=$?
	head -3 "$T/upward.err"
	check "reaching the db room from it does not link" [ "$rc" != 0 ]
	check "... an undefined reference to db_open" grep -q "undefined reference to .db_open" "$T/upward.err"
else
	check "the build's CMakeCache.txt names its compiler ($B)" false
fi
finish
