#include "kernel_states.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

const char *corecap_kstate_name(enum kstate s)
{
	static const char *const names[] = {"running", "runnable", "futex", "blocked"};

	return s < KSTATE__COUNT ? names[s] : "?";
}

/* th's figures, made when first needed (the index is sched's). */
static struct kstate_thread *figures(struct kernel_states *k, const struct sched_thread *th)
{
	struct kstate_thread *f;

	if (th->index >= k->len) {
		size_t n = (size_t)th->index + 1;

		if (corecap_grow((void **)&k->all, &k->cap, n, sizeof(*k->all)))
			return NULL;
		memset(k->all + k->len, 0, (n - k->len) * sizeof(*k->all));
		k->len = n;
	}
	if (!(f = k->all[th->index])) {
		if (!(f = calloc(1, sizeof(*f))))
			return NULL;
		f->tid = th->tid;
		k->all[th->index] = f;
	}
	return f;
}

static void on_stretch(void *ctx, const struct sched_thread *th, enum sched_state s,
		       uint64_t from_ns, uint64_t to_ns)
{
	struct kernel_states *k = ctx;
	struct kstate_thread *f = figures(k, th);

	if (!f)
		k->oom = true;
	else
		k->on_slice(k->slice_ctx, f, (enum kstate)s, from_ns, to_ns);
}

void corecap_kernel_states_on_slice(struct kernel_states *k,
				    void (*fn)(void *ctx, const struct kstate_thread *th,
					       enum kstate s, uint64_t from_ns, uint64_t to_ns),
				    void *ctx)
{
	k->on_slice = fn;
	k->slice_ctx = ctx;
	k->s->on_stretch = on_stretch;
	k->s->stretch_ctx = k;
}

void corecap_kernel_states_init_on(struct kernel_states *k, struct sched *s)
{
	*k = (struct kernel_states){.s = s};
}

int corecap_kernel_states_init(struct kernel_states *k, uint64_t ws, uint64_t we)
{
	*k = (struct kernel_states){0};
	corecap_sched_init(&k->own, ws, we);
	k->s = &k->own;
	k->feeds = true;
	return 0;
}

void corecap_kernel_states_release(struct kernel_states *k)
{
	if (!k->feeds && k->s && k->s->stretch_ctx == k) {
		k->s->on_stretch = NULL; /* s outlives this model */
		k->s->stretch_ctx = NULL;
	}
	for (size_t i = 0; i < k->len; i++)
		free(k->all[i]);
	free(k->all);
	if (k->feeds)
		corecap_sched_release(&k->own);
	*k = (struct kernel_states){0};
}

int corecap_kernel_states_finish(struct kernel_states *k)
{
	struct sched *s = k->s;

	corecap_sched_finish(s);
	for (size_t i = 0; i < s->len; i++) {
		const struct sched_thread *th = s->all[i];
		struct kstate_thread *f = figures(k, th);

		if (!f)
			return -ENOMEM;
		memcpy(f->comm, th->comm, sizeof(f->comm));
		memcpy(f->ns, th->ns, sizeof(f->ns));
		f->start_ns = th->start_ns;
		f->end_ns = th->end_ns;
		f->exited = th->exited;
	}
	return k->oom ? -ENOMEM : 0;
}
