#include "hosts_build.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <corecap/diag.h>
#include <corecap/run_format.h>

#include "model/client_split.h"
#include "model/clock_pairs.h"
#include "read/client_ops.h"
#include "util/grow.h"
#include "util/u64map.h"

/* The system's verdict: the least headroom of the hosts' diagnoses (render/hosts_report.h). */
static void verdict(struct hosts_report *v)
{
	v->cap = v->next = -1;
	for (size_t i = 0; i < v->n; i++) {
		const struct diagnosis *d = v->s[i].r ? v->s[i].r->diagnosis : NULL;

		if (!v->s[i].r)
			continue;
		if (v->s[i].multi) {
			/* Each of its daemons' ops, not only its binding one's. */
			for (size_t k = 0; k < v->s[i].multi->n; k++) {
				const struct report *r = v->s[i].multi->s[k].r;

				if (r && r->diagnosis && r->diagnosis->iops > 0)
					v->ops_per_s += r->diagnosis->iops;
			}
		} else if (d && d->iops > 0) {
			v->ops_per_s += d->iops;
		}
		if (!d || !(d->headroom > 0)) {
			v->n_no_headroom++;
			continue;
		}
		if (v->cap < 0 || d->headroom < v->s[v->cap].r->diagnosis->headroom) {
			v->next = v->cap;
			v->cap = (int)i;
		} else if (v->next < 0 || d->headroom < v->s[v->next].r->diagnosis->headroom) {
			v->next = (int)i;
		}
	}
	if (v->cap < 0) {
		snprintf(v->verdict, sizeof(v->verdict),
			 v->n_analysed
				 ? "no host's diagnosis gives a headroom: see each host's below"
				 : "no host's run could be analysed");
		return;
	}
	if (v->s[v->cap].multi)
		snprintf(v->verdict, sizeof(v->verdict),
			 "host %s's daemon PID %d binds first (the least headroom of its %zu): %s",
			 v->s[v->cap].h->name, v->s[v->cap].pid, v->s[v->cap].multi->n,
			 v->s[v->cap].r->diagnosis->headline);
	else
		snprintf(v->verdict, sizeof(v->verdict), "host %s's daemon binds first: %s",
			 v->s[v->cap].h->name, v->s[v->cap].r->diagnosis->headline);
}

/*
 * A host of several daemons: built as their run, and the host's report
 * is its daemon's with the least headroom (the first analysed one when
 * none has a headroom); 0, or the build's error.
 */
static int build_multi(struct hosts_build *hb, size_t i, const char *symfs,
		       const struct report_opts *o)
{
	struct hosts_section *s = &hb->s[i];
	const struct multi_report *m;
	int ret = corecap_multi_build(&hb->mb[i], s->h->dir, symfs, o, &m);
	int best = -1;

	hb->mb_built[i] = true; /* released whether built or not (multi_build.h) */
	if (ret)
		return ret;
	s->multi = m;
	for (size_t k = 0; k < m->n; k++) {
		const struct report *r = m->s[k].r;
		const struct diagnosis *d = r ? r->diagnosis : NULL;

		if (!r)
			continue;
		if (!d || !(d->headroom > 0)) {
			s->n_daemons_no_headroom++;
			if (best < 0)
				best = (int)k;
			continue;
		}
		if (best < 0 || !m->s[best].r->diagnosis ||
		    !(m->s[best].r->diagnosis->headroom > 0) ||
		    d->headroom < m->s[best].r->diagnosis->headroom)
			best = (int)k;
	}
	if (best < 0)
		return -ENODATA;
	s->r = m->s[best].r;
	s->pid = m->s[best].d->pid;
	s->dir = m->s[best].d->dir;
	s->run = &hb->mb[i].runs[best];
	return 0;
}

/* Splits one daemon's client-named ops (its model's t) against the client's into row. */
static int split_daemon(struct hosts_build *hb, const struct op_table *t,
			struct hosts_split_row *row, const struct client_ops *c,
			const struct u64map *by_id, const struct hosts_align *al)
{
	struct client_split_acc acc;
	struct hosts_align a = *al;
	int ret = 0;

	row->client_named = t->n_client;
	hb->view.client.daemon_over_cap += t->client_over_cap;
	if (!a.valid) {
		row->why_split_not = "its clock was not measured";
		return 0;
	}
	corecap_client_split_acc_init(&acc, &row->split);
	for (size_t k = 0; k < t->n_client && !ret; k++) {
		const struct op_client_rec *d = &t->client[k];
		const uint64_t *v = corecap_u64map_find(by_id, d->client_op);
		const struct client_op *op;
		struct split_times st;
		uint64_t be, ee, p;

		if (!v) {
			row->client_unmatched++;
			continue;
		}
		op = &c->ops[*v - 1];
		p = d->reply_ns ? d->reply_ns : d->end_ns;
		st = (struct split_times){.issue_ns = op->issue_ns,
					  .send_ns = op->send_ns,
					  .recv_ns = op->recv_ns,
					  .begin_rec_ns =
						  corecap_hosts_align_to_rec(&a, d->begin_ns),
					  .reply_rec_ns = corecap_hosts_align_to_rec(&a, p),
					  .daemon_ns = p - d->begin_ns,
					  .after_reply_ns = d->end_ns - p,
					  .reply_seen = d->reply_ns != 0};
		be = corecap_hosts_align_bound(&a, st.begin_rec_ns);
		ee = corecap_hosts_align_bound(&a, st.reply_rec_ns);
		st.bound_ns = (int64_t)(be > ee ? be : ee);
		ret = corecap_client_split_acc_add(&acc, &st);
	}
	corecap_client_split_acc_finish(&acc);
	corecap_client_split_acc_release(&acc);
	row->has_split = ret == 0 && row->split.matched > 0;
	if (!row->has_split)
		row->why_split_not = t->n_client ? "none of its ops is in " CORECAP_RUN_CLIENT_OPS
						 : "its daemon named no op by its client's id";
	hb->view.client.matched += row->split.matched;
	return ret;
}

/* The analysed daemons' op tables of host i: its one's, or each of a host of several's. */
static const struct op_table *host_ops(const struct hosts_build *hb, size_t i, size_t k)
{
	const struct hosts_section *s = &hb->s[i];

	if (!s->multi)
		return &hb->b[i].model.ops;
	return s->multi->s[k].r ? &hb->mb[i].b[k].model.ops : NULL;
}

/* The largest of an align's bounds at from and to. */
static uint64_t bound_over(const struct hosts_align *a, uint64_t from, uint64_t to)
{
	uint64_t x = corecap_hosts_align_bound(a, (int64_t)from),
		 y = corecap_hosts_align_bound(a, (int64_t)to);

	return x > y ? x : y;
}

/*
 * The refinement of s's clock from the pairs in acc against its ping's
 * align a (model/clock_pairs.h), into s->refined, the refined align into
 * *r when valid, a contradiction said, naming the pairs as what; with
 * keep_drift, the ping's drift is kept (model/clock_pairs.h).
 */
static void refined_into(struct hosts_section *s, const struct clock_pairs_acc *acc,
			 const struct hosts_align *a, struct hosts_align *r, const char *what,
			 bool keep_drift)
{
	struct clock_ping ping = {.valid = a->valid,
				  .has_drift = a->has_drift,
				  .offset_ns = a->offset_ns,
				  .at_ns = a->at_ns,
				  .bound_ns = a->bound_ns,
				  .drift = a->drift,
				  .keep_drift = keep_drift};

	corecap_clock_pairs_refine(acc, &ping, &s->refined);
	if (s->refined.contradiction)
		corecap_warn(
			"host %s: its %s put its clock's offset in [%+.6f, %+.6f] s, disjoint "
			"from the ping exchange's %+.6f s +- %.1f us (or from each other): the "
			"ping's is kept",
			s->h->name, what, (double)s->refined.pairs_lo_ns / 1e9,
			(double)s->refined.pairs_hi_ns / 1e9, (double)a->offset_ns / 1e9,
			(double)a->bound_ns / 1e3);
	if (!s->refined.valid)
		return;
	*r = (struct hosts_align){.valid = true,
				  .has_drift = true,
				  .offset_ns = s->refined.offset_ns,
				  .at_ns = s->refined.at_ns,
				  .drift = s->refined.drift,
				  .drift_bound = s->refined.drift_fitted ? s->refined.drift_bound
									 : a->drift_bound,
				  .bound_ns = s->refined.bound_ns,
				  .from_ns = s->refined.at_ns,
				  .to_ns = s->refined.at_ns};
	s->refined_bound_max_ns = bound_over(r, s->refined.from_ns, s->refined.to_ns);
}

/*
 * Host i's clock refined from its daemons' ops matched with the client's
 * whose reply was seen (model/clock_pairs.h), into its section; *a, the
 * ping's align, becomes the refined one when that is tighter over the
 * pairs' span (its bound then grows with the drift's from at_ns, both
 * ways: the pairs' span carries no bound of its own). 0 or -ENOMEM.
 */
static int refine_clock(struct hosts_build *hb, size_t i, const struct client_ops *c,
			const struct u64map *by_id, struct hosts_align *a)
{
	struct hosts_section *s = &hb->s[i];
	size_t n = s->multi ? s->multi->n : 1;
	struct clock_pairs_acc acc;
	struct hosts_align r;
	int ret = 0;

	corecap_clock_pairs_init(&acc);
	for (size_t k = 0; k < n && !ret; k++) {
		const struct op_table *t = host_ops(hb, i, k);

		for (size_t j = 0; t && j < t->n_client && !ret; j++) {
			const struct op_client_rec *d = &t->client[j];
			const uint64_t *v = corecap_u64map_find(by_id, d->client_op);
			const struct client_op *op = v ? &c->ops[*v - 1] : NULL;

			if (op && d->reply_ns) /* an op's end may follow the client's receive */
				ret = corecap_clock_pairs_add(&acc, op->send_ns, op->recv_ns,
							      d->begin_ns, d->reply_ns);
		}
	}
	if (!ret)
		refined_into(s, &acc, a, &r, "ops' send/receive pairs", false);
	corecap_clock_pairs_release(&acc);
	if (ret || !s->refined.valid)
		return ret;
	if (!a->valid ||
	    s->refined_bound_max_ns < bound_over(a, s->refined.from_ns, s->refined.to_ns)) {
		*a = r;
		s->split_uses_refined = true;
	}
	return 0;
}

/* The report of daemon k of host i (its one: k 0), or NULL: not analysed. */
static const struct report *host_report(const struct hosts_build *hb, size_t i, size_t k)
{
	const struct hosts_section *s = &hb->s[i];

	return s->multi ? s->multi->s[k].r : s->r;
}

/* A primary's replicated write: before its sub-op was sent, and after the reply came, on the
 * recording clock. */
struct osd_write {
	size_t host;
	int64_t sent_ns, acked_ns;
	uint64_t bound_ns; /* the primary's host's alignment bound there */
};

/*
 * Each OpTracker op of the OSDs of the hosts of several hosts' run, calling
 * fn(hb, i, r, sp, mono_off, arg) with host i's daemon report r, the span
 * sp and its CLOCK_REALTIME - CLOCK_MONOTONIC (the daemon's manifest); only
 * spans with a request id, of daemons whose manifest has that offset.
 */
static int each_osd_op(struct hosts_build *hb,
		       int (*fn)(struct hosts_build *hb, size_t i, const struct ceph_files *c,
				 const struct ceph_op_span *sp, int64_t mono_off, void *arg),
		       void *arg)
{
	int ret = 0;

	for (size_t i = 0; i < hb->run.n_hosts && !ret; i++) {
		size_t n = hb->s[i].multi ? hb->s[i].multi->n : 1;

		for (size_t k = 0; k < n && !ret; k++) {
			const struct report *r = host_report(hb, i, k);

			if (!r || !r->ceph || !r->manifest || !r->manifest->has_realtime_offset)
				continue;
			for (size_t j = 0; j < r->ceph->n_spans && !ret; j++)
				if (r->ceph->spans[j].reqid)
					ret = fn(hb, i, r->ceph, &r->ceph->spans[j],
						 r->manifest->realtime_offset_ns, arg);
		}
	}
	return ret;
}

struct osd_pairing {
	struct osd_write *w;
	size_t n, cap;
	struct u64map by_reqid;	     /* reqid -> index + 1; UINT64_MAX: seen twice */
	struct hosts_align *align;   /* each host's ping's */
	struct clock_pairs_acc *acc; /* each host's pairs */
};

/* A primary's write that waited for a sub-op: kept by its request id. */
static int add_write(struct hosts_build *hb, size_t i, const struct ceph_files *c,
		     const struct ceph_op_span *sp, int64_t mono_off, void *arg)
{
	struct osd_pairing *p = arg;
	const struct hosts_align *a = &p->align[i];
	/*
	 * The sub-op goes after the op has "started" and before "waiting for
	 * subops from N", which Ceph marks once it has sent them (a replica's
	 * arrival came up to 100 us before that mark here); the reply came
	 * before "sub_op_commit_rec".
	 */
	uint64_t sent = corecap_ceph_files_event_ns(c, sp, "waiting for subops from")
				? corecap_ceph_files_event_ns(c, sp, "started")
				: 0,
		 acked = corecap_ceph_files_event_ns(c, sp, "sub_op_commit_rec");
	bool inserted = false;
	uint64_t *v;

	(void)hb;
	if (!a->valid || !sent || !acked || acked < sent)
		return 0;
	if (!(v = corecap_u64map_upsert(&p->by_reqid, sp->reqid, &inserted)))
		return -ENOMEM;
	if (!inserted) {
		*v = UINT64_MAX; /* a request seen twice (a resend): neither is used */
		return 0;
	}
	if (corecap_grow((void **)&p->w, &p->cap, p->n + 1, sizeof(*p->w)))
		return -ENOMEM;
	p->w[p->n] = (struct osd_write){
		.host = i,
		.sent_ns = corecap_hosts_align_to_rec(a, sent - (uint64_t)mono_off),
		.acked_ns = corecap_hosts_align_to_rec(a, acked - (uint64_t)mono_off)};
	p->w[p->n].bound_ns = corecap_hosts_align_bound(a, p->w[p->n].sent_ns);
	*v = ++p->n;
	return 0;
}

/*
 * A replica's op of a write whose primary is on another host: its arrival
 * after the sub-op was sent, its commit_sent before the primary had the
 * reply, both on its host's clock; the primary's times on the recording
 * clock carry the primary's host's bound, which widens the pair's.
 */
static int add_replica(struct hosts_build *hb, size_t i, const struct ceph_files *c,
		       const struct ceph_op_span *sp, int64_t mono_off, void *arg)
{
	struct osd_pairing *p = arg;
	const uint64_t *v = corecap_u64map_find(&p->by_reqid, sp->reqid);
	const struct osd_write *w;
	uint64_t sent;
	int64_t begin, reply;

	(void)hb;
	if (!v || *v == UINT64_MAX || sp->type >= c->n_types ||
	    !strstr(c->types[sp->type].name, "repop") || strstr(c->types[sp->type].name, "reply"))
		return 0;
	w = &p->w[*v - 1];
	/* Its commit_sent, marked before the reply goes; not "done", which may come much later. */
	sent = corecap_ceph_files_event_ns(c, sp, "commit_sent");
	if (w->host == i || !p->align[i].valid || !sent)
		return 0;
	begin = (int64_t)(sp->arrival_ns - (uint64_t)mono_off);
	reply = (int64_t)(sent - (uint64_t)mono_off);
	return corecap_clock_pairs_add_bounds(
		&p->acc[i], reply - w->acked_ns - (int64_t)w->bound_ns,
		begin - w->sent_ns + (int64_t)w->bound_ns, (uint64_t)w->sent_ns);
}

/*
 * The hosts' clocks refined from their OSDs' replication between hosts
 * (docs/hosts.md): each write a primary replicated to an OSD of another
 * host, both ends in their OpTracker histories (the same request id),
 * bounds the replica's host's clock against the primary's, and through
 * the primary's ping, against the recording host's. Only for hosts whose
 * clock no client op refined. The OpTracker's stamps are CLOCK_REALTIME,
 * which a time namespace does not move: each daemon's are taken to its
 * host's CLOCK_MONOTONIC by its own manifest's offset between the two.
 */
static int refine_from_osds(struct hosts_build *hb)
{
	size_t n = hb->run.n_hosts;
	struct osd_pairing p = {0};
	int ret = -ENOMEM;

	corecap_u64map_init(&p.by_reqid);
	p.align = calloc(n ? n : 1, sizeof(*p.align));
	p.acc = calloc(n ? n : 1, sizeof(*p.acc));
	if (!p.align || !p.acc)
		goto out;
	for (size_t i = 0; i < n; i++) {
		corecap_hosts_align_init(&p.align[i], hb->s[i].h);
		corecap_clock_pairs_init(&p.acc[i]);
	}
	ret = each_osd_op(hb, add_write, &p);
	if (!ret && p.n)
		ret = each_osd_op(hb, add_replica, &p);
	for (size_t i = 0; !ret && i < n; i++) {
		struct hosts_align r;

		if (p.acc[i].n && !hb->s[i].refined.pairs) {
			/*
			 * The ping's drift kept: these pairs are 100-300 us wide
			 * (an OSD's op between the marks), and their middles'
			 * line fitted 3 to 50 ppm of noise, which over the window
			 * moved their bounds past the true offset.
			 */
			refined_into(&hb->s[i], &p.acc[i], &p.align[i], &r,
				     "OSDs' replication pairs with another host", true);
			hb->s[i].refined_from_osds = true;
		}
	}
out:
	for (size_t i = 0; p.acc && i < n; i++)
		corecap_clock_pairs_release(&p.acc[i]);
	free(p.acc);
	free(p.align);
	free(p.w);
	corecap_u64map_release(&p.by_reqid);
	return ret;
}

/* A row for each analysed daemon of host i: its one, or each of a host of several's. */
static int split_host(struct hosts_build *hb, size_t i, const struct client_ops *c,
		      const struct u64map *by_id)
{
	struct hosts_client_ops *hc = &hb->view.client;
	struct hosts_section *s = &hb->s[i];
	size_t n = s->multi ? s->multi->n : 1;
	struct hosts_align a;
	int ret;

	corecap_hosts_align_init(&a, s->h);
	ret = refine_clock(hb, i, c, by_id, &a);
	for (size_t k = 0; k < n && !ret; k++) {
		const struct op_table *t = host_ops(hb, i, k);
		struct hosts_split_row *row = &hc->rows[hc->n_rows];

		if (!t)
			continue;
		*row = (struct hosts_split_row){.h = s->h,
						.pid = s->multi ? s->multi->s[k].d->pid : 0};
		hc->n_rows++;
		ret = split_daemon(hb, t, row, c, by_id, &a);
	}
	return ret;
}

/*
 * The clients' latency split (model/client_split.h) when the run has
 * client-ops.tsv: each host of one daemon's ops matched by id. 0, or a
 * negative errno (printed) when the file cannot be read.
 */
static int split_clients(struct hosts_build *hb, const char *dir)
{
	struct hosts_client_ops *hc = &hb->view.client;
	struct client_ops c;
	struct u64map by_id;
	char *path = NULL, *err = NULL;
	size_t n_rows = 0;
	int ret;

	if (asprintf(&path, "%s/%s", dir, CORECAP_RUN_CLIENT_OPS) < 0)
		return -ENOMEM;
	ret = corecap_client_ops_read(&c, path, &err);
	free(path);
	if (ret == -ENOENT) {
		corecap_client_ops_release(&c);
		return 0;
	}
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		corecap_client_ops_release(&c);
		return ret;
	}
	*hc = (struct hosts_client_ops){
		.present = true, .n = c.n, .bad = c.bad, .over_cap = c.over_cap};
	corecap_u64map_init(&by_id);
	for (size_t k = 0; k < c.n; k++) {
		bool inserted = false;
		uint64_t *v = corecap_u64map_upsert(&by_id, c.ops[k].op_id, &inserted);

		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
		if (inserted)
			*v = k + 1;
		else
			hc->duplicates++;
	}
	for (size_t i = 0; i < hb->run.n_hosts; i++)
		n_rows += hb->s[i].r ? (hb->s[i].multi ? hb->s[i].multi->n : 1) : 0;
	hc->rows = calloc(n_rows ? n_rows : 1, sizeof(*hc->rows));
	if (!hc->rows) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < hb->run.n_hosts && !ret; i++)
		if (hb->s[i].r)
			ret = split_host(hb, i, &c, &by_id);
out:
	if (ret)
		corecap_error("cannot split the clients' latency: %s", strerror(-ret));
	corecap_u64map_release(&by_id);
	corecap_client_ops_release(&c);
	return ret;
}

int corecap_hosts_build(struct hosts_build *hb, const char *dir, const char *symfs,
			const struct report_opts *o, const struct hosts_report **out)
{
	struct hosts_report *v = &hb->view;
	char *err = NULL;
	size_t n;
	int ret;

	*hb = (struct hosts_build){0};
	ret = corecap_hosts_run_open(&hb->run, dir, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		return ret;
	}
	n = hb->run.n_hosts;
	hb->runs = calloc(n, sizeof(*hb->runs));
	hb->b = calloc(n, sizeof(*hb->b));
	hb->r = calloc(n, sizeof(*hb->r));
	hb->s = calloc(n, sizeof(*hb->s));
	hb->mb = calloc(n, sizeof(*hb->mb));
	hb->mb_built = calloc(n, sizeof(*hb->mb_built));
	if (!hb->runs || !hb->b || !hb->r || !hb->s || !hb->mb || !hb->mb_built)
		return -ENOMEM;
	*v = (struct hosts_report){.run_dir = dir, .run = &hb->run, .s = hb->s, .n = n};
	if (hb->run.manifest.has_window)
		v->window_s = (double)(hb->run.manifest.window_end_ns -
				       hb->run.manifest.window_start_ns) /
			      1e9;
	for (size_t i = 0; i < n; i++) {
		struct hosts_section *s = &hb->s[i];

		s->h = &hb->run.hosts[i];
		if (!s->h->dir) {
			s->why_not = "it sent no run";
			continue;
		}
		if (corecap_multi_run_is(s->h->dir)) {
			ret = build_multi(hb, i, symfs, o);
			if (ret) {
				s->r = NULL;
				s->why_not =
					ret == -ENODATA
						? "none of its daemons' runs could be analysed"
						: "its run cannot be read (the error is above)";
				continue;
			}
			v->n_analysed++;
			continue;
		}
		ret = corecap_report_build_dir(&hb->b[i], &hb->runs[i], s->h->dir, symfs, o,
					       &hb->r[i]);
		if (ret) {
			s->why_not = ret == -ENODATA
					     ? "its window never started"
					     : "its run cannot be read (the error is above)";
			continue;
		}
		s->r = &hb->r[i];
		s->dir = s->h->dir;
		s->run = &hb->runs[i];
		v->n_analysed++;
	}
	verdict(v);
	ret = split_clients(hb, dir);
	if (!ret)
		ret = refine_from_osds(hb);
	if (ret)
		return ret;
	*out = v;
	return 0;
}

void corecap_hosts_build_release(struct hosts_build *hb)
{
	for (size_t i = 0; hb->b && i < hb->run.n_hosts; i++) {
		corecap_report_build_release(&hb->b[i]);
		corecap_run_close(&hb->runs[i]);
		if (hb->mb_built && hb->mb_built[i])
			corecap_multi_build_release(&hb->mb[i]);
	}
	free(hb->view.client.rows);
	free(hb->mb);
	free(hb->mb_built);
	free(hb->b);
	free(hb->runs);
	free(hb->r);
	free(hb->s);
	corecap_hosts_run_close(&hb->run);
	*hb = (struct hosts_build){0};
}
