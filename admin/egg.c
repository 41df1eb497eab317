/*
 * egg.c -- the administration program: egg version, and (as the modules land)
 * egg config, egg analyze, egg eval, egg cache ..., egg report.
 *
 * Each subcommand is one function taking (argc, argv) after the subcommand name
 * and returning the process exit status; main() only dispatches.
 */
#include "config.h"
#include "common/util.h"

#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_report(int argc, char **argv);

static const struct command commands[] = {
	{ "version", cmd_version, "print egg's version and the toolchain it was built for" },
	{ "config", cmd_config, "print the effective configuration and where each value came from" },
	{ "analyze", cmd_analyze, "print the bundles of the egg pragmas of a .cu file as JSON" },
	{ "generate", cmd_generate, "print the builtin generator's description and candidates for a bundle" },
	{ "eval", cmd_eval, "check and time candidates against a bundle's reference on the GPU" },
	{ "cache", cmd_cache, "look into and manage the kernel cache (stats, ls, show, clear, evict, export, import, key)" },
	{ "report", cmd_report, "what egg did per kernel, from build reports or the cache: a table, JSON, a web page, or one entry's transcript" },
	{ "plan", cmd_plan, "(run by egg-cc) analyze, look up or search, and rewrite one compile's annotated sources" },
	{ "help", cmd_help, "list the commands" },
};

static int
cmd_version(int argc, char **argv)
{
	printf("egg %s\n", PACKAGE_VERSION);
	printf("built for nvcc %s (%s)\n", EGG_NVCC_VERSION, EGG_CUDA_HOME);
	return 0;
}

static int
cmd_help(int argc, char **argv)
{
	printf("usage: egg COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		printf("  %-10s %s\n", commands[i].name, commands[i].summary);
	return 0;
}

int
main(int argc, char **argv)
{
	egg_set_progname("egg");
	if (argc < 2) {
		cmd_help(0, NULL);
		return 2;
	}
	const char *name = argv[1];
	if (strcmp(name, "--version") == 0)
		name = "version";
	else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
		name = "help";
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].run(argc - 2, argv + 2);
	egg_error("unknown command '%s'; 'egg help' lists the commands", argv[1]);
	return 2;
}
