#!/usr/bin/env bash
# An output that is a symbolic link is followed and its target replaced
# (docs/cli.md "Outputs") -- except a link planted by another user in a
# shared sticky directory such as /tmp (the rule of fs.protected_symlinks):
# refused, exit 1, the file it points to untouched. Our own link there, and
# a foreign link in a directory that is not sticky, are followed. Needs root
# (a link owned by nobody); skipped as a whole without it (tests/README.md,
# "Skips").
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3
[ "$(id -u)" -eq 0 ] || skip "needs root: makes a symbolic link owned by nobody"
cd "$T" || exit 1

"$TPMTRACE" record --spawn-swtpm --db demo.db --quiet -- "$TPMTRACE_SRC/tools/demo-workload" 5 >/dev/null 2>rec.err
expect_eq "setup: demo recorded" $? 0
mkdir -m 1777 shared plain
chmod 0777 plain
echo "victim" >victim
ln -s "$T/victim" shared/planted.csv
chown -h nobody shared/planted.csv
ln -s "$T/victim" shared/mine.csv
ln -s "$T/mine.target" plain/foreign.csv
chown -h nobody plain/foreign.csv

"$TPMTRACE" export demo.db --csv shared/planted.csv 2>err
rc=$?
expect_eq "a foreign link in a sticky directory is refused" $rc 1
check "...with the reason" grep -q "not followed" err
expect_eq "...and the file it points to is untouched" "$(cat victim)" victim
check "...and the link is still a link" test -L shared/planted.csv

"$TPMTRACE" export demo.db --csv shared/mine.csv 2>err
rc=$?
expect_eq "our own link in a sticky directory is followed ($(head -c 200 err))" $rc 0
check "...its target replaced" grep -q '^trace_id,seq' victim
"$TPMTRACE" export demo.db --csv plain/foreign.csv 2>err
rc=$?
expect_eq "a foreign link in a directory that is not sticky is followed ($(head -c 200 err))" $rc 0
check "...its target written" grep -q '^trace_id,seq' mine.target
finish
