#include "ctf_reader.h"
#include "exit_unlink.h"

#include <corecap/diag.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FIELDS 7

/* How a payload member is read. */
enum member_type { MT_ABSENT, MT_UNSIGNED, MT_SIGNED, MT_STRING, MT_ARRAY };

/*
 * A handler: the event it decodes, the payload members it reads (in the
 * order its fill function expects them), and the fill function.
 */
struct handler {
	const char *name;
	enum model_event_kind kind;
	const char *fields[MAX_FIELDS];
	uint64_t defaults[MAX_FIELDS]; /* values of fields a trace lacks */
	void (*fill)(struct model_event *ev, const uint64_t *v, const char *const *s,
		     uint32_t depth);
};

struct ctf_class_info {
	const bt_event_class *cls; /* NULL: empty slot */
	const struct handler *h;   /* NULL: not a corecap event */
	bool has_then;		   /* a pairs[] event: a second model event of kind then */
	enum model_event_kind then;
	int64_t ctx_tid, ctx_pid, ctx_comm;
	enum member_type ctx_tid_t, ctx_pid_t;
	uint8_t n_reads; /* the handler's fields the class has, in handler order */
	struct {
		uint8_t slot; /* in the handler's fields[] */
		enum member_type type;
		uint32_t idx; /* in the payload */
	} reads[MAX_FIELDS];
	bool has_clock;
	uint64_t freq;
};

static void fill_op_str(struct model_event *ev, const uint64_t *v, const char *const *s, uint32_t d)
{
	(void)d;
	ev->op.id = v[0];
	ev->op.str = s[1];
	ev->op.bytes = v[2];
}

static void fill_op_end(struct model_event *ev, const uint64_t *v, const char *const *s, uint32_t d)
{
	(void)s, (void)d;
	ev->op.id = v[0];
	ev->op.result = (int64_t)v[1];
}

static void fill_op_id(struct model_event *ev, const uint64_t *v, const char *const *s, uint32_t d)
{
	(void)s, (void)d;
	ev->op.id = v[0];
}

static void fill_none(struct model_event *ev, const uint64_t *v, const char *const *s, uint32_t d)
{
	(void)ev, (void)v, (void)s, (void)d;
}

static void fill_lock(struct model_event *ev, const uint64_t *v, const char *const *s, uint32_t d)
{
	(void)s;
	ev->lock.addr = v[0];
	ev->lock.kind = (uint8_t)v[1];
	ev->lock.site = v[2];
	ev->lock.dur_ns = v[3];
	ev->lock.flag = (uint8_t)v[4]; /* contended: acquired (hold: 0, unused) */
	ev->lock.depth = d;
}

static void fill_cond_wait(struct model_event *ev, const uint64_t *v, const char *const *s,
			   uint32_t d)
{
	(void)s, (void)d;
	ev->lock.addr = v[0];
	ev->lock.mutex = v[1];
	ev->lock.site = v[2];
	ev->lock.dur_ns = v[3];
	ev->lock.flag = (uint8_t)v[4];
}

static void fill_cond_wake(struct model_event *ev, const uint64_t *v, const char *const *s,
			   uint32_t d)
{
	(void)s, (void)d;
	ev->lock.addr = v[0];
	ev->lock.site = v[1];
	ev->lock.flag = (uint8_t)v[2];
}

static void fill_io(struct model_event *ev, const uint64_t *v, const char *const *s, uint32_t d)
{
	(void)s, (void)d;
	ev->io.call = (uint8_t)v[0];
	ev->io.fd = (int32_t)v[1];
	ev->io.io_class = (uint8_t)v[2];
	ev->io.bytes = (int64_t)v[3];
	ev->io.dur_ns = v[4];
	/* A trace older than `hdr` has `head`, the first 4 bytes (UINT64_MAX: absent). */
	if (v[6] != UINT64_MAX && ev->io.bytes >= 4) {
		for (int i = 0; i < 4; i++)
			ev->io.hdr[i] = (uint8_t)(v[6] >> (24 - 8 * i));
		ev->io.hdr_len = 4;
	}
}

static void fill_thread(struct model_event *ev, const uint64_t *v, const char *const *s, uint32_t d)
{
	(void)d;
	ev->thread.tid = (int32_t)v[0];
	ev->thread.parent_tid = (int32_t)v[1];
	ev->thread.name = s[1];
}

/* The event name -> handler table: every corecap event the analysis reads. */
static const struct handler handlers[] = {
	{"corecap_op:begin", MEV_OP_BEGIN, {"op_id", "type", "bytes"}, {0}, fill_op_str},
	{"corecap_op:phase", MEV_OP_PHASE, {"op_id", "name"}, {0}, fill_op_str},
	{"corecap_op:end", MEV_OP_END, {"op_id", "result"}, {0}, fill_op_end},
	{"corecap_op:begin_enter", MEV_OP_BEGIN, {"op_id", "type", "bytes"}, {0}, fill_op_str},
	{"corecap_op:phase_enter", MEV_OP_PHASE, {"op_id", "name"}, {0}, fill_op_str},
	{"corecap_op:end_exit", MEV_OP_END, {"op_id", "result"}, {0}, fill_op_end},
	{"corecap_op:enter", MEV_OP_ENTER, {"op_id"}, {0}, fill_op_id},
	{"corecap_op:exit", MEV_OP_EXIT, {"op_id"}, {0}, fill_op_id},
	{"corecap_op:log_enter", MEV_LOG_ENTER, {NULL}, {0}, fill_none},
	{"corecap_op:log_exit", MEV_LOG_EXIT, {NULL}, {0}, fill_none},
	/* `acquired` is absent from traces older than the field: they only had acquisitions. */
	{"corecap_lock:contended",
	 MEV_LOCK_CONTENDED,
	 {"lock", "kind", "site", "wait_ns", "acquired", "stack"},
	 {[4] = 1},
	 fill_lock},
	{"corecap_lock:hold", MEV_LOCK_HOLD, {"lock", "kind", "site", "hold_ns"}, {0}, fill_lock},
	{"corecap_lock:cond_wait",
	 MEV_COND_WAIT,
	 {"cond", "mutex", "site", "wait_ns", "timed_out"},
	 {0},
	 fill_cond_wait},
	{"corecap_lock:cond_wake",
	 MEV_COND_WAKE,
	 {"cond", "site", "broadcast"},
	 {0},
	 fill_cond_wake},
	/* `hdr` replaced `head`, which older traces have, or lack (run_format.h). */
	{"corecap_io:syscall",
	 MEV_IO,
	 {"call", "fd", "class", "bytes", "dur_ns", "hdr", "head"},
	 {[6] = UINT64_MAX},
	 fill_io},
	/* One libaio completion, emitted by the thread that reaped it. */
	{"corecap_io:aio", MEV_AIO, {"call", "fd", "class", "bytes", "dur_ns"}, {0}, fill_io},
	{"corecap_thread:name", MEV_THREAD_NAME, {"tid", "name"}, {0}, fill_thread},
	{"corecap_thread:start", MEV_THREAD_START, {"tid", "parent_tid"}, {0}, fill_thread},
	{"corecap_thread:exit", MEV_THREAD_EXIT, {"tid"}, {0}, fill_thread},
};

/*
 * Events that stand for two model events at one instant: their handler's,
 * then this one, for the same op (docs/events.md).
 */
static const struct {
	const char *name;
	enum model_event_kind then;
} pairs[] = {
	{"corecap_op:begin_enter", MEV_OP_ENTER},
	{"corecap_op:phase_enter", MEV_OP_ENTER},
	{"corecap_op:end_exit", MEV_OP_EXIT},
};

static void set_error(struct ctf_reader *r, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	if (r->error)
		return; /* the first error is the one that explains */
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	r->error = msg;
}

/*
 * Appends libbabeltrace2's cause chain to r->error, outermost first, as
 * its CLI prints it (the library appends causes as the error rises, so
 * the last cause is the outermost), on the message's one line
 * (corecap/diag.h): ": caused by [MODULE] text", each cause's first line.
 */
static void append_bt_causes(struct ctf_reader *r)
{
	const bt_error *err = bt_current_thread_take_error();
	char *msg;

	if (!err)
		return;
	for (uint64_t i = bt_error_get_cause_count(err); i-- > 0;) {
		const bt_error_cause *c = bt_error_borrow_cause_by_index(err, i);
		const char *text = bt_error_cause_get_message(c);

		if (asprintf(&msg, "%s: caused by [%s] %.*s", r->error ? r->error : "",
			     bt_error_cause_get_module_name(c), (int)strcspn(text, "\n"), text) < 0)
			break;
		free(r->error);
		r->error = msg;
	}
	bt_error_release(err);
}

static int64_t member_index(const bt_field_class *st, const char *name, enum member_type *type)
{
	uint64_t n;

	*type = MT_ABSENT;
	if (!st || bt_field_class_get_type(st) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return -1;
	n = bt_field_class_structure_get_member_count(st);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *mb =
			bt_field_class_structure_borrow_member_by_index_const(st, i);
		const bt_field_class *fc;
		bt_field_class_type t;

		if (strcmp(bt_field_class_structure_member_get_name(mb), name) != 0)
			continue;
		fc = bt_field_class_structure_member_borrow_field_class_const(mb);
		t = bt_field_class_get_type(fc);
		if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
			*type = MT_SIGNED;
		else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			*type = MT_UNSIGNED;
		else if (t == BT_FIELD_CLASS_TYPE_STRING)
			*type = MT_STRING;
		else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY))
			*type = MT_ARRAY;
		else
			return -1;
		return (int64_t)i;
	}
	return -1;
}

static size_t class_slot(const struct ctf_reader *r, const bt_event_class *cls)
{
	size_t i = (size_t)(((uintptr_t)cls >> 4) * 0x9E3779B97F4A7C15ull >> 32);

	for (i &= r->cap_classes - 1; r->classes[i].cls && r->classes[i].cls != cls;
	     i = (i + 1) & (r->cap_classes - 1))
		;
	return i;
}

static int grow_classes(struct ctf_reader *r)
{
	struct ctf_class_info *old = r->classes;
	size_t old_cap = r->cap_classes;

	r->cap_classes = old_cap ? old_cap * 2 : 64;
	r->classes = calloc(r->cap_classes, sizeof(*r->classes));
	if (!r->classes) {
		r->classes = old;
		r->cap_classes = old_cap;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].cls)
			r->classes[class_slot(r, old[i].cls)] = old[i];
	free(old);
	return 0;
}

/* Resolves a class the first time it is seen: its handler and field positions. */
static struct ctf_class_info *class_info(struct ctf_reader *r, const bt_event_class *cls)
{
	struct ctf_class_info *ci;
	const bt_stream_class *sc;
	const bt_field_class *ctx, *payload;
	const bt_clock_class *clock;
	const char *name;

	if (r->cap_classes) {
		ci = &r->classes[class_slot(r, cls)];
		if (ci->cls)
			return ci;
	}
	if ((r->n_classes + 1) * 2 > r->cap_classes && grow_classes(r))
		return NULL;
	ci = &r->classes[class_slot(r, cls)];
	*ci = (struct ctf_class_info){.cls = cls};
	r->n_classes++;
	name = bt_event_class_get_name(cls);
	for (size_t i = 0; name && i < sizeof(handlers) / sizeof(handlers[0]); i++)
		if (strcmp(handlers[i].name, name) == 0)
			ci->h = &handlers[i];
	if (!ci->h)
		return ci;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (strcmp(pairs[i].name, name) == 0) {
			ci->has_then = true;
			ci->then = pairs[i].then;
		}
	sc = bt_event_class_borrow_stream_class_const(cls);
	clock = bt_stream_class_borrow_default_clock_class_const(sc);
	ci->has_clock = clock != NULL;
	ci->freq = clock ? bt_clock_class_get_frequency(clock) : 0;
	ctx = bt_stream_class_borrow_event_common_context_field_class_const(sc);
	ci->ctx_tid = member_index(ctx, "vtid", &ci->ctx_tid_t);
	ci->ctx_pid = member_index(ctx, "vpid", &ci->ctx_pid_t);
	{
		enum member_type t;

		ci->ctx_comm = member_index(ctx, "procname", &t);
		if (t != MT_STRING)
			ci->ctx_comm = -1;
	}
	payload = bt_event_class_borrow_payload_field_class_const(cls);
	for (int i = 0; i < MAX_FIELDS && ci->h->fields[i]; i++) {
		enum member_type t;
		int64_t idx = member_index(payload, ci->h->fields[i], &t);

		if (idx < 0)
			continue; /* the handler's default stands */
		ci->reads[ci->n_reads].slot = (uint8_t)i;
		ci->reads[ci->n_reads].type = t;
		ci->reads[ci->n_reads].idx = (uint32_t)idx;
		ci->n_reads++;
	}
	return ci;
}

static uint64_t read_int(const bt_field *f, enum member_type t)
{
	return t == MT_SIGNED ? (uint64_t)bt_field_integer_signed_get_value(f)
			      : bt_field_integer_unsigned_get_value(f);
}

static uint64_t to_ns(const struct ctf_class_info *ci, uint64_t cycles)
{
	if (ci->freq == 1000000000u || !ci->freq)
		return cycles;
	return (uint64_t)((unsigned __int128)cycles * 1000000000u / ci->freq);
}

/* An event message, its class's info and its time as message_key found them. */
static int handle_event(struct ctf_reader *r, const bt_message *msg, struct ctf_class_info *ci,
			uint64_t ts_ns)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const bt_field *payload, *ctx, *f;
	struct model_event ev;
	uint64_t v[MAX_FIELDS];
	const char *s[MAX_FIELDS] = {NULL};
	uint32_t depth = 0;

	if (!ci->h) {
		r->foreign_events++;
		return 0;
	}
	r->events++;
	/* Member by member and the union apart: a whole-struct clear is a
	 * `rep stos` here, whose start-up costs more than the event's fields. */
	memset(&ev.op, 0, sizeof(ev) - offsetof(struct model_event, op));
	ev.kind = ci->h->kind;
	ev.ts_ns = ci->has_clock ? ts_ns : 0;
	ev.tid = -1;
	ev.pid = -1;
	ev.comm = NULL;
	ctx = bt_event_borrow_common_context_field_const(event);
	if (ctx) {
		if (ci->ctx_tid >= 0)
			ev.tid = (int32_t)read_int(
				bt_field_structure_borrow_member_field_by_index_const(
					ctx, (uint64_t)ci->ctx_tid),
				ci->ctx_tid_t);
		if (ci->ctx_pid >= 0)
			ev.pid = (int32_t)read_int(
				bt_field_structure_borrow_member_field_by_index_const(
					ctx, (uint64_t)ci->ctx_pid),
				ci->ctx_pid_t);
		if (ci->ctx_comm >= 0 && (!r->wants_comm || r->wants_comm(r->ctx, ev.tid)))
			ev.comm = bt_field_string_get_value(
				bt_field_structure_borrow_member_field_by_index_const(
					ctx, (uint64_t)ci->ctx_comm));
	}
	memcpy(v, ci->h->defaults, sizeof(v));
	payload = bt_event_borrow_payload_field_const(event);
	for (uint8_t j = 0; payload && j < ci->n_reads; j++) {
		int i = ci->reads[j].slot;

		f = bt_field_structure_borrow_member_field_by_index_const(payload,
									  ci->reads[j].idx);
		switch (ci->reads[j].type) {
		case MT_UNSIGNED:
		case MT_SIGNED:
			v[i] = read_int(f, ci->reads[j].type);
			break;
		case MT_STRING:
			s[i] = bt_field_string_get_value(f);
			break;
		case MT_ARRAY:
			depth = (uint32_t)bt_field_array_get_length(f);
			if (depth > sizeof(r->stack) / sizeof(r->stack[0]))
				depth = sizeof(r->stack) / sizeof(r->stack[0]);
			for (uint32_t k = 0; k < depth; k++)
				r->stack[k] = bt_field_integer_unsigned_get_value(
					bt_field_array_borrow_element_field_by_index_const(f, k));
			break;
		case MT_ABSENT: /* never listed: class_info leaves absent fields out */
			break;
		}
	}
	ci->h->fill(&ev, v, s, depth);
	if (ev.kind == MEV_LOCK_CONTENDED)
		ev.lock.stack = r->stack;
	if (ev.kind == MEV_IO && depth) {
		if (depth > sizeof(ev.io.hdr))
			depth = sizeof(ev.io.hdr);
		for (uint32_t k = 0; k < depth; k++)
			ev.io.hdr[k] = (uint8_t)r->stack[k];
		ev.io.hdr_len = (uint8_t)depth;
	}
	if (ci->has_then) {
		int ret = r->consume(r->ctx, &ev);

		if (ret)
			return ret;
		ev.kind = ci->then;
		ev.op.str = NULL;
		ev.op.bytes = 0;
		ev.op.result = 0;
	}
	return r->consume(r->ctx, &ev);
}

static uint64_t snapshot_ns(const bt_clock_snapshot *cs)
{
	return cs ? bt_clock_snapshot_get_value(cs) : 0;
}

/*
 * A loss message's range, [*begin, *end] (raw clock values), when its
 * stream class gives losses times: true; false (both 0) otherwise.
 */
static bool loss_range(const bt_message *msg, bool packets, uint64_t *begin, uint64_t *end)
{
	const bt_stream *stream = packets ? bt_message_discarded_packets_borrow_stream_const(msg)
					  : bt_message_discarded_events_borrow_stream_const(msg);
	const bt_stream_class *sc = bt_stream_borrow_class_const(stream);

	*begin = *end = 0;
	if (packets && bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)) {
		*begin = snapshot_ns(
			bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
				msg));
		*end = snapshot_ns(
			bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg));
		return true;
	}
	if (!packets && bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) {
		*begin = snapshot_ns(
			bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
				msg));
		*end = snapshot_ns(
			bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg));
		return true;
	}
	return false;
}

static int handle_discarded(struct ctf_reader *r, const bt_message *msg, bool packets)
{
	struct model_event ev = {.kind = MEV_DISCARDED, .tid = -1, .pid = -1};
	bt_property_availability avail;
	uint64_t count = 0;

	ev.loss.packets = packets;
	avail = packets ? bt_message_discarded_packets_get_count(msg, &count)
			: bt_message_discarded_events_get_count(msg, &count);
	loss_range(msg, packets, &ev.loss.begin_ns, &ev.loss.end_ns);
	ev.loss.count = avail == BT_PROPERTY_AVAILABILITY_AVAILABLE ? count : UINT64_MAX;
	ev.ts_ns = ev.loss.begin_ns;
	return r->consume(r->ctx, &ev);
}

/*
 * The merge's key of msg (ctf_merge_key_fn): an event's time (the raw
 * value of its clock snapshot, in ns) with its class's info as aux; a
 * loss's beginning when its stream class has one; none for the rest
 * (stream and packet boundaries).
 */
static int message_key(void *ctx, const bt_message *msg, uint64_t *key, void **aux)
{
	struct ctf_reader *r = ctx;
	uint64_t end;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT: {
		struct ctf_class_info *ci = class_info(
			r, bt_event_borrow_class_const(bt_message_event_borrow_event_const(msg)));

		if (!ci)
			return -ENOMEM;
		*aux = ci;
		if (!ci->has_clock)
			return 0;
		*key = to_ns(ci,
			     bt_clock_snapshot_get_value(
				     bt_message_event_borrow_default_clock_snapshot_const(msg)));
		return 1;
	}
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return loss_range(msg, false, key, &end);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return loss_range(msg, true, key, &end);
	default:
		return 0;
	}
}

static int handle_message(struct ctf_reader *r, const bt_message *msg, void *aux, uint64_t key)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		r->packets++;
		return 0;
	case BT_MESSAGE_TYPE_EVENT:
		return handle_event(r, msg, aux, key);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return handle_discarded(r, msg, false);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return handle_discarded(r, msg, true);
	default:
		return 0;
	}
}

/* Messages handled per call of the sink's consuming method. */
#define SINK_BATCH 256

static bt_component_class_sink_consume_method_status sink_consume(bt_self_component_sink *self)
{
	struct ctf_reader *r =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	const bt_message *msg;
	void *aux = NULL;
	uint64_t key = 0;
	int ret = 1;

	/* Our own work (the model, a first symbol lookup loading a large
	 * binary's DWARF) is no stall of the library: the watchdog waits. */
	__atomic_add_fetch(&r->progress, 1, __ATOMIC_RELAXED);
	for (int n = 0; n < SINK_BATCH && ret == 1; n++) {
		if ((ret = corecap_ctf_merge_next(&r->merge, &msg, &aux, &key)) != 1)
			break;
		__atomic_store_n(&r->in_consumer, true, __ATOMIC_RELAXED);
		if ((ret = handle_message(r, msg, aux, key)) == 0)
			ret = 1;
		else
			r->consume_ret = ret;
		__atomic_store_n(&r->in_consumer, false, __ATOMIC_RELAXED);
		bt_message_put_ref(msg);
	}
	__atomic_add_fetch(&r->progress, 1, __ATOMIC_RELAXED);
	if (r->consume_ret) /* the consumer's error: corecap_ctf_reader_run names it */
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	switch (ret) {
	case 1:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case 0:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case -EAGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case -ERANGE:
		set_error(r,
			  "trace '%s': a message at %llu ns follows one at %llu ns: a stream out "
			  "of time order",
			  r->input_dirs[r->merge.heap[0]], (unsigned long long)key,
			  (unsigned long long)r->merge.last_key);
		r->consume_ret = ret;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	case -ENOMEM:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}

/*
 * The guard around the library: its error log captured in r->log_fd (fd 2
 * points there while it works), a watchdog thread, and an abort handler.
 * One reader at a time per process (the commands read their traces one
 * after another), so the handler's state is a static.
 */
static struct {
	int stderr_fd;	  /* the real stderr while fd 2 is the log */
	int log_fd;	  /* the captured log, for the abort handler */
	const char *what; /* the trace being read */
	struct sigaction old_abrt;
	pthread_t watchdog;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, running;
	const uint64_t *progress;
	const bool *in_consumer;
	unsigned stall_s;
} guard = {.stderr_fd = -1, .log_fd = -1, .mu = PTHREAD_MUTEX_INITIALIZER};

/* Writes s whole to fd, from a signal handler too. */
static void put_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);

		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

static void put_str(int fd, const char *s)
{
	put_all(fd, s, strlen(s));
}

/* The last 4 KiB of the captured log (the library's message) to the real stderr. */
static void replay_log_tail(void)
{
	char buf[4096];
	off_t end;
	ssize_t k;

	if (guard.log_fd < 0 || guard.stderr_fd < 0)
		return;
	end = lseek(guard.log_fd, 0, SEEK_END);
	if (end < 0)
		return;
	k = pread(guard.log_fd, buf, sizeof(buf),
		  end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0);
	if (k > 0)
		put_all(guard.stderr_fd, buf, (size_t)k);
}

static void on_abort(int sig)
{
	(void)sig;
	replay_log_tail();
	put_str(guard.stderr_fd >= 0 ? guard.stderr_fd : 2, "corecap: cannot read trace '");
	put_str(guard.stderr_fd >= 0 ? guard.stderr_fd : 2, guard.what ? guard.what : "?");
	put_str(guard.stderr_fd >= 0 ? guard.stderr_fd : 2,
		"': libbabeltrace2 aborted on it (its message is above): the trace is one "
		"this version cannot read\n");
	corecap_exit_unlink_run(); /* a -o FILE's temporary file */
	_exit(1);
}

static unsigned stall_limit_s(void)
{
	const char *s = getenv("CORECAP_TRACE_STALL_S");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return 60;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > 86400 || *s == '-') {
		corecap_warn("CORECAP_TRACE_STALL_S='%s' is not a number of "
			     "seconds (1-86400): 60 s",
			     s);
		return 60;
	}
	return (unsigned)v;
}

/* Ends the process when the library makes no progress for guard.stall_s seconds. */
static void *watchdog_main(void *arg)
{
	uint64_t seen = __atomic_load_n(guard.progress, __ATOMIC_RELAXED), now;
	unsigned idle_s = 0;
	char msg[512];

	(void)arg;
	pthread_mutex_lock(&guard.mu);
	while (!guard.stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		if (pthread_cond_timedwait(&guard.cv, &guard.mu, &ts) == 0 || guard.stop)
			continue;
		now = __atomic_load_n(guard.progress, __ATOMIC_RELAXED);
		idle_s = now == seen && !__atomic_load_n(guard.in_consumer, __ATOMIC_RELAXED)
				 ? idle_s + 1
				 : 0;
		seen = now;
		if (idle_s < guard.stall_s)
			continue;
		replay_log_tail();
		snprintf(
			msg, sizeof(msg),
			"corecap: cannot read trace '%s': libbabeltrace2 made no progress for %u s "
			"(a trace it cannot leave, such as metadata cut short): giving up "
			"(CORECAP_TRACE_STALL_S sets the limit)\n",
			guard.what ? guard.what : "?", guard.stall_s);
		put_str(guard.stderr_fd >= 0 ? guard.stderr_fd : 2, msg);
		corecap_exit_unlink_run(); /* a -o FILE's temporary file */
		_exit(1);
	}
	pthread_mutex_unlock(&guard.mu);
	return NULL;
}

/* From here to guard_end, the library works under the guard. */
static void guard_begin(struct ctf_reader *r, const char *what)
{
	struct sigaction sa = {.sa_handler = on_abort};

	guard.what = what;
	guard.stall_s = stall_limit_s(); /* its warning still reaches the real stderr */
	if (r->log_fd < 0)
		r->log_fd = memfd_create("corecap-babeltrace2-log", MFD_CLOEXEC);
	fflush(stderr);
	if (r->log_fd >= 0 && (guard.stderr_fd = fcntl(2, F_DUPFD_CLOEXEC, 3)) >= 0 &&
	    dup2(r->log_fd, 2) < 0) {
		close(guard.stderr_fd);
		guard.stderr_fd = -1;
	}
	guard.log_fd = r->log_fd;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGABRT, &sa, &guard.old_abrt);
	guard.progress = &r->progress;
	guard.in_consumer = &r->in_consumer;
	guard.stop = false;
	pthread_cond_init(&guard.cv, NULL);
	guard.running = pthread_create(&guard.watchdog, NULL, watchdog_main, NULL) == 0;
}

static void guard_end(void)
{
	if (guard.running) {
		pthread_mutex_lock(&guard.mu);
		guard.stop = true;
		pthread_cond_signal(&guard.cv);
		pthread_mutex_unlock(&guard.mu);
		pthread_join(guard.watchdog, NULL);
		guard.running = false;
	}
	pthread_cond_destroy(&guard.cv);
	sigaction(SIGABRT, &guard.old_abrt, NULL);
	fflush(stderr);
	if (guard.stderr_fd >= 0) {
		dup2(guard.stderr_fd, 2);
		close(guard.stderr_fd);
		guard.stderr_fd = -1;
	}
	guard.log_fd = -1;
	guard.what = NULL;
}

/*
 * The captured log's errors (level E or F), appended to r->error as the
 * innermost causes: "At line 3 in metadata stream: syntax error". A log
 * line reads "MM-DD HH:MM:SS.mmm PID TID L TAG func@file:line message".
 */
static void append_log_causes(struct ctf_reader *r)
{
	char *buf, *line, *save = NULL, *msg;
	off_t end;
	ssize_t k;
	int n = 0;

	if (r->log_fd < 0 || (end = lseek(r->log_fd, 0, SEEK_END)) <= 0)
		return;
	if (end > 65536)
		end = 65536;
	buf = malloc((size_t)end + 1);
	if (!buf)
		return;
	k = pread(r->log_fd, buf, (size_t)end, 0);
	buf[k > 0 ? k : 0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && n < 8; line = strtok_r(NULL, "\n", &save)) {
		char level = 0, tag[64] = "", where[128] = "";
		int off = 0;

		if (sscanf(line, "%*s %*s %*d %*d %c %63s %127s %n", &level, tag, where, &off) <
			    3 ||
		    !off || (level != 'E' && level != 'F') || !strchr(where, '@'))
			continue;
		if (asprintf(&msg, "%s\n  caused by [%s] %s", r->error ? r->error : "", tag,
			     line + off) < 0)
			break;
		free(r->error);
		r->error = msg;
		n++;
	}
	free(buf);
}

/* The log of a step that went well still reaches the user. */
static void replay_log(struct ctf_reader *r)
{
	char buf[4096];
	off_t pos = 0;
	ssize_t k;

	if (r->log_fd < 0)
		return;
	while ((k = pread(r->log_fd, buf, sizeof(buf), pos)) > 0) {
		fwrite(buf, 1, (size_t)k, stderr);
		pos += k;
	}
	if (ftruncate(r->log_fd, 0) == 0)
		lseek(r->log_fd, 0, SEEK_SET);
}

static const bt_plugin *find_plugin(struct ctf_reader *r, const char *name)
{
	const bt_plugin *plugin = NULL;

	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &plugin) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		set_error(r, "cannot find the babeltrace2 plugin '%s' (is babeltrace2 installed?)",
			  name);
		append_bt_causes(r);
		return NULL;
	}
	return plugin;
}

/* CORECAP_CTF_CHECK=0: hand the traces to the library unchecked (tests of the guard). */
static bool check_disabled(void)
{
	const char *s = getenv("CORECAP_CTF_CHECK");

	return s && strcmp(s, "0") == 0;
}

/* Trace dir's source, added as *src. */
static int add_source(struct ctf_reader *r, const bt_component_class_source *cls, const char *dir,
		      size_t idx, const bt_component_source **src)
{
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	bt_graph_add_component_status st;
	char name[32];
	int ret = -EINVAL;

	if (!params || bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, dir)) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(name, sizeof(name), "ctf-%zu", idx);
	if (!check_disabled()) {
		char *err = NULL;

		ret = corecap_ctf_check_trace(dir, &r->check, &err);
		if (ret) {
			set_error(r, "%s", err ? err : strerror(-ret));
			free(err);
			goto out;
		}
		ret = -EINVAL;
	}
	/* Errors logged, and captured: the metadata parser's only say where it broke. */
	guard_begin(r, dir);
	st = bt_graph_add_source_component(r->graph, cls, name, params, BT_LOGGING_LEVEL_ERROR,
					   src);
	__atomic_add_fetch(&r->progress, 1, __ATOMIC_RELAXED);
	guard_end();
	if (st != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		set_error(r, "cannot open trace '%s'", dir);
		append_bt_causes(r);
		append_log_causes(r);
		goto out;
	}
	replay_log(r);
	ret = 0;
out:
	bt_value_put_ref(params);
	return ret;
}

/* The sink's initializing method: one input port per output port of the sources. */
static bt_component_class_initialize_method_status
sink_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	  const bt_value *params, void *data)
{
	struct ctf_reader *r = data;
	char name[32];

	(void)config, (void)params;
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), r);
	for (uint32_t i = 0; i < r->n_inputs; i++) {
		snprintf(name, sizeof(name), "in%u", i);
		switch (bt_self_component_sink_add_input_port(self, name, NULL, NULL)) {
		case BT_SELF_COMPONENT_ADD_PORT_STATUS_OK:
			break;
		case BT_SELF_COMPONENT_ADD_PORT_STATUS_MEMORY_ERROR:
			return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		default:
			return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		}
	}
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

/* Once connected: a message iterator on each input port, the merge's inputs. */
static bt_component_class_sink_graph_is_configured_method_status
sink_configured(bt_self_component_sink *self)
{
	struct ctf_reader *r =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	for (uint32_t i = 0; i < r->n_inputs; i++) {
		bt_message_iterator *it = NULL;

		switch (bt_message_iterator_create_from_sink_component(
			self, bt_self_component_sink_borrow_input_port_by_index(self, i), &it)) {
		case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK:
			corecap_ctf_merge_set_input(&r->merge, i, it);
			break;
		case BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_MEMORY_ERROR:
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_MEMORY_ERROR;
		default:
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
		}
	}
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* Our sink, with an input port per output port of srcs[0..n), connected to them. */
static int add_sink(struct ctf_reader *r, const bt_component_source *const *srcs, size_t n,
		    char *const *dirs)
{
	bt_component_class_sink *cls = NULL;
	const bt_component_sink *sink = NULL;
	uint32_t k = 0;
	int ret = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		r->n_inputs += (uint32_t)bt_component_source_get_output_port_count(srcs[i]);
	if (!(r->input_dirs = calloc(r->n_inputs ? r->n_inputs : 1, sizeof(*r->input_dirs))) ||
	    corecap_ctf_merge_init(&r->merge, r->n_inputs, message_key, r) ||
	    !(cls = bt_component_class_sink_create("corecap", sink_consume)) ||
	    bt_component_class_sink_set_initialize_method(cls, sink_init) ||
	    bt_component_class_sink_set_graph_is_configured_method(cls, sink_configured)) {
		set_error(r, "cannot create the reader's sink: %s", strerror(ENOMEM));
		goto out;
	}
	ret = -EINVAL;
	if (bt_graph_add_sink_component_with_initialize_method_data(
		    r->graph, cls, "corecap", NULL, r, BT_LOGGING_LEVEL_NONE, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		set_error(r, "cannot create the reader's sink");
		append_bt_causes(r);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		for (uint64_t p = 0; p < bt_component_source_get_output_port_count(srcs[i]); p++) {
			r->input_dirs[k] = dirs[i];
			if (bt_graph_connect_ports(
				    r->graph,
				    bt_component_source_borrow_output_port_by_index_const(srcs[i],
											  p),
				    bt_component_sink_borrow_input_port_by_index_const(sink, k++),
				    NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
				set_error(r, "cannot connect trace '%s' to the reader's sink",
					  dirs[i]);
				append_bt_causes(r);
				goto out;
			}
		}
	ret = 0;
out:
	bt_component_class_sink_put_ref(cls);
	return ret;
}

int corecap_ctf_reader_init(struct ctf_reader *r, char *const *dirs, size_t n,
			    ctf_reader_consume_fn fn, void *ctx)
{
	const bt_plugin *ctf = NULL;
	const bt_component_class_source *fs;
	const bt_component_source **srcs = NULL;
	int ret = -EINVAL;

	*r = (struct ctf_reader){.consume = fn,
				 .ctx = ctx,
				 .log_fd = -1,
				 .first_dir = n ? dirs[0] : NULL,
				 .merge = {.stale = -1}};
	r->graph = bt_graph_create(0);
	if (!r->graph) {
		set_error(r, "cannot create a babeltrace2 graph");
		return -ENOMEM;
	}
	/* The metadata parser logs at this level, read from the environment when
	 * the plugin loads, not at the component's: without it a syntax error
	 * leaves no line number anywhere. */
	setenv("BABELTRACE_PLUGIN_CTF_METADATA_LOG_LEVEL", "E", 0);
	if (!(ctf = find_plugin(r, "ctf")))
		goto out;
	fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	if (!fs) {
		set_error(r, "the babeltrace2 plugins lack source.ctf.fs");
		goto out;
	}
	if (!(srcs = calloc(n ? n : 1, sizeof(*srcs)))) {
		set_error(r, "cannot read the traces: %s", strerror(ENOMEM));
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if ((ret = add_source(r, fs, dirs[i], i, &srcs[i])))
			goto out;
	ret = add_sink(r, srcs, n, dirs);
out:
	free(srcs);
	bt_plugin_put_ref(ctf);
	return ret;
}

int corecap_ctf_reader_run(struct ctf_reader *r)
{
	bt_graph_run_status st;

	guard_begin(r, r->first_dir);
	do
		st = bt_graph_run(r->graph);
	while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	guard_end();
	if (st == BT_GRAPH_RUN_STATUS_OK) {
		replay_log(r);
		return 0;
	}
	if (r->consume_ret) {
		bt_current_thread_clear_error();
		set_error(r, "%s", strerror(-r->consume_ret));
		return r->consume_ret;
	}
	set_error(r, "babeltrace2 failed");
	append_bt_causes(r);
	append_log_causes(r);
	return st == BT_GRAPH_RUN_STATUS_MEMORY_ERROR ? -ENOMEM : -EIO;
}

uint64_t corecap_ctf_reader_missing_packets(const struct ctf_reader *r)
{
	uint64_t short_read =
		r->check.index_packets > r->packets ? r->check.index_packets - r->packets : 0;

	return r->check.missing_packets > short_read ? r->check.missing_packets : short_read;
}

const char *corecap_ctf_reader_error(const struct ctf_reader *r)
{
	return r->error;
}

void corecap_ctf_reader_release(struct ctf_reader *r)
{
	corecap_ctf_merge_release(&r->merge); /* its iterators before their graph */
	free(r->input_dirs);
	bt_graph_put_ref(r->graph);
	free(r->classes);
	free(r->error);
	if (r->log_fd >= 0)
		close(r->log_fd);
	*r = (struct ctf_reader){.log_fd = -1};
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(const char *dir, char ***dirs, size_t *n, size_t *cap, int depth)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	char *path;
	int ret = 0;

	if (depth > 16) /* LTTng nests 5 deep; deeper is a loop or not a trace */
		return 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && !ret) {
		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			ret = -ENOMEM;
			break;
		}
		if (lstat(path, &st) != 0) {
			/* gone since readdir, or unreadable: not a trace of ours */
		} else if (S_ISDIR(st.st_mode)) {
			ret = walk(path, dirs, n, cap, depth + 1);
		} else if (strcmp(de->d_name, "metadata") == 0 && S_ISREG(st.st_mode)) {
			if (*n == *cap) {
				char **grown =
					realloc(*dirs, (*cap ? *cap * 2 : 4) * sizeof(**dirs));

				if (!grown) {
					ret = -ENOMEM;
				} else {
					*dirs = grown;
					*cap = *cap ? *cap * 2 : 4;
				}
			}
			if (!ret && !((*dirs)[(*n)] = strdup(dir)))
				ret = -ENOMEM;
			else if (!ret)
				(*n)++;
		}
		free(path);
	}
	closedir(d);
	return ret;
}

int corecap_ctf_reader_find_traces(const char *root, char ***dirs, size_t *n, char **err)
{
	size_t cap = 0;
	int ret;

	*dirs = NULL;
	*n = 0;
	ret = walk(root, dirs, n, &cap, 0);
	if (ret) {
		if (asprintf(err, "cannot open trace '%s': %s", root, strerror(-ret)) < 0)
			*err = NULL;
		corecap_ctf_reader_free_traces(*dirs, *n);
		*dirs = NULL;
		*n = 0;
		return ret;
	}
	if (*n) /* no trace found: *dirs is NULL, which qsort may not be given */
		qsort(*dirs, *n, sizeof(**dirs), cmp_str);
	return 0;
}

void corecap_ctf_reader_free_traces(char **dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}
