/*
 * launch_check.h -- a reference launcher's check of its launch's error
 * (cudaCheck(cudaGetLastError()) and the like), kept in the candidates'
 * launchers, so that a winner reports a failed launch as the reference did.
 *
 * Ownership: launch_check_statements returns a string the caller frees.
 */
#ifndef EGG_BUILTIN_LAUNCH_CHECK_H
#define EGG_BUILTIN_LAUNCH_CHECK_H

#include "builtin/builtin.h"
#include "common/bundle.h"

/* The statements after the last launch of b's launcher that read the launch
 * error (cudaGetLastError, cudaPeekAtLastError, or a function-like macro of the
 * closure whose body does) and name none of the launcher's locals, one a line
 * with a tab before; NULL when there are none (or b is a kernel). */
char *launch_check_statements(const struct egg_bundle *b);

/* Appends them at the end of every candidate's launcher that lacks them. */
void launch_check_keep(const struct egg_bundle *b, struct builtin_output *out);

#endif
