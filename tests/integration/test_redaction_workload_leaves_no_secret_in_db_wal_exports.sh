#!/usr/bin/env bash
# Redaction, end to end (issue 15, finding 4): real tpm2-tools against a
# spawned swtpm through the recorder seal a secret under a password and unseal
# it; make a credential (TPM2_MakeCredential, which carries it in clear) and
# activate it; encrypt and decrypt with an AES key through TPM2_EncryptDecrypt2
# (tpm2_encryptdecrypt) and through the legacy TPM2_EncryptDecrypt (0x164,
# sent raw: tpm2-tools prefer the newer one); write and read an NV index with
# its own password; HMAC with a key of known bytes (imported); draw random
# bytes. With
# the default payloads no secret, in any form (raw, hex, base64 at each
# alignment, UTF-16), is in the database, its live WAL and shm, or what is
# left at exit, nor in the pcapng, CSV, JSONL and event exports and the HTML
# report; with --payloads full the same search finds them (it works).
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_create tpm2_import tpm2_makecredential tpm2_activatecredential tpm2_encryptdecrypt \
	tpm2_hmac tpm2_nvdefine sqlite3 python3 xxd
S=(python3 "$TPMTRACE_TEST_LIB/secret_search.py")

hex() { head -c "$1" /dev/urandom | xxd -p -c 256; }
SECRET="sealed-$(hex 12)"
OBJPASS="objpass-$(hex 6)"
NVPASS="nvpass-$(hex 6)"
NVDATA="nvdata-$(hex 10)"
CRED="credential-$(hex 8)"
PLAIN2="plaintext2-$(hex 11)"
PLAIN1=$(hex 16)                  # 16 bytes, given as hex: one AES block
HMACKEY=$(hex 32)

cat >"$T/workload.sh" <<EOW
set -e
cd "\$1"
$(seal_unseal_lines "$SECRET" "$OBJPASS")
# a credential: made by the TPM, activated by it
tpm2_createek -Q -c 0x81010009 -G rsa -u ek.pub
tpm2_createak -Q -C 0x81010009 -c ak.ctx -G rsa -g sha256 -s rsassa -u ak.pub -n ak.name
tpm2_flushcontext -t
tpm2_readpublic -Q -c 0x81010009 -o ek.pem -f pem
printf '%s' '$CRED' | tpm2_makecredential -Q -u ek.pem -s - -n "\$(xxd -p -c 256 ak.name)" \
	-o mkcred.out -G rsa
tpm2_flushcontext -t
tpm2_startauthsession --policy-session -S session.ctx
tpm2_policysecret -S session.ctx -c e
tpm2_activatecredential -Q -c ak.ctx -C 0x81010009 -i mkcred.out -o actcred \
	-P session:session.ctx
tpm2_flushcontext session.ctx
tpm2_flushcontext -t
# AES: EncryptDecrypt2 through the tools, EncryptDecrypt (0x164) raw
tpm2_create -Q -C prim.ctx -G aes128cfb -u aes.pub -r aes.priv
tpm2_flushcontext -t
tpm2_load -Q -C prim.ctx -u aes.pub -r aes.priv -c aes.ctx
tpm2_flushcontext -t
printf '%s' '$PLAIN2' >plain2
tpm2_encryptdecrypt -c aes.ctx -o enc2 plain2
tpm2_encryptdecrypt -d -c aes.ctx -o dec2 enc2
tpm2_flushcontext -t
tpm2_load -Q -C prim.ctx -u aes.pub -r aes.priv -c aes.ctx
h=\$(tpm2_getcap handles-transient | awk '{print substr(\$2, 3)}' | tail -1) # the key, after its parent
# tag, size 66, code, key, password session, decrypt, CFB, ivIn (16 zero bytes), inData
enc=\$("\$2" --connect "unix:\${TPMTRACE_TCTI#swtpm:path=}" \\
	--hex "80020000004200000164\${h}000000094000000900000000000000430010\$(printf '0%.0s' \$(seq 32))0010$PLAIN1")
echo "\$enc" >enc1
dec=\$("\$2" --connect "unix:\${TPMTRACE_TCTI#swtpm:path=}" \\
	--hex "80020000004200000164\${h}000000094000000900000000000100430010\$(printf '0%.0s' \$(seq 32))0010\${enc:32:32}")
echo "\$dec" >dec1
tpm2_flushcontext -t
# HMAC with a key of known bytes (imported: TPM2_Import)
printf '$HMACKEY' | xxd -r -p >hmac.key
tpm2_import -Q -C prim.ctx -G hmac -i hmac.key -u hmac.pub -r hmac.priv >/dev/null
tpm2_flushcontext -t
tpm2_load -Q -C prim.ctx -u hmac.pub -r hmac.priv -c hmac.ctx
tpm2_flushcontext -t
printf 'data to authenticate' | tpm2_hmac -c hmac.ctx -o hmac.out
tpm2_flushcontext -t
# NV with its own password
tpm2_nvdefine -Q 0x1500020 -C o -s 64 -p '$NVPASS' -a "authread|authwrite"
printf '%s' '$NVDATA' >nvdata
tpm2_nvwrite -Q 0x1500020 -C 0x1500020 -P '$NVPASS' -i nvdata
tpm2_nvread -Q 0x1500020 -C 0x1500020 -P '$NVPASS' -s ${#NVDATA} -o nvread
tpm2_getrandom 32 -o random
sleep 0.5 # let the writer commit
mkdir live
for f in "\$3"*; do cp "\$f" live/; done
EOW

run() { # NAME ARGS...: records the workload into $T/NAME/trace.db, exports it
	local n=$1
	shift
	mkdir -p "$T/$n"
	# --no-rm: the workload flushes what each tool leaves loaded itself, and
	# its raw EncryptDecrypt uses a key tpm2_load left loaded.
	"$TPMTRACE" record --spawn-swtpm --no-rm --db "$T/$n/trace.db" "$@" -- \
		bash "$T/workload.sh" "$T/$n" "$TPMCLIENT" "$T/$n/trace.db" >"$T/$n/out" 2>"$T/$n/err" &&
		"$TPMTRACE" export "$T/$n/trace.db" --pcapng "$T/$n/x.pcapng" --csv "$T/$n/x.csv" \
			--jsonl "$T/$n/x.jsonl" --events-csv "$T/$n/e.csv" --events-jsonl "$T/$n/e.jsonl" &&
		"$TPMTRACE" report "$T/$n/trace.db" -o "$T/$n/x.html"
}
needles() { # DIR: every secret, and every random or secret output of the run
	local d=$1 s
	for s in "$SECRET" "$OBJPASS" "$NVPASS" "$NVDATA" "$CRED" "$PLAIN2"; do
		printf '%s' "$s" | xxd -p -c 256
	done
	echo "$PLAIN1"
	echo "$HMACKEY"
	xxd -p -c 256 "$d/random"
	xxd -p -c 256 "$d/actcred"
}
outputs() { echo "$1"/trace.db* "$1"/live/* "$1"/x.* "$1"/e.*; }

run red
expect_eq "workload ran through the recorder" "$?" 0
check "unsealed the secret" [ "$(cat "$T/red/unsealed")" = "$SECRET" ]
check "activated the credential" [ "$(cat "$T/red/actcred")" = "$CRED" ]
check "EncryptDecrypt2 round trip" cmp "$T/red/plain2" "$T/red/dec2"
expect_eq "EncryptDecrypt (0x164) round trip" "$(cut -c33-64 "$T/red/dec1")" "$PLAIN1"
check "NV read back" [ "$(cat "$T/red/nvread")" = "$NVDATA" ]
check "WAL copied while live" [ -s "$T/red/live/trace.db-wal" ]
q() { "$TPMTRACE" sql "$T/red/trace.db" --no-header "$1"; }
for cc in MakeCredential ActivateCredential EncryptDecrypt EncryptDecrypt2 HMAC_Start Unseal NV_Write \
	NV_Read Create; do
	check "$cc recorded" [ "$(q "SELECT count(*) FROM command WHERE tpm_cc_name(cc)='$cc' AND rc=0")" -ge 1 ]
done
needles "$T/red" >"$T/red/needles"
out=$("${S[@]}" "$T/red/needles" $(outputs "$T/red"))
expect_eq "finding 4: secret bytes in database, WAL, shm, pcapng, CSV, JSONL, HTML" \
	"$(sed -n 1p <<<"$out" | cut -d' ' -f2)" 0
echo "secret bytes found with default settings: $(sed -n 1p <<<"$out" | cut -d' ' -f3) of $(awk '{n += length($0) / 2} END {print n}' "$T/red/needles")"

run full --payloads full
expect_eq "full: workload ran" "$?" 0
needles "$T/full" >"$T/full/needles"
found=$("${S[@]}" "$T/full/needles" "$T/full"/trace.db* "$T/full"/live/* 2>/dev/null | sed -n 1p | cut -d' ' -f2)
check "full: the search finds the secrets in the database ($found of $(wc -l <"$T/full/needles"))" \
	[ "$found" -ge 8 ]
found=$("${S[@]}" "$T/full/needles" "$T/full/x.pcapng" 2>/dev/null | sed -n 1p | cut -d' ' -f2)
check "full: ... and in the pcapng ($found)" [ "$found" -ge 8 ]
finish
