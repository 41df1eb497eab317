/*
 * test_sandbox.c -- the kernel's containment of a candidate's program
 * (harness/sandbox.h through proc_run_contained): a program that connects to a
 * loopback listener, writes in $HOME or execs /bin/sh is stopped, each layer on
 * its own too; an honest one (scratch files, reads, memory, threads) works; a
 * layer the machine lacks is left out.  Every hostile act is also run without
 * the sandbox, where it must succeed: the checks can tell.
 *
 * The programs are this binary itself, run as "test_sandbox --act ACT ARGS".
 * "test_sandbox --bench N" prints the cost of the sandbox on one run.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness/proc.h"
#include "harness/sandbox.h"
#include "common/child.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the acts (in the child) ---- */

static int
act_failed(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	return 10;
}

static int
act_connect(const char *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return act_failed("socket");
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		return act_failed("connect");
	return 0;
}

static int
act_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return act_failed("open");
	close(fd);
	return 0;
}

static int
act_exec(void)
{
	execl("/bin/sh", "sh", "-c", "exit 0", (char *)NULL);
	return act_failed("exec /bin/sh");
}

static void *
spin(void *arg)
{
	volatile double *x = arg;
	for (int i = 0; i < 100000; i++)
		*x += i;
	return NULL;
}

/* What a GPU test program does besides the GPU: files in its directory, reads
 * anywhere, memory, threads, a UNIX socket pair, /dev/null, its TMPDIR. */
/* gate[0]: what it waits for; gate[3]: where it says its thread id first */
static void *
wait_gate(void *arg)
{
	int *gate = arg;
	pid_t tid = gettid();
	char c;
	(void)!write(gate[3], &tid, sizeof tid);
	(void)!read(gate[0], &c, 1);
	return NULL;
}

static int
act_honest(const char *dir)
{
	char path[4096], to[4096];
	snprintf(path, sizeof path, "%s/sub", dir);
	if (mkdir(path, 0755) < 0)
		return act_failed("mkdir");
	snprintf(path, sizeof path, "%s/sub/a", dir);
	if (act_write(path))
		return 10;
	/* (within one directory: Landlock ABI 1 refuses any rename across them) */
	snprintf(to, sizeof to, "%s/sub/b", dir);
	if (rename(path, to) < 0)
		return act_failed("rename");
	if (truncate(to, 0) < 0)
		return act_failed("truncate");
	FILE *f = fopen(access("/etc/hostname", R_OK) == 0 ? "/etc/hostname" : "/etc/passwd", "r");
	char line[256];
	if (!f || !fgets(line, sizeof line, f))
		return act_failed("read /etc/hostname");
	fclose(f);
	size_t n = 64u << 20;
	char *mem = malloc(n);
	if (!mem)
		return act_failed("malloc");
	memset(mem, 1, n);
	free(mem);
	pthread_t t[4];
	double x[4] = { 0 };
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, spin, &x[i]) != 0)
			return act_failed("pthread_create");
	/* the CUDA runtime names its other threads (through /proc/self/task/TID/comm)
	 * and fails when it cannot (seen on the H200) */
	int gate[4];
	pthread_t waiter;
	pid_t tid = 0;
	if (pipe(gate) < 0 || pipe(gate + 2) < 0 || pthread_create(&waiter, NULL, wait_gate, gate) != 0 ||
	    read(gate[2], &tid, sizeof tid) != sizeof tid)
		return act_failed("pthread_create");
	/* as the runtime opens it (glibc's pthread_setname_np does not truncate) */
	char comm[64];
	snprintf(comm, sizeof comm, "/proc/self/task/%ld/comm", (long)tid);
	int cfd = open(comm, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	int named = cfd >= 0 && write(cfd, "egg-honest", 10) == 10 ? 0 : errno;
	if (cfd >= 0)
		close(cfd);
	if (write(gate[1], "x", 1) != 1)
		return act_failed("write");
	pthread_join(waiter, NULL);
	if (named != 0) {
		errno = named;
		return act_failed("pthread_setname_np");
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || write(sv[0], "x", 1) != 1)
		return act_failed("socketpair");
	int null = open("/dev/null", O_WRONLY | O_TRUNC);
	if (null < 0 || write(null, "x", 1) != 1)
		return act_failed("/dev/null");
	snprintf(path, sizeof path, "%s/egg-sandbox-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : dir);
	int tmp = mkstemp(path);
	if (tmp < 0)
		return act_failed("mkstemp in TMPDIR");
	unlink(path);
	return 0;
}

static int
act_main(int argc, char **argv)
{
	const char *act = argv[2], *arg = argc > 3 ? argv[3] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(act, "connect") == 0)
		return act_connect(arg);
	if (strcmp(act, "write") == 0)
		return act_write(arg);
	if (strcmp(act, "exec") == 0)
		return act_exec();
	if (strcmp(act, "honest") == 0)
		return act_honest(arg);
	if (strcmp(act, "nothing") == 0)
		return 0;
	return 2;
}

/* ---- the runs (in the test) ---- */

static char self[4096];
static char *top;     /* the test's directory */
static char *scratch; /* the program's */

static int
setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/test_sandbox.XXXXXX";
	top = egg_xstrdup(mkdtemp(tmpl));
	scratch = egg_xasprintf("%s/scratch", top);
	mkdir(scratch, 0700);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	child_remove_tree(top);
	free(top);
	free(scratch);
	return 0;
}

/* Runs this binary with --act act arg under the layers given (0: unconfined);
 * returns its exit status, its output in out. */
static int
run_act(unsigned layers, const char *act, const char *arg, char out[512])
{
	char *argv[] = { self, "--act", (char *)act, (char *)arg, NULL };
	char *env_tmp = egg_xasprintf("TMPDIR=%s", scratch);
	char *env[] = { env_tmp, NULL };
	char *out_path = egg_xasprintf("%s/out", top);
	struct sandbox sb;
	struct sandbox_spec spec = { scratch, NULL, NULL, layers };
	struct strbuf err = STRBUF_INIT;
	struct child_status st;
	assert_int_equal(sandbox_prepare(&sb, self, &spec, &err), 0);
	assert_int_equal(sb.layers, layers & sandbox_available());
	int rc = proc_run_contained(argv, env, NULL, out_path, out_path, 10, &sb, &st, &err);
	sandbox_release(&sb);
	assert_int_equal(rc, 0);
	assert_true(st.exited);
	char *text = NULL;
	size_t len = 0;
	out[0] = 0;
	if (fs_read_file(out_path, 0, &text, &len) == 0)
		snprintf(out, 512, "%s", text);
	free(text);
	free(out_path);
	free(env_tmp);
	strbuf_release(&err);
	return st.code;
}

static void
need(unsigned layers)
{
	if ((sandbox_available() & layers) != layers)
		skip();
}

/* A loopback listener; its port in *port. */
static int
listener(char port[16])
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	snprintf(port, 16, "%d", ntohs(a.sin_port));
	return fd;
}

/* 1 if a connection is waiting at the listener. */
static int
was_connected(int fd)
{
	int c = accept(fd, NULL, NULL);
	if (c >= 0)
		close(c);
	return c >= 0;
}

static void
a_program_that_connects_to_a_loopback_listener_is_stopped(void **state)
{
	(void)state;
	need(SANDBOX_ALL);
	char port[16], out[512];
	int fd = listener(port);
	assert_int_equal(run_act(SANDBOX_ALL, "connect", port, out), 10);
	assert_false(was_connected(fd));
	/* unconfined, the same program gets through */
	assert_int_equal(run_act(0, "connect", port, out), 0);
	assert_true(was_connected(fd));
	close(fd);
}

static void
each_layer_alone_stops_the_connection(void **state)
{
	(void)state;
	need(SANDBOX_ALL);
	char port[16], out[512];
	int fd = listener(port);
	/* seccomp refuses the socket itself, with EPERM */
	assert_int_equal(run_act(SANDBOX_SECCOMP, "connect", port, out), 10);
	assert_string_equal(out, "socket: Operation not permitted\n");
	/* Landlock lets the socket be made and refuses the connection */
	assert_int_equal(run_act(SANDBOX_LANDLOCK_FS | SANDBOX_LANDLOCK_NET, "connect", port, out), 10);
	assert_non_null(strstr(out, "connect: "));
	assert_false(was_connected(fd));
	close(fd);
}

static void
a_program_that_writes_in_home_is_stopped(void **state)
{
	(void)state;
	need(SANDBOX_LANDLOCK_FS);
	char out[512];
	char *home = egg_xasprintf("%s/home", top), *file = egg_xasprintf("%s/home/pwned", top);
	mkdir(home, 0755);
	assert_int_equal(run_act(SANDBOX_ALL, "write", file, out), 10);
	assert_string_equal(out, "open: Permission denied\n");
	assert_int_equal(access(file, F_OK), -1);
	/* beside its own directory too */
	char *beside = egg_xasprintf("%s/beside", top);
	assert_int_equal(run_act(SANDBOX_ALL, "write", beside, out), 10);
	assert_int_equal(access(beside, F_OK), -1);
	assert_int_equal(run_act(0, "write", file, out), 0);
	assert_int_equal(access(file, F_OK), 0);
	free(beside);
	free(home);
	free(file);
}

static void
a_program_that_execs_bin_sh_is_stopped(void **state)
{
	(void)state;
	need(SANDBOX_LANDLOCK_FS);
	char out[512];
	assert_int_equal(run_act(SANDBOX_ALL, "exec", "", out), 10);
	assert_string_equal(out, "exec /bin/sh: Permission denied\n");
	assert_int_equal(run_act(0, "exec", "", out), 0);
}

static void
an_honest_program_works_in_the_sandbox(void **state)
{
	(void)state;
	need(SANDBOX_ALL);
	char out[512];
	int code = run_act(SANDBOX_ALL, "honest", scratch, out);
	if (code != 0)
		fail_msg("the honest program failed (%d): %s", code, out);
	char *b = egg_xasprintf("%s/sub/b", scratch);
	assert_int_equal(access(b, F_OK), 0);
	free(b);
}

static void
a_layer_the_machine_lacks_is_left_out(void **state)
{
	(void)state;
	need(SANDBOX_ALL);
	char port[16], out[512];
	int fd = listener(port);
	char *file = egg_xasprintf("%s/unconfined", top);
	setenv("EGG_SANDBOX_TEST_UNAVAILABLE", "landlock", 1);
	assert_int_equal(sandbox_available(), SANDBOX_SECCOMP);
	/* without Landlock the write gets through, seccomp still refuses the socket */
	assert_int_equal(run_act(SANDBOX_ALL, "write", file, out), 0);
	assert_int_equal(access(file, F_OK), 0);
	assert_int_equal(run_act(SANDBOX_ALL, "connect", port, out), 10);
	setenv("EGG_SANDBOX_TEST_UNAVAILABLE", "landlock,seccomp", 1);
	assert_int_equal(sandbox_available(), 0);
	assert_int_equal(run_act(SANDBOX_ALL, "connect", port, out), 0);
	assert_true(was_connected(fd));
	unsetenv("EGG_SANDBOX_TEST_UNAVAILABLE");
	close(fd);
	free(file);
}

static void
an_older_landlock_still_stops_writes_and_exec(void **state)
{
	(void)state;
	need(SANDBOX_LANDLOCK_FS);
	char out[512];
	char *file = egg_xasprintf("%s/outside", top);
	for (int abi = 1; abi <= sandbox_landlock_abi() && abi <= 6; abi++) {
		char v[8];
		snprintf(v, sizeof v, "%d", abi);
		setenv("EGG_SANDBOX_TEST_LANDLOCK_ABI", v, 1);
		assert_int_equal(sandbox_landlock_abi(), abi);
		int code = run_act(SANDBOX_ALL, "honest", scratch, out);
		if (code != 0)
			fail_msg("ABI %d: the honest program failed (%d): %s", abi, code, out);
		assert_int_equal(run_act(SANDBOX_ALL, "write", file, out), 10);
		assert_int_equal(access(file, F_OK), -1);
		assert_int_equal(run_act(SANDBOX_ALL, "exec", "", out), 10);
		char *sub = egg_xasprintf("%s/sub", scratch);
		char *b = egg_xasprintf("%s/sub/b", scratch);
		unlink(b);
		rmdir(sub);
		free(sub);
		free(b);
	}
	unsetenv("EGG_SANDBOX_TEST_LANDLOCK_ABI");
	free(file);
}

/* Prints the mean time of one proc_run of a program that does nothing, with
 * and without the sandbox (its preparation included). */
static int
bench(int n)
{
	setup(NULL);
	char out[512];
	for (int with = 0; with < 2; with++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < n; i++)
			run_act(with ? SANDBOX_ALL : 0, "nothing", "", out);
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ms = ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) * 1e-6) / n;
		printf("%s: %.3f ms per run (%d runs)\n", with ? "sandboxed" : "unconfined", ms, n);
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		struct sandbox sb;
		struct sandbox_spec spec = { scratch, NULL, NULL, SANDBOX_ALL };
		struct strbuf err = STRBUF_INIT;
		sandbox_prepare(&sb, self, &spec, &err);
		sandbox_release(&sb);
		strbuf_release(&err);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("sandbox_prepare: %.1f us\n",
	       ((double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) * 1e-3) / n);
	teardown(NULL);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--act") == 0)
		return act_main(argc, argv);
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	if (argc > 2 && strcmp(argv[1], "--bench") == 0)
		return bench(atoi(argv[2]));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_program_that_connects_to_a_loopback_listener_is_stopped,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(each_layer_alone_stops_the_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(a_program_that_writes_in_home_is_stopped, setup, teardown),
		cmocka_unit_test_setup_teardown(a_program_that_execs_bin_sh_is_stopped, setup, teardown),
		cmocka_unit_test_setup_teardown(an_honest_program_works_in_the_sandbox, setup, teardown),
		cmocka_unit_test_setup_teardown(a_layer_the_machine_lacks_is_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(an_older_landlock_still_stops_writes_and_exec, setup,
		                                teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
