/*
 * `corecap compare RUN_A RUN_B`: two runs side by side (the benchmark's
 * IOPS and latency, the traced ops' latency percentiles and where each
 * op's time went, the pools' utilization, the ceilings), each figure with
 * its delta; or, with --folded, the two runs' stacks of one flame kind as
 * differential folded lines ("stack COUNT_A COUNT_B", what flamegraph.pl's
 * difffolded.pl writes and flamegraph.pl draws as a differential graph);
 * with --html FILE, one page: the comparison and those stacks' differential
 * flame graph.
 * Both runs are read and modelled as `corecap report` does; the figures,
 * warnings and headline are compare_diff.c's, their text and JSON
 * compare_render.c's; --folded scales B per op (per_op_scale). Two runs
 * of several hosts: hosts_compare.c (the system, then each host as
 * RUN_A:NAME RUN_B:NAME compares).
 */
#include <corecap/analysis.h>
#include <corecap/diag.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "cmd_util.h"
#include <corecap/opt_table.h>
#include "compare_diff.h"
#include "hosts_compare.h"
#include "pass/hosts_flame.h"
#include "pass/flame_job.h"
#include "pass/report_build.h"
#include "compare_render.h"
#include "read/run.h"
#include "render/flame_svg.h"
#include "render/out_file.h"
#include "render/report.h"
#include <corecap/run_format.h>

const char corecap_compare_usage[] =
	"usage: corecap compare [--json] [--symfs DIR] [--keep-profiler] RUN_A RUN_B\n"
	"       corecap compare --html FILE [--kind cpu|wall|lock|op] [--pool]\n"
	"                       [--per-op|--absolute] [--keep-shim-frames] [--keep-profiler]\n"
	"                       RUN_A RUN_B\n"
	"       corecap compare --folded|--svg FILE [--kind cpu|wall|lock|op] [--pool]\n"
	"                       [--per-op|--absolute] [--keep-shim-frames] [--keep-profiler]\n"
	"                       RUN_A RUN_B\n"
	"\n"
	"Either run may be one daemon of a run of several, as RUN:PID (two daemons of\n"
	"one run: RUN:PID1 RUN:PID2), or one host of a run of several hosts, as\n"
	"RUN:NAME. Two runs of several hosts: the system first (each run's limiting\n"
	"host, its headroom, the ops/s, and what changed), then each host of both,\n"
	"matched by name, as RUN_A:NAME RUN_B:NAME compares it; --folded, --svg and\n"
	"--html of them: each host's stacks under a frame of its name, as corecap\n"
	"flame RUN draws them.\n"
	"\n"
	"Puts two runs side by side, B against A: both diagnoses (and a sentence when\n"
	"the diagnosis changed), one headline (\"B: 0.46x IOPS; latency +282.7 us/op on\n"
	"the critical path, of which logging +181, cpu +21.6; grew behind: log cpu +90\"),\n"
	"its categories the critical path's when both runs have kernel events, else the\n"
	"annotations'; what the ops grew behind (a pool's threads, a lock, a queue); the\n"
	"arguments in which the daemons' and the benchmarks' command lines differ; the\n"
	"benchmark's IOPS and latency, the traced ops' latency percentiles and their time\n"
	"per category in us per op, Ceph's OpTracker op types and phases when both runs\n"
	"have them, the CPU and busy share of each pool, the cores used; each figure with\n"
	"B - A, and B/A where both are at least 10 units of its last decimal. Rows zero\n"
	"in both runs and pools idle in both are left out.\n"
	"A figure one run did not measure reads \"not measured\"; different daemons or\n"
	"different sources (shim, trace, kernel events) are warned about. Two different\n"
	"daemons (a ceph-osd and an xrootd) are compared per op, whole daemon: cpu us/op,\n"
	"lock waits/op, logging us/op, I/O syscalls/op and context switches/op.\n"
	"\n";

struct compare_opts {
	const char *run[2], *symfs, *svg, *html;
	bool json, folded, by_pool, keep_shim_frames, keep_profiler;
	enum flame_kind kind;
	int per_op; /* --folded: 1 --per-op, 0 --absolute, -1 by kind (op, cpu: per op) */
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt compare_options[] = {
	CORECAP_OPT_SET('j', 0, "json", struct compare_opts, json, "print the comparison as JSON"),
	CORECAP_OPT_SET('f', 0, "folded", struct compare_opts, folded,
			"print differential folded stacks, 'stack COUNT_A COUNT_B', as\n"
			"flamegraph.pl's difffolded.pl does (flamegraph.pl draws them)"),
	CORECAP_OPT_STR('S', 0, "svg", "FILE", struct compare_opts, svg,
			"write the differential flame graph of those stacks to FILE:\n"
			"widths by B, red where B grew, blue where it shrank"),
	CORECAP_OPT_STR('H', 0, "html", "FILE", struct compare_opts, html,
			"write one self-contained page to FILE: the headline, both\n"
			"diagnoses, the configuration differences, the tables, and\n"
			"the differential flame graph of --kind's stacks, as --svg\n"
			"draws it"),
	CORECAP_OPT_ARG('k', 0, "kind", "KIND",
			"the stacks --folded, --svg and --html compare (default op; see\n"
			"corecap flame)"),
	CORECAP_OPT_SET('p', 0, "pool", struct compare_opts, by_pool,
			"--kind wall: one root frame per pool"),
	CORECAP_OPT_FLAG('P', 0, "per-op",
			 "--folded, --svg, --html: scale B's column by A's ops / B's\n"
			 "ops, so that the columns compare per op (default for the op\n"
			 "and cpu kinds)"),
	CORECAP_OPT_FLAG('A', 0, "absolute",
			 "--folded, --svg, --html: the runs' totals as they are (default\n"
			 "for wall, lock)"),
	CORECAP_OPT_SET('K', 0, "keep-shim-frames", struct compare_opts, keep_shim_frames,
			"--folded: keep the frames of corecap's shim and LTTng-UST"),
	CORECAP_OPT_SET('R', 0, "keep-profiler", struct compare_opts, keep_profiler,
			"keep the profiler's own threads, locks and frames (LTTng-UST's\n"
			"and the shim's threads, the collector) in both runs"),
	CORECAP_OPT_STR('s', 0, "symfs", "DIR", struct compare_opts, symfs,
			"look up the daemons' ELF files under DIR (post-mortem)"),
	CORECAP_OPT_HIDDEN('h', 'h', "help", no_argument),
};

CORECAP_OPT_TABLE(corecap_compare_help, corecap_compare_usage, compare_options,
		  "\n"
		  "See also corecap-compare(1).\n",
		  .help_col = 18, .min_gap = 2, .overflow_gap = 2, .shorts = CORECAP_SHORTS_HIDDEN);

static int parse_args(struct compare_opts *o, int argc, char **argv)
{
	struct corecap_getopt g;
	int c;

	*o = (struct compare_opts){.kind = FLAME_OP, .per_op = -1};
	corecap_opts_start(&g, &corecap_compare_help, NULL, o);
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'k':
			if (!corecap_flame_kind_parse(optarg, &o->kind)) {
				corecap_error("invalid --kind '%s': expected cpu, wall, lock or op",
					      optarg);
				return 2;
			}
			break;
		case 'P':
			o->per_op = 1;
			break;
		case 'A':
			o->per_op = 0;
			break;
		case 'h':
			corecap_cmd_help(stdout, &corecap_compare_help);
			return -1;
		default: /* getopt said what is wrong */
			return corecap_usage_hint(corecap_compare_usage);
		}
	}
	if (corecap_cmd_operands(argc, 2, "two run directories", corecap_compare_usage))
		return 2;
	if (o->per_op >= 0 && !o->folded && !o->svg && !o->html) {
		corecap_error("--per-op and --absolute go with --folded, --svg or --html");
		return 2;
	}
	if (o->json && (o->folded || o->svg || o->html)) {
		corecap_error("--json and --folded, --svg or --html exclude each other");
		return 2;
	}
	if (o->html && (o->folded || o->svg)) {
		corecap_error("--html and --folded or --svg exclude each other");
		return 2;
	}
	if (o->svg && corecap_out_file_check(o->svg))
		return 2;
	if (o->html && corecap_out_file_check(o->html))
		return 2;
	o->run[0] = argv[optind];
	o->run[1] = argv[optind + 1];
	return 0;
}

/* Whether arg up to one of its colons names a file (RUN of RUN:PID, RUN:NAME, RUN:NAME:PID). */
static bool prefix_exists(const char *arg)
{
	for (const char *colon = strrchr(arg, ':'); colon && colon != arg;
	     colon = memrchr(arg, ':', (size_t)(colon - arg))) {
		char *dir = strndup(arg, (size_t)(colon - arg));
		struct stat st;
		bool found = dir && stat(dir, &st) == 0;

		free(dir);
		if (found)
			return true;
	}
	return false;
}

/*
 * Both runs exist before either is read: a run missing is said in one
 * line at once, not after the other's report (RUN:PID names RUN).
 */
static int runs_exist(const struct compare_opts *o)
{
	for (int s = 0; s < 2; s++) {
		struct stat st;
		int err;

		if (stat(o->run[s], &st) == 0)
			continue;
		err = errno;
		if (prefix_exists(o->run[s]))
			continue;
		corecap_error("cannot open run directory '%s': %s", o->run[s], strerror(err));
		return -err;
	}
	return 0;
}

/* Whether run s is a directory a report can read (not a CPU profile file). */
static bool is_run_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Per op, B's column is scaled by A's ops / B's ops, so that a cost per op
 * that doubled draws as growing even when B made half the ops: by
 * default for the op and cpu kinds, else on --per-op; a warning when the
 * op counts differ and the columns stay absolute.
 */
static void scale_by_ops(const struct compare_opts *o, bool known, const double ops[2],
			 const char *whose, struct flame_stacks *fs)
{
	bool want =
		o->per_op == 1 || (o->per_op < 0 && (o->kind == FLAME_OP || o->kind == FLAME_CPU));

	if (!known) {
		if (o->per_op == 1)
			corecap_warn("--per-op: the op counts are unknown; the columns are "
				     "absolute totals");
		return;
	}
	if (ops[0] == ops[1] || ops[1] <= 0)
		return;
	if (want) {
		corecap_compare_scale_column(&fs->folded, 1, ops[0] / ops[1]);
		corecap_note("per op: B's column scaled by A's %.0f ops / B's %.0f ops (%.3f)%s",
			     ops[0], ops[1], ops[0] / ops[1], whose);
	} else {
		corecap_warn("the op counts differ (A %.0f, B %.0f%s) and the columns are "
			     "absolute totals: --per-op compares per op",
			     ops[0], ops[1], whose);
	}
}

static void per_op_scale(const struct compare_opts *o, const struct report *const r[2],
			 struct flame_stacks *fs)
{
	double ops[2];
	bool known = r[0] && r[1] && corecap_compare_run_ops(r[0], &ops[0]) &&
		     corecap_compare_run_ops(r[1], &ops[1]);

	scale_by_ops(o, known, ops, "", fs);
}

/* The reports' options: every frame kept (the folded stacks cut by their own
 * option), the profiler's threads and locks as --keep-profiler says. */
static const struct report_opts *report_opts(const struct compare_opts *o, struct report_opts *ro)
{
	corecap_report_opts_init(ro);
	ro->keep_shim_frames = true;
	ro->keep_profiler = o->keep_profiler;
	return ro;
}

/* A run's flame job as compare's options set it. */
static void job_opts(struct flame_job *j, const struct compare_opts *o)
{
	j->by_pool = o->by_pool;
	j->keep_shim_frames = o->keep_shim_frames;
	j->keep_profiler = o->keep_profiler;
	/* Lock addresses differ from run to run: compare locks by label. */
	j->merge_lock_instances = true;
}

/* A differential flame graph's options: widths by B (column 1), colours by B - A. */
static struct flame_svg_opts diff_opts(enum flame_kind kind, const char *title)
{
	return (struct flame_svg_opts){
		.title = title,
		.subtitle = "red: grew in B, blue: shrank (widths: B's)",
		.unit = corecap_flame_kind_unit(kind),
		.palette = FLAME_PALETTE_CLASS,
		.root_is_thread = kind == FLAME_WALL,
		.root_is_lock = kind == FLAME_LOCK,
		.column = 1,
		.differential = true,
		.base_column = 0,
	};
}

/* The differential flame graph of fs to o->svg (widths by B, colours by B - A). */
static int write_svg(const struct compare_opts *o, const struct flame_stacks *fs)
{
	char title[512];
	struct flame_svg_opts so = diff_opts(fs->kind, title);
	struct out_file out;
	int ret;

	snprintf(title, sizeof(title), "%s differential flame graph: %s against %s",
		 corecap_flame_kind_name(fs->kind), o->run[1], o->run[0]);
	ret = corecap_out_file_open(&out, o->svg);
	if (ret)
		return ret;
	ret = corecap_flame_svg_render(&fs->folded, &so, out.f);
	if (ret) {
		corecap_error("cannot write %s: %s", corecap_out_file_name(&out), strerror(-ret));
		corecap_out_file_abort(&out);
		return ret;
	}
	return corecap_out_file_commit(&out);
}

/* --folded to stdout, --svg to its file, and the two columns' totals said. */
static int write_folded(const struct compare_opts *o, const struct flame_stacks *fs)
{
	int ret = 0;

	if (o->folded) {
		ret = corecap_folded_write(&fs->folded, stdout, 2);
		if (ret)
			corecap_error("cannot write the stacks: %s", strerror(-ret));
	}
	if (!ret && o->svg)
		ret = write_svg(o, fs);
	if (!ret)
		corecap_note("%s: A %llu, B %llu %s", corecap_flame_kind_name(fs->kind),
			     (unsigned long long)fs->folded.nodes[FOLDED_ROOT].total[0],
			     (unsigned long long)fs->folded.nodes[FOLDED_ROOT].total[1],
			     corecap_flame_kind_unit(fs->kind));
	return ret;
}

static int compare_folded(const struct compare_opts *o)
{
	struct flame_stacks fs;
	struct flame_job j[2];
	struct run run[2] = {0};
	struct report_build b[2] = {0};
	struct report rr[2];
	const struct report *r[2] = {NULL, NULL};
	bool has[2] = {false, false}, opened[2] = {false, false};
	struct report_opts ro;
	int ret;

	ret = corecap_flame_stacks_init(&fs, o->kind, NULL, NULL);
	/* The reports give the op counts (and serve the op and lock kinds). */
	for (int s = 0; s < 2 && !ret; s++)
		if (is_run_dir(o->run[s])) {
			opened[s] = true;
			if (corecap_report_build_dir(&b[s], &run[s], o->run[s], o->symfs,
						     report_opts(o, &ro), &rr[s]) == 0)
				r[s] = &rr[s];
		}
	for (int s = 0; s < 2 && !ret; s++) {
		ret = corecap_flame_job_init(&j[s], o->run[s], o->symfs, opened[s] ? &run[s] : NULL,
					     r[s]);
		if (ret)
			break;
		has[s] = true;
		job_opts(&j[s], o);
		ret = corecap_flame_job_build(&j[s], &fs, s);
	}
	if (!ret) {
		per_op_scale(o, r, &fs);
		ret = write_folded(o, &fs);
	}
	for (int s = 0; s < 2; s++)
		if (has[s])
			corecap_flame_job_release(&j[s]);
	for (int s = 0; s < 2; s++)
		if (opened[s]) {
			corecap_report_build_release(&b[s]);
			corecap_run_close(&run[s]);
		}
	corecap_flame_stacks_release(&fs);
	return ret;
}

/* Two runs of several hosts' stacks of one kind, A's in column 0, B's in 1. */
struct hosts_stacks {
	struct hosts_flame h[2];
	bool opened[2];
	struct flame_stacks fs;
	bool fs_init;
};

/*
 * Each run's hosts' stacks under a root frame of the host's name
 * (hosts_flame.h), A in column 0, B in column 1; hosts are matched by
 * name through their frames. Per op when every host drawn has its op
 * count (the op and lock kinds build each host's report), the system's
 * ops being the hosts' sum. 0, or a negative errno: said, unless a run
 * has no host with the kind's stacks (*which: that run, else -1).
 */
static int hosts_stacks_build(struct hosts_stacks *hs, const struct compare_opts *o, int *which)
{
	struct flame_job tmpl = {0};
	double ops[2] = {0, 0};
	bool ops_known = true;
	enum flame_kind kind = o->kind;
	int ret = 0;

	memset(hs, 0, sizeof(*hs));
	*which = -1;
	job_opts(&tmpl, o);
	for (int s = 0; s < 2 && !ret; s++) {
		ret = corecap_hosts_flame_open(&hs->h[s], o->run[s], o->symfs, &tmpl);
		hs->opened[s] = true;
		hs->h[s].label = s ? "B" : "A";
		if (!ret && corecap_hosts_flame_kind(&hs->h[s], &kind, true) == -ENOENT) {
			*which = s; /* the only error of the kind: no host has it */
			ret = -ENOENT;
		}
	}
	if (!ret) {
		ret = corecap_flame_stacks_init(&hs->fs, kind, NULL, NULL);
		hs->fs_init = !ret;
	}
	for (int s = 0; s < 2 && !ret; s++) {
		const struct hosts_flame *h = &hs->h[s];

		ret = corecap_hosts_flame_build(&hs->h[s], &hs->fs, s);
		for (size_t i = 0; i < h->n_init && !ret; i++) {
			double n;

			if (!h->has[i])
				continue;
			if (h->j[i].report && corecap_compare_run_ops(h->j[i].report, &n))
				ops[s] += n;
			else
				ops_known = false;
		}
	}
	if (!ret)
		scale_by_ops(o, ops_known, ops, ops_known ? ", the hosts' sums" : "", &hs->fs);
	return ret;
}

static void hosts_stacks_release(struct hosts_stacks *hs)
{
	if (hs->fs_init)
		corecap_flame_stacks_release(&hs->fs);
	for (int s = 0; s < 2; s++)
		if (hs->opened[s])
			corecap_hosts_flame_close(&hs->h[s]);
}

/* --folded, --svg of two runs of several hosts. */
static int compare_folded_hosts(const struct compare_opts *o)
{
	struct hosts_stacks hs;
	int which, ret = hosts_stacks_build(&hs, o, &which);

	if (which >= 0)
		corecap_error("no host of %s '%s' has %s stacks", which ? "B" : "A", o->run[which],
			      corecap_flame_kind_name(o->kind));
	if (!ret)
		ret = write_folded(o, &hs.fs);
	hosts_stacks_release(&hs);
	return ret;
}

/*
 * --html of two runs of several hosts: the system's comparison, each
 * host's sections as compare --html RUN_A:NAME RUN_B:NAME shows them, and
 * the differential flame graph of both runs' hosts' stacks (a note in its
 * place, and a warning, when a run has none of the kind).
 */
static int compare_html_hosts(const struct compare_opts *o, const struct report_opts *ro)
{
	struct hosts_stacks hs;
	struct compare_html_flame fl;
	struct out_file out;
	char heading[160], note[512];
	int which, ret = hosts_stacks_build(&hs, o, &which);

	if (which >= 0) {
		snprintf(heading, sizeof(heading), "Differential flame graph: %s stacks",
			 corecap_flame_kind_name(o->kind));
		snprintf(note, sizeof(note),
			 "No differential flame graph: no host of %s '%s' has %s stacks (see "
			 "corecap flame; --kind chooses another kind).",
			 which ? "B" : "A", o->run[which], corecap_flame_kind_name(o->kind));
		corecap_warn("no differential flame graph in the page: no host of '%s' has %s "
			     "stacks",
			     o->run[which], corecap_flame_kind_name(o->kind));
		fl = (struct compare_html_flame){.heading = heading, .note = note};
		ret = 0;
	} else if (!ret) {
		snprintf(heading, sizeof(heading),
			 "Differential flame graph: %s stacks, B against A",
			 corecap_flame_kind_name(o->kind));
		snprintf(
			note, sizeof(note),
			"Each host's stacks under a frame of its name. Widths: B's %s (A %llu, B "
			"%llu: corecap compare --folded prints the same stacks); red where B grew, "
			"blue where it shrank, deeper for a larger change; a frame's tooltip says "
			"its change.",
			corecap_flame_kind_unit(o->kind),
			(unsigned long long)hs.fs.folded.nodes[FOLDED_ROOT].total[0],
			(unsigned long long)hs.fs.folded.nodes[FOLDED_ROOT].total[1]);
		fl = (struct compare_html_flame){
			.heading = heading,
			.note = note,
			.folded = &hs.fs.folded,
			.opts = diff_opts(o->kind, heading),
		};
	}
	if (!ret)
		ret = corecap_out_file_open(&out, o->html);
	if (!ret) {
		ret = corecap_hosts_compare(o->run, o->symfs, ro, HOSTS_COMPARE_HTML, &fl, out.f);
		if (ret)
			corecap_out_file_abort(&out);
		else
			ret = corecap_out_file_commit(&out);
	}
	hosts_stacks_release(&hs);
	return ret;
}

/*
 * --html: the page of the comparison d, with the differential flame graph
 * of o->kind's stacks from both runs (the reports r and runs already
 * read), scaled per op as --folded scales them.
 */
static int write_html(const struct compare_opts *o, struct run run[2],
		      const struct report *const r[2], const struct compare_diff *d)
{
	struct flame_stacks fs;
	struct flame_job j[2];
	bool has[2] = {false, false}, graph = true;
	char heading[160], note[512];
	struct compare_html_flame fl;
	struct out_file out;
	int ret = corecap_flame_stacks_init(&fs, o->kind, NULL, NULL);

	for (int s = 0; s < 2 && !ret; s++) {
		ret = corecap_flame_job_init(&j[s], o->run[s], o->symfs, &run[s], r[s]);
		if (ret)
			break;
		has[s] = true;
		job_opts(&j[s], o);
	}
	/* A run without the kind's stacks: the page still says the rest, and why no graph. */
	for (int s = 0; s < 2 && !ret && graph; s++)
		if (!corecap_flame_job_has(&j[s], o->kind)) {
			graph = false;
			snprintf(note, sizeof(note),
				 "No differential flame graph: %s '%s' has no %s stacks (see "
				 "corecap flame; --kind chooses another kind).",
				 s ? "B" : "A", o->run[s], corecap_flame_kind_name(o->kind));
			corecap_warn(
				"no differential flame graph in the page: '%s' has no %s stacks",
				o->run[s], corecap_flame_kind_name(o->kind));
		}
	for (int s = 0; s < 2 && !ret && graph; s++)
		ret = corecap_flame_job_build(&j[s], &fs, s);
	if (!ret && graph) {
		per_op_scale(o, r, &fs);
		snprintf(heading, sizeof(heading),
			 "Differential flame graph: %s stacks, B against A",
			 corecap_flame_kind_name(o->kind));
		snprintf(note, sizeof(note),
			 "Widths: B's %s (A %llu, B %llu: corecap compare --folded prints the same "
			 "stacks); red where B grew, blue where it shrank, deeper for a larger "
			 "change; a frame's tooltip says its change.",
			 corecap_flame_kind_unit(o->kind),
			 (unsigned long long)fs.folded.nodes[FOLDED_ROOT].total[0],
			 (unsigned long long)fs.folded.nodes[FOLDED_ROOT].total[1]);
		fl = (struct compare_html_flame){
			.heading = heading,
			.note = note,
			.folded = &fs.folded,
			.opts = diff_opts(o->kind, heading),
		};
	} else if (!ret) {
		snprintf(heading, sizeof(heading), "Differential flame graph: %s stacks",
			 corecap_flame_kind_name(o->kind));
		fl = (struct compare_html_flame){.heading = heading, .note = note};
	}
	if (!ret)
		ret = corecap_out_file_open(&out, o->html);
	if (!ret) {
		ret = corecap_compare_render_html(d, o->run, r, &fl, out.f);
		if (ret) {
			corecap_error("cannot write %s: %s", corecap_out_file_name(&out),
				      strerror(-ret));
			corecap_out_file_abort(&out);
		} else {
			ret = corecap_out_file_commit(&out);
		}
	}
	for (int s = 0; s < 2; s++)
		if (has[s])
			corecap_flame_job_release(&j[s]);
	corecap_flame_stacks_release(&fs);
	return ret;
}

int corecap_cmd_compare(int argc, char **argv)
{
	struct compare_opts o;
	struct run run[2] = {0};
	struct report_build b[2] = {0};
	struct report rr[2];
	const struct report *r[2] = {&rr[0], &rr[1]};
	struct compare_diff d = {0};
	struct report_opts ro;
	int ret;

	ret = parse_args(&o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (runs_exist(&o))
		return 1;
	ret = corecap_hosts_compare_kinds(o.run);
	if (ret < 0)
		return 2;
	if (ret > 0) {
		if (o.html)
			return compare_html_hosts(&o, report_opts(&o, &ro)) ? 1 : 0;
		if (o.folded || o.svg)
			return compare_folded_hosts(&o) ? 1 : 0;
		return corecap_hosts_compare(o.run, o.symfs, report_opts(&o, &ro),
					     o.json ? HOSTS_COMPARE_JSON : HOSTS_COMPARE_TEXT, NULL,
					     stdout)
			       ? 1
			       : 0;
	}
	if (o.folded || o.svg)
		return compare_folded(&o) ? 1 : 0;
	for (int s = 0; s < 2 && !ret; s++)
		ret = corecap_report_build_dir(&b[s], &run[s], o.run[s], o.symfs,
					       report_opts(&o, &ro), &rr[s]);
	if (!ret) {
		ret = corecap_compare_diff_build(&d, r[0], r[1]);
		if (ret)
			corecap_error("cannot compare: %s", strerror(-ret));
	}
	if (!ret && o.html) {
		ret = write_html(&o, run, r, &d);
	} else if (!ret) {
		ret = o.json ? corecap_compare_render_json(&d, o.run, r, stdout)
			     : corecap_compare_render_text(&d, o.run, r, stdout);
		if (!ret && fflush(stdout))
			ret = -EIO;
		if (ret)
			corecap_error("cannot write the comparison: %s", strerror(-ret));
	}
	corecap_compare_diff_release(&d);
	for (int s = 0; s < 2; s++) {
		corecap_report_build_release(&b[s]);
		corecap_run_close(&run[s]);
	}
	return ret ? 1 : 0;
}
