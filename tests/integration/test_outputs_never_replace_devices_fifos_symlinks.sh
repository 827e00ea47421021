#!/usr/bin/env bash
# Issue 22 items 1 and 4: an output never replaces a special file. Every
# output (report -o, export --csv, pcrs -o, profile learn -o) through
#  - a character device: written through, the node stays a device; /dev/full
#    gives exit 1 with the file and the reason;
#  - a FIFO: a reader gets the data, the FIFO stays a FIFO;
#  - a symbolic link: its target is replaced, the link stays the same link
#    (docs/cli.md "Outputs"), also a dangling one;
#  - /dev/stdout (a link to /proc/self/fd/1): the data reaches standard
#    output, the link stays a link;
# and the database's -wal, -shm and -journal are refused as outputs.
# Run as root the device nodes are private ones made with mknod in the test's
# directory (the same majors and minors as /dev/null and /dev/full), and
# /dev/stdout is a private link to /proc/self/fd/1 first: a tpmtrace that
# renamed over its output destroys nothing of the machine's. The machine's
# own /dev/null, /dev/full and /dev/stdout are used only once the private
# ones came through intact.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 timeout
cd "$T" || exit 1

"$TPMTRACE" record --spawn-swtpm --db demo.db --quiet -- "$TPMTRACE_SRC/tools/demo-workload" 10 >/dev/null 2>rec.err
expect_eq "setup: demo recorded" $? 0

if [ "$(id -u)" = 0 ]; then
	mknod "$T/null" c 1 3 && mknod "$T/full" c 1 7
	expect_eq "setup: private /dev/null and /dev/full nodes" $? 0
	NULLDEV=$T/null FULLDEV=$T/full
else
	# Without root nothing can be renamed into /dev: the machine's nodes.
	NULLDEV=/dev/null FULLDEV=/dev/full
fi
ln -s /proc/self/fd/1 "$T/stdout"

# out NAME TARGET: runs command NAME writing its output to TARGET.
out() {
	case $1 in
	report) "$TPMTRACE" report demo.db -o "$2" ;;
	export) "$TPMTRACE" export demo.db --csv "$2" ;;
	pcrs) "$TPMTRACE" pcrs demo.db -o "$2" ;;
	profile) "$TPMTRACE" profile learn demo.db -o "$2" ;;
	esac
}
is_chr() { [ -c "$1" -a ! -L "$1" ]; }
is_fifo() { [ -p "$1" -a ! -L "$1" ]; }
link_to() { [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ]; }

for c in report export pcrs profile; do
	# The reference: the same output to a new regular file.
	out $c "ref.$c" 2>"err.$c"
	rc=$?
	expect_eq "$c: a regular output exits 0 ($(head -c 200 "err.$c"))" $rc 0
	check "$c: a regular output is written" test -s "ref.$c"
	head -n 1 "ref.$c" >"ref1.$c"

	# A character device: written through, still a device.
	out $c "$NULLDEV" 2>err
	rc=$?
	expect_eq "$c: -o a character device (null) exits 0 ($(head -c 200 err))" $rc 0
	check "$c: the null device is still a character device" is_chr "$NULLDEV"
	out $c "$FULLDEV" 2>err
	rc=$?
	expect_eq "$c: -o the full device exits 1" $rc 1
	check "$c: the full device is still a character device" is_chr "$FULLDEV"
	check "$c: the error names the file and the reason ($(head -c 200 err))" \
		grep -q "$FULLDEV: No space left on device" err
	expect_eq "$c: no temporary file beside the device" \
		"$(find "$T" -maxdepth 1 -name '.*.tmp' | wc -l)" 0
	# The machine's own nodes, once the private ones came through intact.
	if [ "$NULLDEV" != /dev/null ]; then
		if is_chr "$NULLDEV" && is_chr "$FULLDEV"; then
			out $c /dev/null 2>err
			rc=$?
			expect_eq "$c: -o /dev/null exits 0 ($(head -c 200 err))" $rc 0
			check "$c: /dev/null is still a character device" is_chr /dev/null
			out $c /dev/full 2>err
			rc=$?
			expect_eq "$c: -o /dev/full exits 1" $rc 1
			check "$c: /dev/full is still a character device" is_chr /dev/full
		else
			bad "$c: /dev/null and /dev/full not tried: a private node was replaced"
		fi
	fi

	# A FIFO: a reader gets what a regular file gets.
	rm -f fifo fifo.out
	mkfifo fifo
	timeout 10 cat fifo >fifo.out &
	reader=$!
	out $c fifo 2>err
	rc=$?
	wait $reader
	rrc=$?
	expect_eq "$c: -o a FIFO exits 0 ($(head -c 200 err))" $rc 0
	expect_eq "$c: the FIFO's reader got the data and ended" $rrc 0
	expect_eq "$c: the FIFO's reader got the output" "$(head -n 1 fifo.out)" "$(cat "ref1.$c")"
	check "$c: the FIFO is still a FIFO" is_fifo fifo

	# A symbolic link: the target is replaced, the link kept.
	rm -f link target
	echo "old content" >target
	ln -s target link
	out $c link 2>err
	rc=$?
	expect_eq "$c: -o a symlink exits 0 ($(head -c 200 err))" $rc 0
	check "$c: the symlink is still the same symlink" link_to link target
	expect_eq "$c: the link's target holds the output" "$(head -n 1 target)" "$(cat "ref1.$c")"
	check "$c: the target is a regular file" test -f target -a ! -L target
	mkdir -p sub
	rm -f dangling sub/new
	ln -s sub/new dangling
	out $c dangling 2>err
	rc=$?
	expect_eq "$c: -o a dangling symlink exits 0 ($(head -c 200 err))" $rc 0
	check "$c: the dangling symlink is still the same symlink" link_to dangling sub/new
	expect_eq "$c: the dangling link's target was created" "$(head -n 1 sub/new)" "$(cat "ref1.$c")"
	expect_eq "$c: no temporary file beside the link or its target" \
		"$(find "$T" -name '.*.tmp' | wc -l)" 0

	# /dev/stdout: a private link to /proc/self/fd/1, then the real one.
	out $c "$T/stdout" >stdout.out 2>err
	rc=$?
	expect_eq "$c: -o a link to /proc/self/fd/1 exits 0 ($(head -c 200 err))" $rc 0
	expect_eq "$c: the output reached standard output" "$(head -n 1 stdout.out)" "$(cat "ref1.$c")"
	check "$c: the link to /proc/self/fd/1 is still that link" link_to "$T/stdout" /proc/self/fd/1
	out $c /proc/self/fd/1 2>err | cat >pipe.out
	expect_eq "$c: -o /proc/self/fd/1 into a pipe reaches the pipe" "$(head -n 1 pipe.out)" "$(cat "ref1.$c")"
	if link_to "$T/stdout" /proc/self/fd/1; then
		devstdout=$(readlink /dev/stdout)
		out $c /dev/stdout >stdout.out 2>err
		rc=$?
		expect_eq "$c: -o /dev/stdout exits 0 ($(head -c 200 err))" $rc 0
		expect_eq "$c: -o /dev/stdout reaches standard output" "$(head -n 1 stdout.out)" "$(cat "ref1.$c")"
		check "$c: /dev/stdout is still the same link" link_to /dev/stdout "$devstdout"
	else
		bad "$c: /dev/stdout not tried: the private link to /proc/self/fd/1 was replaced"
	fi
done

# Item 4: every companion of the database is an input, -journal too.
cp demo.db d.db
sqlite3 d.db "PRAGMA journal_mode" >/dev/null
h=$(sha256sum <d.db)
for suffix in -wal -shm -journal; do
	rm -f "d.db$suffix"
	for c in report export pcrs profile; do
		case $c in
		report) "$TPMTRACE" report d.db -o "d.db$suffix" >/dev/null 2>err ;;
		export) "$TPMTRACE" export d.db --csv "d.db$suffix" >/dev/null 2>err ;;
		pcrs) "$TPMTRACE" pcrs d.db -o "d.db$suffix" >/dev/null 2>err ;;
		profile) "$TPMTRACE" profile learn d.db -o "d.db$suffix" >/dev/null 2>err ;;
		esac
		expect_eq "$c -o d.db$suffix is refused" $? 2
		check "$c -o d.db$suffix says why" grep -q "would overwrite the input" err
		check "$c -o d.db$suffix creates nothing" test ! -e "d.db$suffix"
	done
done
expect_eq "the database is as it was" "$(sha256sum <d.db)" "$h"
"$TPMTRACE" verify d.db >/dev/null 2>&1
expect_eq "verify reads the database after all that" $? 0
finish
