/*
 * test_rewrite.c -- the rewritten translation unit compiles with nvcc, keeps the
 * user's line numbers, defines the dispatcher, reference and winner, and refuses
 * positions that do not match the text.
 */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/fsutil.h"
#include "common/util.h"
#include "plan/rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char launcher_src[] =
	"#include <cuda_runtime.h>\n"                                         /* 1 */
	"__global__ void scale_k(const float *x, float *y, int n)\n"          /* 2 */
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }\n"
	"#pragma egg optimize in(x[n]) out(y[n]) \\\n"                        /* 4 */
	"    workload(n = 1 << 20)\n"                                         /* 5 */
	"extern \"C\" void scale(const float *x, float *y, int n)\n"          /* 6 */
	"{\n"
	"\tscale_k<<<(n + 255) / 256, 256>>>(x, y, n);\n"
	"}\n"                                                                 /* 9 */
	"static_assert(__LINE__ == 10, \"line numbers survive\");\n"          /* 10 */
	"void user(const float *x, float *y) { scale(x, y, 4); }\n";

static const char launcher_winner[] =
	"__global__ void scale_fast(const float4 *x, float4 *y, int n4)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n4) { float4 v = x[i];\n"
	"  y[i] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w); } }\n"
	"extern \"C\" void scale(const float *x, float *y, int n)\n"
	"{ scale_fast<<<(n / 4 + 255) / 256, 256>>>((const float4 *)x, (float4 *)y, n / 4); }\n";

static struct rewrite_span
span_of(const char *s, const char *needle, size_t from)
{
	const char *p = strstr(s + from, needle);
	assert_non_null(p);
	return (struct rewrite_span){ (size_t)(p - s), (size_t)(p - s) + strlen(needle) };
}

static struct rewrite_target
launcher_target(const char *winner)
{
	static const char *params[] = { "x", "y", "n" };
	const char *s = launcher_src;
	struct rewrite_target t = { 0 };
	t.kind = BUNDLE_LAUNCHER;
	t.name = "scale";
	t.extern_c = 1;
	t.pragma = span_of(s, "#pragma egg optimize in(x[n]) out(y[n]) \\\n    workload(n = 1 << 20)", 0);
	struct rewrite_span def = span_of(s, "extern \"C\" void scale(", 0);
	t.name_tok = span_of(s, "scale(", def.begin);
	t.name_tok.end--;
	t.body = span_of(s, "{\n\tscale_k<<<(n + 255) / 256, 256>>>(x, y, n);\n}", 0);
	t.definition = (struct rewrite_span){ def.begin, t.body.end };
	t.params = params;
	t.n_params = 3;
	t.winner = winner;
	t.arch = 90;
	return t;
}

static void
require_nvcc(void)
{
	if (system("command -v nvcc >/dev/null 2>&1") != 0)
		skip();
}

/* Compiles text with nvcc -c; returns nvcc's status; stderr in *log (caller frees). */
static int
nvcc_compile(const char *text, const char *nm_check, char **log)
{
	require_nvcc();
	char dir[] = "/tmp/egg-rewrite.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *src = egg_xasprintf("%s/t.cu", dir);
	assert_int_equal(fs_write_atomic(src, text, strlen(text)), 0);
	char *cmd = egg_xasprintf("cd %s && nvcc -arch=sm_90 -c t.cu -o t.o >log 2>&1 %s%s%s", dir,
	                          nm_check ? "&& nm -C t.o >nm.txt && " : "", nm_check ? nm_check : "",
	                          nm_check ? " >>log 2>&1" : "");
	int rc = system(cmd);
	char *logpath = egg_xasprintf("%s/log", dir);
	size_t len;
	if (fs_read_file(logpath, 0, log, &len) < 0)
		*log = egg_xstrdup("");
	free(cmd);
	cmd = egg_xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(src);
	free(logpath);
	return rc;
}

static void
rewrite_launcher_compiles_and_defines_dispatcher_reference_and_winner(void **state)
{
	struct rewrite_target t = launcher_target(launcher_winner);
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(rewrite_source("src/scale.cu", launcher_src, strlen(launcher_src), &t, 1, &out, &err), 0);
	assert_non_null(strstr(out.buf, "#line 1 \"src/scale.cu\""));
	assert_null(strstr(out.buf, "#pragma egg"));
	char *log;
	int rc = nvcc_compile(out.buf,
	                      "grep -q ' T scale$' nm.txt && grep -q ' T egg_reference__scale$' nm.txt && "
	                      "grep -q 'egg_winner__scale' nm.txt", &log);
	if (rc != 0)
		fail_msg("nvcc or nm check failed:\n%s\n--- rewritten ---\n%s", log, out.buf);
	free(log);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void
rewrite_error_in_winner_points_at_the_annotated_function(void **state)
{
	struct rewrite_target t = launcher_target("extern \"C\" void scale(const float *x, float *y, int n)\n"
	                                          "{ undeclared_thing(x); }\n");
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(rewrite_source("src/scale.cu", launcher_src, strlen(launcher_src), &t, 1, &out, &err), 0);
	char *log;
	assert_int_not_equal(nvcc_compile(out.buf, NULL, &log), 0);
	/* The winner starts at the pragma's line (4); its second line is 5. */
	if (!strstr(log, "src/scale.cu(5)"))
		fail_msg("diagnostic does not point at src/scale.cu(5):\n%s", log);
	free(log);
	strbuf_release(&out);
	strbuf_release(&err);
}

static const char kernel_src[] =
	"#pragma egg optimize in(a[n]) out(c[n]) workload(n = 1 << 20) launch((n + 255) / 256, 256)\n"
	"__global__ void twice(const float *a, float *c, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n) c[i] = 2 * a[i];\n"
	"}\n"
	"static_assert(__LINE__ == 7, \"line numbers survive\");\n";

static void
rewrite_kernel_target_selects_body_by_architecture(void **state)
{
	static const char *params[] = { "a", "c", "n" };
	const char *winner =
		"__device__ float dbl(float v) { return v + v; }\n"
		"__global__ void __launch_bounds__(256) twice(const float *__restrict__ in, float *out, int count)\n"
		"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < count) out[i] = dbl(in[i]); }\n";
	const char *s = kernel_src;
	struct rewrite_target t = { 0 };
	t.kind = BUNDLE_KERNEL;
	t.name = "twice";
	t.pragma = span_of(s, "#pragma egg optimize in(a[n]) out(c[n]) workload(n = 1 << 20) launch((n + 255) / 256, 256)", 0);
	t.definition = span_of(s, "__global__ void twice(const float *a, float *c, int n)\n{\n"
	                          "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i < n) c[i] = 2 * a[i];\n}", 0);
	t.name_tok = span_of(s, "twice", 0);
	t.body = span_of(s, "{\n\tint i", 0);
	t.body.end = t.definition.end;
	t.params = params;
	t.n_params = 3;
	t.winner = winner;
	t.arch = 90;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(rewrite_source("k.cu", s, strlen(s), &t, 1, &out, &err), 0);
	assert_non_null(strstr(out.buf, "__CUDA_ARCH__ == 900"));
	assert_non_null(strstr(out.buf, "egg_winner__twice(const float *__restrict__ in, float *out, int count)"));
	char *log;
	if (nvcc_compile(out.buf, "grep -q 'twice(float const\\*, float\\*, int)' nm.txt", &log) != 0)
		fail_msg("nvcc failed:\n%s\n--- rewritten ---\n%s", log, out.buf);
	free(log);
	strbuf_release(&out);
	strbuf_release(&err);
}

static const char scoped_src[] =
	"#include <cuda_runtime.h>\n"
	"namespace nn {\n"
	"#pragma egg optimize out(y[n]) workload(n = 64)\n"
	"void fill_a(float *y, int n)\n"
	"{\n"
	"\tcudaMemset(y, 0, n * sizeof(float));\n"
	"}\n"
	"} // namespace nn\n"
	"#pragma egg optimize out(y[n]) workload(n = 64)\n"
	"void fill_b(float *y, int n)\n"
	"{\n"
	"\tcudaMemset(y, 0, n * sizeof(float));\n"
	"}\n"
	"void user(float *y) { nn::fill_a(y, 4); fill_b(y, 4); }\n";

/* A winner's own #include stands at file scope, not inside the namespace its
 * target is in; each target has its own dispatch helper, so one in a namespace
 * and one at file scope both see theirs. */
static void
rewrite_winners_in_namespaces_get_their_headers_and_helpers(void **state)
{
	static const char *params[] = { "y", "n" };
	const char *winner_fmt = "#include <cooperative_groups.h>\n"
	                         "__global__ void %s_k(float *y, int n)\n"
	                         "{ cooperative_groups::thread_block b = cooperative_groups::this_thread_block();\n"
	                         "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 0; b.sync(); }\n"
	                         "void %s(float *y, int n) { %s_k<<<(n + 255) / 256, 256>>>(y, n); }\n";
	struct rewrite_target t[2] = { { 0 }, { 0 } };
	const char *names[2] = { "fill_a", "fill_b" };
	char *winners[2];
	size_t from = 0;
	for (int i = 0; i < 2; i++) {
		t[i].kind = BUNDLE_LAUNCHER;
		t[i].name = names[i];
		t[i].pragma = span_of(scoped_src, "#pragma egg optimize out(y[n]) workload(n = 64)", from);
		char *head = egg_xasprintf("void %s(float *y, int n)", names[i]);
		struct rewrite_span def = span_of(scoped_src, head, from);
		free(head);
		t[i].name_tok = span_of(scoped_src, names[i], def.begin);
		t[i].body = span_of(scoped_src, "{\n\tcudaMemset(y, 0, n * sizeof(float));\n}", def.begin);
		t[i].definition = (struct rewrite_span){ def.begin, t[i].body.end };
		t[i].params = params;
		t[i].n_params = 2;
		winners[i] = egg_xasprintf(winner_fmt, names[i], names[i], names[i]);
		t[i].winner = winners[i];
		t[i].arch = 90;
		from = t[i].definition.end;
	}
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(rewrite_source("s.cu", scoped_src, strlen(scoped_src), t, 2, &out, &err), 0);
	/* the headers before the user's code, and nowhere else */
	const char *first_line = strstr(out.buf, "#line 1 \"s.cu\"");
	assert_non_null(first_line);
	const char *inc = strstr(out.buf, "#include <cooperative_groups.h>");
	assert_true(inc && inc < first_line);
	assert_null(strstr(first_line, "#include <cooperative_groups.h>"));
	assert_non_null(strstr(out.buf, "egg_dispatch_tuned__fill_a(90)"));
	assert_non_null(strstr(out.buf, "egg_dispatch_tuned__fill_b(90)"));
	char *log;
	if (nvcc_compile(out.buf, "grep -q 'nn::fill_a(float\\*, int)' nm.txt && grep -q ' fill_b(float\\*, int)' nm.txt",
	                 &log) != 0)
		fail_msg("nvcc or nm check failed:\n%s\n--- rewritten ---\n%s", log, out.buf);
	free(log);
	free(winners[0]);
	free(winners[1]);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void
rewrite_refuses_positions_that_do_not_match_the_text(void **state)
{
	struct rewrite_target t = launcher_target(launcher_winner);
	t.name_tok.begin++; /* off by one: "cale(" */
	t.name_tok.end++;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(rewrite_source("a.cu", launcher_src, strlen(launcher_src), &t, 1, &out, &err), -1);
	assert_non_null(strstr(err.buf, "do not match the file"));
	assert_int_equal(out.len, 0);
	strbuf_reset(&err);
	t = launcher_target(launcher_winner);
	t.body.end = strlen(launcher_src) + 10;
	assert_int_equal(rewrite_source("a.cu", launcher_src, strlen(launcher_src), &t, 1, &out, &err), -1);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void
rewrite_kernel_winner_without_the_kernel_is_refused(void **state)
{
	static const char *params[] = { "a", "c", "n" };
	const char *s = kernel_src;
	struct rewrite_target t = { 0 };
	t.kind = BUNDLE_KERNEL;
	t.name = "twice";
	t.pragma = span_of(s, "#pragma egg optimize", 0);
	t.pragma.end = strchr(s, '\n') - s;
	t.name_tok = span_of(s, "twice", 0);
	t.body = span_of(s, "{\n\tint i", 0);
	t.definition = span_of(s, "__global__", 0);
	t.definition.end = t.body.end = strstr(s, "}\n") - s + 1;
	t.params = params;
	t.n_params = 3;
	t.winner = "/* twice( */ __global__ void thrice(const float *a, float *c, int n) { }\n";
	t.arch = 90;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(rewrite_source("k.cu", s, strlen(s), &t, 1, &out, &err), -1);
	assert_non_null(strstr(err.buf, "does not define it"));
	strbuf_release(&out);
	strbuf_release(&err);
}

/* A program around the rewritten scale(): which version ran is visible through a
 * device flag that only the winner sets.  Exit status 77: no GPU. */
static const char dispatch_main[] =
	"#include <cstdio>\n"
	"extern \"C\" void scale(const float *x, float *y, int n);\n"
	"__device__ int egg_test_winner_ran;\n"
	"int main() {\n"
	"  int n = 0; if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return 77;\n"
	"  float *x, *y; cudaMalloc(&x, 4096); cudaMalloc(&y, 4096); cudaMemset(x, 0, 4096);\n"
	"  scale(x, y, 1024); int ran = -1;\n"
	"  if (cudaDeviceSynchronize() != cudaSuccess) return 2;\n"
	"  cudaMemcpyFromSymbol(&ran, egg_test_winner_ran, sizeof ran);\n"
	"  printf(\"%s\\n\", ran ? \"winner\" : \"reference\"); return 0; }\n";

static const char flagging_winner[] =
	"extern __device__ int egg_test_winner_ran;\n"
	"__global__ void scale_w(const float *x, float *y, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i == 0) egg_test_winner_ran = 1; if (i < n) y[i] = 2 * x[i]; }\n"
	"extern \"C\" void scale(const float *x, float *y, int n) { scale_w<<<(n + 255) / 256, 256>>>(x, y, n); }\n";

/* Builds rewritten + main for the given -gencode flags and runs it; returns its stdout's first word. */
static char *
run_dispatch(int tuned_arch, const char *gencode)
{
	require_nvcc();
	struct rewrite_target t = launcher_target(flagging_winner);
	t.arch = tuned_arch;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(rewrite_source("scale.cu", launcher_src, strlen(launcher_src), &t, 1, &out, &err), 0);
	strbuf_addstr(&out, dispatch_main);
	char dir[] = "/tmp/egg-dispatch.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *src = egg_xasprintf("%s/t.cu", dir);
	assert_int_equal(fs_write_atomic(src, out.buf, out.len), 0);
	char *cmd = egg_xasprintf("cd %s && nvcc -rdc=true %s t.cu -o t >log 2>&1", dir, gencode);
	int rc = system(cmd);
	if (rc != 0) {
		char *cat = egg_xasprintf("cat %s/log", dir);
		(void)system(cat);
		free(cat);
	}
	assert_int_equal(rc, 0);
	free(cmd);
	cmd = egg_xasprintf("cd %s && ./t > run.out 2>&1", dir);
	rc = system(cmd);
	free(cmd);
	char *runout = egg_xasprintf("%s/run.out", dir), *text = NULL;
	size_t len;
	if (fs_read_file(runout, 0, &text, &len) < 0)
		text = egg_xstrdup("");
	cmd = egg_xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(runout);
	free(src);
	strbuf_release(&out);
	strbuf_release(&err);
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) {
		free(text);
		skip(); /* no GPU here */
	}
	assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
	return text;
}

static void
rewrite_dispatch_runs_winner_on_the_tuned_gpu(void **state)
{
	/* Only meaningful on a compute capability 9.0 GPU (the H200 the tests run on). */
	char *what = run_dispatch(90, "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90");
	assert_string_equal(what, "winner\n");
	free(what);
}

static void
rewrite_dispatch_runs_reference_on_other_gpus(void **state)
{
	/* A winner tuned for compute capability 8.0 must not run on this GPU. */
	char *what = run_dispatch(80, "-arch=sm_90");
	assert_string_equal(what, "reference\n");
	free(what);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rewrite_launcher_compiles_and_defines_dispatcher_reference_and_winner),
		cmocka_unit_test(rewrite_error_in_winner_points_at_the_annotated_function),
		cmocka_unit_test(rewrite_kernel_target_selects_body_by_architecture),
		cmocka_unit_test(rewrite_winners_in_namespaces_get_their_headers_and_helpers),
		cmocka_unit_test(rewrite_refuses_positions_that_do_not_match_the_text),
		cmocka_unit_test(rewrite_kernel_winner_without_the_kernel_is_refused),
		cmocka_unit_test(rewrite_dispatch_runs_winner_on_the_tuned_gpu),
		cmocka_unit_test(rewrite_dispatch_runs_reference_on_other_gpus),
	};
	return cmocka_run_group_tests_name("rewrite", tests, NULL, NULL);
}
