/*
 * sandbox.h -- confining a candidate's program with the kernel: Landlock and a
 * seccomp filter, put on in the child between fork and exec (proc_run_contained).
 *
 * What a confined program may do (and nothing more where the kernel allows it):
 *   - write (create, remove, rename, truncate) only beneath its scratch directory,
 *     into the existing files named for it (its result file), the device nodes
 *     CUDA opens (/dev/nvidia*, /dev/null, ...) and /dev/shm; read everywhere;
 *   - execute only its own program and what the kernel needs to start it (the
 *     ELF interpreter, a script's interpreter), plus the files beneath the
 *     directories named for it (compute-sanitizer's own tree);
 *   - no TCP bind or connect (Landlock ABI >= 4), no sockets but AF_UNIX, no
 *     ptrace, process_vm_*, mount, namespaces, module loading, io_uring, bpf,
 *     perf, keyrings (seccomp: EPERM, so code that probes gets an error);
 *   - no signals to, nor abstract UNIX sockets of, processes outside its own
 *     tree (Landlock ABI >= 6).
 * Its memory, threads, ioctls and mmaps are left alone: the CUDA driver needs them.
 * (With Landlock ABI 1, kernels 5.13 to 5.18, renames across directories fail
 * with EXDEV even beneath the scratch directory.)
 *
 * The kernel decides what is there (sandbox_available); what is missing is left
 * out and the caller says so once.  Ownership: a struct sandbox owns its
 * ruleset descriptor until sandbox_release.  Linux only; elsewhere nothing is
 * available.
 */
#ifndef EGG_HARNESS_SANDBOX_H
#define EGG_HARNESS_SANDBOX_H

#include "common/strbuf.h"

enum sandbox_layer {
	SANDBOX_LANDLOCK_FS = 1,  /* writes and execution */
	SANDBOX_LANDLOCK_NET = 2, /* TCP bind and connect */
	SANDBOX_SECCOMP = 4,      /* the system-call filter (and no_new_privs) */
};
#define SANDBOX_ALL (SANDBOX_LANDLOCK_FS | SANDBOX_LANDLOCK_NET | SANDBOX_SECCOMP)

/* The layers this kernel offers (probed once).  For tests only,
 * EGG_SANDBOX_TEST_UNAVAILABLE="landlock,seccomp" (either or both) takes layers
 * away as a machine without them would. */
unsigned sandbox_available(void);

/* The Landlock ABI version (0: none), for messages and tests.  For tests only,
 * EGG_SANDBOX_TEST_LANDLOCK_ABI=N plays an older kernel's Landlock. */
int sandbox_landlock_abi(void);

/* Names the layers in mask ("Landlock (files), Landlock (network), seccomp"). */
void sandbox_describe(unsigned mask, struct strbuf *out);

struct sandbox_spec {
	const char *scratch;             /* the directory it may write beneath */
	const char *const *write_files;  /* existing files it may write; NULL-terminated, may be NULL */
	const char *const *exec;         /* more files, or directories, it may execute; may be NULL */
	unsigned layers;                 /* which of sandbox_available() to apply */
	/* TCP ports [tcp_port, tcp_port + tcp_ports) it may bind and connect to
	 * (compute-sanitizer talks to its target over TCP); with Landlock's
	 * network rules only (seccomp then lets AF_INET and AF_INET6 sockets be
	 * made, and Landlock keeps them to these ports) */
	unsigned short tcp_port, tcp_ports;
};

struct sandbox {
	unsigned layers;  /* what sandbox_enter will apply */
	int ruleset_fd;   /* Landlock; -1: none */
	int abi;
	unsigned long long handled_fs; /* the file-system rights the ruleset handles */
	unsigned short n_filter;
	struct sandbox_insn {
		unsigned short code;
		unsigned char jt, jf;
		unsigned int k;
	} filter[160];    /* the seccomp program (struct sock_filter's layout) */
};

/* Prepares, in the parent, the confinement of exe (the program to exec) as spec
 * says.  0, or -1 with a sentence in err (a path that cannot be opened); then
 * nothing is held. */
int sandbox_prepare(struct sandbox *sb, const char *exe, const struct sandbox_spec *spec,
                    struct strbuf *err);

/* Puts the sandbox on the calling process: meant for the child between fork and
 * exec (system calls only, no allocation).  0, or -1 with errno set. */
int sandbox_enter(const struct sandbox *sb);

void sandbox_release(struct sandbox *sb);

#endif
