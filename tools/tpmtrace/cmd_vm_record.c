/* tpmtrace vm-record: run QEMU with a vTPM whose every command is recorded:
 * a private swtpm, the QEMU interposer in between, the TPM wired into the
 * QEMU command line. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "db/host_id.h"
#include "record_qemu.h"

enum { V_DB = 256, V_PAYLOADS, V_NAME, V_STATE, V_MODEL, V_QUIET, V_EMU, V_SEED };
static const struct cli_opt opts[] = {
    {"db", V_DB, "FILE", 0, "database file, created 0600 if missing (default\ntpmtrace.db)",
     "@file"},
    {"payloads", V_PAYLOADS, "MODE", CLI_CHOICE, CLI_PAYLOADS_HELP, CLI_PAYLOADS_CHOICES},
    {"name", V_NAME, "NAME", 0, "a name for the trace"},
    {"swtpm-state", V_STATE, "DIR", 0,
     "keep swtpm's state in DIR (default: a fresh TPM,\nremoved at the end)", "@dir"},
    {"tpm-device", V_MODEL, "MODEL", CLI_CHOICE,
     "QEMU's TPM front end: tpm-tis, tpm-crb or tpm-tis-device\n"
     "(Arm's virt machine); default tpm-tis-device for\n"
     "qemu-system-aarch64, else tpm-tis",
     "tpm-tis tpm-crb tpm-tis-device"},
    {"emulate", V_EMU, "PROFILE", 0,
     "latency injection, as `tpmtrace record --emulate`: the\n"
     "guest sees the profiled TPM's latencies (flag 4)",
     "@profile"},
    {"emulate-seed", V_SEED, "N", CLI_U64,
     "seed of the latency draws (default: random; stored in\nthe trace's 'emulate' event)"},
    {"quiet", V_QUIET, NULL, 0, "no summary at exit"},
};
static const struct cli_form forms[] = {{0, NULL, "-- QEMU ARGS..."}};

static int run(int argc, char **argv);
const struct subcommand subcmd_vm_record = {
    "vm-record",
    run,
    "boot a VM under QEMU and record its TPM traffic",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Boots a VM and records all of its TPM traffic: starts a private swtpm (which\n"
    "waits for INIT, as a TPM waits for power), serves QEMU's TPM control socket\n"
    "through the interposer (see `tpmtrace record --help`, QEMU mode) and runs QEMU\n"
    "with these arguments appended:\n"
    "  -chardev socket,id=chrtpm,path=SOCKET -tpmdev emulator,id=tpm0,chardev=chrtpm\n"
    "  -device tpm-tis,tpmdev=tpm0 (tpm-tis-device for qemu-system-aarch64)\n"
    "The trace holds the firmware's measurements, the kernel's start-up commands,\n"
    "IMA's PCR extends and every user-space command, with control events for\n"
    "power-on (ctrl:INIT), reset (ctrl:STOP) and shutdown (ctrl:SHUTDOWN); the\n"
    "firmware sends TPM2_Startup, as on a real machine.\n"
    "Commands up to the kernel's first (its TPM probe) are the firmware's (client\n"
    "'firmware'), later ones the guest's (client 'guest'); `tpmtrace attribute`\n"
    "with the guest kernel's ftrace tells the kernel's from user space's.\n"
    "SIGINT and SIGTERM are passed on to QEMU; the exit status is QEMU's.\n",
    NULL,
    "tpmtrace vm-record --db boot.db -- qemu-system-x86_64 -m 1G -nographic \\\n"
    "    -kernel vmlinuz -initrd initrd.img -append 'console=ttyS0 ima_policy=tcb'\n"
    "tpmtrace stats boot.db --by origin\n",
    NULL,
    1,
};

struct vm_ctx {
	struct record_session *rs;
	pid_t qemu;
	int status;
	int exited;
};

static int on_signal(void *arg)
{
	struct vm_ctx *x = arg;
	struct signalfd_siginfo si;
	while (read(x->rs->sfd, &si, sizeof si) == sizeof si) {
		if (record_session_status(x->rs, &si))
			continue;
		if (si.ssi_signo == SIGCHLD) {
			if (!x->exited && waitpid(x->qemu, &x->status, WNOHANG) == x->qemu) {
				x->exited = 1;
				return 1;
			}
		} else if (!x->exited) {
			/* QEMU decides how to stop; we keep recording until
			 * it has (its SHUTDOWN comes last). */
			kill(x->qemu, (int)si.ssi_signo);
		}
	}
	return 0;
}

struct vm_args {
	struct qemu_record_opts o;
	const char *model, *emulate;
	int quiet, have_seed;
	unsigned long long seed;
	char **qargv; /* the QEMU command */
	int qargc;
};

static int parse(int argc, char **argv, struct vm_args *a)
{
	struct cli_parse p;
	int c;

	memset(a, 0, sizeof *a);
	a->o.db_path = "tpmtrace.db";
	a->o.payloads = PAYLOADS_REDACTED;
	a->o.spawn = 1;
	cli_parse_init(&p, &subcmd_vm_record, argc, argv);
	while ((c = cli_next(&p)) > 0) {
		switch (c) {
		case V_DB:
			a->o.db_path = p.arg;
			break;
		case V_PAYLOADS:
			a->o.payloads = tpm_payload_mode_parse(p.arg);
			break;
		case V_NAME:
			a->o.name = p.arg;
			break;
		case V_STATE:
			a->o.swtpm_state = p.arg;
			break;
		case V_MODEL:
			a->model = p.arg;
			break;
		case V_QUIET:
			a->quiet = 1;
			break;
		case V_EMU:
			a->emulate = p.arg;
			break;
		case V_SEED:
			a->seed = p.u64;
			a->have_seed = 1;
			break;
		}
	}
	if (c < 0)
		return EXIT_USAGE;
	if (p.ind >= argc || strcmp(argv[p.ind - 1], "--") != 0)
		return cli_usage_error(&subcmd_vm_record, "give the QEMU command after --");
	a->qargv = argv + p.ind;
	a->qargc = argc - p.ind;
	if (!a->model) {
		/* Arm's virt machine has no ISA bus: its TIS is the
		 * memory-mapped sysbus device. */
		const char *q = strrchr(a->qargv[0], '/');
		q = q ? q + 1 : a->qargv[0];
		a->model = !strncmp(q, "qemu-system-aarch64", 19) ? "tpm-tis-device" : "tpm-tis";
	}
	for (int i = 0; i < a->qargc; i++)
		if (!strcmp(a->qargv[i], "-tpmdev"))
			return cli_usage_error(&subcmd_vm_record,
					       "the QEMU command already has a -tpmdev; vm-record "
					       "adds its own");
	if (a->have_seed && !a->emulate)
		return cli_usage_error(&subcmd_vm_record, "--emulate-seed goes with --emulate");
	return 0;
}

/* Starts the QEMU command with a TPM of model a->model whose emulator
 * backend is the control socket sock. */
static pid_t spawn_qemu(const struct vm_args *a, const char *sock, const sigset_t *mask)
{
	char chardev[200], device[64];
	snprintf(chardev, sizeof chardev, "socket,id=chrtpm,path=%s", sock);
	snprintf(device, sizeof device, "%s,tpmdev=tpm0", a->model);
	char **full = calloc((size_t)a->qargc + 8, sizeof(char *));
	if (!full)
		return -1;
	int n = 0;
	for (int i = 0; i < a->qargc; i++)
		full[n++] = a->qargv[i];
	full[n++] = "-chardev";
	full[n++] = chardev;
	full[n++] = "-tpmdev";
	full[n++] = "emulator,id=tpm0,chardev=chrtpm";
	full[n++] = "-device";
	full[n++] = device;
	full[n] = NULL;
	pid_t pid = cli_spawn("vm-record", full, mask, NULL);
	free(full);
	return pid;
}

static int run(int argc, char **argv)
{
	struct vm_args a;
	int ret = 1, have_em = 0;
	struct emulator em;
	int rc = parse(argc, argv, &a);
	if (rc)
		return rc;
	/* Before any thread: a recorder never maps libcrypto (db/host_id.h). */
	db_host_id_prefetch();
	/* Nothing is started before the database is known to be usable. */
	if (cli_db_for_create("vm-record", a.o.db_path))
		return 1;
	cli_payloads_warn("vm-record", a.o.payloads, a.o.db_path);
	if (a.emulate) {
		/* Checked before anything starts: a bad profile leaves nothing
		 * behind. A profile stored in an existing database is found there. */
		char err[512];
		if (record_emulator_init(&em, a.o.db_path, a.emulate, a.have_seed, a.seed, err,
					 sizeof err))
			return cli_error("vm-record", "--emulate: %s", err);
		have_em = 1;
		a.o.emu = &em;
	}
	char dir[96];
	snprintf(dir, sizeof dir, "%s/tpmtrace-vm-XXXXXX",
		 getenv("TMPDIR") && strlen(getenv("TMPDIR")) < 60 ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return cli_error("vm-record", "cannot create a socket directory: %s",
				 strerror(errno));
	char sock[128];
	snprintf(sock, sizeof sock, "%s/vtpm-ctrl.sock", dir);
	a.o.qemu_ctrl = sock;

	struct vm_ctx x = {.rs = NULL};
	struct qemu_session s;
	if (cli_qemu_start(&s, &a.o, "vm-record", RECORD_SIG_CHLD))
		goto out;
	x.rs = &s.rs;
	x.qemu = spawn_qemu(&a, sock, &s.rs.oldmask);
	if (x.qemu < 0)
		goto out;
	rc = qemu_interposer_run(s.qi, &s.rec, s.rs.sfd, on_signal, &x);
	if (rc < 0)
		cli_error("vm-record", "interposer: %s", strerror(-rc));
	if (!x.exited) {
		while (waitpid(x.qemu, &x.status, 0) < 0 && errno == EINTR)
			;
		x.exited = 1;
	}
	ret = cli_exit_status(x.status);
out:
	if (x.qemu > 0 && !x.exited) {
		kill(x.qemu, SIGTERM);
		waitpid(x.qemu, NULL, 0);
	}
	if (cli_qemu_finish(&s, "vm-record", a.quiet) && ret == 0)
		ret = 1;
	if (have_em) {
		if (!a.quiet || em.missing)
			fprintf(stderr,
				"tpmtrace vm-record: emulated %s (%s, seed %llu): %llu responses "
				"held; %llu priced from another variant or authorization, %llu at "
				"the fallback %.3f ms\n",
				em.prof.name, em.from, (unsigned long long)em.seed,
				(unsigned long long)em.commands, (unsigned long long)em.approx,
				(unsigned long long)em.missing, em.fallback_ms);
		emulate_release(&em);
	}
	rmdir(dir);
	return ret;
}
