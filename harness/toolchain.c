/*
 * toolchain.c -- nvcc and the programs it builds, for the evaluation step:
 * finding nvcc, keeping the build's flags but the GPU's architecture, compiling
 * with ptxas' resource report, linking, demangling kernel names, and launching
 * a program on one GPU with its JSON and output collected from files.
 */
#include "config.h"
#include "harness/run_int.h"
#include "harness/gen.h"
#include "harness/prepared.h"
#include "harness/sandbox.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *
run_find_nvcc(const struct run_options *opt)
{
	if (opt->nvcc)
		return egg_xstrdup(opt->nvcc);
	const char *env = getenv("EGG_NVCC");
	if (env && *env)
		return egg_xstrdup(env);
	char *conf = egg_xasprintf("%s/bin/nvcc", EGG_CUDA_HOME);
	if (fs_is_executable(conf))
		return conf;
	free(conf);
	const char *path = getenv("PATH");
	return path ? fs_find_in_path("nvcc", path, NULL) : NULL;
}

char *
run_cache_dir(void)
{
	const char *c = getenv("EGG_CACHE_DIR");
	if (c && *c)
		return fs_join(c, "gpu");
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && xdg[0] == '/')
		return egg_xasprintf("%s/egg/gpu", xdg);
	const char *home = getenv("HOME");
	return egg_xasprintf("%s/.cache/egg/gpu", home && *home ? home : "/tmp");
}

/* Keeps the build's flags except those that pick the architecture or name the
 * output: the harness compiles for the GPU it runs on, into its own files. */
void
run_filter_flags(char *const *flags, size_t n, struct strvec *out)
{
	static const char *const with_arg[] = { "-arch", "--gpu-architecture", "-gencode",
		                                "--generate-code", "-code", "--gpu-code", "-o",
		                                "--output-file", "-MF", "-MT", "-MQ", NULL };
	static const char *const alone[] = { "-c", "--compile", "-dc", "-rdc=true", "-M", "-MD",
		                             "-MMD", "-MP", "-E", "-ptx", "-cubin", NULL };
	for (size_t i = 0; i < n; i++) {
		const char *f = flags[i];
		int skip = 0, skip_next = 0;
		for (int k = 0; with_arg[k]; k++) {
			size_t l = strlen(with_arg[k]);
			if (strcmp(f, with_arg[k]) == 0)
				skip = skip_next = 1;
			else if (strncmp(f, with_arg[k], l) == 0 && f[l] == '=')
				skip = 1;
		}
		for (int k = 0; alone[k]; k++)
			skip |= strcmp(f, alone[k]) == 0;
		skip |= egg_str_starts(f, "-arch=") || egg_str_starts(f, "-gencode=");
		if (!skip)
			strvec_push(out, f);
		if (skip_next)
			i++;
	}
}

char *
run_read_tail(const char *path, size_t max)
{
	char *data = NULL;
	size_t len = 0;
	if (fs_read_file(path, 0, &data, &len) < 0)
		return egg_xstrdup("");
	if (len > max) {
		char *t = egg_xasprintf("[... %zu bytes cut ...]\n%s", len - max, data + len - max);
		free(data);
		return t;
	}
	return data;
}

int
run_write(const char *path, const char *text, struct strbuf *err)
{
	if (fs_write_atomic(path, text, strlen(text)) < 0) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* nvcc ARGS...: returns 0 if it succeeded; the log (stdout and stderr) in *log. */
int
run_nvcc(struct run_ctx *c, struct strvec *args, const char *log_path, char **log)
{
	struct strvec argv = STRVEC_INIT;
	strvec_push(&argv, c->nvcc);
	strvec_pushv(&argv, args->v, args->n);
	struct child_status st;
	struct strbuf err = STRBUF_INIT;
	int rc = proc_run(strvec_argv(&argv), NULL, NULL, log_path, log_path, RUN_COMPILE_TIMEOUT, &st,
	                  &err);
	strvec_clear(&argv);
	if (rc < 0) {
		*log = strbuf_detach(&err);
		return -1;
	}
	strbuf_release(&err);
	*log = run_read_tail(log_path, RUN_LOG_MAX);
	if (st.exited && st.code == 0)
		return 0;
	if (!st.exited) {
		struct strbuf why = STRBUF_INIT;
		strbuf_addf(&why, "%s\nnvcc ", *log);
		child_describe(&st, &why);
		free(*log);
		*log = strbuf_detach(&why);
	}
	return -1;
}

/* Compiles SRC.cu in the work directory to SRC.o with -Xptxas -v; with deps,
 * the files it includes into SRC.d as well (prepared.h). */
int
run_compile(struct run_ctx *c, const char *stem, const char *arch_flag, int deps, char **log)
{
	return run_compile_as(c, stem, arch_flag, deps, 0, log);
}

/* run_compile, or with host set as host C++ (nvcc -x c++, after the build's
 * flags, the last -x being the one nvcc keeps): the host compiler alone, with
 * the include paths and options nvcc gives it. */
int
run_compile_as(struct run_ctx *c, const char *stem, const char *arch_flag, int deps, int host,
               char **log)
{
	struct strvec a = STRVEC_INIT;
	strvec_pushv(&a, c->flags.v, c->flags.n);
	strvec_push(&a, arch_flag);
	strvec_push(&a, "-Xptxas");
	strvec_push(&a, "-v");
	if (host) {
		strvec_push(&a, "-x");
		strvec_push(&a, "c++");
	}
	strvec_push(&a, "-c");
	strvec_push_owned(&a, egg_xasprintf("%s/%s.cu", c->dir, stem));
	strvec_push(&a, "-o");
	strvec_push_owned(&a, egg_xasprintf("%s/%s.o", c->dir, stem));
	if (deps) {
		strvec_push(&a, "-MD");
		strvec_push(&a, "-MF");
		strvec_push_owned(&a, egg_xasprintf("%s/%s.d", c->dir, stem));
	}
	char *logp = egg_xasprintf("%s/%s.log", c->dir, stem);
	int rc = run_nvcc(c, &a, logp, log);
	free(logp);
	strvec_clear(&a);
	return rc;
}

/* Adds "name" (demangled, without the anonymous namespace every contender lives
 * in) to each resource entry, through cu++filt beside nvcc or c++filt on PATH;
 * without either the mangled names stay alone. */
void
run_demangle(struct run_ctx *c, cJSON *resources)
{
	int n = cJSON_GetArraySize(resources);
	if (n == 0)
		return;
	char *bindir = fs_dirname(c->nvcc);
	char *filt = fs_join(bindir, "cu++filt");
	if (!fs_is_executable(filt)) {
		free(filt);
		const char *path = getenv("PATH");
		filt = path ? fs_find_in_path("c++filt", path, NULL) : NULL;
	}
	free(bindir);
	if (!filt)
		return;
	struct strbuf names = STRBUF_INIT;
	cJSON *r;
	cJSON_ArrayForEach(r, resources)
		strbuf_addf(&names, "%s\n", cJSON_GetObjectItem(r, "function")->valuestring);
	char *in = egg_xasprintf("%s/names.txt", c->dir), *out = egg_xasprintf("%s/names.out", c->dir);
	char *argv[] = { filt, NULL };
	struct child_status st;
	struct strbuf err = STRBUF_INIT;
	char *text = NULL;
	size_t len;
	if (fs_write_atomic(in, names.buf, names.len) == 0 &&
	    proc_run(argv, NULL, in, out, NULL, 30, &st, &err) == 0 && st.exited &&
	    st.code == 0 && fs_read_file(out, 1 << 20, &text, &len) == 0) {
		char *line = text;
		cJSON_ArrayForEach(r, resources) {
			char *eol = line ? strchr(line, '\n') : NULL;
			if (!eol)
				break;
			*eol = 0;
			const char *name = line;
			if (egg_str_starts(name, "(anonymous namespace)::"))
				name += strlen("(anonymous namespace)::");
			cJSON_AddStringToObject(r, "name", name);
			line = eol + 1;
		}
	}
	free(text);
	free(in);
	free(out);
	free(filt);
	strbuf_release(&names);
	strbuf_release(&err);
}

/* The confinement of a candidate's program (sandbox.h): it may write beneath
 * DIR/STEM.tmp (its TMPDIR and CUDA's JIT cache) and into its result file, and
 * execute exe and the paths in also_exec.  0, or -1 with a sentence in err. */
static int
run_contain(struct run_ctx *c, const char *exe, const char *stem, const char *json_path,
            const char *const *also_exec, struct strvec *env, struct sandbox *sb,
            struct strbuf *err)
{
	char *scratch = egg_xasprintf("%s/%s.tmp", c->dir, stem);
	int rc = -1;
	if (mkdir(scratch, 0700) < 0 && errno != EEXIST) {
		strbuf_addf(err, "cannot create %s: %s", scratch, strerror(errno));
		goto out;
	}
	/* the program opens its result file for writing: it exists before, empty */
	int fd = open(json_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		strbuf_addf(err, "cannot create %s: %s", json_path, strerror(errno));
		goto out;
	}
	close(fd);
	/* under compute-sanitizer the program is the tool's child, whose thread
	 * names (/proc/PID/task/TID/comm, which the CUDA runtime must write) no
	 * rule can name in advance: existing files beneath /proc stay writable
	 * for those runs (nothing can be created or removed there) */
	const char *files[] = { json_path, c->tcp_ports ? "/proc" : NULL, NULL };
	struct sandbox_spec spec = { .scratch = scratch, .write_files = files, .exec = also_exec,
		                     .layers = c->sandbox, .tcp_port = c->tcp_port,
		                     .tcp_ports = c->tcp_ports };
	if (sandbox_prepare(sb, exe, &spec, err) < 0)
		goto out;
	strvec_push_owned(env, egg_xasprintf("TMPDIR=%s", scratch));
	strvec_push_owned(env, egg_xasprintf("CUDA_CACHE_PATH=%s/cuda-cache", scratch));
	rc = 0;
out:
	free(scratch);
	return rc;
}

/* Runs PROGRAM ARGS... --out DIR/STEM.json with its output in DIR/STEM.out, on
 * the GPU called visible (CUDA_VISIBLE_DEVICES; NULL: the gpu setting's, else
 * all).  contain non-NULL: a candidate's program (or a tool running one), run
 * confined as the evaluation's sandbox setting says, allowed to execute also
 * the NULL-terminated paths in contain; NULL: egg's own program (the probe). */
int
run_launch(struct run_ctx *c, const char *exe, struct strvec *args, const char *stem,
           const char *visible, double timeout_s, const char *const *contain,
           struct child_status *st, struct strbuf *err)
{
	struct strvec argv = STRVEC_INIT;
	strvec_push(&argv, exe);
	strvec_pushv(&argv, args->v, args->n);
	char *json_path = egg_xasprintf("%s/%s.json", c->dir, stem);
	char *out_path = egg_xasprintf("%s/%s.out", c->dir, stem);
	unlink(json_path);
	strvec_push(&argv, "--out");
	strvec_push(&argv, json_path);
	struct strvec env = STRVEC_INIT;
	const char *gpu = c->opt->gpu;
	if (!visible && gpu && *gpu)
		visible = gpu;
	if (visible)
		strvec_push_owned(&env, egg_xasprintf("CUDA_VISIBLE_DEVICES=%s", visible));
	struct sandbox sb;
	int contained = contain && c->sandbox;
	int rc = -1;
	if (!contained || run_contain(c, exe, stem, json_path, contain, &env, &sb, err) == 0) {
		rc = proc_run_contained(strvec_argv(&argv), env.n ? strvec_argv(&env) : NULL, NULL,
		                        out_path, out_path, timeout_s, contained ? &sb : NULL, st, err);
		if (contained)
			sandbox_release(&sb);
	}
	strvec_clear(&env);
	strvec_clear(&argv);
	free(json_path);
	free(out_path);
	return rc;
}

/* The JSON a program left in DIR/STEM.json, or NULL; its output's tail in *output. */
cJSON *
run_collect(struct run_ctx *c, const char *stem, char **output)
{
	char *json_path = egg_xasprintf("%s/%s.json", c->dir, stem);
	char *out_path = egg_xasprintf("%s/%s.out", c->dir, stem);
	char *data = NULL;
	size_t len;
	cJSON *j = NULL;
	if (fs_read_file(json_path, 1 << 26, &data, &len) == 0) {
		j = cJSON_Parse(data);
		free(data);
	}
	*output = run_read_tail(out_path, 4096);
	free(json_path);
	free(out_path);
	return j;
}

cJSON *
run_program(struct run_ctx *c, const char *exe, struct strvec *args, const char *stem,
            const char *visible, double timeout_s, const char *const *contain,
            struct child_status *st, char **output, struct strbuf *err)
{
	if (run_launch(c, exe, args, stem, visible, timeout_s, contain, st, err) < 0)
		return NULL;
	return run_collect(c, stem, output);
}


int
run_link(struct run_ctx *c, const char *stem, int self, char **log)
{
	struct strvec a = STRVEC_INIT;
	strvec_pushv(&a, c->flags.v, c->flags.n);
	strvec_push_owned(&a, egg_xasprintf("-arch=%s", c->arch));
	strvec_push_owned(&a, egg_xasprintf("%s/main.o", c->dir));
	strvec_push_owned(&a, egg_xasprintf("%s/runtime.o", c->dir));
	strvec_push_owned(&a, egg_xasprintf("%s/ref.o", c->dir));
	if (c->have_f64 == PREPARED_F64_OBJECT)
		strvec_push_owned(&a, egg_xasprintf("%s/ref64.o", c->dir));
	if (!self) /* a self-check: ref.o's weak candidate entry is the reference */
		strvec_push_owned(&a, egg_xasprintf("%s/%s.o", c->dir, stem));
	strvec_push(&a, "-o");
	strvec_push_owned(&a, egg_xasprintf("%s/%s.exe", c->dir, stem));
	char *logp = egg_xasprintf("%s/%s.link.log", c->dir, stem);
	int rc = run_nvcc(c, &a, logp, log);
	free(logp);
	strvec_clear(&a);
	return rc;
}
