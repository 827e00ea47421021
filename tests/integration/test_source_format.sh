#!/usr/bin/env bash
# Every C source and header of the project is formatted as the project's
# .clang-format says: clang-format --dry-run -Werror on each file git tracks
# (or every *.c/*.h under the top-level folders outside a git checkout).
# Every shell script (tests/, tools/) parses (bash -n), every Python helper
# compiles: a formatter or an editor that took one for C would break it.
. "$(dirname "$0")/../lib/common.sh"
need clang-format
cd "$TPMTRACE_SRC" || exit 1
check ".clang-format is there" test -f .clang-format
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files '*.c' '*.h')
else
	mapfile -t files < <(find db model recorder replayer tests tools -name '*.[ch]' | sort)
fi
echo "$(clang-format --version): ${#files[@]} files"
check "some sources found" test "${#files[@]}" -gt 50
bad=()
for f in "${files[@]}"; do
	clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
expect_eq "files that clang-format would change" "${bad[*]}" ""

mapfile -t scripts < <(grep -rlE '^#!.*(ba)?sh' tests tools --include='*' 2>/dev/null | grep -v '\.\(c\|h\|py\|md\)$'; find tests tools -name '*.sh')
mapfile -t scripts < <(printf '%s\n' "${scripts[@]}" | sort -u)
check "shell scripts found (${#scripts[@]})" test "${#scripts[@]}" -gt 40
bad=()
for f in "${scripts[@]}"; do
	bash -n "$f" 2>/dev/null || bad+=("$f")
done
expect_eq "shell scripts that do not parse (bash -n)" "${bad[*]}" ""
mapfile -t pys < <(find tests tools -name '*.py')
bad=()
for f in "${pys[@]}"; do
	python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" 2>/dev/null || bad+=("$f")
done
expect_eq "Python helpers that do not parse" "${bad[*]}" ""
finish
