/*
 * The rendering of a run of several hosts (render/hosts_report.h): the
 * system's verdict and a line per host (its daemon, throughput, headroom
 * and clock against the recording host's; a host of several daemons a
 * line per daemon) first, then each host's own report exactly as `corecap
 * report RUN/hosts/NAME` prints it (a host of several daemons': their
 * report), in that host's clock. JSON: the same, with each host's report
 * object nested. The
 * page: the same, each host's section led by the single page's CPU chart
 * (gap marks) and top table (html_report.h, html_views.h).
 */
#include "hosts_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <corecap/run_format.h>

#include "html_escape.h"
#include "html_report.h"
#include "multi_report.h"
#include "render_common.h"

static void daemon_label(const struct hosts_section *s, char *buf, size_t len)
{
	const struct run_manifest *mf = s->r ? s->r->manifest : NULL;
	int pid = mf && mf->pid > 0 ? mf->pid : s->h->pid;
	const char *comm = mf && mf->comm ? mf->comm : s->h->comm;

	if (pid > 0)
		snprintf(buf, len, "%s (pid %d)", comm, pid);
	else
		snprintf(buf, len, "%s", comm);
}

/* The section's title: its daemon, or a host of several's daemons and the one that binds. */
static void section_label(const struct hosts_section *s, char *buf, size_t len)
{
	char one[96];

	daemon_label(s, one, sizeof(one));
	if (s->multi && s->r)
		snprintf(buf, len, "%zu daemons; the least headroom: %s", s->multi->n, one);
	else if (s->multi)
		snprintf(buf, len, "%zu daemons", s->multi->n);
	else
		snprintf(buf, len, "%s", one);
}

static void clock_text(const struct hosts_host *h, char *buf, size_t len)
{
	int n;

	if (!h->start.valid) {
		snprintf(buf, len, "not measured");
		return;
	}
	n = snprintf(buf, len, "%+.6f s +- %.1f us", (double)h->start.offset_ns / 1e9,
		     (double)h->start.bound_ns / 1e3);
	if (h->has_drift && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", drift %.2f +- %.2f ppm", h->drift_ppm,
			 h->drift_bound_ppm);
}

/* A host's clock refined from its ops' send/receive pairs (model/clock_pairs.h), when it has any.
 */
static void refined_text(const struct hosts_section *s, FILE *out)
{
	const struct clock_refined *r = &s->refined;

	if (!r->pairs)
		return;
	const char *what = s->refined_from_osds ? "replication pairs" : "op pairs";

	if (r->contradiction) {
		fprintf(out,
			"             clock from %zu %s: [%+.6f, %+.6f] s, CONTRADICTS the "
			"ping's (disjoint beyond the bound): not used\n",
			r->pairs, what, (double)r->pairs_lo_ns / 1e9, (double)r->pairs_hi_ns / 1e9);
		return;
	}
	fprintf(out, "             clock from %zu %s: %+.6f s +- %.1f us", r->pairs, what,
		(double)r->offset_ns / 1e9, (double)r->bound_ns / 1e3);
	if (r->drift_fitted)
		fprintf(out, ", drift %.2f +- %.2f ppm", r->drift * 1e6, r->drift_bound * 1e6);
	fprintf(out, " (%s)\n",
		s->refined_from_osds	? "its OSDs' writes replicated with another host's: a "
					  "check on the ping's, which is kept"
		: s->split_uses_refined ? "tighter: the client split's clock"
					: "not tighter: the split keeps the ping's");
}

/* A line of the hosts' table: one daemon's. */
static void host_row(FILE *out, const char *host, const char *label, const char *status,
		     const struct report *r, const char *clock)
{
	const struct diagnosis *d = r ? r->diagnosis : NULL;
	char iops[16] = "-", head[16] = "-";

	if (d && d->iops > 0)
		snprintf(iops, sizeof(iops), "%.0f", d->iops);
	if (d && d->headroom > 0)
		snprintf(head, sizeof(head), "%.2fx", d->headroom);
	fprintf(out, "           %-12s %-24s %-9s %9s %9s  %-12s %s\n", host, label, status, iops,
		head, d ? corecap_diag_kind_name(d->kind) : "not analysed", clock);
}

/* A split row's name: the host's, with its daemon's PID on a host of several. */
static void row_name(const struct hosts_split_row *row, char *buf, size_t len)
{
	if (row->pid)
		snprintf(buf, len, "%s:%d", row->h->name, row->pid);
	else
		snprintf(buf, len, "%s", row->h->name);
}

/* One daemon's split: its medians, its means, what broke the bound. */
static void split_rows(const struct hosts_split_row *row, FILE *out)
{
	const struct client_split_host *sp = &row->split;
	char name[64];

	row_name(row, name, sizeof(name));
	fprintf(out, "  %-10s %-7s %7zu", name, "median", sp->matched);
	for (int p = 0; p < SPLIT__COUNT; p++)
		fprintf(out, " %12.1f", sp->median_us[p]);
	fprintf(out, " %9.1f %12.1f\n", (double)sp->bound_ns / 1e3, sp->after_reply_median_us);
	fprintf(out, "  %-10s %-7s %7s", "", "mean", "");
	for (int p = 0; p < SPLIT__COUNT; p++)
		fprintf(out, " %12.1f", sp->mean_us[p]);
	fprintf(out, " %9s %12.1f\n", "", sp->after_reply_mean_us);
	if (sp->replies_seen < sp->matched)
		fprintf(out,
			"  %-10s %zu of its ops without their reply's send seen: their daemon part "
			"ends at the op's end\n",
			"", sp->matched - sp->replies_seen);
	fprintf(out,
		"  %-10s beyond the bound: %" PRIu64 " network_out < 0, %" PRIu64
		" network_back < 0, %" PRIu64 " client < daemon, %" PRIu64
		" network_back off the aligned reply by more (drift, at most %.1f us)\n",
		"", sp->net_out_negative, sp->net_back_negative, sp->client_below_daemon,
		sp->drift_over_bound, (double)sp->max_drift_err_ns / 1e3);
	if (row->client_unmatched)
		fprintf(out,
			"  %-10s %zu of its %zu client-named ops are not in " CORECAP_RUN_CLIENT_OPS
			"\n",
			"", row->client_unmatched, row->client_named);
}

/* The clients' latency split (model/client_split.h), when the run has client-ops.tsv. */
static void clients_text(const struct hosts_report *m, FILE *out)
{
	const struct hosts_client_ops *c = &m->client;

	if (!c->present) {
		fprintf(out,
			"\nCLIENTS    no " CORECAP_RUN_CLIENT_OPS ": the benchmark recorded no op "
			"(refbench does, through CORECAP_CLIENT_OPS); no client latency split\n");
		return;
	}
	fprintf(out,
		"\nCLIENTS    %zu ops the benchmark recorded (" CORECAP_RUN_CLIENT_OPS
		"), %zu matched with "
		"their daemon's op by id\n",
		c->n, c->matched);
	if (c->bad || c->over_cap || c->duplicates || c->daemon_over_cap)
		fprintf(out,
			"  left out   %" PRIu64 " lines not read, %" PRIu64
			" ops over the bound, %zu ids twice, %" PRIu64
			" daemon ops over the model's bound\n",
			c->bad, c->over_cap, c->duplicates, c->daemon_over_cap);
	fprintf(out,
		"  split      client = client_own + network_out + daemon + network_back, per op "
		"(us): the daemon from its op's start to its reply's send, in its own clock;\n"
		"             the rest on the recording host's, each within the host's clock bound "
		"(us); the means sum to the client's mean exactly, the medians need not;\n"
		"             after_reply: the daemon's op after its reply left (its report's "
		"latency counts it, the client does not wait for it)\n");
	fprintf(out, "  %-10s %-7s %7s", "host", "", "ops");
	for (int p = 0; p < SPLIT__COUNT; p++)
		fprintf(out, " %12s", corecap_split_part_name((enum split_part)p));
	fprintf(out, " %9s %12s\n", "bound", "after_reply");
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct hosts_split_row *row = &c->rows[i];
		char name[64];

		row_name(row, name, sizeof(name));
		if (row->has_split)
			split_rows(row, out);
		else
			fprintf(out, "  %-10s not split: %s\n", name, row->why_split_not);
	}
}

/* A host of several daemons: the name of the one that caps it (s->pid); else NULL. */
static const char *multi_comm(const struct hosts_section *s)
{
	if (!s->multi)
		return NULL;
	for (size_t k = 0; k < s->multi->n; k++)
		if (s->multi->s[k].d->pid == s->pid)
			return s->multi->s[k].d->comm;
	return NULL;
}

static void summary_text(const struct hosts_report *m, FILE *out)
{
	const struct run_manifest *mf = &m->run->manifest;

	fprintf(out, "corecap report: %s\n\n", m->run_dir);
	fprintf(out, "hosts      %zu in one window, %zu analysed\n", m->n, m->n_analysed);
	if (m->window_s > 0)
		fprintf(out, "window     %.3f s (the recording host's clock)\n", m->window_s);
	if (mf->partial)
		fprintf(out, "partial    %s\n",
			mf->partial_reason ? mf->partial_reason : "the recording did not complete");
	if (mf->bench_command)
		corecap_render_bench_line(mf, out);
	if (m->ops_per_s > 0)
		/* Each daemon's as its diagnosis measures it: its trace's ops, its
		 * benchmark's figure, or (an OSD) its perf counters. */
		fprintf(out,
			"throughput %.0f ops/s, the hosts' daemons' summed, each as its diagnosis "
			"measures it\n",
			m->ops_per_s);
	fprintf(out, "\nSYSTEM     %s\n", m->verdict);
	if (m->cap >= 0) {
		const struct diagnosis *d = m->s[m->cap].r->diagnosis;

		fprintf(out,
			"  headroom   %.2fx  (the least of the hosts' daemons': with the load "
			"split "
			"across them as in this run, the system grows this much before host %s "
			"binds)\n",
			d->headroom, m->s[m->cap].h->name);
		if (m->next >= 0) {
			const struct hosts_section *n = &m->s[m->next];
			const char *comm = multi_comm(n);

			/* A host of several daemons: the one that caps it, by PID and name. */
			if (comm)
				fprintf(out, "  then       host %s:%d (%s) at %.2fx\n", n->h->name,
					n->pid, comm, n->r->diagnosis->headroom);
			else
				fprintf(out, "  then       host %s at %.2fx\n", n->h->name,
					n->r->diagnosis->headroom);
		}
	}
	if (m->n_no_headroom)
		fprintf(out, "  unknown    %zu host%s without a headroom (see %s diagnosis)\n",
			m->n_no_headroom, m->n_no_headroom == 1 ? "" : "s",
			m->n_no_headroom == 1 ? "its" : "their");
	for (size_t i = 0; i < m->n; i++)
		if (m->s[i].r && m->s[i].n_daemons_no_headroom && m->s[i].r->diagnosis &&
		    m->s[i].r->diagnosis->headroom > 0)
			fprintf(out,
				"  unknown    host %s: %zu of its daemons without a headroom, not "
				"counted in its least (see their diagnosis)\n",
				m->s[i].h->name, m->s[i].n_daemons_no_headroom);
	fprintf(out, "\nhosts      %-12s %-24s %-9s %9s %9s  %-12s %s\n", "name", "daemon",
		"status", "ops/s", "headroom", "limit", "clock (offset from the recording host's)");
	for (size_t i = 0; i < m->n; i++) {
		const struct hosts_section *s = &m->s[i];
		char label[96], clock[96];

		clock_text(s->h, clock, sizeof(clock));
		if (s->multi) {
			/* A line per daemon, the host's name and clock on each. */
			for (size_t k = 0; k < s->multi->n; k++) {
				const struct multi_section *ms = &s->multi->s[k];

				snprintf(label, sizeof(label), "%s (pid %d)", ms->d->comm,
					 ms->d->pid);
				host_row(out, s->h->name, label, ms->d->status, ms->r, clock);
				if (!ms->r)
					fprintf(out, "             not analysed: %s\n",
						ms->why_not);
			}
		} else {
			daemon_label(s, label, sizeof(label));
			host_row(out, s->h->name, label, s->h->status, s->r, clock);
		}
		refined_text(s, out);
		if (!s->r)
			fprintf(out, "             not analysed: %s\n", s->why_not);
		else if (s->h->partial_reason)
			fprintf(out, "             %s\n", s->h->partial_reason);
	}
	fprintf(out, "           each host's report below is in its own clock\n");
	clients_text(m, out);
	fputc('\n', out);
}

/* A host's own report: its daemon's, or a host of several's, as report RUN:NAME prints it. */
static int host_text(const struct hosts_section *s, FILE *out)
{
	if (s->multi)
		return corecap_render_multi_text(s->multi, out);
	if (s->r)
		return corecap_render_text(s->r, out);
	fprintf(out, "not analysed: %s\n\n", s->why_not);
	return 0;
}

int corecap_render_hosts_text(const struct hosts_report *m, FILE *out)
{
	int ret = 0;

	summary_text(m, out);
	for (size_t i = 0; i < m->n && !ret; i++) {
		char label[160];

		section_label(&m->s[i], label, sizeof(label));
		fprintf(out, "======== host %zu of %zu: %s, %s ========\n\n", i + 1, m->n,
			m->s[i].h->name, label);
		ret = host_text(&m->s[i], out);
	}
	if (!ret && ferror(out))
		ret = -EIO;
	return ret;
}

/* Writes what the text prints of the system or of section i (-1: the system), HTML-escaped. */
static int escaped(FILE *out, const struct hosts_report *m, int i)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int ret = 0;

	if (!mem)
		return -errno;
	if (i < 0)
		summary_text(m, mem);
	else
		ret = host_text(&m->s[i], mem);
	if (fclose(mem) && !ret)
		ret = -EIO;
	if (!ret)
		corecap_html_escape(out, buf, 0);
	free(buf);
	return ret;
}

int corecap_render_hosts_html(const struct hosts_report *m, const struct html_report *pages,
			      FILE *out)
{
	int ret;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	      "<link rel=\"icon\" href=\"data:,\"><title>corecap: ",
	      out);
	corecap_html_escape(out, m->run_dir, 0);
	fputs("</title>\n", out);
	corecap_html_report_style(out); /* the single page's, for the same parts */
	fputs("</head>\n<body>\n<h1>corecap: ", out);
	corecap_html_escape(out, m->run_dir, 0);
	fprintf(out, " (%zu hosts)</h1>\n<h2>The system</h2>\n<pre id=\"cc-system\">", m->n);
	ret = escaped(out, m, -1);
	fputs("</pre>\n", out);
	for (size_t i = 0; i < m->n && !ret; i++) {
		const struct html_report *pg = pages && pages[i].report ? &pages[i] : NULL;
		char label[160], sfx[48];

		section_label(&m->s[i], label, sizeof(label));
		/* The single page's chart (its gap marks) and top table, ids of this host
		 * (a host's name is letters, digits, '_', '-' and '.': read/hosts_run.h). */
		snprintf(sfx, sizeof(sfx), "-%s", m->s[i].h->name);
		fprintf(out, "<section id=\"cc-host%s\">\n<h2>host ", sfx);
		corecap_html_escape(out, m->s[i].h->name, 0);
		fputs(": ", out);
		corecap_html_escape(out, label, 0);
		fputs("</h2>\n", out);
		if (pg) {
			corecap_html_cpu_chart(pg->series, sfx, out);
			ret = corecap_html_top_views(pg, sfx, false, out);
			if (ret)
				break;
		}
		fputs("<details><summary>Its report (text, in its own clock)</summary>\n", out);
		fprintf(out, "<p>Its own page: <code>corecap html ");
		corecap_html_escape(out, m->run_dir, 0);
		fputs(":", out);
		corecap_html_escape(out, m->s[i].h->name, 0);
		fputs("</code></p>\n<pre>", out);
		if (m->s[i].r || m->s[i].multi)
			ret = escaped(out, m, (int)i);
		else
			corecap_html_escape(out, m->s[i].why_not, 0);
		fputs("</pre></details>\n</section>\n", out);
	}
	fputs("</body></html>\n", out);
	if (!ret && ferror(out))
		ret = -EIO;
	return ret;
}

static json_object *clock_obj(const struct hosts_clock *c)
{
	json_object *o;

	if (!c->valid)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "offset_ns", json_object_new_int64(c->offset_ns));
	json_object_object_add(o, "bound_ns", json_object_new_int64((int64_t)c->bound_ns));
	return o;
}

/* "refined": the clock from the host's op pairs (model/clock_pairs.h); null without pairs. */
static json_object *refined_obj(const struct hosts_section *s)
{
	const struct clock_refined *r = &s->refined;
	json_object *o;

	if (!r->pairs)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "pairs", json_object_new_int64((int64_t)r->pairs));
	json_object_object_add(
		o, "from",
		json_object_new_string(s->refined_from_osds ? "osd_replication" : "client_ops"));
	json_object_object_add(o, "contradiction", json_object_new_boolean(r->contradiction));
	json_object_object_add(o, "pairs_low_ns", json_object_new_int64(r->pairs_lo_ns));
	json_object_object_add(o, "pairs_high_ns", json_object_new_int64(r->pairs_hi_ns));
	json_object_object_add(o, "at_ns", json_object_new_int64((int64_t)r->at_ns));
	json_object_object_add(o, "offset_ns",
			       r->valid ? json_object_new_int64(r->offset_ns) : NULL);
	json_object_object_add(o, "bound_ns",
			       r->valid ? json_object_new_int64((int64_t)r->bound_ns) : NULL);
	json_object_object_add(o, "bound_max_ns",
			       r->valid ? json_object_new_int64((int64_t)s->refined_bound_max_ns)
					: NULL);
	json_object_object_add(o, "drift_ppm",
			       r->valid && r->drift_fitted ? json_object_new_double(r->drift * 1e6)
							   : NULL);
	json_object_object_add(
		o, "drift_bound_ppm",
		r->valid && r->drift_fitted ? json_object_new_double(r->drift_bound * 1e6) : NULL);
	json_object_object_add(o, "used_by_split", json_object_new_boolean(s->split_uses_refined));
	return o;
}

/* The PID of a section's daemon (a host of several's: the one with the least headroom); 0 unknown.
 */
static int section_pid(const struct hosts_section *s)
{
	if (s->multi)
		return s->pid;
	return s->r && s->r->manifest && s->r->manifest->pid > 0 ? s->r->manifest->pid : s->h->pid;
}

/* A daemon of a host, as the hosts' table gives it. */
static json_object *daemon_obj(int pid, const char *comm, const char *status,
			       const struct report *r, const char *why_not)
{
	const struct diagnosis *d = r ? r->diagnosis : NULL;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "pid", pid > 0 ? json_object_new_int(pid) : NULL);
	json_object_object_add(o, "comm", json_object_new_string(comm));
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "ops_per_s",
			       d && d->iops > 0 ? corecap_render_json_num(d->iops, 1) : NULL);
	json_object_object_add(o, "headroom",
			       d && d->headroom > 0 ? corecap_render_json_num(d->headroom, 3)
						    : NULL);
	json_object_object_add(o, "kind",
			       d ? json_object_new_string(corecap_diag_kind_name(d->kind)) : NULL);
	json_object_object_add(o, "not_analysed", r ? NULL : json_object_new_string(why_not));
	return o;
}

/* The host's daemons: one, or a host of several's, each with its figures. */
static json_object *daemons_arr(const struct hosts_section *s)
{
	json_object *a = json_object_new_array();
	char comm[64];

	if (!s->multi) {
		const struct run_manifest *mf = s->r ? s->r->manifest : NULL;

		snprintf(comm, sizeof(comm), "%s", mf && mf->comm ? mf->comm : s->h->comm);
		json_object_array_add(
			a, daemon_obj(section_pid(s), comm, s->h->status, s->r, s->why_not));
		return a;
	}
	for (size_t k = 0; k < s->multi->n; k++) {
		const struct multi_section *ms = &s->multi->s[k];

		json_object_array_add(
			a, daemon_obj(ms->d->pid, ms->d->comm, ms->d->status, ms->r, ms->why_not));
	}
	return a;
}

json_object *corecap_render_hosts_system_json(const struct hosts_report *m)
{
	json_object *o = json_object_new_object();
	const struct diagnosis *d = m->cap >= 0 ? m->s[m->cap].r->diagnosis : NULL;

	json_object_object_add(o, "verdict", json_object_new_string(m->verdict));
	json_object_object_add(o, "host", d ? json_object_new_string(m->s[m->cap].h->name) : NULL);
	json_object_object_add(o, "pid",
			       d && section_pid(&m->s[m->cap]) > 0
				       ? json_object_new_int(section_pid(&m->s[m->cap]))
				       : NULL);
	json_object_object_add(o, "kind",
			       d ? json_object_new_string(corecap_diag_kind_name(d->kind)) : NULL);
	json_object_object_add(o, "name", d && d->name[0] ? json_object_new_string(d->name) : NULL);
	json_object_object_add(o, "headroom", d ? corecap_render_json_num(d->headroom, 3) : NULL);
	json_object_object_add(o, "next_host",
			       m->next >= 0 ? json_object_new_string(m->s[m->next].h->name) : NULL);
	json_object_object_add(o, "next_pid",
			       m->next >= 0 && m->s[m->next].multi
				       ? json_object_new_int(m->s[m->next].pid)
				       : NULL);
	json_object_object_add(
		o, "next_headroom",
		m->next >= 0 ? corecap_render_json_num(m->s[m->next].r->diagnosis->headroom, 3)
			     : NULL);
	json_object_object_add(o, "hosts_without_headroom",
			       json_object_new_int((int)m->n_no_headroom));
	json_object_object_add(o, "ops_per_s",
			       m->ops_per_s > 0 ? corecap_render_json_num(m->ops_per_s, 1) : NULL);
	json_object_object_add(o, "assumption",
			       json_object_new_string("the load splits across the hosts as it "
						      "did in the run"));
	return o;
}

static json_object *parts_obj(const double *us)
{
	json_object *o = json_object_new_object();

	for (int p = 0; p < SPLIT__COUNT; p++)
		json_object_object_add(o, corecap_split_part_name((enum split_part)p),
				       corecap_render_json_num(us[p], 3));
	return o;
}

/* A count or a time in ns, as a JSON integer. */
static void put_count(json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

/* "client_split": the clients' latency split, null without client-ops.tsv. */
static json_object *client_split_json(const struct hosts_report *m)
{
	const struct hosts_client_ops *c = &m->client;
	json_object *o, *a;

	if (!c->present)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	put_count(o, "client_ops", c->n);
	put_count(o, "matched", c->matched);
	put_count(o, "lines_not_read", c->bad);
	put_count(o, "over_bound", c->over_cap);
	put_count(o, "duplicate_ids", c->duplicates);
	put_count(o, "daemon_ops_over_bound", c->daemon_over_cap);
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct hosts_split_row *s = &c->rows[i];
		const struct client_split_host *sp = &s->split;
		json_object *h, *v;

		h = json_object_new_object();
		json_object_object_add(h, "host", json_object_new_string(s->h->name));
		json_object_object_add(h, "pid", s->pid ? json_object_new_int(s->pid) : NULL);
		put_count(h, "client_named", s->client_named);
		put_count(h, "unmatched", s->client_unmatched);
		json_object_object_add(
			h, "not_split",
			s->has_split ? NULL
				     : json_object_new_string(s->why_split_not ? s->why_split_not
									       : "?"));
		if (s->has_split) {
			put_count(h, "ops", sp->matched);
			put_count(h, "bound_ns", sp->bound_ns);
			put_count(h, "replies_seen", sp->replies_seen);
			json_object_object_add(
				h, "after_reply_median_us",
				corecap_render_json_num(sp->after_reply_median_us, 3));
			json_object_object_add(h, "after_reply_mean_us",
					       corecap_render_json_num(sp->after_reply_mean_us, 3));
			json_object_object_add(h, "median_us", parts_obj(sp->median_us));
			json_object_object_add(h, "mean_us", parts_obj(sp->mean_us));
			v = json_object_new_object();
			put_count(v, "network_out_negative", sp->net_out_negative);
			put_count(v, "network_back_negative", sp->net_back_negative);
			put_count(v, "client_below_daemon", sp->client_below_daemon);
			put_count(v, "drift_over_bound", sp->drift_over_bound);
			json_object_object_add(h, "beyond_bound", v);
			put_count(h, "max_drift_err_ns", sp->max_drift_err_ns);
			put_count(h, "max_sum_err_ns", sp->max_sum_err_ns);
		}
		json_object_array_add(a, h);
	}
	json_object_object_add(o, "hosts", a);
	return o;
}

int corecap_render_hosts_json(const struct hosts_report *m, FILE *out)
{
	/* A window not known is 0 here, as in the several-daemon view. */
	json_object *root = corecap_render_json_runs_head("corecap-report-hosts", m->run_dir,
							  &m->run->manifest, m->window_s);
	json_object *a = json_object_new_array();
	int ret = 0;

	json_object_object_add(root, "system", corecap_render_hosts_system_json(m));
	json_object_object_add(root, "client_split", client_split_json(m));
	for (size_t i = 0; i < m->n && !ret; i++) {
		const struct hosts_host *h = m->s[i].h;
		json_object *o = json_object_new_object(), *c = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(h->name));
		json_object_object_add(o, "reach", json_object_new_string(h->reach));
		json_object_object_add(o, "status", json_object_new_string(h->status));
		json_object_object_add(o, "partial_reason",
				       h->partial_reason ? json_object_new_string(h->partial_reason)
							 : NULL);
		json_object_object_add(o, "dir", h->dir ? json_object_new_string(h->dir) : NULL);
		json_object_object_add(c, "start", clock_obj(&h->start));
		json_object_object_add(c, "end", clock_obj(&h->end));
		json_object_object_add(c, "drift_ppm",
				       h->has_drift ? json_object_new_double(h->drift_ppm) : NULL);
		json_object_object_add(c, "drift_bound_ppm",
				       h->has_drift ? json_object_new_double(h->drift_bound_ppm)
						    : NULL);
		json_object_object_add(c, "refined", refined_obj(&m->s[i]));
		json_object_object_add(o, "clock", c);
		json_object_object_add(o, "not_analysed",
				       m->s[i].r ? NULL : json_object_new_string(m->s[i].why_not));
		json_object_object_add(o, "daemons", daemons_arr(&m->s[i]));
		json_object_object_add(o, "pid",
				       m->s[i].r && section_pid(&m->s[i]) > 0
					       ? json_object_new_int(section_pid(&m->s[i]))
					       : NULL);
		json_object_object_add(
			o, "report",
			m->s[i].multi ? corecap_render_multi_json_object(m->s[i].multi, &ret)
			: m->s[i].r   ? corecap_render_json_object(m->s[i].r, &ret)
				      : NULL);
		json_object_array_add(a, o);
	}
	json_object_object_add(root, "hosts", a);
	return corecap_render_json_out(root, ret, out);
}
