/*
 * compile_annotated.h -- what egg-cc does with a command line whose CUDA sources
 * carry an egg annotation: the one door into the optimization pipeline.
 */
#ifndef EGG_COMPILE_ANNOTATED_H
#define EGG_COMPILE_ANNOTATED_H

#include "driver/args.h"
#include "driver/invoke.h"
#include "driver/plan_protocol.h" /* the plan egg-cc reads */

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
