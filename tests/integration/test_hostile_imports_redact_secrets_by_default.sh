#!/usr/bin/env bash
# Imports redact like record (issue 36, item 8): a capture made with secrets
# in clear - a tpm2-tools workload (seal under a password, unseal, NV with its
# own password, random bytes, a new owner password) and a HierarchyChangeAuth
# whose size field understates (item 7), recorded with --payloads full and
# exported as pcapng, and swtpm's own log of the same traffic at level 20 - is
# imported with `import pcap` and `import swtpm-log`. By default no secret, in
# any form (tests/lib/secret_search.py), is in the database files; before, all
# of them were (the importers stored every byte). --payloads none stores no
# bytes; --payloads full keeps them (the search works) with record's warning.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_create tpm2_unseal tpm2_nvdefine tpm2_changeauth xxd python3
S=(python3 "$TPMTRACE_TEST_LIB/secret_search.py")
H=(python3 "$TPMTRACE_TEST_LIB/hostile.py")

hex() { head -c "$1" /dev/urandom | xxd -p -c 256; }
SECRET="sealed-$(hex 12)"
OBJPASS="objpass-$(hex 6)"
NVPASS="nvpass-$(hex 6)"
NVDATA="nvdata-$(hex 10)"
OWNERPASS="ownerpass-$(hex 6)"
# bytes 20-21 (the tag of what comes after the cut command) no TPM tag
AUTH=$(hex 20)ffff$(hex 18)

mkdir -p "$T/sw" "$T/w"
swtpm socket --tpm2 --tpmstate dir="$T/sw" --server type=unixio,path="$T/sw/s.sock" \
	--ctrl type=unixio,path="$T/sw/s.sock.ctrl" --flags not-need-init \
	--log file="$T/swtpm.log",level=20 &
PIDS+=($!)
wait_for_listener "$T/sw/s.sock"
record_bg "$T/full.db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock" \
	--payloads full
wait_for_socket "$T/p.sock"
(
	set -e
	export TPM2TOOLS_TCTI="swtpm:path=$T/p.sock"
	cd "$T/w"
	eval "$(seal_unseal_lines "$SECRET" "$OBJPASS")"
	tpm2_nvdefine -Q 0x1500020 -C o -s 64 -p "$NVPASS" -a "authread|authwrite"
	printf '%s' "$NVDATA" >nvdata
	tpm2_nvwrite -Q 0x1500020 -C 0x1500020 -P "$NVPASS" -i nvdata
	tpm2_nvread -Q 0x1500020 -C 0x1500020 -P "$NVPASS" -s ${#NVDATA} -o nvread
	tpm2_getrandom 32 -o random
	"${H[@]}" understate "unix:$T/p.sock" "$AUTH" >/dev/null
	tpm2_changeauth -c owner "$OWNERPASS"
)
rc=$?
check "the workload ran through the recorder" [ $rc -eq 0 -a "$(cat "$T/w/unsealed" 2>/dev/null)" = "$SECRET" ]
kill -INT "$RECORD_PID"
wait "$RECORD_PID"
check "the recording (payloads full) closed" [ $? -eq 0 ]
check "exported as pcapng" "$TPMTRACE" export "$T/full.db" --pcapng "$T/x.pcapng"

for s in "$SECRET" "$OBJPASS" "$NVPASS" "$NVDATA" "$OWNERPASS"; do
	printf 'secret %s\n' "$(printf '%s' "$s" | xxd -p -c 256)"
done >"$T/needles"
printf 'secret %s\n' "$(xxd -p -c 256 "$T/w/random")" "${AUTH:0:40}" "${AUTH:60:20}" >>"$T/needles"
# The bytes after the cut command never reach swtpm (the proxy refuses them):
# its log has the others.
head -n -1 "$T/needles" >"$T/needles.swtpm-log"
mv "$T/needles" "$T/needles.pcap"
# The secrets are in the capture (else the test shows nothing); the swtpm log's
# spaced hex is shown to hold them by its import with --payloads full.
found=$("${S[@]}" "$T/needles.pcap" "$T/x.pcapng" 2>/dev/null | sed -n 1p | cut -d' ' -f2)
expect_eq "all secrets are in the capture" "$found" "$(grep -c '^secret' "$T/needles.pcap")"

imp() { # KIND FILE NAME [OPTION...]: imports into $T/NAME.db
	local kind=$1 f=$2 name=$3
	shift 3
	"$TPMTRACE" import "$kind" "$f" --db "$T/$name.db" --quiet "$@" 2>"$T/$name.err"
}
for kind in pcap swtpm-log; do
	f=$T/x.pcapng
	[ $kind = swtpm-log ] && f=$T/swtpm.log
	needles=$T/needles.$kind
	n=$(grep -c '^secret' "$needles")
	imp $kind "$f" $kind-default
	check "$kind: imported by default" [ $? -eq 0 ]
	found=$("${S[@]}" "$needles" "$T/$kind-default".db* 2>/dev/null | sed -n 1p)
	expect_eq "$kind: no secret in the database files by default" "$found" "secret 0 0"
	expect_eq "$kind: trace.payloads says redacted, rows flagged" \
		"$("$TPMTRACE" sql "$T/$kind-default.db" --no-header \
			"SELECT payloads, (SELECT count(*) > 0 FROM command WHERE flags & 1) FROM trace")" \
		"redacted|1"
	check "$kind: no warning by default" [ ! -s "$T/$kind-default.err" ]

	imp $kind "$f" $kind-none --payloads none
	expect_eq "$kind --payloads none: no bytes stored" \
		"$("$TPMTRACE" sql "$T/$kind-none.db" --no-header \
			"SELECT payloads, count(cmd), count(rsp), count(*) > 10 FROM trace, command")" \
		"none|0|0|1"

	imp $kind "$f" $kind-full --payloads full
	found=$("${S[@]}" "$needles" "$T/$kind-full".db* 2>/dev/null | sed -n 1p | cut -d' ' -f2)
	expect_eq "$kind --payloads full: every secret kept (the search works)" "$found" "$n"
	expect_eq "$kind --payloads full: record's warning, once" "$(cat "$T/$kind-full.err")" \
		"tpmtrace import: --payloads full: secrets (unsealed data, random bytes, passwords, sensitive areas) will be stored in $T/$kind-full.db"
done
finish
