/*
 * fastdiv.h -- division by a launch's scalar, for the paths that keep the
 * reference's code (generic.c, butterfly.c): a kernel parameter the body
 * divides by (x / p, x % p) is passed as egg_div<T> (templates/fastdiv.cu),
 * which the host prepares once per launch, so that a run-time power of two
 * becomes a shift and a mask and another divisor a multiply, while every other
 * use of the parameter still sees a T.
 *
 * A parameter qualifies when its type is an integer scalar, the body never
 * assigns, redeclares or takes the address of it, it is the divisor of at least
 * one / or % (or /=, %=), and each of its uses is one the wrapper answers as T:
 * an operand of a binary or arithmetic unary operator, an index, a cast, the
 * right side of an assignment or the initializer of a declared (not auto)
 * variable.  Every whole-word mention of its name in the body must be such a
 * use (nothing hidden in a macro).
 */
#ifndef EGG_BUILTIN_FASTDIV_H
#define EGG_BUILTIN_FASTDIV_H

#include <stddef.h>

#include "builtin/parse/parse.h"
#include "common/strbuf.h"

/* Sets flags[i] (k->n_params of them) for each parameter of k that qualifies;
 * returns how many do.  text is the text k was parsed from. */
size_t fastdiv_params(const char *text, const struct ast_function *k, int *flags);

/* "egg_div<T>" for a qualifying parameter's type (its const dropped). */
char *fastdiv_type(const char *type);

/* The template's text (templates/fastdiv.cu), NULL with err when missing. */
char *fastdiv_prelude(struct strbuf *err);

#endif
