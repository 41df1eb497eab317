/*
 * ncu.c -- Nsight Compute's metrics of a correct candidate, for the agents'
 * profile (run.h: run_options.profile, the candidate's "ncu").
 *
 * The candidate's program runs once more under ncu at its largest workload
 * (the one that moves the most bytes) with --profile W: the program checks
 * that workload and calls the candidate once between cudaProfilerStart and
 * cudaProfilerStop, and ncu, started with its collection off, measures only
 * the kernels of that call.  A small metric set keeps it to a few replays:
 * time, DRAM and SM throughput against their peaks, achieved occupancy, the L2
 * hit rate and the warp stall reasons (cycles per issued instruction).
 *
 * ncu runs confined as the program would (harness/sandbox.h), as
 * compute-sanitizer does: it may execute its own tree and the program, use its
 * default TCP ports (it talks to the target over TCP: base 49152, 64
 * connections) and the existing files beneath /proc.  Anything that goes wrong
 * (no ncu, no permission for the performance counters, ERR_NVGPUCTRPERM, a
 * confinement ncu cannot live with) is the candidate's "ncu" status and
 * message, never its verdict.
 */
#include "config.h"
#include "harness/run_int.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCU_PORT 49152
#define NCU_PORTS 64
#define NCU_MAX_KERNELS 8

/* Every metric exists on sm_70 and later, sm_90 included; the stall
 * reasons by a regular expression, so that a reason a chip lacks is no error. */
static const char ncu_metrics[] =
	"gpu__time_duration.sum,"
	"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,"
	"sm__throughput.avg.pct_of_peak_sustained_elapsed,"
	"sm__warps_active.avg.pct_of_peak_sustained_active,"
	"lts__t_sector_hit_rate.pct,"
	"regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\\.ratio$";

char *
run_find_ncu(const struct run_options *opt)
{
	const char *setting = opt->ncu;
	if (setting && strcmp(setting, "none") == 0)
		return NULL;
	if (setting && *setting)
		return fs_is_executable(setting) ? egg_xstrdup(setting) : NULL;
	char *nvcc = run_find_nvcc(opt);
	if (nvcc) {
		char *bindir = fs_dirname(nvcc), *p = fs_join(bindir, "ncu");
		free(bindir);
		free(nvcc);
		if (fs_is_executable(p))
			return p;
		free(p);
	}
	const char *path = getenv("PATH");
	return path ? fs_find_in_path("ncu", path, NULL) : NULL;
}

/* Is name one of the metrics asked for (ncu_metrics)?  The raw page also
 * lists the device's attributes and launch__* values. */
static int
ncu_wanted(const char *name)
{
	static const char *const prefixes[] = { "gpu__time_duration.", "gpu__dram_throughput.",
		                                "sm__throughput.", "sm__warps_active.", "lts__t_sector_hit_rate.",
		                                "smsp__average_warps_issue_stalled_", NULL };
	for (int i = 0; prefixes[i]; i++)
		if (egg_str_starts(name, prefixes[i]))
			return 1;
	return 0;
}

/* The ncu binary itself when path is a launcher script (CUDA's bin/ncu is a
 * shell script that finds the installed version with readlink, dirname, cut
 * and execs it: a confined run may execute none of those): the newest ELF
 * ncu for this machine's architecture of CUDA's nsight-compute* directories
 * or /opt/nvidia/nsight-compute/ (in a version's target/ARCH/ or its top),
 * else path.  Owned. */
/* The ELF machine (e_machine) of the file at path, or -1 when it is not an
 * ELF file: Nsight Compute installs one binary per target (x64, a64, sbsa),
 * and only the host's own runs here. */
static int
elf_machine(const char *path)
{
	unsigned char h[20];
	FILE *f = fopen(path, "rb");
	size_t got = f ? fread(h, 1, sizeof h, f) : 0;
	if (f)
		fclose(f);
	if (got < sizeof h || memcmp(h, "\177ELF", 4) != 0)
		return -1;
	/* e_machine at offset 18, in the file's byte order (EI_DATA: 1 little) */
	return h[5] == 2 ? h[18] << 8 | h[19] : h[19] << 8 | h[18];
}

char *
run_ncu_binary(const char *path, const char *cuda)
{
	char magic[2] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
	if (f)
		fclose(f);
	if (got < 2 || magic[0] != '#' || magic[1] != '!')
		return egg_xstrdup(path);
	int host = elf_machine("/proc/self/exe");
	char *found = NULL;
	/* (a version's own ncu may be a launcher script too, with the binary
	 * under target/ARCH/) */
	const char *const patterns[] = { "%s/nsight-compute*/target/*/ncu", "%s/nsight-compute*/ncu",
		                         "/opt/nvidia/nsight-compute/*/target/*/ncu",
		                         "/opt/nvidia/nsight-compute/*/ncu" };
	for (int k = 0; k < 4 && !found; k++) {
		char *pattern = egg_xasprintf(patterns[k], cuda);
		glob_t g;
		if (glob(pattern, 0, NULL, &g) == 0)
			for (size_t i = g.gl_pathc; i-- > 0 && !found;) /* sorted: the newest last */
				if (host >= 0 && elf_machine(g.gl_pathv[i]) == host)
					found = egg_xstrdup(g.gl_pathv[i]);
		globfree(&g);
		free(pattern);
	}
	return found ? found : egg_xstrdup(path);
}

/* One CSV field of ncu's output at *p (quoted or not); advances past its comma. */
static char *
ncu_field(const char **p)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s = *p;
	if (*s == '"') {
		for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
			if (*s == '"')
				s++; /* "" inside quotes */
			strbuf_addch(&sb, *s);
		}
		if (*s == '"')
			s++;
	} else {
		while (*s && *s != ',' && *s != '\n' && *s != '\r')
			strbuf_addch(&sb, *s++);
	}
	if (*s == ',')
		s++;
	*p = s;
	return strbuf_detach(&sb);
}

/* The fields of one line into out; returns the start of the next line. */
static const char *
ncu_row(const char *line, struct strvec *out)
{
	const char *p = line;
	while (*p && *p != '\n' && *p != '\r')
		strvec_push_owned(out, ncu_field(&p));
	while (*p == '\r' || *p == '\n')
		p++;
	return p;
}

cJSON *
run_parse_ncu(const char *text)
{
	cJSON *kernels = cJSON_CreateArray();
	const char *p = text;
	struct strvec head = STRVEC_INIT;
	/* the header: the first line whose first field is "ID" */
	while (*p) {
		if (strncmp(p, "\"ID\",", 5) == 0) {
			p = ncu_row(p, &head);
			break;
		}
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	while (*p && head.n && cJSON_GetArraySize(kernels) < NCU_MAX_KERNELS) {
		struct strvec row = STRVEC_INIT;
		const char *next = ncu_row(p, &row);
		/* data rows start with a kernel's number; the units' row and ncu's
		 * own lines do not */
		char *end = NULL;
		if (row.n == head.n && row.v[0][0] && (strtol(row.v[0], &end, 10), *end == '\0')) {
			cJSON *k = cJSON_CreateObject(), *m = cJSON_CreateObject();
			for (size_t i = 0; i < head.n; i++) {
				if (strcmp(head.v[i], "Kernel Name") == 0)
					cJSON_AddStringToObject(k, "name", row.v[i]);
				if (!ncu_wanted(head.v[i]))
					continue; /* not a metric, or one ncu adds (device__attribute_*) */
				struct strbuf num = STRBUF_INIT;
				for (const char *c = row.v[i]; *c; c++)
					if (*c != ',') /* thousands */
						strbuf_addch(&num, *c);
				double v = strtod(num.buf, &end);
				if (num.len && *end == '\0')
					cJSON_AddNumberToObject(m, head.v[i], v);
				strbuf_release(&num);
			}
			cJSON_AddItemToObject(k, "metrics", m);
			cJSON_AddItemToArray(kernels, k);
		}
		strvec_clear(&row);
		p = next;
	}
	strvec_clear(&head);
	return kernels;
}

/* The workload that moves the most bytes in the candidate's timings (the
 * last one when nothing was timed). */
static int
ncu_workload(const cJSON *cand, int n_workloads)
{
	const cJSON *run = cJSON_GetObjectItem(cand, "run"), *t;
	int w = n_workloads > 0 ? n_workloads - 1 : 0;
	double most = -1;
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(run, "timings")) {
		const cJSON *b = cJSON_GetObjectItem(t, "bytes"), *wl = cJSON_GetObjectItem(t, "workload");
		if (cJSON_IsNumber(b) && cJSON_IsNumber(wl) && b->valuedouble > most) {
			most = b->valuedouble;
			w = wl->valueint;
		}
	}
	return w;
}

/* ncu's first "==ERROR==" line, else the output's last line, for the message. */
static char *
ncu_why(const char *out)
{
	const char *e = strstr(out, "==ERROR==");
	if (e)
		return egg_xstrndup(e, strcspn(e, "\n"));
	size_t n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		n--;
	size_t start = n;
	while (start && out[start - 1] != '\n')
		start--;
	return n > start ? egg_xstrndup(out + start, n - start) : egg_xstrdup("it printed nothing");
}

static void
ncu_status(cJSON *o, const char *status, const char *message)
{
	cJSON_AddStringToObject(o, "status", status);
	if (message)
		cJSON_AddStringToObject(o, "message", message);
}

void
run_profile(struct run_ctx *c, const char *stem, cJSON *cand)
{
	cJSON *o = cJSON_AddObjectToObject(cand, "ncu");
	char *ncu = run_find_ncu(c->opt);
	if (!ncu) {
		ncu_status(o, "unavailable", c->opt->ncu && strcmp(c->opt->ncu, "none") == 0
		           ? "the ncu setting is \"none\""
		           : "no ncu (Nsight Compute) beside nvcc, on PATH or where the ncu setting says");
		return;
	}
	int w = ncu_workload(cand, (int)c->b->n_workloads);
	cJSON_AddNumberToObject(o, "workload", w);
	char *exe = egg_xasprintf("%s/%s.exe", c->dir, stem), *pstem = egg_xasprintf("%s.ncu", stem);
	/* confined, ncu may run its own tree (where a link leads, and CUDA's
	 * nsight-compute directories) and the program */
	char *home = fs_dirname(c->nvcc), *cuda = fs_dirname(home);
	char *bin = run_ncu_binary(ncu, cuda), *real = realpath(bin, NULL);
	struct strvec tree = STRVEC_INIT;
	strvec_push(&tree, exe);
	if (real) {
		/* the binary's whole installation: what it runs lies beside it */
		char *target = strstr(real, "/target/");
		strvec_push_owned(&tree, target ? egg_xstrndup(real, (size_t)(target - real)) : fs_dirname(real));
	}
	char *pattern = egg_xasprintf("%s/nsight-compute*", cuda);
	glob_t g;
	if (glob(pattern, 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; i++)
			strvec_push(&tree, g.gl_pathv[i]);
	globfree(&g);
	struct strvec args = STRVEC_INIT;
	strvec_push(&args, "--target-processes");
	strvec_push(&args, "all");
	strvec_push(&args, "--profile-from-start");
	strvec_push(&args, "off");
	strvec_push(&args, "--csv");
	strvec_push(&args, "--print-units");
	strvec_push(&args, "base");
	strvec_push(&args, "--page");
	strvec_push(&args, "raw");
	strvec_push(&args, "--metrics");
	strvec_push(&args, ncu_metrics);
	strvec_push(&args, exe);
	strvec_push(&args, "--profile");
	strvec_push_owned(&args, egg_xasprintf("%d", w));
	strvec_push(&args, "--seed");
	strvec_push_owned(&args, egg_xasprintf("%llu", c->seed));
	struct strbuf err = STRBUF_INIT;
	struct child_status st;
	char *output = NULL;
	c->tcp_port = NCU_PORT;
	c->tcp_ports = NCU_PORTS;
	int fd = proc_gpu_lock(c->gpu_key, &err);
	double limit = (c->opt->timeout_s > 0 ? c->opt->timeout_s : 120) * 10;
	cJSON *j = fd < 0 ? NULL
	           : run_program(c, bin, &args, pstem, c->gpus[0].visible, limit > 600 ? 600 : limit,
	                         (const char *const *)strvec_argv(&tree), &st, &output, &err);
	proc_gpu_unlock(fd);
	c->tcp_port = c->tcp_ports = 0;
	/* the whole output: the CSV's lines are long */
	char *out_path = egg_xasprintf("%s/%s.out", c->dir, pstem), *text = NULL;
	size_t len;
	if (fs_read_file(out_path, 1 << 22, &text, &len) < 0)
		text = egg_xstrdup(output ? output : "");
	cJSON *kernels = run_parse_ncu(text);
	const cJSON *status = cJSON_GetObjectItem(j, "status");
	if (cJSON_GetArraySize(kernels) > 0) {
		ncu_status(o, "ok", NULL);
		cJSON_AddItemToObject(o, "kernels", kernels);
		kernels = NULL;
	} else {
		char *why = ncu_why(text);
		struct strbuf m = STRBUF_INIT;
		if (strstr(text, "ERR_NVGPUCTRPERM"))
			strbuf_addstr(&m, "ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM: "
			              "see NVIDIA's note on it, or run egg where profiling is allowed)");
		else if (err.len)
			strbuf_addf(&m, "ncu could not run: %s", err.buf);
		else if (!cJSON_IsString(status))
			strbuf_addf(&m, "ncu or the program under it failed: %s", why);
		else
			strbuf_addf(&m, "ncu measured no kernel of the candidate: %s", why);
		ncu_status(o, "failed", m.buf);
		size_t n = strlen(text);
		cJSON_AddStringToObject(o, "log", n > 4000 ? text + n - 4000 : text);
		strbuf_release(&m);
		free(why);
	}
	cJSON_Delete(kernels);
	cJSON_Delete(j);
	free(text);
	free(out_path);
	free(output);
	strbuf_release(&err);
	strvec_clear(&args);
	strvec_clear(&tree);
	free(pattern);
	free(cuda);
	free(home);
	free(real);
	free(bin);
	free(pstem);
	free(exe);
	free(ncu);
}
