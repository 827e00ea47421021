/* tpm-cuse-proxy's options on the host (its CUSE tests need a VM): the table
 * of tools/tpm-cuse-proxy/cuse_options.c parsed by the parser tpmtrace's
 * subcommands use. Every option's value lands where main.c takes it, the
 * defaults are the ones --help names, --help answers 0 and lists every
 * option of the table, and each kind of bad input is a usage error (exit
 * status 2) with the two lines "tpm-cuse-proxy: ..." and "Try
 * 'tpm-cuse-proxy --help'.". */
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/tpm/redact.h"
#include "testlib.h"
#include "tools/tpm-cuse-proxy/cuse_options.h"

static char out_text[16384], err_text[4096];
static char argv0[] = "tpm-cuse-proxy";

/* Reads what fd (a temporary file) holds into b. */
static void slurp(int fd, char *b, size_t n)
{
	ssize_t k = pread(fd, b, n - 1, 0);
	b[k > 0 ? k : 0] = 0;
}

/* Parses the space-separated words of args (argv[0] first); stdout and
 * stderr are caught in out_text and err_text. */
static int parse(const char *args, struct cuse_opts *o)
{
	static char buf[1024];
	char *argv[64];
	int argc = 0;
	memcpy(argv0, "tpm-cuse-proxy", sizeof argv0);
	argv[argc++] = argv0;
	snprintf(buf, sizeof buf, "%s", args);
	for (char *s = strtok(buf, " "); s && argc < 63; s = strtok(NULL, " "))
		argv[argc++] = s;
	argv[argc] = NULL;
	char on[] = "/tmp/cuseopts-out-XXXXXX", en[] = "/tmp/cuseopts-err-XXXXXX";
	int of = mkstemp(on), ef = mkstemp(en);
	unlink(on);
	unlink(en);
	fflush(stdout);
	fflush(stderr);
	int so = dup(1), se = dup(2);
	dup2(of, 1);
	dup2(ef, 2);
	int rc = cuse_parse_options(argc, argv, o);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp(of, out_text, sizeof out_text);
	slurp(ef, err_text, sizeof err_text);
	close(of);
	close(ef);
	return rc;
}

static void test_defaults(void)
{
	struct cuse_opts o;
	CHECK(parse("", &o) == -1, "no options: go on");
	CHECK(!strcmp(o.dev_dir, "/dev") && !o.name && !o.backend && !o.db_path, "places");
	CHECK(o.payloads == PAYLOADS_REDACTED && o.excl == -1 && o.count == 1 && o.rounds == 1000,
	      "payloads %d excl %d count %d rounds %d", o.payloads, o.excl, o.count, o.rounds);
	CHECK(o.mode == -1 && o.gid == -1 && !o.takeover && !o.foreground && !o.debug &&
		  !o.no_record && !o.restore && !o.json && !o.bench_getrandom && !o.initrd,
	      "nothing else set");
	CHECK(argv0[0] == 't', "argv[0] untouched without --initrd");
	CHECK(!*out_text && !*err_text, "silent: '%s' '%s'", out_text, err_text);
}

static void test_proxy_values(void)
{
	struct cuse_opts o;
	int rc = parse("--backend /dev/tpmrm0 --name tpmrm9 --db /tmp/x.db --payloads full "
		       "--trace-name boot --mode 0660 --group 0 --takeover -f --exclusive "
		       "--dev-dir /tmp/d --pidfile /run/p.pid --initrd",
		       &o);
	CHECK(rc == -1, "a full proxy line goes on (%d: %s)", rc, err_text);
	CHECK(!strcmp(o.backend, "/dev/tpmrm0") && !strcmp(o.name, "tpmrm9") &&
		  !strcmp(o.db_path, "/tmp/x.db") && !strcmp(o.trace_name, "boot") &&
		  !strcmp(o.dev_dir, "/tmp/d") && !strcmp(o.pidfile, "/run/p.pid"),
	      "the strings");
	CHECK(o.payloads == PAYLOADS_FULL, "--payloads full: %d", o.payloads);
	CHECK(o.mode == 0660, "--mode is octal: %o", o.mode);
	CHECK(o.gid == 0, "--group 0: %ld", o.gid);
	CHECK(o.takeover && o.foreground && !o.debug && o.excl == 1, "flags");
	CHECK(o.initrd && argv0[0] == '@', "--initrd marks argv[0] for systemd: %s", argv0);

	CHECK(parse("--backend=swtpm:path=/run/s --no-record --payloads=none --debug --shared",
		    &o) == -1,
	      "--opt=VALUE: %s", err_text);
	CHECK(!strcmp(o.backend, "swtpm:path=/run/s") && o.no_record && o.payloads == PAYLOADS_NONE,
	      "values after =");
	CHECK(o.debug && o.foreground && o.excl == 0, "--debug implies --foreground; --shared");
	CHECK(parse("--shared --exclusive", &o) == -1 && o.excl == 1, "the last of the two wins");
	CHECK(parse("--exclusive --shared", &o) == -1 && o.excl == 0, "... either way");
	CHECK(parse("--mode 7777", &o) == -1 && o.mode == 07777, "the largest mode");
	CHECK(parse("--foreground", &o) == -1 && o.foreground, "--foreground");
	struct group *gr = getgrgid(0);
	if (gr) {
		char line[300];
		snprintf(line, sizeof line, "--group %s", gr->gr_name);
		CHECK(parse(line, &o) == -1 && o.gid == 0, "--group by name (%s)", gr->gr_name);
	}
}

static void test_other_forms(void)
{
	struct cuse_opts o;
	CHECK(parse("--restore --name tpm0 --dev-dir /tmp/d", &o) == -1 && o.restore &&
		  !strcmp(o.name, "tpm0") && !strcmp(o.dev_dir, "/tmp/d"),
	      "--restore");
	CHECK(parse("--probe /dev/tpm0", &o) == -1 && !strcmp(o.probe, "/dev/tpm0"), "--probe");
	CHECK(parse("--bench /dev/tpm0,/dev/tpmproxy0 --bench-command getrandom --count 3 "
		    "--rounds 50 --json",
		    &o) == -1,
	      "--bench: %s", err_text);
	CHECK(!strcmp(o.bench, "/dev/tpm0,/dev/tpmproxy0") && o.bench_getrandom && o.count == 3 &&
		  o.rounds == 50 && o.json,
	      "the bench values");
	CHECK(parse("--bench-command extend", &o) == -1 && !o.bench_getrandom, "extend");
}

static void test_help(void)
{
	struct cuse_opts o;
	CHECK(parse("--help", &o) == 0, "--help exits 0");
	CHECK(!strncmp(out_text, "usage: tpm-cuse-proxy --backend DEVICE|TCTI", 43),
	      "usage first: %.60s", out_text);
	CHECK(!*err_text, "nothing on stderr");
	for (unsigned i = 0; i < cuse_proxy_cli.n_opts; i++) {
		char want[80];
		snprintf(want, sizeof want, " --%s", cuse_proxy_cli.opts[i].name);
		CHECK(strstr(out_text, want), "--help lists --%s", cuse_proxy_cli.opts[i].name);
	}
	CHECK(strstr(out_text, "\n  -f, --foreground "), "-f, --foreground");
	CHECK(strstr(out_text, "       tpm-cuse-proxy --restore [--name NAME] [--dev-dir DIR]\n"),
	      "the --restore form");
	CHECK(parse("--mode 99 -h", &o) == 0 && strstr(out_text, "Options:"),
	      "-h anywhere before -- wins");
}

/* args is a usage error whose first line is want. */
static void bad(const char *args, const char *want)
{
	struct cuse_opts o;
	char line[600];
	int rc = parse(args, &o);
	snprintf(line, sizeof line, "tpm-cuse-proxy: %s\nTry 'tpm-cuse-proxy --help'.\n", want);
	CHECK(rc == 2, "%s: exit 2, not %d", args, rc);
	CHECK(!strcmp(err_text, line), "%s: the message\n%s\nnot\n%s", args, line, err_text);
}

static void test_errors(void)
{
	bad("--bogus", "unknown option '--bogus'");
	bad("-x", "unknown option '-x'");
	bad("--backend", "option '--backend' needs a value (DEVICE|TCTI)");
	bad("--json=1", "option '--json' takes no value");
	bad("--payloads raw", "--payloads takes none, redacted or full, not 'raw'");
	bad("--bench-command pcrread", "--bench-command takes extend or getrandom, not 'pcrread'");
	bad("--mode 99", "--mode takes an octal mode, not '99'");
	bad("--mode 10000", "--mode takes an octal mode, not '10000'");
	bad("--group no-such-group-cuseopts", "--group: no group 'no-such-group-cuseopts'");
	bad("--count 0", "--count takes a whole number from 1 to 2147483647, not '0'");
	bad("--rounds 12x", "--rounds takes a whole number from 1 to 2147483647, not '12x'");
	bad("--backend /dev/tpm0 extra", "unexpected argument 'extra'");
	bad("--restore -- --name", "unexpected argument '--name'");
}

int main(void)
{
	test_defaults();
	test_proxy_values();
	test_other_forms();
	test_help();
	test_errors();
	return tl_finish("test_cuse_options");
}
