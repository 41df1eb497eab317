/*
 * check.h -- the GPU check program for one bundle: a self-contained CUDA source
 * that runs the reference and every candidate of the builtin generator on the
 * bundle's first workload with random inputs (once with cudaMalloc'ed pointers,
 * once with every pointer one element off 16-byte alignment, which exercises the
 * scalar paths), compares outputs and times both,
 * printing one table line per candidate:
 *   CHECK <bundle> <candidate#> ref_ms=<..> cand_ms=<..> max_err=<..> correct=<yes|no> <label>
 * Candidates are renamed (NAME__egg_cN) so that all coexist with the reference.
 */
#ifndef EGG_BUILTIN_CHECK_H
#define EGG_BUILTIN_CHECK_H

#include "builtin/builtin.h"
#include "common/bundle.h"
#include "common/strbuf.h"

void check_program(const struct egg_bundle *b, const struct builtin_output *o, struct strbuf *out);

#endif
