#include "pass.h"

#include <errno.h>
#include <string.h>

void corecap_pass_init(struct pass *p)
{
	*p = (struct pass){0};
	p->fed_all = true; /* no records yet */
}

int corecap_pass_add(struct pass *p, const struct pass_consumer *c)
{
	if (p->n == PASS_MAX_CONSUMERS)
		return -E2BIG;
	p->c[p->n++] = *c;
	return 0;
}

int corecap_pass_records(struct pass *p, const struct kernel_reader *k)
{
	int ret = corecap_kernel_cursor_open(&p->cur, k);

	if (ret)
		return ret;
	p->streaming = true;
	p->fed_all = false;
	if ((ret = corecap_kernel_cursor_next(&p->cur, &p->next)) < 0)
		return ret;
	if (!ret) {
		p->next = NULL;
		p->fed_all = true;
	}
	return 0;
}

void corecap_pass_marks(struct pass *p, const struct pass_marks *m)
{
	p->marks = *m;
}

/* The next record to every on_krec, in the table's order. */
static int feed_krec(struct pass *p)
{
	int ret;

	for (size_t i = 0; i < p->n; i++)
		if (p->c[i].on_krec && (ret = p->c[i].on_krec(p->c[i].ctx, p->next)))
			return ret;
	if ((ret = corecap_kernel_cursor_next(&p->cur, &p->next)) < 0)
		return ret;
	if (!ret) {
		p->next = NULL;
		p->fed_all = true;
	}
	return 0;
}

/* The merge: records and marks up to and including t, in time order, a
 * record before a mark of the same time. */
static int until(struct pass *p, uint64_t t)
{
	int ret;

	for (;;) {
		uint64_t m = p->marks.next_ns ? p->marks.next_ns(p->marks.ctx) : UINT64_MAX;
		bool rec = p->next && p->next->time_ns <= t && p->next->time_ns <= m;

		if (rec) {
			if ((ret = feed_krec(p)))
				return ret;
		} else if (m <= t && m != UINT64_MAX) {
			if ((ret = p->marks.take(p->marks.ctx)))
				return ret;
		} else if (p->next && p->next->time_ns <= t) {
			if ((ret = feed_krec(p)))
				return ret;
		} else {
			return 0;
		}
	}
}

int corecap_pass_post_op_end(struct pass *p, const struct model_op_end *e)
{
	if (p->n_ended == PASS_MAX_OP_ENDS)
		return -ENOBUFS;
	p->ended[p->n_ended++] = *e;
	return 0;
}

int corecap_pass_event(struct pass *p, const struct model_event *ev)
{
	int ret;

	if ((ret = until(p, ev->ts_ns)))
		return ret;
	p->n_ended = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->c[i].on_event && (ret = p->c[i].on_event(p->c[i].ctx, ev)))
			return ret;
	for (size_t e = 0; e < p->n_ended; e++)
		for (size_t i = 0; i < p->n; i++)
			if (p->c[i].on_op_end &&
			    (ret = p->c[i].on_op_end(p->c[i].ctx, &p->ended[e])))
				return ret;
	p->n_ended = 0;
	return 0;
}

int corecap_pass_consume(void *p, const struct model_event *ev)
{
	return corecap_pass_event(p, ev);
}

int corecap_pass_finish(struct pass *p)
{
	int ret = until(p, UINT64_MAX);

	for (size_t i = 0; !ret && i < p->n; i++)
		if (p->c[i].finish)
			ret = p->c[i].finish(p->c[i].ctx);
	return ret;
}

void corecap_pass_release(struct pass *p)
{
	if (p->streaming)
		corecap_kernel_cursor_close(&p->cur);
	p->streaming = false;
	p->next = NULL;
}

int corecap_pass_run_records(const struct kernel_reader *k, const struct pass_consumer *rows,
			     size_t n)
{
	struct pass p;
	int ret = 0;

	corecap_pass_init(&p);
	for (size_t i = 0; i < n && !ret; i++)
		ret = corecap_pass_add(&p, &rows[i]);
	if (!ret && !(ret = corecap_pass_records(&p, k)))
		ret = corecap_pass_finish(&p);
	corecap_pass_release(&p);
	return ret;
}
