/*
 * ctf_reader: reads the CTF traces of a run in process with libbabeltrace2
 * (one source.ctf.fs per trace directory -> a sink of ours, which merges
 * the sources' ports in time order itself: ctf_merge) and hands every
 * corecap event, decoded into a struct model_event, to a consumer, in
 * timestamp order. Event classes are dispatched through a table from
 * event name to handler, resolved once per class; field positions are
 * resolved once per class too, so the per-event cost is a pointer-hash
 * lookup and a few field reads. Discarded-events and discarded-packets
 * messages reach the consumer as MEV_DISCARDED events. Nothing is
 * buffered: memory does not grow with the trace. Timestamps are the raw
 * value of each event's default clock snapshot (LTTng-UST's monotonic
 * clock: CLOCK_MONOTONIC ns).
 *
 * The library is not trusted with hostile input (read/ctf_check.h says
 * why): each trace is checked first (ctf_check; CORECAP_CTF_CHECK=0 skips
 * that, for tests), and while the library works a watchdog thread ends
 * the process with a clear error when the library (not our consumer)
 * makes no progress for CORECAP_TRACE_STALL_S seconds (default 60: it
 * spins inside, so neither a return nor a signal would reach us), and an
 * abort inside it
 * ends the process with exit status 1 and the library's message. Its
 * error log (the metadata parser's "At line 3 in metadata stream: syntax
 * error") is captured while it runs and added to the cause chain.
 */
#ifndef CORECAP_CTF_READER_H
#define CORECAP_CTF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "../model/event.h"
#include "ctf_check.h"
#include "ctf_merge.h"
#include "run_cache.h"

/* Returns 0 or a negative errno, which stops the reading. */
typedef int (*ctf_reader_consume_fn)(void *ctx, const struct model_event *ev);
/* Whether the consumer wants the procname of tid's next event (ev.comm). */
typedef bool (*ctf_reader_wants_comm_fn)(void *ctx, int32_t tid);

struct ctf_class_info;

struct ctf_reader {
	bt_graph *graph;
	ctf_reader_consume_fn consume;
	/* NULL (as init leaves it): every event's procname is read. A field
	 * read costs a cache miss or two on a large trace (issue 19). */
	ctf_reader_wants_comm_fn wants_comm;
	void *ctx;
	int consume_ret;
	struct ctf_class_info *classes; /* open-addressed by class pointer */
	size_t cap_classes, n_classes;
	uint64_t events, foreign_events;
	uint64_t packets;  /* packet beginnings read, for ctf_check's index figures */
	uint64_t progress; /* bumped as the library hands over messages (atomic) */
	bool in_consumer;  /* our consumer runs: not the library's time (atomic) */
	uint64_t stack[64];
	char *error;		/* set when init or run fails */
	struct ctf_check check; /* what the traces' files say, summed */
	int log_fd;		/* memfd: the library's error log, -1 until needed */
	const char *first_dir;	/* the trace named in the guard's errors (borrowed) */
	struct ctf_merge merge; /* the sink's inputs: every output port of the sources */
	const char **input_dirs; /* each input's trace directory (borrowed) */
	uint32_t n_inputs;
	/* The run cache (run_cache.h): the file replayed instead of the
	 * library's read (replaying), or the one this read writes (cache_w). */
	bool replaying;
	struct run_cache_writer *cache_w;
	void *cache_map;
	size_t cache_len;
	struct run_cache_view cache_v;
};

/*
 * Finds the CTF trace directories (those holding a `metadata` file) under
 * root, sorted (ctf_traces.c). 0 with *n = 0 when there are none; a
 * negative errno (and *err, malloc'd) when root cannot be walked.
 */
int corecap_ctf_reader_find_traces(const char *root, char ***dirs, size_t *n, char **err);
void corecap_ctf_reader_free_traces(char **dirs, size_t n);

int corecap_ctf_reader_init(struct ctf_reader *r, char *const *dirs, size_t n,
			    ctf_reader_consume_fn fn, void *ctx);
/* Reads every message; 0, or a negative errno with corecap_ctf_reader_error() set. */
int corecap_ctf_reader_run(struct ctf_reader *r);
/*
 * The packets the stream indexes list but the read did not deliver (a
 * stream file cut short), after a successful run; 0 when none is missing.
 */
uint64_t corecap_ctf_reader_missing_packets(const struct ctf_reader *r);
/* What went wrong, with libbabeltrace2's cause chain; NULL if nothing did. */
const char *corecap_ctf_reader_error(const struct ctf_reader *r);
void corecap_ctf_reader_release(struct ctf_reader *r);

/*
 * The reader's parts, each in a file of its own, for ctf_reader.c alone.
 * ctf_events.c, the decoding: the merge's key of msg (ctf_merge_key_fn,
 * ctx the reader: an event's time with its class's info as aux, a loss's
 * beginning, none for the rest), and the sink's consuming method, which
 * hands the merged messages to the consumer (an event as one or two model
 * events, a loss as MEV_DISCARDED; packet beginnings counted).
 */
int corecap_ctf_events_key(void *ctx, const bt_message *msg, uint64_t *key, void **aux);
bt_component_class_sink_consume_method_status
corecap_ctf_events_consume(bt_self_component_sink *self);
/* Sets r's error unless it has one (the first explains), as printf. */
void corecap_ctf_reader_set_error(struct ctf_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * ctf_guard.c, the guard: from begin to end the library works under it
 * (what: the trace named in its errors); then log_causes appends the
 * captured log's errors to r's error, or replay_log hands the log of a
 * step that went well to stderr.
 */
void corecap_ctf_guard_begin(struct ctf_reader *r, const char *what);
void corecap_ctf_guard_end(void);
void corecap_ctf_guard_log_causes(struct ctf_reader *r);
void corecap_ctf_guard_replay_log(struct ctf_reader *r);

#endif
