/*
 * egg-cc.c -- the compiler driver that stands in front of nvcc.
 *
 * Its first duty is to be invisible: for a source without an annotation it must
 * cost microseconds and leave nvcc's outputs, streams, exit status and signals
 * exactly as they are, which is why the fast path ends in execv() of the real nvcc
 * with the user's own argument vector.
 *
 * Where egg acts: only on phases that compile CUDA sources into host objects --
 * -c/-dc/-dw, -lib, link and -run -- because only there does the rewritten
 * launcher end up in the program.  -E, -M/-MM, -cuda, -ptx, -cubin, -fatbin,
 * -optix-ir, -ltoir and -dlink produce text or device-only code (or compile
 * nothing) and always go straight to nvcc.  Only CUDA inputs (.cu, or any input
 * under -x cu) are scanned: kernels cannot live in host-only sources.  A command
 * line nvcc will reject (unknown option, missing argument, unreadable options
 * file) and a source egg cannot read go to nvcc too, so that nvcc prints its own
 * error and exits with its own status.
 */
#include "config.h"
#include "common/egg_config.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "common/util.h"
#include "driver/args.h"
#include "driver/compile_annotated.h"
#include "driver/invoke.h"
#include "driver/scan.h"

#include <stdlib.h>

static int
phase_builds_host_objects(enum args_phase phase)
{
	return phase == ARGS_PHASE_COMPILE || phase == ARGS_PHASE_LIB ||
	       phase == ARGS_PHASE_LINK || phase == ARGS_PHASE_RUN;
}

/* 1 when some CUDA input of a command egg may act on holds an annotation. */
static int
wants_egg(const struct args *a)
{
	if (args_problem(a) || !phase_builds_host_objects(args_phase(a)))
		return 0;
	for (size_t i = 0; i < args_input_count(a); i++) {
		const struct args_input *in = args_input_at(a, i);
		if (in->lang == ARGS_LANG_CU && scan_input_has_annotation(a, in->path) == SCAN_YES)
			return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	egg_set_progname("egg-cc");
	struct invoke inv;
	struct strbuf err = STRBUF_INIT;

	invoke_parse(&inv, argc, argv);
	if (invoke_enter(&err) < 0) {
		egg_error("%s", err.buf);
		return 127;
	}
	struct args *a = args_parse(strvec_argv(&inv.args), inv.args.n,
	                            getenv("NVCC_PREPEND_FLAGS"), getenv("NVCC_APPEND_FLAGS"), NULL);
	/* A configuration egg cannot read entirely must not break the build: one warning,
	 * then plain nvcc.  The valid settings (nvcc among them) still apply.  The project's
	 * egg.conf is found from the source's directory too (an out-of-tree build). */
	struct egg_config *cfg = egg_config_new();
	enum egg_mode mode = EGG_MODE_OFF;
	if (egg_config_load_for(cfg, &inv.egg_opts, args_first_source(a), &err) < 0) {
		egg_warn("%s; egg is off for this compilation", err.buf);
		strbuf_reset(&err);
	} else {
		mode = egg_config_mode(cfg);
	}
	if (invoke_locate_nvcc(&inv, egg_config_get(cfg, "nvcc"), &err) < 0) {
		egg_error("%s", err.buf);
		return 127;
	}
	if (mode != EGG_MODE_OFF && wants_egg(a)) {
		/* the log is for annotated compiles: the fast path never opens it */
		if (egg_log_open(egg_config_get(cfg, "log_file"), "egg-cc", &err) < 0) {
			egg_warn("egg: %s; going on without it", err.buf);
			strbuf_reset(&err);
		}
		struct strvec launcher = STRVEC_INIT;
		egg_config_list(cfg, "compiler_launcher", &launcher);
		int rc = driver_compile_annotated(&inv, a, &launcher, egg_config_bool(cfg, "debug"));
		strvec_clear(&launcher);
		args_free(a);
		return rc;
	}
	args_free(a);
	return invoke_exec(&inv);
}
