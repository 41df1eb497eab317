/*
 * remote.c -- evaluation on another machine through a command (see run.h).
 *
 * The command is the user's (the eval_command setting, EGG_EVAL_COMMAND, or
 * egg eval --remote), typically `ssh gpu1 egg eval -`: egg eval on the far side
 * reads the job from stdin and prints the result, so the transport is anything
 * that connects a stdin to a stdout.  The reply is checked like any other input
 * from outside: a result that is not one becomes an error result.
 */
#include "config.h"
#include "harness/run.h"
#include "harness/proc.h"
#include "common/child.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *
remote_failure(const char *target, const char *message, enum run_status *status)
{
	cJSON *r = run_new_result(target);
	cJSON_ReplaceItemInObject(r, "status", cJSON_CreateString("error"));
	cJSON_ReplaceItemInObject(r, "message", cJSON_CreateString(message));
	*status = RUN_ERROR;
	return r;
}

void *
run_remote(const char *command, const char *job_json, const char *target, double timeout_s,
           enum run_status *status)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = egg_xasprintf("%s/egg-remote.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	struct strbuf msg = STRBUF_INIT;
	void *result = NULL;
	if (!mkdtemp(dir)) {
		strbuf_addf(&msg, "cannot create a directory for the remote evaluation: %s",
		            strerror(errno));
		result = remote_failure(target, msg.buf, status);
		free(dir);
		strbuf_release(&msg);
		return result;
	}
	child_remove_on_death(dir);
	char *in = fs_join(dir, "job.json"), *out = fs_join(dir, "result.json"),
	     *err = fs_join(dir, "stderr");
	char *argv[] = { "/bin/sh", "-c", (char *)command, NULL };
	/* A local command that is egg eval again must evaluate, not forward again. */
	char *env[] = { "EGG_EVAL_COMMAND=", NULL };
	struct child_status st;
	if (fs_write_atomic(in, job_json, strlen(job_json)) < 0) {
		strbuf_addf(&msg, "cannot write the job for the remote evaluation: %s", strerror(errno));
	} else if (proc_run(argv, env, in, out, err, timeout_s, &st, &msg) == 0) {
		char *text = NULL, *errtext = NULL;
		size_t len;
		fs_read_file(err, 1 << 16, &errtext, &len);
		cJSON *r = NULL;
		if (fs_read_file(out, (size_t)1 << 28, &text, &len) == 0)
			r = cJSON_Parse(text);
		struct strbuf why = STRBUF_INIT;
		if (r && run_check_result(r, &why) == 0) {
			const cJSON *s = cJSON_GetObjectItem(r, "status");
			*status = !cJSON_IsString(s) ? RUN_ERROR
			          : strcmp(s->valuestring, "ok") == 0 ? RUN_OK
			          : strcmp(s->valuestring, "no_gpu") == 0 ? RUN_NO_GPU : RUN_ERROR;
			result = r;
		} else {
			cJSON_Delete(r);
			strbuf_addf(&msg, "the eval command '%s' ", command);
			child_describe(&st, &msg);
			strbuf_addf(&msg, " and printed %s", r ? why.buf : "no result");
			for (char *c = errtext; c && *c; c++)
				if (*c == '\n' || *c == '\r')
					*c = ' ';
			for (size_t n = errtext ? strlen(errtext) : 0; n && errtext[n - 1] == ' '; n--)
				errtext[n - 1] = 0;
			if (errtext && *errtext)
				strbuf_addf(&msg, "; its stderr: %.400s", errtext);
		}
		strbuf_release(&why);
		free(text);
		free(errtext);
	}
	if (!result)
		result = remote_failure(target, msg.len ? msg.buf : "the eval command failed", status);
	child_forget_on_death(dir);
	unlink(in);
	unlink(out);
	unlink(err);
	rmdir(dir);
	free(in);
	free(out);
	free(err);
	free(dir);
	strbuf_release(&msg);
	return result;
}

char *
run_job_to_json(const struct egg_bundle *b, const struct run_candidate *cands, size_t n,
                char *const *flags, size_t n_flags, const struct run_options *opt)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schema", "egg-job");
	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddItemToObject(o, "bundle", bundle_to_cjson(b));
	cJSON *jc = cJSON_AddArrayToObject(o, "candidates");
	for (size_t i = 0; i < n; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", cands[i].name);
		cJSON_AddStringToObject(c, "source", cands[i].source);
		cJSON_AddItemToArray(jc, c);
	}
	cJSON *jf = cJSON_AddArrayToObject(o, "nvcc_flags");
	for (size_t i = 0; i < n_flags; i++)
		cJSON_AddItemToArray(jf, cJSON_CreateString(flags[i]));
	if (opt->timeout_s > 0)
		cJSON_AddNumberToObject(o, "timeout_s", opt->timeout_s);
	if (opt->seed)
		cJSON_AddNumberToObject(o, "seed", (double)opt->seed);
	if (opt->trials)
		cJSON_AddNumberToObject(o, "trials", opt->trials);
	if (opt->min_speedup > 0)
		cJSON_AddNumberToObject(o, "min_speedup", opt->min_speedup);
	cJSON_AddBoolToObject(o, "no_timing", opt->no_timing);
	cJSON_AddBoolToObject(o, "compile_only", opt->compile_only);
	cJSON_AddBoolToObject(o, "sanitize", opt->sanitize);
	if (opt->profile)
		cJSON_AddBoolToObject(o, "profile", 1);
	if (opt->arch)
		cJSON_AddStringToObject(o, "arch", opt->arch);
	if (opt->n_flops) {
		cJSON *fl = cJSON_AddArrayToObject(o, "flops");
		for (size_t i = 0; i < opt->n_flops; i++)
			cJSON_AddItemToArray(fl, cJSON_CreateString(opt->flops[i]));
	}
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	char *copy = egg_xstrdup(s);
	cJSON_free(s);
	return copy;
}
