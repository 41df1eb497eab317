/*
 * egg-cc.c -- the compiler driver that stands in front of nvcc.
 *
 * Its first duty is to be invisible: for a source without an annotation it must
 * cost microseconds and leave nvcc's outputs, streams, exit status and signals
 * exactly as they are, which is why the fast path ends in execv() of the real nvcc
 * with the user's own argument vector.
 */
#include "config.h"
#include "common/strbuf.h"
#include "common/util.h"
#include "driver/invoke.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Replaces this process with nvcc ARGS. Only returns on failure. */
static int
exec_nvcc(struct invoke *inv)
{
	strvec_insert(&inv->args, 0, inv->nvcc);
	execv(inv->nvcc, strvec_argv(&inv->args));
	egg_error("cannot run %s: %s", inv->nvcc, strerror(errno));
	return 127;
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
	if (invoke_locate_nvcc(&inv, getenv("EGG_NVCC"), &err) < 0) {
		egg_error("%s", err.buf);
		return 127;
	}
	return exec_nvcc(&inv);
}
