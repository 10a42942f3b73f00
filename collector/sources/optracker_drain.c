#include "optracker_drain.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "asok_client.h"
#include "util/mono_clock.h"
#include "util/run_dir.h"

#define POLL_NS (20 * 1000000ull) /* the stop flag is looked at this often */

static uint64_t next_rand(struct optracker_drain *d)
{
	/* xorshift64*: a uniform enough draw for a reservoir. */
	d->rng ^= d->rng >> 12;
	d->rng ^= d->rng << 25;
	d->rng ^= d->rng >> 27;
	return d->rng * 0x2545F4914F6CDD1Dull;
}

/* The op's "initiated_at" (Ceph's "YYYY-MM-DDTHH:MM:SS.ffffff+zone"), for the order of the file. */
static const char *initiated(const char *op)
{
	const char *p = strstr(op, "\"initiated_at\":");

	return p ? p : "";
}

/* One drained op (len bytes of JSON at text) into the reservoir: the
 * first cap kept, then each with probability cap / seen. */
static int keep(struct optracker_drain *d, const char *text, size_t len)
{
	uint64_t at;
	char *copy;

	d->seen++;
	if (d->n_kept < d->cap)
		at = d->n_kept;
	else if ((at = next_rand(d) % d->seen) >= d->cap)
		return 0;
	copy = strndup(text, len);
	if (!copy)
		return -ENOMEM;
	if (at == d->n_kept)
		d->n_kept++;
	else
		free(d->kept[at].json);
	d->kept[at] = (struct drained_op){.json = copy, .key = initiated(copy)};
	return 0;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/*
 * Where the "ops" array's elements start in a dump, when the members before
 * it are scalars alone (a dump's "size" and "duration"): the text before
 * the key holds no backslash, no bracket and no brace but the first, and
 * an even count of quotes, so the key is a member of the document, not
 * text inside a string. NULL for any other layout.
 */
static const char *ops_start(const char *reply, const char *end)
{
	const char *p = skip_blanks(reply, end), *key = strstr(reply, "\"ops\":");
	int quotes = 0;

	if (p == end || *p != '{' || !key)
		return NULL;
	for (p++; p < key; p++) {
		if (*p == '\\' || *p == '[' || *p == ']' || *p == '{' || *p == '}')
			return NULL;
		quotes += *p == '"';
	}
	if (quotes % 2)
		return NULL;
	p = skip_blanks(key + 6, end);
	return p < end && *p == '[' ? p + 1 : NULL;
}

/* One dump through json-c's document: each op written again as text. */
static int dump_ops_doc(struct optracker_drain *d, const char *reply)
{
	json_object *doc = json_tokener_parse(reply), *ops;
	int n = 0, ret = 0;

	if (!doc || !json_object_object_get_ex(doc, "ops", &ops) ||
	    !json_object_is_type(ops, json_type_array)) {
		json_object_put(doc);
		return -EPROTO;
	}
	for (size_t i = 0; i < json_object_array_length(ops) && !ret; i++, n++) {
		const char *text = json_object_to_json_string_ext(json_object_array_get_idx(ops, i),
								  JSON_C_TO_STRING_PLAIN);

		ret = keep(d, text, strlen(text));
	}
	json_object_put(doc);
	return ret ? ret : n;
}

/*
 * Each op is parsed alone by json-c (so each is checked whole) and kept as
 * the daemon wrote it: no document of the whole dump built, no op written
 * again (the two were most of the drain's CPU). A dump of another layout
 * goes through the document.
 */
int optracker_drain_take(struct optracker_drain *d, const char *reply, size_t len)
{
	const char *end = reply + len, *p = ops_start(reply, end);
	int n = 0, ret;

	if (!p)
		return dump_ops_doc(d, reply);
	p = skip_blanks(p, end);
	if (p < end && *p == ']')
		return 0;
	for (;;) {
		json_object *op;
		size_t used;

		if (end - p > INT32_MAX)
			return -EPROTO;
		json_tokener_reset(d->tok);
		op = json_tokener_parse_ex(d->tok, p, (int)(end - p));
		used = json_tokener_get_parse_end(d->tok);
		if (!json_object_is_type(op, json_type_object)) {
			json_object_put(op);
			return -EPROTO;
		}
		json_object_put(op);
		if ((ret = keep(d, p, used)))
			return ret;
		n++;
		p = skip_blanks(p + used, end);
		if (p < end && *p == ',')
			p = skip_blanks(p + 1, end);
		else if (p < end && *p == ']')
			return n;
		else
			return -EPROTO;
	}
}

/* A slice's start: the history, kept at 0 in the gap (so empty), raised again. */
static int start_slice(struct optracker_drain *d)
{
	return corecap_asok_config_set(d->asok, "osd_op_history_size", d->size, true);
}

/*
 * A slice's end: the ops finished in it, then the history's size set to 0
 * for the gap: the next op filed trims the slice's ops, and each op filed
 * in the gap is trimmed as it is filed (one at a time, never formatted).
 * The ops are parsed after, the OSD's lock let go.
 */
static int end_slice(struct optracker_drain *d)
{
	uint64_t t0 = corecap_now_ns(), t1;
	char *reply = NULL;
	size_t len = 0;
	int ret;

	ret = corecap_asok_command(d->asok, OPTRACKER_DUMP_CMD, &reply, &len);
	t1 = corecap_now_ns();
	if (!ret)
		ret = corecap_asok_config_set(d->asok, "osd_op_history_size", "0", true);
	if (t1 - t0 > d->longest_dump_ns)
		d->longest_dump_ns = t1 - t0;
	if (!ret && reply)
		ret = optracker_drain_take(d, reply, len);
	free(reply);
	if (ret > 0)
		d->dumps++;
	return ret;
}

/*
 * The next slice and gap from the OSD's rate (an average over the last
 * slices: the history's filing thread hands ops over in bursts): a slice
 * of about DRAIN_TARGET_OPS ops, and slices a share DRAIN_BUDGET_OPS /
 * rate of the time (all of it below that rate). No op in a slice: the
 * shortest slice and DRAIN_IDLE_GAP, so that a burst after an idle time
 * finds a short slice.
 */
static void adapt(struct optracker_drain *d, int n, uint64_t open_ns)
{
	double rate = open_ns ? n / ((double)open_ns / 1e9) : 0, share;
	uint64_t want;

	if (n <= 0) {
		d->slice_ns = DRAIN_MIN_INTERVAL * 1000000ull;
		d->gap_ns = DRAIN_IDLE_GAP * 1000000ull;
		return;
	}
	d->rate = d->rate > 0 ? 0.5 * d->rate + 0.5 * rate : rate;
	want = (uint64_t)(DRAIN_TARGET_OPS / d->rate * 1e9);
	if (want < DRAIN_MIN_INTERVAL * 1000000ull)
		want = DRAIN_MIN_INTERVAL * 1000000ull;
	if (want > DRAIN_MAX_INTERVAL * 1000000ull)
		want = DRAIN_MAX_INTERVAL * 1000000ull;
	d->slice_ns = want;
	share = d->rate > DRAIN_BUDGET_OPS ? DRAIN_BUDGET_OPS / d->rate : 1;
	d->gap_ns = (uint64_t)((double)want * (1 / share - 1));
}

/* Sleeps until deadline, or until stop is set; whether it was reached. */
static bool wait_until(struct optracker_drain *d, uint64_t deadline)
{
	for (;;) {
		uint64_t now = corecap_now_ns(), nap;
		struct timespec ts;

		if (__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE))
			return false;
		if (now >= deadline)
			return true;
		nap = deadline - now < POLL_NS ? deadline - now : POLL_NS;
		ts = (struct timespec){.tv_sec = (time_t)(nap / 1000000000ull),
				       .tv_nsec = (long)(nap % 1000000000ull)};
		nanosleep(&ts, NULL);
	}
}

static void *drain_main(void *arg)
{
	struct optracker_drain *d = arg;
	bool first = true;

	for (;;) {
		uint64_t begin, end, open_ns;
		bool more;
		int n;

		/* The window's start emptied and raised the history: the first slice runs. */
		if (!first && (n = start_slice(d)) < 0) {
			d->err = n;
			break;
		}
		first = false;
		begin = corecap_now_ns();
		more = wait_until(d, begin + d->slice_ns);
		open_ns = corecap_now_ns() - begin;
		n = end_slice(d);
		end = corecap_now_ns();
		d->sliced_ns += end - begin;
		d->slices++;
		if (n < 0) {
			d->err = n;
			break;
		}
		if (!more)
			break;
		/* The rate over the time the slice was open, its dump left out. */
		adapt(d, n, open_ns);
		if (d->gap_ns && !wait_until(d, end + d->gap_ns))
			break;
	}
	return NULL;
}

int optracker_drain_start(struct optracker_drain *d, const char *asok, size_t cap, const char *size)
{
	int ret;

	*d = (struct optracker_drain){
		.asok = asok,
		.size = size,
		.cap = cap,
		.slice_ns = DRAIN_MIN_INTERVAL * 1000000ull,
		.window_start_ns = corecap_now_ns(),
		.rng = corecap_now_ns() | 1,
	};
	d->kept = calloc(cap, sizeof(*d->kept));
	d->tok = json_tokener_new();
	if (!d->kept || !d->tok) {
		ret = ENOMEM;
		goto out_free;
	}
	ret = pthread_create(&d->thread, NULL, drain_main, d);
	if (ret)
		goto out_free;
	d->running = true;
	return 0;

out_free:
	if (d->tok)
		json_tokener_free(d->tok);
	d->tok = NULL;
	free(d->kept);
	d->kept = NULL;
	return -ret;
}

int optracker_drain_stop(struct optracker_drain *d)
{
	if (!d->running)
		return d->err;
	/* The thread ends the slice it is in (its last dump), or stops in a gap. */
	__atomic_store_n(&d->stop, 1, __ATOMIC_RELEASE);
	pthread_join(d->thread, NULL);
	d->running = false;
	d->window_ns = corecap_now_ns() - d->window_start_ns;
	return d->err;
}

static int by_initiated(const void *a, const void *b)
{
	return strcmp(((const struct drained_op *)a)->key, ((const struct drained_op *)b)->key);
}

int optracker_drain_write(const struct optracker_drain *d,
			  int (*put)(void *ctx, const void *p, size_t n), void *ctx,
			  const char *duration)
{
	char head[768];
	int ret;

	/* Oldest first, as a dump lists them. */
	qsort(d->kept, d->n_kept, sizeof(*d->kept), by_initiated);
	snprintf(head, sizeof(head),
		 "{\"size\": %s, \"duration\": %s, \"corecap_drain\": {\"ops_seen\": %llu, "
		 "\"ops_kept\": %zu, \"slices\": %llu, \"sliced_ms\": %.3f, \"window_ms\": "
		 "%.3f, \"longest_dump_ms\": %.3f, \"target_ops_per_dump\": %d, "
		 "\"budget_ops_per_s\": %d, \"stopped\": %s}, \"ops\": [",
		 d->size, duration && duration[0] ? duration : "0", (unsigned long long)d->seen,
		 d->n_kept, (unsigned long long)d->slices, (double)d->sliced_ns / 1e6,
		 (double)d->window_ns / 1e6, (double)d->longest_dump_ns / 1e6, DRAIN_TARGET_OPS,
		 DRAIN_BUDGET_OPS, d->err ? "true" : "false");
	ret = put(ctx, head, strlen(head));
	for (size_t i = 0; i < d->n_kept && !ret; i++) {
		if (i)
			ret = put(ctx, ",", 1);
		if (!ret)
			ret = put(ctx, d->kept[i].json, strlen(d->kept[i].json));
	}
	if (!ret)
		ret = put(ctx, "]}\n", 3);
	return ret;
}

void optracker_drain_release(struct optracker_drain *d)
{
	if (d->running) {
		__atomic_store_n(&d->stop, 1, __ATOMIC_RELEASE);
		pthread_join(d->thread, NULL);
		d->running = false;
	}
	for (size_t i = 0; i < d->n_kept; i++)
		free(d->kept[i].json);
	free(d->kept);
	d->kept = NULL;
	d->n_kept = 0;
	if (d->tok)
		json_tokener_free(d->tok);
	d->tok = NULL;
}
