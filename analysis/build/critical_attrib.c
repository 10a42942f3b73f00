#include "critical_attrib.h"

#include <errno.h>
#include <string.h>

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
	corecap_critical_path_set_records(&a->cp, a->k.recs, a->k.n_recs);
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
	corecap_critical_path_set_records(&a->cp, NULL, 0);
	if (a->loaded)
		corecap_kernel_reader_release(&a->k);
	a->loaded = false;
}

void corecap_critical_attrib_release(struct critical_attrib *a)
{
	corecap_critical_attrib_drop_records(a);
	corecap_critical_path_release(&a->cp);
}
