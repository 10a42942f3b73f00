/*
 * corecap run: exec a command (same PID) with the corecap shim preloaded,
 * so that `corecap record -p PID` finds its counters, events and profiler.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <corecap/collector.h>

#include <corecap/diag.h>
#include <corecap/opt_table.h>
#include "launch_env.h"

const char corecap_run_usage[] =
	"usage: corecap run [--cpuprofile] [--no-shim] [--] COMMAND [ARGS...]\n"
	"\n"
	"Executes COMMAND in place of corecap (same PID) with the corecap shim\n"
	"(libcorecap-preload.so) and LTTng-UST's fork helper in front of LD_PRELOAD.\n"
	"\n";

enum { OPT_CPUPROFILE = 256, OPT_NO_SHIM };

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt run_options[] = {
	CORECAP_OPT_FLAG(OPT_CPUPROFILE, 0, "cpuprofile",
			 "also preload gperftools' libprofiler, idle until\n"
			 "`corecap record` switches it on with SIGUSR2 for its window\n"
			 "(CPUPROFILE=$TMPDIR/corecap-cpu.XXXXXX/prof in a private\n"
			 "directory removed after COMMAND exits, CPUPROFILESIGNAL=12)"),
	CORECAP_OPT_FLAG(OPT_NO_SHIM, 0, "no-shim",
			 "preload only the tracepoint probes (libcorecap-tp.so), so\n"
			 "an annotated daemon still emits corecap_op events"),
	CORECAP_OPT_FLAG('h', 'h', "help", "this text"),
};

CORECAP_OPT_TABLE(corecap_run_help, corecap_run_usage, run_options,
		  "\n"
		  "Environment: CORECAP_PRELOAD_LIB and CORECAP_TP_LIB override where the\n"
		  "libraries are found. See also corecap-run(1).\n",
		  .help_col = 20, .shorts = CORECAP_SHORTS_ALIGNED);

int corecap_cmd_run(int argc, char **argv)
{
	struct corecap_getopt g;
	struct corecap_launch_env env;
	bool cpuprofile = false, shim = true;
	int ret = 1;
	int c;

	corecap_opts_start(&g, &corecap_run_help, "+", NULL);
	opterr = 0;
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case OPT_CPUPROFILE:
			cpuprofile = true;
			break;
		case OPT_NO_SHIM:
			shim = false;
			break;
		case 'h':
			corecap_cmd_help(stdout, &corecap_run_help);
			ret = 0;
			goto out;
		default:
			ret = corecap_usage_error(corecap_run_usage, "unknown option '%s'",
						  argv[optind - 1]);
			goto out;
		}
	}
	if (optind >= argc) {
		ret = corecap_usage_error(corecap_run_usage, "no command to run");
		goto out;
	}
	if (corecap_launch_env_init(&env, shim, cpuprofile, getpid()) < 0)
		goto out;
	if (corecap_launch_env_apply(&env) < 0)
		goto out_release_env;
	if (corecap_launch_env_start_cleaner(&env) < 0)
		goto out_release_env;
	execvp(argv[optind], &argv[optind]);
	corecap_error("cannot run '%s': %s", argv[optind], strerror(errno));
out_release_env:
	corecap_launch_env_release(&env);
out:
	return ret;
}
