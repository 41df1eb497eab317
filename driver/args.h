/*
 * args.h -- nvcc's command line, read exactly as nvcc 13 reads it.
 *
 * egg-cc must know, without running nvcc, what a command line asks for: the phase,
 * each input with its language, the file nvcc writes for it and its depfile, and
 * the flags the analyzer and the evaluation harness must repeat (-I, -D, -std,
 * -arch, -O, -use_fast_math, ...).  Later work rewrites exactly one input token
 * or appends flags, so every option and input carries the argv indices it came from.
 *
 * The grammar comes from driver/nvcc-options.def (generated from `nvcc --help`);
 * every rule below was measured with nvcc 13.0 (`nvcc -dryrun`):
 *   - "--long=v", "--long v", "-short=v", "-short v"; a glued value only for the
 *     short names the table marks (-Iinc, -DX=1, -O3, -lm, -t0; "-ofoo.o" is an
 *     unknown option); a single dash never takes a long name ("-output-file").
 *   - A value is always the next token, even when it starts with '-' ("-o -x.o").
 *   - List options split their values on commas ("-Xcompiler=-Wall,-O2",
 *     "-Ifoo,bar"); commas inside [...] do not split; each -gencode is one value.
 *   - A single-value option given twice: the last one wins (nvcc warns).
 *   - -x applies to every input, wherever it stands, the last -x winning; it
 *     overrides every extension, .o included.
 *   - -optf/--options-file FILE,...: whitespace-separated tokens, "..." groups
 *     (quotes removed), backslash makes the next character literal; nested files
 *     are relative to the working directory; a file's last option cannot take its
 *     value from after the file; nesting deeper than 64 is nvcc's error.
 *   - NVCC_PREPEND_FLAGS / NVCC_APPEND_FLAGS: split on blanks outside "..."; the
 *     quotes stay in the token (nvcc passes -DA="x y" on as A="x y").
 *   - Phases: when several are given the first in enum args_phase order wins (-c
 *     with -ptx makes .ptx); -lib with -run and -dc with -dw are nvcc's errors.
 * Anything nvcc would reject (unknown option, missing argument, unreadable options
 * file) is not an error here: it is recorded in args_problem() and egg-cc passes
 * the command line to nvcc, which prints its own message.
 */
#ifndef EGG_ARGS_H
#define EGG_ARGS_H

#include "common/strvec.h"

#include <stddef.h>

/* How an option of nvcc's table takes its argument. */
enum nvcc_arg_kind {
	NVCC_ARG_NONE,  /* -G, -c, -use_fast_math */
	NVCC_ARG_VALUE, /* -o FILE, -O 3, -arch sm_90 */
	NVCC_ARG_LIST,  /* -I a,b / -Xcompiler -Wall,-O2: values split on commas */
	NVCC_ARG_ENUM,  /* -x {c|c++|cu}, -std {c++17|...}: one value of a set */
};

/* The phase nvcc stops after.  Order matters: it is nvcc's precedence when several
 * phase options are given (lower wins). */
enum args_phase {
	ARGS_PHASE_DEPS,       /* -M, -MM: dependencies only, nothing compiled */
	ARGS_PHASE_PREPROCESS, /* -E */
	ARGS_PHASE_OPTIX_IR,   /* -optix-ir: NAME.optixir */
	ARGS_PHASE_LTOIR,      /* -ltoir: NAME.ltoir */
	ARGS_PHASE_PTX,        /* -ptx: NAME.ptx */
	ARGS_PHASE_CUBIN,      /* -cubin: NAME.cubin */
	ARGS_PHASE_FATBIN,     /* -fatbin: NAME.fatbin */
	ARGS_PHASE_CUDA,       /* -cuda: NAME.EXT.cpp.ii */
	ARGS_PHASE_COMPILE,    /* -c, -dc, -dw: NAME.o */
	ARGS_PHASE_DLINK,      /* -dlink: a_dlink.o */
	ARGS_PHASE_LIB,        /* -lib: a.a */
	ARGS_PHASE_RUN,        /* -run: a.out, then runs it */
	ARGS_PHASE_LINK,       /* the default, -link: a.out */
};

/* An input's language: from its extension, or from -x (c, c++, cu). */
enum args_lang {
	ARGS_LANG_CU,         /* .cu .cup */
	ARGS_LANG_C,          /* .c */
	ARGS_LANG_CXX,        /* .cc .cpp .cxx */
	ARGS_LANG_CPP_OUTPUT, /* .i .ii: already preprocessed */
	ARGS_LANG_PTX,        /* .ptx */
	ARGS_LANG_CUBIN,      /* .cubin */
	ARGS_LANG_FATBIN,     /* .fatbin */
	ARGS_LANG_GPU,        /* .gpu */
	ARGS_LANG_LTOIR,      /* .ltoir */
	ARGS_LANG_OBJECT,     /* .o .obj */
	ARGS_LANG_LIBRARY,    /* .a .so .lib */
	ARGS_LANG_OTHER,      /* anything else (nvcc passes some on to the linker, rejects others) */
};

/* Where a token came from. */
enum args_origin {
	ARGS_FROM_ARGV,         /* the argv given to args_parse */
	ARGS_FROM_OPTIONS_FILE, /* a -optf file (span: the -optf option that brought it in) */
	ARGS_FROM_PREPEND_ENV,  /* NVCC_PREPEND_FLAGS (span: -1, -1) */
	ARGS_FROM_APPEND_ENV,   /* NVCC_APPEND_FLAGS (span: -1, -1) */
};

/* argv indices [first, last] of an option (two tokens for "-o x", one for "-o=x")
 * or an input.  For a token from an options file: the argv span of the top-level
 * -optf option (-1, -1 when that came from the environment). */
struct args_span {
	enum args_origin origin;
	int first, last;
};

/* One option as nvcc reads it.  Strings are owned by the struct args. */
struct args_option {
	const char *name;  /* the long name without dashes ("output-file"), the short name
	                      when nvcc has no long one ("Xcudafe"), or the token as given
	                      when unknown */
	const char *value; /* its argument as written, commas unsplit; NULL if none */
	int known;         /* 0: not in nvcc's table, nvcc will say "Unknown option" */
	struct args_span span;
};

/* One input file with what nvcc makes of it.  Strings are owned by the struct args. */
struct args_input {
	const char *path;        /* as written */
	enum args_lang lang;     /* after -x */
	const char *output;      /* the file nvcc writes for this input, NULL when none of its
	                            own (link/lib/dlink/-M, stdout, or the phase ignores it) */
	int output_stdout;       /* 1: -E without -o writes to stdout */
	const char *depfile;     /* the dependency file written for it, NULL when none */
	int depfile_stdout;      /* 1: -M/-MM without -o or -MF writes the rule to stdout */
	const char *dep_target;  /* the rule's target (-MT, else the output, else NAME.o);
	                            NULL when no dependencies are generated */
	struct args_span span;
};

struct args;

/* Reads nvcc's arguments argv[0..argc-1] (no program name; egg's --egg-* options
 * already removed), with the values of NVCC_PREPEND_FLAGS and NVCC_APPEND_FLAGS
 * (either may be NULL).  cwd is the directory relative options-file paths are read
 * from (NULL: the process's).  Never fails: what nvcc would reject is recorded in
 * args_problem().  The result is owned by the caller: args_free(). */
struct args *args_parse(char *const *argv, size_t argc, const char *env_prepend,
                        const char *env_append, const char *cwd);
void args_free(struct args *a);

/* NULL, or a sentence saying why nvcc will reject this command line (the first
 * problem found: unknown option, missing argument, unreadable options file, several
 * inputs with -o in a per-input phase, ...).  Owned by a. */
const char *args_problem(const struct args *a);

enum args_phase args_phase(const struct args *a);
/* 1 when device code is relocatable (-dc, or -rdc=true). */
int args_rdc(const struct args *a);
/* 1 when -MD or -MMD asks for dependencies alongside the compilation. */
int args_deps_with_compile(const struct args *a);
/* 1 when -MP asks for an empty rule per dependency. */
int args_deps_phony(const struct args *a);

size_t args_input_count(const struct args *a);
/* i < args_input_count(a); owned by a. */
const struct args_input *args_input_at(const struct args *a, size_t i);
/* The source whose directory egg.conf(5) searches for a project file: the first CUDA
 * input, else the first input; NULL when there is none.  Owned by a. */
const char *args_first_source(const struct args *a);

/* The single file a dlink, lib, link or run command writes (-o, else a_dlink.o,
 * a.a or a.out under -odir); NULL for per-input phases.  Owned by a. */
const char *args_output(const struct args *a);

/* Every option in command-line order, options files and environment expanded. */
size_t args_option_count(const struct args *a);
const struct args_option *args_option_at(const struct args *a, size_t i);

/* The last value of the option with this long name ("output-file", "std", "x";
 * "Xcudafe" for those without one), or NULL when absent.  Owned by a. */
const char *args_value(const struct args *a, const char *name);
/* 1 when the option is present (with or without a value). */
int args_has(const struct args *a, const char *name);
/* Appends every value of the option to out, in order, list values split on
 * commas as nvcc splits them ("include-path": each -I directory; "define-macro":
 * "X=1"; "generate-code": one spec per -gencode).  Returns how many it appended. */
size_t args_collect(const struct args *a, const char *name, struct strvec *out);

/* Appends, as "-NAME=VALUE" / "-NAME" tokens in command-line order, the options
 * that decide device code generation and must be repeated to build a replacement
 * the same way: -arch -code -gencode -rdc/-dc -O -use_fast_math -ftz -prec-div
 * -prec-sqrt -fmad -G -lineinfo -maxrregcount -Xptxas -std -expt-relaxed-constexpr
 * -extended-lambda.  Returns how many it appended. */
size_t args_codegen_flags(const struct args *a, struct strvec *out);

/* Appends, in command-line order and in clang's spelling, the options that decide
 * what the preprocessor sees: -IDIR, -isystem DIR, -DX=1, -UX, -include FILE,
 * -std=c++17 (list values split as nvcc splits them).  The analyzer parses the
 * file with exactly these.  Returns how many words it appended. */
size_t args_preprocessor_flags(const struct args *a, struct strvec *out);

/* nvcc's option table (driver/nvcc-options.def): the kind of the option with this
 * long (or, without one, short) name; -1 when nvcc has no such option. */
int args_option_kind(const char *name);

/* Names for messages and tests ("compile", "cu"); static strings. */
const char *args_phase_name(enum args_phase phase);
const char *args_lang_name(enum args_lang lang);

#endif
