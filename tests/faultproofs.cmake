# Fault proofs: tpmtrace_faultproof(NAME TEST [faultproof.sh options]) runs
# TEST with a fault made to happen and passes when the named checks fail
# (tests/lib/faultproof.sh). Each one shows that a check of the suite can fail.

# A command's exit status reaches its check (no command substitution in the
# description in between).
tpmtrace_faultproof(ftrace_import_fails integration/test_ftrace_import.sh
	--broken "import ftrace|profile import ftrace:fail"
	-e "import of function_graph text" -e "import with funcgraph-abstime"
	-e "profile import ftrace of the same text")
tpmtrace_faultproof(swtpm_log_import_fails integration/test_swtpm_log_import.sh
	--broken "import swtpm-log:fail" -e "import exits 0" -e "a cut log imports")
# The replay checker's crash is a failure, not fewer PASS lines.
tpmtrace_faultproof(replay_captures_checker_crashes integration/test_replay_captures.sh
	--broken "replay .*--json:truncate" -e "the checker read every run to the end")
# A subcommand whose --help lists no option is found out.
tpmtrace_faultproof(cli_help_no_options integration/test_cli_help.sh
	--broken "^list --help$:succeed"
	-e "list: options found in --help")
# A failed capture of our own is a failure, not a skip.
tpmtrace_faultproof(record_pcap_live_fails integration/test_record_pcap_live.sh
	--broken "record --pcap-live:fail" -e "record --pcap-live lo captures")
# record --kernel's refusals: an exit 0 (or a silent exit) is caught.
tpmtrace_faultproof(record_kernel_refusal_exits_0 integration/test_record_kernel_refusals.sh
	--broken "record --kernel --db:succeed" -e "not root: exit 1"
	-e "not root: the message names the privileges needed")
# Without root the root-only faults are skipped as a test, not passed.
tpmtrace_faultproof(record_faults_as_nobody_skips
	integration/test_record_faults_disk_full_read_only_as_root.sh
	--as nobody --status 77 -e "^SKIPPED: needs root")

# Writer stalls: a recorder whose TPM path waits for the writer (the writer
# blocks when full instead of dropping) is caught by its wait counter.
tpmtrace_faultproof(soak_tpm_path_waits_for_writer
	integration/test_soak_1m_stalling_writer_never_delays_tpm.sh
	--env TPMTRACE_FAULT_WRITER_BLOCK_WHEN_FULL=1 --env SOAK_COUNT=20000
	--env SOAK_STALL_MS=100 --env SOAK_STALL_EVERY_MS=200 --env SOAK_QUEUE=64
	-e "the TPM path never waited for the writer" -e "stalls made the writer drop")

# Emulation: responses released before their drawn latency (halfway) are
# found in the stored rows.
tpmtrace_faultproof(emulate_releases_early integration/test_emulate.sh
	--env TPMTRACE_FAULT_EMULATE_EARLY=1 --env EMULATE_POLICIES=as-recorded
	-e "as-recorded: every response held at least its drawn latency"
	-e "record --emulate: every response held at least its drawn latency")

# Calibration: entries priced from commands sent with a password instead of
# their HMAC form are found in the trace of what calibrate sent.
tpmtrace_faultproof(calibrate_prices_wrong_form integration/test_calibrate.sh
	--env TPMTRACE_FAULT_CALIBRATE_AUTH_PASSWORD=1
	-e "Create hmac: measured from 14 commands sent in that form"
	-e "Unseal hmac\\+enc: measured from 7 commands sent in that form")

# verify and list: a verify that always says yes, a list that prints nothing.
tpmtrace_faultproof(verify_always_succeeds integration/test_verify.sh
	--broken "^verify:succeed" -e "row-deleted: verify exits non-zero"
	-e "count-changed: verify exits non-zero" -e "duplicate-seq: verify exits non-zero"
	-e "latency: verify exits non-zero" -e "corrupt pages: verify exits non-zero")
tpmtrace_faultproof(list_prints_nothing integration/test_list.sh
	--broken "^list:succeed" -e "list: a header and one line per trace"
	-e "list --json: id kind status")
# record: --forward-only ignored (it records), --swtpm-state ignored (fresh state).
tpmtrace_faultproof(record_forward_only_ignored integration/test_record_forward_only_and_swtpm_state.sh
	--broken "--forward-only:drop=--forward-only"
	-e "forward-only: no database written")
tpmtrace_faultproof(record_swtpm_state_ignored integration/test_record_forward_only_and_swtpm_state.sh
	--broken "--swtpm-state:drop2=--swtpm-state"
	-e "state: swtpm's state file is in DIR" -e "state: second recording on the same DIR reads the index")

# Outputs (issue 22): every output renamed over its target as before
# (TPMTRACE_FAULT_OUT_RENAME_OVER) replaces the private device nodes, FIFO and
# links; temporary files without the signal handler stay behind.
tpmtrace_faultproof(outputs_renamed_over_special_files
	integration/test_outputs_never_replace_devices_fifos_symlinks.sh
	--env TPMTRACE_FAULT_OUT_RENAME_OVER=1
	-e "export: the null device is still a character device"
	-e "report: the FIFO is still a FIFO"
	-e "pcrs: the symlink is still the same symlink"
	-e "profile: the link to /proc/self/fd/1 is still that link")
tpmtrace_faultproof(outputs_signal_leaves_temporary_file
	integration/test_outputs_signal_leaves_no_temporary_file.sh
	--env TPMTRACE_FAULT_OUT_NO_SIGNAL_CLEANUP=1
	-e "SIGINT: no temporary file left" -e "SIGTERM: no temporary file left"
	-e "SIGHUP: no temporary file left")
# A subcommand that says yes whatever became of its standard output.
tpmtrace_faultproof(stdout_full_exit_0
	integration/test_exit_status_stdout_full_every_subcommand.sh
	--broken "^stats --help$:succeed"
	-e "'stats --help' >/dev/full exits non-zero")
# A read loop that stops at SQLite's error and exits 0 (what show -V did).
tpmtrace_faultproof(read_error_mid_read_exit_0
	integration/test_exit_status_read_error_mid_read.sh
	--broken "^show -V leaf.db$:succeed" -e "'show -V leaf.db' exits 1")
# push: without its transaction per trace, a push killed mid-COPY leaves a part of the trace.
tpmtrace_faultproof(push_without_transaction integration/test_fleet_push_faults.sh
	--env TPMTRACE_FAULT_PUSH_AUTOCOMMIT=1
	-e "SIGKILL mid-COPY: no trace row on the server"
	-e "server stopped mid-push: no trace row on the server")
# Issue 22: a spawn that leaves a killed recorder's swtpm state in place, and
# subcommands that say yes to a hostile database, are caught.
tpmtrace_faultproof(swtpm_stale_state_kept integration/test_swtpm_state_gone_after_recorder_sigkill.sh
	--env TPMTRACE_FAULT_SWTPM_KEEP_STALE=1
	-e "B's state directory is gone after the next start" -e "nothing left in TMPDIR")
tpmtrace_faultproof(hostile_db_verify_says_yes
	integration/test_hostile_db_foreign_schema_clear_error_bounded.sh
	--broken "^verify :succeed"
	-e "view-for-table: verify exits 1 within 5 s" -e "huge-blob: verify names the object")
# One definition of the figures: a stats --json cut short is seen by the
# comparison of every command's figures.
tpmtrace_faultproof(figures_stats_json_cut integration/test_figures_one_definition_everywhere.sh
	--broken "^stats .*--json:truncate" -e "every command, JSON and view agree on the figures")
# The boot glue of record --kernel: a dracut module that names a file it does
# not ship.
tpmtrace_faultproof(boot_glue_kernel_dracut_file_missing integration/test_boot_glue_kernel_files.sh
	--src-fixture "rm tools/initramfs/dracut/90tpmtrace-kernel/tpmtrace-kernel-initrd.sh"
	-e "install.. succeeds" -e "install.. names tpmtrace-kernel-initrd.sh, which the module has")
