/*
 * test_screen.c -- the candidate screen: what it refuses, what it lets through,
 * and that its messages name the call and where it is.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness/screen.h"

#include <string.h>

static const char *last_why;

static int
screen(const char *src)
{
	static struct strbuf why = STRBUF_INIT;
	strbuf_reset(&why);
	char *extra[] = { "\"mytypes.h\"" };
	int rc = screen_candidate(src, extra, 1, &why);
	last_why = why.buf;
	return rc;
}

static void
expect_refused(const char *src, const char *needle)
{
	if (screen(src) == 0)
		fail_msg("accepted: %s", src);
	if (!strstr(last_why, needle))
		fail_msg("message '%s' lacks '%s'", last_why, needle);
}

static void
expect_accepted(const char *src)
{
	if (screen(src) != 0)
		fail_msg("refused (%s): %s", last_why, src);
}

static void
screen_accepts_ordinary_cuda_code(void **state)
{
	expect_accepted(
		"#include <cuda_runtime.h>\n#include <cub/cub.cuh>\n#include <cuda/pipeline>\n"
		"#include \"mytypes.h\"\n#include <math.h>\n"
		"#define BLOCK 256\n#pragma unroll\n"
		"__device__ float sq(float v) { return v * v; }\n"
		"__global__ void k(const float *__restrict__ x, float *y, int n) {\n"
		"  int thread = threadIdx.x; /* fopen in a comment */ // system() too\n"
		"  const char *s = \"system(\\\"rm\\\") popen\"; (void)s; char c = '\\'';\n"
		"  if (thread < n) y[thread] = sq(__ldg(&x[thread])) + expf(1.0f) + 1'000;\n"
		"}\n"
		"void launch(const float *x, float *y, int n) {\n"
		"  float *tmp; cudaMalloc(&tmp, n * sizeof(float)); memcpy(&n, &n, 4);\n"
		"  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
		"  k<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, s>>>(x, y, n);\n"
		"  cudaStreamSynchronize(s); cudaFree(tmp); obj.read(); p->write(1); printf(\"%d\", n);\n"
		"}\n");
}

static void
screen_accepts_inline_assembly_in_device_code(void **state)
{
	expect_accepted(
		"namespace ns { struct S {\n"
		"  __device__ unsigned lane() { unsigned r; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
		"}; }\n"
		"template <int N> __global__ void k(int *o) { if (N) { __asm__(\"trap;\"); } }\n"
		"extern \"C\" { __device__ int f() { int v; asm(\"mov.u32 %0, 1;\" : \"=r\"(v)); return v; } }\n");
}

static void
screen_refuses_process_file_and_network_calls(void **state)
{
	expect_refused("void f() { system(\"ls\"); }", "'system'");
	expect_refused("void f() { FILE *p = popen(\"ls\", \"r\"); }", "'popen'");
	expect_refused("void f() { ::execvp(a, b); }", "'execvp'");
	expect_refused("void f() { if (fork() == 0) {} }", "'fork'");
	expect_refused("void f() { FILE *f = fopen(\"/etc/passwd\", \"r\"); }", "'fopen'");
	expect_refused("void f() { void *h = dlopen(\"x.so\", 1); }", "'dlopen'");
	expect_refused("void f() { int s = socket(2, 1, 0); connect(s, 0, 0); }", "'socket'");
	expect_refused("void f() { const char *k = getenv(\"EGG_API_KEY\"); }", "'getenv'");
	expect_refused("extern char **environ;", "'environ'");
	expect_refused("void f() { std::system(\"ls\"); }", "'system'");
	expect_refused("void f() { std::thread t(g); }", "std::thread");
	expect_refused("void f() { std::ifstream in(\"x\"); }", "'ifstream'");
	expect_refused("void f() { syscall(59, 0, 0, 0); }", "'syscall'");
	expect_refused("void f() { cudaDeviceReset(); }", "'cudaDeviceReset'");
}

static void
screen_refuses_descriptor_calls_but_not_member_names(void **state)
{
	expect_refused("void f() { int fd = open(\"/x\", 0); }", "calls 'open'");
	expect_refused("void f() { write (1, \"x\", 1); }", "calls 'write'");
	expect_refused("void f() { read /* sneaky */ (0, b, 1); }", "calls 'read'");
	expect_refused("#define R read\n", "'read' in a preprocessor directive");
	expect_accepted("void f() { s.read(); p->close(); int write = 1; (void)write; }");
}

static void
screen_refuses_macro_and_spelling_tricks(void **state)
{
	expect_refused("#define CAT(a, b) a##b\nvoid f() { CAT(sys, tem)(\"ls\"); }", "token pasting");
	expect_refused("%:define CAT(a, b) a%:%:b\n", "token pasting");
	expect_refused("void f() { sys\\\ntem(\"ls\"); }", "'system'");
	expect_refused("void f() { \\u0073ystem(\"ls\"); }", "backslash");
	expect_refused("#define RUN system\nvoid f() { RUN(\"ls\"); }", "'system'");
	expect_refused("?\?=define X 1\n", "trigraph");
	/* a raw string must not desynchronize the lexer */
	expect_refused("const char *s = R\"x(\" )\" )x\"; void f() { system(s); }", "'system'");
	expect_accepted("const char *s = R\"x(system(\"ls\") fopen)x\";");
	expect_refused("const char *s = \"unterminated\nsystem(x);", "not terminated");
}

static void
screen_refuses_headers_outside_the_list(void **state)
{
	expect_refused("#include <unistd.h>\n", "<unistd.h>");
	expect_refused("#include \"/home/user/.ssh/id_rsa\"\n", "id_rsa");
	expect_refused("#include <cub/../../../etc/passwd>\n", "passwd");
	expect_refused("#define H <stdlib.h>\n#include H\n", "literally");
	expect_refused("#  include <fstream>\n", "<fstream>");
}

static void
screen_refuses_host_assembly(void **state)
{
	expect_refused("void f() { asm(\"syscall\"); }", "'asm' outside a __device__");
	expect_refused("__host__ __device__ void f() { __asm__(\"nop\"); }", "'__asm__'");
	expect_refused("asm(\".globl x\");", "'asm'");
	expect_refused("__device__ void g();\nvoid f() { __asm volatile(\"nop\"); }", "'__asm'");
}

static void
screen_refuses_harness_names(void **state)
{
	expect_refused("extern \"C\" void egg_entry_ref_0123(void *const *, const void *);\n",
	               "egg_entry_ref_0123");
	expect_refused("void f() { egg_entry_cand(0, 0); }\n", "egg_entry_cand");
	/* Other egg_ names are the generators' (the builtin names its kernels so). */
	expect_accepted("static int egg_builtin_sm_count(void) { return 1; }\n"
	                "__global__ void egg_softmax_c0_k0(const float *x) {}\n");
}

static void
screen_refuses_attributes_that_run_code_outside_the_calls(void **state)
{
	(void)state;
	expect_refused("__attribute__((constructor)) static void early(void) { }\n", "constructor");
	expect_refused("static void late(void) __attribute__((used, destructor));\n", "destructor");
	expect_refused("#define EARLY __attribute__((__constructor__(101)))\nEARLY void f(void) { }\n",
	               "__constructor__");
	expect_refused("[[gnu::constructor]] void f(void) { }\n", "constructor");
	expect_refused("static void (*p)(void) __attribute__((section(\".init_array\"))) = 0;\n",
	               "section");
	/* the words alone, and other attributes, are fine */
	expect_accepted("struct constructor { int section; };\n"
	                "__global__ void __launch_bounds__(256) k(float *y) { y[0] = 1; }\n"
	                "__attribute__((unused)) static int u;\nint f(int alias) { return alias; }\n");
}

static void
screen_message_names_line_and_column(void **state)
{
	expect_refused("// ok\n__global__ void k() {}\nvoid f() {\n    popen(\"x\", \"r\");\n}\n",
	               "line 4, column 5");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(screen_accepts_ordinary_cuda_code),
		cmocka_unit_test(screen_accepts_inline_assembly_in_device_code),
		cmocka_unit_test(screen_refuses_process_file_and_network_calls),
		cmocka_unit_test(screen_refuses_descriptor_calls_but_not_member_names),
		cmocka_unit_test(screen_refuses_macro_and_spelling_tricks),
		cmocka_unit_test(screen_refuses_headers_outside_the_list),
		cmocka_unit_test(screen_refuses_host_assembly),
		cmocka_unit_test(screen_refuses_harness_names),
		cmocka_unit_test(screen_refuses_attributes_that_run_code_outside_the_calls),
		cmocka_unit_test(screen_message_names_line_and_column),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
