#include "scale_render.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

static const char *diag_words(const char *kind)
{
	if (strcmp(kind, "lock") == 0)
		return "the lock";
	if (strcmp(kind, "thread") == 0)
		return "the thread";
	if (strcmp(kind, "pool") == 0)
		return "the pool";
	if (strcmp(kind, "cores") == 0)
		return "the cores";
	if (strcmp(kind, "closed_loop") == 0)
		return "the closed loop (one op in flight)";
	return "nothing measured as saturated";
}

/* What the diagnosis of the largest run names, in words, into buf. */
static void serial_beside(const struct scale_view *v, char *buf, size_t size)
{
	int l = v->largest;

	if (l < 0) {
		snprintf(buf, size, "no point was measured");
		return;
	}
	if (v->pt[l].diag_running >= 0)
		snprintf(buf, size, "the diagnosis of the %g-core run names %s%s%s (busy %.0f%%)",
			 v->pt[l].cores, diag_words(v->pt[l].diag_kind),
			 v->pt[l].diag_name[0] ? " " : "", v->pt[l].diag_name,
			 100 * v->pt[l].diag_running);
	else
		snprintf(buf, size, "the diagnosis of the %g-core run names %s%s%s", v->pt[l].cores,
			 diag_words(v->pt[l].diag_kind), v->pt[l].diag_name[0] ? " " : "",
			 v->pt[l].diag_name);
}

/* CPU per op at the largest point over the smallest; 0 unknown. */
static double cpu_growth(const struct scale_view *v)
{
	int l = v->largest, s = v->smallest;

	if (l < 0 || s < 0 || l == s || v->pt[s].cpu_s_per_op <= 0 || v->pt[l].cpu_s_per_op <= 0)
		return 0;
	return v->pt[l].cpu_s_per_op / v->pt[s].cpu_s_per_op;
}

static void text_points(const struct scale_view *v, FILE *out)
{
	fprintf(out, "  %-6s %-8s %-6s %10s %12s %8s %8s %8s  %s\n", "cores", "CPUs", "quota",
		"ops/s", "CPU/op (us)", "daemon", "client", "others", "note");
	for (size_t i = 0; i < v->n; i++) {
		char quota[16] = "-", note[400] = "";

		if (v->pt[i].quota_cpus > 0)
			snprintf(quota, sizeof(quota), "%g", v->pt[i].quota_cpus);
		if (v->pt[i].resets)
			snprintf(note, sizeof(note),
				 "MARKED: %d thread(s) reset their own affinity (tid %d)",
				 v->pt[i].resets, v->pt[i].reset_tids[0]);
		if (!v->pt[i].measured)
			snprintf(note + strlen(note), sizeof(note) - strlen(note), "%s%s",
				 note[0] ? "; " : "", v->pt[i].why_not);
		if (!v->pt[i].measured) {
			fprintf(out, "  %-6g %-8s %-6s %10s %12s %8s %8s %8s  %s\n", v->pt[i].cores,
				v->pt[i].cpus, quota, "-", "-", "-", "-", "-", note);
			continue;
		}
		fprintf(out, "  %-6g %-8s %-6s %10.0f %12.1f %8.2f ", v->pt[i].cores, v->pt[i].cpus,
			quota, v->pt[i].iops, v->pt[i].cpu_s_per_op * 1e6, v->pt[i].daemon_cores);
		if (v->pt[i].bench_cores >= 0)
			fprintf(out, "%8.2f ", v->pt[i].bench_cores);
		else
			fprintf(out, "%8s ", "?");
		if (v->pt[i].other_cores >= 0)
			fprintf(out, "%8.2f  %s\n", v->pt[i].other_cores, note);
		else
			fprintf(out, "%8s  %s\n", "?", note);
	}
}

int scale_render_text(const struct scale_view *v, FILE *out)
{
	const struct scaling_fit *f = &v->fit;
	char beside[CORECAP_LOCK_LABEL_MAX + 128];
	double g = cpu_growth(v);

	fprintf(out, "corecap scale: %s (pid %d) on CPUs %s of %d, %zu point%s in %s\n",
		v->comm[0] ? v->comm : "?", v->pid, v->daemon_cpus, v->machine_cpus, v->n,
		v->n == 1 ? "" : "s", v->dir);
	if (v->benchmark[0])
		fprintf(out, "benchmark: %s\n", v->benchmark);
	if (v->prepare[0])
		fprintf(out, "prepare: %s (before each point's window, the daemon on its CPUs)\n",
			v->prepare);
	if (v->n)
		fprintf(out,
			"client: the benchmark (and each point's recorder) ran on CPUs %s (%s)%s\n",
			v->pt[0].client_cpus,
			v->client_set[0] ? "--client-cpus" : "not set: corecap's own CPUs",
			v->pt[v->n - 1].client_shared
				? ", sharing CPUs with the daemon: its CPU is in the points"
				: "");
	fputs("\npoints (ops/s and CPU per op from each point's run; daemon, client and other "
	      "processes in cores):\n",
	      out);
	text_points(v, out);
	fputs("\nfit: Universal Scalability Law, X(N) = lambda N / (1 + sigma (N-1) + kappa N "
	      "(N-1))\n",
	      out);
	if (!f->valid) {
		fprintf(out, "  no fit: %s\n", f->why_not);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "  lambda %.0f ops/s (one core)", f->lambda);
	if (f->has_interval)
		fprintf(out, ", 95%% interval %.0f-%.0f", f->lambda_lo, f->lambda_hi);
	serial_beside(v, beside, sizeof(beside));
	fprintf(out, "\n  sigma (contention, the serial share) %.3f", f->sigma);
	if (f->has_interval)
		fprintf(out, " [%.3f-%.3f%s]", f->sigma_lo, f->sigma_hi,
			f->sigma_hi >= SCALING_SIGMA_MAX ? ", the search's bound: unconstrained"
							 : "");
	fprintf(out, "%s; beside it: %s\n",
		f->sigma >= 0.5	  ? ": mostly serial"
		: f->sigma >= 0.1 ? ": partly serial"
				  : "",
		beside);
	/* A serial term with no serial resource named: who else ran on the daemon's CPUs. */
	if (f->sigma >= 0.5 && v->largest >= 0 && strcmp(v->pt[v->largest].diag_kind, "cores") == 0)
		fputs("  (the cores, not a lock or a thread: the client and other processes on the "
		      "daemon's CPUs are the first suspect; see their columns)\n",
		      out);
	/* A serial term from the benchmark: its ops in flight, not the daemon, set the pace. */
	if (f->sigma >= 0.1 && v->largest >= 0 &&
	    strcmp(v->pt[v->largest].diag_kind, "closed_loop") == 0)
		fputs("  (the benchmark's closed loop, not the daemon: with one op in flight each "
		      "op "
		      "waits for the last whatever the cores; raise the benchmark's concurrency to "
		      "measure the daemon's scaling)\n",
		      out);
	fprintf(out, "  kappa (coherency, a cost per pair of cores) %.4f", f->kappa);
	if (f->kappa_held)
		fputs(" (held at 0: two core counts cannot tell it from sigma)", out);
	else if (f->has_interval)
		fprintf(out, " [%.4f-%.4f%s]", f->kappa_lo, f->kappa_hi,
			f->kappa_hi >= SCALING_KAPPA_MAX ? ", the search's bound: unconstrained"
							 : "");
	if (g > 0)
		fprintf(out, "; beside it: CPU per op %.2fx from %g to %g cores", g,
			v->pt[v->smallest].cores, v->pt[v->largest].cores);
	else
		fputs("; CPU per op is not known at two points", out);
	if (v->smallest >= 0 && v->largest >= 0 && v->pt[v->smallest].xwakes_per_op >= 0 &&
	    v->pt[v->largest].xwakes_per_op >= 0)
		fprintf(out,
			", the daemon's wake-ups across cores %.2f to %.2f per op (of %.2f and "
			"%.2f wake-ups of its threads by its threads)\n",
			v->pt[v->smallest].xwakes_per_op, v->pt[v->largest].xwakes_per_op,
			v->pt[v->smallest].wakes_per_op, v->pt[v->largest].wakes_per_op);
	else
		fputs("; wake-ups across cores not known (no kernel events at a point)\n", out);
	fprintf(out, "  the fit is within %.1f%% of every point (%zu points, %zu core counts)\n",
		100 * f->max_rel_err, f->n_points, f->n_counts);
	if (!f->has_interval)
		fprintf(out, "  no interval: %s\n", f->interval_why_not);
	fputs("projection:", out);
	for (int p = 0; p < SCALING_PROJ; p++) {
		fprintf(out, "%s %d cores %.0f ops/s", p ? "," : "", f->proj[p].cores,
			f->proj[p].x);
		if (f->has_interval)
			fprintf(out, " [%.0f-%.0f]", f->proj[p].lo, f->proj[p].hi);
	}
	fputc('\n', out);
	if (f->peak_cores == 1)
		fprintf(out, "peak: at 1 core (%.0f ops/s): more cores never help (sigma >= 1)\n",
			f->peak_x);
	else if (f->peak_cores > 1)
		fprintf(out, "peak: at %.1f cores, %.0f ops/s; more cores lose throughput\n",
			f->peak_cores, f->peak_x);
	else if (f->peak_x > 0)
		fprintf(out,
			"peak: none; throughput levels off toward %.0f ops/s (lambda / sigma)\n",
			f->peak_x);
	else
		fputs("peak: none in the fit (linear)\n", out);
	fputs("the fit is a model of these points: a projection beyond the cores measured "
	      "assumes the same terms hold there (docs/methodology.md, \"Scaling\")\n",
	      out);
	return ferror(out) ? -EIO : 0;
}

static json_object *num_or_null(double x, bool known)
{
	return known && isfinite(x) ? json_object_new_double(x) : NULL;
}

static json_object *pair(double lo, double hi)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, json_object_new_double(lo));
	json_object_array_add(a, json_object_new_double(hi));
	return a;
}

static json_object *json_fit(const struct scale_view *v)
{
	const struct scaling_fit *f = &v->fit;
	json_object *o = json_object_new_object(), *iv, *pr, *pk, *se, *co;
	char beside[CORECAP_LOCK_LABEL_MAX + 128];
	int l = v->largest;
	double g = cpu_growth(v);

	json_object_object_add(o, "model", json_object_new_string("usl"));
	json_object_object_add(o, "valid", json_object_new_boolean(f->valid));
	json_object_object_add(o, "why_not", f->valid ? NULL : json_object_new_string(f->why_not));
	if (!f->valid)
		return o;
	json_object_object_add(o, "lambda", json_object_new_double(f->lambda));
	json_object_object_add(o, "sigma", json_object_new_double(f->sigma));
	json_object_object_add(o, "kappa", json_object_new_double(f->kappa));
	json_object_object_add(o, "kappa_held", json_object_new_boolean(f->kappa_held));
	json_object_object_add(o, "points", json_object_new_int((int)f->n_points));
	json_object_object_add(o, "core_counts", json_object_new_int((int)f->n_counts));
	json_object_object_add(o, "max_rel_err", json_object_new_double(f->max_rel_err));
	iv = NULL;
	if (f->has_interval) {
		iv = json_object_new_object();
		json_object_object_add(iv, "lambda", pair(f->lambda_lo, f->lambda_hi));
		json_object_object_add(iv, "sigma", pair(f->sigma_lo, f->sigma_hi));
		json_object_object_add(iv, "kappa", pair(f->kappa_lo, f->kappa_hi));
	}
	json_object_object_add(o, "interval", iv);
	json_object_object_add(o, "interval_why_not",
			       f->has_interval ? NULL
					       : json_object_new_string(f->interval_why_not));
	pr = json_object_new_array();
	for (int p = 0; p < SCALING_PROJ; p++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "cores", json_object_new_int(f->proj[p].cores));
		json_object_object_add(e, "iops", json_object_new_double(f->proj[p].x));
		json_object_object_add(e, "lo", num_or_null(f->proj[p].lo, f->has_interval));
		json_object_object_add(e, "hi", num_or_null(f->proj[p].hi, f->has_interval));
		json_object_array_add(pr, e);
	}
	json_object_object_add(o, "projection", pr);
	pk = json_object_new_object();
	json_object_object_add(pk, "cores", num_or_null(f->peak_cores, f->peak_cores > 0));
	json_object_object_add(pk, "iops", num_or_null(f->peak_x, f->peak_x > 0));
	json_object_object_add(pk, "levels_off", json_object_new_boolean(f->peak_cores == 0));
	json_object_object_add(o, "peak", pk);
	se = json_object_new_object();
	serial_beside(v, beside, sizeof(beside));
	json_object_object_add(se, "sigma", json_object_new_double(f->sigma));
	json_object_object_add(se, "run_cores",
			       l >= 0 ? json_object_new_double(v->pt[l].cores) : NULL);
	json_object_object_add(se, "diagnosis_kind",
			       l >= 0 ? json_object_new_string(v->pt[l].diag_kind) : NULL);
	json_object_object_add(se, "diagnosis_name",
			       l >= 0 && v->pt[l].diag_name[0]
				       ? json_object_new_string(v->pt[l].diag_name)
				       : NULL);
	json_object_object_add(
		se, "busy",
		l >= 0 ? num_or_null(v->pt[l].diag_running, v->pt[l].diag_running >= 0) : NULL);
	json_object_object_add(se, "text", json_object_new_string(beside));
	json_object_object_add(o, "serial", se);
	co = json_object_new_object();
	json_object_object_add(co, "kappa", json_object_new_double(f->kappa));
	json_object_object_add(co, "cpu_per_op_growth", num_or_null(g, g > 0));
	json_object_object_add(co, "from_cores",
			       g > 0 ? json_object_new_double(v->pt[v->smallest].cores) : NULL);
	json_object_object_add(co, "to_cores",
			       g > 0 ? json_object_new_double(v->pt[l].cores) : NULL);
	json_object_object_add(
		co, "cross_cpu_wakes_per_op",
		g > 0 && v->pt[v->smallest].xwakes_per_op >= 0 && v->pt[l].xwakes_per_op >= 0
			? pair(v->pt[v->smallest].xwakes_per_op, v->pt[l].xwakes_per_op)
			: NULL);
	json_object_object_add(o, "coherency", co);
	return o;
}

int scale_render_json(const struct scale_view *v, FILE *out)
{
	json_object *o = json_object_new_object(), *pts = json_object_new_array();
	int ret = 0;

	json_object_object_add(o, "format", json_object_new_string("corecap-scale"));
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "dir", json_object_new_string(v->dir));
	json_object_object_add(o, "pid", json_object_new_int(v->pid));
	json_object_object_add(o, "comm", json_object_new_string(v->comm));
	json_object_object_add(o, "machine_cpus", json_object_new_int(v->machine_cpus));
	json_object_object_add(o, "daemon_cpus", json_object_new_string(v->daemon_cpus));
	json_object_object_add(o, "client_cpus_set",
			       v->client_set[0] ? json_object_new_string(v->client_set) : NULL);
	json_object_object_add(o, "benchmark", json_object_new_string(v->benchmark));
	json_object_object_add(o, "prepare",
			       v->prepare[0] ? json_object_new_string(v->prepare) : NULL);
	for (size_t i = 0; i < v->n; i++) {
		json_object *p = json_object_new_object(), *tids = json_object_new_array(), *dg;
		bool m = v->pt[i].measured;

		json_object_object_add(p, "cores", json_object_new_double(v->pt[i].cores));
		json_object_object_add(p, "cpus", json_object_new_string(v->pt[i].cpus));
		json_object_object_add(p, "quota_cpus",
				       num_or_null(v->pt[i].quota_cpus, v->pt[i].quota_cpus > 0));
		json_object_object_add(p, "run", json_object_new_string(v->pt[i].run));
		json_object_object_add(p, "status", json_object_new_string(v->pt[i].status));
		json_object_object_add(p, "prepare_exit",
				       v->pt[i].prepare_exit >= 0
					       ? json_object_new_int(v->pt[i].prepare_exit)
					       : NULL);
		json_object_object_add(p, "prepare_s",
				       num_or_null(v->pt[i].prepare_s, v->pt[i].prepare_s >= 0));
		json_object_object_add(p, "client_cpus",
				       json_object_new_string(v->pt[i].client_cpus));
		json_object_object_add(p, "client_shares_cpus",
				       json_object_new_int(v->pt[i].client_shared));
		json_object_object_add(p, "affinity_resets", json_object_new_int(v->pt[i].resets));
		for (int k = 0; k < v->pt[i].n_reset_tids; k++)
			json_object_array_add(tids, json_object_new_int(v->pt[i].reset_tids[k]));
		json_object_object_add(p, "affinity_reset_tids", tids);
		json_object_object_add(p, "marked", json_object_new_boolean(v->pt[i].resets > 0));
		json_object_object_add(p, "measured", json_object_new_boolean(m));
		json_object_object_add(p, "why_not",
				       m ? NULL : json_object_new_string(v->pt[i].why_not));
		json_object_object_add(p, "iops", num_or_null(v->pt[i].iops, m));
		json_object_object_add(p, "iops_source",
				       m && v->pt[i].iops_source
					       ? json_object_new_string(v->pt[i].iops_source)
					       : NULL);
		json_object_object_add(p, "cpu_us_per_op",
				       num_or_null(v->pt[i].cpu_s_per_op * 1e6, m));
		json_object_object_add(p, "daemon_cores", num_or_null(v->pt[i].daemon_cores, m));
		json_object_object_add(
			p, "bench_cores",
			num_or_null(v->pt[i].bench_cores, m && v->pt[i].bench_cores >= 0));
		json_object_object_add(
			p, "other_cores",
			num_or_null(v->pt[i].other_cores, m && v->pt[i].other_cores >= 0));
		json_object_object_add(
			p, "wakes_per_op",
			num_or_null(v->pt[i].wakes_per_op, m && v->pt[i].wakes_per_op >= 0));
		json_object_object_add(
			p, "cross_cpu_wakes_per_op",
			num_or_null(v->pt[i].xwakes_per_op, m && v->pt[i].xwakes_per_op >= 0));
		dg = NULL;
		if (m) {
			dg = json_object_new_object();
			json_object_object_add(dg, "kind",
					       json_object_new_string(v->pt[i].diag_kind));
			json_object_object_add(dg, "name",
					       v->pt[i].diag_name[0]
						       ? json_object_new_string(v->pt[i].diag_name)
						       : NULL);
			json_object_object_add(
				dg, "busy",
				num_or_null(v->pt[i].diag_running, v->pt[i].diag_running >= 0));
		}
		json_object_object_add(p, "diagnosis", dg);
		json_object_array_add(pts, p);
	}
	json_object_object_add(o, "points", pts);
	json_object_object_add(o, "fit", json_fit(v));
	if (fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE),
		  out) < 0 ||
	    fputc('\n', out) == EOF)
		ret = -EIO;
	json_object_put(o);
	return ret;
}
