/*
 * ctf_merge: the messages of several libbabeltrace2 message iterators
 * (one per output port of the traces' sources: a stream, or a group of
 * streams) merged into one sequence in time order. The report's sink
 * reads them through this instead of filter.utils.muxer: the muxer's
 * queues, its search over every input for each message and its second
 * hop through the library cost about 3% of a report's instructions
 * (issue 19), and the sink reads each event's time anyway.
 *
 * Order: by the key the caller's function gives each message as it
 * reaches the head of its input (an event's or a loss's time); ties by
 * input index, so the order is the same on every read. A message without
 * a time (stream and packet boundaries) takes the time last given and
 * so comes out as soon as it is at a head, as the muxer does. Like the
 * muxer, a message older than one already given is an error (-ERANGE):
 * an input out of time order, which a model fed in time order must not
 * see.
 *
 * Memory: the inputs and a heap of their heads; each input's current
 * batch is the library's (valid until that input's next call).
 */
#ifndef CORECAP_CTF_MERGE_H
#define CORECAP_CTF_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

/*
 * The key of msg: 1 with *key set (its time), 0 when it has none, or a
 * negative errno. *aux is handed back with the message (the caller's
 * per-message lookups, done once).
 */
typedef int (*ctf_merge_key_fn)(void *ctx, const bt_message *msg, uint64_t *key, void **aux);

struct ctf_merge_input {
	bt_message_iterator *it; /* a reference; NULL once ended */
	bt_message_array_const msgs;
	uint64_t count, pos; /* msgs[pos..count): not given yet, references held */
	uint64_t key;	     /* of msgs[pos] */
	void *aux;
};

struct ctf_merge {
	struct ctf_merge_input *in;
	uint32_t n_in;
	uint32_t *heap; /* the inputs with a head, by (key, index) */
	uint32_t n_heap;
	uint64_t last_key; /* of the last message given */
	int64_t stale;	   /* the input whose head was given (its next not loaded), or -1 */
	uint32_t n_started; /* inputs whose first head was asked for (start) */
	ctf_merge_key_fn key;
	void *ctx;
};

/* n inputs, none set yet: 0 or -ENOMEM. */
int corecap_ctf_merge_init(struct ctf_merge *m, uint32_t n, ctf_merge_key_fn key, void *ctx);
/* Input i reads from it (the merge takes the reference). */
void corecap_ctf_merge_set_input(struct ctf_merge *m, uint32_t i, bt_message_iterator *it);
/*
 * The next message in order: 1 with *msg (a reference, the caller's to
 * put) and its *aux; 0 at the end of every input; -EAGAIN when an input
 * said to try again (call again later); -ERANGE when the next message is
 * older than the last one given (*key says its time); -ENOMEM, -EIO (an
 * input failed: the library's error is the thread's current one), or the
 * key function's error.
 */
int corecap_ctf_merge_next(struct ctf_merge *m, const bt_message **msg, void **aux, uint64_t *key);
/* Puts every message not given and every iterator. */
void corecap_ctf_merge_release(struct ctf_merge *m);

#endif
