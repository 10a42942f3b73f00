/*
 * `corecap flame RUN`: the stacks of a run, folded (one line per stack,
 * the input of flamegraph.pl and speedscope) or drawn as one SVG flame
 * graph. The stacks come from flame_job (cpu, wall, lock, op); this file
 * parses the options and picks the output.
 */
#include <corecap/analysis.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pass/flame_job.h"
#include "read/multi_run.h"
#include "pass/hosts_flame.h"
#include "read/hosts_run.h"
#include "cmd_util.h"
#include <corecap/opt_table.h>
#include "render/flame_svg.h"
#include "render/out_file.h"
#include <corecap/run_format.h>

const char corecap_flame_usage[] =
	"usage: corecap flame [--kind cpu|wall|lock|op] [--pool] [--no-idle] [--svg]\n"
	"                     [--title TEXT] [--width PX] [-o FILE] [--symfs DIR]\n"
	"                     [--keep-shim-frames] [--keep-profiler]\n"
	"                     [--names pprof|corecap] RUN\n"
	"       corecap flame [--svg] [-o FILE] PROFILE\n"
	"\n"
	"Prints a run's stacks folded, one line per distinct stack (frames from the root\n"
	"to the leaf separated by ';', then the weight), sorted: the input of\n"
	"flamegraph.pl, speedscope and 'corecap compare --folded'. With --svg, draws\n"
	"the flame graph itself as one SVG document, with search and click to zoom.\n"
	"A run of several hosts (record --hosts): each host's stacks under a root frame\n"
	"of its name, its lines those of 'corecap flame RUN:HOST'. A run of several\n"
	"daemons: name one as RUN:PID (one that found a single daemon is that daemon's).\n"
	"\n";

struct flame_opts {
	const char *run, *output, *title, *symfs;
	enum flame_kind kind;
	bool kind_given; /* else the first kind the run has: cpu, wall, lock, op */
	bool svg, by_pool, keep_shim_frames, keep_profiler, no_idle, names_pprof;
	int width;
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt flame_options[] = {
	CORECAP_OPT_ARG('k', 0, "kind", "KIND",
			"what the stacks are (default: cpu; when the run has no CPU\n"
			"profile, the first it has of wall, lock and op, said on\n"
			"stderr):\n"
			"  cpu   the gperftools CPU profile (RUN/" CORECAP_RUN_CPU_PROF
			"), in samples;\n"
			"        equal to google-pprof --collapsed (see docs/flame.md)\n"
			"  wall  wall-clock stacks (RUN/" CORECAP_RUN_WALL "), in samples; the\n"
			"        root frame is the thread (or its pool, --pool)\n"
			"  lock  contended lock waits: lock, then the waiting stack, in ns\n"
			"  op    op latency: type; category (cpu, lock_wait, logging,\n"
			"        io, queue, ...); lock, phase, I/O class; in ns"),
	CORECAP_OPT_SET('p', 0, "pool", struct flame_opts, by_pool,
			"wall: the root frame is the thread's pool"),
	CORECAP_OPT_SET('I', 0, "no-idle", struct flame_opts, no_idle,
			"wall: leave out the stacks of threads idle in their wait\n"
			"for work (epoll_wait, poll, a condition or futex wait, a\n"
			"sleep; see docs/flame.md)"),
	CORECAP_OPT_SET('s', 0, "svg", struct flame_opts, svg,
			"draw the flame graph (SVG) instead of printing stacks"),
	CORECAP_OPT_STR('t', 0, "title", "TEXT", struct flame_opts, title, "the SVG's title"),
	CORECAP_OPT_ARG('w', 0, "width", "PX", "the SVG's width (default 1200)"),
	CORECAP_OPT_STR('o', 'o', "output", "FILE", struct flame_opts, output,
			"write to FILE instead of standard output"),
	CORECAP_OPT_STR('S', 0, "symfs", "DIR", struct flame_opts, symfs,
			"look up the daemon's ELF files under DIR (post-mortem)"),
	CORECAP_OPT_SET('K', 0, "keep-shim-frames", struct flame_opts, keep_shim_frames,
			"keep the frames of corecap's shim and LTTng-UST in stacks"),
	CORECAP_OPT_SET('P', 0, "keep-profiler", struct flame_opts, keep_profiler,
			"keep the profiler's own: wall, its threads (LTTng-UST's,\n"
			"the shim's); lock, its locks; every kind, the frames of\n"
			"gperftools' profiler and libunwind"),
	CORECAP_OPT_ARG('N', 0, "names", "pprof",
			"cpu: name frames as google-pprof --collapsed names them\n"
			"(nm's and addr2line's names, as gperftools 2.10's pprof\n"
			"joins them; with --keep-shim-frames --keep-profiler,\n"
			"the same lines)"),
	CORECAP_OPT_DOC("names", required_argument, "corecap",
			"the default: DWARF inline frames and symbol-table names"),
	CORECAP_OPT_HIDDEN('h', 'h', "help", no_argument),
};

CORECAP_OPT_TABLE(corecap_flame_help, corecap_flame_usage, flame_options,
		  "\n"
		  "PROFILE: a gperftools CPU profile file outside a run (--kind cpu), symbolized\n"
		  "from the mappings written at its end. See also corecap-flame(1).\n",
		  .help_col = 21, .shorts = CORECAP_SHORTS_INLINE);

static int parse_args(struct flame_opts *o, int argc, char **argv)
{
	struct corecap_getopt g;
	char *end;
	long v;
	int c;

	*o = (struct flame_opts){.kind = FLAME_CPU};
	corecap_opts_start(&g, &corecap_flame_help, NULL, o);
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'k':
			if (!corecap_flame_kind_parse(optarg, &o->kind)) {
				corecap_error("invalid --kind '%s': expected cpu, wall, lock or op",
					      optarg);
				return 2;
			}
			o->kind_given = true;
			break;
		case 'w':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 200 || v > 100000) {
				corecap_error("invalid --width '%s': expected 200 to 100000 pixels",
					      optarg);
				return 2;
			}
			o->width = (int)v;
			break;
		case 'N':
			if (strcmp(optarg, "pprof") != 0 && strcmp(optarg, "corecap") != 0) {
				corecap_error("invalid --names '%s': expected pprof or corecap",
					      optarg);
				return 2;
			}
			o->names_pprof = strcmp(optarg, "pprof") == 0;
			break;
		case 'h':
			corecap_cmd_help(stdout, &corecap_flame_help);
			return -1;
		default: /* getopt said what is wrong */
			return corecap_usage_hint(corecap_flame_usage);
		}
	}
	if (corecap_cmd_operands(argc, 1, "one run directory or profile", corecap_flame_usage))
		return 2;
	if (o->no_idle && o->kind_given && o->kind != FLAME_WALL) {
		corecap_error("--no-idle applies to --kind wall only");
		return 2;
	}
	o->run = argv[optind];
	return 0;
}

static int write_output(const struct flame_opts *o, const struct flame_job *j,
			const struct flame_stacks *fs, uint32_t lead_frames)
{
	struct out_file out;
	char title[256];
	int ret;

	ret = corecap_out_file_open(&out, o->output);
	if (ret)
		return ret;
	if (o->svg) {
		struct flame_svg_opts so = {
			.title = o->title,
			.subtitle = j->subtitle[0] ? j->subtitle : NULL,
			.unit = corecap_flame_kind_unit(fs->kind),
			.palette = fs->kind == FLAME_OP ? FLAME_PALETTE_OP : FLAME_PALETTE_CLASS,
			.root_is_thread = fs->kind == FLAME_WALL,
			.root_is_lock = fs->kind == FLAME_LOCK,
			.width = o->width,
			.info = fs->info,
			.n_info = fs->n_info,
			.lead_frames = lead_frames,
		};

		if (!so.title) {
			snprintf(title, sizeof(title), "%s flame graph: %s",
				 corecap_flame_kind_name(fs->kind), o->run);
			so.title = title;
		}
		ret = corecap_flame_svg_render(&fs->folded, &so, out.f);
	} else {
		ret = corecap_folded_write(&fs->folded, out.f, 1);
	}
	if (ret) {
		corecap_error("cannot write %s: %s", corecap_out_file_name(&out), strerror(-ret));
		corecap_out_file_abort(&out);
	} else {
		ret = corecap_out_file_commit(&out);
	}
	return ret;
}

/* "cpu: N samples, U of F frames unresolved, S shim frames cut", on stderr. */
static void summary(const struct flame_opts *o, const struct flame_stacks *fs,
		    const struct flame_job *j)
{
	char unresolved[80] = "", idle[80] = "", shim[96] = "", prof[128] = "";

	if (fs->frames)
		snprintf(unresolved, sizeof(unresolved), ", %llu of %llu frames unresolved",
			 (unsigned long long)fs->unresolved_frames, (unsigned long long)fs->frames);
	if (fs->idle_stacks)
		snprintf(idle, sizeof(idle), ", %llu idle %s left out (--no-idle)",
			 (unsigned long long)fs->idle_weight, corecap_flame_kind_unit(o->kind));
	if (fs->shim_frames)
		snprintf(shim, sizeof(shim),
			 ", %llu shim frames cut (--keep-shim-frames keeps them)",
			 (unsigned long long)fs->shim_frames);
	if (j->profiler_samples || fs->profiler_frames)
		snprintf(prof, sizeof(prof),
			 ", the profiler's %llu samples and %llu frames cut (--keep-profiler keeps "
			 "them)",
			 (unsigned long long)j->profiler_samples,
			 (unsigned long long)fs->profiler_frames);
	corecap_note("%s: %llu %s%s%s%s%s", corecap_flame_kind_name(o->kind),
		     (unsigned long long)fs->weight, corecap_flame_kind_unit(o->kind), unresolved,
		     idle, shim, prof);
}

/* Without --kind: the first kind the run holds; false when it holds none. */
static bool pick_kind(struct flame_job *j, enum flame_kind *kind)
{
	for (int k = 0; k < FLAME__COUNT; k++)
		if (corecap_flame_job_has(j, (enum flame_kind)k)) {
			*kind = (enum flame_kind)k;
			return true;
		}
	return false;
}

/*
 * A run of several hosts: each host's stacks under a root frame of its
 * name, in one graph (folded lines "HOST;...", so that a host's lines
 * are what 'corecap flame RUN:HOST' prints, each with "HOST;" before
 * it). Without --kind, the first kind any host has; a host without the
 * kind is left out, and said.
 */
static int flame_hosts(struct flame_opts *o)
{
	struct hosts_flame h;
	struct flame_job tmpl = {
		.by_pool = o->by_pool,
		.keep_profiler = o->keep_profiler,
		.names_pprof = o->names_pprof,
		.keep_shim_frames = o->keep_shim_frames,
		.no_idle = o->no_idle,
	};
	struct flame_job whole = {0}; /* the subtitle, the profiler's samples */
	struct flame_stacks fs;
	bool fs_init = false;
	int ret = corecap_hosts_flame_open(&h, o->run, o->symfs, &tmpl);

	if (!ret) {
		ret = corecap_hosts_flame_kind(&h, &o->kind, o->kind_given);
		if (ret == -ENOENT)
			corecap_error("no host of '%s' has %s stacks", o->run,
				      o->kind_given ? corecap_flame_kind_name(o->kind)
						    : "any (cpu, wall, lock or op)");
	}
	if (ret)
		goto out;
	if (!o->kind_given && o->kind != FLAME_CPU)
		corecap_note("no host of '%s' has a CPU profile: drawing --kind %s instead", o->run,
			     corecap_flame_kind_name(o->kind));
	if (o->names_pprof && o->kind != FLAME_CPU) {
		corecap_error("--names pprof applies to --kind cpu only");
		ret = -EINVAL;
		goto out;
	}
	ret = corecap_flame_stacks_init(&fs, o->kind, NULL, NULL);
	fs_init = !ret;
	if (!ret)
		ret = corecap_hosts_flame_build(&h, &fs, 0);
	if (!ret) {
		whole.profiler_samples = h.profiler_samples;
		snprintf(whole.subtitle, sizeof(whole.subtitle), "%s", h.subtitle);
		summary(o, &fs, &whole);
		ret = write_output(o, &whole, &fs, 1);
	}
out:
	if (fs_init)
		corecap_flame_stacks_release(&fs);
	corecap_hosts_flame_close(&h);
	return ret ? 1 : 0;
}

/*
 * The directory of the one daemon of run (a run of several daemons that
 * holds one, with its run written), malloc'd, said on stderr; NULL when it
 * has several or none.
 */
static char *only_daemon(const char *run)
{
	struct multi_run m;
	char *err = NULL, *dir = NULL;

	if (corecap_multi_run_open(&m, run, &err) == 0 && m.n_daemons == 1 &&
	    strcmp(m.daemons[0].status, "missing") != 0) {
		dir = strdup(m.daemons[0].dir);
		if (dir)
			corecap_note("'%s' is a run of several daemons with one, PID %d: its "
				     "flame graph",
				     run, m.daemons[0].pid);
	}
	corecap_multi_run_close(&m);
	free(err);
	return dir;
}

int corecap_cmd_flame(int argc, char **argv)
{
	struct flame_opts o;
	struct flame_job j;
	struct flame_stacks fs;
	bool none = false;
	char *one_daemon = NULL;
	int ret;

	ret = parse_args(&o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	/* Before any input is read: a FIFO without a reader must not wait (out_file.h). */
	if (corecap_out_file_check(o.output))
		return 1;
	if (corecap_multi_run_is(o.run)) {
		/* A run of several daemons that found one (--ceph-osds, a host's
		 * ceph-osds): its flame graph is that daemon's. */
		one_daemon = only_daemon(o.run);
		if (!one_daemon) {
			corecap_error("'%s' is a run of several daemons: a flame graph is one "
				      "daemon's, name it as RUN:PID",
				      o.run);
			return 1;
		}
		o.run = one_daemon;
	}
	if (corecap_hosts_run_is(o.run))
		return flame_hosts(&o);
	/* RUN:PID (one daemon of a run of several) is read as its own run. */
	if (corecap_flame_job_init(&j, o.run, o.symfs, NULL, NULL))
		return 1;
	j.by_pool = o.by_pool;
	j.keep_profiler = o.keep_profiler; /* before pick_kind builds the report */
	if (!o.kind_given) {
		none = !pick_kind(&j, &o.kind);
		/* Said, not silent: the user asked for the default, which is cpu. */
		if (!none && o.kind != FLAME_CPU)
			corecap_note("'%s' has no CPU profile (the daemon was not started with "
				     "'corecap run --cpuprofile'): drawing --kind %s instead",
				     o.run, corecap_flame_kind_name(o.kind));
	}
	if (o.names_pprof && o.kind != FLAME_CPU) {
		corecap_error("--names pprof applies to --kind cpu only");
		corecap_flame_job_release(&j);
		return 2;
	}
	j.names_pprof = o.names_pprof;
	j.keep_shim_frames = o.keep_shim_frames;
	j.no_idle = o.no_idle;
	ret = corecap_flame_stacks_init(&fs, o.kind, NULL, NULL);
	if (!ret && none)
		/* Nothing measured: an empty graph that says so, not an error. */
		snprintf(j.subtitle, sizeof(j.subtitle),
			 "no stacks: not measured (no " CORECAP_RUN_CPU_PROF
			 ", no " CORECAP_RUN_WALL ", no lock or op "
			 "source)");
	else if (!ret)
		ret = corecap_flame_job_build(&j, &fs, 0);
	if (!ret) {
		if (none)
			corecap_note("'%s': %s", o.run, j.subtitle);
		summary(&o, &fs, &j);
		ret = write_output(&o, &j, &fs, 0);
	}
	corecap_flame_stacks_release(&fs);
	corecap_flame_job_release(&j);
	free(one_daemon);
	return ret ? 1 : 0;
}
