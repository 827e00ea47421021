#!/usr/bin/env bash
# The packages docs/quickstart.md tells a newcomer to install are those
# tools/demo installs (TPMTRACE_DEMO_PACKAGES in tools/lib/setup.sh), and
# those are enough to configure: every pkg-config module CMakeLists.txt
# REQUIREs is in a package of that list (a newcomer following the quick start
# once met a configure error: libpq-dev was missing).
. "$(dirname "$0")/../lib/common.sh"
need python3
. "$TPMTRACE_SRC/tools/lib/setup.sh"
doc=$(python3 - "$TPMTRACE_SRC/docs/quickstart.md" <<'PY'
import re, sys
s = open(sys.argv[1]).read().replace("\\\n", " ")
m = re.search(r"apt-get install -y ([^\n]*)", s)
print(" ".join(sorted(m.group(1).split())) if m else "")
PY
)
demo=$(printf '%s\n' "${TPMTRACE_DEMO_PACKAGES[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
expect_eq "quickstart's apt-get install = tools/demo's packages" "$doc" "$demo"
# Each REQUIRED pkg-config module of the top CMakeLists.txt and the package
# that ships its .pc file (dpkg -S, on this machine where they are installed):
# one of tools/demo's packages, or one they depend on (libpcap-dev brings
# libpcap0.8-dev).
have="$demo $(dpkg-query -W -f='${Depends} ' "${TPMTRACE_DEMO_PACKAGES[@]}" 2>/dev/null |
	tr ',|' '  ' | sed 's/([^)]*)//g; s/:any//g')"
while read -r mod; do
	pc=$(pkg-config --variable=pcfiledir "$mod" 2>/dev/null)/$mod.pc
	pkg=$(dpkg -S "$pc" 2>/dev/null | head -1 | cut -d: -f1)
	check "pkg-config module $mod (from ${pkg:-?}) comes with tools/demo's packages" \
		grep -qw -- "${pkg:-none}" <<<"$have"
done < <(sed -n 's/^pkg_check_modules([A-Z0-9_]* REQUIRED IMPORTED_TARGET \(.*\))$/\1/p' \
	"$TPMTRACE_SRC/CMakeLists.txt" | tr ' ' '\n')
finish
