/* tpmclient: a small TPM client for tests and benchmarks. Sends raw TPM 2.0
 * commands over the swtpm socket protocol (raw or MS-simulator framing),
 * checks every response and reports round-trip times.
 *
 *   tpmclient --connect tcp:H:P|unix:PATH [--mssim] [--new-conn] [--cmd NAME]
 *             [--count N] [--pace US] [--expect-rc HEX] [--rtt FILE] [--quiet]
 *             [--also SPEC]...    the same commands interleaved, one at a time, on
 *                                 up to two more targets (benchmarks compare them
 *                                 side by side); their round trips go to FILE.1, FILE.2
 *   tpmclient --connect SPEC --hex HEXBYTES      one raw message, prints the answer
 *   tpmclient --device PATH [...]   instead of --connect: a TPM character device
 *             (/dev/tpmrm0, a tpm-cuse-proxy node), opened once; each command is
 *             one write(2), its answer read(2) whole, as tpm2-tss's device TCTI
 *             does (not with --mssim, --also or --hex)
 *   tpmclient --serve unix:PATH|tcp:H:P          a backend that answers every raw
 *             command at once with TPM_RC_SUCCESS (for benchmarks of the proxy and
 *             writer alone; never used where a real TPM's answer matters), with a
 *             control channel (PATH.ctrl, port+1) that accepts everything
 *   tpmclient --serve-garbage SPEC   the same, answering framed nonsense (a
 *             replay target that misbehaves)
 *   --pace US       a pause of US microseconds between commands (a client as slow
 *             as a real TPM, whose recorder commits small batches)
 *   --close-after N (before --serve*): answer N commands, then close and exit
 *   --timeout MS    how long a client waits for a response (default 10000):
 *             a response that does not come (a proxy that lost it) ends the
 *             run with a failure instead of a hang; the first one lost stops
 *             the run, since every later answer would be out of step
 *   --extra same|late (before --serve): a backend out of step once (fault
 *             injection): after its first answer, a second 10-byte answer
 *             with response code 0xBAD, in the same write or 50 ms later
 *
 * Commands: startup, getrandom, pcrextend (PCR 16, password session),
 * getcap (TPM_PROPERTIES), pcrread (sha256 PCR 16), big (a 4000-byte
 * TPM2_Hash; exercises large messages), readpublic (persistent 0x81000001),
 * mix: PCR_Extend, GetRandom, GetCapability and ReadPublic in turn, each
 * shaped by --tag K (GetRandom sizes and GetCapability properties follow a
 * sequence that depends on K and the command number) and each answer checked
 * against the command that was sent: an answer that belongs to another
 * client's command is counted as wrong. --log FILE writes "cmdhex rsphex" per
 * command, for comparison with the recorded rows.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "db/db.h"
#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/netutil.h"

/* --mix: what command i of client tag asks, so that its answer can be checked. */
enum { MIX_EXTEND, MIX_RANDOM, MIX_CAP, MIX_PUBLIC };
static unsigned mix_kind(uint32_t i, uint32_t tag)
{
	return (i + tag) % 4;
}
static uint16_t mix_random_size(uint32_t i, uint32_t tag)
{
	return (uint16_t)(1 + (i * 7 + tag) % 32);
}
static uint32_t mix_cap_property(uint32_t i, uint32_t tag)
{
	/* TPM_PT_FAMILY_INDICATOR .. TPM_PT_NV_BUFFER_MAX: all defined in
	 * Part 2 6.13, so the TPM answers exactly the property asked for. */
	return 0x100 + (i * 3 + tag) % 0x2C;
}

static size_t build(const char *name, uint8_t *b, size_t cap, uint32_t counter, uint32_t tag)
{
	struct wire_wr w;
	wire_wr_init(&w, b, cap);
	if (!strcmp(name, "mix")) {
		static const char *const kinds[] = {"pcrextend", "getrandom", "getcap1",
						    "readpublic"};
		unsigned k = mix_kind(counter, tag);
		size_t n = build(kinds[k], b, cap, counter ^ (tag << 20), tag);
		if (k == MIX_RANDOM)
			wire_put_u16(b + 10, mix_random_size(counter, tag));
		else if (k == MIX_CAP)
			wire_put_u32(b + 14, mix_cap_property(counter, tag));
		return n;
	}
	if (!strcmp(name, "readpublic")) {
		wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
		wire_wr_u32(&w, 0);
		wire_wr_u32(&w, TPM_CC_ReadPublic);
		wire_wr_u32(&w, 0x81000001);
	} else if (!strcmp(name, "startup")) {
		wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
		wire_wr_u32(&w, 0);
		wire_wr_u32(&w, TPM_CC_Startup);
		wire_wr_u16(&w, 0); /* TPM_SU_CLEAR */
	} else if (!strcmp(name, "getrandom")) {
		wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
		wire_wr_u32(&w, 0);
		wire_wr_u32(&w, TPM_CC_GetRandom);
		wire_wr_u16(&w, 16);
	} else if (!strcmp(name, "pcrextend")) {
		wire_wr_u16(&w, TPM_ST_SESSIONS);
		wire_wr_u32(&w, 0);
		wire_wr_u32(&w, TPM_CC_PCR_Extend);
		wire_wr_u32(&w, 16);
		wire_wr_u32(&w, 9);
		wire_wr_u32(&w, TPM_RS_PW);
		wire_wr_u16(&w, 0);
		wire_wr_u8(&w, 0);
		wire_wr_u16(&w, 0);
		wire_wr_u32(&w, 1);
		wire_wr_u16(&w, 0x000B);
		for (int i = 0; i < 32; i++)
			wire_wr_u8(&w, (uint8_t)(counter >> (8 * (i % 4))));
	} else if (!strcmp(name, "getcap") || !strcmp(name, "getcap1")) {
		wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
		wire_wr_u32(&w, 0);
		wire_wr_u32(&w, TPM_CC_GetCapability);
		wire_wr_u32(&w, 6);	/* TPM_CAP_TPM_PROPERTIES */
		wire_wr_u32(&w, 0x100); /* PT_FIXED */
		wire_wr_u32(&w, strcmp(name, "getcap") ? 1 : 8);
	} else if (!strcmp(name, "pcrread")) {
		wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
		wire_wr_u32(&w, 0);
		wire_wr_u32(&w, TPM_CC_PCR_Read);
		wire_wr_u32(&w, 1);
		wire_wr_u16(&w, 0x000B);
		wire_wr_u8(&w, 3);
		wire_wr_u8(&w, 0);
		wire_wr_u8(&w, 0);
		wire_wr_u8(&w, 1); /* PCR 16 */
	} else if (!strcmp(name, "big")) {
		/* TPM2_Hash of a 1024-byte buffer (MAX_DIGEST_BUFFER), ~1 KiB. */
		wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
		wire_wr_u32(&w, 0);
		wire_wr_u32(&w, TPM_CC_Hash);
		wire_wr_u16(&w, 1024);
		for (int i = 0; i < 1024; i++)
			wire_wr_u8(&w, (uint8_t)(i + counter));
		wire_wr_u16(&w, 0x000B);
		wire_wr_u32(&w, 0x40000007); /* TPM_RH_NULL */
	} else {
		return 0;
	}
	if (w.err)
		return 0;
	wire_put_u32(b + 2, (uint32_t)w.off);
	return w.off;
}

static int timeout_ms = 10000; /* --timeout: every wait for a response */

static int exchange(int fd, int mssim, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
		    size_t *rlen)
{
	int rc;
	if (mssim) {
		uint8_t hdr[9];
		wire_put_u32(hdr, 8);
		hdr[4] = 0;
		wire_put_u32(hdr + 5, (uint32_t)len);
		uint8_t frame[TPM_MAX_MESSAGE + 16];
		memcpy(frame, hdr, 9);
		memcpy(frame + 9, cmd, len);
		if ((rc = net_write_full(fd, frame, len + 9, timeout_ms)))
			return rc;
		uint8_t sz[4], trailer[4];
		if ((rc = net_read_full(fd, sz, 4, timeout_ms)))
			return rc;
		size_t n = wire_get_u32(sz);
		if (n > cap)
			return -EPROTO;
		if ((rc = net_read_full(fd, rsp, n, timeout_ms)) ||
		    (rc = net_read_full(fd, trailer, 4, timeout_ms)))
			return rc;
		*rlen = n;
		return 0;
	}
	if ((rc = net_write_full(fd, cmd, len, timeout_ms)))
		return rc;
	return net_read_tpm_message(fd, rsp, cap, rlen, timeout_ms);
}

/* --device: the kernel's TPM character device contract (drivers/char/tpm/
 * tpm-dev-common.c): one write(2) carries one whole command, the next read(2)
 * returns the response (or the part asked for). Reads until the response's
 * own size field is satisfied, so a short read is not taken for the end. */
static int exchange_device(int fd, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
			   size_t *rlen)
{
	ssize_t n;
	do
		n = write(fd, cmd, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	size_t got = 0, want = 10;
	while (got < want) {
		/* The device's read blocks until the answer is there: wait for
		 * it with a timeout, so that a lost answer fails the run. */
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int pr = poll(&pf, 1, timeout_ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -errno;
		if (pr == 0)
			return -ETIMEDOUT;
		n = read(fd, rsp + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPROTO; /* nothing pending: the answer was lost */
		got += (size_t)n;
		if (got >= 6) {
			want = wire_get_u32(rsp + 2);
			if (want < 10 || want > cap)
				return -EPROTO;
		}
	}
	if (got != want)
		return -EPROTO; /* more than one response in one read */
	*rlen = got;
	return 0;
}

static long close_after = -1; /* --close-after N: a target that goes away */
static int extra = 0;	      /* --extra: 1 same write, 2 late */

static int serve(const char *spec, int garbage)
{
	struct endpoint ep;
	char err[256];
	int lfd, fd;
	if (net_endpoint_parse(spec, &ep, err, sizeof err) ||
	    net_endpoint_listen(&ep, &lfd, err, sizeof err)) {
		fprintf(stderr, "tpmclient: --serve: %s\n", err);
		return 2;
	}
	int fl = fcntl(lfd, F_GETFL);
	fcntl(lfd, F_SETFL, fl & ~O_NONBLOCK);
	{
		/* tpm2-tss's swtpm TCTI wants a control channel too: one that
		 * says yes to everything, served by a child. */
		struct endpoint cep;
		int cfd;
		net_endpoint_ctrl_of(&ep, &cep);
		if (net_endpoint_listen(&cep, &cfd, err, sizeof err)) {
			fprintf(stderr, "tpmclient: --serve-garbage: %s\n", err);
			return 2;
		}
		fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) & ~O_NONBLOCK);
		if (fork() == 0) {
			static const uint8_t zero[4];
			prctl(PR_SET_PDEATHSIG, SIGTERM); /* gone with the parent */
			uint8_t req[4200];
			while ((fd = accept(cfd, NULL, NULL)) >= 0) {
				while (read(fd, req, sizeof req) > 0)
					if (net_write_full(fd, zero, 4, 10000))
						break;
				close(fd);
			}
			_exit(0);
		}
		close(cfd);
	}
	static const uint8_t ok[10] = {0x80, 0x01, 0, 0, 0, 10, 0, 0, 0, 0};
	/* --serve-garbage: framed, claims success, and holds nothing a TPM
	 * would send (a target that answers nonsense). */
	static const uint8_t junk[17] = {0x80, 0x02, 0,	   0,	 0,    17,   0,	   0,	0,
					 0,    0xde, 0xad, 0xbe, 0xef, 0xff, 0xff, 0x7f};
	uint8_t buf[TPM_MAX_MESSAGE + 64];
	size_t len;
	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		net_set_nodelay(fd);
		while (net_read_tpm_message(fd, buf, sizeof buf, &len, -1) == 0) {
			/* The last answer: stop reading first, so that a
			 * client writing on this connection again gets EPIPE. */
			if (close_after == 1)
				shutdown(fd, SHUT_RD);
			static const uint8_t bad[20] = {0x80, 0x01, 0, 0, 0, 10, 0, 0, 0,    0,
							0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x0b, 0xad};
			if (extra == 1 ? net_write_full(fd, bad, sizeof bad, 10000)
			    : garbage  ? net_write_full(fd, junk, sizeof junk, 10000)
				       : net_write_full(fd, ok, sizeof ok, 10000))
				break;
			if (extra == 2) {
				usleep(50000);
				if (net_write_full(fd, bad + 10, 10, 10000))
					break;
			}
			extra = 0;
			if (close_after > 0 && --close_after == 0) {
				/* Answered, then gone: the client's next write
				 * meets a closed socket. */
				close(fd);
				return 0;
			}
		}
		close(fd);
	}
	return 0;
}

/* Checks that rsp answers command i of a --mix client with this tag.
 * Returns NULL or what is wrong. */
static const char *mix_check(uint32_t i, uint32_t tag, const uint8_t *rsp, size_t len, uint8_t *pub,
			     size_t *pub_len)
{
	if (len < 10 || wire_get_u32(rsp + 2) != len)
		return "bad header";
	if (wire_get_u32(rsp + 6) != 0)
		return "not TPM_RC_SUCCESS";
	switch (mix_kind(i, tag)) {
	case MIX_EXTEND:
		/* parameterSize 0 and an empty password acknowledgement (Part 1 18.8). */
		return len == 19 && wire_get_u16(rsp) == TPM_ST_SESSIONS
			   ? NULL
			   : "not a PCR_Extend answer";
	case MIX_RANDOM: {
		uint16_t n = mix_random_size(i, tag);
		return len == 12u + n && wire_get_u16(rsp + 10) == n ? NULL
								     : "GetRandom size differs";
	}
	case MIX_CAP:
		/* moreData, capability, count, then TPMS_TAGGED_PROPERTY. */
		return len == 27 && wire_get_u32(rsp + 11) == 6 && wire_get_u32(rsp + 15) == 1 &&
			       wire_get_u32(rsp + 19) == mix_cap_property(i, tag)
			   ? NULL
			   : "GetCapability property differs";
	case MIX_PUBLIC:
		if (!*pub_len) {
			memcpy(pub, rsp, len);
			*pub_len = len;
			return NULL;
		}
		return len == *pub_len && !memcmp(pub, rsp, len) ? NULL
								 : "ReadPublic answer differs";
	}
	return "?";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *also[2];
	int n_also = 0;
	const char *spec = NULL, *device = NULL, *cmdname = "getrandom", *hex = NULL,
		   *rttfile = NULL, *logfile = NULL;
	uint32_t tag = 0;
	FILE *logf = NULL;
	uint8_t pub[TPM_MAX_MESSAGE];
	size_t pub_len = 0;
	long wrong = 0;
	int mssim = 0, newconn = 0, quiet = 0, o;
	long count = 1, pace_us = 0;
	long expect_rc = 0;
	static const struct option opts[] = {{"also", required_argument, 0, 'J'},
					     {"connect", required_argument, 0, 'c'},
					     {"device", required_argument, 0, 'D'},
					     {"mssim", no_argument, 0, 'm'},
					     {"new-conn", no_argument, 0, 'n'},
					     {"cmd", required_argument, 0, 'C'},
					     {"count", required_argument, 0, 'N'},
					     {"expect-rc", required_argument, 0, 'e'},
					     {"hex", required_argument, 0, 'x'},
					     {"rtt", required_argument, 0, 'r'},
					     {"quiet", no_argument, 0, 'q'},
					     {"serve", required_argument, 0, 's'},
					     {"serve-garbage", required_argument, 0, 'G'},
					     {"tag", required_argument, 0, 't'},
					     {"close-after", required_argument, 0, 'A'},
					     {"extra", required_argument, 0, 'X'},
					     {"log", required_argument, 0, 'l'},
					     {"timeout", required_argument, 0, 'T'},
					     {"pace", required_argument, 0, 'P'},
					     {0, 0, 0, 0}};
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'J':
			if (n_also == 2) {
				fprintf(stderr, "tpmclient: at most two --also\n");
				return 2;
			}
			also[n_also++] = optarg;
			break;
		case 'c':
			spec = optarg;
			break;
		case 'D':
			device = optarg;
			break;
		case 'm':
			mssim = 1;
			break;
		case 'n':
			newconn = 1;
			break;
		case 'C':
			cmdname = optarg;
			break;
		case 'N':
			count = strtol(optarg, NULL, 10);
			break;
		case 'P':
			pace_us = strtol(optarg, NULL, 10);
			break;
		case 'e':
			expect_rc = strtol(optarg, NULL, 16);
			break;
		case 'x':
			hex = optarg;
			break;
		case 'r':
			rttfile = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 's':
			return serve(optarg, 0);
		case 'G':
			return serve(optarg, 1);
		case 'X':
			extra = !strcmp(optarg, "same") ? 1 : !strcmp(optarg, "late") ? 2 : -1;
			if (extra < 0) {
				fprintf(stderr, "tpmclient: --extra takes same or late\n");
				return 2;
			}
			break;
		case 'A':
			close_after = strtol(optarg, NULL, 10);
			break;
		case 't':
			tag = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'l':
			logfile = optarg;
			break;
		case 'T':
			timeout_ms = (int)strtol(optarg, NULL, 10);
			if (timeout_ms <= 0) {
				fprintf(stderr, "tpmclient: --timeout takes a positive MS\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr,
				"usage: see the comment at the top of tests/lib/tpmclient.c\n");
			return 2;
		}
	}
	struct endpoint ep, ctrl;
	char err[256];
	if (device) {
		if (spec || mssim || n_also || hex) {
			fprintf(
			    stderr,
			    "tpmclient: --device goes without --connect, --mssim, --also, --hex\n");
			return 2;
		}
	} else if (!spec || net_endpoint_parse_tcti(spec, &ep, &ctrl, err, sizeof err)) {
		fprintf(stderr, "tpmclient: --connect: %s\n", spec ? err : "missing");
		return 2;
	}
	uint8_t cmd[TPM_MAX_MESSAGE + 64], rsp[TPM_MAX_MESSAGE + 64];
	size_t clen, rlen;
	int fd = -1, rc;
	if (hex) {
		clen = 0;
		for (const char *p = hex; p[0] && p[1] && clen < sizeof cmd; p += 2) {
			char b[3] = {p[0], p[1], 0};
			cmd[clen++] = (uint8_t)strtoul(b, NULL, 16);
		}
		if ((rc = net_endpoint_connect(&ep, &fd))) {
			fprintf(stderr, "tpmclient: connect: %s\n", strerror(-rc));
			return 1;
		}
		if ((rc = net_write_full(fd, cmd, clen, 5000))) {
			printf("write-failed %s\n", strerror(-rc));
			return 0;
		}
		shutdown(fd, SHUT_WR);
		ssize_t n = net_read_some(fd, rsp, sizeof rsp, 5000);
		if (n <= 0) {
			printf("closed\n");
		} else {
			for (ssize_t i = 0; i < n; i++)
				printf("%02x", rsp[i]);
			printf("\n");
		}
		close(fd);
		return 0;
	}
	uint64_t *rtt = calloc((size_t)count, sizeof *rtt);
	long ok = 0;
	int mix = !strcmp(cmdname, "mix");
	if (logfile && !(logf = fopen(logfile, "w"))) {
		fprintf(stderr, "tpmclient: %s: %s\n", logfile, strerror(errno));
		return 2;
	}
	struct endpoint also_ep[2];
	int also_fd[2] = {-1, -1};
	uint64_t *also_rtt[2] = {NULL, NULL};
	long also_ok = 0;
	for (int e = 0; e < n_also; e++) {
		struct endpoint actrl;
		if (net_endpoint_parse_tcti(also[e], &also_ep[e], &actrl, err, sizeof err)) {
			fprintf(stderr, "tpmclient: --also: %s\n", err);
			return 2;
		}
		also_rtt[e] = calloc((size_t)count, sizeof(uint64_t));
	}
	for (long i = 0; i < count; i++) {
		if (pace_us > 0 && i)
			usleep((useconds_t)pace_us);
		clen = build(cmdname, cmd, sizeof cmd, (uint32_t)i, tag);
		if (!clen) {
			fprintf(stderr, "tpmclient: unknown command %s\n", cmdname);
			return 2;
		}
		/* The other targets get the same command right before (odd i) or
		 * after (even i) this one, so that drift hits all alike. */
		for (int pass = 0; pass < 2; pass++) {
			if ((pass == 0) != (i & 1))
				continue;
			for (int e = 0; e < n_also; e++) {
				uint8_t arsp[TPM_MAX_MESSAGE + 64];
				size_t arlen;
				if (also_fd[e] < 0 &&
				    net_endpoint_connect(&also_ep[e], &also_fd[e]))
					continue;
				uint64_t a0 = db_mono_ns();
				int arc = exchange(also_fd[e], mssim, cmd, clen, arsp, sizeof arsp,
						   &arlen);
				also_rtt[e][i] = db_mono_ns() - a0;
				if (!arc && arlen >= 10)
					also_ok++;
				if (arc || newconn) {
					close(also_fd[e]);
					also_fd[e] = -1;
				}
			}
		}
		if (fd < 0 && device) {
			if ((fd = open(device, O_RDWR | O_CLOEXEC)) < 0) {
				fprintf(stderr, "tpmclient: %s: %s\n", device, strerror(errno));
				break;
			}
		} else if (fd < 0 && (rc = net_endpoint_connect(&ep, &fd))) {
			fprintf(stderr, "tpmclient: connect: %s\n", strerror(-rc));
			break;
		}
		uint64_t t0 = db_mono_ns();
		rc = device ? exchange_device(fd, cmd, clen, rsp, sizeof rsp, &rlen)
			    : exchange(fd, mssim, cmd, clen, rsp, sizeof rsp, &rlen);
		rtt[i] = db_mono_ns() - t0;
		if (rc == -ETIMEDOUT) {
			/* Lost, not late: whatever comes next would answer this
			 * command, not the next one. */
			fprintf(stderr,
				"tpmclient: command %ld: no response within %d ms; stopping\n", i,
				timeout_ms);
			break;
		}
		if (rc) {
			fprintf(stderr, "tpmclient: command %ld: %s\n", i, strerror(-rc));
			close(fd);
			fd = -1;
			continue;
		}
		if (logf) {
			for (size_t k = 0; k < clen; k++)
				fprintf(logf, "%02X", cmd[k]);
			fputc(' ', logf);
			for (size_t k = 0; k < rlen; k++)
				fprintf(logf, "%02X", rsp[k]);
			fputc('\n', logf);
		}
		uint32_t got = rlen >= 10 ? wire_get_u32(rsp + 6) : 0xffffffff;
		const char *why =
		    mix ? mix_check((uint32_t)i, tag, rsp, rlen, pub, &pub_len) : NULL;
		if (why) {
			wrong++;
			if (!quiet)
				fprintf(stderr, "tpmclient: command %ld: %s\n", i, why);
		} else if (mix || got == (uint32_t)expect_rc)
			ok++;
		else if (!quiet)
			fprintf(stderr, "tpmclient: command %ld: rc 0x%x, expected 0x%lx\n", i, got,
				expect_rc);
		if (newconn) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	for (int e = 0; e < n_also; e++) {
		if (also_fd[e] >= 0)
			close(also_fd[e]);
		if (rttfile) {
			char name[4200];
			snprintf(name, sizeof name, "%s.%d", rttfile, e + 1);
			FILE *f = fopen(name, "w");
			for (long i = 0; f && i < count; i++)
				fprintf(f, "%llu\n", (unsigned long long)also_rtt[e][i]);
			if (f)
				fclose(f);
		}
		free(also_rtt[e]);
	}
	if (n_also && also_ok != count * n_also)
		fprintf(stderr, "tpmclient: %ld of %ld exchanges on the --also targets failed\n",
			count * n_also - also_ok, count * n_also);
	if (rttfile) {
		FILE *f = fopen(rttfile, "w");
		for (long i = 0; f && i < count; i++)
			fprintf(f, "%llu\n", (unsigned long long)rtt[i]);
		if (f)
			fclose(f);
	}
	if (logf)
		fclose(logf);
	qsort(rtt, (size_t)count, sizeof *rtt, cmp_u64);
	printf("sent %ld ok %ld median_us %.1f p99_us %.1f max_us %.1f wrong %ld\n", count, ok,
	       count ? (double)rtt[count / 2] / 1000.0 : 0.0,
	       count ? (double)rtt[count * 99 / 100] / 1000.0 : 0.0,
	       count ? (double)rtt[count - 1] / 1000.0 : 0.0, wrong);
	free(rtt);
	return ok == count ? 0 : 1;
}
