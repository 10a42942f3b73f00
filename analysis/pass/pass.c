#include "pass.h"

#include <errno.h>
#include <string.h>

void corecap_pass_init(struct pass *p)
{
	*p = (struct pass){.due_ns = UINT64_MAX};
	p->fed_all = true; /* no records yet */
}

int corecap_pass_add(struct pass *p, const struct pass_consumer *c)
{
	if (p->n == PASS_MAX_CONSUMERS)
		return -E2BIG;
	p->c[p->n++] = *c;
	if (c->on_event) {
		p->ev[p->n_ev].fn = c->on_event;
		p->ev[p->n_ev++].ctx = c->ctx;
	}
	if (c->on_krec) {
		p->kr[p->n_kr].fn = c->on_krec;
		p->kr[p->n_kr++].ctx = c->ctx;
	}
	return 0;
}

/* The cursor's next record into p->next (NULL, every record fed: none). */
static int advance(struct pass *p)
{
	int ret = corecap_kernel_cursor_next(&p->cur, &p->next);

	if (ret < 0)
		return ret;
	if (!ret) {
		p->next = NULL;
		p->fed_all = true;
	}
	return 0;
}

/* When the next event must stop for the merge (until): see due_ns. */
static void set_due(struct pass *p)
{
	p->due_ns = p->marks.next_ns ? 0 : p->next ? p->next->time_ns : UINT64_MAX;
}

int corecap_pass_records(struct pass *p, const struct kernel_reader *k)
{
	int ret = corecap_kernel_cursor_open(&p->cur, k);

	if (ret)
		return ret;
	p->streaming = true;
	p->fed_all = false;
	ret = advance(p);
	set_due(p);
	return ret;
}

void corecap_pass_marks(struct pass *p, const struct pass_marks *m)
{
	p->marks = *m;
	set_due(p);
}

void corecap_pass_ops_of(struct pass *p, const struct model *m)
{
	p->ops_of = m;
}

/* The next record to every on_krec, in the table's order. */
static inline __attribute__((always_inline)) int feed_krec(struct pass *p)
{
	int ret;

	for (size_t i = 0; i < p->n_kr; i++)
		if ((ret = p->kr[i].fn(p->kr[i].ctx, p->next)))
			return ret;
	return advance(p);
}

/* The merge: records and marks up to and including t, in time order, a
 * record before a mark of the same time. */
int corecap_pass_until(struct pass *p, uint64_t t)
{
	int ret;

	if (!p->marks.next_ns) { /* the records alone */
		while (p->next && p->next->time_ns <= t)
			if ((ret = feed_krec(p)))
				return ret;
		set_due(p);
		return 0;
	}
	for (;;) {
		uint64_t m = p->marks.next_ns(p->marks.ctx);
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

int corecap_pass_op_end(struct pass *p, const struct model_op_end *e)
{
	int ret;

	for (size_t i = 0; i < p->n; i++)
		if (p->c[i].on_op_end && (ret = p->c[i].on_op_end(p->c[i].ctx, e)))
			return ret;
	return 0;
}

int corecap_pass_consume(void *p, const struct model_event *ev)
{
	return corecap_pass_event(p, ev);
}

int corecap_pass_finish(struct pass *p)
{
	int ret = corecap_pass_until(p, UINT64_MAX);

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
