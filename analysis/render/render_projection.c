#include "render_projection.h"
#include "render_common.h"

static json_object *num(double v, int decimals)
{
	return corecap_render_json_num(v, decimals);
}

static void put(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

/* The cores printed: 1, this machine's, and 2x, 4x, 8x of it (at most 64). */
static bool printed(int n, int here)
{
	return n == 1 || n == here || n == 2 * here || n == 4 * here || n == 8 * here;
}

void corecap_render_projection_text(const struct projection *p, FILE *out)
{
	if (!p)
		return;
	if (!p->valid) {
		fprintf(out, "PROJECTION (detail) not available: %s\n\n",
			p->why_not ? p->why_not : "?");
		return;
	}
	fprintf(out, "PROJECTION (detail for the diagnosis: the throughput at N cores, what binds "
		     "at each; measured %.0f ops/s from the %s; CPU %.2f us per op)\n",
		p->iops_measured, p->iops_source, p->cpu_s_per_op * 1e6);
	if (p->fitted)
		fprintf(out, "  %s: '%s', %zu points at %zu core counts (sigma %.3g, kappa %.3g%s, "
			     "at most %.0f%% off a point); 'one run' is the constant-demand figure\n",
			PROJECTION_FIT_ASSUMPTION, p->fit_dir, p->fit.n_points, p->fit.n_counts,
			p->fit.sigma, p->fit.kappa, p->fit.kappa_held ? " held: two core counts" : "",
			p->fit.max_rel_err * 100);
	else
		fprintf(out, "  %s\n", PROJECTION_ASSUMPTION);
	if (p->wake_s > 0)
		fprintf(out, "  a lock's demand adds a %.1f us hand-off per acquisition (a cross-core "
			     "wake-up, measured after the window)\n",
			p->wake_s * 1e6);
	if (p->client_s_per_op >= 0)
		fprintf(out, "  the benchmark client took %.2f us of CPU per op: 'with client' is "
			     "the throughput with it on the same cores\n",
			p->client_s_per_op * 1e6);
	if (p->loop.valid) {
		fprintf(out, "  the benchmark keeps %.2f ops in flight (its IOPS x mean latency): at "
			     "%.1f us per op it cannot pass %.0f ops/s; on more cores than here, its "
			     "latency less the paths' run-queue wait (%.1f us)",
			p->loop.in_flight, p->loop.client_lat_s * 1e6, p->loop.iops_here,
			p->loop.runq_s * 1e6);
		fprintf(out, ": %.1f us, %.0f ops/s\n", p->loop.lat_more_s * 1e6,
			p->loop.iops_more);
	}
	/* The bound is padded only when the client's columns follow it. */
	int pad = p->client_s_per_op >= 0 ? 40 : 0;

	fprintf(out, "  %5s %12s  %-*s", "cores", "ops/s", pad, "bound by");
	if (p->fitted)
		fprintf(out, " %12s", "one run");
	if (pad)
		fprintf(out, " %12s  %s", "with client", "bound by");
	fputc('\n', out);
	for (int n = 1; n <= PROJECTION_MAX_CORES; n++) {
		const struct projection_point *pt = &p->at[n - 1];

		if (!printed(n, p->cores_here))
			continue;
		fprintf(out, "  %5d %12.0f  %-*s", n, pt->iops, pad, pt->bound_by);
		if (p->fitted)
			fprintf(out, " %12.0f", pt->one_run_iops);
		if (pad)
			fprintf(out, " %12.0f  %s", pt->iops_with_client, pt->bound_with_client);
		fprintf(out, "%s\n", n == p->cores_here ? "  (this machine)" : "");
	}
	fprintf(out, "\n");
}

static json_object *share(double v)
{
	return v >= 0 ? num(v, 3) : NULL;
}

void corecap_render_projection_json(const struct projection *p, json_object *ceiling)
{
	json_object *machine, *daemon, *loop, *proj;

	if (!p || !p->valid)
		return;
	machine = json_object_new_object();
	put(machine, "cores", json_object_new_int(p->cores_here));
	put(machine, "cores_bind", json_object_new_boolean(p->cores_bind_here));
	put(machine, "daemon_cores", share(p->daemon_cores));
	put(machine, "bench_cores", share(p->bench_cores));
	put(machine, "other_cores", share(p->other_cores));
	put(machine, "stolen_cores", share(p->stolen_cores));
	put(ceiling, "on_this_machine", machine);
	daemon = json_object_new_object();
	if (p->n_res) {
		put(daemon, "kind",
		    json_object_new_string(corecap_ceiling_kind_name(p->res[0].kind)));
		put(daemon, "name", json_object_new_string(p->res[0].name));
		put(daemon, "demand_us_per_op", num(p->res[0].demand_s_per_op * 1e6, 3));
		put(daemon, "servers", num(p->res[0].servers, 0));
		put(daemon, "iops", num(p->res[0].iops, 1));
	}
	put(ceiling, "daemon_limit", daemon);
	put(ceiling, "iops_measured", num(p->iops_measured, 1));
	put(ceiling, "cpu_us_per_op", num(p->cpu_s_per_op * 1e6, 3));
	put(ceiling, "client_cpu_us_per_op",
	    p->client_s_per_op >= 0 ? num(p->client_s_per_op * 1e6, 3) : NULL);
	put(ceiling, "handoff_us", p->wake_s > 0 ? num(p->wake_s * 1e6, 3) : NULL);
	put(ceiling, "assumption",
	    json_object_new_string(p->fitted ? "scale_fit" : "constant_demand"));
	if (p->fitted) {
		json_object *f = json_object_new_object();

		put(f, "dir", json_object_new_string(p->fit_dir));
		put(f, "points", json_object_new_int((int)p->fit.n_points));
		put(f, "core_counts", json_object_new_int((int)p->fit.n_counts));
		put(f, "lambda", num(p->fit.lambda, 1));
		put(f, "sigma", num(p->fit.sigma, 6));
		put(f, "kappa", num(p->fit.kappa, 6));
		put(f, "kappa_held", json_object_new_boolean(p->fit.kappa_held));
		put(f, "max_rel_err", num(p->fit.max_rel_err, 4));
		put(ceiling, "scale_fit", f);
	}
	loop = json_object_new_object();
	put(loop, "modelled", json_object_new_boolean(p->loop.valid));
	put(loop, "why_not", p->loop.why_not ? json_object_new_string(p->loop.why_not) : NULL);
	if (p->loop.valid) {
		put(loop, "in_flight", num(p->loop.in_flight, 3));
		put(loop, "latency_us", num(p->loop.client_lat_s * 1e6, 3));
		put(loop, "path_latency_us", num(p->loop.path_lat_s * 1e6, 3));
		put(loop, "runqueue_us", num(p->loop.runq_s * 1e6, 3));
		put(loop, "latency_more_cores_us", num(p->loop.lat_more_s * 1e6, 3));
		put(loop, "iops_here", num(p->loop.iops_here, 1));
		put(loop, "iops_more_cores", num(p->loop.iops_more, 1));
	}
	put(ceiling, "closed_loop", loop);
	proj = json_object_new_array();
	for (int n = 0; n < PROJECTION_MAX_CORES; n++) {
		json_object *pt = json_object_new_object();

		put(pt, "cores", json_object_new_int(p->at[n].cores));
		put(pt, "iops", num(p->at[n].iops, 1));
		put(pt, "bound_by", json_object_new_string(p->at[n].bound_by));
		if (p->fitted) {
			put(pt, "one_run_iops", num(p->at[n].one_run_iops, 1));
			put(pt, "fit_iops", num(p->at[n].fit_iops, 1));
			if (p->fit.has_interval && p->at[n].fit_hi > 0) {
				put(pt, "fit_lo", num(p->at[n].fit_lo, 1));
				put(pt, "fit_hi", num(p->at[n].fit_hi, 1));
			}
		}
		if (p->at[n].iops_with_client >= 0) {
			put(pt, "iops_with_client", num(p->at[n].iops_with_client, 1));
			put(pt, "bound_with_client",
			    json_object_new_string(p->at[n].bound_with_client));
		}
		json_object_array_add(proj, pt);
	}
	put(ceiling, "projection", proj);
}
