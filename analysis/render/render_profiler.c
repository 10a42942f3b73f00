#include "render_profiler.h"

#include "render_common.h"

/* The collector's CPU as the manifest records it; < 0: not recorded. */
static double collector_cpu_s(const struct report *r)
{
	return r->manifest && r->manifest->has_collector_cpu ? r->manifest->collector_cpu_s : -1;
}

static void cost_of(const struct report *r, struct profiler_cost *c)
{
	corecap_profiler_cost(r->profiler, corecap_model_window_ns(r->model), collector_cpu_s(r),
			      c);
}

/* The one sentence, the same words in text and HTML. */
static void sentence(const struct report *r, const struct profiler_cost *c, FILE *out)
{
	if (c->cpu_cores >= 0)
		fprintf(out,
			"corecap's own cost: %.2f cores (its %zu thread%s in the daemon %.2f, "
			"the collector %.2f over its whole run)",
			c->cpu_cores, c->n_threads, c->n_threads == 1 ? "" : "s", c->threads_cores,
			c->collector_cores);
	else
		fprintf(out,
			"corecap's own cost: cores not measured (its %zu thread%s in the daemon "
			"%.2f, the collector's CPU not recorded in this run)",
			c->n_threads, c->n_threads == 1 ? "" : "s", c->threads_cores);
	if (c->runq_us_per_op >= 0)
		fprintf(out,
			"; %.1f us per op of run-queue wait behind its threads on the ops' "
			"critical paths",
			c->runq_us_per_op);
	else
		fprintf(out, "; its run-queue wait on the ops' critical paths not measured "
			     "(no kernel events or no ops)");
	if (r->profiler->keep)
		fprintf(out, "; kept in the tables (--keep-profiler)");
	else
		fprintf(out, "; its threads, locks and wakes are left out of the tables "
			     "(--keep-profiler shows them)");
}

void corecap_render_profiler_text(const struct report *r, FILE *out)
{
	struct profiler_cost c;

	if (!r->profiler)
		return;
	cost_of(r, &c);
	fprintf(out, "profiler   ");
	sentence(r, &c, out);
	fprintf(out, "\n\n");
}

static json_object *num_or_null(double v, int decimals)
{
	return v < 0 ? NULL : corecap_render_json_num(v, decimals);
}

json_object *corecap_render_profiler_json(const struct report *r)
{
	const struct thread_table *t;
	struct profiler_cost c;
	json_object *o, *threads;

	if (!r->profiler)
		return NULL;
	t = &r->profiler->threads;
	cost_of(r, &c);
	o = json_object_new_object();
	threads = json_object_new_array();
	json_object_object_add(o, "cpu_cores", num_or_null(c.cpu_cores, 3));
	json_object_object_add(o, "threads_cpu_cores", num_or_null(c.threads_cores, 3));
	json_object_object_add(o, "collector_cpu_cores", num_or_null(c.collector_cores, 3));
	json_object_object_add(o, "runqueue_us_per_op", num_or_null(c.runq_us_per_op, 3));
	json_object_object_add(o, "kept", json_object_new_boolean(r->profiler->keep));
	json_object_object_add(o, "locks_cut", json_object_new_uint64(r->profiler->locks_cut));
	json_object_object_add(o, "holders_cut", json_object_new_uint64(r->profiler->holders_cut));
	for (size_t i = 0; i < t->len; i++) {
		const struct model_thread *th = t->all[i];
		json_object *e = json_object_new_object();

		json_object_object_add(e, "tid", json_object_new_int(th->tid));
		json_object_object_add(e, "name", json_object_new_string(th->name));
		json_object_object_add(
			e, "cpu_ns",
			json_object_new_uint64(th->has_kstates ? th->k_running_ns : th->cpu_ns));
		json_object_array_add(threads, e);
	}
	json_object_object_add(o, "threads", threads);
	return o;
}

void corecap_render_profiler_html(const struct report *r, FILE *out)
{
	struct profiler_cost c;

	if (!r->profiler)
		return;
	cost_of(r, &c);
	/* The sentence holds no text from the run: nothing to escape. */
	fprintf(out, "<p id=\"profiler\"><b>Profiler</b>: ");
	sentence(r, &c, out);
	fprintf(out, ".</p>\n");
}
