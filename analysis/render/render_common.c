#include "render_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_lock(const void *a, const void *b)
{
	const struct model_lock *x = *(const struct model_lock *const *)a;
	const struct model_lock *y = *(const struct model_lock *const *)b;
	uint64_t hx = corecap_lock_hold_ns(x), hy = corecap_lock_hold_ns(y);

	if (hx != hy)
		return hx > hy ? -1 : 1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_busy(const void *a, const void *b)
{
	const struct model_lock *x = *(const struct model_lock *const *)a;
	const struct model_lock *y = *(const struct model_lock *const *)b;
	uint64_t bx = corecap_lock_busy_ns(x), by = corecap_lock_busy_ns(y);
	bool cx = x->kind == LOCK_KIND_FUTEX_WAIT_BITSET,
	     cy = y->kind == LOCK_KIND_FUTEX_WAIT_BITSET;

	/* Mutexes' words first: a condition variable's waiters are idle, not queued. */
	if (cx != cy)
		return cx ? 1 : -1;
	if (bx != by)
		return bx > by ? -1 : 1;
	return cmp_lock(a, b);
}

size_t corecap_render_sorted_locks_from(const struct report *r, enum lock_source source,
					const struct model_lock ***out)
{
	const struct lock_table *t =
		source == LOCK_SOURCE_FUTEX ? &r->model->futex_locks : &r->model->locks;

	*out = malloc((t->len ? t->len : 1) * sizeof(**out));
	if (!*out)
		return 0;
	for (size_t i = 0; i < t->len; i++)
		(*out)[i] = t->all[i];
	qsort(*out, t->len, sizeof(**out), source == LOCK_SOURCE_FUTEX ? cmp_busy : cmp_lock);
	return t->len;
}

size_t corecap_render_sorted_locks(const struct report *r, const struct model_lock ***out)
{
	const struct model_lock **shim, **futex, **all;
	size_t n = corecap_render_sorted_locks_from(r, LOCK_SOURCE_SHIM, &shim),
	       m = corecap_render_sorted_locks_from(r, LOCK_SOURCE_FUTEX, &futex);

	all = shim && futex ? malloc((n + m ? n + m : 1) * sizeof(*all)) : NULL;
	if (all) {
		memcpy(all, shim, n * sizeof(*all));
		memcpy(all + n, futex, m * sizeof(*all));
	}
	free(shim);
	free(futex);
	*out = all;
	return all ? n + m : 0;
}

static int cmp_thread(const void *a, const void *b, void *window)
{
	const struct model_thread *x = *(const struct model_thread *const *)a;
	const struct model_thread *y = *(const struct model_thread *const *)b;
	uint64_t w = *(const uint64_t *)window;
	double bx = corecap_thread_busy_util(x, w), by = corecap_thread_busy_util(y, w);

	if (bx != by)
		return bx > by ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

size_t corecap_render_sorted_threads(const struct report *r, const struct model_thread ***out)
{
	const struct thread_table *t = &r->model->threads;
	uint64_t w = corecap_model_window_ns(r->model);

	*out = malloc((t->len ? t->len : 1) * sizeof(**out));
	if (!*out)
		return 0;
	for (size_t i = 0; i < t->len; i++)
		(*out)[i] = t->all[i];
	qsort_r(*out, t->len, sizeof(**out), cmp_thread, &w);
	return t->len;
}

size_t corecap_render_frame_sources(const struct report *r, uint64_t addr, struct report_frame *out,
				    size_t max)
{
	return r->frame_sources ? r->frame_sources(r->frame_ctx, addr, out, max) : 0;
}

const char *corecap_render_frame_name(const struct report *r, uint64_t addr)
{
	static char buf[24];

	if (r->frame_name)
		return r->frame_name(r->frame_ctx, addr);
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	return buf;
}

/* A number printed with at most `decimals` decimals, trailing zeros dropped. */
json_object *corecap_render_json_num(double v, int decimals)
{
	char buf[64];
	size_t n;

	if (!isfinite(v))
		return NULL;
	n = (size_t)snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	if (decimals > 0 && n < sizeof(buf)) {
		while (n > 1 && buf[n - 1] == '0')
			buf[--n] = '\0';
		if (buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		strcpy(buf, "0");
	return json_object_new_double_s(strtod(buf, NULL), buf);
}
