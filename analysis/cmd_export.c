/*
 * `corecap export --chrome RUN`: the run as a Chrome Trace Event JSON file
 * for Perfetto UI or chrome://tracing (render/chrome_trace.h says what is
 * in it). The trace streams from the CTF reader straight into the writer;
 * this file wires the run's files to it.
 */
#include <corecap/analysis.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_util.h"
#include "build/kernel_chrome.h"
#include "build/op_detect.h"
#include "read/ctf_reader.h"
#include "read/run.h"
#include "read/thread_samples.h"
#include "read/thread_series.h"
#include "read/multi_run.h"
#include "render/chrome_trace.h"
#include "render/out_file.h"
#include <corecap/run_format.h>

const char corecap_export_usage[] =
	"usage: corecap export --chrome [-o FILE] [--symfs DIR] RUN\n"
	"\n"
	"Writes the run as Chrome Trace Event JSON, for Perfetto UI (ui.perfetto.dev,\n"
	"'Open trace file') or chrome://tracing: one track per thread (named, grouped by\n"
	"pool) with its lock waits, cond waits, I/O, logging and op work as slices; ops\n"
	"as async slices from begin to end with their phases nested; the CPU of each\n"
	"pool over time as a counter; with kernel events, each thread's kernel states\n"
	"(running, runnable, futex, blocked) as slices in a second process, and\n"
	"futex wake-ups as flows from the holder to the waiter.\n"
	"\n"
	"  --chrome           Chrome Trace Event JSON (the only format so far)\n"
	"  -o, --output FILE  write to FILE instead of standard output\n"
	"  --from SEC         start SEC seconds into the recording window (default 0)\n"
	"  --to SEC           end SEC seconds into the window (default: its end); a\n"
	"                     busy daemon makes ~100 MB of JSON per second recorded\n"
	"  --bin-ms MS        the pool CPU counter's time step (default 100)\n"
	"  --symfs DIR        look up the daemon's ELF files under DIR (post-mortem)\n"
	"\n"
	"See also corecap-export(1).\n";

struct export_opts {
	const char *run, *output, *symfs;
	bool chrome;
	unsigned bin_ms;
	double from_s, to_s; /* to_s < 0: the window's end */
	/* One daemon of a run of several: the run's window and a process name. */
	uint64_t run_start_ns, run_end_ns; /* 0: the daemon's own window */
	const char *process_name;
};

static int parse_args(struct export_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"chrome", no_argument, NULL, 'c'},	 {"output", required_argument, NULL, 'o'},
		{"symfs", required_argument, NULL, 's'}, {"bin-ms", required_argument, NULL, 'b'},
		{"from", required_argument, NULL, 'F'},	 {"to", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},	 {NULL, 0, NULL, 0},
	};
	char *end;
	unsigned long v;
	double *sec;
	int c;

	*o = (struct export_opts){.bin_ms = 100, .to_s = -1};
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->chrome = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 's':
			o->symfs = optarg;
			break;
		case 'b':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || !v || v > 60000) {
				corecap_error("invalid --bin-ms '%s': expected 1 to 60000", optarg);
				return 2;
			}
			o->bin_ms = (unsigned)v;
			break;
		case 'F':
		case 'T':
			sec = c == 'F' ? &o->from_s : &o->to_s;
			errno = 0;
			*sec = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(*sec >= 0) || *sec > 1e6) {
				corecap_error("invalid --%s '%s': expected seconds into the window",
					      c == 'F' ? "from" : "to", optarg);
				return 2;
			}
			break;
		case 'h':
			printf("%s", corecap_export_usage);
			return -1;
		default:
			fprintf(stderr, "%s", corecap_export_usage);
			return 2;
		}
	}
	if (!o->chrome) {
		corecap_error("export needs a format: --chrome");
		fprintf(stderr, "%s", corecap_export_usage);
		return 2;
	}
	if (o->to_s >= 0 && o->to_s <= o->from_s) {
		corecap_error("--to must come after --from");
		return 2;
	}
	if (corecap_cmd_operands(argc, 1, "one run directory", corecap_export_usage))
		return 2;
	o->run = argv[optind];
	return 0;
}

static const char *namer(void *ctx, uint64_t addr, bool code)
{
	return corecap_symbolizer_name(ctx, addr, code);
}

/* Set by SIGINT or SIGTERM: the export stops and removes its temporary file. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int consume(void *ctx, const struct model_event *ev)
{
	if (interrupted)
		return -EINTR;
	return corecap_chrome_trace_consume(ctx, ev);
}

/* The ops of a daemon that marks none are detected (op_detect.h), as report's. */
static int export_ops(char *const *traces, size_t n, int32_t pid, struct op_detect *det,
		      struct chrome_trace *t)
{
	char *err = NULL;
	bool detect;
	int ret = corecap_op_detect_wanted(traces, n, pid, &detect, &err);

	if (ret)
		corecap_error("cannot read trace '%s': %s", traces[0], err ? err : strerror(-ret));
	else if (detect)
		corecap_note("the daemon marks no ops: its ops are detected from its socket I/O "
			     "(docs/xrootd.md)");
	free(err);
	corecap_op_detect_init(det, !ret && detect, pid, consume, t);
	return ret;
}

/* Names every thread threads.tsv knows, and writes the pool counters. */
static void add_samples(const struct export_opts *o, const struct run *run, struct chrome_trace *t,
			uint64_t start_ns, uint64_t end_ns)
{
	struct thread_samples names;
	struct thread_series series;
	char *path = corecap_run_path(run, CORECAP_RUN_THREADS), *err = NULL;
	int ret;

	if (!path)
		return;
	corecap_thread_samples_init(&names);
	ret = corecap_thread_samples_load(&names, path, 0, 0, &err);
	if (!ret && names.torn_last_line)
		corecap_warn(CORECAP_RUN_TORN_WARNING, path);
	for (size_t i = 0; !ret && i < names.len; i++)
		corecap_chrome_trace_name_thread(t, names.threads[i].tid, names.threads[i].comm);
	if (ret == -ENOENT)
		corecap_warn("no " CORECAP_RUN_THREADS ": no pool CPU counters");
	else if (ret)
		corecap_warn("%s", err ? err : strerror(-ret));
	corecap_thread_samples_release(&names);
	free(err);
	err = NULL;
	if (!ret) {
		corecap_thread_series_init(&series, start_ns, end_ns,
					   (uint64_t)o->bin_ms * 1000000);
		ret = corecap_thread_series_load(&series, path, &err);
		if (ret)
			corecap_warn("%s", err ? err : strerror(-ret));
		else
			corecap_chrome_trace_counters(t, &series);
		corecap_thread_series_release(&series);
	}
	free(err);
	free(path);
}

/* The kernel's thread states, when the run has kernel events and a window. */
static int add_kernel_states(const struct run *run, struct chrome_trace *t, uint64_t start_ns,
			     uint64_t end_ns)
{
	const struct run_manifest *mf = &run->manifest;
	char *err = NULL;
	int ret;

	if (!run->has_manifest || !mf->has_window)
		return 0; /* the states need the window; without a manifest it was warned */
	ret = corecap_kernel_chrome(t, run->dir, mf->window_start_ns, mf->window_end_ns, start_ns,
				    end_ns, &err);
	if (ret < 0)
		corecap_error("%s", err ? err : strerror(-ret));
	free(err);
	return ret < 0 ? ret : 0;
}

static int export_chrome(const struct export_opts *o, struct run *run, FILE *out)
{
	const struct run_manifest *mf = &run->manifest;
	struct symbolizer *sym;
	struct chrome_trace t;
	struct ctf_reader r;
	struct op_detect det = {0};
	char *root = corecap_run_path(run, CORECAP_RUN_TRACE), *err = NULL;
	bool has_mf;
	uint64_t start_ns = 0, end_ns = 0;
	int ret;

	if (!root)
		return -ENOMEM;
	ret = corecap_run_load_manifest(run, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		goto out;
	}
	has_mf = run->has_manifest;
	if (!has_mf)
		corecap_warn("no " CORECAP_RUN_MANIFEST " (a partial run): the time "
			     "origin is the first event");
	if (has_mf && mf->has_window) {
		uint64_t w0 = o->run_end_ns ? o->run_start_ns : mf->window_start_ns;
		uint64_t w1 = o->run_end_ns ? o->run_end_ns : mf->window_end_ns;

		start_ns = w0 + (uint64_t)(o->from_s * 1e9);
		end_ns = o->to_s >= 0 ? w0 + (uint64_t)(o->to_s * 1e9) : w1;
		if (end_ns > w1)
			end_ns = w1;
		if (start_ns >= end_ns) {
			corecap_error("--from %.3f s is past the %.3f s window of '%s'", o->from_s,
				      (mf->window_end_ns - mf->window_start_ns) / 1e9, o->run);
			ret = -EINVAL;
			goto out;
		}
	} else if (o->from_s > 0 || o->to_s >= 0) {
		corecap_error("--from and --to need the recording window, and '%s' has no manifest",
			      o->run);
		ret = -EINVAL;
		goto out;
	}
	sym = corecap_run_symbols(run, &ret, &err);
	if (ret)
		corecap_warn("%s: addresses are shown in hex", err ? err : strerror(-ret));
	free(err);
	err = NULL;
	ret = corecap_chrome_trace_init(&t, out, has_mf ? mf->pid : -1, start_ns, end_ns,
					sym ? namer : NULL, sym);
	if (ret)
		goto out_trace;
	if (run->src[RUN_TRACE].state == RUN_ABSENT) {
		corecap_warn("'%s' has no trace/: only threads and pool CPU "
			     "are exported",
			     o->run);
	} else {
		ret = corecap_run_list_traces(run, &err);
		if (ret) {
			corecap_error("%s", err ? err : strerror(-ret));
			goto out_trace;
		}
		if (!run->n_traces)
			corecap_warn("no CTF trace under '%s'", root);
	}
	if (run->n_traces) {
		ret = export_ops(run->traces, run->n_traces, has_mf ? mf->pid : -1, &det, &t);
		if (ret)
			goto out_trace;
		ret = corecap_ctf_reader_init(&r, run->traces, run->n_traces,
					      corecap_op_detect_consume, &det);
		if (!ret)
			ret = corecap_ctf_reader_run(&r);
		if (!ret)
			ret = corecap_op_detect_finish(&det);
		if (!ret && corecap_ctf_reader_missing_packets(&r))
			corecap_warn("the trace is cut short: %" PRIu64
				     " packets its indexes list are missing",
				     corecap_ctf_reader_missing_packets(&r));
		if (ret && ret != -EINTR)
			corecap_error("cannot read trace '%s': %s", root,
				      corecap_ctf_reader_error(&r) ? corecap_ctf_reader_error(&r)
								   : strerror(-ret));
		corecap_ctf_reader_release(&r);
		if (ret)
			goto out_trace;
	}
	add_samples(o, run, &t, start_ns, end_ns);
	if ((ret = add_kernel_states(run, &t, start_ns, end_ns)))
		goto out_trace;
	ret = corecap_chrome_trace_finish(&t, o->process_name	   ? o->process_name
					      : has_mf && mf->comm ? mf->comm
								   : NULL);
	if (ret)
		corecap_error("cannot write %s: %s", o->output ? o->output : "the output",
			      strerror(-ret));
	else
		corecap_note("export: %" PRIu64 " trace events written, %" PRIu64
			     " outside the window left out",
			     t.events_written, t.events_outside);
out_trace:
	corecap_op_detect_release(&det);
	corecap_chrome_trace_release(&t);
out:
	free(err);
	free(root);
	return ret;
}

/*
 * A run of several daemons: each daemon's export over the run's window,
 * one process each (its PID, named "comm pid N"), spliced into one
 * document: the events of each between its "traceEvents":[ and its end.
 */
static int export_multi(const struct export_opts *o, FILE *out)
{
	static const char head[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
	static const char tail[] = "\n],\"otherData\":";
	struct multi_run m;
	char *err = NULL;
	size_t written = 0;
	int ret = corecap_multi_run_open(&m, o->run, &err);

	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		corecap_multi_run_close(&m);
		return ret;
	}
	fputs(head, out);
	for (size_t i = 0; i < m.n_daemons && !ret; i++) {
		const struct multi_daemon *d = &m.daemons[i];
		struct export_opts sub = *o;
		struct run_opts ro = {.symfs = o->symfs};
		char name[96], *buf = NULL, *end;
		size_t len = 0;
		struct run run;
		FILE *mem;

		if (strcmp(d->status, "missing") == 0) {
			corecap_warn("PID %d is left out: no run of it was written", d->pid);
			continue;
		}
		snprintf(name, sizeof(name), "%s pid %d", d->comm, d->pid);
		sub.run = d->dir;
		sub.process_name = name;
		if (m.manifest.has_window) {
			sub.run_start_ns = m.manifest.window_start_ns;
			sub.run_end_ns = m.manifest.window_end_ns;
		}
		mem = open_memstream(&buf, &len);
		if (!mem) {
			ret = -errno;
			break;
		}
		ret = corecap_run_open(&run, d->dir, &ro, &err);
		if (ret)
			corecap_error("%s", err ? err : strerror(-ret));
		else
			ret = export_chrome(&sub, &run, mem);
		corecap_run_close(&run);
		free(err);
		err = NULL;
		if (fclose(mem) && !ret)
			ret = -EIO;
		end = buf ? strstr(buf, tail) : NULL;
		if (!ret && (!end || strncmp(buf, head, sizeof(head) - 1) != 0))
			ret = -EPROTO;
		if (!ret && end > buf + sizeof(head) - 1) {
			/* Each part's first event has no separator of its own. */
			fputs(written++ ? "," : "", out);
			fwrite(buf + sizeof(head) - 1, 1, (size_t)(end - buf) - (sizeof(head) - 1),
			       out);
		}
		free(buf);
	}
	fprintf(out, "\n],\"otherData\":{\"generator\":\"corecap\",\"daemons\":%zu}}\n",
		m.n_daemons);
	if (!ret && ferror(out))
		ret = -EIO;
	corecap_multi_run_close(&m);
	return ret;
}

int corecap_cmd_export(int argc, char **argv)
{
	struct export_opts o;
	struct run_opts ro;
	struct out_file out;
	struct run run;
	char *err = NULL;
	int ret;

	ret = parse_args(&o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	ro = (struct run_opts){.symfs = o.symfs};
	if (corecap_multi_run_is(o.run)) {
		if (corecap_out_file_open(&out, o.output) < 0)
			return 1;
		ret = export_multi(&o, out.f);
		if (ret)
			corecap_out_file_abort(&out);
		else
			ret = corecap_out_file_commit(&out);
		return ret ? 1 : 0;
	}
	ret = corecap_run_open(&run, o.run, &ro, &err);
	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		corecap_run_close(&run);
		return 1;
	}
	if (corecap_out_file_open(&out, o.output) < 0) {
		corecap_run_close(&run);
		return 1;
	}
	if (o.output) {
		struct sigaction sa = {.sa_handler = on_signal};

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	ret = export_chrome(&o, &run, out.f);
	corecap_run_close(&run);
	if (!ret && interrupted)
		ret = -EINTR;
	if (ret)
		corecap_out_file_abort(&out);
	else
		ret = corecap_out_file_commit(&out);
	if (ret == -EINTR) {
		corecap_error("interrupted: '%s' left as it was", o.output);
		return 130;
	}
	return ret ? 1 : 0;
}
