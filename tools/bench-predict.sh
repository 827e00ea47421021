#!/bin/bash
# Benchmark (not a test): predict over a 1,000,000-command trace for all
# presets, streaming from SQLite. Target: <= 2 s, memory independent of the
# trace length. Usage: tools/bench-predict.sh [BUILD_DIR] [N]
set -eu
B=${1:-build}
N=${2:-1000000}
TPMTRACE=${TPMTRACE:-$B/bin/tpmtrace}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# A database with the schema (the import creates it), then N commands: IMA
# extends from the kernel with a GetRandom every 1000 and a userspace
# GetCapability every 5000, 1 ms apart.
"$TPMTRACE" profile import profile "$(dirname "$0")/../model/profiles/slb9670-linux-integrity.profile" \
	"$T/b.db" --name bench 2>/dev/null
sqlite3 "$T/b.db" <<SQL
INSERT INTO trace (id, kind, status) VALUES (1, 'import', 'complete');
INSERT INTO client (trace_id, id, pid, comm) VALUES (1, 1, 100, 'tpm2_getcap');
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < $N)
INSERT INTO command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns, cc, rc, handle1, auth_kind, client_id)
SELECT 1, n, n * 1000000, n * 1000000 + 400000, 400000,
       CASE WHEN n % 5000 = 0 THEN 378 WHEN n % 1000 = 0 THEN 379 ELSE 386 END, 0,
       CASE WHEN n % 1000 = 0 THEN NULL ELSE 10 END,
       CASE WHEN n % 1000 = 0 THEN 0 ELSE 1 END,
       CASE WHEN n % 5000 = 0 THEN 1 ELSE NULL END
FROM i;
SQL
echo "trace: $N commands ($(du -h "$T/b.db" | cut -f1) database)"
/usr/bin/time -f "predict --policy all: %e s elapsed, %M KiB max RSS" \
	"$TPMTRACE" predict "$T/b.db" --trace 1 --profile slb9670-linux-integrity --policy all >"$T/out" 2>"$T/err" ||
	{ cat "$T/err"; exit 1; }
cat "$T/out"
grep -v warning "$T/err" || true
# The population (issue 34): the same trace on every shipped profile, read
# once. Target: <= 10 s for 60 profiles.
np=$("$TPMTRACE" profile list | awk 'NR > 1' | wc -l)
echo "== predict --profile all: the same trace on $np shipped profiles, linux-6.10" \
	"(target <= 10 s for 60 profiles)"
/usr/bin/time -f "predict --profile all --policy linux-6.10: %e s elapsed, %M KiB max RSS" \
	"$TPMTRACE" predict "$T/b.db" --trace 1 --profile all --policy linux-6.10 --over 10s \
	>"$T/pop" 2>"$T/err" || { cat "$T/err"; exit 1; }
grep -E '^population|above' "$T/pop"
grep -v warning "$T/err" || true
