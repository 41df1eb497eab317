/*
 * test_args.c -- unit tests for driver/args: nvcc's command line as nvcc reads it.
 * Every expectation here was measured with nvcc 13.0 (`nvcc -dryrun`, or a real
 * run for depfile targets); see driver/args.h for the rules.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/util.h"
#include "driver/args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parses a command line given as one string of blank-separated tokens. */
static struct args *
parse_env(const char *cmdline, const char *pre, const char *post, const char *cwd)
{
	struct strvec sv = STRVEC_INIT;
	char *copy = egg_xstrdup(cmdline);
	for (char *t = strtok(copy, " "); t; t = strtok(NULL, " "))
		strvec_push(&sv, t);
	free(copy);
	struct args *a = args_parse(strvec_argv(&sv), sv.n, pre, post, cwd);
	strvec_clear(&sv);
	return a;
}

static struct args *
parse(const char *cmdline)
{
	return parse_env(cmdline, NULL, NULL, NULL);
}

static const struct args_input *
input(const struct args *a, size_t i)
{
	assert_true(i < args_input_count(a));
	return args_input_at(a, i);
}

/* The option called name, the n-th of that name. */
static const struct args_option *
option(const struct args *a, const char *name, int n)
{
	for (size_t i = 0; i < args_option_count(a); i++) {
		const struct args_option *o = args_option_at(a, i);
		if (strcmp(o->name, name) == 0 && n-- == 0)
			return o;
	}
	fail_msg("no option %s", name);
	return NULL;
}

/* The values args_collect gives, joined with '|'. */
static char *
collected(const struct args *a, const char *name)
{
	struct strvec sv = STRVEC_INIT;
	args_collect(a, name, &sv);
	size_t len = 1;
	for (size_t i = 0; i < sv.n; i++)
		len += strlen(sv.v[i]) + 1;
	char *s = egg_xcalloc(1, len);
	for (size_t i = 0; i < sv.n; i++) {
		if (i)
			strcat(s, "|");
		strcat(s, sv.v[i]);
	}
	strvec_clear(&sv);
	return s;
}

static void
expect_collected(const struct args *a, const char *name, const char *want)
{
	char *got = collected(a, name);
	assert_string_equal(got, want);
	free(got);
}

static void
output_option_forms_all_name_the_output(void **state)
{
	static const struct {
		const char *cmd;
		int first, last;
	} forms[] = {
		{ "-c a.cu -o x.o", 2, 3 },
		{ "-c a.cu -o=x.o", 2, 2 },
		{ "-c a.cu --output-file x.o", 2, 3 },
		{ "-c a.cu --output-file=x.o", 2, 2 },
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		struct args *a = parse(forms[i].cmd);
		assert_null(args_problem(a));
		assert_int_equal(args_input_count(a), 1);
		assert_string_equal(input(a, 0)->output, "x.o");
		const struct args_option *o = option(a, "output-file", 0);
		assert_string_equal(o->value, "x.o");
		assert_int_equal(o->span.origin, ARGS_FROM_ARGV);
		assert_int_equal(o->span.first, forms[i].first);
		assert_int_equal(o->span.last, forms[i].last);
		assert_int_equal(input(a, 0)->span.first, 1);
		args_free(a);
	}
}

static void
glued_values_only_for_the_short_names_nvcc_allows(void **state)
{
	struct args *a = parse("-c a.cu -Iinc -DX=1 -UY -O3 -lm -Llib -t0 -ldirX -Ifoo=bar");
	assert_null(args_problem(a));
	expect_collected(a, "include-path", "inc|foo=bar");
	expect_collected(a, "define-macro", "X=1");
	expect_collected(a, "undefine-macro", "Y");
	expect_collected(a, "library", "m|dirX");
	expect_collected(a, "library-path", "lib");
	assert_string_equal(args_value(a, "optimize"), "3");
	assert_string_equal(args_value(a, "threads"), "0");
	assert_int_equal(args_input_count(a), 1);
	args_free(a);

	static const char *const unknown[] = { "-ofoo.o", "-xcu", "-archsm_90", "-stdc++17",
	                                       "-MFx.d", "-isystemdir", "-includeh.h", "-m32" };
	for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
		char *cmd = egg_xasprintf("-c a.cu %s", unknown[i]);
		a = parse(cmd);
		assert_non_null(args_problem(a));
		assert_non_null(strstr(args_problem(a), unknown[i]));
		assert_false(option(a, unknown[i], 0)->known);
		args_free(a);
		free(cmd);
	}
}

static void
equals_form_works_for_short_and_long_names(void **state)
{
	struct args *a = parse("-c a.cu -I=foo --include-path=bar --include-path baz -x=cu -m64");
	assert_null(args_problem(a));
	expect_collected(a, "include-path", "foo|bar|baz");
	assert_string_equal(args_value(a, "x"), "cu");
	assert_true(args_has(a, "m64"));
	args_free(a);
	/* a single dash never takes a long name, a double one never a short name */
	a = parse("-c a.cu -output-file x.o");
	assert_non_null(args_problem(a));
	args_free(a);
	a = parse("-c a.cu --o x.o");
	assert_non_null(args_problem(a));
	args_free(a);
}

static void
list_values_split_on_commas_except_inside_brackets(void **state)
{
	struct args *a = parse("-c a.cu -Xcompiler=-Wall,-O2 -Xcompiler -fPIC -Ifoo,bar -I baz "
	                       "-DA=1,B=2 -gencode=arch=compute_90,code=[sm_90,compute_90] "
	                       "-gencode arch=compute_80,code=sm_80 -Xptxas -v,-O3");
	assert_null(args_problem(a));
	expect_collected(a, "compiler-options", "-Wall|-O2|-fPIC");
	expect_collected(a, "include-path", "foo|bar|baz");
	expect_collected(a, "define-macro", "A=1|B=2");
	expect_collected(a, "generate-code",
	                 "arch=compute_90,code=[sm_90,compute_90]|arch=compute_80,code=sm_80");
	expect_collected(a, "ptxas-options", "-v|-O3");
	assert_int_equal(args_input_count(a), 1);
	args_free(a);
}

static void
options_without_argument_take_none(void **state)
{
	struct args *a = parse("-G a.cu -V -g -lineinfo -E");
	assert_null(args_problem(a));
	assert_int_equal(args_input_count(a), 1);
	assert_string_equal(input(a, 0)->path, "a.cu");
	assert_null(option(a, "device-debug", 0)->value);
	assert_true(args_has(a, "version"));
	assert_true(args_has(a, "debug"));
	args_free(a);
	a = parse("-c a.cu -G=1");
	assert_non_null(args_problem(a));
	args_free(a);
}

static void
a_value_is_the_next_token_even_with_a_dash(void **state)
{
	struct args *a = parse("-c a.cu -o -x.o");
	assert_null(args_problem(a));
	assert_int_equal(args_input_count(a), 1);
	assert_string_equal(input(a, 0)->output, "-x.o");
	args_free(a);
}

static void
missing_argument_and_unknown_options_are_problems(void **state)
{
	struct args *a = parse("-c a.cu -o");
	assert_non_null(strstr(args_problem(a), "argument expected after '-o'"));
	args_free(a);
	a = parse("-c a.cu --bogus -fno-foo b.cu");
	assert_non_null(strstr(args_problem(a), "'--bogus'"));
	assert_false(option(a, "--bogus", 0)->known);
	assert_false(option(a, "-fno-foo", 0)->known);
	assert_int_equal(args_input_count(a), 2); /* an unknown option takes no value */
	args_free(a);
	a = parse("-c a.cu -std=c++23");
	assert_non_null(strstr(args_problem(a), "c++23"));
	args_free(a);
	a = parse("-c a.cu -std=c++17 -compress-mode=size,speed -cudart shared");
	assert_null(args_problem(a));
	args_free(a);
	a = parse("-c a.cu b.cu -o x.o");
	assert_non_null(strstr(args_problem(a), "single input"));
	args_free(a);
	a = parse("a.cu b.cu -o prog");
	assert_null(args_problem(a));
	args_free(a);
}

static void
x_applies_to_every_input_and_the_last_wins(void **state)
{
	struct args *a = parse("-c a.cpp -x cu b.c");
	assert_int_equal(input(a, 0)->lang, ARGS_LANG_CU);
	assert_int_equal(input(a, 1)->lang, ARGS_LANG_CU);
	assert_string_equal(input(a, 0)->output, "a.o");
	args_free(a);
	a = parse("-x cu -c k.cpp -x c++ z.cu");
	assert_int_equal(input(a, 0)->lang, ARGS_LANG_CXX);
	assert_int_equal(input(a, 1)->lang, ARGS_LANG_CXX);
	args_free(a);
	a = parse("-c -x c z.cu");
	assert_int_equal(input(a, 0)->lang, ARGS_LANG_C);
	args_free(a);
}

static void
languages_come_from_extensions(void **state)
{
	static const struct {
		const char *path;
		enum args_lang lang;
	} exts[] = {
		{ "k.cu", ARGS_LANG_CU },        { "dir.x/k.cup", ARGS_LANG_CU },
		{ "m.c", ARGS_LANG_C },          { "m.cc", ARGS_LANG_CXX },
		{ "m.cpp", ARGS_LANG_CXX },      { "m.cxx", ARGS_LANG_CXX },
		{ "m.i", ARGS_LANG_CPP_OUTPUT }, { "m.ii", ARGS_LANG_CPP_OUTPUT },
		{ "k.ptx", ARGS_LANG_PTX },      { "k.cubin", ARGS_LANG_CUBIN },
		{ "k.fatbin", ARGS_LANG_FATBIN }, { "k.gpu", ARGS_LANG_GPU },
		{ "k.ltoir", ARGS_LANG_LTOIR },  { "m.o", ARGS_LANG_OBJECT },
		{ "m.obj", ARGS_LANG_OBJECT },   { "libm.a", ARGS_LANG_LIBRARY },
		{ "libm.so", ARGS_LANG_LIBRARY }, { "m.lib", ARGS_LANG_LIBRARY },
		{ "k.CU", ARGS_LANG_OTHER },     { "k.h", ARGS_LANG_OTHER },
		{ "a.cu.dir/noext", ARGS_LANG_OTHER }, { "libm.so.6", ARGS_LANG_OTHER },
	};
	for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		struct args *a = parse(exts[i].path);
		if (input(a, 0)->lang != exts[i].lang)
			fail_msg("%s: %s", exts[i].path, args_lang_name(input(a, 0)->lang));
		args_free(a);
	}
}

/* A fresh directory with files; returns its path (caller frees). */
static char *
make_dir(void)
{
	char *dir = egg_xstrdup("/tmp/egg-test-args.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return dir;
}

static void
write_in(const char *dir, const char *name, const char *text)
{
	char *path = fs_join(dir, name);
	assert_int_equal(fs_write_atomic(path, text, strlen(text)), 0);
	free(path);
}

static void
remove_dir(char *dir, const char *const *names)
{
	for (; *names; names++) {
		char *path = fs_join(dir, *names);
		unlink(path);
		free(path);
	}
	rmdir(dir);
	free(dir);
}

static void
options_files_are_expanded_nested_and_quoted(void **state)
{
	char *dir = make_dir();
	write_in(dir, "outer.txt", "-DFOO=\"a b\" -I inc\\ dir\n\t-optf inner.txt -Xcompiler=-Wall,-O2\n");
	write_in(dir, "inner.txt", "-c \"my file.cu\" -odir out\n");
	write_in(dir, "more.txt", "-DMORE\n");
	struct args *a = parse_env("-O2 -optf outer.txt,more.txt k.cu", NULL, NULL, dir);
	assert_null(args_problem(a));
	expect_collected(a, "define-macro", "FOO=a b|MORE");
	expect_collected(a, "include-path", "inc dir");
	expect_collected(a, "compiler-options", "-Wall|-O2");
	assert_int_equal(args_phase(a), ARGS_PHASE_COMPILE);
	assert_int_equal(args_input_count(a), 2);
	const struct args_input *in = input(a, 0);
	assert_string_equal(in->path, "my file.cu");
	assert_string_equal(in->output, "out/my file.o");
	assert_int_equal(in->span.origin, ARGS_FROM_OPTIONS_FILE);
	assert_int_equal(in->span.first, 1); /* the -optf option in argv */
	assert_int_equal(in->span.last, 2);
	assert_int_equal(input(a, 1)->span.origin, ARGS_FROM_ARGV);
	assert_int_equal(input(a, 1)->span.first, 3);
	assert_string_equal(input(a, 1)->output, "out/k.o");
	args_free(a);

	a = parse_env("--options-file=inner.txt", NULL, NULL, dir);
	assert_null(args_problem(a));
	assert_string_equal(input(a, 0)->path, "my file.cu");
	args_free(a);
	remove_dir(dir, (const char *const[]){ "outer.txt", "inner.txt", "more.txt", NULL });
}

static void
options_file_problems_are_left_to_nvcc(void **state)
{
	char *dir = make_dir();
	write_in(dir, "self.txt", "-optf self.txt\n");
	write_in(dir, "dangling.txt", "-c -o\n");
	struct args *a = parse_env("-c k.cu -optf nosuch.txt", NULL, NULL, dir);
	assert_non_null(strstr(args_problem(a), "cannot open options file 'nosuch.txt'"));
	args_free(a);
	a = parse_env("-c k.cu -optf self.txt", NULL, NULL, dir);
	assert_non_null(strstr(args_problem(a), "too many nested options files"));
	args_free(a);
	/* an option at a file's end cannot take its value from after the file */
	a = parse_env("k.cu -optf dangling.txt q.o", NULL, NULL, dir);
	assert_non_null(strstr(args_problem(a), "argument expected after '-o'"));
	assert_int_equal(args_input_count(a), 2);
	args_free(a);
	remove_dir(dir, (const char *const[]){ "self.txt", "dangling.txt", NULL });
}

static void
environment_flags_come_before_and_after_argv(void **state)
{
	struct args *a = parse_env("-c k.cu -DMID -O1", "-DPRE -O2", "-DAPP=\"x y\" -O3 \t-G", NULL);
	assert_null(args_problem(a));
	expect_collected(a, "define-macro", "PRE|MID|APP=\"x y\"");
	assert_string_equal(args_value(a, "optimize"), "3");
	assert_int_equal(option(a, "define-macro", 0)->span.origin, ARGS_FROM_PREPEND_ENV);
	assert_int_equal(option(a, "define-macro", 0)->span.first, -1);
	assert_int_equal(option(a, "define-macro", 1)->span.origin, ARGS_FROM_ARGV);
	assert_int_equal(option(a, "define-macro", 1)->span.first, 2);
	assert_int_equal(option(a, "define-macro", 2)->span.origin, ARGS_FROM_APPEND_ENV);
	assert_true(args_has(a, "device-debug"));
	assert_int_equal(input(a, 0)->span.first, 1); /* argv indices ignore the environment */
	args_free(a);
	/* single quotes mean nothing to nvcc here */
	a = parse_env("-c k.cu", "-DPRE='p q'", NULL, NULL);
	assert_int_equal(args_input_count(a), 2);
	assert_string_equal(input(a, 0)->path, "q'");
	args_free(a);
}

static void
each_phase_option_sets_its_phase(void **state)
{
	static const struct {
		const char *cmd;
		enum args_phase phase;
	} phases[] = {
		{ "-c k.cu", ARGS_PHASE_COMPILE },   { "--compile k.cu", ARGS_PHASE_COMPILE },
		{ "-dc k.cu", ARGS_PHASE_COMPILE },  { "-dw k.cu", ARGS_PHASE_COMPILE },
		{ "-E k.cu", ARGS_PHASE_PREPROCESS }, { "-M k.cu", ARGS_PHASE_DEPS },
		{ "-MM k.cu", ARGS_PHASE_DEPS },     { "-MD k.cu", ARGS_PHASE_LINK },
		{ "-MMD -c k.cu", ARGS_PHASE_COMPILE }, { "-cuda k.cu", ARGS_PHASE_CUDA },
		{ "-ptx k.cu", ARGS_PHASE_PTX },     { "-cubin k.cu", ARGS_PHASE_CUBIN },
		{ "-fatbin k.cu", ARGS_PHASE_FATBIN }, { "-optix-ir k.cu", ARGS_PHASE_OPTIX_IR },
		{ "-dlto -ltoir k.cu", ARGS_PHASE_LTOIR }, { "-dlink k.o", ARGS_PHASE_DLINK },
		{ "-lib k.cu", ARGS_PHASE_LIB },     { "-link k.cu", ARGS_PHASE_LINK },
		{ "k.cu", ARGS_PHASE_LINK },         { "-run k.cu", ARGS_PHASE_RUN },
		/* nvcc's precedence, not the order on the line */
		{ "-c -ptx k.cu", ARGS_PHASE_PTX },  { "-ptx -c k.cu", ARGS_PHASE_PTX },
		{ "-cuda -c k.cu", ARGS_PHASE_CUDA }, { "-cuda -ptx k.cu", ARGS_PHASE_PTX },
		{ "-fatbin -cubin k.cu", ARGS_PHASE_CUBIN }, { "-M -MD k.cu", ARGS_PHASE_DEPS },
		{ "-E -M k.cu", ARGS_PHASE_DEPS },   { "-c -link k.cu", ARGS_PHASE_COMPILE },
		{ "-dlink -lib k.o", ARGS_PHASE_DLINK }, { "-optix-ir -ptx k.cu", ARGS_PHASE_OPTIX_IR },
	};
	for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
		struct args *a = parse(phases[i].cmd);
		if (args_phase(a) != phases[i].phase)
			fail_msg("%s: %s", phases[i].cmd, args_phase_name(args_phase(a)));
		args_free(a);
	}
	struct args *a = parse("-dc k.cu");
	assert_true(args_rdc(a));
	args_free(a);
	a = parse("-c -rdc=true k.cu");
	assert_true(args_rdc(a));
	args_free(a);
	a = parse("-c k.cu");
	assert_false(args_rdc(a));
	args_free(a);
}

static void
per_input_outputs_follow_nvcc_s_names(void **state)
{
	static const struct {
		const char *cmd;
		size_t index;
		const char *output; /* NULL: none */
	} outs[] = {
		{ "-c a.cu", 0, "a.o" },
		{ "-c sub/x.y.cu", 0, "x.y.o" },
		{ "-c a.cu -odir d", 0, "d/a.o" },
		{ "-c a.cu -odir d/", 0, "d/a.o" },
		{ "-c a.cu -odir ./d/../d", 0, "./d/../d/a.o" },
		{ "-c a.cu -o x.o -odir d", 0, "x.o" },
		{ "-c a.cu b.cu", 1, "b.o" },
		{ "-c a.cu b.cu -odir d", 1, "d/b.o" },
		{ "-c m.cpp", 0, "m.o" },
		{ "-c m.c k.cu", 0, "m.o" },
		{ "-c m.ii", 0, "m.o" },
		{ "-c m.o", 0, NULL },
		{ "-dc k.ptx", 0, "k.o" },
		{ "-c k.ptx", 0, NULL },
		{ "-dc a.cu", 0, "a.o" },
		{ "-dw a.cu", 0, "a.o" },
		{ "-ptx a.cu", 0, "a.ptx" },
		{ "-ptx a.cu -odir d", 0, "d/a.ptx" },
		{ "-ptx a.cu -o sub/q.ptx -odir d", 0, "sub/q.ptx" },
		{ "-cubin a.cu b.cu", 1, "b.cubin" },
		{ "-cubin x.ptx", 0, "x.cubin" },
		{ "-fatbin a.cu", 0, "a.fatbin" },
		{ "-fatbin x.cubin", 0, "x.fatbin" },
		{ "-cuda a.cu", 0, "a.cu.cpp.ii" },
		{ "-optix-ir a.cu", 0, "a.optixir" },
		{ "-dlto -ltoir a.cu", 0, "a.ltoir" },
		{ "-E a.cu -o x.i", 0, "x.i" },
		{ "a.cu", 0, NULL },
		{ "-lib a.cu", 0, NULL },
		{ "-M a.cu", 0, NULL },
	};
	for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
		struct args *a = parse(outs[i].cmd);
		const char *got = input(a, outs[i].index)->output;
		if (outs[i].output ? !got || strcmp(got, outs[i].output) != 0 : got != NULL)
			fail_msg("%s: expected %s, got %s", outs[i].cmd,
			         outs[i].output ? outs[i].output : "none", got ? got : "none");
		args_free(a);
	}
	struct args *a = parse("-E a.cu b.cu");
	assert_true(input(a, 0)->output_stdout);
	assert_true(input(a, 1)->output_stdout);
	assert_null(input(a, 0)->output);
	args_free(a);
}

static void
link_lib_and_dlink_write_one_output(void **state)
{
	static const struct {
		const char *cmd;
		const char *output;
	} outs[] = {
		{ "a.cu b.cu", "a.out" },          { "zz.cu", "a.out" },
		{ "a.cu b.cu -odir d", "d/a.out" }, { "a.cu -o prog", "prog" },
		{ "-run a.cu", "a.out" },          { "-lib zz.cu", "a.a" },
		{ "-lib zz.cu -odir d", "d/a.a" }, { "-lib zz.cu -o lib.a -odir d", "lib.a" },
		{ "-dlink zz.o", "a_dlink.o" },    { "-dlink zz.o -odir d", "d/a_dlink.o" },
		{ "-c a.cu", NULL },               { "-ptx a.cu", NULL },
	};
	for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
		struct args *a = parse(outs[i].cmd);
		const char *got = args_output(a);
		if (outs[i].output ? !got || strcmp(got, outs[i].output) != 0 : got != NULL)
			fail_msg("%s: expected %s, got %s", outs[i].cmd,
			         outs[i].output ? outs[i].output : "none", got ? got : "none");
		args_free(a);
	}
}

static void
depfiles_and_targets_follow_nvcc_s_rules(void **state)
{
	static const struct {
		const char *cmd;
		size_t index;
		const char *depfile; /* "-": stdout; NULL: none */
		const char *target;
	} deps[] = {
		{ "-MD -c a.cu", 0, "a.d", "a.o" },
		{ "-MMD -c a.cu", 0, "a.d", "a.o" },
		{ "-MD -c sub/x.y.cu", 0, "x.y.d", "x.y.o" },
		{ "-MD -c a.cu -o sub/q.o", 0, "sub/q.d", "sub/q.o" },
		{ "-MD -MF f.d -c a.cu", 0, "f.d", "a.o" },
		{ "-MD -c a.cu -o q.o -MF f.d", 0, "f.d", "q.o" },
		{ "-MD -c a.cu b.cu", 1, "b.d", "b.o" },
		{ "-MD -c a.cu b.cu -MF f.d", 1, "f.d", "b.o" },
		{ "-MD -c a.cu -odir d", 0, "d/a.d", "d/a.o" },
		{ "-MD -c -odir d sub/x.y.cu", 0, "d/x.y.d", "d/x.y.o" },
		{ "-MD -c -o sub.d/obj a.cu", 0, "sub.d/obj.d", "sub.d/obj" },
		{ "-MD -c a.cu -o noext", 0, "noext.d", "noext" },
		{ "-MD -c m.cpp", 0, "m.d", "m.o" },
		{ "-MD -ptx a.cu -o z.ptx", 0, "z.d", "z.ptx" },
		{ "-MD -fatbin zz.cu", 0, "zz.d", "zz.o" },
		{ "-MD zz.cu", 0, "zz.d", "zz.o" },
		{ "-MD zz.cu -odir d", 0, "d/zz.d", "d/zz.o" },
		{ "-MD zz.cu -o prog", 0, "prog.d", "prog" },
		{ "-MD -lib zz.cu -o lib.a", 0, "lib.d", "lib.a" },
		{ "-MD -MT tg -MP -c a.cu", 0, "a.d", "tg" },
		{ "-M a.cu", 0, "-", "a.o" },
		{ "-MM a.cu -odir d", 0, "-", "d/a.o" },
		{ "-M sub/x.y.cu", 0, "-", "x.y.o" },
		{ "-M -MF f.d a.cu", 0, "f.d", "a.o" },
		{ "-M a.cu -o x.d -MF y.d", 0, "x.d", "a.o" },
		{ "-M -c a.cu -o q.o", 0, "q.o", "a.o" },
		{ "-M -MT t1 -MT t2 a.cu", 0, "-", "t2" },
		{ "-M -MT t1,t2 a.cu", 0, "-", "t1,t2" },
		{ "-M a.cu b.cu", 1, "-", "b.o" },
		{ "-c a.cu", 0, NULL, NULL },
		{ "-MD -c m.o", 0, NULL, NULL },
		{ "-MD -dlink zz.o", 0, NULL, NULL },
	};
	for (size_t i = 0; i < sizeof deps / sizeof deps[0]; i++) {
		struct args *a = parse(deps[i].cmd);
		const struct args_input *in = input(a, deps[i].index);
		const char *got = in->depfile_stdout ? "-" : in->depfile;
		if (deps[i].depfile ? !got || strcmp(got, deps[i].depfile) != 0 : got != NULL)
			fail_msg("%s: depfile: expected %s, got %s", deps[i].cmd,
			         deps[i].depfile ? deps[i].depfile : "none", got ? got : "none");
		got = in->dep_target;
		if (deps[i].target ? !got || strcmp(got, deps[i].target) != 0 : got != NULL)
			fail_msg("%s: target: expected %s, got %s", deps[i].cmd,
			         deps[i].target ? deps[i].target : "none", got ? got : "none");
		args_free(a);
	}
	struct args *a = parse("-MD -MP -c a.cu");
	assert_true(args_deps_with_compile(a));
	assert_true(args_deps_phony(a));
	args_free(a);
	a = parse("-c a.cu");
	assert_false(args_deps_with_compile(a));
	assert_false(args_deps_phony(a));
	args_free(a);
}

static void
codegen_and_preprocessor_values_are_collected(void **state)
{
	struct args *a = parse("-c k.cu -arch=sm_90 -O3 --use_fast_math -ftz=true -G -lineinfo "
	                       "-maxrregcount 32 -Xptxas -v -gencode arch=compute_80,code=sm_80 "
	                       "-I inc -isystem sys -include pre.h -std=c++17 -DN=4 -UM -Xcompiler -O2");
	assert_null(args_problem(a));
	struct strvec sv = STRVEC_INIT;
	static const char *const want[] = { "-arch=sm_90", "-O=3", "-use_fast_math", "-ftz=true",
		"-G", "-lineinfo", "-maxrregcount=32", "-Xptxas=-v",
		"-gencode=arch=compute_80,code=sm_80", "-std=c++17" };
	size_t n = sizeof want / sizeof want[0];
	assert_int_equal(args_codegen_flags(a, &sv), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(sv.v[i], want[i]);
	strvec_clear(&sv);
	expect_collected(a, "system-include", "sys");
	expect_collected(a, "pre-include", "pre.h");
	expect_collected(a, "undefine-macro", "M");
	assert_string_equal(args_value(a, "std"), "c++17");
	assert_string_equal(args_value(a, "gpu-architecture"), "sm_90");
	assert_null(args_value(a, "gpu-code"));
	assert_int_equal(args_option_kind("output-file"), NVCC_ARG_VALUE);
	assert_int_equal(args_option_kind("device-debug"), NVCC_ARG_NONE);
	assert_int_equal(args_option_kind("include-path"), NVCC_ARG_LIST);
	assert_int_equal(args_option_kind("x"), NVCC_ARG_ENUM);
	assert_int_equal(args_option_kind("qpp-config"), NVCC_ARG_VALUE);
	assert_int_equal(args_option_kind("no-such-option"), -1);
	args_free(a);
}

static void
spans_locate_every_input_and_option(void **state)
{
	struct args *a = parse("-c a.cu -o x.o -I inc -DX");
	const struct args_option *o = option(a, "include-path", 0);
	assert_int_equal(o->span.first, 4);
	assert_int_equal(o->span.last, 5);
	o = option(a, "define-macro", 0);
	assert_int_equal(o->span.first, 6);
	assert_int_equal(o->span.last, 6);
	assert_int_equal(input(a, 0)->span.first, 1);
	assert_int_equal(input(a, 0)->span.last, 1);
	args_free(a);
	a = parse("");
	assert_int_equal(args_input_count(a), 0);
	assert_int_equal(args_option_count(a), 0);
	assert_null(args_problem(a));
	args_free(a);
}

static void
preprocessor_flags_keep_order_and_split_lists(void **state)
{
	char *argv[] = { "-Iinc,other", "-DA=1,B", "--undefine-macro=A", "-isystem", "/sys",
	                 "-include", "pre.h", "--std=c++17", "-O3", "-c", "k.cu", NULL };
	struct args *a = args_parse(argv, 11, NULL, NULL, NULL);
	struct strvec out = STRVEC_INIT;
	assert_int_equal(args_preprocessor_flags(a, &out), 10);
	const char *want[] = { "-Iinc", "-Iother", "-DA=1", "-DB", "-UA", "-isystem", "/sys",
	                       "-include", "pre.h", "-std=c++17" };
	for (size_t i = 0; i < 10; i++)
		assert_string_equal(out.v[i], want[i]);
	strvec_clear(&out);
	args_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(preprocessor_flags_keep_order_and_split_lists),
		cmocka_unit_test(output_option_forms_all_name_the_output),
		cmocka_unit_test(glued_values_only_for_the_short_names_nvcc_allows),
		cmocka_unit_test(equals_form_works_for_short_and_long_names),
		cmocka_unit_test(list_values_split_on_commas_except_inside_brackets),
		cmocka_unit_test(options_without_argument_take_none),
		cmocka_unit_test(a_value_is_the_next_token_even_with_a_dash),
		cmocka_unit_test(missing_argument_and_unknown_options_are_problems),
		cmocka_unit_test(x_applies_to_every_input_and_the_last_wins),
		cmocka_unit_test(languages_come_from_extensions),
		cmocka_unit_test(options_files_are_expanded_nested_and_quoted),
		cmocka_unit_test(options_file_problems_are_left_to_nvcc),
		cmocka_unit_test(environment_flags_come_before_and_after_argv),
		cmocka_unit_test(each_phase_option_sets_its_phase),
		cmocka_unit_test(per_input_outputs_follow_nvcc_s_names),
		cmocka_unit_test(link_lib_and_dlink_write_one_output),
		cmocka_unit_test(depfiles_and_targets_follow_nvcc_s_rules),
		cmocka_unit_test(codegen_and_preprocessor_values_are_collected),
		cmocka_unit_test(spans_locate_every_input_and_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
