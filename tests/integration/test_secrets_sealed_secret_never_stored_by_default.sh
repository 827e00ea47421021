#!/usr/bin/env bash
# Secrets: a workload through the proxy (real tpm2-tools against a spawned
# swtpm) seals a known secret under a password, unseals it (tpm2-tools use an
# encrypted HMAC session where they can), changes the owner password, writes
# and reads an NV index with its own read authorization, and asks for random
# bytes. Then every byte of the database, its WAL and shared-memory files
# (copied while recording, and as left at exit) is searched for every secret
# in every form it could take: raw, hex in either case, base64 at each
# alignment, UTF-16. Not found by default (--payloads redacted), nor with
# --payloads none; found with --payloads full, which warns exactly once (so
# the search is proven to work). Redacted rows keep their sizes. Files are
# 0600 in a directory created 0700, nothing world-readable; --mode/--group
# widen them. (test_record_demo.sh checks the demo workload's secret and
# GetRandom bytes in the final file; this test adds passwords, NV data,
# hex/base64 forms, the WAL while live, and permissions.)
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_create tpm2_unseal tpm2_nvdefine sqlite3 xxd python3

SECRET="tpmtrace-secret-$(head -c 12 /dev/urandom | xxd -p)"
OBJPASS="objpass-$(head -c 6 /dev/urandom | xxd -p)"
OWNERPASS="ownerpass-$(head -c 6 /dev/urandom | xxd -p)"
NVPASS="nvpass-$(head -c 6 /dev/urandom | xxd -p)"
NVDATA="nvdata-$(head -c 10 /dev/urandom | xxd -p)"

# workload DIR: run through the proxy ($TPM2TOOLS_TCTI), then copy the live
# database files into DIR/live before the recorder closes them.
cat >"$T/workload.sh" <<EOW
set -e
cd "\$1"
$(seal_unseal_lines "$SECRET" "$OBJPASS")
tpm2_nvdefine -Q 0x1500020 -C o -s 64 -p '$NVPASS' -a "authread|authwrite"
printf '%s' '$NVDATA' >nvdata
tpm2_nvwrite -Q 0x1500020 -C 0x1500020 -P '$NVPASS' -i nvdata
tpm2_nvread -Q 0x1500020 -C 0x1500020 -P '$NVPASS' -s ${#NVDATA} -o nvread
tpm2_changeauth -c owner '$OWNERPASS'
tpm2_getrandom 32 -o random
tpm2_getrandom 32 -o random2
sleep 0.5 # let the writer commit
mkdir live
for f in "\$2"*; do cp "\$f" live/; stat -c '%a %n' "\$f" >>live/modes; done
EOW

# forms FILE...: every form of each string/file content, one hex string a line
forms() {
	local s
	for s in "$SECRET" "$OBJPASS" "$OWNERPASS" "$NVPASS" "$NVDATA"; do printf '%s' "$s" | xxd -p | tr -d '\n'; echo; done
	for f in "$@"; do xxd -p "$f" | tr -d '\n'; echo; done
}
# search HEXNEEDLES FILES...: how many needles (in any form:
# tests/lib/secret_search.py) occur in the files; their total length in bytes
# goes to $T/bytes
search() {
	local found
	found=$(python3 "$TPMTRACE_TEST_LIB/secret_search.py" "$@" | sed -n 's/^secret //p')
	echo "${found#* }" >"$T/bytes"
	echo "${found%% *}"
}

run_workload() { # NAME ARGS...: records into $T/NAME/db/trace.db
	local n=$1
	shift
	mkdir -p "$T/$n"
	mkdir -m 0700 "$T/$n/db" # record creates the file, not its directory
	"$TPMTRACE" record --spawn-swtpm --db "$T/$n/db/trace.db" "$@" -- \
		bash "$T/workload.sh" "$T/$n" "$T/$n/db/trace.db" >"$T/$n/out" 2>"$T/$n/err"
}

# -- default: redacted
run_workload red
expect_eq "redacted: workload exit status" "$?" 0
check "redacted: the workload unsealed the secret" [ "$(cat "$T/red/unsealed")" = "$SECRET" ]
check "redacted: NV data read back" [ "$(cat "$T/red/nvread")" = "$NVDATA" ]
forms "$T/red/random" "$T/red/random2" >"$T/red/needles"
check "redacted: WAL copied while live" [ -s "$T/red/live/trace.db-wal" ]
files=("$T/red/live/"trace.db* "$T/red/db/"*)
expect_eq "redacted: secrets found in the database, WAL, shm, journal" "$(search "$T/red/needles" "${files[@]}")" 0
echo "secret bytes found with default settings: $(cat "$T/bytes") of $(awk '{n += length($0) / 2} END {print n}' "$T/red/needles")"
db=$T/red/db/trace.db
check "redacted: rows have payloads" [ "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE cmd IS NOT NULL")" -gt 10 ]
check "redacted: some rows were redacted" [ "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE flags & 1")" -ge 5 ]
expect_eq "redacted: fields keep their sizes" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE length(cmd) <> cmd_size OR (rsp IS NOT NULL AND length(rsp) <> rsp_size)")" 0
expect_eq "redacted: database 0600" "$(stat -c %a "$db")" 600
"$TPMTRACE" record --spawn-swtpm --db "$T/red/nodir/trace.db" -- true 2>"$T/nodir.err"
expect_eq "a missing directory is an error" "$?" 1
check "and is not created" test ! -e "$T/red/nodir"
expect_eq "redacted: live files 0600 (db, wal, shm)" "$(awk '{print $1}' "$T/red/live/modes" | sort -u)" 600
check "redacted: live wal and shm existed" [ "$(wc -l <"$T/red/live/modes")" -ge 3 ]
expect_eq "redacted: nothing world-readable" "$(find "$T/red/db" -perm -o=r | wc -l)" 0
check "redacted: no payload warning" bash -c "! grep -q 'secrets' '$T/red/err'"

# -- none
run_workload none --payloads none
expect_eq "none: workload exit status" "$?" 0
forms "$T/none/random" "$T/none/random2" >"$T/none/needles"
expect_eq "none: secrets found" "$(search "$T/none/needles" "$T/none/live/"trace.db* "$T/none/db/"*)" 0

# -- full: the search must find them
run_workload full --payloads full
expect_eq "full: workload exit status" "$?" 0
forms "$T/full/random" "$T/full/random2" >"$T/full/needles"
found=$(search "$T/full/needles" "$T/full/live/"trace.db* "$T/full/db/"*)
check "full: the search finds the secrets ($found of 7)" [ "$found" -ge 5 ]
echo "secret bytes found with --payloads full: $(cat "$T/bytes")"
check "full: the sealed secret itself is found" bash -c "grep -qa -- '$SECRET' '$T/full/live/'trace.db* '$T/full/db/'*"
expect_eq "full: warns exactly once" "$(grep -c 'secrets' "$T/full/err")" 1

# -- --mode/--group widen
grp=$(id -gn)
run_workload wide --mode 0640 --group "$grp"
expect_eq "wide: workload exit status" "$?" 0
expect_eq "wide: live files 0640" "$(awk '{print $1}' "$T/wide/live/modes" | sort -u)" 640
expect_eq "wide: group" "$(stat -c %G "$T/wide/db/trace.db")" "$grp"
"$TPMTRACE" record --spawn-swtpm --db "$T/x.db" --mode 0666 -- true 2>"$T/bad.err"
expect_eq "world-writable mode refused" "$?" 2
finish
