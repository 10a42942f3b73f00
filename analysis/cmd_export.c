/*
 * `corecap export --chrome RUN`: the run as a Chrome Trace Event JSON file
 * for Perfetto UI or chrome://tracing (render/chrome_trace.h says what is
 * in it). The trace streams from the CTF reader straight into the writer,
 * through pass/export_build.h; this file parses the options, opens the
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
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "pass/export_build.h"
#include "cmd_util.h"
#include <corecap/opt_table.h>
#include "read/run.h"
#include "read/multi_run.h"
#include "read/hosts_run.h"
#include "render/chrome_trace.h"
#include "render/html_escape.h"
#include "render/out_file.h"
#include <corecap/kernel_format.h>
#include <corecap/run_format.h>

const char corecap_export_usage[] =
	"usage: corecap export --chrome [-o FILE] [--gzip] [--from SEC] [--to SEC]\n"
	"                      [--bin-ms MS] [--symfs DIR] [--keep-profiler] RUN\n"
	"\n"
	"Writes the run as Chrome Trace Event JSON, for Perfetto UI (ui.perfetto.dev,\n"
	"'Open trace file') or chrome://tracing: one track per thread (named, grouped by\n"
	"pool) with its lock waits, cond waits, I/O, logging and op work as slices; ops\n"
	"as async slices from begin to end with their phases nested; the CPU of each\n"
	"pool over time as a counter; with kernel events, each thread's kernel states\n"
	"(running, runnable, futex, blocked) as slices in a second process, and\n"
	"futex wake-ups as flows from the holder to the waiter.\n"
	"\n"
	"A run of several daemons: one process per daemon, over the run's window. A run\n"
	"of several hosts (record --hosts): one process per host's daemon, named\n"
	"'HOST: comm (pid N)', each host's events moved onto the recording host's clock\n"
	"by the offset and drift its manifest holds; time 0 is the earliest host's\n"
	"window start, and the alignment's uncertainty is in the trace's otherData.\n"
	"RUN:PID and RUN:HOST export one daemon's or one host's run alone.\n"
	"\n";

struct export_opts {
	const char *run, *output, *symfs;
	bool chrome, keep_profiler, gzip;
	unsigned bin_ms;
	double from_s, to_s; /* to_s < 0: the window's end */
	/* One daemon of a run of several: the run's window and a process name. */
	uint64_t run_start_ns, run_end_ns; /* 0: the daemon's own window */
	const char *process_name;
	/* Another host's run: where its span starts on the recording host's
	 * time line, its rate, its process id there (chrome_trace.h). */
	int64_t shift_ns;
	double rate;
	int32_t shown_pid;
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt export_options[] = {
	CORECAP_OPT_SET('c', 0, "chrome", struct export_opts, chrome,
			"Chrome Trace Event JSON (the only format so far)"),
	CORECAP_OPT_STR('o', 'o', "output", "FILE", struct export_opts, output,
			"write to FILE instead of standard output"),
	CORECAP_OPT_SET('z', 0, "gzip", struct export_opts, gzip,
			"compress it (gzip; Perfetto UI and chrome://tracing read\n"
			"it as it is); implied by -o FILE.gz"),
	CORECAP_OPT_ARG('F', 0, "from", "SEC",
			"start SEC seconds into the recording window (default 0;\n"
			"several hosts: into the time line, from its time 0)"),
	CORECAP_OPT_ARG('T', 0, "to", "SEC",
			"end SEC seconds into the window (default: its end); a\n"
			"busy daemon makes ~100 MB of JSON per second recorded"),
	CORECAP_OPT_ARG('b', 0, "bin-ms", "MS", "the pool CPU counter's time step (default 100)"),
	CORECAP_OPT_STR('s', 0, "symfs", "DIR", struct export_opts, symfs,
			"look up the daemon's ELF files under DIR (post-mortem)"),
	CORECAP_OPT_SET('P', 0, "keep-profiler", struct export_opts, keep_profiler,
			"keep the tracks of the profiler's own threads (LTTng-UST's,\n"
			"the shim's) and their pool's CPU counter"),
	CORECAP_OPT_HIDDEN('h', 'h', "help", no_argument),
};

CORECAP_OPT_TABLE(corecap_export_help, corecap_export_usage, export_options,
		  "\n"
		  "\n"
		  "Before writing, export estimates the file's size from the number of events in\n"
		  "the run and the exported span, and warns when it is above 100 MB (the\n"
		  "environment variable CORECAP_EXPORT_WARN_MB sets another bound, in MB).\n"
		  "\n"
		  "See also corecap-export(1).\n",
		  .help_col = 21, .shorts = CORECAP_SHORTS_INLINE);

static int parse_args(struct export_opts *o, int argc, char **argv)
{
	struct corecap_getopt g;
	char *end;
	unsigned long v;
	double *sec;
	int c;

	*o = (struct export_opts){.bin_ms = 100, .to_s = -1};
	corecap_opts_start(&g, &corecap_export_help, NULL, o);
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
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
			corecap_cmd_help(stdout, &corecap_export_help);
			return -1;
		default: /* getopt said what is wrong */
			return corecap_usage_hint(corecap_export_usage);
		}
	}
	if (!o->chrome) {
		return corecap_usage_error(corecap_export_usage, "export needs a format: --chrome");
	}
	if (o->to_s >= 0 && o->to_s <= o->from_s) {
		corecap_error("--to must come after --from");
		return 2;
	}
	if (corecap_cmd_operands(argc, 1, "one run directory", corecap_export_usage))
		return 2;
	o->run = argv[optind];
	/* -o FILE.gz: what the name says it is. */
	if (o->output && strlen(o->output) > 3 &&
	    strcmp(o->output + strlen(o->output) - 3, ".gz") == 0)
		o->gzip = true;
	if (o->gzip && (!o->output || strcmp(o->output, "-") == 0) && isatty(STDOUT_FILENO)) {
		corecap_error("will not write gzip data to a terminal: give -o FILE.json.gz");
		return 2;
	}
	return 0;
}

/*
 * --gzip: a FILE whose writes are deflated (gzip's format, which Perfetto
 * and chrome://tracing read) into the output file; fclose() ends the
 * stream, and fails if any write to the output did.
 */
struct gz_sink {
	FILE *out;
	z_stream z;
	bool failed;
	unsigned char buf[1 << 16];
};

static bool gz_pump(struct gz_sink *s, int flush)
{
	int zret;

	do {
		s->z.next_out = s->buf;
		s->z.avail_out = sizeof(s->buf);
		zret = deflate(&s->z, flush);
		if (zret == Z_STREAM_ERROR)
			return false;
		if (fwrite(s->buf, 1, sizeof(s->buf) - s->z.avail_out, s->out) !=
		    sizeof(s->buf) - s->z.avail_out)
			return false;
	} while (s->z.avail_out == 0 || (flush == Z_FINISH && zret != Z_STREAM_END));
	return true;
}

static ssize_t gz_write(void *cookie, const char *p, size_t n)
{
	struct gz_sink *s = cookie;
	size_t done = 0;

	if (s->failed)
		return -1;
	while (done < n) {
		size_t part = n - done > UINT_MAX ? UINT_MAX : n - done;

		s->z.next_in = (Bytef *)(uintptr_t)(p + done);
		s->z.avail_in = (uInt)part;
		if (!gz_pump(s, Z_NO_FLUSH)) {
			s->failed = true;
			errno = EIO;
			return -1;
		}
		done += part;
	}
	return (ssize_t)n;
}

static int gz_close(void *cookie)
{
	struct gz_sink *s = cookie;
	bool ok = !s->failed && gz_pump(s, Z_FINISH);

	deflateEnd(&s->z);
	free(s);
	if (!ok)
		errno = EIO;
	return ok ? 0 : -1;
}

static FILE *gz_open(FILE *out)
{
	static const cookie_io_functions_t io = {.write = gz_write, .close = gz_close};
	struct gz_sink *s = calloc(1, sizeof(*s));
	FILE *f;

	if (!s)
		return NULL;
	s->out = out;
	/* 15 + 16: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&s->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(s);
		return NULL;
	}
	f = fopencookie(s, "w", io);
	if (!f) {
		deflateEnd(&s->z);
		free(s);
	}
	return f;
}

/*
 * The expected size, said before a long write: the events in the run's
 * sources in the exported span, times the JSON each becomes. Measured on
 * refosd and ceph-osd runs of 0.1 to 370 MB of JSON (within 10% of the
 * file for runs above 10 MB; small traces' padded packets overstate it):
 * a CTF event takes about 24 bytes of the trace, a kernel record 42 of
 * events.bin (22 in its version 2, corecap/kernel_format.h), an event
 * about 105 bytes of JSON, and gzip divides it by 10.
 */
#define EXPORT_CTF_BYTES_PER_EVENT    24
#define EXPORT_KERNEL_BYTES_PER_EVENT 42
#define EXPORT_KV2_BYTES_PER_EVENT    22
#define EXPORT_JSON_BYTES_PER_EVENT   105
#define EXPORT_GZIP_RATIO	      10
#define EXPORT_WARN_MB_DEFAULT	      100

static uint64_t tree_bytes(int at, const char *name, int depth)
{
	struct stat st;
	uint64_t sum = 0;
	DIR *d;
	int fd;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISREG(st.st_mode))
		return strcmp(name, "metadata") == 0 ? 0 : (uint64_t)st.st_size;
	if (!S_ISDIR(st.st_mode) || depth > 8)
		return 0;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			sum += tree_bytes(dirfd(d), e->d_name, depth + 1);
	closedir(d);
	return sum;
}

/* The share of the recording window that [start_ns, end_ns) exports. */
static double window_share(const struct run_manifest *mf, uint64_t start_ns, uint64_t end_ns)
{
	if (!mf->has_window || mf->window_end_ns <= mf->window_start_ns || end_ns <= start_ns)
		return 1;
	return (double)(end_ns - start_ns) / (double)(mf->window_end_ns - mf->window_start_ns);
}

/* A kernel record's bytes in events.bin, by its header's version. */
static uint64_t kernel_bytes_per_event(const char *path)
{
	struct corecap_kfile_header h = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0) {
		if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
			h.version = 0;
		close(fd);
	}
	return h.version == CORECAP_KERNEL_FORMAT_V1 ? EXPORT_KERNEL_BYTES_PER_EVENT
						     : EXPORT_KV2_BYTES_PER_EVENT;
}

/* The JSON bytes of dir's events, share of them in the exported span. */
static uint64_t expected_bytes(const char *dir, double share)
{
	uint64_t events = 0;
	char *path;

	if (asprintf(&path, "%s/" CORECAP_RUN_TRACE, dir) >= 0) {
		events += tree_bytes(AT_FDCWD, path, 0) / EXPORT_CTF_BYTES_PER_EVENT;
		free(path);
	}
	if (asprintf(&path, "%s/" CORECAP_KERNEL_EVENTS_FILE, dir) >= 0) {
		events += tree_bytes(AT_FDCWD, path, 0) / kernel_bytes_per_event(path);
		free(path);
	}
	return (uint64_t)((double)events * share * EXPORT_JSON_BYTES_PER_EVENT);
}

/* A warning before writing a file larger than the bound; bytes: its JSON. */
static void warn_size(const struct export_opts *o, uint64_t bytes)
{
	const char *env = getenv("CORECAP_EXPORT_WARN_MB");
	double warn_mb = EXPORT_WARN_MB_DEFAULT, mb;
	char *end;

	if (env && *env) {
		double v = strtod(env, &end);

		if (*end || !(v >= 0))
			corecap_warn("CORECAP_EXPORT_WARN_MB='%s' is not a number of MB: the bound "
				     "stays %d MB",
				     env, EXPORT_WARN_MB_DEFAULT);
		else
			warn_mb = v;
	}
	mb = (double)bytes / 1e6 / (o->gzip ? EXPORT_GZIP_RATIO : 1);
	if (mb <= warn_mb)
		return;
	corecap_warn("'%s' will be about %.0f MB (%s%.0f MB of JSON, estimated from the run's "
		     "events): --from SEC and --to SEC export a part of the window%s",
		     o->output && strcmp(o->output, "-") ? o->output : "the output", mb,
		     o->gzip ? "gzip of " : "", (double)bytes / 1e6,
		     o->gzip ? "" : ", and --gzip (or -o FILE.json.gz) writes about a tenth");
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
	if (!o->process_name) /* a run of several: export_multi warned for all */
		warn_size(o, expected_bytes(run->dir, window_share(mf, start_ns, end_ns)));
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
	t.shift_ns = o->shift_ns;
	t.rate = o->rate > 0 ? o->rate : 1;
	t.shown_pid = o->shown_pid;
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
		/* A part of a run of several: which one. */
		corecap_note("export: %s%s%" PRIu64 " trace events written, %" PRIu64
			     " outside the window left out%s",
			     o->process_name ? o->process_name : "", o->process_name ? ": " : "",
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

/* What a single export writes first, and what follows its last event. */
static const char splice_head[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
static const char splice_tail[] = "\n],\"otherData\":";

/*
 * One part of a spliced document: sub's export of run, its events alone
 * (between its "traceEvents":[ and its end), after a comma unless it is
 * the first part written (*written counts them).
 */
static int export_spliced(const struct export_opts *sub, struct run *run, size_t *written,
			  FILE *out)
{
	char *buf = NULL, *end;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int ret;

	if (!mem)
		return -errno;
	ret = export_chrome(sub, run, mem);
	if (fclose(mem) && !ret)
		ret = -EIO;
	end = buf ? strstr(buf, splice_tail) : NULL;
	if (!ret && (!end || strncmp(buf, splice_head, sizeof(splice_head) - 1) != 0))
		ret = -EPROTO;
	if (!ret && end > buf + sizeof(splice_head) - 1) {
		/* Each part's first event has no separator of its own. */
		fputs((*written)++ ? "," : "", out);
		fwrite(buf + sizeof(splice_head) - 1, 1,
		       (size_t)(end - buf) - (sizeof(splice_head) - 1), out);
	}
	free(buf);
	return ret;
}

/*
 * A run of several daemons: each daemon's export over the run's window,
 * one process each (its PID, named "comm pid N"), spliced into one
 * document: the events of each between its "traceEvents":[ and its end.
 */
static int export_multi(const struct export_opts *o, FILE *out)
{
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
	if (m.manifest.has_window) {
		uint64_t w0 = m.manifest.window_start_ns, w1 = m.manifest.window_end_ns;
		uint64_t s = w0 + (uint64_t)(o->from_s * 1e9);
		uint64_t e = o->to_s >= 0 ? w0 + (uint64_t)(o->to_s * 1e9) : w1;
		uint64_t bytes = 0;

		for (size_t i = 0; i < m.n_daemons; i++)
			bytes += expected_bytes(m.daemons[i].dir,
						window_share(&m.manifest, s, e < w1 ? e : w1));
		warn_size(o, bytes);
	}
	fputs(splice_head, out);
	for (size_t i = 0; i < m.n_daemons && !ret; i++) {
		const struct multi_daemon *d = &m.daemons[i];
		struct export_opts sub = *o;
		struct run_opts ro = {.symfs = o->symfs};
		char name[96];
		struct run run;

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
		ret = corecap_run_open(&run, d->dir, &ro, &err);
		if (ret)
			corecap_error("%s", err ? err : strerror(-ret));
		else
			ret = export_spliced(&sub, &run, &written, out);
		corecap_run_close(&run);
		free(err);
		err = NULL;
	}
	fprintf(out, "\n],\"otherData\":{\"generator\":\"corecap\",\"daemons\":%zu}}\n",
		m.n_daemons);
	if (!ret && ferror(out))
		ret = -EIO;
	corecap_multi_run_close(&m);
	return ret;
}

/*
 * One host's part of a run of several hosts: its run, its clock, its
 * window in its own clock (w0, w1) and on the recording host's (r0, r1).
 */
struct host_part {
	const struct hosts_host *h;
	char *dir; /* its run: the host's, or one daemon's of a host of several (malloc'd) */
	char label[CORECAP_HOSTS_NAME_MAX + 16]; /* NAME, or NAME:PID */
	struct run run;
	bool opened, used;
	struct hosts_align a;
	uint64_t w0, w1;
	int64_t r0, r1;
	int32_t shown_pid;
	char name[160];
};

/* Opens p's host's run and places its window; false (said) when it is left out, *ret an error. */
static bool host_part_open(const struct export_opts *o, struct host_part *p, int *ret)
{
	const struct hosts_host *h = p->h;
	struct run_opts ro = {.symfs = o->symfs};
	char *err = NULL;

	*ret = 0;
	if (!p->dir) {
		corecap_warn("host '%s' is left out: it sent no run (%s%s%s)", h->name, h->status,
			     h->partial_reason ? ": " : "",
			     h->partial_reason ? h->partial_reason : "");
		return false;
	}
	corecap_hosts_align_init(&p->a, h);
	if (!p->a.valid) {
		corecap_warn("host '%s' is left out: its clock was not measured, so its events "
			     "have no place on the recording host's time line (corecap export "
			     "--chrome %s:%s exports them alone)",
			     p->label, o->run, p->label);
		return false;
	}
	*ret = corecap_run_open(&p->run, p->dir, &ro, &err);
	p->opened = true;
	if (!*ret)
		*ret = corecap_run_load_manifest(&p->run, &err);
	if (*ret) {
		corecap_error("host '%s': %s", p->label, err ? err : strerror(-*ret));
		free(err);
		return false;
	}
	if (!p->run.has_manifest || !p->run.manifest.has_window ||
	    p->run.manifest.window_end_ns <= p->run.manifest.window_start_ns) {
		corecap_warn("host '%s' is left out: its run has no recording window to place on "
			     "the time line (a partial run: corecap export --chrome %s:%s exports "
			     "it alone)",
			     p->label, o->run, p->label);
		return false;
	}
	p->w0 = p->run.manifest.window_start_ns;
	p->w1 = p->run.manifest.window_end_ns;
	p->r0 = corecap_hosts_align_to_rec(&p->a, p->w0);
	p->r1 = corecap_hosts_align_to_rec(&p->a, p->w1);
	/* A damaged manifest's clock may put it anywhere: no sum may overflow. */
	if (p->r0 < 0 || p->r1 <= p->r0 || p->r1 > (int64_t)1 << 62) {
		corecap_warn("host '%s' is left out: its clock puts its window outside any time "
			     "line (%+" PRId64 " ns offset)",
			     h->name, p->a.offset_ns);
		return false;
	}
	snprintf(p->name, sizeof(p->name), "%s: %s (pid %d)", h->name,
		 p->run.manifest.comm ? p->run.manifest.comm : h->comm, p->run.manifest.pid);
	return true;
}

/* Exports [hs, he) of p's clock into out, spliced (as export_multi); zero: time 0. */
static int host_part_export(const struct export_opts *o, struct host_part *p, int64_t zero,
			    uint64_t hs, uint64_t he, size_t *written, FILE *out)
{
	struct export_opts sub = *o;

	sub.run = p->dir;
	sub.process_name = p->name;
	sub.run_start_ns = hs;
	sub.run_end_ns = he;
	sub.from_s = 0;
	sub.to_s = -1;
	sub.shift_ns = corecap_hosts_align_to_rec(&p->a, hs) - zero;
	sub.rate = 1 / (1 + p->a.drift);
	sub.shown_pid = p->shown_pid;
	return export_spliced(&sub, &p->run, written, out);
}

/*
 * The parts of a run of several hosts: a part per host, or per daemon of a
 * host of several daemons (each its own process on the time line); *n
 * parts in *out (malloc'd, each part's dir too). 0, or a negative errno.
 */
static int host_parts(struct hosts_run *m, struct host_part **out, size_t *n)
{
	struct host_part *p = calloc(m->n_hosts, sizeof(*p)), *grown;
	size_t cap = m->n_hosts;
	int ret = p ? 0 : -ENOMEM;

	*n = 0;
	for (size_t i = 0; i < m->n_hosts && !ret; i++) {
		const struct hosts_host *h = &m->hosts[i];
		struct multi_run mr;
		char *err = NULL;

		if (!h->dir || !corecap_multi_run_is(h->dir)) {
			p[*n] = (struct host_part){.h = h, .dir = h->dir ? strdup(h->dir) : NULL};
			snprintf(p[*n].label, sizeof(p[*n].label), "%s", h->name);
			ret = h->dir && !p[*n].dir ? -ENOMEM : 0;
			++*n;
			continue;
		}
		ret = corecap_multi_run_open(&mr, h->dir, &err);
		if (ret)
			corecap_error("host '%s': %s", h->name, err ? err : strerror(-ret));
		for (size_t k = 0; !ret && k < mr.n_daemons; k++) {
			if (*n + m->n_hosts >= cap) {
				cap = 2 * cap + mr.n_daemons;
				grown = realloc(p, cap * sizeof(*p));
				if (!grown) {
					ret = -ENOMEM;
					break;
				}
				p = grown;
			}
			p[*n] = (struct host_part){.h = h, .dir = strdup(mr.daemons[k].dir)};
			snprintf(p[*n].label, sizeof(p[*n].label), "%s:%d", h->name,
				 mr.daemons[k].pid);
			ret = p[*n].dir ? 0 : -ENOMEM;
			++*n;
		}
		free(err);
		corecap_multi_run_close(&mr);
	}
	*out = p;
	return ret;
}

/*
 * A run of several hosts: each host's run moved onto the recording host's
 * time line by its clock (offset and drift: read/hosts_run.h), one
 * process per host's daemon ("NAME: comm (pid N)"), spliced into one
 * document as export_multi does. Time 0 is the earliest host's window
 * start (each host's window covers the recording window by the remote
 * shell's latency); each host's whole window is exported, so its part is
 * what 'export --chrome RUN:NAME' writes, moved. otherData says each
 * host's offset, drift and the alignment's bound.
 */
static int export_hosts(const struct export_opts *o, FILE *out)
{
	const struct run_manifest *top;
	struct host_part *p = NULL;
	struct hosts_run m;
	char *err = NULL;
	size_t written = 0, used = 0, n_parts = 0;
	int64_t origin = INT64_MAX, last = INT64_MIN, s, e;
	uint64_t bytes = 0, uncertainty = 0;
	int ret = corecap_hosts_run_open(&m, o->run, &err);

	if (ret) {
		corecap_error("%s", err ? err : strerror(-ret));
		free(err);
		goto out;
	}
	top = &m.manifest;
	ret = host_parts(&m, &p, &n_parts);
	if (ret)
		goto out;
	if (top->has_window && top->window_end_ns > top->window_start_ns) {
		origin = (int64_t)top->window_start_ns;
		last = (int64_t)top->window_end_ns;
	}
	for (size_t i = 0; i < n_parts; i++) {
		if (!host_part_open(o, &p[i], &ret)) {
			if (ret)
				goto out;
			continue;
		}
		p[i].used = true;
		used++;
		origin = p[i].r0 < origin ? p[i].r0 : origin;
		last = p[i].r1 > last ? p[i].r1 : last;
		/* Two hosts' daemons may have one PID: the later one's moves past any PID's
		 * range and the kernel states' (chrome_trace.h), its name keeps its own. */
		p[i].shown_pid = p[i].run.manifest.pid;
		for (size_t k = 0; k < i; k++)
			if (p[k].used && p[k].shown_pid == p[i].shown_pid)
				p[i].shown_pid = 2 * CHROME_KERNEL_PID_OFFSET + (int32_t)i;
	}
	if (!used) {
		corecap_error("no host of '%s' has a run that can be placed on one time line "
			      "(see the warnings above)",
			      o->run);
		ret = -ENODATA;
		goto out;
	}
	s = origin + (int64_t)(o->from_s * 1e9);
	e = o->to_s >= 0 ? origin + (int64_t)(o->to_s * 1e9) : last;
	if (e > last)
		e = last;
	if (s >= e) {
		corecap_error("--from %.3f s is past the %.3f s the hosts' windows span in '%s'",
			      o->from_s, (double)(last - origin) / 1e9, o->run);
		ret = -EINVAL;
		goto out;
	}
	for (size_t i = 0; i < n_parts; i++)
		if (p[i].used)
			bytes += expected_bytes(
				p[i].dir,
				window_share(&p[i].run.manifest,
					     (uint64_t)corecap_hosts_align_to_host(&p[i].a, s),
					     (uint64_t)corecap_hosts_align_to_host(&p[i].a, e)));
	warn_size(o, bytes);
	fputs(splice_head, out);
	for (size_t i = 0; i < n_parts && !ret; i++) {
		int64_t hs, he;
		uint64_t b;

		if (!p[i].used)
			continue;
		hs = corecap_hosts_align_to_host(&p[i].a, s);
		he = corecap_hosts_align_to_host(&p[i].a, e);
		hs = hs > (int64_t)p[i].w0 ? hs : (int64_t)p[i].w0;
		he = he < (int64_t)p[i].w1 ? he : (int64_t)p[i].w1;
		/* The whole span: each host's whole window, not its ends mapped there
		 * and back (a ns off by rounding would leave an event out). */
		if (o->from_s == 0 && o->to_s < 0) {
			hs = (int64_t)p[i].w0;
			he = (int64_t)p[i].w1;
		}
		if (hs >= he) {
			corecap_note("host '%s': its window has no part in the span exported",
				     p[i].label);
			p[i].used = false;
			continue;
		}
		ret = host_part_export(o, &p[i], s, (uint64_t)hs, (uint64_t)he, &written, out);
		/* Its process placed in the hosts' order, and its clock on its label. */
		fprintf(out,
			"%s\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"ts\":0,\"cat\":\"__metadata\","
			"\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%zu}},"
			"\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"ts\":0,\"cat\":\"__metadata\","
			"\"name\":\"process_labels\",\"args\":{\"labels\":\"clock %+.9f s +- %.1f "
			"us\"}}",
			written++ ? "," : "", (int)p[i].shown_pid, i, (int)p[i].shown_pid,
			(double)p[i].a.offset_ns / 1e9, (double)p[i].a.bound_ns / 1e3);
		b = corecap_hosts_align_bound(&p[i].a, p[i].r0);
		uncertainty = b > uncertainty ? b : uncertainty;
		b = corecap_hosts_align_bound(&p[i].a, p[i].r1);
		uncertainty = b > uncertainty ? b : uncertainty;
	}
	fprintf(out,
		"\n],\"otherData\":{\"generator\":\"corecap\",\"clock\":\"the recording host's "
		"CLOCK_MONOTONIC\",\"time_zero_ns\":%" PRId64
		",\"alignment_uncertainty_ns\":%" PRIu64
		",\"alignment\":\"each host's events moved onto the recording host's clock by "
		"its offset and drift (the manifest's); two hosts' events are ordered only to "
		"within the sum of their uncertainties\"",
		s, uncertainty);
	if (top->has_window && top->window_end_ns > top->window_start_ns)
		fprintf(out, ",\"recording_window_us\":[%.3f,%.3f]",
			((double)top->window_start_ns - (double)s) / 1e3,
			((double)top->window_end_ns - (double)s) / 1e3);
	fputs(",\"hosts\":[", out);
	for (size_t i = 0, n = 0; i < n_parts; i++) {
		const struct hosts_align *a = &p[i].a;

		if (!p[i].used)
			continue;
		fprintf(out, "%s{\"name\":\"%s\",\"process\":\"", n++ ? "," : "", p[i].h->name);
		corecap_json_escape(out, p[i].name);
		fprintf(out,
			"\",\"pid\":%d,\"trace_pid\":%d,\"offset_ns\":%" PRId64
			",\"offset_at_ns\":%" PRIu64 ",\"bound_ns\":%" PRIu64,
			p[i].run.manifest.pid, (int)p[i].shown_pid, a->offset_ns, a->at_ns,
			a->bound_ns);
		if (a->has_drift)
			fprintf(out, ",\"drift_ppm\":%.4f,\"drift_bound_ppm\":%.4f", a->drift * 1e6,
				a->drift_bound * 1e6);
		else
			fputs(",\"drift_ppm\":null,\"drift_bound_ppm\":null", out);
		fprintf(out, ",\"uncertainty_ns\":%" PRIu64 ",\"window_us\":[%.3f,%.3f]}",
			corecap_hosts_align_bound(a, p[i].r0) >
					corecap_hosts_align_bound(a, p[i].r1)
				? corecap_hosts_align_bound(a, p[i].r0)
				: corecap_hosts_align_bound(a, p[i].r1),
			(double)(p[i].r0 - s) / 1e3, (double)(p[i].r1 - s) / 1e3);
	}
	fputs("]}}\n", out);
	if (!ret && ferror(out))
		ret = -EIO;
out:
	for (size_t i = 0; p && i < n_parts; i++) {
		if (p[i].opened)
			corecap_run_close(&p[i].run);
		free(p[i].dir);
	}
	free(p);
	corecap_hosts_run_close(&m);
	return ret;
}

/* Where the document goes: the output file, or --gzip's stream into it. */
static FILE *open_output(const struct export_opts *o, struct out_file *out)
{
	FILE *f = o->gzip ? gz_open(out->f) : out->f;

	if (!f)
		corecap_error("cannot start the gzip stream of '%s'", corecap_out_file_name(out));
	return f;
}

/* Ends --gzip's stream (its last bytes into the file); ret, or its error. */
static int close_output(struct out_file *out, FILE *dst, int ret)
{
	if (!dst || dst == out->f)
		return ret;
	if (fclose(dst) && !ret) {
		corecap_error("cannot write '%s': %s", corecap_out_file_name(out), strerror(EIO));
		ret = -EIO;
	}
	return ret;
}

int corecap_cmd_export(int argc, char **argv)
{
	struct export_opts o;
	struct run_opts ro;
	struct out_file out;
	struct run run;
	char *err = NULL;
	FILE *dst;
	int ret;

	ret = parse_args(&o, argc, argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	/* Before any input is read: a FIFO without a reader must not wait (out_file.h). */
	if (corecap_out_file_check(o.output))
		return 1;
	ro = (struct run_opts){.symfs = o.symfs};
	if (corecap_multi_run_is(o.run) || corecap_hosts_run_is(o.run)) {
		bool hosts = corecap_hosts_run_is(o.run);

		if (corecap_out_file_open(&out, o.output) < 0)
			return 1;
		dst = open_output(&o, &out);
		ret = !dst ? -ENOMEM : hosts ? export_hosts(&o, dst) : export_multi(&o, dst);
		ret = close_output(&out, dst, ret);
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
	ret = (dst = open_output(&o, &out)) ? export_chrome(&o, &run, dst) : -ENOMEM;
	ret = close_output(&out, dst, ret);
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
