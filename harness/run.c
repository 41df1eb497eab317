/*
 * run.c -- compiles, runs and judges evaluation programs (see run.h).
 *
 * The order of work keeps the expensive and the dangerous parts last: the probe
 * (cached binary, a fraction of a second) says whether there is a GPU at all
 * before anything is compiled; the reference and main are compiled once; each
 * candidate is screened before it is compiled and compiled before it holds the
 * GPU lock, so the lock is held only while a program runs.  With several GPUs of
 * the same architecture, the programs run in parallel, one worker process and
 * one lock per GPU.  (toolchain.c builds and launches programs; probe.c finds
 * the GPUs.)
 */
#include "config.h"
#include "harness/run_int.h"
#include "harness/gen.h"
#include "harness/prepared.h"
#include "harness/sandbox.h"
#include "harness/screen.h"
#include "common/child.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* ---- one candidate ---- */

static cJSON *
run_new_candidate(const char *name)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddNullToObject(o, "verdict");
	cJSON_AddNullToObject(o, "message");
	cJSON_AddNullToObject(o, "compile_log");
	cJSON_AddArrayToObject(o, "resources");
	cJSON_AddNullToObject(o, "speedup");
	cJSON_AddNullToObject(o, "speedup_geomean");
	cJSON_AddNullToObject(o, "total_ms");
	cJSON_AddArrayToObject(o, "workloads");
	cJSON_AddNullToObject(o, "run");
	cJSON_AddNumberToObject(o, "wall_s", 0);
	cJSON_AddNullToObject(o, "domain");
	return o;
}

static void
run_verdict(cJSON *cand, const char *verdict, const char *message)
{
	cJSON_ReplaceItemInObject(cand, "verdict", cJSON_CreateString(verdict));
	cJSON_ReplaceItemInObject(cand, "message",
	                          message ? cJSON_CreateString(message) : cJSON_CreateNull());
}

/* The candidate's validity domain from the program's "domain" (the probe calls
 * it was checked on, runtime.cuh), with a sentence for the report. */
static void
run_domain(cJSON *cand, const cJSON *j, size_t n_probes)
{
	const cJSON *d = cJSON_GetObjectItem(j, "domain");
	struct strbuf m = STRBUF_INIT;
	cJSON *o = cJSON_CreateObject();
	if (!cJSON_IsObject(d)) {
		cJSON_AddNumberToObject(o, "probes", (double)n_probes);
		cJSON_AddNumberToObject(o, "checked", 0);
		strbuf_addstr(&m, n_probes ? "the probe calls were not run"
		                           : "the named workloads (no size scalar to probe)");
	} else {
		int n = cJSON_GetObjectItem(d, "probes") ? cJSON_GetObjectItem(d, "probes")->valueint : 0;
		int k = cJSON_GetObjectItem(d, "checked") ? cJSON_GetObjectItem(d, "checked")->valueint : 0;
		int skipped = cJSON_GetArraySize(cJSON_GetObjectItem(d, "skipped"));
		const cJSON *stop = cJSON_GetObjectItem(d, "stopped");
		cJSON_Delete(o);
		o = cJSON_Duplicate(d, 1);
		if (k == n)
			strbuf_addf(&m, "every call: right on all %d probe calls besides the named workloads", n);
		else if (k + skipped == n || cJSON_IsString(stop))
			strbuf_addf(&m, "every call the reference itself handles: right on %d of %d probe "
			            "calls (%d outside the reference's domain%s)", k, n, skipped,
			            cJSON_IsString(stop) ? ", then the reference failed" : "");
		else
			strbuf_addf(&m, "the named workloads: right on %d of %d probe calls before one "
			            "failed", k, n);
	}
	cJSON_AddStringToObject(o, "summary", m.buf);
	cJSON_ReplaceItemInObject(cand, "domain", o);
	strbuf_release(&m);
}

/* Judges the program's JSON (or its absence) into the candidate's verdict. */
static void
run_judge(struct run_ctx *c, cJSON *cand, cJSON *j, const struct child_status *st,
          const char *output, int self)
{
	struct strbuf m = STRBUF_INIT;
	const cJSON *status = cJSON_GetObjectItem(j, "status");
	const cJSON *msg = cJSON_GetObjectItem(j, "message");
	const char *s = cJSON_IsString(status) ? status->valuestring : NULL;
	if (st->timed_out) {
		strbuf_addstr(&m, "the program ");
		child_describe(st, &m);
		run_verdict(cand, "timeout", m.buf);
	} else if (!s) {
		strbuf_addstr(&m, "the program ");
		child_describe(st, &m);
		strbuf_addstr(&m, " without a result");
		if (output && *output)
			strbuf_addf(&m, "; its output ends: %s", output);
		run_verdict(cand, "crash", m.buf);
	} else if (strcmp(s, "ok") == 0) {
		struct run_summary sum;
		run_summarize(j, c->ceilings, &sum);
		double sp = sum.speedup;
		double min = c->opt->min_speedup > 0 ? c->opt->min_speedup : 1.03;
		run_store_summary(cand, &sum);
		if (self || c->opt->no_timing || sp >= min) {
			run_verdict(cand, "pass", NULL);
		} else {
			strbuf_addf(&m, "correct, but %.3gx the reference's speed over its workloads' "
			            "total time (needs %.3gx)", sp, min);
			run_verdict(cand, "slower", m.buf);
		}
	} else if (strcmp(s, "wrong") == 0 || strcmp(s, "cuda_error") == 0) {
		const char *t = cJSON_IsString(msg) ? msg->valuestring : NULL;
		const char *at = t ? strstr(t, "probe ") : NULL;
		if (at && (at == t || (strcmp(s, "cuda_error") == 0 && at[-1] == '('))) {
			/* right at every named workload, wrong at a probe call */
			strbuf_addf(&m, "right at the named workloads only (specialized to them?): %s", t);
			run_verdict(cand, s, m.buf);
		} else {
			run_verdict(cand, s, t);
		}
	} else if (strcmp(s, "no_gpu") == 0) {
		run_verdict(cand, "error", "the GPU went away");
		run_set_status(c, "no_gpu", cJSON_IsString(msg) ? msg->valuestring : "no GPU");
	} else {
		strbuf_addf(&m, "%s: %s", s, cJSON_IsString(msg) ? msg->valuestring : "(no message)");
		run_verdict(cand, "error", m.buf);
	}
	if (output && *output && s)
		cJSON_AddStringToObject(cand, "output", output);
	if (s)
		run_domain(cand, j, gen_n_probes(c->b));
	strbuf_release(&m);
}

/* compute-sanitizer's memcheck (with exact allocations, so that a read one
 * element past a buffer is outside it) and racecheck on a passing candidate. */
static void
run_sanitize(struct run_ctx *c, const char *stem, cJSON *cand)
{
	char *bindir = fs_dirname(c->nvcc), *home = fs_dirname(bindir);
	/* bin/compute-sanitizer is a shell script that runs the real program in
	 * CUDA's compute-sanitizer directory with readlink and dirname, which a
	 * confined process may not run (seen on the H200): the program itself
	 * where it is there */
	char *san = egg_xasprintf("%s/compute-sanitizer/compute-sanitizer", home);
	if (!fs_is_executable(san)) {
		free(san);
		san = fs_join(bindir, "compute-sanitizer");
	}
	char *exe = egg_xasprintf("%s/%s.exe", c->dir, stem);
	/* confined, compute-sanitizer may run its own programs (beside it, where a
	 * link leads, and in CUDA's compute-sanitizer directory) and the candidate's */
	char *real = realpath(san, NULL);
	char *tree[] = { exe, real ? fs_dirname(real) : NULL, fs_join(home, "compute-sanitizer"), NULL };
	if (!tree[1])
		tree[1] = tree[2], tree[2] = NULL;
	cJSON *o = cJSON_AddObjectToObject(cand, "sanitizer");
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT, unsafe = STRBUF_INIT;
	static const char *const tools[] = { "memcheck", "racecheck" };
	for (int t = 0; t < 2; t++) {
		if (!fs_is_executable(san)) {
			cJSON_AddStringToObject(o, tools[t], "unavailable");
			continue;
		}
		struct strvec args = STRVEC_INIT;
		strvec_push(&args, "--tool");
		strvec_push(&args, tools[t]);
		strvec_push(&args, "--error-exitcode");
		strvec_push(&args, "99");
		strvec_push(&args, "--print-limit");
		strvec_push(&args, "20");
		/* it talks to its target over TCP: a port of its own, which the
		 * sandbox opens for this run only */
		c->tcp_port = (unsigned short)(20000 + (unsigned)getpid() % 20000 + 8u * (unsigned)t);
		c->tcp_ports = 8;
		strvec_push(&args, "--port");
		strvec_push_owned(&args, egg_xasprintf("%u", c->tcp_port));
		strvec_push(&args, exe);
		strvec_push(&args, "--no-timing");
		strvec_push(&args, "--no-guards");
		strvec_push(&args, "--trials");
		strvec_push(&args, "2");
		strvec_push(&args, "--seed");
		strvec_push_owned(&args, egg_xasprintf("%llu", c->seed));
		char *tstem = egg_xasprintf("%s.%s", stem, tools[t]);
		struct child_status st;
		char *output = NULL;
		int fd = proc_gpu_lock(c->gpu_key, &err);
		double limit = (c->opt->timeout_s > 0 ? c->opt->timeout_s : 120) * 20;
		cJSON *j = run_program(c, san, &args, tstem, c->gpus[0].visible, limit > 600 ? 600 : limit,
		                       (const char *const *)tree, &st, &output, &err);
		proc_gpu_unlock(fd);
		c->tcp_port = c->tcp_ports = 0;
		const cJSON *status = cJSON_GetObjectItem(j, "status");
		const char *state = "unavailable";
		if (st.exited && st.code == 99) {
			state = "errors";
			strbuf_addf(&unsafe, "%s%s", unsafe.len ? " and " : "", tools[t]);
		} else if (st.exited && st.code == 0 && cJSON_IsString(status)) {
			state = "clean";
		}
		cJSON_AddStringToObject(o, tools[t], state);
		strbuf_addf(&log, "== %s ==\n%s\n", tools[t], output ? output : err.buf);
		strbuf_reset(&err);
		cJSON_Delete(j);
		free(output);
		free(tstem);
		strvec_clear(&args);
	}
	cJSON_AddStringToObject(o, "log", log.buf);
	if (unsafe.len) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addf(&m, "correct and fast, but compute-sanitizer's %s found errors (see "
		            "sanitizer.log)", unsafe.buf);
		run_verdict(cand, "unsafe", m.buf);
		strbuf_release(&m);
	}
	strbuf_release(&log);
	strbuf_release(&err);
	strbuf_release(&unsafe);
	free(tree[1]);
	free(tree[2]);
	free(real);
	free(home);
	free(exe);
	free(san);
	free(bindir);
}

/* Screens, generates, compiles and links candidate k.  Returns 1 when its
 * program is ready to run; otherwise the candidate has its verdict. */
static int
run_build(struct run_ctx *c, size_t k, const struct run_candidate *rc, int self, cJSON *cand)
{
	struct strbuf err = STRBUF_INIT, src = STRBUF_INIT;
	char stem[32];
	snprintf(stem, sizeof stem, "cand%zu", k);
	char *log = NULL;
	int ready = 0, screened = 0;
	/* EGG_TEST_UNSCREENED=1 (tests only): hostile candidates reach the sandbox */
	const char *unscreened = getenv("EGG_TEST_UNSCREENED");
	if (!self && !(unscreened && strcmp(unscreened, "1") == 0)) {
		struct strvec clang_args = STRVEC_INIT;
		screen_clang_args(c->flags.v, c->flags.n, &clang_args);
		screened = screen_candidate_unit(c->b, rc->source, (const char *const *)strvec_argv(&clang_args),
		                                 &err);
		strvec_clear(&clang_args);
		if (screened < 0) {
			run_verdict(cand, "rejected", err.buf);
			goto out;
		}
	}
	int ok = 1;
	if (self) {
		/* the reference against itself: ref.o already holds it, under a weak
		 * candidate entry (gen_unit); its compile log and resources are the
		 * reference's */
		const cJSON *r = cJSON_GetObjectItem(c->result, "reference");
		const cJSON *l = cJSON_GetObjectItem(r, "compile_log");
		cJSON_ReplaceItemInObject(cand, "compile_log",
		                          cJSON_CreateString(cJSON_IsString(l) ? l->valuestring : ""));
		cJSON_ReplaceItemInObject(cand, "resources",
		                          cJSON_Duplicate(cJSON_GetObjectItem(r, "resources"), 1));
	} else {
		char *path = egg_xasprintf("%s/%s.cu", c->dir, stem);
		ok = gen_unit(c->b, rc->source, GEN_CAND_ENTRY, &src, &err) == 0 &&
		     run_write(path, src.buf, &err) == 0;
		free(path);
		if (!ok) {
			run_verdict(cand, "error", err.buf);
			goto out;
		}
		char *arch_flag = egg_xasprintf("-arch=%s", c->arch);
		ok = run_compile(c, stem, arch_flag, 0, &log) == 0;
		free(arch_flag);
		cJSON_ReplaceItemInObject(cand, "compile_log", cJSON_CreateString(log));
		cJSON *res = run_parse_ptxas(log);
		run_demangle(c, res);
		cJSON_ReplaceItemInObject(cand, "resources", res);
		if (!ok) {
			run_verdict(cand, "compile_error", "the candidate does not compile");
			goto out;
		}
		if (screened > 0) {
			/* it compiles with a name the screen could not see */
			run_verdict(cand, "rejected", err.buf);
			goto out;
		}
		free(log);
		log = NULL;
	}
	if (run_link(c, stem, self, &log) < 0) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addf(&m, "the candidate does not link: %s", log);
		run_verdict(cand, "compile_error", m.buf);
		strbuf_release(&m);
		goto out;
	}
	if (c->opt->compile_only)
		run_verdict(cand, "compiled", NULL);
	else
		ready = 1;
out:
	free(log);
	strbuf_release(&err);
	strbuf_release(&src);
	return ready;
}

/* How many candidates compile at once: one nvcc per core (nvcc is
 * single-threaded and most of a search's wall time), at most 16. */
static int
run_build_jobs(size_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long jobs = cpus > 0 ? cpus : 1;
	if (jobs > 16)
		jobs = 16;
	return (int)(jobs < (long)n ? jobs : (long)n);
}

/* Builds every candidate (run_build), in parallel worker processes when there
 * are several cores: worker w takes every jobs-th candidate and leaves each
 * one's JSON in candK.build ("1" or "0" for ready, a newline, the object); the
 * parent reads them back in order, so the result does not depend on which
 * worker finished first.  A worker that dies leaves its candidates "error". */
static void
run_build_all(struct run_ctx *c, const struct run_candidate *cands, size_t n, int self,
              cJSON *list, size_t *ready, size_t *n_ready)
{
	int jobs = run_build_jobs(n);
	*n_ready = 0;
	if (jobs <= 1) {
		for (size_t k = 0; k < n; k++) {
			if (run_build(c, k, &cands[k], self, cJSON_GetArrayItem(list, (int)k)))
				ready[(*n_ready)++] = k;
			run_progress_note(c, "compile", k + 1, n);
		}
		return;
	}
	fflush(NULL);
	pid_t *pids = egg_xcalloc((size_t)jobs, sizeof *pids);
	for (int w = 0; w < jobs; w++) {
		pids[w] = fork();
		if (pids[w] != 0)
			continue;
		for (size_t k = (size_t)w; k < n; k += (size_t)jobs) {
			cJSON *cand = cJSON_GetArrayItem(list, (int)k);
			int r = run_build(c, k, &cands[k], self, cand);
			char *json = cJSON_PrintUnformatted(cand);
			char *text = egg_xasprintf("%d\n%s", r, json);
			char *path = egg_xasprintf("%s/cand%zu.build", c->dir, k);
			fs_write_atomic(path, text, strlen(text));
			free(path);
			free(text);
			cJSON_free(json);
		}
		_exit(0);
	}
	run_progress_wait(c, pids, jobs, "compile", NULL, n, "build");
	for (size_t k = 0; k < n; k++) {
		cJSON *cand = cJSON_GetArrayItem(list, (int)k);
		if (pids[k % (size_t)jobs] < 0) { /* no worker: build it here */
			if (run_build(c, k, &cands[k], self, cand))
				ready[(*n_ready)++] = k;
			continue;
		}
		char *path = egg_xasprintf("%s/cand%zu.build", c->dir, k), *text = NULL;
		size_t len;
		cJSON *built = NULL;
		if (fs_read_file(path, 64u << 20, &text, &len) == 0 && (text[0] == '0' || text[0] == '1') &&
		    text[1] == '\n')
			built = cJSON_Parse(text + 2);
		if (built) {
			cJSON_ReplaceItemInArray(list, (int)k, built);
			if (text[0] == '1')
				ready[(*n_ready)++] = k;
		} else {
			run_verdict(cand, "error", "the process that compiled this candidate died");
		}
		free(text);
		free(path);
	}
	free(pids);
}

/* Runs candidate k's program on GPU g under that GPU's lock and leaves how it
 * ended in candK.status ("EXITED CODE SIGNAL TIMED_OUT WALL_S", or "error:
 * SENTENCE"), its JSON and output beside it: this may run in a worker process. */
static void
run_exec(struct run_ctx *c, size_t k, int self, int g)
{
	char stem[32];
	snprintf(stem, sizeof stem, "cand%zu", k);
	struct strvec args = STRVEC_INIT;
	strvec_push(&args, "--seed");
	strvec_push_owned(&args, egg_xasprintf("%llu", c->seed));
	strvec_push(&args, "--trials");
	strvec_push_owned(&args, egg_xasprintf("%d", c->opt->trials > 0 ? c->opt->trials : 3));
	if (c->opt->no_timing)
		strvec_push(&args, "--no-timing");
	if (self)
		strvec_push(&args, "--self-check");
	char *exe = egg_xasprintf("%s/%s.exe", c->dir, stem);
	struct child_status st;
	struct strbuf err = STRBUF_INIT, status = STRBUF_INIT;
	int fd = proc_gpu_lock(c->gpus[g].uuid, &err);
	static const char *const only_itself[] = { NULL };
	if (fd >= 0 && run_launch(c, exe, &args, stem, c->gpus[g].visible,
	                          c->opt->timeout_s > 0 ? c->opt->timeout_s : 120, only_itself, &st,
	                          &err) == 0)
		strbuf_addf(&status, "%d %d %d %d %.6f\n", st.exited, st.code, st.sig,
		            st.timed_out, st.wall_s);
	else
		strbuf_addf(&status, "error: %s", err.buf);
	proc_gpu_unlock(fd);
	char *path = egg_xasprintf("%s/%s.status", c->dir, stem);
	fs_write_atomic(path, status.buf, status.len);
	free(path);
	free(exe);
	strvec_clear(&args);
	strbuf_release(&err);
	strbuf_release(&status);
}

/* Reads what run_exec left and turns it into candidate k's verdict. */
static void
run_finish(struct run_ctx *c, size_t k, int self, cJSON *cand)
{
	char stem[32];
	snprintf(stem, sizeof stem, "cand%zu", k);
	char *path = egg_xasprintf("%s/%s.status", c->dir, stem);
	char *text = NULL;
	size_t len;
	struct child_status st;
	memset(&st, 0, sizeof st);
	if (fs_read_file(path, 1 << 16, &text, &len) < 0) {
		run_verdict(cand, "error", "the program's run left no status (its worker died)");
	} else if (egg_str_starts(text, "error: ")) {
		run_verdict(cand, "error", text + 7);
	} else if (sscanf(text, "%d %d %d %d %lf", &st.exited, &st.code, &st.sig,
	                  &st.timed_out, &st.wall_s) != 5) {
		run_verdict(cand, "error", "the program's run left an unreadable status");
	} else {
		st.signaled = st.sig != 0;
		char *output = NULL;
		cJSON *j = run_collect(c, stem, &output);
		run_judge(c, cand, j, &st, output, self);
		cJSON_ReplaceItemInObject(cand, "wall_s", cJSON_CreateNumber(st.wall_s));
		if (j)
			cJSON_ReplaceItemInObject(cand, "run", j);
		const cJSON *v = cJSON_GetObjectItem(cand, "verdict");
		if (c->opt->sanitize && cJSON_IsString(v) && strcmp(v->valuestring, "pass") == 0)
			run_sanitize(c, stem, cand);
		if (c->opt->profile && !self && cJSON_IsString(v) &&
		    (strcmp(v->valuestring, "pass") == 0 || strcmp(v->valuestring, "slower") == 0))
			run_profile(c, stem, cand);
		free(output);
	}
	free(text);
	free(path);
}

/* Runs the ready programs: one after the other on one GPU, each judged as soon
 * as it ran (judged[i] set), or one worker process per GPU, each taking every
 * n-th program, on several (judged afterwards, by the caller). */
static void
run_exec_all(struct run_ctx *c, const size_t *ready, size_t n, int self, cJSON *list, int *judged)
{
	int workers = c->n_gpus < (int)n ? c->n_gpus : (int)n;
	if (workers <= 1) {
		for (size_t i = 0; i < n; i++) {
			run_exec(c, ready[i], self, 0);
			run_finish(c, ready[i], self, cJSON_GetArrayItem(list, (int)ready[i]));
			judged[i] = 1;
			run_progress_note(c, "run", i + 1, n);
		}
		return;
	}
	fflush(NULL);
	pid_t pids[RUN_MAX_GPUS];
	for (int g = 0; g < workers; g++) {
		pids[g] = fork();
		if (pids[g] == 0) {
			for (size_t i = (size_t)g; i < n; i += (size_t)workers)
				run_exec(c, ready[i], self, g);
			_exit(0);
		}
		if (pids[g] < 0) /* no worker: this process does that share */
			for (size_t i = (size_t)g; i < n; i += (size_t)workers)
				run_exec(c, ready[i], self, g);
	}
	run_progress_wait(c, pids, workers, "run", ready, n, "status");
}

/* ---- the whole evaluation ---- */

/* The layers candidates' programs run under (the result's "sandbox"), and one
 * warning per process when the machine lacks some of them. */
static void
run_sandbox_setting(struct run_ctx *c)
{
	static int warned;
	if (c->opt->compile_only)
		return; /* nothing runs */
	struct strbuf m = STRBUF_INIT;
	c->sandbox = c->opt->no_sandbox ? 0 : sandbox_available();
	if (c->opt->no_sandbox) {
		strbuf_addstr(&m, "off (the sandbox setting)");
	} else {
		sandbox_describe(c->sandbox, &m);
		unsigned missing = SANDBOX_ALL & ~c->sandbox;
		if (missing && !warned) {
			struct strbuf w = STRBUF_INIT;
			sandbox_describe(missing, &w);
			egg_warn("this kernel does not offer %s: candidates' programs run without that "
			         "containment (Landlock ABI %d)", w.buf, sandbox_landlock_abi());
			strbuf_release(&w);
			warned = 1;
		}
	}
	cJSON_ReplaceItemInObject(c->result, "sandbox", cJSON_CreateString(m.buf));
	strbuf_release(&m);
}

static char *
run_nonce(void)
{
	unsigned char r[8] = { 0 };
	FILE *f = fopen("/dev/urandom", "rb");
	if (!f || fread(r, 1, sizeof r, f) != sizeof r) {
		unsigned long long x = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
		memcpy(r, &x, sizeof r);
	}
	if (f)
		fclose(f);
	return egg_xasprintf("%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5],
	                     r[6], r[7]);
}

/* The reference (ref.cu), its float64 twin (ref64.cu, gen_unit_f64) where it
 * applies, and the program's main (main.cu), all calling the reference by ENTRY. */
static int
run_gen_reference(struct run_ctx *c, const char *entry, struct strbuf *ref, struct strbuf *mainsrc,
                  struct strbuf *f64, struct strbuf *why, int *f64_ok, struct strbuf *err)
{
	strbuf_reset(ref);
	strbuf_reset(mainsrc);
	strbuf_reset(f64);
	strbuf_reset(why);
	if (gen_unit(c->b, c->b->target, entry, ref, err) < 0 ||
	    gen_main(c->b, entry, c->opt->flops, c->opt->n_flops, mainsrc, err) < 0)
		return -1;
	char *entry64 = egg_xasprintf("%s" GEN_F64_SUFFIX, entry);
	*f64_ok = gen_unit_f64(c->b, entry64, f64, why) == 0;
	free(entry64);
	return 0;
}

/* main.cu holds no device code, and its CUDA compile is nvcc's fixed cost
 * (~1.5 s: cudafe++, cicc and ptxas over an empty device side, and more with a
 * library's headers: CUB's take ~15 s); as host C++ (nvcc -x c++) it takes
 * ~0.15 s.  The two can differ only where the code tests the compiler
 * (__CUDACC__, __NVCC__, __CUDA_ARCH__ ...), so main.cu is compiled as host code
 * where its text (the closure's macros and conditionals) names no such macro:
 *  - with the bundle's includes where they are all system headers of the host
 *    kind (<math.h>, <cuda_fp16.h>);
 *  - else, or where that fails (a header with device code), without them: a
 *    user's header (a quoted #include) might test the compiler, and a library's
 *    device-side headers (a path: <cub/cub.cuh>, <cuda/pipeline>; a .cuh;
 *    cooperative groups) fail as host code after seconds of parsing.  main needs
 *    a header only where a clause expression names something declared there and
 *    not in the closure; then the compile fails at once (an undeclared name) and
 *    main.cu is written again with its includes.
 * Where the host compile fails, main.cu compiles as CUDA with its includes.  The
 * reference's "main" says which ("host", "host without the bundle's includes",
 * "cuda").  Which way compiles is a question of time: a clause's value cannot
 * depend on it short of a header that redefines what the closure declares. */
static int
run_includes_are_host_headers(const struct egg_bundle *b)
{
	for (size_t i = 0; i < b->n_includes; i++) {
		const char *h = b->includes[i];
		size_t n = strlen(h);
		if (h[0] != '<' || strchr(h, '/') || (n > 5 && strcmp(h + n - 5, ".cuh>") == 0) ||
		    egg_str_starts(h, "<cooperative_groups"))
			return 0;
	}
	return 1;
}

static int
run_names_the_compiler(const char *src)
{
	return strstr(src, "__CUDA") || strstr(src, "__NVCC");
}

static int
run_compile_main(struct run_ctx *c, const char *entry, const char *mainsrc, const char *arch_flag,
                 int keep, cJSON *r, char **log)
{
	if (!run_names_the_compiler(mainsrc)) {
		struct strbuf bare = STRBUF_INIT, err = STRBUF_INIT;
		char *path = egg_xasprintf("%s/main.cu", c->dir);
		int bare_written = 0, ok = 0;
		if (run_includes_are_host_headers(c->b) &&
		    run_compile_as(c, "main", arch_flag, keep, 1, log) == 0) {
			cJSON_AddStringToObject(r, "main", "host");
			ok = 1;
		} else if (c->b->n_includes &&
		           gen_main_without_includes(c->b, entry, c->opt->flops, c->opt->n_flops, &bare,
		                                     &err) == 0 && !run_names_the_compiler(bare.buf) &&
		           (bare_written = run_write(path, bare.buf, &err) == 0)) {
			free(*log);
			*log = NULL;
			if (run_compile_as(c, "main", arch_flag, keep, 1, log) == 0) {
				cJSON_AddStringToObject(r, "main", "host without the bundle's includes");
				ok = 1;
			}
		}
		if (!ok) {
			free(*log);
			*log = NULL;
			/* back to the text with its includes, for the CUDA compile */
			strbuf_reset(&err);
			if (bare_written && run_write(path, mainsrc, &err) < 0) {
				*log = egg_xstrdup(err.buf);
				ok = -1;
			}
		}
		strbuf_release(&bare);
		strbuf_release(&err);
		free(path);
		if (ok)
			return ok > 0 ? 0 : -1;
	}
	if (run_compile(c, "main", arch_flag, keep, log) < 0)
		return -1;
	cJSON_AddStringToObject(r, "main", "cuda");
	return 0;
}

/* Generates runtime.cu and compiles it, or takes its object from an earlier
 * evaluation with the same toolchain and flags (prepared.h); the reference's
 * "runtime" says which.  0, or -1 with the status set. */
static int
run_prepare_runtime(struct run_ctx *c, cJSON *r, const char *arch_flag)
{
	struct strbuf src = STRBUF_INIT, err = STRBUF_INIT;
	struct prepared pp;
	char *path = egg_xasprintf("%s/runtime.cu", c->dir), *log = NULL;
	int rc = -1, keep, reused;
	gen_runtime(&src);
	keep = prepared_begin_runtime(&pp, c->cache, c->nvcc, c->flags.v, c->flags.n, c->arch,
	                              src.buf) == 0;
	if (run_write(path, src.buf, &err) < 0) {
		run_set_status(c, "error", err.buf);
		goto out;
	}
	reused = keep && prepared_lookup(&pp) == 1 && prepared_fetch(&pp, c->dir, NULL) == 0;
	if (!reused && run_compile(c, "runtime", arch_flag, keep, &log) < 0) {
		cJSON_AddStringToObject(r, "runtime_compile_log", log);
		run_set_status(c, "error", "the harness's runtime does not compile with the build's "
		               "flags (see reference.runtime_compile_log)");
		goto out;
	}
	cJSON_AddStringToObject(r, "runtime", reused ? "reused" : "compiled");
	if (keep && !reused)
		prepared_store(&pp, c->dir, 0);
	rc = 0;
out:
	prepared_release(&pp);
	free(log);
	free(path);
	strbuf_release(&src);
	strbuf_release(&err);
	return rc;
}

/* The reference and its float64 twin in one unit (gen_unit_f64_appended): one
 * nvcc run instead of two (its fixed cost, ~1.5 s, is the headers' parse and
 * the host compile, paid once).  ref.cu holds both where that compiles, and
 * "ref64.in-ref" says so (prepared.c keeps it with the objects); else ref.cu is
 * written back alone and the caller compiles the two apart.  0 or -1. */
static int
run_compile_with_twin(struct run_ctx *c, const char *entry, const char *refsrc,
                      const char *arch_flag, int keep, char **log)
{
	struct strbuf both = STRBUF_INIT, why = STRBUF_INIT;
	char *entry64 = egg_xasprintf("%s" GEN_F64_SUFFIX, entry);
	char *refp = egg_xasprintf("%s/ref.cu", c->dir), *mark = egg_xasprintf("%s/ref64.in-ref", c->dir);
	int rc = -1;
	strbuf_addstr(&both, refsrc);
	if (gen_unit_f64_appended(c->b, entry64, &both, &why) == 0 &&
	    run_write(refp, both.buf, &why) == 0) {
		rc = run_compile(c, "ref", arch_flag, keep, log);
		if (rc == 0)
			rc = run_write(mark, "the float64 twin is compiled into ref.o\n", &why);
		if (rc < 0) {
			free(*log);
			*log = NULL;
			if (run_write(refp, refsrc, &why) < 0)
				*log = egg_xstrdup(why.buf);
		}
	}
	strbuf_release(&both);
	strbuf_release(&why);
	free(entry64);
	free(refp);
	free(mark);
	return rc;
}

/* The twin's kernels, compiled into ref.o with the reference's, are not the
 * reference's resources. */
static void
run_drop_twin_resources(cJSON *res)
{
	for (int i = cJSON_GetArraySize(res) - 1; i >= 0; i--) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(res, i), "function");
		if (cJSON_IsString(f) && strstr(f->valuestring, "7" GEN_F64_NAMESPACE))
			cJSON_DeleteItemFromArray(res, i);
	}
}

/* Generates and compiles ref.cu, ref64.cu and main.cu, or takes their objects
 * from an earlier evaluation of the same bundle (prepared.h).  The twin's failure
 * only leaves it out, and the reference's "float64" says what came of it.  0, or
 * -1 with the status set. */
static int
run_prepare_reference(struct run_ctx *c)
{
	struct strbuf err = STRBUF_INIT, ref = STRBUF_INIT, mainsrc = STRBUF_INIT;
	struct strbuf f64 = STRBUF_INIT, why = STRBUF_INIT;
	struct prepared pp;
	char *refp = egg_xasprintf("%s/ref.cu", c->dir), *mainp = egg_xasprintf("%s/main.cu", c->dir);
	char *f64p = egg_xasprintf("%s/ref64.cu", c->dir);
	char *arch_flag = egg_xasprintf("-arch=%s", c->arch);
	char *log = NULL, *nonce = NULL, *entry = NULL;
	int rc = -1, f64_ok = 0, keep = 0, reused = 0, twin_in_ref = 0;
	/* the sources under a placeholder name give the key, the key the real name */
	if (run_gen_reference(c, "egg_entry_ref_0000000000000000", &ref, &mainsrc, &f64, &why,
	                      &f64_ok, &err) < 0) {
		run_set_status(c, "error", err.buf);
		memset(&pp, 0, sizeof pp);
		goto out;
	}
	keep = prepared_begin(&pp, c->cache, c->nvcc, c->flags.v, c->flags.n, c->arch, ref.buf,
	                      mainsrc.buf, f64_ok ? f64.buf : NULL) == 0;
	nonce = keep ? egg_xstrdup(pp.nonce) : run_nonce();
	entry = egg_xasprintf("egg_entry_ref_%s", nonce);
	if (run_gen_reference(c, entry, &ref, &mainsrc, &f64, &why, &f64_ok, &err) < 0 ||
	    run_write(refp, ref.buf, &err) < 0 || run_write(mainp, mainsrc.buf, &err) < 0 ||
	    (f64_ok && run_write(f64p, f64.buf, &err) < 0)) {
		run_set_status(c, "error", err.buf);
		goto out;
	}
	reused = keep && prepared_lookup(&pp) == 1 && prepared_fetch(&pp, c->dir, &c->have_f64) == 0;
	cJSON *r = cJSON_CreateObject();
	cJSON_ReplaceItemInObject(c->result, "reference", r);
	if (reused) {
		char *lp = egg_xasprintf("%s/ref.log", c->dir);
		log = run_read_tail(lp, RUN_LOG_MAX);
		free(lp);
	} else if (!(twin_in_ref = f64_ok && run_compile_with_twin(c, entry, ref.buf, arch_flag,
	                                                           keep, &log) == 0) &&
	           run_compile(c, "ref", arch_flag, keep, &log) < 0) {
		cJSON_AddStringToObject(r, "compile_log", log);
		run_set_status(c, "error", "the reference does not compile in the harness "
		               "(see reference.compile_log)");
		goto out;
	}
	cJSON_AddStringToObject(r, "compile_log", log ? log : "");
	cJSON *res = run_parse_ptxas(log ? log : "");
	run_drop_twin_resources(res);
	run_demangle(c, res);
	cJSON_AddItemToObject(r, "resources", res);
	free(log);
	log = NULL;
	if (!f64_ok) {
		c->have_f64 = 0;
		cJSON_AddStringToObject(r, "float64", why.buf);
	} else if (reused) {
		cJSON_AddStringToObject(r, "float64", c->have_f64 ? "compiled"
		                        : "the float64 version does not compile");
	} else if (twin_in_ref) {
		c->have_f64 = PREPARED_F64_IN_REF;
		cJSON_AddStringToObject(r, "float64", "compiled");
	} else if (run_compile(c, "ref64", arch_flag, keep, &log) < 0) {
		c->have_f64 = PREPARED_F64_NONE;
		cJSON_AddStringToObject(r, "float64", "the float64 version does not compile");
		cJSON_AddStringToObject(r, "float64_compile_log", log ? log : "");
	} else {
		c->have_f64 = PREPARED_F64_OBJECT;
		cJSON_AddStringToObject(r, "float64", "compiled");
	}
	free(log);
	log = NULL;
	if (!reused && run_compile_main(c, entry, mainsrc.buf, arch_flag, keep, r, &log) < 0) {
		cJSON_AddStringToObject(r, "main_compile_log", log);
		run_set_status(c, "error", "the bundle's clause expressions do not compile in the "
		               "harness (see reference.main_compile_log)");
		goto out;
	}
	/* "reused": compiled by an earlier evaluation of the same sources and toolchain */
	cJSON_AddStringToObject(r, "objects", reused ? "reused" : "compiled");
	if (keep && !reused)
		prepared_store(&pp, c->dir, c->have_f64);
	rc = run_prepare_runtime(c, r, arch_flag);
out:
	prepared_release(&pp);
	free(log);
	free(arch_flag);
	free(refp);
	free(mainp);
	free(f64p);
	free(entry);
	free(nonce);
	strbuf_release(&err);
	strbuf_release(&ref);
	strbuf_release(&mainsrc);
	strbuf_release(&f64);
	strbuf_release(&why);
	return rc;
}

void *
run_evaluate(const struct egg_bundle *b, const struct run_candidate *cands, size_t n,
             const struct run_options *opt, enum run_status *status)
{
	struct run_ctx c;
	memset(&c, 0, sizeof c);
	c.b = b;
	c.opt = opt;
	c.result = run_new_result(b ? b->name : NULL);
	struct strbuf err = STRBUF_INIT;
	int fresh_dir = 0;
	if (gen_check_bundle(b, &err) < 0) {
		run_set_status(&c, "error", err.buf);
		goto done;
	}
	c.nvcc = run_find_nvcc(opt);
	if (!c.nvcc) {
		run_set_status(&c, "error", "cannot find nvcc: set EGG_NVCC or put it on PATH");
		goto done;
	}
	cJSON_ReplaceItemInObject(c.result, "nvcc", cJSON_CreateString(c.nvcc));
	run_filter_flags(opt->flags, opt->n_flags, &c.flags);
	cJSON *fl = cJSON_GetObjectItem(c.result, "flags");
	for (size_t i = 0; i < c.flags.n; i++)
		cJSON_AddItemToArray(fl, cJSON_CreateString(c.flags.v[i]));
	if (b->file && *b->file) {
		/* the bundle's own "header.h" includes resolve as they did for the user */
		char *d = fs_dirname(b->file);
		strvec_push_owned(&c.flags, egg_xasprintf("-I%s", d));
		free(d);
	}
	c.seed = opt->seed;
	if (!c.seed) {
		char *nz = run_nonce();
		c.seed = strtoull(nz, NULL, 16) >> 1;
		free(nz);
	}
	cJSON_ReplaceItemInObject(c.result, "seed", cJSON_CreateNumber((double)(c.seed & ((1ull << 52) - 1))));
	c.seed &= (1ull << 52) - 1; /* exact in a JSON number */
	c.cache = run_cache_dir();
	if (opt->workdir) {
		c.dir = egg_xstrdup(opt->workdir);
		if (fs_mkdir_p(c.dir, 0755) < 0) {
			strbuf_addf(&err, "cannot create %s: %s", c.dir, strerror(errno));
			run_set_status(&c, "error", err.buf);
			goto done;
		}
	} else {
		const char *tmp = getenv("TMPDIR");
		c.dir = egg_xasprintf("%s/egg-eval.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(c.dir)) {
			strbuf_addf(&err, "cannot create a directory for the evaluation: %s", strerror(errno));
			run_set_status(&c, "error", err.buf);
			goto done;
		}
		fresh_dir = 1;
		if (!opt->keep)
			child_remove_on_death(c.dir);
	}
	if (opt->compile_only) {
		if (!opt->arch) {
			run_set_status(&c, "error", "compiling without running needs an architecture (--arch)");
			goto done;
		}
		c.arch = egg_xstrdup(opt->arch);
		cJSON_ReplaceItemInObject(c.result, "arch", cJSON_CreateString(c.arch));
	} else if (run_probe(&c) < 0) {
		goto done;
	}
	if (run_prepare_reference(&c) < 0)
		goto done;
	run_sandbox_setting(&c);
	cJSON *list = cJSON_GetObjectItem(c.result, "candidates");
	struct run_candidate self = { "reference (self-check)", b->target };
	size_t total = n ? n : 1, n_ready = 0;
	size_t *ready = egg_xcalloc(total, sizeof *ready);
	for (size_t k = 0; k < total; k++)
		cJSON_AddItemToArray(list, run_new_candidate(n ? cands[k].name : self.name));
	run_build_all(&c, n ? cands : &self, total, n == 0, list, ready, &n_ready);
	int *judged = egg_xcalloc(total, sizeof *judged);
	run_exec_all(&c, ready, n_ready, n == 0, list, judged);
	for (size_t i = 0; i < n_ready; i++) {
		size_t k = ready[i];
		if (!judged[i])
			run_finish(&c, k, n == 0, cJSON_GetArrayItem(list, (int)k));
	}
	free(judged);
	if (n)
		run_pick_best(c.result);
	free(ready);
done:;
	const cJSON *st = cJSON_GetObjectItem(c.result, "status");
	*status = strcmp(st->valuestring, "ok") == 0 ? RUN_OK
	          : strcmp(st->valuestring, "no_gpu") == 0 ? RUN_NO_GPU : RUN_ERROR;
	if (fresh_dir && !opt->keep) {
		child_forget_on_death(c.dir);
		child_remove_tree(c.dir);
	}
	else if (fresh_dir)
		egg_warn("the evaluation's files are kept in %s", c.dir);
	cJSON_Delete(c.ceilings);
	for (int g = 0; g < c.n_gpus; g++) {
		free(c.gpus[g].visible);
		free(c.gpus[g].uuid);
	}
	strvec_clear(&c.flags);
	free(c.nvcc);
	free(c.dir);
	free(c.arch);
	free(c.cache);
	strbuf_release(&err);
	return c.result;
}
