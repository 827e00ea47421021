/* tpmtrace calibrate: measure a TPM's latency per command kind into a
 * profile (replayer/calibrate.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "model/profile.h"
#include "replayer/calibrate.h"

enum { O_TCTI = 256, O_ITER, O_WARM, O_DB, O_NAME, O_REPLACE, O_ALLOW, O_QUIET, O_OUT = 'o' };
static const struct cli_opt opts[] = {
    {"tcti", O_TCTI, "T", 0,
     "spawn (default): a private swtpm, removed afterwards;\n"
     "or a TCTI string: device:/dev/tpmrm0, swtpm:path=SOCK,\n"
     "swtpm:host=H,port=P, mssim:host=H,port=P, tabrmd",
     "@tcti"},
    {"iterations", O_ITER, "N", CLI_NUM, "measured passes: calls per kind (default 20)", NULL, 1,
     100000},
    {"warmup", O_WARM, "N", CLI_NUM, "unmeasured passes after the cold one (default 2)", NULL, 0,
     100000},
    {"output", O_OUT, "FILE", 0,
     "write the profile to FILE (created 0600, replaced only\nwhen complete)", "@file"},
    {"db", O_DB, "DB", 0, "store the profile in DB (created if missing)", "@file"},
    {"name", O_NAME, "NAME", 0, "the profile's name (default calibrated-HOST-YYYYMMDD)"},
    {"replace", O_REPLACE, NULL, 0, "with --db: replace a stored profile of the same name"},
    {"allow-destructive", O_ALLOW, NULL, 0, "on hardware, also measure the NV kinds"},
    {"quiet", O_QUIET, NULL, 0, "no summary on stderr"},
};

static int run(int argc, char **argv);
const struct subcommand subcmd_calibrate = {
    "calibrate",
    run,
    "measure a TPM's command latencies into a profile",
    NULL,
    0,
    CLI_OPTS(opts),
    "Measures one TPM: every command kind a boot or tpm2-tools sends, in each\n"
    "authorization form it is sent in (none, password, HMAC session, HMAC session\n"
    "with parameter encryption: predict prices them apart) and, where it matters, each\n"
    "key or session variant:\n"
    "  GetCapability, GetRandom (none; HMAC+encrypt), PCR_Read, PCR_Extend (password;\n"
    "  HMAC), StartAuthSession salted (ECDH with the kernel's null key) and unsalted,\n"
    "  ContextSave, ContextLoad, FlushContext, ReadPublic, PolicyPCR, PolicyGetDigest,\n"
    "  NV_ReadPublic; CreatePrimary of the null key (ECC P-256, password) and of the\n"
    "  owner storage primary tpm2-tools makes (ECC P-256 and RSA 2048; HMAC and\n"
    "  HMAC+encrypt, RSA also password); Create of a sealed object and of an ECC P-256\n"
    "  signing key, Load, Unseal, NV_DefineSpace, NV_Write, NV_Read, Sign and Quote\n"
    "  (ECDSA P-256) with a password, HMAC and HMAC+encrypt; NV_UndefineSpace with a\n"
    "  password and HMAC.\n"
    "The kinds are measured in passes, each kind once per pass: the first pass is the\n"
    "cold call (kept apart, in the entry's comment), then --warmup passes unmeasured,\n"
    "then --iterations measured, so that a kind's samples spread over the whole run and\n"
    "no command is timed in a hot loop of itself. The HMAC forms use tpmtrace's own\n"
    "session code (a salted session, response HMACs verified). The result is a latency\n"
    "profile (docs/profiles.md) with n, mean, p50, p95, stdev, min and max per kind,\n"
    "and its provenance (tpmtrace calibrate, host, date, target, the TPM's vendor, chip\n"
    "and firmware).\n"
    "\n"
    "Everything created is removed again (objects and sessions flushed, NV indices\n"
    "undefined, nothing made persistent), also after a failure. PCR 16 (debug) is\n"
    "extended. On hardware (any TCTI but swtpm: and mssim:) the NV_* kinds are skipped:\n"
    "they define and undefine NV indices a few times per pass, which changes the TPM's\n"
    "persistent state and wears its NV memory (--allow-destructive measures them).\n",
    "Without --output and --db the profile is written to stdout. Progress is shown on\n"
    "stderr when it is a terminal.\n",
    "tpmtrace calibrate -o swtpm.profile\n"
    "sudo tpmtrace calibrate --tcti device:/dev/tpmrm0 --iterations 50 --db fleet.db \\\n"
    "    --name laptop-x1-ifx\n"
    "tpmtrace predict boot.db --profile swtpm.profile --policy all\n",
};

static void progress(void *arg, unsigned i, unsigned n, const char *kind, unsigned j, unsigned m)
{
	(void)arg;
	fprintf(stderr, "\r\033[Kcalibrate: [%u/%u] %s %u/%u", i, n, kind, j, m);
	fflush(stderr);
}

/* Writes p to out (atomically) and/or stores it in dbpath; prints it when
 * neither is given. Returns 0 or 1 (reported). */
static int deliver(const struct profile *p, const char *out, const char *dbpath, int replace,
		   const char *const *inputs)
{
	char err[1024];
	/* A profile that does not read back is a bug here, not bad input: check
	 * it before anything is written. */
	if (profile_check(p, err, sizeof err))
		return cli_error("calibrate", "%s (nothing written)", err);
	if (out) {
		struct db_out o;
		if (cli_out_open("calibrate", &o, out, inputs))
			return 1;
		if (profile_write(o.f, p))
			return cli_out_fail("calibrate", &o, out, "write error");
		if (cli_out_close("calibrate", &o, 1))
			return 1;
	}
	if (dbpath && profile_db_store_path(dbpath, p, replace, err, sizeof err))
		return cli_error("calibrate", "%s", err);
	if (!out && !dbpath && profile_write(stdout, p))
		return cli_error("calibrate", "write error");
	return 0;
}

static int run(int argc, char **argv)
{
	struct calibrate_opts co = {.iterations = 20, .warmup = 2};
	const char *out = NULL, *dbpath = NULL;
	int replace = 0, quiet = 0, rc, ret = 1;
	char err[1024];
	struct profile p;
	struct calibrate_result res;
	struct cli_parse cp;
	int k;
	cli_parse_init(&cp, &subcmd_calibrate, argc, argv);
	while ((k = cli_next(&cp)) > 0) {
		switch (k) {
		case O_TCTI:
			co.tcti = strcmp(cp.arg, "spawn") ? cp.arg : NULL;
			break;
		case O_ITER:
			co.iterations = (unsigned)cp.num;
			break;
		case O_WARM:
			co.warmup = (unsigned)cp.num;
			break;
		case O_OUT:
			out = cp.arg;
			break;
		case O_DB:
			dbpath = cp.arg;
			break;
		case O_NAME:
			if (!cp.arg[0] || strpbrk(cp.arg, "\n\r"))
				return cli_usage_error(&subcmd_calibrate,
						       "--name must be one line");
			co.name = cp.arg;
			break;
		case O_REPLACE:
			replace = 1;
			break;
		case O_ALLOW:
			co.allow_destructive = 1;
			break;
		case O_QUIET:
			quiet = 1;
			break;
		}
	}
	if (k < 0)
		return EXIT_USAGE;
	if (cp.ind < argc)
		return cli_usage_error(&subcmd_calibrate, "unexpected argument '%s'", argv[cp.ind]);
	if (replace && !dbpath)
		return cli_usage_error(&subcmd_calibrate, "--replace goes with --db");
	const char *const inputs[] = {dbpath, NULL};
	if (out && (rc = cli_out_check("calibrate", out, inputs)))
		return rc;
	/* Checked before the TPM is measured: a bad --db wastes no run. */
	if (dbpath && cli_db_for_create("calibrate", dbpath))
		return 1;
	if (isatty(2))
		co.progress = progress;

	profile_init(&p);
	rc = rp_calibrate_run(&co, &p, &res, err, sizeof err);
	if (co.progress)
		fprintf(stderr, "\r\033[K");
	if (rc) {
		cli_error("calibrate", "%s: %s%s", res.target[0] ? res.target : "target", err,
			  res.left ? ""
				   : " (every handle it created was removed; nothing written)");
		if (res.left)
			fprintf(stderr,
				"tpmtrace calibrate: %u handle(s) may be left on the TPM; nothing "
				"written\n",
				res.left);
	} else if (!deliver(&p, out, dbpath, replace, inputs)) {
		if (!quiet)
			fprintf(
			    stderr,
			    "tpmtrace calibrate: profile '%s' from %s: %u kinds measured, %u "
			    "skipped; %llu commands sent; %u handles removed afterwards%s%s%s%s\n",
			    cli_name(p.name), cli_name(res.target), res.kinds_measured,
			    res.kinds_skipped, (unsigned long long)res.commands, res.cleaned,
			    out ? "; written to " : "", out ? cli_name(out) : "",
			    dbpath ? "; stored in " : "", dbpath ? cli_name(dbpath) : "");
		ret = 0;
	}
	profile_release(&p);
	return ret;
}
