#include "chrome_trace.h"

#include "html_escape.h"
#include "../model/lock_table.h"
#include "../model/thread_table.h"
#include "../read/thread_series.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NO_STRING UINT32_MAX

struct chrome_thread {
	int32_t tid;
	char name[32];
	bool named_by_trace;
	uint32_t log_depth;
	uint64_t log_since;
	bool in_op;
	uint64_t op_since, op_id;
	uint32_t op_type; /* interned at enter: the op may end before the exit */
	uint64_t last_ts;
	bool kstates; /* has kernel state slices (corecap_chrome_trace_kstate) */
};

int corecap_chrome_trace_init(struct chrome_trace *t, FILE *out, int32_t pid, uint64_t start_ns,
			      uint64_t end_ns, chrome_namer_fn namer, void *namer_ctx)
{
	*t = (struct chrome_trace){
		.out = out,
		.pid = pid,
		.has_window = end_ns != 0,
		.start_ns = start_ns,
		.end_ns = end_ns,
		.rate = 1,
		.namer = namer,
		.namer_ctx = namer_ctx,
	};
	corecap_u64map_init(&t->threads);
	corecap_u64map_init(&t->ops);
	corecap_u64map_init(&t->skip);
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	return ferror(out) ? -EIO : 0;
}

void corecap_chrome_trace_release(struct chrome_trace *t)
{
	uint64_t v;

	for (size_t i = 0; corecap_u64map_next(&t->threads, &i, NULL, &v);)
		free((void *)(uintptr_t)v);
	corecap_u64map_release(&t->threads);
	corecap_u64map_release(&t->ops);
	corecap_u64map_release(&t->skip);
	for (size_t i = 0; i < t->n_strings; i++)
		free(t->strings[i]);
	free(t->strings);
	*t = (struct chrome_trace){0};
}

static uint32_t intern(struct chrome_trace *t, const char *s)
{
	if (!s)
		s = "?";
	/* Op types and phase names are a handful: a linear search is enough. */
	for (size_t i = 0; i < t->n_strings; i++)
		if (strcmp(t->strings[i], s) == 0)
			return (uint32_t)i;
	if (t->n_strings == t->cap_strings) {
		size_t cap = t->cap_strings ? t->cap_strings * 2 : 16;
		char **grown = realloc(t->strings, cap * sizeof(*grown));

		if (!grown)
			return NO_STRING;
		t->strings = grown;
		t->cap_strings = cap;
	}
	t->strings[t->n_strings] = strdup(s);
	if (!t->strings[t->n_strings])
		return NO_STRING;
	return (uint32_t)t->n_strings++;
}

static const char *string_at(const struct chrome_trace *t, uint32_t i)
{
	return i < t->n_strings ? t->strings[i] : "?";
}

static struct chrome_thread *thread(struct chrome_trace *t, int32_t tid)
{
	uint64_t *slot;
	bool inserted;
	struct chrome_thread *th;

	slot = corecap_u64map_upsert(&t->threads, (uint32_t)tid, &inserted);
	if (!slot)
		return NULL;
	if (!inserted)
		return (struct chrome_thread *)(uintptr_t)*slot;
	th = calloc(1, sizeof(*th));
	if (!th) {
		corecap_u64map_remove(&t->threads, (uint32_t)tid);
		return NULL;
	}
	th->tid = tid;
	*slot = (uint64_t)(uintptr_t)th;
	return th;
}

/*
 * Chrome's own traces give metadata events the category "__metadata";
 * importers that build a model of every event (@tracerbench/trace-model)
 * need a category on each.
 */
#define META_CAT "\"cat\":\"__metadata\","

/* ts on the trace's time line, in whole ns from time 0. */
static int64_t line_ns(const struct chrome_trace *t, uint64_t ts)
{
	uint64_t d = ts <= t->start_ns ? 0 : ts - t->start_ns;

	if (t->rate != 1)
		d = (uint64_t)llround((double)d * t->rate);
	return t->shift_ns + (int64_t)d;
}

static double us(const struct chrome_trace *t, uint64_t ts)
{
	return (double)line_ns(t, ts) / 1e3;
}

/* A span's length in microseconds of the trace's time line (from >= start_ns). */
static double dur_us(const struct chrome_trace *t, uint64_t from, uint64_t to)
{
	return (double)(line_ns(t, to) - line_ns(t, from)) / 1e3;
}

/* The daemon's process id in the document. */
static int32_t shown_pid(const struct chrome_trace *t)
{
	return t->shown_pid ? t->shown_pid : t->pid;
}

/* Starts one event object of process pid: `{"ph":"X","pid":..,"tid":..,"ts":..`. */
static void begin_event_of(struct chrome_trace *t, int32_t pid, char ph, int32_t tid, uint64_t ts)
{
	fprintf(t->out, "%s\n{\"ph\":\"%c\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f",
		t->events_written ? "," : "", ph, (int)pid, (int)tid, us(t, ts));
	t->events_written++;
}

/* The same, of the daemon's process. */
static void begin_event(struct chrome_trace *t, char ph, int32_t tid, uint64_t ts)
{
	begin_event_of(t, shown_pid(t), ph, tid, ts);
}

/* The kernel states' process: the daemon's pid beyond any pid's range. */
static int32_t kernel_pid(const struct chrome_trace *t)
{
	return shown_pid(t) + CHROME_KERNEL_PID_OFFSET;
}

static void str_field(struct chrome_trace *t, const char *key, const char *value)
{
	fprintf(t->out, ",\"%s\":\"", key);
	corecap_json_escape(t->out, value ? value : "?");
	fputc('"', t->out);
}

static const char *name_of(struct chrome_trace *t, uint64_t addr, bool code, char *buf, size_t size)
{
	if (t->namer)
		return t->namer(t->namer_ctx, addr, code);
	snprintf(buf, size, "0x%" PRIx64, addr);
	return buf;
}

/* An X slice [from, to) on tid; args_fmt (JSON members, may be "") follows. */
static void slice(struct chrome_trace *t, int32_t tid, const char *name, const char *cat,
		  uint64_t from, uint64_t to)
{
	if (t->start_ns > from)
		from = t->start_ns;
	if (to < from)
		to = from;
	begin_event(t, 'X', tid, from);
	fprintf(t->out, ",\"dur\":%.3f", dur_us(t, from, to));
	str_field(t, "name", name);
	str_field(t, "cat", cat);
}

static void async(struct chrome_trace *t, char ph, int32_t tid, uint64_t ts, const char *name,
		  uint64_t id)
{
	begin_event(t, ph, tid, ts);
	str_field(t, "name", name);
	fprintf(t->out, ",\"cat\":\"op\",\"id\":\"0x%" PRIx64 "\"", id);
}

static void end_op_slice(struct chrome_trace *t, struct chrome_thread *th, uint64_t ts,
			 bool unfinished)
{
	char name[96];

	snprintf(name, sizeof(name), "op %s", string_at(t, th->op_type));
	slice(t, th->tid, name, "op", th->op_since, ts);
	fprintf(t->out, ",\"args\":{\"op_id\":\"0x%" PRIx64 "\"%s}}", th->op_id,
		unfinished ? ",\"unfinished\":true" : "");
	th->in_op = false;
}

static void end_log_slice(struct chrome_trace *t, struct chrome_thread *th, uint64_t ts,
			  bool unfinished)
{
	slice(t, th->tid, "logging", "logging", th->log_since, ts);
	fprintf(t->out, "%s}", unfinished ? ",\"args\":{\"unfinished\":true}" : "");
}

/* Ends op `id` (and its open phase) at ts. */
static void end_op(struct chrome_trace *t, int32_t tid, uint64_t ts, uint64_t id, uint64_t v,
		   const char *result_args)
{
	if (v & 0xffffffffu) {
		async(t, 'e', tid, ts, string_at(t, (uint32_t)(v & 0xffffffffu) - 1), id);
		fputc('}', t->out);
	}
	async(t, 'e', tid, ts, string_at(t, (uint32_t)(v >> 32)), id);
	fprintf(t->out, "%s}", result_args);
	corecap_u64map_remove(&t->ops, id);
}

static int on_op(struct chrome_trace *t, const struct model_event *ev, struct chrome_thread *th)
{
	uint64_t *v = corecap_u64map_find(&t->ops, ev->op.id), val;
	char args[160];
	uint32_t s;
	bool inserted;

	switch (ev->kind) {
	case MEV_OP_BEGIN:
		if (v)
			end_op(t, ev->tid, ev->ts_ns, ev->op.id, *v,
			       ",\"args\":{\"replaced\":true}");
		s = intern(t, ev->op.str);
		if (s == NO_STRING)
			return -ENOMEM;
		v = corecap_u64map_upsert(&t->ops, ev->op.id, &inserted);
		if (!v)
			return -ENOMEM;
		*v = (uint64_t)s << 32;
		async(t, 'b', ev->tid, ev->ts_ns, string_at(t, s), ev->op.id);
		fprintf(t->out, ",\"args\":{\"bytes\":%" PRIu64 "}}", ev->op.bytes);
		break;
	case MEV_OP_PHASE:
		if (!v)
			break; /* began before the window: nothing to nest it in */
		val = *v;
		if (val & 0xffffffffu) {
			async(t, 'e', ev->tid, ev->ts_ns,
			      string_at(t, (uint32_t)(val & 0xffffffffu) - 1), ev->op.id);
			fputc('}', t->out);
		}
		s = intern(t, ev->op.str);
		if (s == NO_STRING)
			return -ENOMEM;
		*corecap_u64map_find(&t->ops, ev->op.id) = (val & ~(uint64_t)0xffffffffu) | (s + 1);
		async(t, 'b', ev->tid, ev->ts_ns, string_at(t, s), ev->op.id);
		fputc('}', t->out);
		break;
	case MEV_OP_END:
		if (!v)
			break;
		/* A detected op's type is known at its end only (model/net_ops.h). */
		snprintf(args, sizeof(args), ",\"args\":{\"result\":%" PRId64 "%s%s%s}",
			 ev->op.result, ev->op.str ? ",\"type\":\"" : "",
			 ev->op.str ? ev->op.str : "", ev->op.str ? "\"" : "");
		end_op(t, ev->tid, ev->ts_ns, ev->op.id, *v, args);
		break;
	case MEV_OP_ENTER:
		if (th->in_op)
			end_op_slice(t, th, ev->ts_ns, false);
		th->in_op = true;
		th->op_id = ev->op.id;
		th->op_since = ev->ts_ns;
		th->op_type = v ? (uint32_t)(*v >> 32) : NO_STRING;
		break;
	case MEV_OP_EXIT:
		if (th->in_op)
			end_op_slice(t, th, ev->ts_ns, false);
		else
			t->enter_unmatched++;
		break;
	default:
		break;
	}
	return 0;
}

static void on_lock(struct chrome_trace *t, const struct model_event *ev)
{
	char buf[32];

	if (ev->kind == MEV_LOCK_CONTENDED) {
		slice(t, ev->tid, "lock wait", "lock", ev->ts_ns - ev->lock.dur_ns, ev->ts_ns);
		fprintf(t->out, ",\"args\":{\"wait_us\":%.3f", (double)ev->lock.dur_ns / 1e3);
		str_field(t, "lock", name_of(t, ev->lock.addr, false, buf, sizeof(buf)));
		str_field(t, "kind", corecap_lock_kind_name(ev->lock.kind));
		str_field(t, "site", name_of(t, ev->lock.site, true, buf, sizeof(buf)));
		fprintf(t->out, "}}");
	} else if (ev->kind == MEV_COND_WAIT) {
		slice(t, ev->tid, "cond wait", "cond", ev->ts_ns - ev->lock.dur_ns, ev->ts_ns);
		fprintf(t->out, ",\"args\":{\"wait_us\":%.3f,\"timed_out\":%s",
			(double)ev->lock.dur_ns / 1e3, ev->lock.flag ? "true" : "false");
		str_field(t, "cond", name_of(t, ev->lock.addr, false, buf, sizeof(buf)));
		str_field(t, "site", name_of(t, ev->lock.site, true, buf, sizeof(buf)));
		fprintf(t->out, "}}");
	}
}

static void on_io(struct chrome_trace *t, const struct model_event *ev)
{
	char name[16];
	int cls = ev->io.io_class < CORECAP_IO_CLASSES ? ev->io.io_class : CORECAP_IO_OTHER;

	snprintf(name, sizeof(name), "io %s", corecap_io_class_name(cls));
	slice(t, ev->tid, name, "io", ev->ts_ns - ev->io.dur_ns, ev->ts_ns);
	fprintf(t->out, ",\"args\":{\"fd\":%d,\"bytes\":%" PRId64 ",\"call\":%u,\"dur_us\":%.3f}}",
		(int)ev->io.fd, ev->io.bytes, (unsigned)ev->io.call, (double)ev->io.dur_ns / 1e3);
}

static void set_name(struct chrome_thread *th, const char *name, bool from_trace)
{
	if (!name || !*name || (th->named_by_trace && !from_trace))
		return;
	snprintf(th->name, sizeof(th->name), "%s", name);
	th->named_by_trace |= from_trace;
}

/* Whether tid's events are left out (the profiler's thread). */
static bool skipped(struct chrome_trace *t, int32_t tid)
{
	if (!corecap_u64map_find(&t->skip, (uint64_t)(uint32_t)tid))
		return false;
	t->events_profiler++;
	return true;
}

int corecap_chrome_trace_skip_thread(struct chrome_trace *t, int32_t tid)
{
	return corecap_u64map_upsert(&t->skip, (uint64_t)(uint32_t)tid, NULL) ? 0 : -ENOMEM;
}

int corecap_chrome_trace_consume(struct chrome_trace *t, const struct model_event *ev)
{
	struct chrome_thread *th = NULL;
	int ret = 0;

	if (t->err)
		return t->err;
	if (skipped(t, ev->tid))
		return 0;
	if (t->pid < 0 && ev->pid >= 0)
		t->pid = ev->pid;
	if (ev->pid >= 0 && t->pid >= 0 && ev->pid != t->pid) {
		t->events_other_pid++;
		return 0;
	}
	if (!t->started) {
		t->started = true;
		if (!t->has_window)
			t->start_ns = ev->ts_ns;
	}
	if (ev->ts_ns < t->start_ns || (t->has_window && ev->ts_ns > t->end_ns)) {
		t->events_outside++;
		return 0;
	}
	if (ev->tid >= 0) {
		th = thread(t, ev->tid);
		if (!th)
			return t->err = -ENOMEM;
		th->last_ts = ev->ts_ns;
		if (!th->name[0])
			set_name(th, ev->comm, false);
	}
	switch (ev->kind) {
	case MEV_OP_BEGIN:
	case MEV_OP_PHASE:
	case MEV_OP_END:
		ret = on_op(t, ev, th);
		break;
	case MEV_OP_ENTER:
	case MEV_OP_EXIT:
		if (th)
			ret = on_op(t, ev, th);
		break;
	case MEV_LOG_ENTER:
		if (th && th->log_depth++ == 0)
			th->log_since = ev->ts_ns;
		break;
	case MEV_LOG_EXIT:
		if (th && th->log_depth && --th->log_depth == 0)
			end_log_slice(t, th, ev->ts_ns, false);
		break;
	case MEV_LOCK_CONTENDED:
	case MEV_COND_WAIT:
		if (th)
			on_lock(t, ev);
		break;
	case MEV_IO:
		if (th)
			on_io(t, ev);
		break;
	case MEV_THREAD_NAME: {
		struct chrome_thread *named =
			thread(t, ev->thread.tid >= 0 ? ev->thread.tid : ev->tid);

		if (!named)
			return t->err = -ENOMEM;
		set_name(named, ev->thread.name, true);
		break;
	}
	case MEV_DISCARDED:
		begin_event(t, 'i', 0, ev->ts_ns);
		fprintf(t->out,
			",\"s\":\"g\",\"name\":\"events lost\",\"cat\":\"loss\","
			"\"args\":{\"count\":%" PRId64 ",\"packets\":%s}}",
			ev->loss.count == UINT64_MAX ? (int64_t)-1 : (int64_t)ev->loss.count,
			ev->loss.packets ? "true" : "false");
		break;
	default:
		break;
	}
	if (!ret && ferror(t->out))
		ret = -EIO;
	if (ret)
		t->err = ret;
	return ret;
}

int corecap_chrome_trace_name_thread(struct chrome_trace *t, int32_t tid, const char *name)
{
	struct chrome_thread *th;

	if (corecap_u64map_find(&t->skip, (uint64_t)(uint32_t)tid))
		return 0;
	if (!(th = thread(t, tid)))
		return -ENOMEM;
	set_name(th, name, false);
	return 0;
}

void corecap_chrome_trace_counters(struct chrome_trace *t, const struct thread_series *s)
{
	for (size_t b = 0; b < s->n_bins; b++) {
		uint64_t ts = s->start_ns + b * s->bin_ns;
		bool first = true;

		if (ts < t->start_ns || (t->has_window && ts > t->end_ns))
			continue;
		begin_event(t, 'C', 0, ts);
		fprintf(t->out, ",\"cat\":\"cpu\",\"name\":\"pool CPU (cores)\",\"args\":{");
		for (size_t p = 0; p < s->n_pools; p++) {
			if (!s->pools[p].total_cpu_ns ||
			    (t->cut_profiler &&
			     corecap_profiler_is_thread_name(t->cut_profiler, s->pools[p].name)))
				continue;
			fprintf(t->out, "%s\"", first ? "" : ",");
			corecap_json_escape(t->out, s->pools[p].name);
			fprintf(t->out, "\":%.3f", corecap_thread_series_cores(s, p, b));
			first = false;
		}
		fprintf(t->out, "}}");
	}
}

struct sort_item {
	char pool[32];
	int32_t tid;
	const struct chrome_thread *th;
};

static int cmp_item(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;
	int c = strcmp(x->pool, y->pool);

	return c ? c : (x->tid > y->tid) - (x->tid < y->tid);
}

int corecap_chrome_trace_kstate(struct chrome_trace *t, int32_t tid, const char *state,
				uint64_t from_ns, uint64_t to_ns)
{
	struct chrome_thread *th;

	if (skipped(t, tid))
		return 0;
	if (t->has_window && (to_ns <= t->start_ns || from_ns >= t->end_ns)) {
		t->events_outside++;
		return 0;
	}
	if (!(th = thread(t, tid)))
		return -ENOMEM;
	th->kstates = true;
	if (t->has_window && to_ns > t->end_ns)
		to_ns = t->end_ns;
	if (t->start_ns > from_ns)
		from_ns = t->start_ns;
	begin_event_of(t, kernel_pid(t), 'X', tid, from_ns);
	fprintf(t->out, ",\"dur\":%.3f", dur_us(t, from_ns, to_ns));
	str_field(t, "name", state);
	str_field(t, "cat", "kernel");
	fputc('}', t->out);
	return 0;
}

int corecap_chrome_trace_kwake(struct chrome_trace *t, int32_t holder, int32_t waiter,
			       uint64_t wake_ns, uint64_t end_ns)
{
	struct chrome_thread *h, *w;

	if (skipped(t, holder) || skipped(t, waiter))
		return 0;
	if (t->has_window && (wake_ns < t->start_ns || end_ns > t->end_ns)) {
		t->events_outside++;
		return 0;
	}
	if (!(h = thread(t, holder)) || !(w = thread(t, waiter)))
		return -ENOMEM;
	h->kstates = w->kstates = true;
	t->flows++;
	begin_event_of(t, kernel_pid(t), 's', holder, wake_ns);
	fprintf(t->out, ",\"id\":%" PRIu64, t->flows);
	str_field(t, "name", "futex wake");
	str_field(t, "cat", "kernel");
	fputc('}', t->out);
	begin_event_of(t, kernel_pid(t), 'f', waiter, end_ns);
	fprintf(t->out, ",\"bp\":\"e\",\"id\":%" PRIu64, t->flows);
	str_field(t, "name", "futex wake");
	str_field(t, "cat", "kernel");
	fputc('}', t->out);
	return 0;
}

/* The kernel states' process and thread names (the daemon's threads' names
 * and order), when it has slices. */
static void kernel_metadata(struct chrome_trace *t, const char *process_name,
			    const struct sort_item *items, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n && !any; i++)
		any = items[i].th->kstates;
	if (!any)
		return;
	begin_event_of(t, kernel_pid(t), 'M', 0, t->start_ns);
	fprintf(t->out, ",%s\"name\":\"process_name\",\"args\":{\"name\":\"", META_CAT);
	corecap_json_escape(t->out, process_name ? process_name : "daemon");
	fputs(" kernel thread states\"}}", t->out);
	for (size_t i = 0; i < n; i++) {
		char fallback[32];

		if (!items[i].th->kstates)
			continue;
		snprintf(fallback, sizeof(fallback), "tid %d", items[i].tid);
		begin_event_of(t, kernel_pid(t), 'M', items[i].tid, t->start_ns);
		fprintf(t->out, ",%s\"name\":\"thread_name\",\"args\":{\"name\":\"", META_CAT);
		corecap_json_escape(t->out, items[i].th->name[0] ? items[i].th->name : fallback);
		fputs("\"}}", t->out);
		begin_event_of(t, kernel_pid(t), 'M', items[i].tid, t->start_ns);
		fprintf(t->out, ",%s\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%zu}}",
			META_CAT, i);
	}
}

int corecap_chrome_trace_finish(struct chrome_trace *t, const char *process_name)
{
	struct sort_item *items = calloc(t->threads.len ? t->threads.len : 1, sizeof(*items));
	uint64_t end, v, id;
	size_t n = 0;

	if (!items)
		return -ENOMEM;
	end = t->has_window ? t->end_ns : t->start_ns;
	for (size_t i = 0; corecap_u64map_next(&t->threads, &i, NULL, &v);) {
		const struct chrome_thread *th = (const struct chrome_thread *)(uintptr_t)v;

		if (!t->has_window && th->last_ts > end)
			end = th->last_ts;
	}
	/* What is still open at the end is drawn to the end, and says so. */
	for (size_t i = 0; corecap_u64map_next(&t->threads, &i, NULL, &v);) {
		struct chrome_thread *th = (struct chrome_thread *)(uintptr_t)v;

		if (th->in_op)
			end_op_slice(t, th, end, true);
		if (th->log_depth) {
			end_log_slice(t, th, end, true);
			th->log_depth = 0;
		}
		items[n].tid = th->tid;
		items[n].th = th;
		corecap_thread_pool_name(th->name[0] ? th->name : "?", items[n].pool,
					 sizeof(items[n].pool));
		n++;
	}
	while (t->ops.len) {
		size_t i = 0;

		corecap_u64map_next(&t->ops, &i, &id, &v);
		end_op(t, 0, end, id, v, ",\"args\":{\"unfinished\":true}");
	}
	begin_event(t, 'M', 0, t->start_ns);
	fprintf(t->out, ",%s\"name\":\"process_name\",\"args\":{\"name\":\"", META_CAT);
	corecap_json_escape(t->out, process_name ? process_name : "daemon");
	fputs("\"}}", t->out);
	/* Threads of one pool next to each other, in tid order. */
	qsort(items, n, sizeof(*items), cmp_item);
	for (size_t i = 0; i < n; i++) {
		char fallback[32];

		snprintf(fallback, sizeof(fallback), "tid %d", items[i].tid);
		begin_event(t, 'M', items[i].tid, t->start_ns);
		fprintf(t->out, ",%s\"name\":\"thread_name\",\"args\":{", META_CAT);
		fprintf(t->out, "\"name\":\"");
		corecap_json_escape(t->out, items[i].th->name[0] ? items[i].th->name : fallback);
		fputs("\"}}", t->out);
		begin_event(t, 'M', items[i].tid, t->start_ns);
		fprintf(t->out, ",%s\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%zu}}",
			META_CAT, i);
	}
	kernel_metadata(t, process_name, items, n);
	free(items);
	fprintf(t->out,
		"\n],\"otherData\":{\"generator\":\"corecap\",\"events_outside_window\":%" PRIu64
		",\"events_of_other_processes\":%" PRIu64 "}}\n",
		t->events_outside, t->events_other_pid);
	if (fflush(t->out) || ferror(t->out))
		return -EIO;
	return t->err;
}
