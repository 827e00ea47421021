#!/usr/bin/env bash
# The documentation is the test: every shell example a user can read - the
# ```sh blocks and command lines of README.md and docs/*.md, each subcommand's
# --help Examples, the EXAMPLES of the man pages (tests/lib/doc_examples.py
# finds them) - runs here and exits 0. Each block runs in a private directory
# laid out like a checkout (build/, tools/, the files the examples name:
# boot.db with a recorded demo trace and three replays of it, captures, logs,
# profiles), in order, with a private swtpm where an example expects a running
# one (the examples' TCP ports are mapped onto free ones). An example that
# records until Ctrl-C gets SIGINT once it listens and must exit 0. What cannot
# run on this machine is skipped, and the list of skips is printed with the
# reason: a hardware TPM or securityfs, CUSE on the host, a VM, building or
# installing. The quickstart blocks are run word for word by test_docs.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup tpm2_pcrread sqlite3 python3 tshark
DATA=$TPMTRACE_SHARED_DATA
[ -d "$DATA/pcap" ] || skip "the shared data is not at $DATA"
BUILD=${TPMTRACE_TEST_BUILD:?}

# ---- a private swtpm that "is running" where the examples say so ----
for try in 1 2 3 4 5; do
	P=$((20000 + RANDOM % 20000))
	mkdir -p "$T/swtpm"
	swtpm socket --tpm2 --tpmstate dir="$T/swtpm" --server type=tcp,port=$P \
		--ctrl type=tcp,port=$((P + 1)) --flags not-need-init,startup-clear \
		--log file="$T/swtpm/log" &
	SWPID=$!
	PIDS+=($SWPID)
	sleep 0.3
	kill -0 $SWPID 2>/dev/null && tpm2_getrandom 4 -T "swtpm:host=127.0.0.1,port=$P" >/dev/null 2>&1 && break
	kill $SWPID 2>/dev/null
	wait $SWPID 2>/dev/null
	P=
done
check "a private swtpm runs" test -n "$P"
[ -n "$P" ] || finish
export TPM2TOOLS_TCTI=swtpm:host=127.0.0.1,port=$P

# ---- the fixture: what the examples name ----
F=$T/fixture
mkdir -p "$F/bin" "$F/tmp"
ln -s "$BUILD" "$F/build"
ln -s "$TPMTRACE_SRC/tools" "$F/tools"
ln -s "$TPMTRACE" "$F/bin/tpmtrace"
(
	cd "$F" || exit 1
	export TMPDIR=$F/tmp
	"$TPMTRACE" record --spawn-swtpm --db boot.db --name demo -- tools/demo-workload 20 &&
		"$TPMTRACE" replay boot.db --policy as-recorded &&
		"$TPMTRACE" replay boot.db --policy linux-6.10 &&
		"$TPMTRACE" replay boot.db --policy password
) >"$T/fixture.log" 2>&1
expect_eq "fixture: demo trace and three replays" \
	"$(sqlite3 "$F/boot.db" "SELECT group_concat(kind) FROM trace")" "record,replay,replay,replay"
for d in demo.db tpmtrace-demo.db traces.db; do cp "$F/boot.db" "$F/$d"; done
cp "$DATA/pcap/esys-get-random.int.pcap" "$F/tpm2_log.pcap"
cp "$DATA/pcap/sys-get-random.int.pcap" "$F/capture2.pcapng"
cp "$DATA/pcap/esys-pcr-basic.int.pcap" "$F/mssim.pcap"
cp "$DATA/ima/ima-evm-utils/sample-binary_bios_measurements-pcrs-8-9" "$F/binary_bios_measurements"
cp "$DATA/ima/ima-evm-utils/sample-ascii_runtime_measurements-pcrs-8-9" "$F/binary_runtime_measurements"
cp "$DATA/profiles/tpmscan/IFX_7.85.17.51968_08836af27dda9f32.performance.yaml" "$F/"
printf '%s\n' '# tracer: function_graph' '#' ' 0)               |  tpm2_pcr_extend() {' \
	' 0) # 6400.123 us |    tpm_transmit_cmd();' ' 0) # 6410.456 us |  }' \
	' 1)               |  tpm2_pcr_extend() {' ' 1) # 6350.000 us |    tpm_transmit_cmd();' \
	' 1) # 6360.000 us |  }' >"$F/pcr_extend.trace"
cp "$F/pcr_extend.trace" "$F/trace.txt"
# swtpm's own log at level 20 of a few commands (import swtpm-log).
check "fixture: a swtpm log" swtpm_log "$F/swtpm.log"
# The workload scripts the examples stand for.
for s in boot-workload my-boot-script.sh; do
	printf '#!/bin/sh\nset -e\ntpm2_getrandom 8 >/dev/null\ntpm2_pcrread sha256:0 >/dev/null\n' >"$F/$s"
	chmod +x "$F/$s"
done

# ---- what cannot run here ----
skip_reason() { # the reason a command cannot run on this machine, or nothing
	local c=$1
	case $c in
	*tpm-cuse-proxy* | *"modprobe cuse"* | *tpmrmproxy* | *tpmproxy0*)
		echo "needs CUSE on the host (tests/vm/test_vm_cuse.sh runs it in a VM)" ;;
	*qemu-system* | *vm-record* | *--qemu-ctrl*)
		echo "boots a VM under QEMU (tests/vm)" ;;
	*"record --kernel --cmdline") ;; # prints words: runs anywhere
	*"record --kernel"*)
		echo "needs a kernel with a TPM driver and BPF (tests/vm/test_vm_kernel_*.sh run it in a VM)" ;;
	*"tpmtrace attribute "*--ftrace*)
		echo "needs a guest kernel's ftrace of its boot (tests/vm/test_vm_hmac_kernel.sh runs it)" ;;
	*/dev/tpmrm0* | */dev/tpm0* | */sys/kernel/security/*)
		echo "needs a hardware TPM (or its securityfs logs)" ;;
	*"<(tpm2_pcrread)"*)
		echo "compares with the TPM the logs were taken from" ;;
	*/var/lib/tpmtrace/* | scp\ *)
		echo "reads a machine's boot recording (docs/record-boot.md)" ;;
	*postgresql://fleet.example.org*)
		echo "needs a PostgreSQL server (tests/integration/test_fleet_push_200_hosts.sh runs it on one)" ;;
	./tools/demo* | ./tools/test* | *apt-get* | cmake\ *)
		echo "installs and builds the project (the suite runs on a build)" ;;
	*)
		if [[ $c == *--pcap-live* ]] && [ "$(id -u)" -ne 0 ]; then
			echo "captures with libpcap (needs CAP_NET_RAW)"
		fi ;;
	esac
}
# The examples' fixed TCP ports, mapped onto free ones (other tests run at
# the same time): the running swtpm's 2321 onto the one it bound, the
# listeners' 2331 and 2341 onto port 0 (the recorder binds a free pair: no
# port is chosen before it is bound).
map_ports() {
	sed -e "s/port=2321/port=$P/g" -e "s/127\.0\.0\.1:2331/127.0.0.1:0/g" \
		-e "s/127\.0\.0\.1:2341/127.0.0.1:0/g" -e "s/--pcap-live lo --port 2321/--pcap-live lo --port $P/g" <<<"$1"
}
# A record that runs until Ctrl-C: no command after --.
is_daemon() {
	[[ $1 =~ (^|/)tpmtrace\ record\  ]] && [[ $1 != *" -- "* ]]
}

python3 "$TPMTRACE_TEST_LIB/doc_examples.py" "$TPMTRACE_SRC" "$TPMTRACE" >"$T/examples.json"
check "examples found" test -s "$T/examples.json"
nblocks=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/examples.json")
ran=0
skipped=()
for ((b = 0; b < nblocks; b++)); do
	src=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[int(sys.argv[2])]["source"])' "$T/examples.json" $b)
	qs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[int(sys.argv[2])].get("quickstart",""))' "$T/examples.json" $b)
	elsewhere=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[int(sys.argv[2])].get("elsewhere",""))' "$T/examples.json" $b)
	mapfile -d '' cmds < <(python3 -c 'import json,sys; [sys.stdout.write(c + "\0") for c in json.load(open(sys.argv[1]))[int(sys.argv[2])]["commands"]]' "$T/examples.json" $b)
	if [ -n "$elsewhere" ]; then
		for c in "${cmds[@]}"; do
			skipped+=("$src: ${c%%$'\n'*} -- $elsewhere")
		done
		continue
	fi
	if [ -n "$qs" ]; then
		for c in "${cmds[@]}"; do
			if [ "$qs" = "sh quickstart-setup" ]; then
				skipped+=("$src: ${c%%$'\n'*} -- installs and builds the project (the suite runs on a build)")
			else
				skipped+=("$src: ${c%%$'\n'*} -- run word for word, in order, by test_docs")
			fi
		done
		continue
	fi
	S=$T/run.$b
	cp -a "$F" "$S"
	# A block that imports into a database starts without it (the trace
	# ids it names are those its imports make).
	for c in "${cmds[@]}"; do
		if [[ $c =~ tpmtrace\ import\ .*--db\ ([^ ]+) ]]; then
			rm -f "$S/${BASH_REMATCH[1]}"*
		fi
	done
	made_by_skipped=()
	for c in "${cmds[@]}"; do
		why=$(skip_reason "$c")
		# A database an example skipped above would have made: the
		# examples after it that read it cannot run either.
		for d in "${made_by_skipped[@]}"; do
			[[ -z $why && " $c " == *" $d "* && " $c " != *" --db $d "* ]] &&
				why="reads $d, which a skipped example above makes"
		done
		if [ -n "$why" ]; then
			[[ $c =~ --db\ ([^ ]+) ]] && made_by_skipped+=("${BASH_REMATCH[1]}")
			skipped+=("$src: ${c%%$'\n'*} -- $why")
			continue
		fi
		run=$(map_ports "$c")
		ran=$((ran + 1))
		if is_daemon "$run"; then
			(cd "$S" && PATH=$S/bin:$PATH TMPDIR=$S/tmp exec bash -c "exec $run") >"$S/out.$ran" 2>"$S/err.$ran" &
			pid=$!
			PIDS+=($pid)
			for _ in $(seq 100); do
				grep -qE 'recording into|capturing TPM traffic' "$S/err.$ran" 2>/dev/null && break
				sleep 0.1
			done
			sleep 0.3
			kill -INT $pid 2>/dev/null
			wait $pid
			rc=$?
		else
			(cd "$S" && PATH=$S/bin:$PATH TMPDIR=$S/tmp timeout 600 bash -o pipefail -c "$run") \
				</dev/null >"$S/out.$ran" 2>"$S/err.$ran"
			rc=$?
		fi
		expect_eq "$src: $run" $rc 0
		[ $rc -eq 0 ] || tail -5 "$S/err.$ran" >&2
	done
	rm -rf "$S"
done
check "at least 60 examples ran" test "$ran" -ge 60
echo "ran $ran examples; skipped ${#skipped[@]}:"
printf '  SKIP %s\n' "${skipped[@]}"
finish
