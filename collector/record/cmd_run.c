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
#include "launch_env.h"

const char corecap_run_usage[] =
	"usage: corecap run [--cpuprofile] [--no-shim] [--] COMMAND [ARGS...]\n"
	"\n"
	"Executes COMMAND in place of corecap (same PID) with the corecap shim\n"
	"(libcorecap-preload.so) and LTTng-UST's fork helper in front of LD_PRELOAD.\n"
	"\n"
	"      --cpuprofile  also preload gperftools' libprofiler, idle until\n"
	"                    `corecap record` switches it on with SIGUSR2 for its window\n"
	"                    (CPUPROFILE=$TMPDIR/corecap-cpu.XXXXXX/prof in a private\n"
	"                    directory removed after COMMAND exits, CPUPROFILESIGNAL=12)\n"
	"      --no-shim     preload only the tracepoint probes (libcorecap-tp.so), so\n"
	"                    an annotated daemon still emits corecap_op events\n"
	"  -h, --help        this text\n"
	"\n"
	"Environment: CORECAP_PRELOAD_LIB and CORECAP_TP_LIB override where the\n"
	"libraries are found. See also corecap-run(1).\n";

int corecap_cmd_run(int argc, char **argv)
{
	enum { OPT_CPUPROFILE = 256, OPT_NO_SHIM };
	static const struct option long_opts[] = {
		{"cpuprofile", no_argument, NULL, OPT_CPUPROFILE},
		{"no-shim", no_argument, NULL, OPT_NO_SHIM},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct corecap_launch_env env;
	bool cpuprofile = false, shim = true;
	int ret = 1;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_CPUPROFILE:
			cpuprofile = true;
			break;
		case OPT_NO_SHIM:
			shim = false;
			break;
		case 'h':
			fputs(corecap_run_usage, stdout);
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
