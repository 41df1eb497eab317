/*
 * rewrite.h -- turn a user's translation unit into one that uses the winners.
 *
 * The rewritten text is the user's file with, for each annotated function:
 *  - its pragma lines blanked (line numbers unchanged);
 *  - a launcher's definition renamed to egg_reference__NAME (it stays in the
 *    object under that name, and is what other GPUs run);
 *  - right after it, the winner (its own definition renamed egg_winner__NAME by a
 *    macro around the winner text) and a dispatcher with the original name,
 *    signature and linkage, which calls the winner on the compute capability the
 *    winner was tuned for and the reference elsewhere; then a #line directive
 *    that puts the numbering back where the user's file continues;
 *  - for a __global__ kernel target, one kernel whose body is the winner's body
 *    when compiled for the tuned architecture and the reference's body for every
 *    other one (a kernel cannot dispatch at run time; the fatbin does it).
 * The file starts with `#line 1 "PATH"`, so __FILE__, diagnostics and debug info
 * name the user's file, and the winner is preceded by a #line that points at the
 * annotated function, so an error in it is reported there.
 *
 * The rewrite works on byte spans that the analyzer measured in the same bytes
 * (the file as read from disk); it checks each span's text before using it.
 */
#ifndef EGG_REWRITE_H
#define EGG_REWRITE_H

#include <stddef.h>

#include "common/bundle.h"
#include "common/strbuf.h"

struct rewrite_span {
	size_t begin, end; /* byte offsets, [begin, end) */
};

struct rewrite_target {
	enum bundle_kind kind;
	const char *name;              /* unqualified name, as at name_tok */
	int extern_c;                  /* the dispatcher is declared extern "C" (also done, without
	                                  it, when `extern "C"` stands right before the definition) */
	int c_linkage;                 /* the target has C linkage (an extern "C" block, say): the
	                                  winner goes in extern "C++" for its templates */
	struct rewrite_span pragma;    /* the #pragma's lines; {0,0} for _Pragma in a macro (left alone) */
	struct rewrite_span definition;/* first token of the definition to its closing brace */
	struct rewrite_span name_tok;  /* the name in the definition */
	struct rewrite_span body;      /* '{' ... '}' of the definition */
	const char *const *params;     /* parameter names, in order */
	size_t n_params;
	const char *winner;            /* the winner's source: defines `name` with the same signature */
	int arch;                      /* compute capability * 10 the winner was tuned for, e.g. 90 */
};

/* Writes the rewritten translation unit for src (len bytes, the file `path` as the
 * user named it) to out.  Targets may come in any order but must not overlap.
 * Returns 0, or -1 with a sentence in err (spans that do not fit the text, a kernel
 * winner without a recognisable definition of the kernel). */
int rewrite_source(const char *path, const char *src, size_t len,
                   const struct rewrite_target *targets, size_t n,
                   struct strbuf *out, struct strbuf *err);

#endif
