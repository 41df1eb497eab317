/*
 * args-dump.c -- prints what driver/args makes of an nvcc command line, for the
 * args_vs_nvcc suite, which compares it with what `nvcc -dryrun` does.
 *
 * usage: args-dump NVCC-ARGS...   (reads NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS)
 * Lines: "phase NAME", "problem SENTENCE", then sorted-unique "OUT FILE" (every
 * file nvcc writes) and "DEP FILE" ("DEP -": rules on stdout), "TARGET T".
 */
#include "config.h"
#include "driver/args.h"

#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	struct args *a = args_parse(argv + 1, (size_t)argc - 1, getenv("NVCC_PREPEND_FLAGS"),
	                            getenv("NVCC_APPEND_FLAGS"), NULL);
	printf("phase %s\n", args_phase_name(args_phase(a)));
	if (args_problem(a))
		printf("problem %s\n", args_problem(a));
	if (args_output(a))
		printf("OUT %s\n", args_output(a));
	for (size_t i = 0; i < args_input_count(a); i++) {
		const struct args_input *in = args_input_at(a, i);
		printf("input %s %s\n", in->path, args_lang_name(in->lang));
		if (in->output)
			printf("OUT %s\n", in->output);
		if (in->depfile || in->depfile_stdout)
			printf("DEP %s\n", in->depfile_stdout ? "-" : in->depfile);
		if (in->dep_target)
			printf("TARGET %s\n", in->dep_target);
	}
	args_free(a);
	return 0;
}
