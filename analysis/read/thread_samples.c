#include "thread_samples.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threads_tsv.h"

void corecap_thread_samples_init(struct thread_samples *s)
{
	*s = (struct thread_samples){0};
	corecap_u64map_init(&s->by_tid);
}

void corecap_thread_samples_release(struct thread_samples *s)
{
	free(s->threads);
	corecap_u64map_release(&s->by_tid);
	*s = (struct thread_samples){0};
}

static int add_row(struct thread_samples *s, int32_t tid, const char *comm,
		   const struct thread_sample_row *row)
{
	struct sampled_thread *t;
	bool inserted;
	uint64_t *idx = corecap_u64map_upsert(&s->by_tid, (uint64_t)(uint32_t)tid, &inserted);

	if (!idx)
		return -ENOMEM;
	if (inserted) {
		if (s->len == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 32;
			struct sampled_thread *grown = realloc(s->threads, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			s->threads = grown;
			s->cap = cap;
		}
		*idx = s->len;
		t = &s->threads[s->len++];
		*t = (struct sampled_thread){.tid = tid, .first = *row};
	}
	t = &s->threads[*idx];
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->last = *row;
	t->samples++;
	if (!s->first_ns || row->time_ns < s->first_ns)
		s->first_ns = row->time_ns;
	if (row->time_ns > s->last_ns)
		s->last_ns = row->time_ns;
	return 0;
}

struct window {
	struct thread_samples *s;
	uint64_t start_ns, end_ns;
};

static int on_row(void *ctx, const struct threads_tsv_row *r)
{
	struct window *w = ctx;

	if (w->end_ns && (r->time_ns < w->start_ns || r->time_ns > w->end_ns)) {
		w->s->rows_outside_window++;
		return 0;
	}
	return add_row(w->s, r->tid, r->comm,
		       &(struct thread_sample_row){
			       .time_ns = r->time_ns,
			       .cpu_ns = r->cpu_ns,
			       .run_ns = r->run_ns,
			       .wait_ns = r->wait_ns,
			       .cs = r->cs,
		       });
}

int corecap_thread_samples_load(struct thread_samples *s, const char *path, uint64_t start_ns,
				uint64_t end_ns, char **err)
{
	struct window w = {s, start_ns, end_ns};
	struct threads_tsv t = {0};
	int ret = corecap_threads_tsv_read(&t, path, on_row, &w, err);

	s->rows += t.rows;
	s->bad_rows += t.bad_rows;
	s->torn_last_line = t.torn_last_line;
	return ret;
}

bool corecap_sampled_thread_cs(const struct sampled_thread *t, uint64_t *cs)
{
	if (t->first.cs < 0 || t->last.cs < t->first.cs)
		return false;
	*cs = (uint64_t)(t->last.cs - t->first.cs);
	return true;
}

void corecap_sampled_thread_figures(const struct sampled_thread *t, uint64_t *cpu_ns,
				    uint64_t *runq_ns, bool *has_runq, uint64_t *span_ns)
{
	const struct thread_sample_row *a = &t->first, *b = &t->last;
	bool sched = a->run_ns >= 0 && b->run_ns >= 0 && b->run_ns >= a->run_ns;

	*span_ns = b->time_ns - a->time_ns;
	if (sched)
		*cpu_ns = (uint64_t)(b->run_ns - a->run_ns);
	else
		*cpu_ns = b->cpu_ns >= a->cpu_ns ? b->cpu_ns - a->cpu_ns : 0;
	*has_runq = a->wait_ns >= 0 && b->wait_ns >= 0 && b->wait_ns >= a->wait_ns;
	*runq_ns = *has_runq ? (uint64_t)(b->wait_ns - a->wait_ns) : 0;
}
