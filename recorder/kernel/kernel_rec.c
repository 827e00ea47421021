/* record --kernel: loading, attaching and reading the eBPF recorder
 * (kernel_rec.h). */
#include "recorder/kernel/kernel_rec.h"

#include "db/db.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef TPMTRACE_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "tpmk_core.skel.h"
#include "tpmk_plain.skel.h"
#endif

/* What each probed function tells (tpm_kernel.bpf.c's on_* functions). */
enum probe_kind {
	PK_TRANSMIT, /* tpm_transmit: entry and return (required) */
	PK_CALLER,   /* entry pushes the cookie's origin, return pops it */
	PK_WRITE,    /* tpm_common_write: entry */
	PK_QUEUE,    /* queue_work_on: entry; without BTF only */
	PK_ASYNC,    /* tpm_dev_async_work: entry */
	PK_PREPARE,  /* tpm2_prepare_space: entry (a user command, its node) */
	PK_DELSPACE, /* tpm2_del_space: entry (a /dev/tpmrm client's close) */
	PK_GETOPS,   /* tpm_try_get_ops: entry */
	PK_PUTOPS,   /* tpm_put_ops: entry */
};

#define STRONG		       KCOOKIE_STRONG
#define SPAN(id)	       KSPAN_COOKIE(id)
#define CALLER_DEF(fn, cookie) {#fn, PK_CALLER, cookie},
/* Read by the eBPF side only: a build without libbpf (docs/quickstart.md's
 * packages) has the table unread. */
__attribute__((unused)) static const struct probe_def {
	const char *sym;
	enum probe_kind kind;
	uint32_t cookie;
} probes[] = {{"tpm_transmit", PK_TRANSMIT, 0},
	      {"tpm_try_get_ops", PK_GETOPS, 0},
	      {"tpm_put_ops", PK_PUTOPS, 0},
	      {"tpm_common_write", PK_WRITE, 0},
	      {"tpm_dev_async_work", PK_ASYNC, 0},
	      {"queue_work_on", PK_QUEUE, 0},
	      {"tpm2_prepare_space", PK_PREPARE, 0},
	      {"tpm2_del_space", PK_DELSPACE, 0},
	      KCALLERS(CALLER_DEF)};
#define N_PROBES (sizeof probes / sizeof probes[0])

const char *kernel_origin_name(unsigned origin)
{
	static const char *const n[KORG__COUNT] = {[KORG_KERNEL] = "kernel",
						   [KORG_IMA] = "ima",
						   [KORG_HWRNG] = "hwrng",
						   [KORG_TRUSTED] = "trusted-keys",
						   [KORG_SESSION] = "kernel-session",
						   [KORG_CHIPINIT] = "chip-init",
						   [KORG_USER] = "userspace",
						   [KORG_RMSWAP] = "rm-swap"};
	return origin < KORG__COUNT ? n[origin] : "kernel";
}

const char *kernel_span_name(unsigned span)
{
	static const char *const n[KSPAN__COUNT] = {[KSPAN_START_AUTH] = "tpm2_start_auth_session",
						    [KSPAN_FILL_HMAC] = "tpm_buf_fill_hmac_session",
						    [KSPAN_CHECK_HMAC] =
							"tpm_buf_check_hmac_response",
						    [KSPAN_SESSIONS_INIT] = "tpm2_sessions_init"};
	return span && span < KSPAN__COUNT ? n[span] : "span";
}

/* ---- the records into a trace ---- */

void kernel_trace_init(struct kernel_trace *t, struct recorder *rec)
{
	memset(t, 0, sizeof *t);
	t->rec = rec;
	t->wait_event_ns = 1000000;
}

static const char *node_name(uint32_t node, int32_t chip, char *buf, size_t len)
{
	const char *dev = node == KNODE_TPMRM ? "/dev/tpmrm" : "/dev/tpm";
	if (chip >= 0)
		snprintf(buf, len, "%s%d", dev, (int)chip);
	else
		snprintf(buf, len, "%s*", dev);
	return buf;
}

/* The client of a record: user space by process and node, the resource
 * manager's swaps by process, the kernel by origin (docs/policies.md,
 * "Origins": comm "kernel" and the origin as peer). */
static uint32_t client_of(struct kernel_trace *t, const struct krec_hdr *h)
{
	int user = h->origin == KORG_USER || h->origin == KORG_RMSWAP;
	uint32_t ka = h->origin | (user ? h->node << 8 : 0) | (uint32_t)(uint8_t)h->chip << 16;
	uint32_t kb = user ? h->tgid : 0;
	unsigned n = t->n_clients < KERNEL_CLIENTS ? t->n_clients : KERNEL_CLIENTS;
	for (unsigned i = 0; i < n; i++)
		if (t->clients[i].key_a == ka && t->clients[i].key_b == kb)
			return t->clients[i].id;
	char peer[64], node[32], comm[17];
	uint32_t id;
	if (user) {
		memcpy(comm, h->comm, 16);
		comm[16] = 0;
		if (h->node == KNODE_NONE)
			snprintf(peer, sizeof peer, "%s", kernel_origin_name(h->origin));
		else
			snprintf(peer, sizeof peer, "%s %s", kernel_origin_name(h->origin),
				 node_name(h->node, h->chip, node, sizeof node));
		id = recorder_client_proc(t->rec, (pid_t)h->tgid, comm, peer, h->t_start);
	} else {
		if (h->chip > 0)
			snprintf(peer, sizeof peer, "%s tpm%d", kernel_origin_name(h->origin),
				 (int)h->chip);
		else
			snprintf(peer, sizeof peer, "%s", kernel_origin_name(h->origin));
		id = recorder_client_proc(t->rec, 0, "kernel", peer, h->t_start);
	}
	unsigned slot = t->n_clients++ % KERNEL_CLIENTS;
	t->clients[slot].key_a = ka;
	t->clients[slot].key_b = kb;
	t->clients[slot].id = id;
	return id;
}

void kernel_trace_record(void *ctx, const struct krec_hdr *h, const uint8_t *data)
{
	struct kernel_trace *t = ctx;
	char detail[256], comm[17];
	unsigned o = h->origin < KORG__COUNT ? h->origin : KORG_KERNEL;
	memcpy(comm, h->comm, 16);
	comm[16] = 0;
	if (h->kind == KREC_SPAN) {
		unsigned s = h->span < KSPAN__COUNT ? h->span : 0;
		uint64_t ns = h->t_end - h->t_start;
		t->span[s].n++;
		t->span[s].ns += ns;
		t->span[s].tx_ns += h->tx_ns;
		t->span[s].n_tx += h->n_tx;
		snprintf(detail, sizeof detail,
			 "%s %.3f ms: %u transmissions %.3f ms, host %.3f ms (%s, pid %u %s)",
			 kernel_span_name(s), ns / 1e6, h->n_tx, h->tx_ns / 1e6,
			 (ns > h->tx_ns ? ns - h->tx_ns : 0) / 1e6, kernel_origin_name(o), h->tgid,
			 comm);
		if (t->rec->w)
			db_writer_event(t->rec->w, h->t_start, "kernel-span", detail, 0);
		return;
	}
	if (h->kind != KREC_CMD)
		return;
	uint32_t client = client_of(t, h);
	if (h->wait_ns && t->wait_event_ns && h->wait_ns >= t->wait_event_ns && t->rec->w) {
		snprintf(detail, sizeof detail, "%s waited %.3f ms for the chip (pid %u %s)",
			 kernel_origin_name(o), h->wait_ns / 1e6, h->tgid, comm);
		db_writer_event(t->rec->w, h->t_start - h->wait_ns, "chip-wait", detail, client);
	}
	struct rec_timing tm = {.t_submit = h->t_start, .t_done = h->t_end};
	if (h->ret < 0 || h->rsp_len == 0)
		tm.rc = h->ret < 0 ? (int)h->ret : -EIO;
	uint32_t cl = h->cmd_len > KREC_BUF ? KREC_BUF : h->cmd_len;
	uint32_t rl = h->rsp_len > KREC_BUF ? KREC_BUF : h->rsp_len;
	recorder_log(t->rec, client, 0, data, cl, data + cl, rl, &tm);
	t->commands++;
	t->org[o].n++;
	t->org[o].lat_ns += h->t_end - h->t_start;
	t->org[o].wait_ns += h->wait_ns;
	if (h->wait_ns > t->org[o].max_wait_ns)
		t->org[o].max_wait_ns = h->wait_ns;
}

void kernel_trace_summary(const struct kernel_trace *t, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (unsigned o = 0; o < KORG__COUNT && off < len; o++) {
		const struct kernel_origin_stats *s = &t->org[o];
		if (!s->n)
			continue;
		off += (size_t)snprintf(
		    buf + off, len - off,
		    "%-14s %7llu commands, %10.3f ms on the chip, %9.3f ms waiting "
		    "(max %.3f)\n",
		    kernel_origin_name(o), (unsigned long long)s->n, s->lat_ns / 1e6,
		    s->wait_ns / 1e6, s->max_wait_ns / 1e6);
	}
	for (unsigned i = 1; i < KSPAN__COUNT && off < len; i++) {
		const struct kernel_span_stats *s = &t->span[i];
		if (!s->n)
			continue;
		off += (size_t)snprintf(
		    buf + off, len - off,
		    "%-27s %6llu calls, %10.3f ms: %llu transmissions %.3f ms, host %.3f ms\n",
		    kernel_span_name(i), (unsigned long long)s->n, s->ns / 1e6,
		    (unsigned long long)s->n_tx, s->tx_ns / 1e6,
		    (s->ns > s->tx_ns ? s->ns - s->tx_ns : 0) / 1e6);
	}
}

/* ---- the eBPF side ---- */

#ifndef TPMTRACE_HAVE_BPF

struct kernel_rec {
	int unused;
};

int kernel_rec_open(struct kernel_rec **out, const struct kernel_rec_cfg *c, char *err,
		    size_t errlen)
{
	*out = NULL;
	snprintf(err, errlen,
		 "this tpmtrace was built without libbpf (libbpf-dev, clang and bpftool at "
		 "build time)");
	return -ENOTSUP;
}
const char *kernel_rec_describe(const struct kernel_rec *k)
{
	return "";
}
uint64_t kernel_rec_attach_ns(const struct kernel_rec *k)
{
	return 0;
}
int kernel_rec_poll(struct kernel_rec *k, int timeout_ms, kernel_rec_fn fn, void *ctx)
{
	return -ENOTSUP;
}
void kernel_rec_counts(const struct kernel_rec *k, struct kernel_rec_counts *c)
{
	memset(c, 0, sizeof *c);
}
void kernel_rec_detach(struct kernel_rec *k)
{
}
void kernel_rec_close(struct kernel_rec *k)
{
}

#else

/* The loading and attaching are done by a short-lived child (load_in_child):
 * libbpf parses the kernel's BTF and the object there (5 MB and more of heap
 * at its peak), and the recorder gets only the file descriptors it reads
 * and detaches by. The child's side fills core/plain/obj/links; the
 * recorder's has the descriptors. */
struct kernel_rec {
	struct tpmk_core *core;
	struct tpmk_plain *plain;
	struct bpf_object *obj;
	struct bpf_link *links[2 * N_PROBES];
	unsigned n_links;
	unsigned char fentry[N_PROBES]; /* the probe's fentry/fexit programs are loaded */
	int fentry_err;			/* the first trampoline the kernel refused: -errno */
	int link_fd[2 * N_PROBES];	/* the recorder's: closing one detaches its probe */
	unsigned n_link_fd;
	int rb_fd; /* without core/plain (loaded by the child), ours to close */
	struct ring_buffer *rb;
	int counters_fd;
	uint64_t attach_ns;
	kernel_rec_fn fn;
	void *fn_ctx;
	char desc[1024];
};

static char libbpf_msg[512];
static int libbpf_verbose;
static int on_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (libbpf_verbose) {
		/* TPMTRACE_KERNEL_VERBOSE: libbpf's messages (the verifier's log) */
		va_list aq;
		va_copy(aq, ap);
		vfprintf(stderr, fmt, aq);
		va_end(aq);
	}
	if (level == LIBBPF_DEBUG)
		return 0;
	char line[512];
	vsnprintf(line, sizeof line, fmt, ap);
	line[strcspn(line, "\n")] = 0;
	if (line[0])
		snprintf(libbpf_msg, sizeof libbpf_msg, "%s", line);
	return 0;
}

/* Effective capabilities, from /proc/self/status. */
static uint64_t cap_eff(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long v = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* The callers' code ranges for the eBPF side's stack walk (kernel_abi.h):
 * each caller probe's function, user space's write path (origin
 * userspace), the resource manager's (rm-swap: around a command, and a
 * client's close, which flushes the sessions it left), and the hwrng core's
 * two readers, since tpm_hwrng_read ends in a tail call and is not on the
 * stack. From a function's address in /proc/kallsyms to the next symbol's;
 * what kallsyms does not name, or shows as 0 (kptr_restrict), is left out. */
static const struct {
	const char *sym;
	uint32_t cookie;
} range_only[] = {
    {"tpm_common_write", KORG_USER},
    {"tpm_dev_async_work", KORG_USER},
    {"tpm2_prepare_space", KORG_RMSWAP | STRONG},
    {"tpm2_commit_space", KORG_RMSWAP | STRONG},
    {"tpm2_del_space", KORG_RMSWAP | STRONG},
    {"tpmrm_release", KORG_RMSWAP | STRONG},
    {"hwrng_fillfn", KORG_HWRNG},
    {"rng_dev_read", KORG_HWRNG},
};
#define N_RANGE_ONLY  (sizeof range_only / sizeof range_only[0])

/* One reading of /proc/kallsyms, two passes: which probe symbols it names
 * (found[0]: transmit) and the callers' ranges (out). Returns 0, or -errno
 * when it cannot be read (then every symbol is tried, and there are no
 * ranges). */
static int kallsyms_read(const char *transmit, int found[N_PROBES], struct kranges *out)
{
	enum { N = N_PROBES + N_RANGE_ONLY };
	const char *sym[N];
	uint32_t cookie[N];
	uint64_t start[N] = {0}, end[N];
	size_t n = 0;
	char line[512];
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < N_PROBES; i++)
		if (probes[i].kind == PK_CALLER)
			sym[n] = probes[i].sym, cookie[n++] = probes[i].cookie;
	for (size_t i = 0; i < N_RANGE_ONLY; i++)
		sym[n] = range_only[i].sym, cookie[n++] = range_only[i].cookie;
	for (int pass = 0; pass < 2; pass++) {
		FILE *f = fopen("/proc/kallsyms", "re");
		if (!f)
			return pass ? 0 : -errno;
		while (fgets(line, sizeof line, f)) {
			unsigned long long a;
			char type, name[256];
			if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
				continue;
			for (size_t i = 0; pass == 0 && i < N_PROBES; i++)
				if (!strcmp(name, i == 0 ? transmit : probes[i].sym))
					found[i] = 1;
			for (size_t i = 0; a && i < n; i++) {
				if (pass == 0 && !start[i] && !strcmp(name, sym[i]))
					start[i] = a, end[i] = UINT64_MAX;
				else if (pass == 1 && start[i] && a > start[i] && a < end[i])
					end[i] = a;
			}
		}
		fclose(f);
	}
	for (size_t i = 0; i < n && out->n < KRANGE_MAX; i++)
		if (start[i] && end[i] != UINT64_MAX && end[i] - start[i] < (1u << 20))
			out->r[out->n++] =
			    (struct krange){.start = start[i], .end = end[i], .cookie = cookie[i]};
	return 0;
}

static int ring_cb(void *ctx, void *data, size_t size)
{
	struct kernel_rec *k = ctx;
	const struct krec_hdr *h = data;
	if (size < sizeof *h)
		return 0;
	if ((uint64_t)sizeof *h + h->cmd_len + h->rsp_len > size)
		return 0;
	k->fn(k->fn_ctx, h, (const uint8_t *)data + sizeof *h);
	return 0;
}

static int keep_link(struct kernel_rec *k, struct bpf_link *l)
{
	if (!l)
		return -errno ? -errno : -EINVAL;
	k->links[k->n_links++] = l;
	return 0;
}

static int attach_kprobe(struct kernel_rec *k, const char *prog, const char *sym, uint64_t cookie,
			 int ret)
{
	struct bpf_program *p = bpf_object__find_program_by_name(k->obj, prog);
	if (!p)
		return -ENOENT;
	LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = cookie, .retprobe = ret);
	return keep_link(k, bpf_program__attach_kprobe_opts(p, sym, &o));
}

/* The kprobe programs of each kind: the entry, and the return where the
 * kind has one; a PK_CALLER entry gets its cookie (the origin it pushes). */
static const struct {
	const char *entry, *ret;
} kprobe_progs[] = {
    [PK_TRANSMIT] = {"transmit_entry", "transmit_return"},
    [PK_CALLER] = {"caller_entry", "caller_return"},
    [PK_PREPARE] = {"prepare_space_entry", NULL},
    [PK_DELSPACE] = {"del_space_entry", NULL},
    [PK_WRITE] = {"write_entry", NULL},
    [PK_QUEUE] = {"queue_work_entry", NULL},
    [PK_ASYNC] = {"async_entry", NULL},
    [PK_GETOPS] = {"getops_entry", NULL},
    [PK_PUTOPS] = {"putops_entry", NULL},
};

/* A probe's fentry (fe_SYM) or fexit (fx_SYM) program in the object, NULL
 * where it has none (the plain object; queue_work_on). */
static struct bpf_program *trace_prog(struct bpf_object *obj, const struct probe_def *d, int ret)
{
	char name[64];
	if (ret && !kprobe_progs[d->kind].ret)
		return NULL;
	snprintf(name, sizeof name, "%s_%s", ret ? "fx" : "fe", d->sym);
	return bpf_object__find_program_by_name(obj, name);
}

/* One probe on its function sym: the fentry/fexit programs where they are
 * loaded, else (or where the kernel refuses the trampoline) the kprobes.
 * The return first: an entry without its return would leave commands in
 * flight. Returns 1 (fentry), 0 (kprobes) or -errno. */
static int attach_probe(struct kernel_rec *k, size_t i, const char *sym)
{
	const struct probe_def *d = &probes[i];
	if (k->fentry[i]) {
		unsigned mark = k->n_links;
		struct bpf_program *fx = trace_prog(k->obj, d, 1);
		int rc = fx ? keep_link(k, bpf_program__attach_trace(fx)) : 0;
		if (!rc)
			rc = keep_link(k, bpf_program__attach_trace(trace_prog(k->obj, d, 0)));
		if (!rc)
			return 1;
		if (!k->fentry_err)
			k->fentry_err = rc;
		while (k->n_links > mark)
			bpf_link__destroy(k->links[--k->n_links]);
	}
	int rc = 0;
	if (kprobe_progs[d->kind].ret)
		rc = attach_kprobe(k, kprobe_progs[d->kind].ret, sym, 0, 1);
	if (!rc)
		rc = attach_kprobe(k, kprobe_progs[d->kind].entry, sym,
				   d->kind == PK_CALLER ? d->cookie : 0, 0);
	return rc;
}

/* Which fentry/fexit programs to load (want: the kernel has BTF and they
 * are not turned off): those of the probes whose function this kernel has
 * (kallsyms, when readable) and its BTF names (vmlinux's or a module's,
 * libbpf looks); the others are not loaded and their probes are kprobes.
 * Returns how many probes have them. */
static unsigned choose_fentry(struct kernel_rec *k, const int found[N_PROBES], int have_kallsyms,
			      const char *transmit, int want)
{
	unsigned n = 0;
	for (size_t i = 0; i < N_PROBES; i++) {
		struct bpf_program *fe = trace_prog(k->obj, &probes[i], 0);
		struct bpf_program *fx = trace_prog(k->obj, &probes[i], 1);
		const char *sym = i == 0 ? transmit : probes[i].sym;
		int on = want && fe && (found[i] || !have_kallsyms) &&
			 !bpf_program__set_attach_target(fe, 0, sym) &&
			 (!fx || !bpf_program__set_attach_target(fx, 0, sym));
		if (fe)
			bpf_program__set_autoload(fe, on);
		if (fx)
			bpf_program__set_autoload(fx, on);
		k->fentry[i] = (unsigned char)on;
		n += (unsigned)on;
	}
	return n;
}

/* Opens the object (CO-RE where the kernel has BTF, else plain) with its
 * ring buffer's size; 0 or -errno. */
static int open_object(struct kernel_rec *k, int btf, uint32_t ring)
{
	if (btf) {
		k->core = tpmk_core__open();
		if (k->core) {
			k->obj = k->core->obj;
			bpf_map__set_max_entries(k->core->maps.rb, ring);
		}
	} else {
		k->plain = tpmk_plain__open();
		if (k->plain) {
			k->obj = k->plain->obj;
			bpf_map__set_max_entries(k->plain->maps.rb, ring);
		}
	}
	return k->obj ? 0 : -errno ? -errno : -EINVAL;
}

/* The loaded program's settings: the config map's flags, and the callers'
 * ranges for a call under way before its probe. Returns 0 or -errno. */
static int configure(struct kernel_rec *k, int btf, int discard, const struct kranges *kr)
{
	uint32_t zero = 0, flags = discard ? KCONF_DISCARD : 0;
	struct bpf_map *cm = btf ? k->core->maps.config : k->plain->maps.config;
	struct bpf_map *rm = btf ? k->core->maps.callers : k->plain->maps.callers;
	k->counters_fd = bpf_map__fd(btf ? k->core->maps.counters : k->plain->maps.counters);
	if (bpf_map_update_elem(bpf_map__fd(cm), &zero, &flags, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(rm), &zero, kr, BPF_ANY))
		return -errno;
	return 0;
}

/* What the loading and the attaching go by: the kernel, and what
 * /proc/kallsyms names (kallsyms_read). */
struct probe_env {
	const char *sym;     /* the transmit function */
	const char *release; /* uname -r */
	int btf, have_kallsyms;
	int found[N_PROBES];
};

/* Opens and loads the object: with BTF its fentry/fexit programs where
 * chosen (TPMTRACE_KERNEL_FENTRY=0: none), and where the kernel refuses one
 * of them, again without them (refused says why). 0, or -errno with err set. */
static int load_object(struct kernel_rec *k, const struct probe_env *pe, uint32_t ring,
		       char *refused, size_t rlen, char *err, size_t errlen)
{
	const char *fe_env = getenv("TPMTRACE_KERNEL_FENTRY");
	int want = pe->btf && !(fe_env && !strcmp(fe_env, "0")), rc;
	for (int again = 0; again < 2; again++) {
		if ((rc = open_object(k, pe->btf, ring))) {
			snprintf(err, errlen, "opening the eBPF object failed: %s", libbpf_msg);
			return rc;
		}
		unsigned n_fe = pe->btf ? choose_fentry(k, pe->found, pe->have_kallsyms, pe->sym,
							want && !again)
					: 0;
		libbpf_msg[0] = 0;
		rc = pe->btf ? tpmk_core__load(k->core) : tpmk_plain__load(k->plain);
		if (!rc)
			return 0;
		if (!n_fe)
			break;
		/* The kernel refused a trampoline program: kprobes only. */
		snprintf(refused, rlen, "; fentry refused (%s): %s", strerror(-rc), libbpf_msg);
		tpmk_core__destroy(k->core);
		k->core = NULL;
		k->obj = NULL;
	}
	snprintf(err, errlen, "Linux %s refused the eBPF program (%s): %s%s%s", pe->release,
		 strerror(-rc), libbpf_msg,
		 rc == -EPERM ? " (BPF not permitted: lockdown, a seccomp "
				"filter or kernel.unprivileged_bpf_disabled)"
			      : "",
		 pe->btf ? "" : " (no BTF: the object without CO-RE)");
	return rc;
}

/* Attaches every probe the kernel has, the callers first, tpm_transmit last:
 * a command sent while the probes are being attached is recorded only once
 * every caller probe is in place, so that no recorded command misses its
 * origin because its caller's probe came later. Says how in k->desc. 0, or
 * -errno with err set (tpm_transmit could not be probed). */
static int attach_all(struct kernel_rec *k, const struct probe_env *pe, const char *refused,
		      char *err, size_t errlen)
{
	char missing[600] = "", kprobed[400] = "";
	size_t mo = 0, ko = 0;
	unsigned n_ok = 0, n_all = 0, n_trace = 0;
	int rc;
	/* TPMTRACE_KERNEL_CALLERS=0: no probe pushes an origin, so every origin
	 * comes from the kernel stack, as for a call under way at attach (the
	 * proof of that way: test_vm_kernel_record). */
	const char *callers = getenv("TPMTRACE_KERNEL_CALLERS");
	int no_callers = callers && !strcmp(callers, "0");
	for (size_t i = 1; i < N_PROBES; i++) {
		enum probe_kind kind = probes[i].kind;
		/* With BTF the write notes an O_NONBLOCK writer by its work item. */
		if (pe->btf && kind == PK_QUEUE)
			continue;
		if (no_callers && (kind == PK_CALLER || kind == PK_PREPARE || kind == PK_DELSPACE))
			continue;
		n_all++;
		rc = pe->have_kallsyms && !pe->found[i] ? -ENOENT
							: attach_probe(k, i, probes[i].sym);
		if (rc < 0) {
			if (mo < sizeof missing)
				mo += (size_t)snprintf(missing + mo, sizeof missing - mo, "%s%s",
						       mo ? " " : "", probes[i].sym);
			continue;
		}
		n_ok++;
		n_trace += (unsigned)rc;
		if (!rc && ko < sizeof kprobed)
			ko += (size_t)snprintf(kprobed + ko, sizeof kprobed - ko, " %s",
					       probes[i].sym);
	}
	k->attach_ns = db_mono_ns();
	if ((rc = attach_probe(k, 0, pe->sym)) < 0) {
		snprintf(err, errlen, "Linux %s: cannot attach a probe to %s: %s%s%s", pe->release,
			 pe->sym, strerror(-rc), libbpf_msg[0] ? ": " : "", libbpf_msg);
		return rc;
	}
	n_trace += (unsigned)rc;
	if (!rc && ko < sizeof kprobed)
		ko += (size_t)snprintf(kprobed + ko, sizeof kprobed - ko, " %s", pe->sym);
	/* Loaded, not attached: the kernel has no trampolines for these
	 * functions (ENOTSUPP: an arm64 kernel without ftrace direct calls, as 6.1).
	 * ENOTSUPP is the kernel's own errno, which libc has no name for. */
	enum { KERNEL_ENOTSUPP = 524 };
	char attach_refused[120] = "";
	if (k->fentry_err)
		snprintf(attach_refused, sizeof attach_refused, "; fentry refused at attach (%s)",
			 k->fentry_err == -KERNEL_ENOTSUPP ? "ENOTSUPP" : strerror(-k->fentry_err));
	/* "probes: fentry" (every probe a BPF trampoline), "kprobe" (none), or
	 * "fentry+kprobe" with the kprobes named. */
	snprintf(k->desc, sizeof k->desc,
		 "Linux %s: probes: %s on %s (%s), %u of %u other probes; not in this kernel: "
		 "%s%s%s%s%s",
		 pe->release,
		 !n_trace	       ? "kprobe"
		 : n_trace == n_ok + 1 ? "fentry"
				       : "fentry+kprobe",
		 pe->sym, pe->btf ? "CO-RE, chip numbers from BTF" : "no BTF: chip not known", n_ok,
		 n_all, missing[0] ? missing : "none", n_trace && ko ? "; kprobes on" : "",
		 n_trace && ko ? kprobed : "", refused, attach_refused);
	return 0;
}

static struct kernel_rec *kernel_rec_new(void)
{
	struct kernel_rec *k = calloc(1, sizeof *k);
	if (k)
		k->rb_fd = k->counters_fd = -1;
	return k;
}

/* Loads, configures and attaches, in this process. 0, or -errno with err
 * set. */
static int load_attach(struct kernel_rec *k, const struct probe_env *pe, int discard, uint32_t ring,
		       const struct kranges *kr, char *err, size_t errlen)
{
	char refused[200] = "";
	int rc = load_object(k, pe, ring, refused, sizeof refused, err, errlen);
	if (!rc && (rc = configure(k, pe->btf, discard, kr)))
		snprintf(err, errlen, "configuring the eBPF program: %s", strerror(-rc));
	if (!rc)
		rc = attach_all(k, pe, refused, err, errlen);
	return rc;
}

/* What the loader child answers, with its descriptors (SCM_RIGHTS): the
 * ring buffer's map, the counters' map, then one per probe attached. */
struct loaded {
	int rc; /* 0, or -errno with err */
	unsigned n_fd;
	uint64_t attach_ns;
	char desc[1024];
	char err[1024];
};
#define LOADED_MAX_FD (2 + 2 * N_PROBES)

/* The child's side: loads, configures and attaches as the recorder would,
 * sends what it got, and returns (the caller _exits: its copies of the
 * descriptors close, the recorder's keep the programs attached). */
static void loader_child(int sock, const struct probe_env *pe, int discard, uint32_t ring,
			 const struct kranges *kr)
{
	static struct loaded m;
	struct kernel_rec *k = kernel_rec_new();
	int fds[LOADED_MAX_FD];
	int rc = k ? load_attach(k, pe, discard, ring, kr, m.err, sizeof m.err) : -ENOMEM;
	if (!k)
		snprintf(m.err, sizeof m.err, "out of memory");
	if (!rc) {
		fds[m.n_fd++] = bpf_map__fd(pe->btf ? k->core->maps.rb : k->plain->maps.rb);
		fds[m.n_fd++] = k->counters_fd;
		for (unsigned i = 0; i < k->n_links; i++)
			fds[m.n_fd++] = bpf_link__fd(k->links[i]);
		m.attach_ns = k->attach_ns;
		memcpy(m.desc, k->desc, sizeof m.desc);
	}
	m.rc = rc;
	union {
		char b[CMSG_SPACE(sizeof fds)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = &m, .iov_len = sizeof m};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (m.n_fd) {
		mh.msg_control = u.b;
		mh.msg_controllen = CMSG_SPACE(m.n_fd * sizeof(int));
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(m.n_fd * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, m.n_fd * sizeof(int));
	}
	while (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* Loads and attaches in a child process (kernel_rec's comment) and takes
 * its descriptors into k; in this process where the kernel has no AF_UNIX
 * sockets to pass them (a kernel built without CONFIG_NET or CONFIG_UNIX,
 * as the VM tier's own). 0, or -errno with err set. */
static int load_in_child(struct kernel_rec *k, const struct probe_env *pe, int discard,
			 uint32_t ring, const struct kranges *kr, char *err, size_t errlen)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		int rc = load_attach(k, pe, discard, ring, kr, err, errlen);
		if (!rc)
			k->rb_fd = bpf_map__fd(pe->btf ? k->core->maps.rb : k->plain->maps.rb);
		return rc;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		snprintf(err, errlen, "starting the eBPF loader: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		close(sv[0]);
		loader_child(sv[1], pe, discard, ring, kr);
		_exit(0);
	}
	close(sv[1]);
	static struct loaded m;
	union {
		char b[CMSG_SPACE(LOADED_MAX_FD * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = &m, .iov_len = sizeof m};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	ssize_t n;
	while ((n = recvmsg(sv[0], &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	close(sv[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int got = 0, fds[LOADED_MAX_FD];
	for (struct cmsghdr *cm = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			got = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			memcpy(fds, CMSG_DATA(cm), (size_t)got * sizeof(int));
		}
	if (n != (ssize_t)sizeof m || (mh.msg_flags & MSG_CTRUNC) || got != (int)m.n_fd ||
	    (!m.rc && got < 2)) {
		for (int i = 0; i < got; i++)
			close(fds[i]);
		if (n == (ssize_t)sizeof m && m.rc) {
			snprintf(err, errlen, "%s", m.err);
			return m.rc;
		}
		snprintf(err, errlen, "the eBPF loader (pid %d) ended without an answer (%s %d)",
			 (int)pid, WIFSIGNALED(st) ? "signal" : "exit status",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return -EIO;
	}
	if (m.rc) {
		snprintf(err, errlen, "%s", m.err);
		return m.rc;
	}
	k->rb_fd = fds[0];
	k->counters_fd = fds[1];
	for (int i = 2; i < got; i++)
		k->link_fd[k->n_link_fd++] = fds[i];
	k->attach_ns = m.attach_ns;
	memcpy(k->desc, m.desc, sizeof k->desc);
	return 0;
}

static int is_file(const char *p)
{
	return access(p, F_OK) == 0;
}

int kernel_rec_open(struct kernel_rec **out, const struct kernel_rec_cfg *c, char *err,
		    size_t errlen)
{
	struct utsname u;
	const char *sym = c->transmit_sym && *c->transmit_sym ? c->transmit_sym : "tpm_transmit";
	struct probe_env pe = {.sym = sym, .release = u.release};
	int rc;
	*out = NULL;
	if (uname(&u))
		snprintf(u.release, sizeof u.release, "?");

	/* Privileges: root (CAP_SYS_ADMIN), or CAP_BPF + CAP_PERFMON. */
	uint64_t caps = cap_eff();
	int admin = !!(caps & (1ull << 21)), bpfcap = !!(caps & (1ull << 39)),
	    perfmon = !!(caps & (1ull << 38));
	if (!admin && !(bpfcap && perfmon)) {
		snprintf(err, errlen,
			 "needs root, or the capabilities CAP_BPF and CAP_PERFMON, to load eBPF "
			 "programs on the TPM driver (this process, uid %u, has neither: effective "
			 "capabilities 0x%llx)",
			 (unsigned)geteuid(), (unsigned long long)caps);
		return -EPERM;
	}
	/* The bpf() system call: a bad request tells whether it exists. */
	errno = 0;
	if (syscall(__NR_bpf, -1, NULL, 0) < 0 && errno == ENOSYS) {
		snprintf(err, errlen,
			 "Linux %s has no bpf() system call (a kernel built without "
			 "CONFIG_BPF_SYSCALL)",
			 u.release);
		return -ENOSYS;
	}
	FILE *lf = fopen("/sys/kernel/security/lockdown", "re");
	if (lf) {
		char l[128] = "";
		if (fgets(l, sizeof l, lf) && strstr(l, "[confidentiality]")) {
			fclose(lf);
			snprintf(err, errlen,
				 "Linux %s is in lockdown mode 'confidentiality' "
				 "(/sys/kernel/security/lockdown), which forbids eBPF programs "
				 "to read kernel memory (the TPM driver's buffer)",
				 u.release);
			return -EPERM;
		}
		fclose(lf);
	}
	/* The probed function. */
	struct kranges kr;
	pe.have_kallsyms = kallsyms_read(sym, pe.found, &kr) == 0;
	if (pe.have_kallsyms && !pe.found[0]) {
		snprintf(err, errlen,
			 "Linux %s has no %s (not in /proc/kallsyms: no TPM driver built in or "
			 "loaded, or a kernel whose transmit path has another name)",
			 u.release, sym);
		return -ENOENT;
	}
	pe.btf = is_file("/sys/kernel/btf/vmlinux");

	struct kernel_rec *k = kernel_rec_new();
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	const char *verbose = getenv("TPMTRACE_KERNEL_VERBOSE");
	libbpf_verbose = verbose && *verbose && strcmp(verbose, "0");
	libbpf_set_print(on_libbpf_print);
	libbpf_msg[0] = 0;
	/* 1 MiB: ~5,000 PCR_Extend records, seconds of a TPM's traffic while
	 * the reader is away. Its data pages are mapped twice into this
	 * process (so that a record may wrap), so the ring counts twice in the
	 * RSS: 8 MiB made a recorder of ~8 MB a recorder of ~24 MB. */
	uint32_t ring = c->ring_bytes ? c->ring_bytes : 1u << 20;
	if ((rc = load_in_child(k, &pe, c->discard, ring, &kr, err, errlen)))
		goto fail;
	k->rb = ring_buffer__new(k->rb_fd, ring_cb, k, NULL);
	if (!k->rb) {
		rc = -errno ? -errno : -ENOMEM;
		snprintf(err, errlen, "the eBPF ring buffer: %s", strerror(-rc));
		goto fail;
	}
	*out = k;
	return 0;
fail:
	kernel_rec_close(k);
	return rc ? rc : -EIO;
}

const char *kernel_rec_describe(const struct kernel_rec *k)
{
	return k->desc;
}

uint64_t kernel_rec_attach_ns(const struct kernel_rec *k)
{
	return k->attach_ns;
}

int kernel_rec_poll(struct kernel_rec *k, int timeout_ms, kernel_rec_fn fn, void *ctx)
{
	k->fn = fn;
	k->fn_ctx = ctx;
	/* The BPF side wakes this reader only once the ring is a quarter
	 * full: what came without a wake-up is read when the wait ends. */
	int n = ring_buffer__poll(k->rb, timeout_ms);
	if (n < 0)
		return n;
	int m = ring_buffer__consume(k->rb);
	return m < 0 ? m : n + m;
}

void kernel_rec_counts(const struct kernel_rec *k, struct kernel_rec_counts *c)
{
	memset(c, 0, sizeof *c);
	uint64_t v[KCNT__COUNT] = {0};
	for (uint32_t i = 0; i < KCNT__COUNT && k->counters_fd >= 0; i++)
		if (bpf_map_lookup_elem(k->counters_fd, &i, &v[i]))
			v[i] = 0;
	c->dropped = v[KCNT_DROPPED];
	c->sent = v[KCNT_SENT];
	c->lost_returns = v[KCNT_LOST];
}

void kernel_rec_detach(struct kernel_rec *k)
{
	if (!k)
		return;
	for (unsigned i = 0; i < k->n_links; i++)
		bpf_link__destroy(k->links[i]);
	k->n_links = 0;
	/* The last descriptor of a link: its release detaches the probe
	 * before close returns (a kprobe's removal waits for its handlers). */
	for (unsigned i = 0; i < k->n_link_fd; i++)
		close(k->link_fd[i]);
	k->n_link_fd = 0;
}

void kernel_rec_close(struct kernel_rec *k)
{
	if (!k)
		return;
	kernel_rec_detach(k);
	ring_buffer__free(k->rb);
	if (k->core)
		tpmk_core__destroy(k->core);
	else if (k->plain)
		tpmk_plain__destroy(k->plain);
	else if (k->rb_fd >= 0) { /* the child's descriptors */
		close(k->rb_fd);
		close(k->counters_fd);
	}
	free(k);
}

#endif
