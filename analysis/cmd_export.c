/*
 * `corecap export --chrome RUN`: the run as a Chrome Trace Event JSON file
 * for Perfetto UI or chrome://tracing (render/chrome_trace.h says what is
 * in it). The trace streams from the CTF reader straight into the writer,
 * through build/export_build.h; this file parses the options, opens the
 * run, sets the exported span and finishes the document.
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
#include "build/export_build.h"
#include "read/run.h"
#include "read/multi_run.h"
#include "render/chrome_trace.h"
#include "render/out_file.h"
#include <corecap/run_format.h>

const char corecap_export_usage[] =
	"usage: corecap export --chrome [-o FILE] [--symfs DIR] [--keep-profiler] RUN\n"
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
	"  --keep-profiler    keep the tracks of the profiler's own threads (LTTng-UST's,\n"
	"                     the shim's) and their pool's CPU counter\n"
	"\n"
	"See also corecap-export(1).\n";

struct export_opts {
	const char *run, *output, *symfs;
	bool chrome, keep_profiler;
	unsigned bin_ms;
	double from_s, to_s; /* to_s < 0: the window's end */
	/* One daemon of a run of several: the run's window and a process name. */
	uint64_t run_start_ns, run_end_ns; /* 0: the daemon's own window */
	const char *process_name;
};

static int parse_args(struct export_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"chrome", no_argument, NULL, 'c'},
		{"output", required_argument, NULL, 'o'},
		{"symfs", required_argument, NULL, 's'},
		{"bin-ms", required_argument, NULL, 'b'},
		{"from", required_argument, NULL, 'F'},
		{"to", required_argument, NULL, 'T'},
		{"keep-profiler", no_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
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
		case 'P':
			o->keep_profiler = true;
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

static int export_chrome(const struct export_opts *o, struct run *run, FILE *out)
{
	const struct run_manifest *mf = &run->manifest;
	struct symbolizer *sym;
	struct chrome_trace t;
	struct export_build b;
	char *err = NULL;
	bool has_mf;
	uint64_t start_ns = 0, end_ns = 0;
	int ret;

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
	corecap_export_build_init(&b, run, o->run, &t, start_ns, end_ns,
				  (uint64_t)o->bin_ms * 1000000, &interrupted);
	b.keep_profiler = o->keep_profiler;
	if (ret)
		goto out_trace;
	if ((ret = corecap_export_build_run(&b)))
		goto out_trace;
	ret = corecap_chrome_trace_finish(&t, o->process_name	   ? o->process_name
					      : has_mf && mf->comm ? mf->comm
								   : NULL);
	if (ret)
		corecap_error("cannot write %s: %s", o->output ? o->output : "the output",
			      strerror(-ret));
	else
		corecap_note("export: %" PRIu64 " trace events written, %" PRIu64
			     " outside the window left out%s",
			     t.events_written, t.events_outside,
			     t.events_profiler ? ", and the profiler's threads' (--keep-profiler "
						 "keeps them)"
					       : "");
out_trace:
	corecap_export_build_release(&b);
	corecap_chrome_trace_release(&t);
out:
	free(err);
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
	/* Before any input is read: a FIFO without a reader must not wait (out_file.h). */
	if (corecap_out_file_check(o.output))
		return 1;
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
