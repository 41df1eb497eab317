/*
 * compile_annotated.h -- what egg-cc does with a command line whose CUDA sources
 * carry an egg annotation: the one door into the optimization pipeline.
 */
#ifndef EGG_COMPILE_ANNOTATED_H
#define EGG_COMPILE_ANNOTATED_H

#include "driver/args.h"
#include "driver/invoke.h"

/* The report records of kernels in a rewritten input wait in the temporary
 * directory until egg-cc knows whether the rewritten unit compiled: the planner
 * writes them twice, as planned (PLAN_REPORT_USED) and with each winner turned
 * into a fallback for one cause (PLAN_REPORT_FALLBACK_*, the same records with
 * outcome "fallback" and the cause as reason), and names the report in the plan
 * ("report<TAB>PATH").  egg-cc appends exactly one of the files to the report,
 * byte for byte: it never parses JSON itself. */
#define PLAN_REPORT_USED "report.used"
#define PLAN_REPORT_FALLBACK_COMPILE "report.fallback-compile"
#define PLAN_REPORT_FALLBACK_COMPILE_WHY "the rewritten unit did not compile; compiled the reference"
#define PLAN_REPORT_FALLBACK_INTERFACE "report.fallback-interface"
#define PLAN_REPORT_FALLBACK_INTERFACE_WHY \
	"the rewritten unit's object did not keep the source's external symbols; compiled the reference"
#define PLAN_REPORT_FALLBACK_OPTIONS "report.fallback-options"
#define PLAN_REPORT_FALLBACK_OPTIONS_WHY \
	"the source was named in an options file or NVCC_*_FLAGS, which egg does not rewrite; " \
	"compiled the reference"

/* Compiles the command line described by inv and a (a was parsed from inv->args;
 * the caller keeps ownership of both) through `egg plan`.  Returns the exit status
 * egg-cc must exit with, or does not return at all (exec, or death by nvcc's
 * signal).  Anything of egg's that fails ends in nvcc on the user's own command
 * line with one warning.  launcher (compiler_launcher: a program and its arguments,
 * e.g. ccache; NULL or empty: none) runs the rewritten compile only.  keep_temps
 * keeps the temporary directory (debug). */
int driver_compile_annotated(struct invoke *inv, const struct args *a, const struct strvec *launcher,
                             int keep_temps);

#endif
