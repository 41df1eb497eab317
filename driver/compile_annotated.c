/*
 * compile_annotated.c -- see compile_annotated.h.
 *
 * egg-cc itself stays small (libc only: its fast path must cost microseconds), so
 * the pipeline -- analysis with libclang, the cache, the search on the GPU and the
 * rewrite -- runs in a separate process, `egg plan`, next to egg-cc.  A separate
 * process also means that a crash in libclang or in a generator can never take
 * the user's build down: egg-cc notices and compiles the reference.
 *
 * The plan is a small line protocol on the planner's stdout (its stderr is the
 * user's: progress lines and warnings go straight there), plan_protocol.h.
 * After the rewritten compile, its object (or shared library) is held to them
 * (interface.h): a lost or foreign symbol is a fallback to the reference, so a
 * winner never changes what the user's other objects link against.
 * The rewritten source has the input's own basename, so nvcc derives the same
 * default output names; the planner keeps it under the cache directory at a path
 * that only its bytes decide (cache/rewritten.h), so the same winners give the same
 * object, and a compiler_launcher (ccache) run on this compile alone -- never on
 * the fast path or the reference's -- can reuse it.  The launcher stays behind
 * egg-cc: in front of it, it would keep returning an object with a winner that
 * the egg cache has since dropped or replaced.  Quoted includes of the user's file
 * are still found beside it through `-Xcompiler -iquote,DIR` (nvcc preprocesses
 * with the host compiler in every pass), and the depfile is corrected afterwards
 * to name the user's file instead of the temporary one.
 *
 * If the rewritten compile fails, the reference is compiled with the user's exact
 * command line; a warning is printed only when that succeeds (otherwise the error
 * is the user's own, and nvcc's messages say so).  Either way the report, when
 * one is configured, gets records that say which code was compiled: the planner
 * leaves them in the temporary directory, as planned and as fallbacks, and
 * egg-cc appends the set that came true (plan_protocol.h).
 */
#include "config.h"
#include "driver/compile_annotated.h"
#include "driver/interface.h"
#include "common/fsutil.h"
#include "common/child.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/strvec.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct plan_rewrite {
	size_t input;  /* index into args_input_at() */
	char *path;    /* the rewritten source */
	struct strvec exports, known; /* the source's interface (interface.h) */
};

struct plan {
	struct plan_rewrite *rewrites;
	size_t n;
	char *fail; /* strict mode: why the build must stop */
	char *report; /* the report whose records wait in the temporary directory, or NULL */
};

/* A child of the compiler driver: signals aimed at egg-cc reach it, its output
 * goes to out_fd/err_fd (-1: egg-cc's own). */
static int
run_forwarding(const char *path, char *const argv[], int out_fd, int err_fd,
               struct child_status *st, struct strbuf *err)
{
	struct child_options o = CHILD_OPTIONS_INIT;
	o.out_fd = out_fd;
	o.err_fd = err_fd;
	o.forward_signals = 1;
	return child_run(path, argv, &o, st, err);
}

static void
plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->rewrites[i].path);
		strvec_clear(&p->rewrites[i].exports);
		strvec_clear(&p->rewrites[i].known);
	}
	free(p->rewrites);
	free(p->fail);
	free(p->report);
	memset(p, 0, sizeof *p);
}

/* The fields of line after "KEYWORD<TAB>", or NULL when line is not a KEYWORD line. */
static char *
field(char *line, const char *keyword)
{
	size_t n = strlen(keyword);
	return strncmp(line, keyword, n) == 0 && line[n] == '\t' ? line + n + 1 : NULL;
}

/* Parses the planner's output (plan_protocol.h); -1 with a reason when it is not a
 * complete plan. */
static int
plan_parse(char *text, const struct args *a, struct plan *p, struct strbuf *err)
{
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, PLAN_HEADER) != 0) {
		strbuf_addstr(err, "the planner's answer does not start with '" PLAN_HEADER "'");
		return -1;
	}
	int ended = 0;
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *rest;
		if (strcmp(line, PLAN_END) == 0) {
			ended = 1;
			break;
		}
		if ((rest = field(line, PLAN_FAIL))) {
			if (!p->fail)
				p->fail = egg_xstrdup(rest);
			continue;
		}
		if ((rest = field(line, PLAN_REPORT)) && *rest) {
			free(p->report);
			p->report = egg_xstrdup(rest);
			continue;
		}
		char *ex = field(line, PLAN_EXPORT), *kn = field(line, PLAN_KNOWN);
		if (ex || kn) {
			int is_export = ex != NULL;
			char *idx = ex ? ex : kn, *name = strchr(idx, '\t'), *end;
			if (name)
				*name++ = '\0';
			unsigned long i = strtoul(idx, &end, 10);
			struct plan_rewrite *r = NULL;
			for (size_t k = 0; name && !*end && k < p->n; k++)
				if (p->rewrites[k].input == i)
					r = &p->rewrites[k];
			if (!r || !*name) {
				strbuf_addf(err, "the planner's answer names a symbol of input '%s', which it does not rewrite",
				            idx);
				return -1;
			}
			strvec_push(is_export ? &r->exports : &r->known, name);
			continue;
		}
		char *idx = field(line, PLAN_REWRITE), *path = idx ? strchr(idx, '\t') : NULL;
		if (!path) {
			strbuf_addf(err, "the planner's answer has an unknown line '%.60s'", line);
			return -1;
		}
		*path++ = '\0';
		char *end;
		unsigned long i = strtoul(idx, &end, 10);
		if (*end || i >= args_input_count(a) || !*path) {
			strbuf_addf(err, "the planner's answer names input '%s', which does not exist", idx);
			return -1;
		}
		p->rewrites = egg_xrealloc(p->rewrites, (p->n + 1) * sizeof *p->rewrites);
		memset(&p->rewrites[p->n], 0, sizeof p->rewrites[p->n]);
		p->rewrites[p->n].input = i;
		p->rewrites[p->n].path = egg_xstrdup(path);
		p->n++;
	}
	if (!ended) {
		strbuf_addstr(err, "the planner's answer is incomplete");
		return -1;
	}
	return 0;
}

static char *
planner_path(const struct invoke *inv)
{
	const char *env = getenv("EGG_PLANNER");
	if (env && *env)
		return egg_xstrdup(env);
	char *dir = fs_dirname(inv->self);
	char *path = fs_join(dir, "egg");
	free(dir);
	return path;
}

/* Runs `egg plan` with nvcc's arguments; fills p.  Returns 0, -1 with a reason. */
static int
run_planner(const struct invoke *inv, const struct args *a, const char *tmpdir, int keep_temps,
            struct plan *p, struct strbuf *err)
{
	char *planner = planner_path(inv);
	if (!fs_is_executable(planner)) {
		strbuf_addf(err, "the planner %s is missing", planner);
		free(planner);
		return -1;
	}
	struct strvec argv = STRVEC_INIT;
	strvec_push(&argv, planner);
	strvec_push(&argv, "plan");
	strvec_push_owned(&argv, egg_xasprintf("--nvcc=%s", inv->nvcc));
	strvec_push_owned(&argv, egg_xasprintf("--tmpdir=%s", tmpdir));
	for (size_t i = 0; i < inv->egg_opts.n; i++)
		strvec_push(&argv, inv->egg_opts.v[i]);
	strvec_push(&argv, "--");
	for (size_t i = 0; i < inv->args.n; i++)
		strvec_push(&argv, inv->args.v[i]);
	char *out_path = fs_join(tmpdir, "plan.txt");
	int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int rc = -1;
	struct child_status st;
	if (fd < 0) {
		strbuf_addf(err, "cannot create %s: %s", out_path, strerror(errno));
	} else if (run_forwarding(planner, strvec_argv(&argv), fd, -1, &st, err) == 0) {
		close(fd);
		fd = -1;
		if (st.signaled && (st.sig == SIGINT || st.sig == SIGTERM || st.sig == SIGHUP)) {
			/* The user stopped the build: stop as the planner did, leaving nothing */
			if (!keep_temps)
				child_remove_tree(tmpdir);
			child_exit_like(&st);
		}
		char *text;
		size_t len;
		if (!st.exited || st.code != 0)
			strbuf_addf(err, "the planner failed (%s %d)", st.signaled ? "signal" : "exit status",
			            st.signaled ? st.sig : st.code);
		/* the plan lists every name the sources declare (their interface) */
		else if (fs_read_file(out_path, (size_t)1 << 28, &text, &len) < 0)
			strbuf_addf(err, "cannot read the plan: %s", strerror(errno));
		else {
			rc = plan_parse(text, a, p, err);
			free(text);
		}
	}
	if (fd >= 0)
		close(fd);
	free(out_path);
	free(planner);
	strvec_clear(&argv);
	return rc;
}

/* Appends s to sb escaped as make reads a prerequisite (as nvcc writes them). */
static void
add_make_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '#')
			strbuf_addch(sb, '\\');
		if (*s == '$')
			strbuf_addch(sb, '$');
		strbuf_addch(sb, *s);
	}
}

/* 1 if the depfile's text at [hit, hit + n) is a whole prerequisite: after the
 * start, a blank or a line's end, and before a blank, a line's end or a colon. */
static int
whole_prerequisite(const char *text, const char *hit, size_t n)
{
	char before = hit > text ? hit[-1] : ' ', after = hit[n];
	int escaped = hit - text >= 2 && hit[-2] == '\\';
	return (before == ' ' || before == '\t' || before == '\n') && !(before == ' ' && escaped) &&
	       (after == '\0' || after == ' ' || after == '\t' || after == '\n' || after == '\\' ||
	        after == ':' || after == '\r');
}

/* Replaces the rewritten source by the user's in a depfile, whichever way the
 * compiler spelled it: as egg gave it (absolute), or relative to the working
 * directory, as nvcc behind a launcher with a base directory writes it (ccache
 * with base_dir rewrites the paths under it, the depfile's too). */
static void
fix_depfile(const char *depfile, const char *tmp_src, const char *user_src)
{
	char *text;
	size_t len;
	if (fs_read_file(depfile, 64 << 20, &text, &len) < 0)
		return;
	struct strvec forms = STRVEC_INIT;
	strvec_push(&forms, tmp_src);
	char *cwd = getcwd(NULL, 0);
	const char *pwd = getenv("PWD");
	const char *dirs[] = { cwd, pwd && *pwd == '/' && cwd && fs_same_file(pwd, cwd) ? pwd : NULL };
	for (size_t d = 0; d < 2; d++) {
		char *rel = dirs[d] ? fs_relative_path(dirs[d], tmp_src) : NULL;
		if (rel)
			strvec_push_owned(&forms, rel);
	}
	free(cwd);
	struct strbuf to = STRBUF_INIT, out = STRBUF_INIT;
	add_make_escaped(&to, user_src);
	strbuf_add(&out, text, len);
	for (size_t f = 0; f < forms.n; f++) {
		struct strbuf from = STRBUF_INIT, next = STRBUF_INIT;
		add_make_escaped(&from, forms.v[f]);
		const char *p = out.buf, *hit;
		while ((hit = strstr(p, from.buf))) {
			strbuf_add(&next, p, (size_t)(hit - p));
			if (whole_prerequisite(out.buf, hit, from.len))
				strbuf_addstr(&next, to.buf);
			else
				strbuf_add(&next, hit, from.len);
			p = hit + from.len;
		}
		strbuf_addstr(&next, p);
		strbuf_release(&out);
		out = next;
		strbuf_release(&from);
	}
	if (out.len != len || memcmp(out.buf, text, len) != 0)
		if (fs_write_atomic(depfile, out.buf, out.len) < 0)
			egg_warn("cannot correct the dependency file %s: %s", depfile, strerror(errno));
	strvec_clear(&forms);
	strbuf_release(&to);
	strbuf_release(&out);
	free(text);
}

/* Copies a captured stream file to fd. */
static void
replay(const char *path, int fd)
{
	char *text;
	size_t len;
	if (fs_read_file(path, 0, &text, &len) < 0)
		return;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, text + off, len - off);
		if (n <= 0 && errno != EINTR)
			break;
		if (n > 0)
			off += (size_t)n;
	}
	free(text);
}

static int
open_capture(const char *dir, const char *name, char **path)
{
	*path = fs_join(dir, name);
	return open(*path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}


/* The file nvcc wrote for input in that holds its host object, or NULL when the
 * command writes none egg can check (PTX, an archive, a program that -run ran). */
static const char *
host_output(const struct args *a, const struct args_input *in)
{
	switch (args_phase(a)) {
	case ARGS_PHASE_COMPILE:
		return in->output_stdout ? NULL : in->output;
	case ARGS_PHASE_LINK:
		return args_output(a);
	default:
		return NULL;
	}
}

/* 0 when every rewritten input's output keeps its source's interface; -1 with
 * the first difference in why.  Outputs egg cannot read are let through. */
static int
interface_kept(const struct args *a, const struct plan *p, struct strbuf *why)
{
	for (size_t k = 0; k < p->n; k++) {
		const struct args_input *in = args_input_at(a, p->rewrites[k].input);
		const char *out = host_output(a, in);
		if (!out)
			continue;
		struct strbuf w = STRBUF_INIT;
		enum interface_verdict v =
			interface_check(out, &p->rewrites[k].exports, &p->rewrites[k].known, &w);
		if (v == INTERFACE_CHANGED)
			strbuf_addf(why, "the optimized %s would change the interface of %s: %s",
			            args_phase(a) == ARGS_PHASE_COMPILE ? "object" : "library", in->path, w.buf);
		strbuf_release(&w);
		if (v == INTERFACE_CHANGED)
			return -1;
	}
	return 0;
}

/* The launcher's program, its first word found on PATH, with its words pushed on
 * argv; NULL when there is none or it cannot be run (one warning: the build goes on
 * without it). */
static char *
launcher_path(const struct strvec *launcher, struct strvec *argv)
{
	if (!launcher || launcher->n == 0)
		return NULL;
	const char *name = launcher->v[0];
	char *path = strchr(name, '/') ? egg_xstrdup(name) : fs_find_in_path(name, getenv("PATH"), NULL);
	if (!path || !fs_is_executable(path)) {
		egg_warn("egg: the compiler_launcher '%s' cannot be run; compiling without it", name);
		egg_log("compiler_launcher %s not found; compiling without it", name);
		free(path);
		return NULL;
	}
	for (size_t i = 0; i < launcher->n; i++)
		strvec_push(argv, i ? launcher->v[i] : path);
	return path;
}

/* nvcc (behind the launcher, if any) with the plan's sources in place of the user's;
 * 0 when it succeeded, -2 when it did but the result lost the sources' interface (why
 * says how), -1 when it failed. */
static int
compile_rewritten(const struct invoke *inv, const struct args *a, const struct plan *p,
                  const struct strvec *launcher, const char *tmpdir, struct child_status *st,
                  struct strbuf *why)
{
	struct strvec argv = STRVEC_INIT;
	char *prog = launcher_path(launcher, &argv);
	size_t first = argv.n; /* inv->args start at first + 1 */
	strvec_push(&argv, inv->nvcc);
	for (size_t i = 0; i < inv->args.n; i++)
		strvec_push(&argv, inv->args.v[i]);
	for (size_t k = 0; k < p->n; k++) {
		const struct args_input *in = args_input_at(a, p->rewrites[k].input);
		free(argv.v[first + in->span.first + 1]);
		argv.v[first + in->span.first + 1] = egg_xstrdup(p->rewrites[k].path);
		char *dir = fs_dirname(in->path);
		strvec_push(&argv, "-Xcompiler");
		strvec_push_owned(&argv, egg_xasprintf("-iquote,%s", dir));
		free(dir);
	}
	char *out_path, *err_path;
	int ofd = open_capture(tmpdir, "nvcc.out", &out_path);
	int efd = open_capture(tmpdir, "nvcc.err", &err_path);
	struct strbuf err = STRBUF_INIT;
	int ok = ofd >= 0 && efd >= 0 &&
	         run_forwarding(prog ? prog : inv->nvcc, strvec_argv(&argv), ofd, efd, st, &err) == 0 &&
	         st->exited && st->code == 0;
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	int changed = ok && interface_kept(a, p, why) < 0;
	if (ok && !changed) {
		for (size_t k = 0; k < p->n; k++) {
			const struct args_input *in = args_input_at(a, p->rewrites[k].input);
			if (in->depfile && !in->depfile_stdout)
				fix_depfile(in->depfile, p->rewrites[k].path, in->path);
		}
		replay(out_path, STDOUT_FILENO);
		replay(err_path, STDERR_FILENO);
	}
	strbuf_release(&err);
	free(out_path);
	free(err_path);
	free(prog);
	strvec_clear(&argv);
	return changed ? -2 : ok ? 0 : -1;
}

/* Appends the planner's waiting records in tmpdir/file (PLAN_REPORT_*) to the
 * report, when the plan named one; a report that cannot be written is a warning. */
static void
report_outcome(const struct plan *p, const char *tmpdir, const char *file)
{
	if (!p->report)
		return;
	char *path = fs_join(tmpdir, file), *records;
	size_t len;
	const char *step = "read";
	if (fs_read_file(path, 0, &records, &len) == 0) {
		if (len > 0 && fs_append_locked(p->report, records, len, &step) < 0)
			egg_warn("egg: cannot %s the report %s: %s; the build goes on without it", step,
			         p->report, strerror(errno));
		free(records);
	} else {
		egg_warn("egg: cannot read the planned report records %s: %s", path, strerror(errno));
	}
	free(path);
}

/* 1 when every input the plan rewrites was a token of the user's own argv. */
static int
rewritable(const struct args *a, const struct plan *p)
{
	for (size_t k = 0; k < p->n; k++) {
		const struct args_input *in = args_input_at(a, p->rewrites[k].input);
		if (in->span.origin != ARGS_FROM_ARGV || in->span.first < 0)
			return 0;
	}
	return 1;
}

/* Removes this user's egg-cc.* directories in dir that are over a day old: what
 * an egg-cc killed outright (SIGKILL, a power cut) could not clean up.  A live
 * compile's directory is minutes old. */
static void
sweep_stale(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	time_t now = time(NULL);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "egg-cc.", 7) != 0)
			continue;
		char *path = fs_join(dir, e->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
		    now - st.st_mtime > 24 * 3600)
			child_remove_tree(path);
		free(path);
	}
	closedir(d);
}

int
driver_compile_annotated(struct invoke *inv, const struct args *a, const struct strvec *launcher,
                         int keep_temps)
{
	const char *t = getenv("TMPDIR");
	sweep_stale(t && *t ? t : "/tmp");
	char *tmpdir = egg_xasprintf("%s/egg-cc.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		egg_warn("cannot create a temporary directory (%s); compiling the reference", strerror(errno));
		free(tmpdir);
		return invoke_exec(inv);
	}
	struct plan p = { 0 };
	struct strbuf err = STRBUF_INIT;
	int status = -1;
	double t0 = egg_log_now();
	egg_log("%s (%s, %zu inputs): annotated; asking egg plan", args_first_source(a),
	        args_phase_name(args_phase(a)), args_input_count(a));
	if (run_planner(inv, a, tmpdir, keep_temps, &p, &err) < 0) {
		egg_warn("egg: %s; compiling the reference", err.buf);
		egg_log("fallback: %s; compiling the reference", err.buf);
	} else if (p.fail) {
		egg_log("planned in %.3f s; strict mode: %s; the build fails", egg_log_now() - t0, p.fail);
		egg_error("egg: %s", p.fail);
		status = 1;
	} else if (p.n > 0 && !rewritable(a, &p)) {
		egg_warn("egg: an annotated source was named in an options file or NVCC_*_FLAGS, "
		         "which egg does not rewrite; compiling the reference");
		egg_log("fallback: %s", PLAN_REPORT_FALLBACK_OPTIONS_WHY);
		report_outcome(&p, tmpdir, PLAN_REPORT_FALLBACK_OPTIONS);
	} else if (p.n > 0) {
		struct child_status st;
		struct strbuf why = STRBUF_INIT;
		egg_log("planned in %.3f s: %zu inputs rewritten", egg_log_now() - t0, p.n);
		double t_compile = egg_log_now();
		int r = compile_rewritten(inv, a, &p, launcher, tmpdir, &st, &why);
		if (r == 0)
			egg_log("compiled the rewritten sources in %.3f s", egg_log_now() - t_compile);
		else if (r == -2)
			egg_log("fallback: %s; compiling the reference", why.buf);
		else if (!st.signaled)
			egg_log("fallback: %s (nvcc %s %d)", PLAN_REPORT_FALLBACK_COMPILE_WHY,
			        st.exited ? "exit status" : "failed,", st.exited ? st.code : -1);
		if (r == 0) {
			report_outcome(&p, tmpdir, PLAN_REPORT_USED);
			strbuf_release(&why);
			status = 0;
		} else if (r == -2) {
			/* nvcc wrote the outputs; the reference's compile overwrites them */
			report_outcome(&p, tmpdir, PLAN_REPORT_FALLBACK_INTERFACE);
			egg_warn("egg: %s; compiling the reference", why.buf);
			strbuf_release(&why);
		} else if (st.signaled) {
			if (!keep_temps)
				child_remove_tree(tmpdir);
			child_exit_like(&st);
		} else {
			/* Compile the reference; say so only if that works (else the error is the user's).
			 * The winners were not used either way, and the report says so first:
			 * exec-like exits follow. */
			report_outcome(&p, tmpdir, PLAN_REPORT_FALLBACK_COMPILE);
			struct child_status ref;
			strvec_insert(&inv->args, 0, inv->nvcc);
			if (run_forwarding(inv->nvcc, strvec_argv(&inv->args), -1, -1, &ref, &err) < 0) {
				egg_error("%s", err.buf);
				status = 127;
			} else {
				egg_log("the reference compiled in %.3f s: %s %d", egg_log_now() - t_compile,
				        ref.signaled ? "signal" : "exit status", ref.signaled ? ref.sig : ref.code);
				if (ref.exited && ref.code == 0)
					egg_warn("egg: the optimized code did not compile in this build "
					         "(kept in %s with EGG_DEBUG=1); compiled the reference", tmpdir);
				if (!keep_temps)
					child_remove_tree(tmpdir);
				child_exit_like(&ref);
			}
		}
	}
	if (!keep_temps)
		child_remove_tree(tmpdir);
	else
		egg_warn("egg: temporary files kept in %s", tmpdir);
	free(tmpdir);
	if (status < 0 && p.n == 0 && !err.len)
		egg_log("planned in %.3f s: nothing rewritten; nvcc compiles the sources as they are",
		        egg_log_now() - t0);
	if (status < 0)
		egg_log("running nvcc on the build's own command line");
	else if (status == 0)
		egg_log("done in %.3f s", egg_log_now() - t0);
	plan_release(&p);
	strbuf_release(&err);
	if (status >= 0)
		return status;
	return invoke_exec(inv);
}
