/*
 * test_child.c -- the one runner of child programs (common/child.h), with each
 * of its abilities: signals forwarded (egg-cc), the child's fate reproduced, a
 * process group with a time limit, files for output, secrets kept out.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/child.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int
sh(const char *script, const struct child_options *o, struct child_status *st)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct strbuf err = STRBUF_INIT;
	int rc = child_run("/bin/sh", argv, o, st, &err);
	strbuf_release(&err);
	return rc;
}

static void
a_signal_sent_to_the_driver_reaches_its_child(void **state)
{
	/* The child signals its parent (this test), which must pass it on: without
	 * forwarding this process would die of SIGTERM. */
	static const char script[] = "trap 'exit 42' TERM; kill -TERM $PPID; sleep 5 & wait";
	struct child_options o = CHILD_OPTIONS_INIT;
	o.forward_signals = 1;
	struct child_status st;
	assert_int_equal(sh(script, &o, &st), 0);
	assert_true(st.exited);
	assert_int_equal(st.code, 42);
	/* the same with a process group of its own: the group gets it */
	o.own_group = 1;
	o.timeout_s = 20;
	assert_int_equal(sh(script, &o, &st), 0);
	assert_int_equal(st.code, 42);
	/* and no handler stays behind */
	struct sigaction now;
	sigaction(SIGTERM, NULL, &now);
	assert_true(now.sa_handler == SIG_DFL);
}

static void
the_driver_ends_as_its_child_ended(void **state)
{
	struct child_status st;
	assert_int_equal(sh("kill -SEGV $$", NULL, &st), 0);
	assert_true(st.signaled);
	assert_int_equal(st.sig, SIGSEGV);
	assert_int_equal(child_shell_status(&st), 128 + SIGSEGV);
	struct strbuf why = STRBUF_INIT;
	child_describe(&st, &why);
	assert_non_null(strstr(why.buf, "killed by signal 11"));
	strbuf_release(&why);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		child_exit_like(&st);
	}
	int status;
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	struct child_status three = { 1, 3, 0, 0, 0, 0, 0 };
	pid = fork();
	if (pid == 0)
		child_exit_like(&three);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
}

static void
a_time_limit_kills_the_whole_group(void **state)
{
	struct child_options o = CHILD_OPTIONS_INIT;
	o.own_group = 1;
	o.timeout_s = 0.3;
	o.out_path = o.err_path = "/dev/null";
	struct child_status st;
	char pidfile[] = "/tmp/egg-test-child.XXXXXX";
	int fd = mkstemp(pidfile);
	assert_true(fd >= 0);
	close(fd);
	char *script = egg_xasprintf("sleep 30 & echo $! >%s; wait", pidfile);
	assert_int_equal(sh(script, &o, &st), 0);
	assert_true(st.timed_out);
	assert_false(st.exited);
	assert_true(st.wall_s < 10);
	char *text = NULL;
	size_t len;
	assert_int_equal(fs_read_file(pidfile, 64, &text, &len), 0);
	pid_t left = (pid_t)atoi(text);
	assert_true(left > 0);
	/* the grandchild went with the group (gone, or a zombie left to init) */
	char *stat = egg_xasprintf("/proc/%d/stat", (int)left), *line = NULL;
	int alive = 0;
	for (int i = 0; i < 50; i++) {
		usleep(20 * 1000);
		free(line);
		line = NULL;
		alive = fs_read_file(stat, 4096, &line, &len) == 0 && strstr(line, ") Z ") == NULL;
		if (!alive)
			break;
	}
	assert_false(alive);
	free(line);
	free(stat);
	free(text);
	free(script);
	unlink(pidfile);
}

static void
output_goes_to_files_and_secrets_stay_out(void **state)
{
	char dir[] = "/tmp/egg-test-child.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *log = egg_xasprintf("%s/log", dir);
	setenv("FAKE_API_KEY", "sk-secret", 1);
	setenv("EGG_TEST_PLAIN", "plain", 1);
	char *extra[] = { "EGG_TEST_PLAIN=replaced", "EGG_TEST_NEW=new", NULL };
	struct child_options o = CHILD_OPTIONS_INIT;
	o.out_path = o.err_path = log;
	o.scrub_env = 1;
	o.extra_env = extra;
	struct child_status st;
	assert_int_equal(sh("echo out; echo err >&2; env", &o, &st), 0);
	assert_true(st.exited && st.code == 0);
	char *text = NULL;
	size_t len;
	assert_int_equal(fs_read_file(log, 1 << 20, &text, &len), 0);
	assert_non_null(strstr(text, "out\n"));
	assert_non_null(strstr(text, "err\n"));
	assert_null(strstr(text, "sk-secret"));
	assert_non_null(strstr(text, "EGG_TEST_PLAIN=replaced"));
	assert_null(strstr(text, "EGG_TEST_PLAIN=plain"));
	assert_non_null(strstr(text, "EGG_TEST_NEW=new"));
	free(text);
	/* without scrub_env (egg-cc running nvcc) the environment is the user's */
	o.scrub_env = 0;
	o.extra_env = NULL;
	assert_int_equal(sh("env", &o, &st), 0);
	assert_int_equal(fs_read_file(log, 1 << 20, &text, &len), 0);
	assert_non_null(strstr(text, "FAKE_API_KEY=sk-secret"));
	free(text);
	/* a program that cannot be executed exits 127; an unopenable file is an error */
	char *argv[] = { "/nonexistent/prog", NULL };
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(child_run(argv[0], argv, NULL, &st, &err), 0);
	assert_int_equal(st.code, 127);
	o.out_path = "/nonexistent/dir/log";
	assert_int_equal(child_run("/bin/true", argv, &o, &st, &err), -1);
	assert_non_null(strstr(err.buf, "/nonexistent/dir/log"));
	strbuf_release(&err);
	unsetenv("FAKE_API_KEY");
	unsetenv("EGG_TEST_PLAIN");
	unlink(log);
	rmdir(dir);
	free(log);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_signal_sent_to_the_driver_reaches_its_child),
		cmocka_unit_test(the_driver_ends_as_its_child_ended),
		cmocka_unit_test(a_time_limit_kills_the_whole_group),
		cmocka_unit_test(output_goes_to_files_and_secrets_stay_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
