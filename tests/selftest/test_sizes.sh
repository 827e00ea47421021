#!/usr/bin/env bash
# The size rules (docs/architecture.md): tests/lib/sizes.py reads every C file
# of the rooms and the front ends. It passes on the tree as it stands, and
# fails, naming the file, the line and the function, on a copy of the cost
# model room with one function a line over the limit; a function exactly at
# the limit passes, and so does a signature over several lines counted from
# its name; a file over 1,000 lines fails too. Every C file, tests/ included,
# opens with a comment: a copy of a file of the tree with its opening comment
# taken away fails, naming it, and so does a new file of tests/ without one;
# blank lines before the comment do not count.
. "$(dirname "$0")/../lib/common.sh"
need python3
S=$TPMTRACE_SRC
Z=$TPMTRACE_TEST_LIB/sizes.py

python3 "$Z" "$S" >"$T/tree.out" 2>&1
rc=$?
tail -1 "$T/tree.out"
check "the tree: every file and function within the limits" [ "$rc" = 0 ]
check "... and says so, with the longest function" \
	grep -Eq '^sizes: [0-9]+ C files, each at most 1000 lines; [0-9]+ functions, the longest' "$T/tree.out"
check "... no violation named" [ "$(grep -c 'lines (at most' "$T/tree.out")" = 0 ]
check "... and every C file, tests/ included, opens with a comment" \
	grep -Eq '^sizes: [0-9]+ C files with tests/, each opening with a comment$' "$T/tree.out"
check "... none named without one" [ "$(grep -c 'no opening comment' "$T/tree.out")" = 0 ]

# A C function of n lines in the project's style (name at column 0, "{" and
# "}" alone at column 0): a two-line signature, the braces, n - 4 statements.
c_function() { # NAME N [SIGNATURE LINES...]
	local name=$1 n=$2 i
	printf 'int %s(int a,\n\tint b)\n{\n\tint x = a + b;\n' "$name"
	for ((i = 0; i < n - 6; i++)); do printf '\tx += %d;\n' "$i"; done
	printf '\treturn x;\n}\n'
}

check "... and no function in replayer/ with more than 8 parameters" \
	grep -qx 'sizes: no function in replayer/ takes more than 8 parameters' "$T/tree.out"
check "... and the command line within 8,000 lines of C and headers" \
	grep -Eq '^sizes: tools/tpmtrace holds [0-9]+ lines of C and headers \(at most 8000\)$' "$T/tree.out"

# The command line: 8,000 lines pass, one more fails, named.
rm -rf "$T/l"
mkdir -p "$T/l/tools/tpmtrace"
printf '/* a thin front end */\nint v;\n' >"$T/l/tools/tpmtrace/cmd.c"
{
	printf '/* its header: lines enough to reach the limit */\n'
	for ((i = 1; i < 7998; i++)); do printf 'extern int v%d;\n' "$i"; done
} >"$T/l/tools/tpmtrace/cmd.h"
python3 "$Z" "$T/l" >"$T/l8.out" 2>&1
check "a command line of 8,000 lines passes" [ "$?" = 0 ]
printf 'int one_more;\n' >>"$T/l/tools/tpmtrace/cmd.h"
python3 "$Z" "$T/l" >"$T/l9.out" 2>&1
rc=$?
check "one line more (in a header) fails" [ "$rc" = 1 ]
check "... named, with the count" grep -q '^sizes: tools/tpmtrace: 8001 lines of C and headers (at most 8000' "$T/l9.out"

copy() { # the cost model room is enough: sizes.py walks what is there
	rm -rf "$T/c"
	mkdir -p "$T/c"
	cp -r "$S/model" "$T/c/"
}

copy
python3 "$Z" "$T/c" >"$T/copy.out" 2>&1
rc=$?
check "a copy of model/ alone passes" [ "$rc" = 0 ]

# Parameters in replayer/: 8 pass, 9 fail, named.
rm -rf "$T/r"
mkdir -p "$T/r/replayer"
printf '/* params */\nint eight(int a, int b, int c, int d,\n\t  int e, int f, int g, int h)\n{\n\treturn a;\n}\n' \
	>"$T/r/replayer/eight.c"
python3 "$Z" "$T/r" >"$T/p8.out" 2>&1
check "a replayer function of 8 parameters passes" [ "$?" = 0 ]
printf 'int nine(int a, int b, int c, int d, int e,\n\t int f, int g, int h, int (*i)(int, int))\n{\n\treturn a;\n}\n' \
	>>"$T/r/replayer/eight.c"
python3 "$Z" "$T/r" >"$T/p9.out" 2>&1
rc=$?
check "one of 9 (a function pointer among them) fails" [ "$rc" = 1 ]
check "... named with its file and line" \
	grep -qx 'sizes: replayer/eight.c:7: nine() takes 9 parameters (at most 8 in replayer/)' "$T/p9.out"

# At the limit: 150 lines, a two-line signature counted from its name.
copy
{
	printf '/* at the limit */\n'
	c_function at_limit 150
} >"$T/c/model/at_limit.c"
python3 "$Z" "$T/c" --list 1 >"$T/limit.out" 2>&1
rc=$?
cat "$T/limit.out"
check "a function of exactly 150 lines passes" [ "$rc" = 0 ]
check "... counted as 150 from the line of its name" grep -q '^  150 model/at_limit.c:2 at_limit$' "$T/limit.out"

# One line over: named with its file, line and length.
copy
{
	printf '/* one over */\n'
	c_function too_long 151
} >"$T/c/model/too_long.c"
python3 "$Z" "$T/c" >"$T/long.out" 2>&1
rc=$?
cat "$T/long.out"
check "a function of 151 lines fails" [ "$rc" = 1 ]
check "... the sizes: line naming it" \
	grep -qx 'sizes: model/too_long.c:2: too_long() is 151 lines (at most 150)' "$T/long.out"
check "... and nothing else" [ "$(grep -c 'lines (at most' "$T/long.out")" = 1 ]

# An existing file made longer than 1,000 lines (by functions each small).
copy
f=$T/c/model/predict.c
for i in $(seq 1 60); do c_function "pad_$i" 20; done >>"$f"
python3 "$Z" "$T/c" >"$T/file.out" 2>&1
rc=$?
n=$(wc -l <"$f")
check "a file of $n lines fails" [ "$rc" = 1 ]
check "... the sizes: line naming it" grep -qx "sizes: model/predict.c: $n lines (at most 1000)" "$T/file.out"
# A file of the tree with its opening comment taken away (the lines before
# its first #include): named; the same file with blank lines before its
# comment passes.
copy
f=$T/c/model/run_stats.c
check "model/run_stats.c opens with a comment in the tree" test "$(head -c 2 "$S/model/run_stats.c")" = "/*"
sed -i '1,/^#include/{/^#include/!d}' "$f"
check "... which the copy lacks" test "$(head -c 8 "$f")" = "#include"
python3 "$Z" "$T/c" >"$T/nocomment.out" 2>&1
rc=$?
cat "$T/nocomment.out"
check "a C file without an opening comment fails" [ "$rc" = 1 ]
check "... the sizes: line naming it" \
	grep -qx 'sizes: model/run_stats.c: no opening comment (what the file is for, before its first line of code)' "$T/nocomment.out"
check "... and nothing else" [ "$(grep -c '^sizes: .*: ' "$T/nocomment.out")" = 1 ]
copy
{ printf '\n\n'; cat "$S/model/run_stats.c"; } >"$T/c/model/run_stats.c.new"
mv "$T/c/model/run_stats.c.new" "$T/c/model/run_stats.c"
python3 "$Z" "$T/c" >"$T/blank.out" 2>&1
check "blank lines before the opening comment pass" [ "$?" = 0 ]

# tests/ counts for this rule: a test program without an opening comment.
copy
mkdir -p "$T/c/tests/unit"
printf '#include "testlib.h"\n\nint main(void)\n{\n\treturn 0;\n}\n' >"$T/c/tests/unit/test_bare.c"
python3 "$Z" "$T/c" >"$T/tests.out" 2>&1
rc=$?
check "a test program without an opening comment fails" [ "$rc" = 1 ]
check "... named" grep -q '^sizes: tests/unit/test_bare.c: no opening comment' "$T/tests.out"
finish
