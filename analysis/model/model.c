#include "model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int corecap_model_init(struct model *m, const struct model_config *cfg)
{
	*m = (struct model){.cfg = *cfg};
	corecap_thread_table_init(&m->threads);
	corecap_lock_table_init(&m->locks);
	corecap_lock_table_init(&m->futex_locks);
	if (cfg->has_window) {
		m->ws = cfg->window_start_ns;
		m->we = cfg->window_end_ns;
	}
	return corecap_op_table_init(&m->ops, cfg->dump_ops);
}

void corecap_model_release(struct model *m)
{
	corecap_op_table_release(&m->ops);
	corecap_lock_table_release(&m->locks);
	corecap_lock_table_release(&m->futex_locks);
	corecap_thread_table_release(&m->threads);
	*m = (struct model){0};
}

uint64_t corecap_model_window_ns(const struct model *m)
{
	return m->we > m->ws ? m->we - m->ws : 0;
}

bool corecap_model_has_ops(const struct model *m)
{
	return m->src.trace;
}

bool corecap_model_has_thread_waits(const struct model *m)
{
	return m->src.trace;
}

bool corecap_model_has_locks(const struct model *m)
{
	return m->src.trace || m->src.stats || m->src.futex;
}

bool corecap_lock_has_events(const struct model *m, const struct model_lock *l)
{
	return m->src.trace || l->source == LOCK_SOURCE_FUTEX;
}

/* Clips [b, e) to the window (nothing to do while the window is the trace's). */
static void clip_to_window(const struct model *m, uint64_t *b, uint64_t *e)
{
	if (!m->cfg.has_window)
		return;
	if (*b < m->ws)
		*b = m->ws;
	if (*e > m->we)
		*e = m->we;
}

/* The length of the part of [b, e) inside the window. */
static uint64_t in_window(const struct model *m, uint64_t b, uint64_t e)
{
	clip_to_window(m, &b, &e);
	return e > b ? e - b : 0;
}

static bool in_ctx_as_owner(const struct model_thread *th)
{
	return th->ctx && th->ctx->owner == th && th->ctx->begun;
}

/* Charges the owner's time since its last charge up to `ts`, as cpu or logging. */
static void charge_state(struct model_thread *th, uint64_t ts, bool logging)
{
	struct model_op *op = th->ctx;

	if (ts <= th->acct_from)
		return;
	if (logging)
		corecap_op_table_charge(op, CAT_LOGGING, OP_DETAIL_KEY(CAT_LOGGING, LOG_ANNOTATED),
					th->acct_from, ts);
	else
		corecap_op_table_charge(op, CAT_CPU, OP_DETAIL_KEY(CAT_CPU, 0), th->acct_from, ts);
	th->acct_from = ts;
}

/* The base state: logging inside a log call, cpu otherwise. */
static void charge_base(struct model_thread *th, uint64_t ts)
{
	charge_state(th, ts, th->log_depth > 0);
}

static void charge_queue(struct model_op *op, uint64_t ts)
{
	corecap_op_table_charge(op, CAT_QUEUE, OP_DETAIL_KEY(CAT_QUEUE, op->phase), op->queue_since,
				ts);
	op->queue_since = ts;
}

/*
 * The queue ends because `th` takes the op. Whatever th spent logging (for
 * other ops) while this one waited for it is logging's cost to this op,
 * "queued behind" logging; the rest is queue.
 */
static void charge_queue_taken(struct model_op *op, struct model_thread *th, uint64_t ts)
{
	uint64_t behind = corecap_thread_logging_in(th, op->queue_since, ts);

	corecap_op_table_charge(op, CAT_LOGGING, OP_DETAIL_KEY(CAT_LOGGING, LOG_QUEUED_BEHIND), 0,
				behind);
	op->queue_since += behind;
	charge_queue(op, ts);
}

/*
 * The thread that enters last owns the op: an op moves forward through
 * threads (a worker hands it to the finisher and then unwinds), so the
 * newest context is where its work is; the previous owner's stretch is
 * charged up to here.
 */
static void attach(struct model_thread *th, struct model_op *op, uint64_t ts)
{
	th->ctx = op;
	th->has_ended_ctx = false;
	th->ctx_next = op->threads;
	op->threads = th;
	op->ctx_count++;
	if (op->owner) {
		if (op->begun)
			charge_base(op->owner, ts);
	} else if (op->begun) {
		charge_queue_taken(op, th, ts);
	}
	op->owner = th;
	th->acct_from = ts;
}

/* Takes the op out of th's context at ts; ownership passes on, or queueing starts. */
static void detach(struct model_thread *th, uint64_t ts)
{
	struct model_op *op = th->ctx;
	struct model_thread **p;

	for (p = &op->threads; *p; p = &(*p)->ctx_next)
		if (*p == th) {
			*p = th->ctx_next;
			break;
		}
	op->ctx_count--;
	if (op->owner == th) {
		if (op->begun)
			charge_base(th, ts);
		op->owner = op->threads;
		if (op->owner)
			op->owner->acct_from = ts;
		else
			op->queue_since = ts;
	}
	th->ctx = NULL;
	th->ctx_next = NULL;
}

/* The op ended (or was dropped): its threads lose it, quietly accepting a later exit. */
static void detach_all(struct model_op *op)
{
	struct model_thread *th, *next;

	for (th = op->threads; th; th = next) {
		next = th->ctx_next;
		th->ctx = NULL;
		th->ctx_next = NULL;
		th->has_ended_ctx = true;
		th->ended_ctx_id = op->id;
	}
	op->threads = NULL;
	op->owner = NULL;
	op->ctx_count = 0;
}

static bool tainted_at(const struct model *m, uint64_t ts)
{
	return m->has_taint && ts <= m->taint_until;
}

static int on_begin(struct model *m, struct model_thread *th, const struct model_event *ev)
{
	struct model_op *op = corecap_op_table_find(&m->ops, ev->op.id);

	(void)th;
	if (op && op->begun) {
		/* op_id reused while in flight: the first one's end was lost. */
		m->q.ops_replaced++;
		detach_all(op);
		corecap_op_table_drop(&m->ops, op);
		op = NULL;
	}
	if (!op && !(op = corecap_op_table_create(&m->ops, ev->op.id)))
		return -ENOMEM;
	if (corecap_op_table_set_type(&m->ops, op, ev->op.str))
		return -ENOMEM;
	op->begun = true;
	op->begin_ns = ev->ts_ns;
	op->phase = OP_PHASE_NONE;
	op->tainted = tainted_at(m, ev->ts_ns);
	/* Entered before its begin: only the time from begin on counts. */
	memset(op->cat_ns, 0, sizeof(op->cat_ns));
	op->n_detail = 0;
	if (op->owner)
		op->owner->acct_from = ev->ts_ns;
	else
		op->queue_since = ev->ts_ns;
	return 0;
}

static int on_op_enter(struct model *m, struct model_thread *th, const struct model_event *ev)
{
	struct model_op *op;

	if (th->ctx) {
		if (th->ctx->id == ev->op.id) {
			m->q.enter_twice++;
			return 0;
		}
		/* Entering another op implies leaving the one in context. */
		m->q.implicit_exits++;
		detach(th, ev->ts_ns);
	}
	op = corecap_op_table_find(&m->ops, ev->op.id);
	if (!op && !(op = corecap_op_table_create(&m->ops, ev->op.id)))
		return -ENOMEM;
	attach(th, op, ev->ts_ns);
	return 0;
}

static void on_op_exit(struct model *m, struct model_thread *th, const struct model_event *ev)
{
	if (!th->ctx || th->ctx->id != ev->op.id) {
		/*
		 * An exit after the op's end is the usual order, and one for an
		 * op never seen was entered before the trace began: neither is
		 * an error. An exit for an op in flight elsewhere is.
		 */
		if (th->has_ended_ctx && th->ended_ctx_id == ev->op.id)
			th->has_ended_ctx = false;
		else if (corecap_op_table_find(&m->ops, ev->op.id))
			m->q.exit_unmatched++;
		else
			m->q.exit_unknown_op++;
		return;
	}
	detach(th, ev->ts_ns);
}

static int on_phase(struct model *m, const struct model_event *ev)
{
	struct model_op *op = corecap_op_table_find(&m->ops, ev->op.id);

	if (!op)
		return 0;
	if (op->begun && !op->ctx_count)
		charge_queue(op, ev->ts_ns);
	op->phase = corecap_op_table_phase(&m->ops, ev->op.str);
	return 0;
}

static int on_end(struct model *m, struct model_thread *th, const struct model_event *ev)
{
	struct model_op *op = corecap_op_table_find(&m->ops, ev->op.id);
	struct model_thread *owner;
	uint64_t ts = ev->ts_ns, known;
	bool exclude;

	if (!op || !op->begun) {
		/* Begun before the trace started: its latency is unknown. */
		m->q.ops_without_begin++;
		if (op) {
			detach_all(op);
			corecap_op_table_drop(&m->ops, op);
		}
		return 0;
	}
	owner = op->owner;
	if (owner && owner != th) {
		/*
		 * Ended by another thread while the owner still has it: the
		 * owner's state after its last event is not known yet (a wait
		 * in progress reports only when it ends), so that stretch is
		 * `other`, not cpu.
		 */
		known = owner->last_ts > owner->acct_from ? owner->last_ts : owner->acct_from;
		if (known > ts)
			known = ts;
		charge_base(owner, known);
		corecap_op_table_charge(op, CAT_OTHER, OP_DETAIL_KEY(CAT_OTHER, 0), known, ts);
		m->q.ops_ended_elsewhere++;
	} else if (owner) {
		charge_base(owner, ts);
	} else {
		charge_queue(op, ts);
	}
	detach_all(op);
	exclude = op->tainted;
	if (op->tainted)
		m->q.ops_tainted++;
	else if (m->cfg.has_window && (op->begin_ns < m->ws || op->begin_ns > m->we)) {
		m->q.ops_outside_window++;
		exclude = true;
	}
	m->has_ended = true;
	m->ended = (struct model_op_end){
		.id = op->id, .type = op->type, .tid = th->tid, .end_ns = ts, .exclude = exclude};
	return corecap_op_table_finish(&m->ops, op, ts, exclude);
}

/*
 * A wait [ts - dur, ts) that the thread reports at its end. For the
 * thread's states it counts unless it lies inside a log call (then it is
 * logging time); for the op the thread owns, the stretch before it is the
 * base state and the wait its category.
 */
static void on_wait(struct model *m, struct model_thread *th, uint64_t ts, uint64_t dur,
		    enum op_cat cat, uint64_t detail_key, uint64_t *thread_total)
{
	uint64_t b = dur < ts ? ts - dur : 0;

	if (th->log_depth)
		return;
	*thread_total += in_window(m, b, ts);
	if (cat == CAT_LOGGING)
		corecap_thread_log_span(th, b, ts);
	if (!in_ctx_as_owner(th) || ts <= th->acct_from)
		return;
	if (b < th->acct_from)
		b = th->acct_from;
	charge_base(th, b);
	corecap_op_table_charge(th->ctx, cat, detail_key, b, ts);
	th->acct_from = ts;
}

static int on_contended(struct model *m, struct model_thread *th, const struct model_event *ev)
{
	struct model_lock *lock = corecap_lock_table_get(&m->locks, ev->lock.addr);
	struct lock_site *site;
	uint64_t dur = ev->lock.dur_ns, b = dur < ev->ts_ns ? ev->ts_ns - dur : 0, e = ev->ts_ns;
	bool created;

	if (!lock)
		return -ENOMEM;
	lock->kind = ev->lock.kind;
	lock->contentions++;
	lock->wait_ns += dur;
	if (dur > lock->max_wait_ns)
		lock->max_wait_ns = dur;
	site = corecap_lock_table_site(lock, ev->lock.site, &created);
	if (!site)
		return -ENOMEM;
	if (created && m->cfg.site_is_logging)
		site->is_logging = m->cfg.site_is_logging(m->cfg.classify_ctx, ev->lock.site);
	site->contentions++;
	site->wait_ns += dur;
	if (dur > site->max_wait_ns)
		site->max_wait_ns = dur;
	if (ev->lock.depth &&
	    corecap_lock_table_add_stack(lock, ev->lock.stack, ev->lock.depth, dur))
		return -ENOMEM;
	clip_to_window(m, &b, &e);
	corecap_lock_add_waited(lock, b, e);
	th->contentions++;
	if (site->is_logging) {
		lock->logging_wait_ns += dur;
		on_wait(m, th, ev->ts_ns, dur, CAT_LOGGING,
			OP_DETAIL_KEY(CAT_LOGGING, LOG_LOCK_WAIT), &th->logging_ns);
	} else {
		on_wait(m, th, ev->ts_ns, dur, CAT_LOCK_WAIT,
			OP_DETAIL_KEY(CAT_LOCK_WAIT, lock->index), &th->lock_wait_ns);
	}
	return 0;
}

static int on_hold(struct model *m, const struct model_event *ev)
{
	struct model_lock *lock = corecap_lock_table_get(&m->locks, ev->lock.addr);
	uint64_t dur = ev->lock.dur_ns, b = dur < ev->ts_ns ? ev->ts_ns - dur : 0;
	struct lock_site *site;

	if (!lock)
		return -ENOMEM;
	lock->kind = ev->lock.kind;
	/* Utilization is about the window: a hold straddling its edge counts in part. */
	dur = in_window(m, b, ev->ts_ns);
	lock->holds++;
	lock->hold_ns += dur;
	if (ev->lock.dur_ns > lock->max_hold_ns)
		lock->max_hold_ns = ev->lock.dur_ns;
	site = corecap_lock_table_site(lock, ev->lock.site, NULL);
	if (!site)
		return -ENOMEM;
	site->holds++;
	site->hold_ns += dur;
	return 0;
}

static void on_io(struct model *m, struct model_thread *th, const struct model_event *ev)
{
	unsigned cls = ev->io.io_class < CORECAP_IO_CLASSES ? ev->io.io_class : CORECAP_IO_OTHER;

	th->ios[cls]++;
	/* The op's reply, for the clients' split (client_split.h): its last send's start. */
	if (cls == CORECAP_IO_NET && th->ctx && th->ctx->has_client && !th->ctx->reply_marked &&
	    (ev->io.call == CORECAP_IO_CALL_WRITE || ev->io.call == CORECAP_IO_CALL_SEND) &&
	    ev->io.dur_ns < ev->ts_ns)
		th->ctx->reply_ns = ev->ts_ns - ev->io.dur_ns;
	if (cls == CORECAP_IO_LOG)
		on_wait(m, th, ev->ts_ns, ev->io.dur_ns, CAT_LOGGING,
			OP_DETAIL_KEY(CAT_LOGGING, LOG_IO), &th->logging_ns);
	else
		on_wait(m, th, ev->ts_ns, ev->io.dur_ns, CAT_IO, OP_DETAIL_KEY(CAT_IO, cls),
			&th->io_ns[cls]);
}

static void on_log_enter(struct model_thread *th, uint64_t ts)
{
	if (!th->log_depth) {
		th->log_since = ts;
		if (in_ctx_as_owner(th))
			charge_state(th, ts, false);
	}
	th->log_depth++;
}

static void on_log_exit(struct model *m, struct model_thread *th, uint64_t ts)
{
	if (!th->log_depth) {
		m->q.log_exit_unmatched++;
		return;
	}
	if (--th->log_depth)
		return;
	th->logging_ns += in_window(m, th->log_since, ts);
	corecap_thread_log_span(th, th->log_since, ts);
	if (in_ctx_as_owner(th))
		charge_state(th, ts, true);
}

/*
 * Events were lost in [begin, end]: any op in flight then, or beginning
 * before `end`, may miss some of its events, so it is left out (and
 * counted). A lost log_exit would leave a thread "logging" for ever, so
 * open log calls are closed here, pessimistically, and counted.
 */
/* A loss count from a corrupt packet may be near 2^64: sums saturate, never wrap to 0. */
static void add_sat(uint64_t *sum, uint64_t v)
{
	if (__builtin_add_overflow(*sum, v, sum))
		*sum = UINT64_MAX;
}

static void on_discarded(struct model *m, const struct model_event *ev)
{
	uint64_t v, until = ev->loss.end_ns ? ev->loss.end_ns : ev->ts_ns;

	m->q.loss_msgs++;
	if (ev->loss.packets)
		add_sat(&m->q.discarded_packets, ev->loss.count == UINT64_MAX ? 1 : ev->loss.count);
	else if (ev->loss.count == UINT64_MAX)
		m->q.discarded_unknown_msgs++;
	else
		add_sat(&m->q.discarded_events, ev->loss.count);
	for (size_t i = 0; corecap_u64map_next(&m->ops.inflight, &i, NULL, &v);)
		((struct model_op *)(uintptr_t)v)->tainted = true;
	if (!m->has_taint || until > m->taint_until)
		m->taint_until = until;
	m->has_taint = true;
	for (size_t i = 0; i < m->threads.len; i++) {
		struct model_thread *th = m->threads.all[i];

		if (th->log_depth) {
			th->log_depth = 0;
			m->q.log_depth_reset++;
		}
	}
}

int corecap_model_consume(struct model *m, const struct model_event *ev)
{
	struct model_thread *th, *named;
	int ret = 0;

	m->has_ended = false;
	m->q.events++;
	if (!m->q.has_ts || ev->ts_ns < m->q.first_ts)
		m->q.first_ts = ev->ts_ns;
	if (ev->ts_ns > m->q.last_ts)
		m->q.last_ts = ev->ts_ns;
	m->q.has_ts = true;
	if (ev->kind == MEV_DISCARDED) {
		on_discarded(m, ev);
		return 0;
	}
	if (m->cfg.pid >= 0 && ev->pid >= 0 && ev->pid != m->cfg.pid) {
		m->q.events_other_pid++;
		return 0;
	}
	if (ev->tid < 0) {
		m->q.events_no_tid++;
		return 0;
	}
	th = m->last_th && m->last_th->tid == ev->tid
		     ? m->last_th
		     : corecap_thread_table_get(&m->threads, ev->tid);
	if (!th)
		return -ENOMEM;
	m->last_th = th;
	th->events++;
	if (ev->comm && th->name_source <= TNAME_PROCNAME)
		corecap_thread_table_name(th, ev->comm, TNAME_PROCNAME);

	switch (ev->kind) {
	case MEV_OP_BEGIN:
		ret = on_begin(m, th, ev);
		break;
	case MEV_OP_PHASE:
		ret = on_phase(m, ev);
		break;
	case MEV_OP_END:
		ret = on_end(m, th, ev);
		break;
	case MEV_OP_ENTER:
		ret = on_op_enter(m, th, ev);
		break;
	case MEV_OP_EXIT:
		on_op_exit(m, th, ev);
		break;
	case MEV_OP_CLIENT: {
		struct model_op *op = corecap_op_table_find(&m->ops, ev->op.id);

		if (op && op->begun)
			corecap_op_table_set_client(op, ev->op.bytes);
		break;
	}
	case MEV_OP_REPLY: {
		struct model_op *op = corecap_op_table_find(&m->ops, ev->op.id);

		if (op && op->begun) {
			op->reply_ns = ev->ts_ns;
			op->reply_marked = true;
		}
		break;
	}
	case MEV_LOG_ENTER:
		on_log_enter(th, ev->ts_ns);
		break;
	case MEV_LOG_EXIT:
		on_log_exit(m, th, ev->ts_ns);
		break;
	case MEV_LOCK_CONTENDED:
		ret = on_contended(m, th, ev);
		break;
	case MEV_LOCK_HOLD:
		ret = on_hold(m, ev);
		break;
	case MEV_COND_WAIT:
		th->cond_waits++;
		on_wait(m, th, ev->ts_ns, ev->lock.dur_ns, CAT_COND_WAIT,
			OP_DETAIL_KEY(CAT_COND_WAIT, 0), &th->cond_wait_ns);
		break;
	case MEV_IO:
		on_io(m, th, ev);
		break;
	case MEV_THREAD_NAME:
		named = ev->thread.tid == th->tid
				? th
				: corecap_thread_table_get(&m->threads, ev->thread.tid);
		if (!named)
			return -ENOMEM;
		corecap_thread_table_name(named, ev->thread.name, TNAME_EVENT);
		break;
	case MEV_COND_WAKE:
	case MEV_THREAD_START:
	case MEV_THREAD_EXIT:
	case MEV_DISCARDED:
	case MEV_AIO: /* the reaper's; the submitters' time is the shim's counters' */
	case MEV__COUNT:
		break;
	}
	th->last_ts = ev->ts_ns;
	return ret;
}

bool corecap_model_wants_comm(const struct model *m, int32_t tid)
{
	const struct model_thread *th = m->last_th && m->last_th->tid == tid
						? m->last_th
						: corecap_thread_table_find(&m->threads, tid);

	return !th || th->name_source <= TNAME_PROCNAME;
}

bool corecap_model_event_names(int32_t pid, const struct model_event *ev, int32_t *tid)
{
	/* corecap_model_consume's filters, then corecap_thread_table_name's. */
	if (ev->kind != MEV_THREAD_NAME || (pid >= 0 && ev->pid >= 0 && ev->pid != pid) ||
	    ev->tid < 0 || !ev->thread.name || !*ev->thread.name)
		return false;
	*tid = ev->thread.tid;
	return true;
}

int corecap_model_finish(struct model *m)
{
	uint64_t v;

	if (m->finished)
		return 0;
	m->finished = true;
	if (!m->cfg.has_window && m->q.has_ts) {
		m->ws = m->q.first_ts;
		m->we = m->q.last_ts;
	}
	for (size_t i = 0; corecap_u64map_next(&m->ops.inflight, &i, NULL, &v);) {
		struct model_op *op = (struct model_op *)(uintptr_t)v;

		if (op->begun)
			m->q.ops_unfinished++;
		else
			m->q.ops_without_begin++;
	}
	for (size_t i = 0; i < m->threads.len; i++) {
		struct model_thread *th = m->threads.all[i];

		/* A log call still open at the end counts up to the window's end. */
		if (th->log_depth)
			th->logging_ns += in_window(m, th->log_since, m->we);
	}
	return 0;
}

int corecap_model_set_thread_cpu(struct model *m, int32_t tid, const char *comm, uint64_t cpu_ns,
				 uint64_t runq_ns, bool has_runq, uint64_t span_ns)
{
	struct model_thread *th = corecap_thread_table_get(&m->threads, tid);

	if (!th)
		return -ENOMEM;
	corecap_thread_table_name(th, comm, TNAME_SAMPLES);
	th->has_samples = true;
	th->cpu_ns = cpu_ns;
	th->runq_ns = runq_ns;
	th->has_runq = has_runq;
	th->span_ns = span_ns;
	return 0;
}

int corecap_model_set_thread_kstates(struct model *m, int32_t tid, const char *comm,
				     uint64_t running_ns, uint64_t runnable_ns, uint64_t futex_ns,
				     uint64_t blocked_ns)
{
	struct model_thread *th;
	int ret;

	/* The kernel's running and runnable times stand where threads.tsv's CPU
	 * and run-queue wait were; a thread it names no better keeps its name. */
	ret = corecap_model_set_thread_cpu(m, tid, comm && comm[0] ? comm : "", running_ns,
					   runnable_ns, true,
					   running_ns + runnable_ns + futex_ns + blocked_ns);
	if (ret)
		return ret;
	th = corecap_thread_table_find(&m->threads, tid);
	th->has_kstates = true;
	th->k_running_ns = running_ns;
	th->k_runnable_ns = runnable_ns;
	th->k_futex_ns = futex_ns;
	th->k_blocked_ns = blocked_ns;
	return 0;
}

int corecap_model_set_lock_stats(struct model *m, uint64_t addr, uint8_t kind,
				 uint64_t acquisitions, uint64_t contentions, uint64_t wait_ns,
				 uint64_t holds, uint64_t hold_ns)
{
	struct model_lock *lock = corecap_lock_table_get(&m->locks, addr);

	if (!lock)
		return -ENOMEM;
	if (lock->kind == LOCK_KIND_UNKNOWN)
		lock->kind = kind;
	lock->has_stats = true;
	lock->stats_acquisitions = acquisitions;
	lock->stats_contentions = contentions;
	lock->stats_wait_ns = wait_ns;
	lock->stats_holds = holds;
	lock->stats_hold_ns = hold_ns;
	return 0;
}
