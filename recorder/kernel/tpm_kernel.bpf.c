/* The eBPF side of `tpmtrace record --kernel`: probes on the TPM driver's
 * transmit path, BPF trampolines (fentry/fexit) where the kernel has BTF,
 * else kprobes (the same logic: the on_* functions, both kinds of program
 * call them). tpm_transmit(chip, buf, bufsiz) is where every command of
 * every caller passes (the kernel's own through tpm_transmit_cmd, user
 * space's through tpm-dev-common.c, the resource manager's swaps): the
 * command bytes are copied on entry, the response bytes (written over the
 * same buffer) on return, and both go to user space through a ring buffer.
 * The origin comes from probes on the callers, which push an origin on a
 * per-task stack on entry and pop it on return.
 *
 * Never in the way: nothing here waits; a full ring buffer drops the record
 * and counts it (dropped). Built twice from this file: with TPMTRACE_CORE
 * (CO-RE: reads tpm_chip.dev_num and the open file of a write, needs the
 * kernel's BTF; has the fentry/fexit programs) and without (no kernel
 * structure is read, so it loads on a kernel without BTF; kprobes only). */
#include <linux/bpf.h>
#include <linux/types.h>
#include <asm/ptrace.h>
#include <asm/fcntl.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

typedef __u8 uint8_t;
typedef __u32 uint32_t;
typedef __s32 int32_t;
typedef __u64 uint64_t;
typedef __s64 int64_t;
#include "kernel_abi.h"

char LICENSE[] SEC("license") = "GPL";

#ifdef TPMTRACE_CORE
struct tpm_chip {
	int dev_num;
} __attribute__((preserve_access_index));
struct file {
	unsigned int f_flags;
	void *private_data;
} __attribute__((preserve_access_index));
struct work_struct {
	long data;
} __attribute__((preserve_access_index));
/* drivers/char/tpm/tpm-dev.h: a /dev/tpm* or /dev/tpmrm* open file */
struct file_priv {
	struct work_struct async_work;
	__u8 command_enqueued;
} __attribute__((preserve_access_index));
#endif

/* No global variables: libbpf creates .data/.bss/.rodata maps only where
 * its probe for them (a socket filter program) passes, and a kernel without
 * networking has no socket filters. So the configuration and the counters
 * are array maps. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} config SEC(".maps"); /* KCONF_*: set by the loader before it attaches */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KCNT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);
	if (c)
		__sync_fetch_and_add(c, 1);
}

static __always_inline int discarding(void)
{
	__u32 zero = 0;
	__u32 *c = bpf_map_lookup_elem(&config, &zero);
	return c && (*c & KCONF_DISCARD);
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* the loader may change it before load */
} rb SEC(".maps");

/* A chip's transmission: the command copied on entry, the buffer's address
 * for the response. By chip (its address): one at a time per chip. */
struct inflight {
	struct krec r;
	__u64 buf;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, struct inflight);
} txbuf SEC(".maps");

/* The transmissions in flight, by thread: the chip's key in txbuf. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} inflight SEC(".maps");

/* The source a new inflight entry is copied from (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct inflight);
} scratch SEC(".maps");

/* The callers' code ranges (struct kranges) and a stack to walk them with. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kranges);
} callers SEC(".maps");

struct kstack {
	__u64 ip[KSTACK_MAX];
	__u32 org;
	__u32 pad;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kstack);
} stackbuf SEC(".maps");

#define STACK_MAX 8
struct task_state {
	__u8 stack[STACK_MAX]; /* origins pushed by the callers */
	__u8 spans[STACK_MAX]; /* 1: the frame at this depth is a span */
	__u32 depth;
	__u32 user;	    /* in a user-space command (tpm2_prepare_space .. tpm_put_ops) */
	__u64 user_buf;	    /* its buffer (tpm2_prepare_space's cmd): the others are rm-swap */
	__u32 node;	    /* KNODE_* from tpm2_prepare_space */
	__u32 in_write;	    /* in tpm_common_write, before it queues or transmits */
	__u32 user_tgid;    /* the writer (an O_NONBLOCK write's, by its work item) */
	char user_comm[16]; /* its program */
	__u64 getops_t0;    /* tpm_try_get_ops entry: waiting for the chip from then */
	__u64 span_t0;	    /* the open span's start */
	__u32 span_id;
	__u32 span_open;
	__u32 n_tx;
	__u32 pad;
	__u64 tx_ns;
};

/* Only functions that run under the chip's lock (or their own subsystem's)
 * get a return probe: a kretprobe has a small pool of instances, and the
 * callers that sleep for the lock (64 clients' writes) would exhaust it.
 * The others are entry probes, undone at tpm_put_ops. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct task_state);
} tasks SEC(".maps");

/* O_NONBLOCK writes run in a kworker (tpm_dev_async_work): the writer,
 * by its work item, noted where tpm_common_write queues it. */
struct writer_id {
	__u32 tgid;
	char comm[16];
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct writer_id);
} async_writers SEC(".maps");

/* An index into a task's stack the verifier sees bounded (clang would drop
 * a plain mask after a range check). */
static __always_inline __u64 slot(__u64 d)
{
	asm volatile("%0 &= 7" : "+r"(d));
	return d;
}

/* A length or offset below 8192, as the verifier sees it. */
static __always_inline __u64 mask13(__u64 v)
{
	asm volatile("%0 &= 0x1fff" : "+r"(v));
	return v;
}

static __always_inline __u32 tid_now(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

static __always_inline struct task_state *task_get(int create)
{
	__u32 tid = tid_now();
	struct task_state *t = bpf_map_lookup_elem(&tasks, &tid);
	if (t || !create)
		return t;
	struct task_state z = {};
	bpf_map_update_elem(&tasks, &tid, &z, BPF_NOEXIST);
	return bpf_map_lookup_elem(&tasks, &tid);
}

static __always_inline void task_maybe_free(struct task_state *t)
{
	if (t->depth == 0 && !t->user && !t->getops_t0 && !t->in_write && !t->user_tgid) {
		__u32 tid = tid_now();
		bpf_map_delete_elem(&tasks, &tid);
	}
}

static __always_inline __u32 task_origin(struct task_state *t)
{
	if (!t)
		return KORG_KERNEL;
	if (t->depth == 0)
		return t->user ? KORG_USER : KORG_KERNEL;
	__u32 d = t->depth - 1;
	if (d >= STACK_MAX)
		return t->stack[STACK_MAX - 1];
	return t->stack[slot(d)];
}

static __always_inline void push(struct task_state *t, __u64 cookie)
{
	__u32 org = cookie & 0xff, d = t->depth;
	/* A weak origin (the callers: IMA, hwrng, trusted keys) keeps an outer
	 * one; a strong one (the kernel's sessions, the resource manager)
	 * overrides it. */
	if (!(cookie & KCOOKIE_STRONG) && (d > 0 || t->user))
		org = task_origin(t);
	if (d < STACK_MAX) {
		t->stack[slot(d)] = (__u8)org;
		t->spans[slot(d)] = 0;
		if ((cookie & KCOOKIE_SPAN) && !t->span_open) {
			t->spans[slot(d)] = 1;
			t->span_open = 1;
			t->span_id = KCOOKIE_SPAN_ID(cookie);
			t->span_t0 = bpf_ktime_get_ns();
			t->n_tx = 0;
			t->tx_ns = 0;
		}
	}
	t->depth = d + 1;
}

/* The ring buffer's wake-up: only once a quarter of it is taken. The reader
 * reads at least every 100 ms anyway (kernel_rec_poll); a wake-up per record
 * put the recorder's work for it (a switch to it, a commit of its own) into
 * the round trip of each command. */
static __always_inline __u64 rb_wakeup(__u64 size)
{
	__u64 avail = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);
	__u64 ring = bpf_ringbuf_query(&rb, BPF_RB_RING_SIZE);
	return avail + size >= ring / 4 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void emit_span(struct task_state *t, __u32 origin)
{
	__u32 zero = 0;
	struct inflight *v = bpf_map_lookup_elem(&scratch, &zero);
	if (!v)
		return;
	struct krec *s = &v->r;
	__u64 pt = bpf_get_current_pid_tgid();
	s->h.kind = KREC_SPAN;
	s->h.origin = origin;
	s->h.tgid = pt >> 32;
	s->h.tid = (__u32)pt;
	s->h.chip = -1;
	s->h.cmd_len = 0;
	s->h.rsp_len = 0;
	s->h.node = 0;
	s->h.ret = 0;
	s->h.t_start = t->span_t0;
	s->h.t_end = bpf_ktime_get_ns();
	s->h.wait_ns = 0;
	s->h.span = t->span_id;
	s->h.n_tx = t->n_tx;
	s->h.tx_ns = t->tx_ns;
	bpf_get_current_comm(s->h.comm, sizeof s->h.comm);
	if (discarding())
		count(KCNT_SENT);
	else if (bpf_ringbuf_output(&rb, s, sizeof(s->h), rb_wakeup(sizeof(s->h))))
		count(KCNT_DROPPED);
	else
		count(KCNT_SENT);
}

/* ---- what each probed function tells: the logic, one copy for the kprobe
 * programs and the fentry/fexit programs (the wrappers at the end) ---- */

/* A caller's entry: its origin (cookie = origin | flags) pushed. */
static __always_inline void on_caller_entry(__u64 cookie)
{
	struct task_state *t = task_get(1);
	if (t)
		push(t, cookie);
}

/* A caller's return: its origin popped, its span (if it opened one) sent. */
static __always_inline void on_caller_return(void)
{
	struct task_state *t = task_get(0);
	if (!t || t->depth == 0)
		return;
	__u32 d = t->depth - 1;
	if (d < STACK_MAX && t->spans[slot(d)]) {
		emit_span(t, t->stack[slot(d)]);
		t->span_open = 0;
	}
	t->depth = d;
	task_maybe_free(t);
}

#ifdef TPMTRACE_CORE
/* tpm_common_write(file, buf, size, off): user space writes a command. A
 * blocking write transmits in this task, which names itself; an O_NONBLOCK
 * one queues the file's work item (file_priv.async_work), which runs in a
 * kworker: the writer is noted by that item here. Not when a command is
 * already queued on the file: such a write fails (EBUSY) and the queued
 * one keeps its writer. */
static __always_inline void on_write(struct file *file)
{
	if (!(BPF_CORE_READ(file, f_flags) & O_NONBLOCK))
		return;
	struct file_priv *priv = BPF_CORE_READ(file, private_data);
	if (!priv || BPF_CORE_READ(priv, command_enqueued))
		return;
	struct writer_id w = {.tgid = bpf_get_current_pid_tgid() >> 32};
	bpf_get_current_comm(w.comm, sizeof w.comm);
	__u64 key = (__u64)&priv->async_work;
	bpf_map_update_elem(&async_writers, &key, &w, BPF_ANY);
}
#else
/* Without BTF the work item's place in the file is not known: the write
 * notes its writer in the task, and queue_work_on inside it notes the
 * writer by the item it queues. */
static __always_inline void on_write(void)
{
	struct task_state *t = task_get(1);
	if (!t)
		return;
	t->in_write = 1;
	t->user_tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(t->user_comm, sizeof t->user_comm);
}

/* queue_work_on(cpu, wq, work): inside tpm_common_write it queues the TPM's
 * async work; the writer is noted by its work item. */
static __always_inline void on_queue_work(void *work)
{
	__u32 tid = tid_now();
	struct task_state *t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t || !t->in_write)
		return;
	struct writer_id w = {.tgid = t->user_tgid};
	__builtin_memcpy(w.comm, t->user_comm, sizeof w.comm);
	__u64 key = (__u64)work;
	bpf_map_update_elem(&async_writers, &key, &w, BPF_ANY);
	t->in_write = 0;
	t->user_tgid = 0;
	task_maybe_free(t);
}
#endif

/* tpm_dev_async_work(work): the O_NONBLOCK write's transmission, in a kworker. */
static __always_inline void on_async(void *work)
{
	struct task_state *t = task_get(1);
	if (!t)
		return;
	__u64 key = (__u64)work;
	struct writer_id *w = bpf_map_lookup_elem(&async_writers, &key);
	if (w) {
		t->user_tgid = w->tgid;
		__builtin_memcpy(t->user_comm, w->comm, sizeof t->user_comm);
		bpf_map_delete_elem(&async_writers, &key);
	} else {
		t->user_tgid = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(t->user_comm, sizeof t->user_comm);
	}
}

/* tpm2_prepare_space(chip, space, cmd, cmdsiz), under the chip's lock: a
 * user command follows, in cmd (/dev/tpmrm*: space set, or /dev/tpm*).
 * Until tpm_put_ops every transmission of this task is the resource
 * manager's (rm-swap: its ContextLoads here, its ContextSaves and flushes in
 * tpm2_commit_space, each in a buffer of its own) but the one of cmd, the
 * user's. So no return probe here, and none on tpm2_commit_space. */
static __always_inline void on_prepare(const void *space, const void *cmd)
{
	struct task_state *t = task_get(1);
	if (!t)
		return;
	t->node = space ? KNODE_TPMRM : KNODE_TPM;
	t->user = 1;
	t->user_buf = (__u64)cmd;
}

/* tpm2_del_space(chip, space): a /dev/tpmrm client's close; the sessions it
 * left are flushed, every transmission the resource manager's. */
static __always_inline void on_del_space(void)
{
	struct task_state *t = task_get(1);
	if (!t)
		return;
	t->node = KNODE_TPMRM;
	t->user = 1;
	t->user_buf = 0;
}

/* tpm_try_get_ops(chip): the chip's lock (tpm_mutex) and its start; from
 * here to the next transmission is waiting for the chip. */
static __always_inline void on_getops(void)
{
	struct task_state *t = task_get(1);
	if (!t)
		return;
	t->getops_t0 = bpf_ktime_get_ns();
	t->in_write = 0;
}

/* tpm_put_ops(chip): the chip released; a user command is over. */
static __always_inline void on_putops(void)
{
	struct task_state *t = task_get(0);
	if (!t)
		return;
	t->user = 0;
	t->user_buf = 0;
	t->node = KNODE_NONE;
	t->user_tgid = 0;
	t->getops_t0 = 0;
	t->in_write = 0;
	task_maybe_free(t);
}

/* ---- the transmission ---- */

static __always_inline __u32 be32(const __u8 *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) | ((__u32)p[2] << 8) | p[3];
}

/* The origin from the kernel stack, for a transmission whose task has none
 * pushed: a call that began before its caller's probe was attached (the
 * hwrng's thread reads on its own, IMA measures in any process). Each
 * return address (less one: the call, not the next instruction) is looked
 * up in the callers' ranges, innermost first: the first strong caller
 * wins, else the outermost other one, as push() decides on the way in. */
static __always_inline __u32 stack_origin(void *ctx)
{
	__u32 zero = 0;
	struct kstack *s = bpf_map_lookup_elem(&stackbuf, &zero);
	struct kranges *k = bpf_map_lookup_elem(&callers, &zero);
	if (!s || !k || !k->n)
		return KORG_KERNEL;
	long got = bpf_get_stack(ctx, s->ip, sizeof s->ip, 0);
	if (got <= 0)
		return KORG_KERNEL;
	/* The origin so far is kept in the map, not a register: the verifier
	 * would follow each value it could take through every later frame. */
	s->org = KORG_KERNEL;
	__u32 n = (__u32)got / 8;
	for (__u32 i = 0; i < KSTACK_MAX; i++) {
		if (i >= n)
			break;
		__u64 ip = s->ip[i] - 1;
		/* Every slot, used or not (an unused one is empty, [0, 0)): a
		 * loop that ended at k->n would leave the verifier a state per
		 * place it could end. */
		for (__u32 j = 0; j < KRANGE_MAX; j++) {
			struct krange *r = &k->r[j];
			if (ip - r->start >= r->end - r->start)
				continue;
			if (r->cookie & KCOOKIE_STRONG)
				return r->cookie & 0xff;
			if ((r->cookie & 0xff) != KORG_KERNEL)
				s->org = r->cookie & 0xff;
		}
	}
	return s->org;
}

/* tpm_transmit(chip, buf, bufsiz), entry: the command copied into the
 * chip's record (the response will be written over buf), the transmission
 * noted by thread. The chip's lock makes one transmission at a time per
 * chip, so its record is made once and reused: no copy of a whole record
 * per command. */
static __always_inline void on_transmit_entry(void *ctx, const void *chip, const __u8 *buf,
					      unsigned long bufsiz)
{
	__u32 zero = 0, tid = tid_now();
	__u64 key = (__u64)chip;
	struct inflight *v = bpf_map_lookup_elem(&txbuf, &key);
	if (!v) {
		struct inflight *src = bpf_map_lookup_elem(&scratch, &zero);
		if (!src || bpf_map_update_elem(&txbuf, &key, src, BPF_NOEXIST))
			return;
		v = bpf_map_lookup_elem(&txbuf, &key);
		if (!v)
			return;
	}
	struct krec *r = &v->r;
	v->buf = (__u64)buf;
	__u8 hdr[10] = {};
	bpf_probe_read_kernel(hdr, sizeof hdr, buf);
	__u32 n = be32(hdr + 2);
	if (n > bufsiz)
		n = bufsiz;
	if (n > KREC_BUF)
		n = KREC_BUF;
	r->h.cmd_len = 0;
	if (n > 0 && bpf_probe_read_kernel(r->data, mask13(n), buf) == 0)
		r->h.cmd_len = n;
	r->h.kind = KREC_CMD;
	r->h.tid = tid;
	r->h.rsp_len = 0;
	r->h.ret = 0;
	r->h.span = 0;
	r->h.n_tx = 0;
	r->h.tx_ns = 0;
#ifdef TPMTRACE_CORE
	r->h.chip = BPF_CORE_READ((struct tpm_chip *)chip, dev_num);
#else
	r->h.chip = -1;
#endif
	struct task_state *t = bpf_map_lookup_elem(&tasks, &tid);
	__u64 pt = bpf_get_current_pid_tgid();
	/* What the callers pushed; in a user command (tpm2_prepare_space to
	 * tpm_put_ops) the user's buffer is the user's command, any other the
	 * resource manager's; a task with nothing pushed (a call under way
	 * before its caller's probe) is named from its stack instead. */
	if (t && t->depth == 0 && t->user)
		r->h.origin = (__u64)buf == t->user_buf ? KORG_USER : KORG_RMSWAP;
	else
		r->h.origin = t && t->depth ? task_origin(t) : stack_origin(ctx);
	r->h.node = t ? t->node : 0;
	r->h.wait_ns = 0;
	r->h.t_start = bpf_ktime_get_ns();
	if (t && t->getops_t0) {
		r->h.wait_ns = r->h.t_start - t->getops_t0;
		t->getops_t0 = 0;
	}
	if (t && (r->h.origin == KORG_USER || r->h.origin == KORG_RMSWAP) && t->user_tgid) {
		r->h.tgid = t->user_tgid;
		__builtin_memcpy(r->h.comm, t->user_comm, sizeof r->h.comm);
	} else {
		r->h.tgid = pt >> 32;
		bpf_get_current_comm(r->h.comm, sizeof r->h.comm);
	}
	bpf_map_update_elem(&inflight, &tid, &key, BPF_ANY);
}

/* tpm_transmit's return (ret: the response's length or -errno): the
 * response after the command, the record to the ring buffer. */
static __always_inline void on_transmit_return(long ret)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = tid_now();
	__u64 *key = bpf_map_lookup_elem(&inflight, &tid);
	struct inflight *v = key ? bpf_map_lookup_elem(&txbuf, key) : NULL;
	if (key)
		bpf_map_delete_elem(&inflight, &tid);
	if (!v || v->r.h.tid != tid) {
		count(KCNT_LOST);
		return;
	}
	struct krec *r = &v->r;
	r->h.t_end = now;
	r->h.ret = ret;
	struct task_state *t = bpf_map_lookup_elem(&tasks, &tid);
	if (t && t->span_open) {
		t->n_tx++;
		t->tx_ns += now - r->h.t_start;
	}
	__u32 off = r->h.cmd_len;
	if (off > KREC_BUF)
		off = KREC_BUF;
	__u32 n = 0;
	if (ret > 0) {
		/* the response is written over the command, in the same buffer */
		n = ret > KREC_BUF ? KREC_BUF : (__u32)ret;
		if (bpf_probe_read_kernel(r->data + (off & (KREC_BUF * 2 - 1)),
					  n & (KREC_BUF * 2 - 1), (const void *)v->buf))
			n = 0;
	}
	r->h.rsp_len = n;
	__u64 size = sizeof(r->h) + mask13(off) + mask13(n);
	if (discarding())
		count(KCNT_SENT);
	else if (bpf_ringbuf_output(&rb, r, size, rb_wakeup(size)))
		count(KCNT_DROPPED);
	else
		count(KCNT_SENT);
}

/* ---- the programs: kprobes, and where the kernel has BTF the same as
 * fentry/fexit programs (BPF trampolines: a call, no trap), which the
 * loader prefers. Each says what its function tells and nothing more. ---- */

SEC("kprobe")
int BPF_KPROBE(caller_entry)
{
	on_caller_entry(bpf_get_attach_cookie(ctx));
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(caller_return)
{
	on_caller_return();
	return 0;
}

#ifdef TPMTRACE_CORE
SEC("kprobe")
int BPF_KPROBE(write_entry, struct file *file)
{
	on_write(file);
	return 0;
}
#else
SEC("kprobe")
int BPF_KPROBE(write_entry)
{
	on_write();
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(queue_work_entry, int cpu, void *wq, void *work)
{
	on_queue_work(work);
	return 0;
}
#endif

SEC("kprobe")
int BPF_KPROBE(async_entry, void *work)
{
	on_async(work);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(prepare_space_entry, void *chip, void *space, void *cmd)
{
	on_prepare(space, cmd);
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(del_space_entry)
{
	on_del_space();
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(getops_entry)
{
	on_getops();
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(putops_entry)
{
	on_putops();
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(transmit_entry, void *chip, const __u8 *buf, unsigned long bufsiz)
{
	on_transmit_entry(ctx, chip, buf, bufsiz);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(transmit_return, long ret)
{
	on_transmit_return(ret);
	return 0;
}

#ifdef TPMTRACE_CORE
/* The same on BPF trampolines. The loader sets each one's function (the
 * names: fe_ entry, fx_ return) and loads only those the kernel's BTF has. */
SEC("fentry")
int BPF_PROG(fe_tpm_transmit, void *chip, const __u8 *buf, unsigned long bufsiz)
{
	on_transmit_entry(ctx, chip, buf, bufsiz);
	return 0;
}

SEC("fexit")
int BPF_PROG(fx_tpm_transmit, void *chip, const __u8 *buf, unsigned long bufsiz, long ret)
{
	on_transmit_return(ret);
	return 0;
}

SEC("fentry")
int BPF_PROG(fe_tpm_common_write, struct file *file)
{
	on_write(file);
	return 0;
}

SEC("fentry")
int BPF_PROG(fe_tpm_dev_async_work, void *work)
{
	on_async(work);
	return 0;
}

SEC("fentry")
int BPF_PROG(fe_tpm2_prepare_space, void *chip, void *space, void *cmd)
{
	on_prepare(space, cmd);
	return 0;
}

SEC("fentry")
int BPF_PROG(fe_tpm2_del_space)
{
	on_del_space();
	return 0;
}

SEC("fentry")
int BPF_PROG(fe_tpm_try_get_ops)
{
	on_getops();
	return 0;
}

SEC("fentry")
int BPF_PROG(fe_tpm_put_ops)
{
	on_putops();
	return 0;
}

/* The callers (kernel_abi.h): the cookie built in. */
#define CALLER_PROGS(fn, cookie)                                                                   \
	SEC("fentry")                                                                              \
	int fe_##fn(void *ctx)                                                                     \
	{                                                                                          \
		on_caller_entry(cookie);                                                           \
		return 0;                                                                          \
	}                                                                                          \
	SEC("fexit")                                                                               \
	int fx_##fn(void *ctx)                                                                     \
	{                                                                                          \
		on_caller_return();                                                                \
		return 0;                                                                          \
	}
KCALLERS(CALLER_PROGS)
#endif
