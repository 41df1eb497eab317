/*
 * test_harness.c -- the harness's parts that need no GPU: program generation
 * (isolation of reference and candidate, clause expressions, refusals), the
 * ptxas resource parser, child processes (time limit, process group, secrets),
 * and the result's JSON form.
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
#include "harness/gen.h"
#include "harness/proc.h"
#include "harness/run.h"
#include "harness/run_int.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The bundle tests/data/harness/NAME.json, with its workloads replaced by the
 * JSON array text workloads unless NULL. */
static struct egg_bundle *
load_with_workloads(const char *name, const char *workloads)
{
	const char *src = getenv("EGG_SRCDIR");
	char *path = egg_xasprintf("%s/tests/data/harness/%s.json", src ? src : ".", name);
	char *text = NULL;
	size_t len;
	if (fs_read_file(path, 0, &text, &len) < 0)
		fail_msg("cannot read %s", path);
	if (workloads) {
		cJSON *j = cJSON_Parse(text);
		cJSON *w = cJSON_Parse(workloads);
		assert_non_null(j);
		assert_non_null(w);
		cJSON_ReplaceItemInObject(j, "workloads", w);
		char *out = cJSON_PrintUnformatted(j);
		free(text);
		text = egg_xstrdup(out);
		cJSON_free(out);
		cJSON_Delete(j);
	}
	struct strbuf err = STRBUF_INIT;
	struct egg_bundle *b = bundle_from_json(text, &err);
	if (!b)
		fail_msg("%s: %s", path, err.buf);
	free(text);
	free(path);
	strbuf_release(&err);
	return b;
}

static struct egg_bundle *
load(const char *name)
{
	return load_with_workloads(name, NULL);
}
static void
probes_vary_the_free_size_bindings_and_keep_derived_ones(void **state)
{
	int size[8];
	/* softmax: x[rows * cols], y[rows * cols]; both scalars are sizes */
	struct egg_bundle *b = load("softmax");
	assert_int_equal(gen_size_bindings(b, size), 2);
	assert_int_equal(size[0], 0);
	assert_int_equal(size[1], 1);
	assert_int_equal(gen_n_probes(b), 6);
	bundle_free(b);
	/* locals B and T give rows (derived: evaluated again at each probe, not
	 * varied); an unused local is no size; cols is */
	b = load_with_workloads("softmax", "[[{\"name\":\"B\",\"value\":\"8\"},"
	                        "{\"name\":\"T\",\"value\":\"1024\"},"
	                        "{\"name\":\"rows\",\"value\":\"B * T\"},"
	                        "{\"name\":\"unused\",\"value\":\"3\"},"
	                        "{\"name\":\"cols\",\"value\":\"768\"}]]");
	assert_int_equal(gen_size_bindings(b, size), 3);
	assert_int_equal(size[0], 0);
	assert_int_equal(size[1], 1);
	assert_int_equal(size[2], -1);
	assert_int_equal(size[3], -1);
	assert_int_equal(size[4], 2);
	assert_int_equal(gen_n_probes(b), 8);
	/* the program sets the probes up after the named workload */
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(gen_main(b, "egg_entry_ref_abc", NULL, 0, &out, &err), 0);
	assert_non_null(strstr(out.buf, "#define EGG_N_PROBES 8\n"));
	assert_non_null(strstr(out.buf, "\tcase 8: {\n"));
	assert_null(strstr(out.buf, "\tcase 9: {\n"));
	strbuf_release(&out);
	strbuf_release(&err);
	bundle_free(b);
	/* a name that only looks like a size (a member, a longer identifier) is none */
	b = load_with_workloads("softmax", "[[{\"name\":\"rows\",\"value\":\"4\"},"
	                        "{\"name\":\"col\",\"value\":\"2\"},"
	                        "{\"name\":\"cols\",\"value\":\"64\"}]]");
	assert_int_equal(gen_size_bindings(b, size), 2);
	assert_int_equal(size[1], -1);
	bundle_free(b);
	(void)state;
}

static void
gen_main_never_contains_reference_code(void **state)
{
	struct egg_bundle *b = load("scale");
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(gen_main(b, "egg_entry_ref_abc", NULL, 0, &out, &err), 0);
	assert_null(strstr(out.buf, "scale_kernel"));
	assert_null(strstr(out.buf, "2.0f * x[i]"));
	assert_non_null(strstr(out.buf, "extern \"C\" void egg_entry_ref_abc(void *const *, const egg_launch *);"));
	assert_non_null(strstr(out.buf, "extern \"C\" void " GEN_CAND_ENTRY "("));
	/* the workload's expressions, under the pragma's location */
	assert_non_null(strstr(out.buf, "#line 10 \"scale.cu\""));
	assert_non_null(strstr(out.buf, "const int n = (int)(1 << 24);"));
	assert_non_null(strstr(out.buf, "egg_x->count[0] = (long long)(n);"));
	assert_non_null(strstr(out.buf, "\nmain(int argc, char **argv)"));
	/* the runtime is a unit of its own, the same for every bundle */
	assert_null(strstr(out.buf, "egg_runtime_main(int argc, char **argv, const egg_program *prog)\n{"));
	struct strbuf rt = STRBUF_INIT;
	gen_runtime(&rt);
	assert_non_null(strstr(rt.buf, "egg_runtime_main(int argc, char **argv, const egg_program *prog)\n{"));
	strbuf_release(&rt);
	strbuf_release(&out);
	strbuf_release(&err);
	bundle_free(b);
}

static void
gen_unit_hides_contender_in_anonymous_namespace(void **state)
{
	struct egg_bundle *b = load("scale");
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char *cand = "extern \"C\" void scale(const float *x, float *y, int n)\n{ /* new */ }\n";
	assert_int_equal(gen_unit(b, cand, GEN_CAND_ENTRY, &out, &err), 0);
	const char *ns = strstr(out.buf, "namespace {");
	const char *code = strstr(out.buf, "/* new */");
	const char *end = strstr(out.buf, "} /* namespace */");
	const char *entry = strstr(out.buf, "extern \"C\" void egg_entry_cand(");
	assert_non_null(ns);
	assert_non_null(code);
	assert_non_null(end);
	assert_non_null(entry);
	assert_true(ns < code && code < end && end < entry);
	/* the closure comes along, the single-declaration extern "C" does not */
	assert_non_null(strstr(out.buf, "__global__ void scale_kernel"));
	assert_null(strstr(ns, "extern \"C\" void scale"));
	assert_non_null(strstr(out.buf, "scale(*(const float * *)egg_a[0], *(float * *)egg_a[1], *(int *)egg_a[2]);"));
	strbuf_release(&out);
	strbuf_release(&err);
	bundle_free(b);
}

static void
gen_unit_launches_kernel_targets_with_main_geometry(void **state)
{
	struct egg_bundle *b = load("saxpy_kernel");
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, m = STRBUF_INIT;
	assert_int_equal(gen_unit(b, b->target, "egg_entry_ref_x", &out, &err), 0);
	assert_non_null(strstr(out.buf, "saxpy_kernel<<<egg_l->grid, egg_l->block, egg_l->smem>>>("));
	assert_int_equal(gen_main(b, "egg_entry_ref_x", NULL, 0, &m, &err), 0);
	assert_non_null(strstr(m.buf, "egg_x->launch.grid = dim3((n + 255) / 256);"));
	assert_non_null(strstr(m.buf, "const float a = (float)(2.5f);"));
	assert_non_null(strstr(m.buf, "{ \"y\", EGG_T_F32, 1, EGG_ROLE_INOUT, 1, 0 },"));
	strbuf_release(&out);
	strbuf_release(&m);
	strbuf_release(&err);
	bundle_free(b);
}

static void
gen_unit_f64_spells_float_as_double_before_the_closure(void **state)
{
	struct egg_bundle *b = load("scale");
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
	assert_int_equal(gen_unit_f64(b, "egg_entry_ref_x" GEN_F64_SUFFIX, &out, &why), 0);
	const char *def = strstr(out.buf, "#define float double\n");
	const char *closure = strstr(out.buf, "__global__ void scale_kernel");
	assert_non_null(def);
	assert_non_null(closure);
	assert_true(def < closure);
	/* float math becomes double math rather than rounding its argument */
	assert_non_null(strstr(out.buf, "#define expf exp\n"));
	assert_non_null(strstr(out.buf, "#define __fdividef(a, b) ((a) / (b))\n"));
	assert_non_null(strstr(out.buf, "extern \"C\" void egg_entry_ref_x_f64(void *const *egg_a"));
	strbuf_release(&out);
	strbuf_release(&why);
	bundle_free(b);
}

static void
gen_unit_f64_refuses_bundles_without_float_outputs_or_with_float_vectors(void **state)
{
	struct egg_bundle *b = load("half");
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
	assert_int_equal(gen_unit_f64(b, "e", &out, &why), -1);
	assert_string_equal(why.buf, "no float output");
	bundle_free(b);
	strbuf_reset(&why);
	b = load("scale");
	char *closure = egg_xasprintf("%s\n__device__ float4 egg_v4;\n", b->closure);
	free(b->closure);
	b->closure = closure;
	assert_int_equal(gen_unit_f64(b, "e", &out, &why), -1);
	assert_non_null(strstr(why.buf, "float4"));
	/* a word that only contains the name is not a use of it */
	strbuf_reset(&why);
	strcpy(strstr(b->closure, "float4 egg_v4"), "int my_float4x;\n");
	assert_int_equal(gen_unit_f64(b, "e", &out, &why), 0);
	strbuf_release(&out);
	strbuf_release(&why);
	bundle_free(b);
}

static void
gen_main_declares_the_float64_twin_weak(void **state)
{
	struct egg_bundle *b = load("scale");
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(gen_main(b, "egg_entry_ref_abc", NULL, 0, &out, &err), 0);
	assert_non_null(strstr(out.buf, "extern \"C\" void egg_entry_ref_abc_f64(void *const *, "
	                                "const egg_launch *) __attribute__((weak));"));
	/* and hands it to the runtime as the twin: NULL where it is not linked */
	assert_non_null(strstr(out.buf, "egg_setup_workload, egg_entry_ref_abc, " GEN_CAND_ENTRY
	                                ", egg_entry_ref_abc_f64 };"));
	strbuf_release(&out);
	strbuf_release(&err);
	bundle_free(b);
}

static void
gen_main_honours_ranges_tolerances_and_types(void **state)
{
	struct egg_bundle *b = load("gather");
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(gen_main(b, "r", NULL, 0, &out, &err), 0);
	assert_non_null(strstr(out.buf, "egg_x->has_range[1] = 1; egg_x->lo[1] = (double)(0); egg_x->hi[1] = (double)(vocab);"));
	assert_non_null(strstr(out.buf, "egg_x->rtol = (double)(0);"));
	assert_non_null(strstr(out.buf, "{ \"idx\", EGG_T_I32, 1, EGG_ROLE_IN, 1, 0 },"));
	bundle_free(b);
	strbuf_reset(&out);
	b = load("half");
	assert_int_equal(gen_main(b, "r", NULL, 0, &out, &err), 0);
	assert_non_null(strstr(out.buf, "{ \"x\", EGG_T_F16, 1, EGG_ROLE_IN, 1, 0 },"));
	assert_non_null(strstr(out.buf, "{ \"y\", EGG_T_BF16, 1, EGG_ROLE_OUT, 1, 0 },"));
	assert_non_null(strstr(out.buf, "{ \"flags\", EGG_T_U8, 1, EGG_ROLE_OUT, 1, 0 },"));
	assert_non_null(strstr(out.buf, "const long n = (long)((1L << 20) + 1);"));
	strbuf_release(&out);
	strbuf_release(&err);
	bundle_free(b);
}

static void
expect_refusal(struct egg_bundle *b, const char *needle)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	assert_int_equal(gen_main(b, "r", NULL, 0, &out, &err), -1);
	if (!strstr(err.buf, needle))
		fail_msg("'%s' lacks '%s'", err.buf, needle);
	assert_int_equal(out.len, 0);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void
gen_refuses_bundles_it_cannot_evaluate(void **state)
{
	struct egg_bundle *b = load("softmax");
	free(b->workloads[1].bindings[1].name);
	b->workloads[1].bindings[1].name = egg_xstrdup("colz");
	expect_refusal(b, "workload 2 of softmax_forward gives no value to the scalar parameter 'cols'");
	bundle_free(b);

	b = load("scale");
	free(b->params[0].extent);
	b->params[0].extent = NULL;
	expect_refusal(b, "pointer parameter 'x' of scale has no extent");
	b->params[0].extent = egg_xstrdup("n");
	free(b->params[0].elem_type);
	b->params[0].elem_type = egg_xstrdup("struct particle");
	expect_refusal(b, "type 'struct particle'");
	free(b->params[0].elem_type);
	b->params[0].elem_type = egg_xstrdup("float");
	b->params[1].role = ROLE_IN;
	expect_refusal(b, "no out or inout buffer");
	b->params[1].role = ROLE_OUT;
	b->n_workloads = 0;
	expect_refusal(b, "no workload");
	b->n_workloads = 2;
	bundle_free(b);

	b = load("saxpy_kernel");
	free(b->launch_grid);
	b->launch_grid = NULL;
	expect_refusal(b, "no launch(GRID, BLOCK) clause");
	bundle_free(b);

	/* the runtime's tables hold GEN_MAX_PARAMS parameters */
	b = load("scale");
	size_t n0 = b->n_params;
	b->params = egg_xrealloc(b->params, (GEN_MAX_PARAMS + 1) * sizeof *b->params);
	memset(b->params + n0, 0, (GEN_MAX_PARAMS + 1 - n0) * sizeof *b->params);
	b->n_params = GEN_MAX_PARAMS + 1;
	expect_refusal(b, "scale has 257 parameters; the harness takes at most 256");
	bundle_free(b);
}

static void
ptxas_resources_are_parsed_per_kernel(void **state)
{
	const char *log =
		"ptxas info    : 0 bytes gmem\n"
		"ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'\n"
		"ptxas info    : Function properties for _Z1kPf\n"
		"    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
		"ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0]\n"
		"ptxas info    : Function properties for _Z6helperv\n"
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		"ptxas info    : Compiling entry function '_Z2k2v' for 'sm_90'\n"
		"ptxas info    : Function properties for _Z2k2v\n"
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		"ptxas info    : Used 8 registers, used 0 barriers, 352 bytes cmem[0]\n";
	cJSON *a = run_parse_ptxas(log);
	assert_int_equal(cJSON_GetArraySize(a), 2);
	cJSON *k = cJSON_GetArrayItem(a, 0);
	assert_string_equal(cJSON_GetObjectItem(k, "function")->valuestring, "_Z1kPf");
	assert_int_equal(cJSON_GetObjectItem(k, "registers")->valueint, 40);
	assert_int_equal(cJSON_GetObjectItem(k, "smem_bytes")->valueint, 1024);
	assert_int_equal(cJSON_GetObjectItem(k, "stack_bytes")->valueint, 16);
	assert_int_equal(cJSON_GetObjectItem(k, "spill_stores")->valueint, 8);
	assert_int_equal(cJSON_GetObjectItem(k, "spill_loads")->valueint, 4);
	k = cJSON_GetArrayItem(a, 1);
	assert_string_equal(cJSON_GetObjectItem(k, "function")->valuestring, "_Z2k2v");
	assert_int_equal(cJSON_GetObjectItem(k, "smem_bytes")->valueint, 0);
	cJSON_Delete(a);
}

static void
secrets_are_recognized_by_name(void **state)
{
	const char *secret[] = { "EGG_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
		                 "EGG_CACHE_SECRET", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY",
		                 "HF_TOKEN", "my_api_key", "DB_PASSWORD", "SIGNING_KEY", NULL };
	const char *plain[] = { "PATH", "HOME", "CUDA_VISIBLE_DEVICES", "EGG_MODE", "LANG",
		                "EGG_GPU", "KEYBOARD", NULL };
	for (int i = 0; secret[i]; i++)
		if (!child_env_is_secret(secret[i]))
			fail_msg("%s passes", secret[i]);
	for (int i = 0; plain[i]; i++)
		if (child_env_is_secret(plain[i]))
			fail_msg("%s is dropped", plain[i]);
}

static char *
tmp_path(const char *name)
{
	return egg_xasprintf("%s/egg-test-harness-%ld-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
	                     (long)getpid(), name);
}

static void
children_get_no_secrets_and_their_status(void **state)
{
	setenv("FAKE_API_KEY", "sk-123", 1);
	setenv("EGG_CACHE_SECRET", "hunter2", 1);
	setenv("EGG_HARNESS_VISIBLE", "yes", 1);
	char *out = tmp_path("env");
	char *argv[] = { "/bin/sh", "-c", "env; exit 7", NULL };
	char *extra[] = { "EGG_EXTRA=1", NULL };
	struct child_status st;
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(proc_run(argv, extra, NULL, out, NULL, 30, &st, &err), 0);
	assert_true(st.exited);
	assert_int_equal(st.code, 7);
	char *text;
	size_t len;
	assert_int_equal(fs_read_file(out, 0, &text, &len), 0);
	assert_null(strstr(text, "sk-123"));
	assert_null(strstr(text, "hunter2"));
	assert_non_null(strstr(text, "EGG_HARNESS_VISIBLE=yes"));
	assert_non_null(strstr(text, "EGG_EXTRA=1"));
	free(text);
	unlink(out);
	free(out);
	strbuf_release(&err);
}

static void
a_hanging_child_and_its_children_are_killed_at_the_limit(void **state)
{
	char *pidfile = tmp_path("pid");
	char *cmd = egg_xasprintf("sleep 60 & echo $! > %s; sleep 60", pidfile);
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct child_status st;
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	assert_int_equal(proc_run(argv, NULL, NULL, NULL, NULL, 0.5, &st, &err), 0);
	assert_true(st.timed_out);
	assert_false(st.exited);
	assert_true(st.wall_s < 10);
	child_describe(&st, &why);
	assert_non_null(strstr(why.buf, "time limit"));
	char *text;
	size_t len;
	assert_int_equal(fs_read_file(pidfile, 0, &text, &len), 0);
	pid_t grandchild = (pid_t)atol(text);
	assert_true(grandchild > 0);
	usleep(100 * 1000);
	/* the background sleep was in the group: it is gone (or a zombie of init) */
	char *stat_path = egg_xasprintf("/proc/%ld/stat", (long)grandchild);
	char *stat = NULL;
	if (fs_read_file(stat_path, 0, &stat, &len) == 0) {
		const char *s = strrchr(stat, ')');
		assert_true(s && (s[2] == 'Z' || s[2] == 'X'));
		free(stat);
	}
	free(stat_path);
	free(text);
	unlink(pidfile);
	free(pidfile);
	free(cmd);
	strbuf_release(&err);
	strbuf_release(&why);
}

static void
a_crashing_child_is_a_status_not_a_crash(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "kill -SEGV $$", NULL };
	struct child_status st;
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	assert_int_equal(proc_run(argv, NULL, NULL, NULL, NULL, 30, &st, &err), 0);
	assert_false(st.exited);
	assert_int_equal(st.sig, 11);
	child_describe(&st, &why);
	assert_non_null(strstr(why.buf, "signal 11"));
	char *missing[] = { "/nonexistent/program", NULL };
	assert_int_equal(proc_run(missing, NULL, NULL, NULL, NULL, 30, &st, &err), 0);
	assert_int_equal(st.code, 127);
	strbuf_release(&err);
	strbuf_release(&why);
}

static void
gpu_lock_is_exclusive_across_processes(void **state)
{
	char *dir = tmp_path("locks");
	fs_mkdir_p(dir, 0755);
	setenv("EGG_LOCK_DIR", dir, 1);
	struct strbuf err = STRBUF_INIT;
	int fd = proc_gpu_lock("GPU-abc/../x", &err);
	assert_true(fd >= 0);
	char *lock = egg_xasprintf("%s/egg-gpu-GPU-abc____x.lock", dir);
	assert_true(access(lock, F_OK) == 0);
	/* another process cannot take it while we hold it */
	char *cmd = egg_xasprintf("flock -n %s true", lock);
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct child_status st;
	assert_int_equal(proc_run(argv, NULL, NULL, NULL, NULL, 30, &st, &err), 0);
	assert_int_not_equal(st.code, 0);
	proc_gpu_unlock(fd);
	assert_int_equal(proc_run(argv, NULL, NULL, NULL, NULL, 30, &st, &err), 0);
	assert_int_equal(st.code, 0);
	unlink(lock);
	rmdir(dir);
	unsetenv("EGG_LOCK_DIR");
	free(cmd);
	free(lock);
	free(dir);
	strbuf_release(&err);
}

static void
result_json_round_trips_and_is_checked(void **state)
{
	struct egg_bundle *b = load("scale");
	struct run_options opt;
	memset(&opt, 0, sizeof opt);
	opt.seed = 42;
	opt.gpu = "none";
	enum run_status st;
	cJSON *r = run_evaluate(b, NULL, 0, &opt, &st);
	assert_int_equal(st, RUN_NO_GPU);
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(run_check_result(r, &err), 0);
	char *once = cJSON_Print(r);
	cJSON *back = cJSON_Parse(once);
	assert_int_equal(run_check_result(back, &err), 0);
	char *twice = cJSON_Print(back);
	assert_string_equal(once, twice);
	assert_string_equal(cJSON_GetObjectItem(back, "status")->valuestring, "no_gpu");
	assert_int_equal(cJSON_GetObjectItem(back, "seed")->valueint, 42);
	cJSON_DeleteItemFromObject(back, "candidates");
	assert_int_equal(run_check_result(back, &err), -1);
	assert_non_null(strstr(err.buf, "'candidates' is missing"));
	strbuf_reset(&err);
	cJSON_ReplaceItemInObject(back, "schema", cJSON_CreateString("egg-bundle"));
	assert_int_equal(run_check_result(back, &err), -1);
	assert_non_null(strstr(err.buf, "schema"));
	cJSON_free(once);
	cJSON_free(twice);
	cJSON_Delete(r);
	cJSON_Delete(back);
	strbuf_release(&err);
	bundle_free(b);
}

/* A file of 64 bytes: an ELF header of machine m (little-endian, 64-bit). */
static void
write_elf(const char *path, int m)
{
	unsigned char h[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	h[16] = 2;
	h[18] = (unsigned char)(m & 0xff);
	h[19] = (unsigned char)(m >> 8);
	assert_int_equal(fs_write_atomic(path, h, sizeof h), 0);
}

static void
a_launcher_script_resolves_to_the_ncu_of_this_machines_architecture(void **state)
{
	(void)state;
	char dir[] = "/tmp/egg-ncu-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *bin = egg_xasprintf("%s/bin", dir);
	char *x64 = egg_xasprintf("%s/nsight-compute-2025.3.1/target/linux-desktop-glibc_2_11_3-x64", dir);
	char *a64 = egg_xasprintf("%s/nsight-compute-2025.3.1/target/linux-desktop-t210-a64", dir);
	fs_mkdir_p(bin, 0755);
	fs_mkdir_p(x64, 0755);
	fs_mkdir_p(a64, 0755);
	char *script = egg_xasprintf("%s/ncu", bin);
	assert_int_equal(fs_write_atomic(script, "#!/bin/sh\nexit 1\n", 17), 0);
	/* the host's own machine, read as the code under test does not: from
	 * this test's binary, whose ELF header says what it was built for */
	unsigned char self[20];
	FILE *f = fopen("/proc/self/exe", "rb");
	assert_non_null(f);
	assert_int_equal(fread(self, 1, sizeof self, f), sizeof self);
	fclose(f);
	int host = self[18] | self[19] << 8, other = host == 62 ? 183 : 62; /* x86-64, AArch64 */
	char *mine = egg_xasprintf("%s/ncu", host == 62 ? x64 : a64);
	char *theirs = egg_xasprintf("%s/ncu", host == 62 ? a64 : x64);
	write_elf(mine, host);
	write_elf(theirs, other);
	char *got = run_ncu_binary(script, dir);
	assert_string_equal(got, mine);
	free(got);
	/* no binary for this machine: the script itself */
	unlink(mine);
	got = run_ncu_binary(script, dir);
	assert_string_equal(got, script);
	free(got);
	/* an ELF ncu is run as it is */
	got = run_ncu_binary(theirs, dir);
	assert_string_equal(got, theirs);
	free(got);
	char *rm = egg_xasprintf("rm -rf %s", dir);
	assert_int_equal(system(rm), 0);
	free(rm);
	free(mine);
	free(theirs);
	free(script);
	free(bin);
	free(x64);
	free(a64);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gen_main_never_contains_reference_code),
		cmocka_unit_test(probes_vary_the_free_size_bindings_and_keep_derived_ones),
		cmocka_unit_test(gen_unit_hides_contender_in_anonymous_namespace),
		cmocka_unit_test(gen_unit_launches_kernel_targets_with_main_geometry),
		cmocka_unit_test(gen_main_honours_ranges_tolerances_and_types),
		cmocka_unit_test(gen_unit_f64_spells_float_as_double_before_the_closure),
		cmocka_unit_test(gen_unit_f64_refuses_bundles_without_float_outputs_or_with_float_vectors),
		cmocka_unit_test(gen_main_declares_the_float64_twin_weak),
		cmocka_unit_test(gen_refuses_bundles_it_cannot_evaluate),
		cmocka_unit_test(ptxas_resources_are_parsed_per_kernel),
		cmocka_unit_test(secrets_are_recognized_by_name),
		cmocka_unit_test(children_get_no_secrets_and_their_status),
		cmocka_unit_test(a_hanging_child_and_its_children_are_killed_at_the_limit),
		cmocka_unit_test(a_crashing_child_is_a_status_not_a_crash),
		cmocka_unit_test(gpu_lock_is_exclusive_across_processes),
		cmocka_unit_test(result_json_round_trips_and_is_checked),
		cmocka_unit_test(a_launcher_script_resolves_to_the_ncu_of_this_machines_architecture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
