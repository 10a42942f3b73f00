#include "render_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int corecap_render_lock_rows(const struct report *r, enum lock_source source,
			     struct lock_rows *rows)
{
	return corecap_lock_rows_build(
		rows, source == LOCK_SOURCE_FUTEX ? &r->model->futex_locks : &r->model->locks,
		r->lock_sort, r->model->src.trace);
}

static int cmp_thread(const void *a, const void *b, void *window)
{
	const struct model_thread *x = *(const struct model_thread *const *)a;
	const struct model_thread *y = *(const struct model_thread *const *)b;
	uint64_t w = *(const uint64_t *)window;
	/* Most running first (the diagnosis' utilization), then most waiting for a CPU. */
	double rx = corecap_thread_cpu_util(x, w), ry = corecap_thread_cpu_util(y, w);
	double bx = corecap_thread_busy_util(x, w), by = corecap_thread_busy_util(y, w);

	if (rx != ry)
		return rx > ry ? -1 : 1;
	if (bx != by)
		return bx > by ? -1 : 1;
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

const char *corecap_render_lock_object(const struct report *r, const struct lock_row *row)
{
	if (!r->object_name || !row->site || !corecap_lock_row_nameless(row))
		return NULL;
	return r->object_name(r->frame_ctx, row->site->site);
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

void corecap_render_bench_line(const struct run_manifest *mf, FILE *out)
{
	size_t n = json_object_array_length(mf->bench_command);

	fprintf(out, "benchmark ");
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %s",
			json_object_get_string(json_object_array_get_idx(mf->bench_command, i)));
	if (mf->bench_exit_status >= 0)
		fprintf(out, " (exit %d)", mf->bench_exit_status);
	fprintf(out, "\n");
}

json_object *corecap_render_json_runs_head(const char *format, const char *run_dir,
					   const struct run_manifest *mf, double window_s)
{
	json_object *root = json_object_new_object(), *bench = json_object_new_object();
	json_object *w = json_object_new_object();

	json_object_object_add(root, "format", json_object_new_string(format));
	json_object_object_add(root, "version", json_object_new_int(1));
	json_object_object_add(root, "run", json_object_new_string(run_dir));
	json_object_object_add(root, "partial", json_object_new_boolean(mf->partial));
	json_object_object_add(root, "partial_reason",
			       mf->partial && mf->partial_reason
				       ? json_object_new_string(mf->partial_reason)
				       : NULL);
	json_object_object_add(w, "duration_s",
			       window_s < 0 ? NULL : corecap_render_json_num(window_s, 6));
	json_object_object_add(root, "window", w);
	json_object_object_add(bench, "command",
			       mf->bench_command ? json_object_get(mf->bench_command) : NULL);
	json_object_object_add(
		bench, "exit_status",
		mf->bench_exit_status >= 0 ? json_object_new_int(mf->bench_exit_status) : NULL);
	json_object_object_add(bench, "summary", mf->summary ? json_object_get(mf->summary) : NULL);
	json_object_object_add(root, "benchmark", bench);
	return root;
}

int corecap_render_json_out(json_object *root, int ret, FILE *out)
{
	const char *text = ret ? NULL
			       : json_object_to_json_string_ext(
					 root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!ret && (!text || fprintf(out, "%s\n", text) < 0))
		ret = -EIO;
	json_object_put(root);
	return ret;
}
