/*
 * invoke.h -- how egg-cc was called, and which nvcc it stands in front of.
 *
 * Three forms (as ccache has them):
 *   egg-cc ARGS                 direct: nvcc from EGG_NVCC, the config's "nvcc", then PATH
 *   egg-cc /path/to/nvcc ARGS   launcher (CMake's CMAKE_CUDA_COMPILER_LAUNCHER, NVCC="egg-cc nvcc")
 *   nvcc ARGS                   masquerade: a symlink named nvcc to egg-cc, earlier on PATH
 * In every form the nvcc found must not be egg-cc itself (same inode), and a chain
 * of egg-cc processes is cut off by EGG_CC_DEPTH before it can loop.
 */
#ifndef EGG_INVOKE_H
#define EGG_INVOKE_H

#include "common/strbuf.h"
#include "common/strvec.h"

enum invoke_form {
	INVOKE_DIRECT,
	INVOKE_LAUNCHER,
	INVOKE_MASQUERADE,
};

struct invoke {
	enum invoke_form form;
	char *self;             /* egg-cc's own executable (/proc/self/exe); owned */
	char *nvcc;             /* the real nvcc to run; owned; NULL until located */
	struct strvec args;     /* the user's arguments for nvcc, --egg-* removed */
	struct strvec egg_opts; /* the --egg-* options, as given ("--egg-mode=off") */
};

/* Maximum nesting of egg-cc processes before egg-cc refuses to run. */
#define INVOKE_MAX_DEPTH 8

/* Splits argv into the form, nvcc's arguments and egg's own options.  Never fails. */
void invoke_parse(struct invoke *inv, int argc, char **argv);

/* Finds the nvcc to run: the launcher's argument, else nvcc_setting (EGG_NVCC or the
 * config's value, may be NULL), else PATH, always skipping egg-cc itself.
 * Returns 0, or -1 with a sentence in err. */
int invoke_locate_nvcc(struct invoke *inv, const char *nvcc_setting, struct strbuf *err);

/* Checks and increments EGG_CC_DEPTH in the environment. Returns 0, or -1 with a
 * sentence in err when egg-cc is nested too deeply (it is calling itself). */
int invoke_enter(struct strbuf *err);

void invoke_release(struct invoke *inv);

#endif
