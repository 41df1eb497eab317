/*
 * invoke.c -- see invoke.h.
 */
#include "config.h"
#include "driver/invoke.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *
self_exe(const char *argv0)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = '\0';
		return egg_xstrdup(buf);
	}
	return egg_xstrdup(argv0);
}

/* A launcher's first argument names a compiler: basename "nvcc" (or "nvcc-13.0"),
 * or any executable file that is not an input nvcc would accept. */
static int
names_compiler(const char *arg)
{
	if (arg[0] == '-')
		return 0;
	char *base = fs_basename(arg);
	int yes = strcmp(base, "nvcc") == 0 || egg_str_starts(base, "nvcc-");
	if (!yes && strchr(base, '.') == NULL && strchr(arg, '/') != NULL)
		yes = fs_is_executable(arg);
	free(base);
	return yes;
}

void
invoke_parse(struct invoke *inv, int argc, char **argv)
{
	memset(inv, 0, sizeof *inv);
	inv->self = self_exe(argv[0]);
	char *base = fs_basename(argv[0]);
	int i = 1;
	if (strcmp(base, "nvcc") == 0 || egg_str_starts(base, "nvcc-")) {
		inv->form = INVOKE_MASQUERADE;
	} else if (argc > 1 && names_compiler(argv[1])) {
		inv->form = INVOKE_LAUNCHER;
		inv->nvcc = egg_xstrdup(argv[1]);
		i = 2;
	} else {
		inv->form = INVOKE_DIRECT;
	}
	free(base);
	for (; i < argc; i++) {
		if (egg_str_starts(argv[i], "--egg-"))
			strvec_push(&inv->egg_opts, argv[i]);
		else
			strvec_push(&inv->args, argv[i]);
	}
	strvec_argv(&inv->args);
}

int
invoke_locate_nvcc(struct invoke *inv, const char *nvcc_setting, struct strbuf *err)
{
	if (inv->form == INVOKE_LAUNCHER) {
		/* "egg-cc nvcc ARGS" names nvcc without a path: look it up on PATH. */
		if (!strchr(inv->nvcc, '/')) {
			char *found = fs_find_in_path(inv->nvcc, getenv("PATH"), inv->self);
			if (!found) {
				strbuf_addf(err, "cannot find %s on PATH", inv->nvcc);
				return -1;
			}
			free(inv->nvcc);
			inv->nvcc = found;
		}
	} else if (nvcc_setting && *nvcc_setting && inv->form == INVOKE_DIRECT) {
		inv->nvcc = egg_xstrdup(nvcc_setting);
	} else {
		const char *name = "nvcc";
		inv->nvcc = fs_find_in_path(name, getenv("PATH"), inv->self);
		if (!inv->nvcc) {
			strbuf_addstr(err, "cannot find nvcc: set EGG_NVCC, put 'nvcc = PATH' in egg.conf, "
			                   "or put the CUDA toolkit's bin directory on PATH");
			return -1;
		}
	}
	if (!fs_is_executable(inv->nvcc)) {
		strbuf_addf(err, "nvcc '%s' is not an executable file (%s)", inv->nvcc,
		            access(inv->nvcc, F_OK) == 0 ? "not executable" : strerror(ENOENT));
		return -1;
	}
	if (fs_same_file(inv->nvcc, inv->self)) {
		strbuf_addf(err, "nvcc '%s' is egg-cc itself; point EGG_NVCC or 'nvcc =' at the real nvcc",
		            inv->nvcc);
		return -1;
	}
	return 0;
}

int
invoke_enter(struct strbuf *err)
{
	const char *s = getenv("EGG_CC_DEPTH");
	long depth = s ? strtol(s, NULL, 10) : 0;
	if (depth < 0)
		depth = 0;
	if (depth >= INVOKE_MAX_DEPTH) {
		strbuf_addf(err, "egg-cc is calling itself (%ld nested egg-cc processes); "
		                 "check that EGG_NVCC, 'nvcc =' and PATH lead to the real nvcc", depth);
		return -1;
	}
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", depth + 1);
	setenv("EGG_CC_DEPTH", buf, 1);
	return 0;
}

void
invoke_release(struct invoke *inv)
{
	free(inv->self);
	free(inv->nvcc);
	strvec_clear(&inv->args);
	strvec_clear(&inv->egg_opts);
}
