/*
 * ctf_events: the CTF reader's event decoding (ctf_reader.h). The
 * event-class table: every corecap event the analysis reads, by name,
 * with the payload members its handler reads and the fill function that
 * makes it a struct model_event; each class resolved once (its handler,
 * its field positions, its clock) into the reader's open-addressed class
 * table. And the sink's consuming method: the messages the reader's merge
 * hands over in time order, each decoded (an event into one or two model
 * events, a loss into MEV_DISCARDED, a packet beginning counted) and
 * handed to the consumer: the whole per-event path, in one file.
 */
#include "ctf_reader.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static void fill_op_client(struct model_event *ev, const uint64_t *v, const char *const *s,
			   uint32_t d)
{
	(void)s, (void)d;
	ev->op.id = v[0];
	ev->op.bytes = v[1];
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
	{"corecap_op:reply", MEV_OP_REPLY, {"op_id"}, {0}, fill_op_id},
	{"corecap_op:client", MEV_OP_CLIENT, {"op_id", "client_op"}, {0}, fill_op_client},
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

/* An event message, its class's info and its time as corecap_ctf_events_key found them. */
static int handle_event(struct ctf_reader *r, const bt_message *msg, struct ctf_class_info *ci,
			uint64_t ts_ns)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const bt_field *payload, *ctx, *f;
	struct model_event ev;
	uint64_t v[MAX_FIELDS];
	const char *s[MAX_FIELDS] = {NULL};
	uint32_t depth = 0;
	const char *full = NULL;
	bool has_comm = false;

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
		if (ci->ctx_comm >= 0) {
			bool want = !r->wants_comm || r->wants_comm(r->ctx, ev.tid);

			/* The run cache keeps every procname: its replay asks wants_comm. */
			has_comm = true;
			if (want || r->cache_w)
				full = bt_field_string_get_value(
					bt_field_structure_borrow_member_field_by_index_const(
						ctx, (uint64_t)ci->ctx_comm));
			if (want)
				ev.comm = full;
		}
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
	if (r->cache_w)
		corecap_run_cache_put(r->cache_w, &ev, full, has_comm, false);
	if (ci->has_then) {
		int ret = r->consume(r->ctx, &ev);

		if (ret)
			return ret;
		ev.kind = ci->then;
		ev.op.str = NULL;
		ev.op.bytes = 0;
		ev.op.result = 0;
		if (r->cache_w)
			corecap_run_cache_put(r->cache_w, &ev, full, has_comm, true);
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
	if (r->cache_w)
		corecap_run_cache_put(r->cache_w, &ev, NULL, false, false);
	return r->consume(r->ctx, &ev);
}

/*
 * The merge's key of msg (ctf_merge_key_fn): an event's time (the raw
 * value of its clock snapshot, in ns) with its class's info as aux; a
 * loss's beginning when its stream class has one; none for the rest
 * (stream and packet boundaries).
 */
int corecap_ctf_events_key(void *ctx, const bt_message *msg, uint64_t *key, void **aux)
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

bt_component_class_sink_consume_method_status
corecap_ctf_events_consume(bt_self_component_sink *self)
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
		corecap_ctf_reader_set_error(
			r,
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
