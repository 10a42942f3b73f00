/*
 * xrdbench: a rados-bench-like load generator that speaks the XRootD
 * protocol itself (xrd_proto, xrd_conn): one connection and one thread
 * per concurrent stream, each keeping one synchronous request in flight
 * (kXR_read, kXR_write, kXR_stat or kXR_ping of B bytes) for D seconds.
 * It prints rados bench's summary labels (so `corecap record -- xrdbench
 * ...` parses it like rados bench and refbench) and p50/p99/p99.9.
 * See docs/xrootd.md.
 *
 * Exit status: 0 ok; 1 when the server refuses the connection, answers
 * with a kXR_error (its message is quoted), drops the connection, or the
 * run is interrupted; 2 for bad usage.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"
#include "xrd_conn.h"
#include "xrd_proto.h"

#define MAX_STREAMS 1024
#define MAX_BYTES   (64u << 20)

enum mode { MODE_READ, MODE_WRITE, MODE_STAT, MODE_PING };
static const char *const mode_names[] = {"read", "write", "stat", "ping"};

struct options {
	const char *host;
	unsigned port;
	unsigned streams;
	unsigned bytes;
	uint64_t run_ms;    /* -d, in milliseconds */
	const char *prefix; /* files are PREFIX.<pid>.<stream> */
	const char *user;
	enum mode mode;
};

struct bench;

struct stream {
	struct bench *bench;
	struct xrd_conn conn;
	pthread_t thread;
	unsigned index;
	uint8_t fh[4];
	bool have_file;
	char path[PATH_MAX];
	struct bench_stats stats;
	_Atomic uint64_t done;
	int result; /* 0, or the negative errno of its failure (conn.err says why) */
};

struct bench {
	struct options o;
	struct stream *s;
	pthread_barrier_t ready, go;
	_Atomic bool stop;
	uint64_t deadline_ns;
	uint8_t *wbuf;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xrdbench -p PORT [-H HOST] [-t CONCURRENCY] [-b BYTES] [-d SECONDS]\n"
		   "                [-P PATH_PREFIX] [-u USER] read|write|stat|ping\n"
		   "\n"
		   "  -H HOST        the xrootd server (default 127.0.0.1)\n"
		   "  -p PORT        its port (required)\n"
		   "  -t N           concurrent streams: one connection and one request in\n"
		   "                 flight each (default 16, at most 1024)\n"
		   "  -b BYTES       bytes per kXR_read / kXR_write (default 4096, up to 64 MiB)\n"
		   "  -d SECONDS     run time, to the millisecond (default 10)\n"
		   "  -P PREFIX      the files' path prefix on the server (default /xrdbench):\n"
		   "                 PREFIX.<pid>.<stream>, removed at the end\n"
		   "  -u USER        login name (default corecap)\n"
		   "\n"
		   "read: each stream writes BYTES into its file once, then reads them back;\n"
		   "write: rewrites them at offset 0; stat: kXR_stat of its file by path;\n"
		   "ping: kXR_ping (no file).\n");
}

static int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* "SECONDS" or "SECONDS.FRACTION" (to the millisecond), within 0.001..86400 s. */
static int parse_ms(const char *s, uint64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.001 && v <= 86400))
		return -EINVAL;
	*out = (uint64_t)(v * 1000 + 0.5);
	return 0;
}

static int parse_options(struct options *o, int argc, char **argv)
{
	int c;
	bool have_port = false;

	*o = (struct options){.host = "127.0.0.1",
			      .streams = 16,
			      .bytes = 4096,
			      .run_ms = 10000,
			      .prefix = "/xrdbench",
			      .user = "corecap"};
	opterr = 0;
	while ((c = getopt(argc, argv, "+H:p:t:b:d:P:u:h")) != -1) {
		switch (c) {
		case 'H':
			o->host = optarg;
			break;
		case 'p':
			if (parse_uint(optarg, 1, 65535, &o->port) < 0) {
				fprintf(stderr, "xrdbench: -p '%s': not a port (1..65535)\n",
					optarg);
				return -EINVAL;
			}
			have_port = true;
			break;
		case 't':
			if (parse_uint(optarg, 1, MAX_STREAMS, &o->streams) < 0) {
				fprintf(stderr, "xrdbench: -t '%s': not within 1..%u\n", optarg,
					MAX_STREAMS);
				return -EINVAL;
			}
			break;
		case 'b':
			if (parse_uint(optarg, 1, MAX_BYTES, &o->bytes) < 0) {
				fprintf(stderr, "xrdbench: -b '%s': not within 1..%u\n", optarg,
					MAX_BYTES);
				return -EINVAL;
			}
			break;
		case 'd':
			if (parse_ms(optarg, &o->run_ms) < 0) {
				fprintf(stderr, "xrdbench: -d '%s': not within 0.001..86400 s\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'P':
			if (optarg[0] != '/' || strlen(optarg) > PATH_MAX - 32) {
				fprintf(stderr, "xrdbench: -P '%s': needs an absolute path\n",
					optarg);
				return -EINVAL;
			}
			o->prefix = optarg;
			break;
		case 'u':
			if (!optarg[0] || strlen(optarg) > 8) {
				fprintf(stderr, "xrdbench: -u '%s': 1 to 8 characters\n", optarg);
				return -EINVAL;
			}
			o->user = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "xrdbench: unknown option or missing value: '-%c'\n",
				optopt);
			return -EINVAL;
		}
	}
	if (!have_port) {
		fprintf(stderr, "xrdbench: -p PORT is required\n");
		return -EINVAL;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "xrdbench: give one mode: read, write, stat or ping\n");
		return -EINVAL;
	}
	for (c = 0; c < 4; c++)
		if (strcmp(argv[optind], mode_names[c]) == 0)
			break;
	if (c == 4) {
		fprintf(stderr, "xrdbench: unknown mode '%s' (read, write, stat, ping)\n",
			argv[optind]);
		return -EINVAL;
	}
	o->mode = (enum mode)c;
	return 0;
}

/* The stream's file: created (or truncated) and, for reads and stats, BYTES long. */
static int setup_file(struct bench *b, struct stream *s)
{
	uint8_t hdr[XRD_REQ_HDR];
	int r;

	snprintf(s->path, sizeof(s->path), "%s.%d.%u", b->o.prefix, (int)getpid(), s->index);
	r = xrd_conn_open_file(&s->conn, s->path,
			       XRD_OPEN_DELETE | XRD_OPEN_UPDATE | XRD_OPEN_MKPATH, s->fh);
	if (r < 0)
		return r;
	s->have_file = true;
	if (b->o.mode == MODE_READ || b->o.mode == MODE_STAT) {
		xrd_encode_write(hdr, s->conn.sid, s->fh, 0, b->o.bytes);
		r = xrd_conn_call(&s->conn, hdr, b->wbuf);
	}
	return r;
}

/* Close and remove the stream's file; a failure here only warns. */
static void teardown_file(struct stream *s)
{
	uint8_t hdr[XRD_REQ_HDR];

	if (!s->have_file || s->conn.fd < 0)
		return;
	xrd_encode_close(hdr, s->conn.sid, s->fh);
	if (xrd_conn_call(&s->conn, hdr, NULL) == 0) {
		xrd_encode_rm(hdr, s->conn.sid, (uint32_t)strlen(s->path));
		if (xrd_conn_call(&s->conn, hdr, s->path) == 0)
			return;
	}
	fprintf(stderr, "xrdbench: warning: cannot remove '%s': %s\n", s->path, s->conn.err);
}

static int run_stream(struct bench *b, struct stream *s)
{
	uint8_t hdr[XRD_REQ_HDR];
	const void *payload = NULL;

	switch (b->o.mode) {
	case MODE_READ:
		xrd_encode_read(hdr, s->conn.sid, s->fh, 0, b->o.bytes);
		break;
	case MODE_WRITE:
		xrd_encode_write(hdr, s->conn.sid, s->fh, 0, b->o.bytes);
		payload = b->wbuf;
		break;
	case MODE_STAT:
		xrd_encode_stat(hdr, s->conn.sid, s->fh, (uint32_t)strlen(s->path));
		payload = s->path;
		break;
	case MODE_PING:
		xrd_encode_ping(hdr, s->conn.sid);
		break;
	}
	while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
		uint64_t t0 = now_ns(), t1;
		int r = xrd_conn_call(&s->conn, hdr, payload);

		if (r < 0)
			return r;
		t1 = now_ns();
		if (b->o.mode == MODE_READ && s->conn.body_len != b->o.bytes) {
			snprintf(s->conn.err, sizeof(s->conn.err),
				 "%s: kXR_read of %u bytes of '%.200s' returned %zu", s->conn.addr,
				 b->o.bytes, s->path, s->conn.body_len);
			return -EIO;
		}
		bench_stats_add_latency(&s->stats, t1 - t0);
		atomic_fetch_add_explicit(&s->done, 1, memory_order_relaxed);
		if (t1 >= b->deadline_ns)
			break;
	}
	return 0;
}

static void *stream_thread(void *arg)
{
	struct stream *s = arg;
	struct bench *b = s->bench;
	int r;

	r = xrd_conn_open(&s->conn, b->o.host, b->o.port, b->o.user);
	if (r == 0 && b->o.mode != MODE_PING)
		r = setup_file(b, s);
	s->result = r;
	pthread_barrier_wait(&b->ready);
	pthread_barrier_wait(&b->go); /* the main thread set the deadline, or stop */
	if (s->result == 0 && !atomic_load(&b->stop))
		s->result = run_stream(b, s);
	if (s->result < 0)
		atomic_store(&b->stop, true);
	else
		teardown_file(s);
	return NULL;
}

/* rados bench's summary; stat and ping move no bytes. */
static void summary(const struct bench *b, const struct bench_stats *st, double elapsed)
{
	bool w = b->o.mode == MODE_WRITE;

	bench_stats_print_summary(stdout, st, w, st->count,
				  b->o.mode == MODE_READ || w ? b->o.bytes : 0, elapsed);
}

static uint64_t total_done(const struct bench *b)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < b->o.streams; i++)
		n += atomic_load_explicit(&b->s[i].done, memory_order_relaxed);
	return n;
}

/* Per-second counts while the streams run, until the deadline or a stop. */
static void tick(struct bench *b, struct bench_stats *all, uint64_t start)
{
	uint64_t next = start + 1000000000u, last = 0;

	while (!atomic_load(&b->stop) && next <= b->deadline_ns) {
		struct timespec ts = {.tv_sec = (time_t)(next / 1000000000u),
				      .tv_nsec = (long)(next % 1000000000u)};
		uint64_t n;

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR ||
		    interrupted) {
			atomic_store(&b->stop, true);
			break;
		}
		n = total_done(b);
		if (bench_stats_add_second(all, n - last) < 0)
			break;
		last = n;
		next += 1000000000u;
	}
}

int main(int argc, char **argv)
{
	struct bench b = {0};
	struct bench_stats all;
	struct sigaction sa = {.sa_handler = on_signal};
	uint64_t start = 0, end;
	unsigned i, started = 0;
	int status = 1, failed = -1;

	if (parse_options(&b.o, argc, argv) < 0) {
		usage(stderr);
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	bench_stats_init(&all);
	b.s = calloc(b.o.streams, sizeof(*b.s));
	b.wbuf = malloc(b.o.bytes);
	if (!b.s || !b.wbuf) {
		fprintf(stderr, "xrdbench: out of memory for %u streams of %u bytes\n", b.o.streams,
			b.o.bytes);
		goto out;
	}
	for (i = 0; i < b.o.bytes; i++)
		b.wbuf[i] = (uint8_t)('a' + i % 26);
	pthread_barrier_init(&b.ready, NULL, b.o.streams + 1);
	pthread_barrier_init(&b.go, NULL, b.o.streams + 1);
	for (i = 0; i < b.o.streams; i++) {
		struct stream *s = &b.s[i];

		s->index = i;
		s->bench = &b;
		xrd_conn_init(&s->conn, (uint16_t)(i + 1));
		bench_stats_init(&s->stats);
		if (pthread_create(&s->thread, NULL, stream_thread, s) != 0) {
			fprintf(stderr, "xrdbench: cannot start stream %u: %s\n", i,
				strerror(errno));
			/* The barriers count every stream: without it, nobody gets past them. */
			abort();
		}
		started++;
	}
	pthread_barrier_wait(&b.ready);
	for (i = 0; i < b.o.streams; i++)
		if (b.s[i].result < 0) {
			atomic_store(&b.stop, true);
			break;
		}
	if (!atomic_load(&b.stop)) {
		printf("Maintaining %u concurrent %ss of %u bytes for up to %g seconds\n",
		       b.o.streams, mode_names[b.o.mode],
		       b.o.mode == MODE_READ || b.o.mode == MODE_WRITE ? b.o.bytes : 0,
		       (double)b.o.run_ms / 1e3);
		fflush(stdout);
	}
	start = now_ns();
	b.deadline_ns = start + b.o.run_ms * 1000000u;
	pthread_barrier_wait(&b.go);
	if (!atomic_load(&b.stop))
		tick(&b, &all, start);
	for (i = 0; i < started; i++)
		pthread_join(b.s[i].thread, NULL);
	end = now_ns();
	for (i = 0; i < b.o.streams; i++) {
		bench_stats_merge(&all, &b.s[i].stats);
		if (failed < 0 && b.s[i].result < 0)
			failed = (int)i;
	}
	if (all.count)
		summary(&b, &all, (double)(end - start) / 1e9);
	if (failed >= 0) {
		fprintf(stderr, "xrdbench: %s\n", b.s[failed].conn.err);
		goto out;
	}
	if (interrupted) {
		fprintf(stderr, "xrdbench: interrupted, the summary covers the ops done so far\n");
		goto out;
	}
	status = 0;
out:
	if (b.s)
		for (i = 0; i < b.o.streams; i++) {
			xrd_conn_release(&b.s[i].conn);
			bench_stats_release(&b.s[i].stats);
		}
	free(b.s);
	free(b.wbuf);
	bench_stats_release(&all);
	return status;
}
