/*
 * gen.h -- writes the source of an evaluation program from a bundle.
 *
 * An evaluation program is four kinds of translation unit, compiled separately
 * and linked (harness/run.c does that):
 *
 *   ref.cu    the bundle's includes, closure and target inside an anonymous
 *             namespace, plus one extern "C" entry point whose name carries a
 *             random nonce: nothing else in the program can name the reference.
 *   cand.cu   the same for one candidate (the closure, then the candidate's code,
 *             which replaces the target's definition and keeps its name and
 *             signature), with the fixed entry point egg_entry_cand.
 *   main.cu   the parameter table, one setup function per workload (the clause
 *             expressions compiled as C++ with the scalar parameters in scope, and
 *             the closure's macros and constants: gen_closure_decls),
 *             the declarations of the two entry points, and main, which hands
 *             them to the runtime.  It never sees either definition.
 *   runtime.cu harness/runtime.cuh (checks, timing, JSON output), the same for
 *             every bundle: compiled once per toolchain and flags.
 *
 * A pointer parameter a workload leaves NULL (workload(..., bias = NULL)) gets
 * no buffer in that workload: both contenders are called with NULL there, nothing
 * is filled or compared for it, and its guards are not checked.
 *
 * Because each contender is its own TU with internal linkage, a candidate cannot
 * call the reference (it would need the nonce) nor collide with its kernels.
 * A target inside named namespaces is called through `using namespace` in the
 * entry, and a candidate's code is put inside those namespaces, where the rewrite
 * puts it in the user's file.
 *
 * A candidate sees the closure (types, macros, helper kernels and device
 * functions of the reference), so it may reuse them but must not define a name
 * the closure already defines: that is a compile error the debug agent sees.
 *
 * Default tolerances (the clause tolerance(rtol, atol) replaces them), applied per
 * element as |got - ref| <= atol + rtol * |ref|:
 *   double     rtol 1e-9, atol 1e-10
 *   float      rtol 1e-4, atol 1e-4
 *   __half     rtol 1e-2, atol 1e-3
 *   bf16       rtol 5e-2, atol 1e-2
 *   integers   exact
 * Why: inputs are drawn from [-1, 1).  A float result computed in another order
 * (a tree reduction instead of a loop, fused multiply-adds) moves by a few ulps
 * per operation; over sums of ~10^4 terms that is an absolute error of order
 * eps * sqrt(N) * |partial sums|, 1e-5..1e-4 for float (METHOD.md: float32 lands
 * far under 1e-3 in norm).  The half types' own rounding is 5e-4 (half) and 4e-3
 * (bf16) relative, so two roundings apart must still pass.  A wrong index, a
 * missed element or a stale value moves an element by ~1e-1 or more and fails.
 * precision(tf32|fp16) raises float tolerances to 1e-2/1e-2 and precision(bf16)
 * to 5e-2/5e-2 (METHOD.md: tf32 near 3e-4 and bf16 up to 1e-2 in norm; single
 * elements of long dot products go several times further).  NaN and Inf pass only
 * where the reference has the same value at the same index; an element still
 * holding the poison pattern passes only where the reference's does too.
 * A float reduction written as one serial loop over 10^5+ terms rounds by more
 * than that tolerance itself (each partial sum loses half an ulp of a growing
 * value), so a float output that fails by tolerance alone is judged again
 * against the reference compiled with double for float (gen_unit_f64), when the
 * reference's float result agrees with that twin to within a quarter of the
 * buffer's largest magnitude and has NaN/Inf at the same places: the tolerance
 * then grows by twice the reference's own largest error in that buffer (a
 * candidate is held to the reference's accuracy, and no more).
 *
 * Ownership: the functions append to caller-owned strbufs and allocate nothing
 * the caller must free.
 */
#ifndef EGG_HARNESS_GEN_H
#define EGG_HARNESS_GEN_H

#include "common/bundle.h"
#include "common/strbuf.h"

/* The most parameters a target may have for the harness (a kernel's are far
 * fewer: CUDA passes at most 32 KB of them). */
#define GEN_MAX_PARAMS 256

/* The entry point every candidate TU defines. */
#define GEN_CAND_ENTRY "egg_entry_cand"

/* Checks that the harness can evaluate b: every scalar parameter bound by every
 * workload (no workload clause: one workload, possible only without scalar
 * parameters) and of a known type, every pointer parameter
 * with an extent and a known element type.  Returns 0, or -1 with a sentence. */
int gen_check_bundle(const struct egg_bundle *b, struct strbuf *err);

/* Appends one contender's TU: b's includes and closure, then code (the target's
 * text for the reference, a candidate's source otherwise), then an extern "C"
 * entry called entry that calls b's target (a launcher directly; a kernel with
 * the launch geometry main passes).  Returns 0 or -1 with a sentence. */
int gen_unit(const struct egg_bundle *b, const char *code, const char *entry,
             struct strbuf *out, struct strbuf *err);

/* The suffix of the float64 twin's entry: the reference's entry name + it. */
#define GEN_F64_SUFFIX "_f64"

/* Appends the reference's float64 twin (ref64.cu): the reference's TU with float
 * spelled double and float math mapped to double, entry `entry`.  main.cu calls
 * it, where it is linked, to judge a candidate that is outside the tolerance of a
 * float reference (harness/runtime.cuh says when and how).  Returns -1 with a
 * sentence in why when b has no float output or uses float vector types. */
int gen_unit_f64(const struct egg_bundle *b, const char *entry, struct strbuf *out,
                 struct strbuf *why);

/* The namespace the appended twin lives in (gen_unit_f64_appended). */
#define GEN_F64_NAMESPACE "egg_f64"

/* Appends the same twin to the reference's own unit (after gen_unit's text):
 * its closure and code inside namespace GEN_F64_NAMESPACE, after the float64
 * macros, so that one nvcc compile (one parse of the headers) makes both.  Where
 * the closure cannot stand twice in one unit (an extern "C" function, a
 * specialization in namespace std) the compile fails and the harness compiles
 * the two units apart (run.c).  A closure that names its own file-scope
 * declarations with :: reaches the float reference's from inside the twin.
 * Returns -1 with a sentence as gen_unit_f64. */
int gen_unit_f64_appended(const struct egg_bundle *b, const char *entry, struct strbuf *out,
                          struct strbuf *why);

/* Appends main.cu: calls ref_entry as the reference and GEN_CAND_ENTRY as the
 * candidate.  flops (n_flops of them, may be 0): the FLOPs of one call, as C
 * expressions over the scalar parameters like an extent; one applies to every
 * workload, more give one per workload.  Returns 0 or -1 with a sentence. */
int gen_main(const struct egg_bundle *b, const char *ref_entry, const char *const *flops,
             size_t n_flops, struct strbuf *out, struct strbuf *err);
/* The same main without the bundle's #includes: the closure's macros and
 * constants alone (run.c tries it as host code where an include would make the
 * compile a CUDA one; where the clauses need a header, it does not compile). */
int gen_main_without_includes(const struct egg_bundle *b, const char *ref_entry,
                              const char *const *flops, size_t n_flops, struct strbuf *out,
                              struct strbuf *err);

/* The validity domain's probe calls (gen.c, "probes"): marks in size[i] (one int per
 * binding of the first workload) the index of each size binding, -1 for the others,
 * and returns how many there are. */
size_t gen_size_bindings(const struct egg_bundle *b, int *size);
/* How many probe calls main.cu checks after the named workloads (0, 2 + 2n, or
 * twice that where the workloads leave different pointers NULL). */
size_t gen_n_probes(const struct egg_bundle *b);

/* Appends runtime.cu: the half of every evaluation program that does not depend
 * on the bundle (harness/runtime.cuh), linked with main.o, whose main calls it. */
void gen_runtime(struct strbuf *out);

/* Appends the probe program: the same runtime with no bundle; run with --probe
 * (device description) or --ceilings (also copy bandwidth and FMA rate). */
void gen_probe(struct strbuf *out);

/* gen_text.c.  Appends what main.cu may see of a closure for the clause
 * expressions: preprocessor definitions and conditionals, enums, and const or
 * constexpr variables that call nothing, inside the namespaces they stand in;
 * never a function, kernel, class or device variable. */
void gen_closure_decls(const char *closure, struct strbuf *out);

/* gen_text.c.  1 if w occurs in text[b, e) as a whole identifier. */
int gen_has_word(const char *text, size_t b, size_t e, const char *w);

/* Appends code with `extern "C"` dropped (and the braces of an extern "C" { }
 * block): inside a contender's anonymous namespace it would give the reference
 * and the candidate one external C name. */
void gen_add_code(struct strbuf *out, const char *code);

/* The text of harness/runtime.cuh, built into egg. */
extern const char harness_runtime_text[];

#endif
