/* `tpmtrace record`: one option table (cmd_record.c) for its three modes, the
 * socket proxy (cmd_record.c), live capture with --pcap-live (record_pcap.c)
 * and the QEMU interposer with --qemu-ctrl (record_qemu.c); each mode gets
 * the parsed options. */
#ifndef TPMTRACE_RECORD_H
#define TPMTRACE_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "recorder/proxy.h"

#define RECORD_MAX_LISTEN PROXY_MAX_LISTEN

struct record_args {
	const char *db_path, *backend, *name, *state, *emulate;
	const char *listens[RECORD_MAX_LISTEN], *mssims[RECORD_MAX_LISTEN];
	int n_listen, n_mssim;
	int spawn, quiet, payloads, forward_only, no_startup;
	int rm; /* -1: the default (on with -- COMMAND) */
	long timeout_ms;
	unsigned long queue;
	uint64_t seed;
	int have_seed;
	long file_mode;	   /* -1: default */
	gid_t gid;	   /* (gid_t)-1: default */
	double idle_s;	   /* --idle-timeout */
	unsigned per_peer; /* --max-per-peer */
	/* --pcap-live */
	const char *iface;
	unsigned port;
	int mssim;
	/* --qemu-ctrl */
	const char *qemu_ctrl, *swtpm_ctrl;
	/* --kernel */
	int kernel, kernel_cmdline;
	const char *early;   /* --early FILE */
	const char *pidfile; /* --pidfile FILE: written once attached */
	int initrd;	     /* --initrd: argv[0] begins with '@' */
	char **command;	     /* after --, or NULL */
};

int record_pcap_live(const struct record_args *a);
int record_qemu_main(const struct record_args *a);
int record_kernel_main(const struct record_args *a);

#endif
