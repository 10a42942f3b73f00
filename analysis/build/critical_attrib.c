#include "critical_attrib.h"

#include <errno.h>
#include <string.h>

#include <corecap/diag.h>

/* The records up to time t into the critical path: the cursor's order is
 * the critical path's (set_records is not used: the records stream, pulled
 * by the critical path itself before each event, op mark and pick). */
static int feed_until(void *ctx, uint64_t t)
{
	struct critical_attrib *a = ctx;
	int ret;

	while (a->next && a->next->time_ns <= t) {
		if ((ret = corecap_critical_path_krec(&a->cp, a->next)) ||
		    (a->on_krec && (ret = a->on_krec(a->krec_ctx, a->next))))
			return ret;
		if ((ret = corecap_kernel_cursor_next(&a->cur, &a->next)) < 0)
			return ret;
		if (!ret) {
			a->next = NULL;
			a->fed_all = true;
		}
	}
	return 0;
}

int corecap_critical_attrib_open(struct critical_attrib *a, const char *run_dir, uint64_t ws,
				 uint64_t we, int32_t pid,
				 bool (*site_is_logging)(void *, uint64_t), void *classify_ctx,
				 char **err)
{
	int ret;

	*a = (struct critical_attrib){0};
	corecap_kernel_reader_init(&a->k);
	ret = corecap_kernel_reader_load(&a->k, run_dir, ws, we, err);
	if (ret) {
		corecap_kernel_reader_release(&a->k);
		return ret == -ENOENT ? 1 : ret;
	}
	a->loaded = true;
	if ((ret = corecap_critical_path_init(&a->cp, pid, a->k.hdr.nr_cpus))) {
		corecap_critical_attrib_release(a);
		return ret;
	}
	a->cp.ws = ws;
	a->cp.we = we;
	a->cp.site_is_logging = site_is_logging;
	a->cp.classify_ctx = classify_ctx;
	if ((ret = corecap_kernel_cursor_open(&a->cur, &a->k)) == 0) {
		a->streaming = true;
		ret = corecap_kernel_cursor_next(&a->cur, &a->next);
	}
	if (ret < 0) {
		corecap_critical_attrib_release(a);
		return corecap_err(err, ret, "cannot read '%s/%s': %s", run_dir,
				   CORECAP_KERNEL_EVENTS_FILE, strerror(-ret));
	}
	if (!ret) {
		a->next = NULL;
		a->fed_all = true;
	}
	a->cp.pull = feed_until;
	a->cp.pull_ctx = a;
	return 0;
}

int corecap_critical_attrib_event(struct critical_attrib *a, const struct model_event *ev)
{
	int ret;

	if (a->ceph && (ret = corecap_ceph_critical_feed(a->ceph, ev->ts_ns)))
		return ret;
	return corecap_critical_path_event(&a->cp, ev);
}

int corecap_critical_attrib_tap(void *ctx, const struct model_event *ev)
{
	return corecap_critical_attrib_event(ctx, ev);
}

int corecap_critical_attrib_op_end(void *ctx, uint64_t id, uint32_t type, int32_t tid,
				   uint64_t end_ns, bool exclude)
{
	struct critical_attrib *a = ctx;

	return corecap_critical_path_op_end(&a->cp, id, type, tid, end_ns, exclude);
}

int corecap_critical_attrib_finish(struct critical_attrib *a)
{
	int ret;

	if (a->ceph && (ret = corecap_ceph_critical_finish(a->ceph)))
		return ret;
	return corecap_critical_path_finish(&a->cp);
}

void corecap_critical_attrib_drop_records(struct critical_attrib *a)
{
	if (a->streaming)
		corecap_kernel_cursor_close(&a->cur);
	a->streaming = false;
	a->next = NULL;
	if (a->loaded)
		corecap_kernel_reader_release(&a->k);
	a->loaded = false;
}

void corecap_critical_attrib_release(struct critical_attrib *a)
{
	corecap_critical_attrib_drop_records(a);
	corecap_critical_path_release(&a->cp);
}
