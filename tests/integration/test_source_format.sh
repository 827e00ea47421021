#!/usr/bin/env bash
# Every C source and header of the project is formatted as the project's
# .clang-format says: clang-format --dry-run -Werror on each file git tracks
# (or every *.c/*.h under the top-level folders outside a git checkout).
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
finish
