#include "ceph_disk.h"

#include <string.h>

#include "html_escape.h"
#include "render_common.h"

/* The classes a write's disk time goes to, in the order shown. */
static const unsigned disk_classes[] = {CORECAP_IO_JOURNAL, CORECAP_IO_DATA};
#define N_DISK_CLASSES (sizeof(disk_classes) / sizeof(disk_classes[0]))

static double write_ops(const struct report *r, const char **from)
{
	const struct ceph_perf_counter *w =
		r->ceph && r->ceph->has_perf ? corecap_ceph_files_perf(r->ceph, "op_w") : NULL;
	const struct run_manifest *mf = r->manifest;

	if (w && w->count_delta > 0) {
		*from = "op_w";
		return w->count_delta;
	}
	if (mf && mf->bench.has_ops && mf->bench.ops > 0) {
		*from = "benchmark";
		return mf->bench.ops;
	}
	return 0;
}

static bool class_active(const struct report *r, unsigned c)
{
	return r->shim_io[c].calls || r->shim_io[c].aio_done;
}

bool corecap_ceph_disk_of(const struct report *r, struct ceph_disk *d)
{
	bool any = false;

	memset(d, 0, sizeof(*d));
	if (!r->shim_io || !r->ceph || !(r->ceph->has_perf || r->ceph->has_optracker))
		return false;
	for (size_t i = 0; i < N_DISK_CLASSES; i++)
		any |= class_active(r, disk_classes[i]);
	if (!any)
		return false; /* a memstore OSD: no disk */
	d->ops = write_ops(r, &d->ops_from);
	if (d->ops <= 0)
		return false;
	for (int c = 0; c < CORECAP_IO_CLASSES; c++) {
		const struct shim_io_delta *s = &r->shim_io[c];
		struct ceph_disk_class *k = &d->cls[c];

		k->aio_done = s->aio_done;
		k->sync_calls = s->sync_calls;
		k->aio_us = (double)s->aio_ns / d->ops / 1e3;
		k->sync_us = (double)s->sync_ns / d->ops / 1e3;
		k->io_us = (double)s->ns / d->ops / 1e3;
		k->aio_mean_us = s->aio_done ? (double)s->aio_ns / (double)s->aio_done / 1e3 : 0;
	}
	for (size_t i = 0; r->ceph->has_optracker && i < r->ceph->n_types; i++) {
		const struct ceph_op_type *t = &r->ceph->types[i];

		if (strcmp(t->name, "write") != 0 || !t->count)
			continue;
		for (size_t k = 0; k < t->n_phases; k++)
			if (strcmp(t->phases[k].name, CORECAP_CEPH_JOURNAL_PHASE) == 0) {
				d->has_journal_phase = true;
				d->journal_phase_us =
					(double)t->phases[k].total_ns / (double)t->count / 1e3;
			}
	}
	return true;
}

void corecap_ceph_disk_text(const struct report *r, FILE *out)
{
	struct ceph_disk d;

	if (!corecap_ceph_disk_of(r, &d))
		return;
	fprintf(out,
		"ceph disk  per write op (%.0f %s in the window), the shim's I/O by class: aio "
		"from submission to completion, syncs (fsync, fdatasync, sync_file_range)\n",
		d.ops, d.ops_from);
	for (size_t i = 0; i < N_DISK_CLASSES; i++) {
		unsigned c = disk_classes[i];
		const struct ceph_disk_class *k = &d.cls[c];

		if (!class_active(r, c))
			continue;
		fprintf(out,
			"           %s: aio %.1f us/op (%llu aio, mean %.1f us), sync %.1f us/op "
			"(%llu syncs), calls %.1f us/op\n",
			corecap_io_class_name(c), k->aio_us, (unsigned long long)k->aio_done,
			k->aio_mean_us, k->sync_us, (unsigned long long)k->sync_calls, k->io_us);
	}
	if (d.has_journal_phase)
		fprintf(out,
			"           journal write (FileStore's phase %s): %.1f us per write op\n",
			CORECAP_CEPH_JOURNAL_PHASE, d.journal_phase_us);
	for (size_t i = 0; i < r->ceph->n_perf; i++) {
		const struct ceph_perf_counter *p = &r->ceph->perf[i];

		if (!p->is_avg || p->count_delta <= 0 || !strchr(p->name, '.'))
			continue;
		fprintf(out, "           %s: %.0f, avg %.1f us\n", p->name, p->count_delta,
			p->sum_s_delta / p->count_delta * 1e6);
	}
}

static json_object *num(double v, int decimals)
{
	return corecap_render_json_num(v, decimals);
}

static json_object *disk_obj(const struct report *r)
{
	struct ceph_disk d;
	json_object *o, *classes;

	if (!corecap_ceph_disk_of(r, &d))
		return NULL;
	o = json_object_new_object();
	classes = json_object_new_object();
	json_object_object_add(o, "write_ops", json_object_new_int64((int64_t)d.ops));
	json_object_object_add(o, "ops_from", json_object_new_string(d.ops_from));
	for (size_t i = 0; i < N_DISK_CLASSES; i++) {
		unsigned c = disk_classes[i];
		const struct ceph_disk_class *k = &d.cls[c];
		json_object *co = json_object_new_object();

		json_object_object_add(co, "aio_done", json_object_new_uint64(k->aio_done));
		json_object_object_add(co, "aio_us_per_op", num(k->aio_us, 3));
		json_object_object_add(co, "aio_mean_us", num(k->aio_mean_us, 3));
		json_object_object_add(co, "sync_calls", json_object_new_uint64(k->sync_calls));
		json_object_object_add(co, "sync_us_per_op", num(k->sync_us, 3));
		json_object_object_add(co, "io_us_per_op", num(k->io_us, 3));
		json_object_object_add(classes, corecap_io_class_name(c), co);
	}
	json_object_object_add(o, "classes", classes);
	json_object_object_add(o, "journal_phase_us",
			       d.has_journal_phase ? num(d.journal_phase_us, 3) : NULL);
	return o;
}

void corecap_ceph_disk_json_put(const struct report *r, json_object *root)
{
	json_object *ceph;

	if (json_object_object_get_ex(root, "ceph", &ceph) && ceph)
		json_object_object_add(ceph, "disk", disk_obj(r));
}

void corecap_ceph_disk_html(const struct report *r, FILE *out)
{
	struct ceph_disk d;

	if (!corecap_ceph_disk_of(r, &d))
		return;
	fprintf(out, "<h2>Disk I/O per write op (%.0f ", d.ops);
	corecap_html_escape(out, d.ops_from, 0);
	fprintf(out, " in the window; the shim's counters by class)</h2>\n<table "
		     "class=\"sortable\">\n<tr><th>class</th><th>aio us/op</th><th>aio</th><th>aio "
		     "mean us</th><th>sync us/op</th><th>syncs</th><th>calls us/op</th></tr>\n");
	for (size_t i = 0; i < N_DISK_CLASSES; i++) {
		unsigned c = disk_classes[i];
		const struct ceph_disk_class *k = &d.cls[c];

		fprintf(out,
			"<tr><td>%s</td><td>%.1f</td><td>%llu</td><td>%.1f</td><td>%.1f</td>"
			"<td>%llu</td><td>%.1f</td></tr>\n",
			corecap_io_class_name(c), k->aio_us, (unsigned long long)k->aio_done,
			k->aio_mean_us, k->sync_us, (unsigned long long)k->sync_calls, k->io_us);
	}
	fprintf(out, "</table>\n");
	if (d.has_journal_phase)
		fprintf(out, "<p>FileStore's journal write (phase %s): %.1f us per write op.</p>\n",
			CORECAP_CEPH_JOURNAL_PHASE, d.journal_phase_us);
}
