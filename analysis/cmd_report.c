/*
 * `corecap report RUN`: opens the run (read/run.h), builds its report
 * (pass/report_build.h) and renders it as text or JSON. This file parses
 * the options and says what a run that measured nothing holds.
 */
#include <corecap/analysis.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_util.h"
#include <corecap/opt_table.h>
#include "pass/hosts_build.h"
#include "pass/multi_build.h"
#include "pass/report_build.h"
#include "pass/scale_build.h"
#include "read/run.h"
#include "render/out_file.h"
#include "render/report.h"
#include <corecap/run_format.h>

struct report_cmd_opts {
	const char *run;
	bool json;
	const char *symfs;
	const char *dump_ops;
	bool check_conservation;
	const char *scale_dir; /* --scale */
	bool no_scale;	       /* --no-scale */
	struct report_opts build;
};

/* Everything one report needs, released in one place. */
struct report_job {
	struct report_cmd_opts o;
	struct run run;
	struct report_build b;
	struct out_file dump_file; /* --dump-ops */
	struct scale_view *scale;  /* the scale run whose fit the projection takes */
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt report_options[] = {
	CORECAP_OPT_SET('j', 'j', "json", struct report_cmd_opts, json,
			"print the report as JSON (keys: docs/report-json.md)"),
	CORECAP_OPT_STR('s', 0, "symfs", "DIR", struct report_cmd_opts, symfs,
			"look up the daemon's ELF files under DIR (post-mortem)"),
	CORECAP_OPT_STR('l', 0, "log-symbols", "PATTERNS", struct report_cmd_opts,
			build.log_symbols,
			"comma-separated globs of functions that are logging code\n"
			"(default: log_*,ceph::logging::*,*StackStringStream*,\n"
			"*StackStringBuf*,*(std::ostream&*,std::basic_ostream*,\n"
			"std::ostream::*,std::__ostream_insert*,std::num_put*:\n"
			"Ceph's log code, its entries' streams, and formatting)"),
	CORECAP_OPT_STR('o', 0, "op-pools", "PATTERNS", struct report_cmd_opts, build.op_pools,
			"Ceph: comma-separated globs of the thread pools that work\n"
			"on ops, whose wall-clock samples split the OpTracker's\n"
			"ops into categories (default: msgr-worker,tp_osd_tp,\n"
			"fn_anonymous,finisher,ms_dispatch,ms_local,bstore_*)"),
	CORECAP_OPT_ARG('t', 0, "top", "N",
			"rows of the lock table in the text report (default 10)"),
	CORECAP_OPT_ARG('S', 0, "sort", "wait|contended|hold|avg|max",
			"the lock table's order: total wait (default),\n"
			"contentions, hold (futex: busy) time, average or max wait"),
	CORECAP_OPT_SET('L', 0, "lines", struct report_cmd_opts, build.lines,
			"text: lock sites and stack frames with their inlined calls\n"
			"and file:line (the JSON always has them)"),
	CORECAP_OPT_SET('K', 0, "keep-shim-frames", struct report_cmd_opts, build.keep_shim_frames,
			"keep the frames of corecap's shim and LTTng-UST in stacks"),
	CORECAP_OPT_SET('P', 0, "keep-profiler", struct report_cmd_opts, build.keep_profiler,
			"keep the profiler's own threads (LTTng-UST's, the shim's),\n"
			"locks, wakes and CPU holders (the collector) in the tables,\n"
			"the pools and the diagnosis; its cost is stated either way"),
	CORECAP_OPT_ARG('O', 0, "ops", "auto|annotated|detected",
			"where ops come from: the daemon's corecap_op\n"
			"annotations, or requests and replies detected on its\n"
			"sockets (needs CORECAP_NET_EVENTS=on); auto: detected only\n"
			"when the daemon annotated none (default auto)"),
	CORECAP_OPT_STR('d', 0, "dump-ops", "FILE", struct report_cmd_opts, dump_ops,
			"write every op's latency and categories to FILE (TSV)"),
	CORECAP_OPT_SET('c', 0, "check-conservation", struct report_cmd_opts, check_conservation,
			"fail (exit 1) if any op's categories miss its latency by\n"
			"more than 1 us"),
	CORECAP_OPT_STR('C', 0, "scale", "DIR", struct report_cmd_opts, scale_dir,
			"project past the run's cores with the fit of DIR, a\n"
			"scale directory (corecap scale); default: the one RUN\n"
			"is a point of, if any"),
	CORECAP_OPT_SET('N', 0, "no-scale", struct report_cmd_opts, no_scale,
			"project with constant demand, even inside a scale run"),
	CORECAP_OPT_HIDDEN('h', 'h', "help", no_argument),
};

CORECAP_OPT_TABLE(corecap_report_help, CORECAP_REPORT_USAGE, report_options,
		  "\n"
		  "See also corecap-report(1), corecap-flame(1), corecap-html(1), "
		  "corecap-compare(1).\n",
		  .help_col = 26, .min_gap = 2, .overflow_gap = 2, .shorts = CORECAP_SHORTS_HIDDEN);

static int parse_args(struct report_cmd_opts *o, int argc, char **argv)
{
	struct corecap_getopt g;
	char *end;
	int c;

	*o = (struct report_cmd_opts){0};
	corecap_report_opts_init(&o->build);
	corecap_opts_start(&g, &corecap_report_help, NULL, o);
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 't':
			errno = 0;
			o->build.top = strtoul(optarg, &end, 10);
			/* strtoul takes "-1" as ULONG_MAX: a sign is refused. */
			if (errno || end == optarg || *end || !o->build.top ||
			    !isdigit((unsigned char)*optarg)) {
				corecap_error("invalid --top '%s': expected a positive count",
					      optarg);
				return 2;
			}
			break;
		case 'S':
			if (!corecap_lock_sort_parse(optarg, &o->build.lock_sort)) {
				corecap_error(
					"invalid --sort '%s': expected wait, contended, hold, "
					"avg or max",
					optarg);
				return 2;
			}
			break;
		case 'O':
			if (strcmp(optarg, "auto") == 0)
				o->build.ops = OPS_AUTO;
			else if (strcmp(optarg, "annotated") == 0)
				o->build.ops = OPS_ANNOTATED;
			else if (strcmp(optarg, "detected") == 0)
				o->build.ops = OPS_DETECTED;
			else {
				corecap_error("invalid --ops '%s': expected auto, annotated "
					      "or detected",
					      optarg);
				return 2;
			}
			break;
		case 'h':
			corecap_cmd_help(stdout, &corecap_report_help);
			return -1;
		default: /* getopt said what is wrong */
			return corecap_usage_hint(CORECAP_REPORT_USAGE);
		}
	}
	if (corecap_cmd_operands(argc, 1, "one run directory", CORECAP_REPORT_USAGE))
		return 2;
	o->run = argv[optind];
	return 0;
}

static int analyse(struct report_job *j)
{
	struct report r;
	int ret;

	if (!j->o.no_scale) {
		ret = corecap_scale_for_run(&j->scale, j->o.run, j->o.scale_dir);
		if (ret)
			return ret;
		if (j->scale && !j->scale->fit.valid)
			corecap_note("the scale run '%s' gives no fit (%s): the projection "
				     "assumes constant demand",
				     j->scale->dir, j->scale->fit.why_not);
		else if (j->scale) {
			j->o.build.scale_fit = &j->scale->fit;
			j->o.build.scale_dir = j->scale->dir;
		}
	}
	ret = corecap_report_build_dir(&j->b, &j->run, j->o.run, j->o.symfs, &j->o.build, &r);
	if (ret == -ENODATA && j->o.json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "run_dir", json_object_new_string(j->o.run));
		json_object_object_add(o, "partial", json_object_new_boolean(1));
		json_object_object_add(
			o, "partial_reason",
			j->run.manifest.partial_reason
				? json_object_new_string(j->run.manifest.partial_reason)
				: NULL);
		json_object_object_add(o, "measured", json_object_new_boolean(0));
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
		json_object_put(o);
		return 0;
	}
	if (ret == -ENODATA) {
		printf("corecap report: %s\n\npartial run: its window never started; nothing was "
		       "measured\n",
		       j->o.run);
		return 0;
	}
	if (ret)
		return ret;
	ret = j->o.json ? corecap_render_json(&r, stdout) : corecap_render_text(&r, stdout);
	if (!ret && fflush(stdout))
		ret = -EIO;
	if (ret)
		corecap_error("cannot write the report: %s", strerror(-ret));
	return ret;
}

/* A run of several daemons: the merged view of the box, then each daemon's report. */
static int report_multi(const struct report_cmd_opts *o)
{
	const struct multi_report *m;
	struct multi_build mb;
	int ret;

	if (o->dump_ops || o->check_conservation) {
		corecap_error("'%s' is a run of several daemons: --dump-ops and "
			      "--check-conservation take one of them, as RUN:PID",
			      o->run);
		return 2;
	}
	ret = corecap_multi_build(&mb, o->run, o->symfs, &o->build, &m);
	if (!ret) {
		ret = o->json ? corecap_render_multi_json(m, stdout)
			      : corecap_render_multi_text(m, stdout);
		if (!ret && fflush(stdout))
			ret = -EIO;
		if (ret)
			corecap_error("cannot write the report: %s", strerror(-ret));
	}
	corecap_multi_build_release(&mb);
	return ret ? 1 : 0;
}

/* A run of several hosts: the system's verdict, then each host's report. */
static int report_hosts(const struct report_cmd_opts *o)
{
	const struct hosts_report *m;
	struct hosts_build hb;
	int ret;

	if (o->dump_ops || o->check_conservation) {
		corecap_error("'%s' is a run of several hosts: --dump-ops and "
			      "--check-conservation take one host's run, RUN/hosts/NAME",
			      o->run);
		return 2;
	}
	ret = corecap_hosts_build(&hb, o->run, o->symfs, &o->build, &m);
	if (!ret) {
		ret = o->json ? corecap_render_hosts_json(m, stdout)
			      : corecap_render_hosts_text(m, stdout);
		if (!ret && fflush(stdout))
			ret = -EIO;
		if (ret)
			corecap_error("cannot write the report: %s", strerror(-ret));
	}
	corecap_hosts_build_release(&hb);
	return ret ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_job j = {0};
	int ret;

	ret = parse_args(&j.o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	/* Before any input is read: a FIFO without a reader must not wait (out_file.h). */
	if (corecap_out_file_check(j.o.dump_ops))
		return 1;
	if (corecap_multi_run_is(j.o.run))
		return report_multi(&j.o);
	if (corecap_hosts_run_is(j.o.run))
		return report_hosts(&j.o);
	if (j.o.dump_ops) {
		if (corecap_out_file_open(&j.dump_file, j.o.dump_ops) < 0)
			return 1;
		j.o.build.dump_ops = j.dump_file.f;
	}
	ret = analyse(&j);
	if (!ret && j.o.check_conservation) {
		corecap_note("conservation: %llu ops checked, %llu off by more than 1 us "
			     "(max error %llu ns)",
			     (unsigned long long)j.b.model.ops.checked,
			     (unsigned long long)j.b.model.ops.violations,
			     (unsigned long long)j.b.model.ops.max_err_ns);
		if (j.b.model.ops.violations)
			ret = -EDOM;
	}
	/* Ops that break conservation are what the dump is for: keep it then. */
	if (j.o.build.dump_ops && ret && ret != -EDOM)
		corecap_out_file_abort(&j.dump_file);
	else if (j.o.build.dump_ops)
		ret = corecap_out_file_commit(&j.dump_file);
	corecap_report_build_release(&j.b);
	corecap_run_close(&j.run);
	free(j.scale);
	return ret ? 1 : 0;
}
