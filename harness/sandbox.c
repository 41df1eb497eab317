/*
 * sandbox.c -- Landlock rules and a seccomp filter for a candidate's program
 * (see sandbox.h), through the system calls themselves: no library beyond libc.
 *
 * The Landlock ruleset is built in the parent (open the paths, add the rules),
 * so that the child only calls prctl and landlock_restrict_self before exec.
 * Constants newer than the build machine's headers are spelled out here; the
 * ABI the running kernel reports decides which of them are used.
 */
#include "config.h"
#include "harness/sandbox.h"
#include "common/util.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#endif

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/* Landlock's ABI (include/uapi/linux/landlock.h), as of ABI 6. */
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_NET_BIND_TCP (1ULL << 0) /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
} __attribute__((packed));

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* What a file (not a directory) rule may grant. */
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_TRUNCATE)

static int
ll_abi_probe(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	return abi > 0 ? (int)abi : 0;
}

int
sandbox_landlock_abi(void)
{
	static int abi = -1;
	if (abi < 0)
		abi = ll_abi_probe();
	const char *cap = getenv("EGG_SANDBOX_TEST_LANDLOCK_ABI");
	if (cap && *cap && atoi(cap) < abi)
		return atoi(cap);
	return abi;
}

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define SB_HAVE_SECCOMP 1
#if defined(__x86_64__)
#define SB_AUDIT_ARCH AUDIT_ARCH_X86_64
#else
#define SB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#endif

static int
seccomp_probe(void)
{
#ifdef SB_HAVE_SECCOMP
	/* seccomp(2) answers whether it can return an errno from a filter; a kernel
	 * without filters (or a container that forbids seccomp(2)) says no. */
	unsigned int action = SECCOMP_RET_ERRNO;
	return syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0 &&
	       prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
#else
	return 0;
#endif
}

unsigned
sandbox_available(void)
{
	static int seccomp = -1;
	if (seccomp < 0)
		seccomp = seccomp_probe();
	int abi = sandbox_landlock_abi();
	unsigned mask = (abi >= 1 ? SANDBOX_LANDLOCK_FS : 0) | (abi >= 4 ? SANDBOX_LANDLOCK_NET : 0) |
	                (seccomp ? SANDBOX_SECCOMP : 0);
	const char *t = getenv("EGG_SANDBOX_TEST_UNAVAILABLE");
	if (t && strstr(t, "landlock"))
		mask &= ~(unsigned)(SANDBOX_LANDLOCK_FS | SANDBOX_LANDLOCK_NET);
	if (t && strstr(t, "seccomp"))
		mask &= ~(unsigned)SANDBOX_SECCOMP;
	return mask;
}

void
sandbox_describe(unsigned mask, struct strbuf *out)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = { { SANDBOX_LANDLOCK_FS, "Landlock (writes and exec)" },
		      { SANDBOX_LANDLOCK_NET, "Landlock (TCP)" },
		      { SANDBOX_SECCOMP, "seccomp (sockets, ptrace, mounts)" } };
	size_t n = 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (mask & names[i].bit)
			strbuf_addf(out, "%s%s", n++ ? ", " : "", names[i].name);
	if (!n)
		strbuf_addstr(out, "nothing");
}

/* ---- Landlock ---- */

/* Adds a rule granting access beneath path (a directory) or on it (a file, where
 * only file rights apply).  A path that does not exist is skipped when optional. */
static int
ll_allow(const struct sandbox *sb, const char *path, uint64_t access, int optional,
         struct strbuf *err)
{
	int ruleset = sb->ruleset_fd;
	access &= sb->handled_fs; /* a right the ruleset does not handle is refused (EINVAL) */
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (optional)
			return 0;
		strbuf_addf(err, "cannot open %s for the sandbox: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		access &= LL_FILE_RIGHTS;
	struct ll_path_beneath_attr rule = { access, fd };
	int rc = 0;
	if (access && syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) < 0) {
		strbuf_addf(err, "cannot add a sandbox rule for %s: %s", path, strerror(errno));
		rc = -1;
	}
	close(fd);
	return rc;
}

/* The interpreter the kernel opens to exec path: an ELF's PT_INTERP, or a
 * script's "#!" program; NULL when none.  Caller frees. */
static char *
exec_interpreter(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *interp = NULL;
	unsigned char head[256];
	ssize_t n = pread(fd, head, sizeof head - 1, 0);
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		head[n] = 0;
		char *p = (char *)head + 2;
		p += strspn(p, " \t");
		size_t len = strcspn(p, " \t\r\n");
		if (len)
			interp = egg_xstrndup(p, len);
	} else if (n >= (ssize_t)sizeof(Elf64_Ehdr) && memcmp(head, ELFMAG, SELFMAG) == 0 &&
	           head[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		memcpy(&eh, head, sizeof eh);
		for (unsigned i = 0; i < eh.e_phnum && i < 64; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
			    (ssize_t)sizeof ph)
				break;
			if (ph.p_type != PT_INTERP || ph.p_filesz < 2 || ph.p_filesz > 4096)
				continue;
			interp = egg_xcalloc(1, ph.p_filesz + 1);
			if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) {
				free(interp);
				interp = NULL;
			}
			break;
		}
	}
	close(fd);
	return interp;
}

/* Lets exe be executed, with the interpreters it needs (a script's, and that
 * one's ELF interpreter). */
static int
ll_allow_exec(const struct sandbox *sb, const char *exe, struct strbuf *err)
{
	if (ll_allow(sb, exe, LL_FS_EXECUTE, 0, err) < 0)
		return -1;
	char *interp = exec_interpreter(exe);
	int rc = 0;
	for (int depth = 0; interp && depth < 3 && rc == 0; depth++) {
		rc = ll_allow(sb, interp, LL_FS_EXECUTE, 1, err);
		char *next = exec_interpreter(interp);
		free(interp);
		interp = next;
	}
	free(interp);
	return rc;
}

/* The device nodes a CUDA program opens for writing: /dev/nvidia* (the GPUs,
 * nvidiactl, nvidia-uvm, nvidia-caps/...) and the usual character devices. */
static int
ll_allow_devices(const struct sandbox *sb, uint64_t write, struct strbuf *err)
{
	static const char *const usual[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
		                             "/dev/urandom", "/dev/tty", "/dev/dri", NULL };
	for (int i = 0; usual[i]; i++)
		if (ll_allow(sb, usual[i], write, 1, err) < 0)
			return -1;
	DIR *d = opendir("/dev");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "nvidia", 6) != 0)
			continue;
		char path[300];
		snprintf(path, sizeof path, "/dev/%s", e->d_name);
		if (ll_allow(sb, path, write, 1, err) < 0) {
			closedir(d);
			return -1;
		}
	}
	if (d)
		closedir(d);
	return 0;
}

static int
ll_prepare(struct sandbox *sb, const char *exe, const struct sandbox_spec *spec,
           struct strbuf *err)
{
	int abi = sandbox_landlock_abi();
	uint64_t make = LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK |
	                LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM;
	uint64_t write = LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | make;
	if (abi >= 2)
		write |= LL_FS_REFER;
	if (abi >= 3)
		write |= LL_FS_TRUNCATE;
	struct ll_ruleset_attr attr = { write | LL_FS_EXECUTE, 0, 0 };
	size_t size = sizeof attr.handled_access_fs;
	if ((spec->layers & SANDBOX_LANDLOCK_NET) && abi >= 4) {
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
		size = sizeof attr;
	}
	int fd = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0) {
		strbuf_addf(err, "cannot create a Landlock ruleset: %s", strerror(errno));
		return -1;
	}
	sb->ruleset_fd = fd;
	sb->abi = abi;
	sb->handled_fs = attr.handled_access_fs;
	if (ll_allow(sb, spec->scratch, write, 0, err) < 0 || ll_allow_exec(sb, exe, err) < 0 ||
	    ll_allow_devices(sb, LL_FS_WRITE_FILE | LL_FS_TRUNCATE, err) < 0 ||
	    ll_allow(sb, "/dev/shm", write, 1, err) < 0)
		return -1;
	for (unsigned p = 0; (attr.handled_access_net & LL_NET_CONNECT_TCP) && p < spec->tcp_ports; p++) {
		struct ll_net_port_attr rule = { LL_NET_BIND_TCP | LL_NET_CONNECT_TCP,
			                         (uint64_t)spec->tcp_port + p };
		if (syscall(__NR_landlock_add_rule, fd, LL_RULE_NET_PORT, &rule, 0) < 0) {
			strbuf_addf(err, "cannot add a sandbox rule for TCP port %u: %s",
			            spec->tcp_port + p, strerror(errno));
			return -1;
		}
	}
	for (size_t i = 0; spec->write_files && spec->write_files[i]; i++)
		if (ll_allow(sb, spec->write_files[i], LL_FS_WRITE_FILE | LL_FS_TRUNCATE, 0, err) < 0)
			return -1;
	for (size_t i = 0; spec->exec && spec->exec[i]; i++)
		if (access(spec->exec[i], F_OK) == 0 && ll_allow_exec(sb, spec->exec[i], err) < 0)
			return -1;
	return 0;
}

/* ---- seccomp ---- */

#ifdef SB_HAVE_SECCOMP
static void
emit(struct sandbox *sb, unsigned short code, unsigned int k, unsigned char jt, unsigned char jf)
{
	if (sb->n_filter < sizeof sb->filter / sizeof *sb->filter)
		sb->filter[sb->n_filter++] = (struct sandbox_insn){ code, jt, jf, k };
}

#define LOAD(off) emit(sb, BPF_LD | BPF_W | BPF_ABS, (off), 0, 0)
#define RET(v) emit(sb, BPF_RET | BPF_K, (v), 0, 0)
#define DENY(e) RET(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define ARG0_LOW offsetof(struct seccomp_data, args[0]) /* little-endian */

/* The system calls a GPU test program has no business making: each returns
 * EPERM.  (Those this architecture lacks are left out.) */
static const int denied[] = {
	__NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_mount, __NR_umount2,
	__NR_pivot_root, __NR_chroot, __NR_swapon, __NR_swapoff, __NR_reboot, __NR_kexec_load,
	__NR_init_module, __NR_finit_module, __NR_delete_module, __NR_bpf, __NR_perf_event_open,
	__NR_keyctl, __NR_add_key, __NR_request_key, __NR_unshare, __NR_setns, __NR_userfaultfd,
	__NR_open_by_handle_at, __NR_name_to_handle_at, __NR_quotactl, __NR_acct,
	__NR_settimeofday, __NR_clock_settime, __NR_clock_adjtime, __NR_adjtimex,
	__NR_sethostname, __NR_setdomainname, __NR_syslog, __NR_vhangup,
#ifdef __NR_kexec_file_load
	__NR_kexec_file_load,
#endif
#ifdef __NR_io_uring_setup
	__NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
#endif
#ifdef __NR_fsopen
	__NR_fsopen, __NR_fsconfig, __NR_fsmount, __NR_fspick, __NR_move_mount, __NR_open_tree,
#endif
#ifdef __NR_mount_setattr
	__NR_mount_setattr,
#endif
#ifdef __NR_iopl
	__NR_iopl, __NR_ioperm,
#endif
#ifdef __NR_uselib
	__NR_uselib,
#endif
};

static void
seccomp_prepare(struct sandbox *sb, int inet)
{
	sb->n_filter = 0;
	/* another architecture's system calls (i386's int 0x80): refused */
	LOAD(offsetof(struct seccomp_data, arch));
	emit(sb, BPF_JMP | BPF_JEQ | BPF_K, SB_AUDIT_ARCH, 1, 0);
	DENY(EPERM);
	LOAD(offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	emit(sb, BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1); /* the x32 ABI */
	DENY(EPERM);
#endif
	for (size_t i = 0; i < sizeof denied / sizeof *denied; i++) {
		emit(sb, BPF_JMP | BPF_JEQ | BPF_K, (unsigned)denied[i], 0, 1);
		DENY(EPERM);
	}
	/* socket(family, ...): AF_UNIX only; with inet (TCP ports Landlock opens to
	 * compute-sanitizer) AF_INET and AF_INET6 too */
	emit(sb, BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 6);
	LOAD(ARG0_LOW);
	emit(sb, BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 3, 0);
	emit(sb, BPF_JMP | BPF_JEQ | BPF_K, inet ? AF_INET : AF_UNIX, 2, 0);
	emit(sb, BPF_JMP | BPF_JEQ | BPF_K, inet ? AF_INET6 : AF_UNIX, 1, 0);
	DENY(EPERM);
	RET(SECCOMP_RET_ALLOW);
	/* clone(flags, ...): threads and processes, no new namespaces */
	emit(sb, BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4);
	LOAD(ARG0_LOW);
	emit(sb, BPF_JMP | BPF_JSET | BPF_K,
	     CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
	     CLONE_NEWPID | CLONE_NEWNET, 0, 1);
	DENY(EPERM);
	RET(SECCOMP_RET_ALLOW);
#ifdef __NR_clone3
	/* its flags are behind a pointer: ENOSYS, and libc falls back to clone */
	emit(sb, BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
	DENY(ENOSYS);
#endif
	RET(SECCOMP_RET_ALLOW);
}
#endif

/* ---- the sandbox ---- */

int
sandbox_prepare(struct sandbox *sb, const char *exe, const struct sandbox_spec *spec,
                struct strbuf *err)
{
	memset(sb, 0, sizeof *sb);
	sb->ruleset_fd = -1;
	sb->layers = spec->layers & sandbox_available();
	if (!(sb->layers & SANDBOX_LANDLOCK_FS))
		sb->layers &= ~(unsigned)SANDBOX_LANDLOCK_NET; /* one ruleset holds both */
	if ((sb->layers & SANDBOX_LANDLOCK_FS) && ll_prepare(sb, exe, spec, err) < 0) {
		sandbox_release(sb);
		return -1;
	}
#ifdef SB_HAVE_SECCOMP
	if (sb->layers & SANDBOX_SECCOMP)
		seccomp_prepare(sb, spec->tcp_ports > 0 && (sb->layers & SANDBOX_LANDLOCK_NET));
	_Static_assert(sizeof(struct sandbox_insn) == sizeof(struct sock_filter), "a BPF instruction");
	if (sb->n_filter == sizeof sb->filter / sizeof *sb->filter) /* cut short: not a filter */
		sb->layers &= ~(unsigned)SANDBOX_SECCOMP;
#else
	sb->layers &= ~(unsigned)SANDBOX_SECCOMP;
#endif
	return 0;
}

int
sandbox_enter(const struct sandbox *sb)
{
	if (!sb->layers)
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	if (sb->ruleset_fd >= 0) {
		/* The CUDA runtime names its threads (pthread_setname_np writes
		 * /proc/self/task/TID/comm, opened O_WRONLY|O_CREAT|O_TRUNC) and fails
		 * with "OS call failed" when it cannot: this process's own task directory is writable (seen on the
		 * H200; the rule can only be made here, where the process is known). */
		int fd = open("/proc/self/task", O_PATH | O_CLOEXEC);
		struct ll_path_beneath_attr rule = { (LL_FS_WRITE_FILE | LL_FS_TRUNCATE) & sb->handled_fs, fd };
		if (fd >= 0) {
			if (rule.allowed_access)
				syscall(__NR_landlock_add_rule, sb->ruleset_fd, LL_RULE_PATH_BENEATH, &rule, 0);
			close(fd);
		}
		if (syscall(__NR_landlock_restrict_self, sb->ruleset_fd, 0) < 0)
			return -1;
	}
#ifdef SB_HAVE_SECCOMP
	if (sb->layers & SANDBOX_SECCOMP) {
		struct sock_fprog prog = { sb->n_filter, (struct sock_filter *)(void *)sb->filter };
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
			return -1;
	}
#endif
	return 0;
}

void
sandbox_release(struct sandbox *sb)
{
	if (sb->ruleset_fd >= 0)
		close(sb->ruleset_fd);
	sb->ruleset_fd = -1;
	sb->layers = 0;
}
