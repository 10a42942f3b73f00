#include "hosts_compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <corecap/diag.h>

#include "compare_diff.h"
#include "compare_render.h"
#include "daemon_pairing.h"
#include "pass/hosts_build.h"
#include "read/hosts_run.h"
#include "render/html_escape.h"
#include "render/multi_report.h"
#include "render/render_common.h"

/* "b, c" (at most len - 1 bytes; "..." when cut): the hosts of a run. */
static void host_names(const char *dir, char *buf, size_t len)
{
	struct hosts_run m;
	char *err = NULL;
	size_t at = 0;

	buf[0] = '\0';
	if (corecap_hosts_run_open(&m, dir, &err) == 0)
		for (size_t i = 0; i < m.n_hosts && at < len; i++) {
			int n = snprintf(buf + at, len - at, "%s%s:%s", i ? ", " : "", dir,
					 m.hosts[i].name);

			if (n < 0 || (size_t)n >= len - at) {
				snprintf(buf + at, len - at, "%s", i ? ", ..." : "...");
				break;
			}
			at += (size_t)n;
		}
	corecap_hosts_run_close(&m);
	free(err);
}

int corecap_hosts_compare_kinds(const char *const run[2])
{
	bool is[2] = {corecap_hosts_run_is(run[0]), corecap_hosts_run_is(run[1])};
	char names[512];
	int h;

	if (is[0] == is[1])
		return is[0] ? 1 : 0;
	h = is[0] ? 0 : 1;
	host_names(run[h], names, sizeof(names));
	/* Which is which, and the way to name one host's run of the other. */
	corecap_error("cannot compare '%s' with '%s': %s '%s' is a run of several hosts, %s "
		      "'%s' one host's run; compare one of its hosts' runs, RUN:NAME (%s), "
		      "with it, or two runs of several hosts",
		      run[0], run[1], h ? "B" : "A", run[h], h ? "A" : "B", run[1 - h],
		      names[0] ? names : "see corecap report");
	return -EINVAL;
}

/*
 * A host of both runs that either run holds several daemons of: each
 * run's daemons (a host of one daemon: that one), their reports (NULL:
 * not analysed, why) and how they pair (daemon_pairing.h).
 */
struct host_daemons {
	bool by_daemon; /* false: the host is compared whole, or not at all */
	bool multi[2];	/* named RUN:HOST:PID (a host of several daemons) or RUN:HOST */
	size_t n[2];
	struct daemon_ident *id[2];
	const struct report **r[2];
	const char **why[2];
	struct daemon_pairing pairing;
};

/* Both runs built, and what the system's comparison needs. */
struct hosts_compare {
	const char *const *run;
	struct hosts_build hb[2];
	const struct hosts_report *v[2];
	bool built[2];
	struct compare_row row[3]; /* headroom, ops/s, hosts without a headroom */
	struct host_daemons *hd;   /* per host of A */
};

static const struct diagnosis *cap_of(const struct hosts_report *v)
{
	return v->cap >= 0 ? v->s[v->cap].r->diagnosis : NULL;
}

static const char *cap_host(const struct hosts_report *v)
{
	return v->cap >= 0 ? v->s[v->cap].h->name : NULL;
}

/* The system's figures as compare's rows (compare_diff.h), so that B / A is judged as there. */
static void system_rows(struct hosts_compare *c)
{
	struct compare_row *head = &c->row[0], *ops = &c->row[1], *none = &c->row[2];

	*head = (struct compare_row){.decimals = 2};
	*ops = (struct compare_row){.decimals = 0};
	*none = (struct compare_row){.decimals = 0};
	snprintf(head->key, sizeof(head->key), "headroom");
	snprintf(head->label, sizeof(head->label), "headroom (the least host's)");
	snprintf(ops->key, sizeof(ops->key), "ops_per_s");
	snprintf(ops->label, sizeof(ops->label), "ops/s (the hosts' summed)");
	snprintf(none->key, sizeof(none->key), "hosts_without_headroom");
	snprintf(none->label, sizeof(none->label), "hosts without a headroom");
	for (int s = 0; s < 2; s++) {
		const struct hosts_report *v = c->v[s];

		head->has[s] = cap_of(v) != NULL;
		head->v[s] = head->has[s] ? cap_of(v)->headroom : 0;
		ops->has[s] = v->ops_per_s > 0;
		ops->v[s] = v->ops_per_s;
		none->has[s] = true;
		none->v[s] = (double)v->n_no_headroom;
	}
}

/* What changed, in one sentence: the limiting host, its headroom, the system's ops/s. */
static void change_text(const struct hosts_compare *c, char *buf, size_t len)
{
	const char *h[2] = {cap_host(c->v[0]), cap_host(c->v[1])};
	const struct compare_row *head = &c->row[0], *ops = &c->row[1];
	char room[2][32], rate[96] = "";
	int n;

	for (int s = 0; s < 2; s++)
		snprintf(room[s], sizeof(room[s]), head->has[s] ? "%.2fx" : "unknown", head->v[s]);
	if (ops->has[0] && ops->has[1])
		snprintf(rate, sizeof(rate), "; the system %.0f -> %.0f ops/s (%+.0f)", ops->v[0],
			 ops->v[1], ops->v[1] - ops->v[0]);
	else
		snprintf(rate, sizeof(rate), "; the system's ops/s unknown in %s",
			 ops->has[0]   ? "B"
			 : ops->has[1] ? "A"
				       : "both");
	if (!h[0] && !h[1])
		n = snprintf(buf, len,
			     "no limiting host in either run (no host's diagnosis "
			     "gives a headroom)");
	else if (!h[0] || !h[1])
		n = snprintf(buf, len, "a limiting host in %s only: %s (headroom %s)",
			     h[0] ? "A" : "B", h[0] ? h[0] : h[1], h[0] ? room[0] : room[1]);
	else if (strcmp(h[0], h[1]) == 0)
		n = snprintf(buf, len, "the same limiting host, %s: headroom %s -> %s (%+.2f)",
			     h[0], room[0], room[1], head->v[1] - head->v[0]);
	else
		n = snprintf(buf, len,
			     "the limiting host moved from %s (headroom %s) to %s (headroom %s)",
			     h[0], room[0], h[1], room[1]);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s", rate);
}

/* The index of the host named name in v, or -1. */
static int host_index(const struct hosts_report *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->s[i].h->name, name) == 0)
			return (int)i;
	return -1;
}

/* "run:NAME", as `corecap compare` is given one host's run; malloc'd. */
static char *host_arg(const char *run, const char *name)
{
	char *out;

	return asprintf(&out, "%s:%s", run, name) < 0 ? NULL : out;
}

/* Why a comparison is not made, when a side has no report (why[s] says why), or NULL. */
static const char *not_analysed(const struct report *const r[2], const char *const why[2],
				char *buf, size_t len)
{
	if (r[0] && r[1])
		return NULL;
	if (!r[0] && !r[1])
		snprintf(buf, len, "not analysed in A (%s) nor in B (%s)", why[0], why[1]);
	else
		snprintf(buf, len, "not analysed in %s: %s", r[0] ? "B" : "A",
			 r[0] ? why[1] : why[0]);
	return buf;
}

/* Why host i of A and j of B are not compared whole (one side not analysed), or NULL. */
static const char *why_not(const struct hosts_compare *c, int i, int j, char *buf, size_t len)
{
	const struct hosts_section *a = &c->v[0]->s[i], *b = &c->v[1]->s[j];
	const struct report *const r[2] = {a->r, b->r};
	const char *const why[2] = {a->why_not, b->why_not};

	return c->hd[i].by_daemon ? NULL : not_analysed(r, why, buf, len);
}

/* Why pair k of host i's daemons is not compared (a side not analysed), or NULL. */
static const char *pair_why_not(const struct host_daemons *hd, size_t k, char *buf, size_t len)
{
	const struct daemon_pair *pr = &hd->pairing.pairs[k];
	const struct report *const r[2] = {hd->r[0][pr->a], hd->r[1][pr->b]};
	const char *const why[2] = {hd->why[0][pr->a], hd->why[1][pr->b]};

	return not_analysed(r, why, buf, len);
}

/*
 * Run s's side of a host's daemons: its run of several daemons' daemons,
 * or its one daemon, as the host's entry names it. 0; -ENODATA when the
 * host's run could not be read at all (it is then said not analysed,
 * whole); -ENOMEM.
 */
static int side_daemons(struct host_daemons *hd, int s, const struct hosts_section *h)
{
	size_t n = h->multi ? h->multi->n : 1;

	if (!h->multi && !h->r)
		return -ENODATA;
	hd->multi[s] = h->multi != NULL;
	hd->id[s] = calloc(n, sizeof(*hd->id[s]));
	hd->r[s] = calloc(n, sizeof(*hd->r[s]));
	hd->why[s] = calloc(n, sizeof(*hd->why[s]));
	if (!hd->id[s] || !hd->r[s] || !hd->why[s])
		return -ENOMEM;
	hd->n[s] = n;
	for (size_t k = 0; k < n; k++) {
		const struct multi_section *m = h->multi ? &h->multi->s[k] : NULL;

		hd->id[s][k] = m ? (struct daemon_ident){m->d->pid, m->d->comm, m->d->ceph_osd_id}
				 : (struct daemon_ident){h->h->pid, h->h->comm, -1};
		hd->r[s][k] = m ? m->r : h->r;
		hd->why[s][k] = m ? m->why_not : h->why_not;
	}
	return 0;
}

static void host_daemons_release(struct host_daemons *hd)
{
	for (int s = 0; s < 2; s++) {
		free(hd->id[s]);
		free(hd->r[s]);
		free(hd->why[s]);
	}
	corecap_daemon_pairing_release(&hd->pairing);
}

/*
 * Each host of both runs that either holds several daemons of: its
 * daemons paired (daemon_pairing.h), to be compared pair by pair. 0, or
 * -ENOMEM.
 */
static int pair_daemons(struct hosts_compare *c)
{
	int ret = 0;

	c->hd = calloc(c->v[0]->n + 1, sizeof(*c->hd));
	if (!c->hd)
		return -ENOMEM;
	for (size_t i = 0; i < c->v[0]->n && !ret; i++) {
		struct host_daemons *hd = &c->hd[i];
		int j = host_index(c->v[1], c->v[0]->s[i].h->name);
		const struct hosts_section *h[2] = {&c->v[0]->s[i], j >= 0 ? &c->v[1]->s[j] : NULL};

		if (j < 0 || (!h[0]->multi && !h[1]->multi))
			continue;
		ret = side_daemons(hd, 0, h[0]);
		if (!ret)
			ret = side_daemons(hd, 1, h[1]);
		if (ret == -ENODATA) {
			host_daemons_release(hd);
			*hd = (struct host_daemons){0};
			ret = 0;
			continue;
		}
		if (ret)
			break;
		ret = corecap_daemon_pairing_build(&hd->pairing, hd->id[0], hd->n[0], hd->id[1],
						   hd->n[1]);
		hd->by_daemon = ret == 0;
	}
	return ret;
}

/* "run:HOST:PID" of a host of several daemons' daemon, "run:HOST" of a host of one; malloc'd. */
static char *daemon_arg(const char *run, const char *host, bool multi, int pid)
{
	char *out;

	if (!multi)
		return host_arg(run, host);
	return asprintf(&out, "%s:%s:%d", run, host, pid) < 0 ? NULL : out;
}

/* A daemon in one run only, for the text: "PID 103 (refosd)", "PID 103 (ceph-osd, osd.2)". */
static void daemon_label(const struct daemon_ident *id, char *buf, size_t len)
{
	if (id->ceph_osd_id >= 0)
		snprintf(buf, len, "PID %d (%s, osd.%d)", id->pid, id->comm ? id->comm : "?",
			 id->ceph_osd_id);
	else
		snprintf(buf, len, "PID %d (%s)", id->pid, id->comm ? id->comm : "?");
}

static void system_text(const struct hosts_compare *c, FILE *out)
{
	char change[512];

	fprintf(out, "corecap compare: two runs of several hosts\n");
	for (int s = 0; s < 2; s++) {
		const struct hosts_report *v = c->v[s];

		fprintf(out, "  %c  %s (%zu host%s:", 'A' + s, c->run[s], v->n,
			v->n == 1 ? "" : "s");
		for (size_t i = 0; i < v->n; i++)
			fprintf(out, " %s%s", v->s[i].h->name, i + 1 < v->n ? "," : "");
		fprintf(out, ")\n");
	}
	for (int s = 0; s < 2; s++)
		fprintf(out, "SYSTEM %c   %s\n", 'A' + s, c->v[s]->verdict);
	change_text(c, change, sizeof(change));
	fprintf(out, "change     %s\n", change);
	fprintf(out, "\n%-32s %12s %12s %12s %9s\n", "system", "A", "B", "B - A", "B / A");
	fprintf(out, "  %-30s %12s %12s\n", "limiting host",
		cap_host(c->v[0]) ? cap_host(c->v[0]) : "none",
		cap_host(c->v[1]) ? cap_host(c->v[1]) : "none");
	fprintf(out, "  %-30s %12s %12s\n", "its limit",
		cap_of(c->v[0]) ? corecap_diag_kind_name(cap_of(c->v[0])->kind) : "-",
		cap_of(c->v[1]) ? corecap_diag_kind_name(cap_of(c->v[1])->kind) : "-");
	for (size_t k = 0; k < sizeof(c->row) / sizeof(c->row[0]); k++)
		corecap_compare_render_row(&c->row[k], "unknown", out);
}

/* Whether host i of A is compared below: whole, or at least one pair of its daemons. */
static bool compared_below(const struct hosts_compare *c, size_t i)
{
	const struct host_daemons *hd = &c->hd[i];
	int j = host_index(c->v[1], c->v[0]->s[i].h->name);
	char why[600];

	if (j < 0)
		return false;
	if (!hd->by_daemon)
		return !why_not(c, (int)i, j, why, sizeof(why));
	for (size_t k = 0; k < hd->pairing.n_pairs; k++)
		if (!pair_why_not(hd, k, why, sizeof(why)))
			return true;
	return false;
}

/* Pair k of host i's daemons: each side's name, as `corecap compare` is given it (malloc'd). */
static int pair_args(const struct hosts_compare *c, size_t i, size_t k, char *arg[2])
{
	const struct host_daemons *hd = &c->hd[i];
	const struct daemon_pair *pr = &hd->pairing.pairs[k];
	const char *name = c->v[0]->s[i].h->name;

	arg[0] = daemon_arg(c->run[0], name, hd->multi[0], hd->id[0][pr->a].pid);
	arg[1] = daemon_arg(c->run[1], name, hd->multi[1], hd->id[1][pr->b].pid);
	return arg[0] && arg[1] ? 0 : -ENOMEM;
}

/* Host i's daemons, paired: each pair (how, or why not compared), then each run's left. */
static void daemons_text(const struct hosts_compare *c, size_t i, FILE *out)
{
	const struct host_daemons *hd = &c->hd[i];
	const char *name = c->v[0]->s[i].h->name;
	char why[600], note[256], label[160];

	fprintf(out,
		"           %s: daemon by daemon, each as `corecap compare A:%s:PID B:%s:PID` "
		"prints it:\n",
		name, name, name);
	for (size_t k = 0; k < hd->pairing.n_pairs; k++) {
		const struct daemon_pair *pr = &hd->pairing.pairs[k];
		char *arg[2];

		if (pair_args(c, i, k, arg) == 0) {
			corecap_daemon_pair_note(pr, &hd->id[0][pr->a], &hd->id[1][pr->b], note,
						 sizeof(note));
			fprintf(out, "             %s with %s: %s", arg[0], arg[1], note);
			if (pair_why_not(hd, k, why, sizeof(why)))
				fprintf(out, "; not compared: %s", why);
			fputc('\n', out);
		}
		free(arg[0]);
		free(arg[1]);
	}
	for (int s = 0; s < 2; s++) {
		if (!hd->pairing.n_only[s])
			continue;
		fprintf(out, "             only in %c:", 'A' + s);
		for (size_t k = 0; k < hd->pairing.n_only[s]; k++) {
			daemon_label(&hd->id[s][hd->pairing.only[s][k]], label, sizeof(label));
			fprintf(out, "%s %s", k ? "," : "", label);
		}
		fprintf(out, " (not compared)\n");
	}
}

/* The hosts: compared below, not compared (why), daemon by daemon, in one run only. */
static void hosts_text(const struct hosts_compare *c, FILE *out)
{
	char why[600];
	size_t shown = 0;

	fprintf(out, "\nhosts      compared below, each as `corecap compare A:NAME B:NAME` "
		     "prints it:");
	for (size_t i = 0; i < c->v[0]->n; i++)
		if (compared_below(c, i))
			fprintf(out, "%s %s%s", shown++ ? "," : "", c->v[0]->s[i].h->name,
				c->hd[i].by_daemon ? " (daemon by daemon)" : "");
	fprintf(out, "%s\n", shown ? "" : " none");
	for (size_t i = 0; i < c->v[0]->n; i++) {
		int j = host_index(c->v[1], c->v[0]->s[i].h->name);

		if (j >= 0 && c->hd[i].by_daemon)
			daemons_text(c, i, out);
		else if (j >= 0 && why_not(c, (int)i, j, why, sizeof(why)))
			fprintf(out, "           %s: not compared: %s\n", c->v[0]->s[i].h->name,
				why);
	}
	for (int s = 0; s < 2; s++) {
		shown = 0;
		for (size_t i = 0; i < c->v[s]->n; i++) {
			if (host_index(c->v[1 - s], c->v[s]->s[i].h->name) >= 0)
				continue;
			if (!shown++)
				fprintf(out, "           only in %c:", 'A' + s);
			else
				fputc(',', out);
			fprintf(out, " %s", c->v[s]->s[i].h->name);
		}
		if (shown)
			fprintf(out, " (not compared)\n");
	}
}

/*
 * One comparison beneath host: r[0] against r[1], named names[] (what
 * `corecap compare` is given); note: how two daemons were paired, or NULL
 * for a host compared whole; anchor: what tells its HTML ids apart. As
 * compare's own text, JSON object (obj) or HTML sections (html).
 */
static int compare_one(const char *host, const struct report *const r[2],
		       const char *const names[2], const char *note, const char *anchor, FILE *out,
		       json_object **obj, bool html)
{
	struct compare_diff d = {0};
	int ret = corecap_compare_diff_build(&d, r[0], r[1]);

	if (ret)
		corecap_error("cannot compare '%s' with '%s': %s", names[0], names[1],
			      strerror(-ret));
	else if (obj)
		ret = (*obj = corecap_compare_json(&d, names, r)) ? 0 : -ENOMEM;
	else if (html) {
		char id[256];

		fputs("<h2 id=\"host-", out);
		corecap_html_escape(out, anchor, 0);
		fputs("\">host ", out);
		corecap_html_escape(out, host, 0);
		fputs(": corecap compare ", out);
		corecap_html_escape(out, names[0], 0);
		fputc(' ', out);
		corecap_html_escape(out, names[1], 0);
		fputs("</h2>\n", out);
		if (note) {
			fputs("<p class=\"paired\">paired: ", out);
			corecap_html_escape(out, note, 0);
			fputs("</p>\n", out);
		}
		snprintf(id, sizeof(id), "headline-%s", anchor);
		corecap_compare_html_body(&d, names, r, 3, id, out);
	} else {
		fprintf(out, "\n======== host %s: corecap compare %s %s ========\n", host, names[0],
			names[1]);
		if (note)
			fprintf(out, "paired     %s\n", note);
		fputc('\n', out);
		ret = corecap_compare_render_text(&d, names, r, out);
	}
	corecap_compare_diff_release(&d);
	return ret;
}

/* Host i of A against host j of B, whole: compare_one's. */
static int host_compare(const struct hosts_compare *c, int i, int j, FILE *out, json_object **obj,
			bool html)
{
	const struct report *const r[2] = {c->v[0]->s[i].r, c->v[1]->s[j].r};
	const char *name = c->v[0]->s[i].h->name;
	char *arg[2] = {host_arg(c->run[0], name), host_arg(c->run[1], name)};
	const char *const names[2] = {arg[0], arg[1]};
	int ret = arg[0] && arg[1] ? compare_one(name, r, names, NULL, name, out, obj, html)
				   : -ENOMEM;

	free(arg[0]);
	free(arg[1]);
	return ret;
}

/* Pair k of host i's daemons: compare_one's, with how they were paired. */
static int pair_compare(const struct hosts_compare *c, size_t i, size_t k, FILE *out,
			json_object **obj, bool html)
{
	const struct host_daemons *hd = &c->hd[i];
	const struct daemon_pair *pr = &hd->pairing.pairs[k];
	const struct report *const r[2] = {hd->r[0][pr->a], hd->r[1][pr->b]};
	const char *name = c->v[0]->s[i].h->name;
	char *arg[2], note[256], anchor[160];
	int ret = pair_args(c, i, k, arg);

	if (!ret) {
		const char *const names[2] = {arg[0], arg[1]};

		corecap_daemon_pair_note(pr, &hd->id[0][pr->a], &hd->id[1][pr->b], note,
					 sizeof(note));
		snprintf(anchor, sizeof(anchor), "%s-%d-%d", name, hd->id[0][pr->a].pid,
			 hd->id[1][pr->b].pid);
		ret = compare_one(name, r, names, note, anchor, out, obj, html);
	}
	free(arg[0]);
	free(arg[1]);
	return ret;
}

/* Every comparison beneath the hosts' line, in A's order: a host whole, or its daemons' pairs. */
static int compare_all(const struct hosts_compare *c, FILE *out, bool html)
{
	char why[600];
	int ret = 0;

	for (size_t i = 0; i < c->v[0]->n && !ret; i++) {
		int j = host_index(c->v[1], c->v[0]->s[i].h->name);

		if (j < 0)
			continue;
		if (!c->hd[i].by_daemon) {
			if (!why_not(c, (int)i, j, why, sizeof(why)))
				ret = host_compare(c, (int)i, j, out, NULL, html);
			continue;
		}
		for (size_t k = 0; k < c->hd[i].pairing.n_pairs && !ret; k++)
			if (!pair_why_not(&c->hd[i], k, why, sizeof(why)))
				ret = pair_compare(c, i, k, out, NULL, html);
	}
	return ret;
}

static int render_text(const struct hosts_compare *c, FILE *out)
{
	int ret;

	system_text(c, out);
	hosts_text(c, out);
	ret = compare_all(c, out, false);
	if (!ret && ferror(out))
		ret = -EIO;
	return ret;
}

static json_object *row_json(const struct compare_row *rw)
{
	json_object *o = json_object_new_object();
	double ratio;

	for (int s = 0; s < 2; s++)
		json_object_object_add(
			o, s ? "b" : "a",
			rw->has[s] ? corecap_render_json_num(rw->v[s], rw->decimals + 1) : NULL);
	json_object_object_add(
		o, "delta",
		rw->has[0] && rw->has[1]
			? corecap_render_json_num(rw->v[1] - rw->v[0], rw->decimals + 1)
			: NULL);
	json_object_object_add(o, "ratio",
			       corecap_compare_ratio(rw, &ratio) ? json_object_new_double(ratio)
								 : NULL);
	return o;
}

static json_object *names_json(const struct hosts_compare *c, int s)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < c->v[s]->n; i++)
		if (host_index(c->v[1 - s], c->v[s]->s[i].h->name) < 0)
			json_object_array_add(a, json_object_new_string(c->v[s]->s[i].h->name));
	return a;
}

/* A daemon as the JSON names it: {name, pid, comm, ceph_osd_id}, null for what its run lacks. */
static json_object *daemon_json(const struct hosts_compare *c, size_t i, int s, size_t k)
{
	const struct host_daemons *hd = &c->hd[i];
	const struct daemon_ident *id = &hd->id[s][k];
	char *arg = daemon_arg(c->run[s], c->v[0]->s[i].h->name, hd->multi[s], id->pid);
	json_object *o = json_object_new_object();

	if (!arg || !o) {
		free(arg);
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "name", json_object_new_string(arg));
	json_object_object_add(o, "pid", id->pid > 0 ? json_object_new_int(id->pid) : NULL);
	json_object_object_add(
		o, "comm",
		id->comm && strcmp(id->comm, "?") != 0 ? json_object_new_string(id->comm) : NULL);
	json_object_object_add(o, "ceph_osd_id",
			       id->ceph_osd_id >= 0 ? json_object_new_int(id->ceph_osd_id) : NULL);
	free(arg);
	return o;
}

/*
 * Host i's daemon keys into o: daemons[] (each pair: a, b, paired_by,
 * note, not_compared, compare), only_a_daemons[], only_b_daemons[]; all
 * three null for a host compared whole. 0, or a negative errno.
 */
static int daemons_json(const struct hosts_compare *c, size_t i, json_object *o)
{
	const struct host_daemons *hd = &c->hd[i];
	json_object *pairs, *only;
	char why[600], note[256];
	int ret = 0;

	if (!hd->by_daemon) {
		json_object_object_add(o, "daemons", NULL);
		json_object_object_add(o, "only_a_daemons", NULL);
		json_object_object_add(o, "only_b_daemons", NULL);
		return 0;
	}
	pairs = json_object_new_array();
	json_object_object_add(o, "daemons", pairs);
	for (size_t k = 0; k < hd->pairing.n_pairs && !ret; k++) {
		const struct daemon_pair *pr = &hd->pairing.pairs[k];
		const char *no = pair_why_not(hd, k, why, sizeof(why));
		json_object *p = json_object_new_object(), *cmp = NULL;

		if (!no)
			ret = pair_compare(c, i, k, NULL, &cmp, false);
		corecap_daemon_pair_note(pr, &hd->id[0][pr->a], &hd->id[1][pr->b], note,
					 sizeof(note));
		json_object_object_add(p, "a", daemon_json(c, i, 0, pr->a));
		json_object_object_add(p, "b", daemon_json(c, i, 1, pr->b));
		json_object_object_add(
			p, "paired_by",
			json_object_new_string(corecap_daemon_paired_by_key(pr->by)));
		json_object_object_add(p, "note", json_object_new_string(note));
		json_object_object_add(p, "not_compared", no ? json_object_new_string(no) : NULL);
		json_object_object_add(p, "compare", cmp);
		json_object_array_add(pairs, p);
	}
	for (int s = 0; s < 2; s++) {
		only = json_object_new_array();
		for (size_t k = 0; k < hd->pairing.n_only[s]; k++)
			json_object_array_add(only, daemon_json(c, i, s, hd->pairing.only[s][k]));
		json_object_object_add(o, s ? "only_b_daemons" : "only_a_daemons", only);
	}
	return ret;
}

static int render_json(const struct hosts_compare *c, FILE *out)
{
	json_object *root = json_object_new_object(), *sys = json_object_new_object(),
		    *fig = json_object_new_object(), *hosts = json_object_new_array();
	const char *h[2] = {cap_host(c->v[0]), cap_host(c->v[1])};
	char change[512], why[600];
	const char *text;
	int ret = 0;

	if (!root || !sys || !fig || !hosts) {
		json_object_put(root);
		json_object_put(sys);
		json_object_put(fig);
		json_object_put(hosts);
		return -ENOMEM;
	}
	json_object_object_add(root, "format", json_object_new_string("corecap-compare-hosts"));
	json_object_object_add(root, "version", json_object_new_int(1));
	json_object_object_add(root, "a", json_object_new_string(c->run[0]));
	json_object_object_add(root, "b", json_object_new_string(c->run[1]));
	json_object_object_add(sys, "a", corecap_render_hosts_system_json(c->v[0]));
	json_object_object_add(sys, "b", corecap_render_hosts_system_json(c->v[1]));
	json_object_object_add(sys, "same_host",
			       h[0] && h[1] ? json_object_new_boolean(strcmp(h[0], h[1]) == 0)
					    : NULL);
	change_text(c, change, sizeof(change));
	json_object_object_add(sys, "change", json_object_new_string(change));
	for (size_t k = 0; k < sizeof(c->row) / sizeof(c->row[0]); k++)
		json_object_object_add(fig, c->row[k].key, row_json(&c->row[k]));
	json_object_object_add(sys, "figures", fig);
	json_object_object_add(root, "system", sys);
	for (size_t i = 0; i < c->v[0]->n && !ret; i++) {
		const char *name = c->v[0]->s[i].h->name;
		int j = host_index(c->v[1], name);
		json_object *o, *cmp = NULL;
		const char *no;

		if (j < 0)
			continue;
		no = why_not(c, (int)i, j, why, sizeof(why));
		if (!no && !c->hd[i].by_daemon)
			ret = host_compare(c, (int)i, j, out, &cmp, false);
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "not_compared", no ? json_object_new_string(no) : NULL);
		json_object_object_add(o, "compare", cmp);
		if (!ret)
			ret = daemons_json(c, i, o);
		json_object_array_add(hosts, o);
	}
	json_object_object_add(root, "hosts", hosts);
	json_object_object_add(root, "only_a", names_json(c, 0));
	json_object_object_add(root, "only_b", names_json(c, 1));
	if (!ret) {
		text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE);
		if (!text || fprintf(out, "%s\n", text) < 0)
			ret = -EIO;
	}
	json_object_put(root);
	return ret;
}

/* A text row of the system's table: its label, A and B, nothing else. */
static void html_text_row(const char *label, const char *a, const char *b, FILE *out)
{
	fputs("<tr><td>", out);
	corecap_html_escape(out, label, 0);
	fputs("</td><td>", out);
	corecap_html_escape(out, a, 0);
	fputs("</td><td>", out);
	corecap_html_escape(out, b, 0);
	fputs("</td><td data-v=\"-1e300\"></td><td data-v=\"-1e300\"></td></tr>\n", out);
}

/* The hosts' line of the text, as a paragraph: compared, not compared (why), in one run only. */
static void hosts_html(const struct hosts_compare *c, FILE *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	hosts_text(c, m);
	fclose(m);
	fputs("<h2>Hosts</h2>\n<pre>", out);
	corecap_html_escape(out, text && text[0] == '\n' ? text + 1 : text ? text : "", 0);
	fputs("</pre>\n", out);
	free(text);
}

/*
 * The page: the system's answer (each run's limit, what changed, the
 * system's figures), the hosts, then each host's comparison with the
 * sections compare --html RUN_A:NAME RUN_B:NAME shows, and fl, the
 * differential flame graph of the whole runs (NULL: none).
 */
static int render_html(const struct hosts_compare *c, const struct compare_html_flame *fl,
		       FILE *out)
{
	char change[512];
	int ret = 0;

	corecap_compare_html_begin(out, c->run[0], c->run[1]);
	fputs("<p>two runs of several hosts</p>\n<table>\n", out);
	for (int s = 0; s < 2; s++) {
		const struct hosts_report *v = c->v[s];

		fprintf(out, "<tr><td>%c</td><td>", 'A' + s);
		corecap_html_escape(out, c->run[s], 0);
		fprintf(out, " (%zu host%s:", v->n, v->n == 1 ? "" : "s");
		for (size_t i = 0; i < v->n; i++) {
			fputc(' ', out);
			corecap_html_escape(out, v->s[i].h->name, 0);
			if (i + 1 < v->n)
				fputc(',', out);
		}
		fputs(")</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	change_text(c, change, sizeof(change));
	fputs("<p class=\"verdict\" id=\"headline\">", out);
	corecap_html_escape(out, change, 0);
	fputs("</p>\n", out);
	for (int s = 0; s < 2; s++) {
		fprintf(out, "<p>SYSTEM %c: ", 'A' + s);
		corecap_html_escape(out, c->v[s]->verdict, 0);
		fputs("</p>\n", out);
	}
	fputs("<h2>System</h2>\n", out);
	corecap_compare_html_table_head(out);
	html_text_row("limiting host", cap_host(c->v[0]) ? cap_host(c->v[0]) : "none",
		      cap_host(c->v[1]) ? cap_host(c->v[1]) : "none", out);
	html_text_row("its limit",
		      cap_of(c->v[0]) ? corecap_diag_kind_name(cap_of(c->v[0])->kind) : "-",
		      cap_of(c->v[1]) ? corecap_diag_kind_name(cap_of(c->v[1])->kind) : "-", out);
	for (size_t k = 0; k < sizeof(c->row) / sizeof(c->row[0]); k++)
		corecap_compare_html_row(&c->row[k], out);
	fputs("</table>\n", out);
	hosts_html(c, out);
	ret = compare_all(c, out, true);
	if (!ret && fl)
		ret = corecap_compare_html_flame(fl, out);
	return ret ? ret : corecap_compare_html_end(out);
}

int corecap_hosts_compare(const char *const run[2], const char *symfs, const struct report_opts *ro,
			  enum hosts_compare_format format, const struct compare_html_flame *fl,
			  FILE *out)
{
	struct hosts_compare c = {.run = run};
	int ret = 0;

	/* Each host's report built as `compare A:NAME B:NAME` builds it (its options ro). */
	for (int s = 0; s < 2 && !ret; s++) {
		ret = corecap_hosts_build(&c.hb[s], run[s], symfs, ro, &c.v[s]);
		c.built[s] = true;
	}
	if (!ret && (ret = pair_daemons(&c)))
		corecap_error("cannot pair the hosts' daemons: %s", strerror(-ret));
	if (!ret) {
		system_rows(&c);
		ret = format == HOSTS_COMPARE_JSON   ? render_json(&c, out)
		      : format == HOSTS_COMPARE_HTML ? render_html(&c, fl, out)
						     : render_text(&c, out);
		if (!ret && fflush(out))
			ret = -EIO;
		if (ret)
			corecap_error("cannot write the comparison: %s", strerror(-ret));
	}
	for (size_t i = 0; c.hd && i < c.v[0]->n; i++)
		host_daemons_release(&c.hd[i]);
	free(c.hd);
	for (int s = 0; s < 2; s++)
		if (c.built[s])
			corecap_hosts_build_release(&c.hb[s]);
	return ret;
}
