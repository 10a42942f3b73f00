/*
 * `corecap html RUN -o FILE`: the report, a utilization chart and the
 * flame graphs of a run in one self-contained HTML page
 * (render/html_report.h). This file gathers the parts: the report as
 * `corecap report` builds it, threads.tsv as a time series, and each
 * flame kind the run has the data for.
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
#include "pass/hosts_build.h"
#include "pass/multi_build.h"
#include "pass/report_build.h"
#include "pass/scale_build.h"
#include "cmd_util.h"
#include <corecap/opt_table.h>
#include "read/run.h"
#include "read/thread_series.h"
#include "render/html_report.h"
#include "render/out_file.h"
#include "render/report.h"
#include <corecap/manifest_keys.h>
#include <corecap/run_format.h>

const char corecap_html_usage[] =
	"usage: corecap html [-o FILE] [--symfs DIR] [--pool] [--idle]\n"
	"                    [--keep-shim-frames] [--keep-profiler] RUN\n"
	"\n"
	"Writes one self-contained HTML page (no network fetch; inline scripts only): the\n"
	"report's verdict and tables, the CPU each pool used over time (its gaps shaded),\n"
	"the top functions of the cpu and wall stacks with their callers and callees,\n"
	"and the flame graphs the run has data for (cpu: " CORECAP_RUN_CPU_PROF
	"; wall: " CORECAP_RUN_WALL ";\n"
	"lock and op: the trace), as inline SVG as wide as the window.\n"
	"\n";

struct html_opts {
	const char *run, *output, *symfs;
	bool by_pool, idle, keep_shim_frames, keep_profiler;
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt html_options[] = {
	CORECAP_OPT_STR('o', 'o', "output", "FILE", struct html_opts, output,
			"write to FILE instead of standard output"),
	CORECAP_OPT_SET('p', 0, "pool", struct html_opts, by_pool,
			"wall flame graph: one root frame per pool, not per thread"),
	CORECAP_OPT_STR('s', 0, "symfs", "DIR", struct html_opts, symfs,
			"look up the daemon's ELF files under DIR (post-mortem)"),
	CORECAP_OPT_SET('i', 0, "idle", struct html_opts, idle,
			"wall flame graph: keep the stacks of threads idle in their\n"
			"wait for work (left out by default: flame --no-idle)"),
	CORECAP_OPT_SET('K', 0, "keep-shim-frames", struct html_opts, keep_shim_frames,
			"flame graphs: keep the frames of corecap's shim and\n"
			"LTTng-UST"),
	CORECAP_OPT_SET('P', 0, "keep-profiler", struct html_opts, keep_profiler,
			"keep the profiler's own threads, locks and frames in the\n"
			"tables, the diagnosis and the flame graphs"),
	CORECAP_OPT_HIDDEN('h', 'h', "help", no_argument),
};

CORECAP_OPT_TABLE(corecap_html_help, corecap_html_usage, html_options,
		  "\n"
		  "See also corecap-html(1).\n",
		  .help_col = 21, .shorts = CORECAP_SHORTS_INLINE);

static int parse_args(struct html_opts *o, int argc, char **argv)
{
	struct corecap_getopt g;
	int c;

	*o = (struct html_opts){0};
	corecap_opts_start(&g, &corecap_html_help, NULL, o);
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'h':
			corecap_cmd_help(stdout, &corecap_html_help);
			return -1;
		default: /* getopt said what is wrong */
			return corecap_usage_hint(corecap_html_usage);
		}
	}
	if (corecap_cmd_operands(argc, 1, "one run directory", corecap_html_usage))
		return 2;
	o->run = argv[optind];
	return 0;
}

struct html_job {
	struct html_opts o;
	struct run run;
	struct report_build rb;
	struct report report;
	char *text;
	size_t text_len;
	struct thread_series series;
	bool has_series;
	struct flame_job fjob;
	bool has_fjob;
	struct flame_stacks stacks[FLAME__COUNT];
	bool has_stacks[FLAME__COUNT];
	char titles[FLAME__COUNT][96], subtitles[FLAME__COUNT][256];
	struct html_report page;
	struct scale_view
		*scale; /* the scale run RUN is a point of, whose fit the projection takes */
};

static const char *const missing_note[FLAME__COUNT] = {
	[FLAME_CPU] = "No CPU flame graph: the run has no " CORECAP_RUN_CPU_PROF
		      " (start the daemon with "
		      "'corecap run --cpuprofile').",
	[FLAME_WALL] =
		"No wall-clock flame graph: the run has no " CORECAP_RUN_WALL " (record with "
		"'corecap record --wallclock').",
	[FLAME_LOCK] = "No lock flame graph: locks not measured (no trace, no shim counters, no "
		       "kernel futex events).",
	[FLAME_OP] = "No op flame graph: ops not measured (no trace).",
};

static const char *const headings[FLAME__COUNT] = {
	[FLAME_CPU] = "Flame graph: CPU (gperftools profile)",
	[FLAME_WALL] = "Flame graph: wall clock (all threads, sampled stacks)",
	[FLAME_LOCK] = "Flame graph: contended lock waits (ns)",
	[FLAME_OP] = "Flame graph: op latency by category (ns)",
};

/*
 * A gap in threads.tsv: 2.5 of the sampler's periods (threads_hz, 10 Hz
 * when the manifest has none) without a row, a round missed and more.
 */
static uint64_t series_gap_ns(const struct report *r)
{
	const struct run_manifest *mf = r->manifest;
	json_object *v;
	int hz = 10;

	if (mf && mf->root &&
	    json_object_object_get_ex(mf->root, corecap_mk(CORECAP_MK_THREADS_HZ), &v) &&
	    json_object_get_int(v) > 0)
		hz = json_object_get_int(v);
	return 2500000000ull / (uint64_t)hz;
}

/* The run's threads.tsv as the chart's series with its gaps; false when there is none. */
static bool load_series_of(struct run *run, const struct report *r, struct thread_series *s)
{
	uint64_t w = corecap_model_window_ns(r->model), bin = 100000000;
	char *err = NULL;
	int ret;

	/* At most ~600 points per line, at least a 100 ms step. */
	if (w / 600 > bin)
		bin = w / 600;
	ret = corecap_run_thread_series_gaps(run, r->model->ws, r->model->we, bin, series_gap_ns(r),
					     s, &err);
	if (ret && ret != -ENOENT)
		corecap_warn("%s: no utilization chart", err ? err : strerror(-ret));
	if (ret)
		corecap_thread_series_release(s);
	free(err);
	return ret == 0;
}

static void load_series(struct html_job *j)
{
	j->has_series = load_series_of(&j->run, &j->report, &j->series);
}

static int add_flames(struct html_job *j)
{
	int ret;

	ret = corecap_flame_job_init(&j->fjob, j->o.run, j->o.symfs, &j->run, &j->report);
	if (ret)
		return ret;
	j->has_fjob = true;
	j->fjob.by_pool = j->o.by_pool;
	j->fjob.keep_shim_frames = j->o.keep_shim_frames;
	j->fjob.keep_profiler = j->o.keep_profiler;
	j->fjob.no_idle = !j->o.idle;
	for (int k = 0; k < FLAME__COUNT; k++) {
		struct html_flame *hf;

		if (!corecap_flame_job_has(&j->fjob, (enum flame_kind)k)) {
			j->page.notes[j->page.n_notes++] = missing_note[k];
			continue;
		}
		ret = corecap_flame_stacks_init(&j->stacks[k], (enum flame_kind)k, NULL, NULL);
		if (ret)
			return ret;
		j->has_stacks[k] = true;
		ret = corecap_flame_job_build(&j->fjob, &j->stacks[k], 0);
		if (ret)
			return ret;
		snprintf(j->titles[k], sizeof(j->titles[k]), "%s flame graph",
			 corecap_flame_kind_name((enum flame_kind)k));
		snprintf(j->subtitles[k], sizeof(j->subtitles[k]), "%s", j->fjob.subtitle);
		hf = &j->page.flames[j->page.n_flames++];
		*hf = (struct html_flame){
			.heading = headings[k],
			.kind = corecap_flame_kind_name((enum flame_kind)k),
			.folded = &j->stacks[k].folded,
			.opts =
				{
					.title = j->titles[k],
					.subtitle = j->subtitles[k],
					.unit = corecap_flame_kind_unit((enum flame_kind)k),
					.palette = k == FLAME_OP ? FLAME_PALETTE_OP
								 : FLAME_PALETTE_CLASS,
					.root_is_thread = k == FLAME_WALL,
					.root_is_lock = k == FLAME_LOCK,
					.width = 1200,
					.info = j->stacks[k].info,
					.n_info = j->stacks[k].n_info,
				},
		};
	}
	return 0;
}

static int build(struct html_job *j)
{
	struct report_opts ro;
	FILE *mem;
	int ret;

	/* The embedded text report cuts the shim's frames as the pictures do. */
	corecap_report_opts_init(&ro);
	ro.keep_shim_frames = j->o.keep_shim_frames;
	ro.keep_profiler = j->o.keep_profiler;
	/* As report does by default: a point of a scale run projects with its fit. */
	ret = corecap_scale_for_run(&j->scale, j->o.run, NULL);
	if (ret)
		return ret;
	if (j->scale && j->scale->fit.valid) {
		ro.scale_fit = &j->scale->fit;
		ro.scale_dir = j->scale->dir;
	}
	ret = corecap_report_build_dir(&j->rb, &j->run, j->o.run, j->o.symfs, &ro, &j->report);
	if (ret)
		return ret;
	mem = open_memstream(&j->text, &j->text_len);
	if (!mem)
		return -ENOMEM;
	ret = corecap_render_text(&j->report, mem);
	if (fclose(mem) && !ret)
		ret = -ENOMEM;
	if (ret)
		return ret;
	load_series(j);
	ret = add_flames(j);
	if (ret)
		return ret;
	j->page.report = &j->report;
	j->page.report_text = j->text;
	j->page.series = j->has_series ? &j->series : NULL;
	return 0;
}

static void release(struct html_job *j)
{
	for (int k = 0; k < FLAME__COUNT; k++)
		if (j->has_stacks[k])
			corecap_flame_stacks_release(&j->stacks[k]);
	if (j->has_fjob)
		corecap_flame_job_release(&j->fjob);
	if (j->has_series)
		corecap_thread_series_release(&j->series);
	free(j->text);
	corecap_report_build_release(&j->rb);
	free(j->scale);
	corecap_run_close(&j->run);
}

/* One daemon's parts of the page of several: its chart's series, its cpu and wall stacks. */
struct multi_page {
	struct thread_series series;
	bool has_series;
	struct flame_job fjob;
	bool has_fjob;
	struct flame_stacks stacks[2];
	bool has_stacks[2];
};

/* The top table's stacks, as the single page's (add_flames), without their graphs. */
static int multi_page_build(struct multi_page *p, struct html_report *pg, const struct html_opts *o,
			    const char *dir, struct run *run, const struct report *r)
{
	static const enum flame_kind kinds[2] = {FLAME_CPU, FLAME_WALL};
	int ret;

	*pg = (struct html_report){.report = r};
	p->has_series = load_series_of(run, r, &p->series);
	pg->series = p->has_series ? &p->series : NULL;
	ret = corecap_flame_job_init(&p->fjob, dir, o->symfs, run, r);
	if (ret)
		return ret;
	p->has_fjob = true;
	p->fjob.by_pool = o->by_pool;
	p->fjob.keep_shim_frames = o->keep_shim_frames;
	p->fjob.keep_profiler = o->keep_profiler;
	p->fjob.no_idle = !o->idle;
	for (int i = 0; i < 2; i++) {
		if (!corecap_flame_job_has(&p->fjob, kinds[i]))
			continue;
		ret = corecap_flame_stacks_init(&p->stacks[i], kinds[i], NULL, NULL);
		if (ret)
			return ret;
		p->has_stacks[i] = true;
		ret = corecap_flame_job_build(&p->fjob, &p->stacks[i], 0);
		if (ret)
			return ret;
		pg->flames[pg->n_flames++] = (struct html_flame){
			.kind = corecap_flame_kind_name(kinds[i]),
			.folded = &p->stacks[i].folded,
			.opts = {.unit = corecap_flame_kind_unit(kinds[i])},
		};
	}
	return 0;
}

static void multi_page_release(struct multi_page *p)
{
	for (int i = 0; i < 2; i++)
		if (p->has_stacks[i])
			corecap_flame_stacks_release(&p->stacks[i]);
	if (p->has_fjob)
		corecap_flame_job_release(&p->fjob);
	if (p->has_series)
		corecap_thread_series_release(&p->series);
}

/* One section of a page of several runs: its run, its report, its name in an error. */
struct page_section {
	const char *dir;
	struct run *run;
	const struct report *r; /* NULL: not analysed, no chart */
	char name[64];
};

/* A page's renderer, over the view the sections came from. */
typedef int (*sections_render)(const void *view, const struct html_report *pages, FILE *out);

/*
 * A page of several runs (daemons or hosts): each section's CPU chart
 * (its gap marks) and top table as the single page draws them
 * (multi_page_build), then render(view, pages) into o->output.
 */
static int sections_page(const struct html_opts *o, const struct page_section *sec, size_t n,
			 sections_render render, const void *view)
{
	struct multi_page *parts = calloc(n ? n : 1, sizeof(*parts));
	struct html_report *pages = calloc(n ? n : 1, sizeof(*pages));
	struct out_file out;
	int ret = parts && pages ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < n; i++) {
		if (!sec[i].r)
			continue;
		ret = multi_page_build(&parts[i], &pages[i], o, sec[i].dir, sec[i].run, sec[i].r);
		if (ret)
			corecap_error("cannot build the page of %s: %s", sec[i].name,
				      strerror(-ret));
	}
	if (!ret)
		ret = corecap_out_file_open(&out, o->output);
	if (!ret) {
		ret = render(view, pages, out.f);
		if (ret) {
			corecap_error("cannot write %s: %s", corecap_out_file_name(&out),
				      strerror(-ret));
			corecap_out_file_abort(&out);
		} else {
			ret = corecap_out_file_commit(&out);
		}
	}
	for (size_t i = 0; parts && i < n; i++)
		multi_page_release(&parts[i]);
	free(parts);
	free(pages);
	return ret;
}

static int render_multi(const void *view, const struct html_report *pages, FILE *out)
{
	return corecap_render_multi_html(view, pages, out);
}

static int render_hosts(const void *view, const struct html_report *pages, FILE *out)
{
	return corecap_render_hosts_html(view, pages, out);
}

/*
 * A run of several daemons: the merged view, then each daemon's CPU chart
 * (its gap marks) and top table as the single page draws them, and its
 * report, one page.
 */
static int html_multi(const struct html_opts *o)
{
	const struct multi_report *m;
	struct multi_build mb;
	struct page_section *sec = NULL;
	int ret = corecap_multi_build(&mb, o->run, o->symfs, NULL, &m);

	if (!ret && !(sec = calloc(m->n ? m->n : 1, sizeof(*sec))))
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < m->n; i++) {
		sec[i] = (struct page_section){m->s[i].d->dir, &mb.runs[i], m->s[i].r, ""};
		snprintf(sec[i].name, sizeof(sec[i].name), "PID %d", m->s[i].d->pid);
	}
	if (!ret)
		ret = sections_page(o, sec, m->n, render_multi, m);
	free(sec);
	corecap_multi_build_release(&mb);
	return ret;
}

/* A run of several hosts: the system's verdict, then each host's chart, top table and report. */
static int html_hosts(const struct html_opts *o)
{
	const struct hosts_report *m;
	struct hosts_build hb;
	struct page_section *sec = NULL;
	int ret = corecap_hosts_build(&hb, o->run, o->symfs, NULL, &m);

	if (!ret && !(sec = calloc(m->n ? m->n : 1, sizeof(*sec))))
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < m->n; i++) {
		/* A host of several daemons: the chart of its daemon with the least headroom. */
		sec[i] = (struct page_section){m->s[i].dir, m->s[i].run, m->s[i].r, ""};
		snprintf(sec[i].name, sizeof(sec[i].name), "host '%s'", m->s[i].h->name);
	}
	if (!ret)
		ret = sections_page(o, sec, m->n, render_hosts, m);
	free(sec);
	corecap_hosts_build_release(&hb);
	return ret;
}

int corecap_cmd_html(int argc, char **argv)
{
	struct html_job *j = calloc(1, sizeof(*j));
	struct out_file out;
	int ret;

	if (!j) {
		corecap_error("out of memory");
		return 1;
	}
	ret = parse_args(&j->o, argc, argv);
	if (ret) {
		free(j);
		return ret < 0 ? 0 : ret;
	}
	/* Before any input is read: a FIFO without a reader must not wait (out_file.h). */
	if (corecap_out_file_check(j->o.output)) {
		free(j);
		return 1;
	}
	if (corecap_multi_run_is(j->o.run)) {
		ret = html_multi(&j->o);
		free(j);
		return ret ? 1 : 0;
	}
	if (corecap_hosts_run_is(j->o.run)) {
		ret = html_hosts(&j->o);
		free(j);
		return ret ? 1 : 0;
	}
	ret = build(j);
	if (ret)
		goto out;
	ret = corecap_out_file_open(&out, j->o.output);
	if (ret)
		goto out;
	ret = corecap_html_report_render(&j->page, out.f);
	if (ret) {
		corecap_error("cannot write %s: %s", corecap_out_file_name(&out), strerror(-ret));
		corecap_out_file_abort(&out);
	} else {
		ret = corecap_out_file_commit(&out);
	}
	if (!ret && j->o.output) {
		corecap_note("wrote %s (%zu flame graphs)", j->o.output, j->page.n_flames);
	}
out:
	release(j);
	free(j);
	return ret ? 1 : 0;
}
