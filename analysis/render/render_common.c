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

size_t corecap_render_sorted_locks(const struct report *r, const struct model_lock ***out)
{
	const struct lock_table *t = &r->model->locks;

	*out = malloc((t->len ? t->len : 1) * sizeof(**out));
	if (!*out)
		return 0;
	for (size_t i = 0; i < t->len; i++)
		(*out)[i] = t->all[i];
	qsort(*out, t->len, sizeof(**out), cmp_lock);
	return t->len;
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
