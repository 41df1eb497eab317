/*
 * test_screen_allowlist.c -- the allowlist screen (analyzer/screen.c through
 * harness/screen_unit.c): host code that resolves to anything but the CUDA
 * toolkit, the math and memory functions, std's algorithms and the candidate's
 * own definitions is refused, however it is spelled; ordinary candidates pass.
 * Each refused case here passes the lexer screen (harness/screen.c) alone,
 * which is checked too: these are the bypasses the allowlist closes.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/bundle.h"
#include "common/fsutil.h"
#include "common/util.h"
#include "harness/screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct egg_bundle *bundle;
static struct strbuf why = STRBUF_INIT;

static int
setup(void **state)
{
	(void)state;
	const char *src = getenv("EGG_SRCDIR");
	char *path = egg_xasprintf("%s/tests/data/harness/copy.json", src ? src : EGG_TEST_SRCDIR);
	char *text = NULL;
	size_t len = 0;
	if (fs_read_file(path, 1 << 20, &text, &len) < 0)
		text = NULL;
	struct strbuf err = STRBUF_INIT;
	bundle = text ? bundle_from_json(text, &err) : NULL;
	if (!bundle)
		fprintf(stderr, "cannot read %s: %s\n", path, err.buf);
	free(text);
	free(path);
	strbuf_release(&err);
	return bundle ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	bundle_free(bundle);
	strbuf_release(&why);
	return 0;
}

#define KERNEL                                                                                 \
	"__global__ void copy_k(const float *x, float *y, size_t n)\n"                        \
	"{ size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (i < n) y[i] = x[i]; }\n"
#define LAUNCH "  copy_k<<<(unsigned)((n + 255) / 256), 256>>>(x, y, n);\n"

static void
expect_refused(const char *src, const char *needle)
{
	strbuf_reset(&why);
	if (screen_candidate(src, bundle->includes, bundle->n_includes, &why) != 0)
		fail_msg("the lexer screen alone refuses this already (%s); not a bypass", why.buf);
	strbuf_reset(&why);
	if (screen_candidate_unit(bundle, src, NULL, &why) == 0)
		fail_msg("accepted:\n%s", src);
	if (!strstr(why.buf, needle))
		fail_msg("message '%s' lacks '%s'", why.buf, needle);
}

static void
expect_accepted(const char *src)
{
	strbuf_reset(&why);
	if (screen_candidate_unit(bundle, src, NULL, &why) != 0)
		fail_msg("refused (%s):\n%s", why.buf, src);
}

static void
host_calls_outside_the_allowlist_are_refused_however_spelled(void **state)
{
	(void)state;
	/* the bypasses of the lexer's denylist, from issue 24 */
	expect_refused("#include <cstdio>\n" KERNEL
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  (remove)(\"/tmp/victim\");\n}\n", "remove");
	expect_refused("#include <cstdio>\n" KERNEL
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  renameat(-100, \"a\", -100, \"b\");\n}\n", "renameat");
	expect_refused(KERNEL "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  char d[] = \"/tmp/eggXXXXXX\"; mkdtemp(d);\n}\n", "mkdtemp");
	expect_refused("#include <cstdio>\n" KERNEL
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  char p[] = \"/tmp/eggXXXXXX\"; int fd = mkostemp(p, 0); dprintf(fd, \"x\");\n}\n",
	               "mkostemp");
	expect_refused("#include <cstdio>\n" KERNEL
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  FILE *f = tmpfile64(); (void)f;\n}\n", "tmpfile64");
	expect_refused("#include <cstdio>\n" KERNEL
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  freopen64(\"/tmp/x\", \"w\", stdout);\n}\n", "freopen64");
	/* a function's address taken, not called */
	expect_refused("#include <cstdio>\n" KERNEL
	               "static int (*volatile drop)(const char *) = nullptr;\n"
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  drop = &remove;\n}\n", "remove");
	/* a call hidden in the candidate's own macro */
	expect_refused(KERNEL "#define GO(f, a) f(a)\n"
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  GO(std::_Exit, 0);\n}\n", "_Exit");
	/* time, a timer game's first step */
	expect_refused(KERNEL "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  (void)clock();\n}\n", "clock");
}

static void
what_a_candidate_declares_it_must_define(void **state)
{
	(void)state;
	expect_refused(KERNEL "extern \"C\" int access(const char *, int);\n"
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  (void)access(\"/etc/shadow\", 0);\n}\n", "declares but does not define");
}

static void
a_name_the_screen_cannot_resolve_is_refused_unless_it_does_not_compile(void **state)
{
	(void)state;
	strbuf_reset(&why);
	assert_int_equal(screen_candidate_unit(bundle,
	                                       KERNEL "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	                                       "  nowhere_declared_fn(x);\n}\n", NULL, &why), 1);
	assert_non_null(strstr(why.buf, "nowhere_declared_fn"));
	/* the same name in device code is nvcc's business */
	strbuf_reset(&why);
	assert_int_equal(screen_candidate_unit(bundle,
	                                       "__global__ void k(float *y) { y[0] = __fancy_intrinsic(1); }\n"
	                                       "void copy_floats(const float *x, float *y, size_t n)\n{\n"
	                                       "  k<<<1, 1>>>(y);\n}\n", NULL, &why), 0);
}

static void
function_pointers_made_from_values_are_refused(void **state)
{
	(void)state;
	expect_refused(KERNEL "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  void *p = (void *)x; ((int (*)(const char *))p)(\"id\");\n}\n",
	               "function pointer");
	expect_refused(KERNEL "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  (void)__builtin_frame_address(0);\n}\n", "__builtin_frame_address");
}

static void
code_that_runs_before_or_after_the_harness_is_refused(void **state)
{
	(void)state;
	expect_refused(KERNEL "static int warm(void) { return 1; }\nstatic int warmed = warm();\n"
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  (void)warmed;\n}\n", "before the harness");
	expect_refused(KERNEL "struct Guard { ~Guard() { } };\nstatic Guard guard;\n"
	               "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH "}\n",
	               "after the harness");
}

static void
streams_of_its_own_and_toolkit_loaders_are_refused(void **state)
{
	(void)state;
	expect_refused(KERNEL "void copy_floats(const float *x, float *y, size_t n)\n{\n"
	               "  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
	               "  copy_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(x, y, n);\n}\n",
	               "cudaStreamCreateWithFlags");
	expect_refused(KERNEL "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  void *fn; cudaDriverEntryPointQueryResult q;\n"
	               "  cudaGetDriverEntryPoint(\"cuModuleLoad\", &fn, cudaEnableDefault, &q);\n}\n",
	               "cudaGetDriverEntryPoint");
}

static void
ordinary_candidates_pass(void **state)
{
	(void)state;
	expect_accepted(
		"#include <cmath>\n#include <algorithm>\n#include <limits>\n#include <cassert>\n"
		"#include <cstring>\n"
		"template <int B> __global__ void copy_t(const float *x, float *y, size_t n)\n"
		"{ size_t i = blockIdx.x * (size_t)B + threadIdx.x;\n"
		"  if (i < n) y[i] = fmaxf(x[i], -INFINITY) + __shfl_xor_sync(~0u, 0.0f, 1);\n"
		"  if (i == 0 && n == 0) printf(\"never\\n\"); }\n"
		"__host__ __device__ inline size_t blocks_for(size_t n, size_t b) { return (n + b - 1) / b; }\n"
		"struct Plan { unsigned blocks; float lim; Plan(size_t n) : blocks((unsigned)blocks_for(n, 256)),"
		" lim(std::numeric_limits<float>::infinity()) {} };\n"
		"static const dim3 kBlock(256);\n"
		"void copy_floats(const float *x, float *y, size_t n)\n{\n"
		"  assert(n > 0);\n  Plan p(n); Plan q = p; (void)q;\n"
		"  int dev = 0; cudaDeviceProp prop; cudaGetDevice(&dev); cudaGetDeviceProperties(&prop, dev);\n"
		"  unsigned g = std::min(p.blocks, (unsigned)prop.multiProcessorCount * 64u);\n"
		"  float host = sqrtf(2.0f) + std::max(1.0f, p.lim); (void)host;\n"
		"  char tag[4]; memset(tag, 0, sizeof tag);\n"
		"  auto launch = [&](unsigned grid) { copy_t<256><<<grid, kBlock>>>(x, y, n); };\n"
		"  launch(g > 0 ? (unsigned)blocks_for(n, 256) : 1u);\n"
		"  (void)cudaGetLastError();\n}\n");
}

static void
the_users_own_macros_may_be_used(void **state)
{
	(void)state;
	/* a cudaCheck-style macro of the user's closure calls fprintf and exit:
	 * the user's code, which the reference runs too */
	char *saved = bundle->closure;
	bundle->closure = egg_xstrdup(
		"#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) "
		"{ fprintf(stderr, \"%s\\n\", cudaGetErrorString(e_)); exit(1); } } while (0)\n");
	expect_accepted(KERNEL "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	                "  CHECK(cudaGetLastError());\n}\n");
	/* but the candidate's own call of exit is not the user's */
	expect_refused(KERNEL "void copy_floats(const float *x, float *y, size_t n)\n{\n" LAUNCH
	               "  if (n == 0) std::quick_exit(0);\n}\n", "quick_exit");
	free(bundle->closure);
	bundle->closure = saved;
}

static void
clang_args_come_from_nvcc_spellings(void **state)
{
	(void)state;
	char *flags[] = { "-Iinc", "-I", "a,b", "--include-path=c", "-DX=1,2", "--define-macro", "Y",
		          "-isystem", "sys", "-std=c++17", "-O3", "--include-pathology", "-include", "pre.h",
		          "-arch=sm_90" };
	struct strvec out = STRVEC_INIT;
	screen_clang_args(flags, sizeof flags / sizeof *flags, &out);
	const char *want[] = { "-Iinc", "-Ia", "-Ib", "-Ic", "-DX=1,2", "-DY", "-isystem", "sys",
		               "-std=c++17", "-include", "pre.h" };
	assert_int_equal(out.n, sizeof want / sizeof *want);
	for (size_t i = 0; i < out.n; i++)
		assert_string_equal(out.v[i], want[i]);
	strvec_clear(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(host_calls_outside_the_allowlist_are_refused_however_spelled),
		cmocka_unit_test(what_a_candidate_declares_it_must_define),
		cmocka_unit_test(a_name_the_screen_cannot_resolve_is_refused_unless_it_does_not_compile),
		cmocka_unit_test(function_pointers_made_from_values_are_refused),
		cmocka_unit_test(code_that_runs_before_or_after_the_harness_is_refused),
		cmocka_unit_test(streams_of_its_own_and_toolkit_loaders_are_refused),
		cmocka_unit_test(ordinary_candidates_pass),
		cmocka_unit_test(the_users_own_macros_may_be_used),
		cmocka_unit_test(clang_args_come_from_nvcc_spellings),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
