/*
 * refbench: refosd's client, shaped like `rados bench`. One connection
 * per op in flight (-t), each with one op outstanding; one thread drives
 * them all through epoll, as rados bench drives its completions. write
 * creates objects benchmark_data_<host>_<pid>_object<N> and leaves them,
 * with a metadata object that seq and rand read first. The summary lines
 * carry rados bench's labels and number formats, so one parser reads both.
 * See docs/refosd.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "bench_options.h"
#include "bench_stats.h"
#include "op_log.h"
#include "protocol.h"

#define METADATA_OBJECT	 "benchmark_last_metadata"
#define MB		 1048576.0
#define NAME_MAX_BYTES	 256
#define MAX_ERRORS_SHOWN 5

struct slot {
	int fd;
	bool busy;
	uint64_t tag;
	uint64_t objnum;
	uint64_t sent_ns; /* issued: the op's latency starts */
	uint64_t wire_ns; /* its request handed to the socket */
	uint8_t *rbuf;
	size_t rlen, rcap;
};

struct bench {
	struct bench_options opts;
	char addr[300]; /* "host:port" for messages */
	char prefix[200];
	struct slot *slots;
	int epfd;
	uint8_t *pattern; /* object contents, before the object number is stamped in */
	uint8_t *wbuf;
	uint32_t object_size;
	uint64_t num_objects; /* reads: objects the write left */
	uint64_t next_obj;
	uint64_t client_id; /* the high 32 bits of every tag: the PID */
	uint32_t next_seq;
	uint64_t started, finished, errors;
	uint64_t last_lat_ns;
	uint64_t rand_state;
	struct bench_stats stats;
	struct op_log op_log;
	bool op_log_from_env; /* its file is CORECAP_CLIENT_OPS's, not --op-log's */
};

static volatile sig_atomic_t bench_interrupted;

static void on_sigint(int sig)
{
	bench_interrupted = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bench_connect(struct bench *b, struct slot *s)
{
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai = NULL;
	char port[16];
	int one = 1, r;

	snprintf(port, sizeof(port), "%u", b->opts.port);
	r = getaddrinfo(b->opts.host, port, &hints, &ai);
	if (r) {
		fprintf(stderr, "refbench: cannot resolve '%s': %s\n", b->opts.host,
			gai_strerror(r));
		return -EINVAL;
	}
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || connect(s->fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		r = -errno;
		fprintf(stderr, "refbench: cannot connect to %s: %s\n", b->addr, strerror(errno));
		goto out;
	}
	setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
out:
	freeaddrinfo(ai);
	return r;
}

static void object_name(const struct bench *b, uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%s_object%" PRIu64, b->prefix, n);
}

/* Object n's contents: the pattern with n stamped in the first (up to) 8 bytes. */
static void object_fill(const struct bench *b, uint64_t n, uint8_t *buf)
{
	memcpy(buf, b->pattern, b->object_size);
	for (uint32_t i = 0; i < 8 && i < b->object_size; i++)
		buf[i] = (uint8_t)(n >> (8 * i));
}

static bool object_check(const struct bench *b, uint64_t n, const uint8_t *data, size_t len)
{
	if (len != b->object_size)
		return false;
	for (uint32_t i = 0; i < 8 && i < len; i++)
		if (data[i] != (uint8_t)(n >> (8 * i)))
			return false;
	return len <= 8 || memcmp(data + 8, b->pattern + 8, len - 8) == 0;
}

static int send_all(struct bench *b, int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "refbench: connection to %s lost: %s\n", b->addr,
				strerror(errno));
			return -errno;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static int send_request(struct bench *b, struct slot *s, uint8_t op, const char *name,
			const void *data, uint32_t len)
{
	/*
	 * The tag is the op's id (client id, sequence). It is flagged as one,
	 * so that refosd records it with the op, only when the ops are logged
	 * (--op-log, CORECAP_CLIENT_OPS): otherwise refosd's trace is what it
	 * was, two events per op fewer.
	 */
	struct proto_request req = {
		.op = op,
		.flags = b->op_log.fd >= 0 ? PROTO_FLAG_OP_ID : 0,
		.tag = b->client_id << 32 | ++b->next_seq,
		.name_len = (uint16_t)strlen(name),
		.data_len = len,
	};
	uint8_t hdr[PROTO_REQUEST_HDR];
	struct iovec iov[3] = {
		{.iov_base = hdr, .iov_len = sizeof(hdr)},
		{.iov_base = (void *)name, .iov_len = req.name_len},
		{.iov_base = (void *)data, .iov_len = len},
	};

	proto_encode_request_header(hdr, &req);
	s->tag = req.tag;
	s->rlen = 0;
	s->wire_ns = now_ns();
	return send_all(b, s->fd, iov, len ? 3 : 2);
}

/*
 * Read what is there of s's reply. Returns 1 with *rep set once the reply
 * is whole, 0 when more is needed, or a negative errno (message printed).
 */
static int recv_reply(struct bench *b, struct slot *s, struct proto_reply *rep, bool block)
{
	for (;;) {
		size_t need;
		ssize_t n;
		int r = proto_decode_reply(s->rbuf, s->rlen, rep, &need);

		if (r == 0) {
			if (rep->tag != s->tag) {
				fprintf(stderr,
					"refbench: reply from %s has tag %" PRIu64
					", expected %" PRIu64 "\n",
					b->addr, rep->tag, s->tag);
				return -EBADMSG;
			}
			return 1;
		}
		if (r != -EAGAIN) {
			fprintf(stderr, "refbench: bad reply from %s: %s\n", b->addr,
				proto_strerror(r));
			return r;
		}
		if (need > s->rcap) {
			uint8_t *p = realloc(s->rbuf, need);

			if (!p) {
				fprintf(stderr, "refbench: out of memory\n");
				return -ENOMEM;
			}
			s->rbuf = p;
			s->rcap = need;
		}
		n = recv(s->fd, s->rbuf + s->rlen, s->rcap - s->rlen, block ? 0 : MSG_DONTWAIT);
		if (n > 0) {
			s->rlen += (size_t)n;
			continue;
		}
		if (n == 0) {
			fprintf(stderr, "refbench: connection to %s closed by the daemon\n",
				b->addr);
			return -ECONNRESET;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		fprintf(stderr, "refbench: connection to %s lost: %s\n", b->addr, strerror(errno));
		return -errno;
	}
}

/* A synchronous request on slot 0 (the metadata object). */
static int call(struct bench *b, uint8_t op, const char *name, const void *data, uint32_t len,
		struct proto_reply *rep)
{
	int r = send_request(b, &b->slots[0], op, name, data, len);

	if (r == 0)
		r = recv_reply(b, &b->slots[0], rep, true);
	return r < 0 ? r : 0;
}

static int issue(struct bench *b, struct slot *s, uint64_t now)
{
	char name[NAME_MAX_BYTES];
	uint64_t n;

	switch (b->opts.mode) {
	case BENCH_WRITE:
		n = b->next_obj++;
		break;
	case BENCH_SEQ:
		if (b->next_obj >= b->num_objects)
			return 0;
		n = b->next_obj++;
		break;
	default:
		/* xorshift64: cheap, and good enough to spread reads over the objects. */
		b->rand_state ^= b->rand_state << 13;
		b->rand_state ^= b->rand_state >> 7;
		b->rand_state ^= b->rand_state << 17;
		n = b->rand_state % b->num_objects;
		break;
	}
	object_name(b, n, name, sizeof(name));
	s->objnum = n;
	s->sent_ns = now;
	s->busy = true;
	b->started++;
	if (b->opts.mode == BENCH_WRITE) {
		object_fill(b, n, b->wbuf);
		return send_request(b, s, PROTO_OP_WRITE, name, b->wbuf, b->object_size);
	}
	return send_request(b, s, PROTO_OP_READ, name, NULL, 0);
}

static void complete(struct bench *b, struct slot *s, const struct proto_reply *rep, uint64_t now)
{
	char name[NAME_MAX_BYTES];
	const char *what = b->opts.mode == BENCH_WRITE ? "write" : "read";

	s->busy = false;
	b->finished++;
	b->last_lat_ns = now - s->sent_ns;
	bench_stats_add_latency(&b->stats, b->last_lat_ns);
	op_log_add(&b->op_log, s->tag, what, s->sent_ns, s->wire_ns, now);
	if (rep->status == 0 &&
	    (b->opts.mode == BENCH_WRITE || object_check(b, s->objnum, rep->data, rep->data_len)))
		return;
	if (b->errors++ < MAX_ERRORS_SHOWN) {
		object_name(b, s->objnum, name, sizeof(name));
		if (rep->status)
			fprintf(stderr, "refbench: %s of '%s' failed: %s\n", what, name,
				strerror(-rep->status));
		else
			fprintf(stderr,
				"refbench: read of '%s' returned wrong data (%" PRIu32 " bytes)\n",
				name, rep->data_len);
	}
}

static void fmt_g(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%g", v);
}

static void progress_header(void)
{
	printf("%5s%8s%10s%10s%10s%10s%12s%12s\n", "sec", "Cur ops", "started", "finished",
	       "avg MB/s", "cur MB/s", "last lat(s)", "avg lat(s)");
}

static void progress_row(struct bench *b, unsigned sec, uint64_t cur_ops, unsigned inflight)
{
	char avg_bw[32], cur_bw[32], last[32], avg[32];

	fmt_g(avg_bw, sizeof(avg_bw), sec ? (double)b->finished * b->object_size / MB / sec : 0);
	fmt_g(cur_bw, sizeof(cur_bw), (double)cur_ops * b->object_size / MB);
	if (cur_ops)
		fmt_g(last, sizeof(last), (double)b->last_lat_ns / 1e9);
	else
		snprintf(last, sizeof(last), "-");
	fmt_g(avg, sizeof(avg), bench_stats_mean_s(&b->stats));
	printf("%5u%8u%10" PRIu64 "%10" PRIu64 "%10s%10s%12s%12s\n", sec, inflight, b->started,
	       b->finished, avg_bw, cur_bw, last, avg);
	if (sec % 20 == 19)
		progress_header();
	fflush(stdout);
}

/* Run the timed loop: keep every slot busy until the deadline, then drain. */
static int run(struct bench *b, double *elapsed_s)
{
	struct epoll_event evs[64];
	unsigned t = b->opts.concurrency, inflight = 0, sec = 0;
	uint64_t start = now_ns(), deadline = start + (uint64_t)b->opts.seconds * 1000000000u;
	uint64_t next_tick = start + 1000000000u, finished_at_tick = 0, now = start;
	int r = 0;

	if (b->opts.progress) {
		progress_header();
		progress_row(b, 0, 0, 0);
	}
	for (unsigned i = 0; i < t; i++) {
		r = issue(b, &b->slots[i], now);
		if (r < 0)
			return r;
		inflight += b->slots[i].busy;
	}
	while (inflight) {
		int64_t wait_ns = (int64_t)(next_tick - now);
		int n;

		n = epoll_wait(b->epfd, evs, 64,
			       wait_ns > 0 ? (int)((wait_ns + 999999) / 1000000) : 0);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "refbench: epoll_wait: %s\n", strerror(errno));
			return -errno;
		}
		now = now_ns();
		for (int i = 0; i < n; i++) {
			struct slot *s = &b->slots[evs[i].data.u32];
			struct proto_reply rep;

			r = recv_reply(b, s, &rep, false);
			if (r < 0)
				return r;
			if (r == 0)
				continue;
			if (!s->busy) {
				fprintf(stderr, "refbench: unexpected reply from %s\n", b->addr);
				return -EBADMSG;
			}
			complete(b, s, &rep, now);
			inflight--;
			if (now < deadline && !bench_interrupted) {
				r = issue(b, s, now);
				if (r < 0)
					return r;
				inflight += s->busy;
			}
		}
		while (now >= next_tick) {
			uint64_t cur = b->finished - finished_at_tick;

			finished_at_tick = b->finished;
			sec++;
			/* The run's whole seconds only, not the drain after it. */
			if (next_tick <= deadline && bench_stats_add_second(&b->stats, cur) < 0)
				return -ENOMEM;
			if (b->opts.progress)
				progress_row(b, sec, cur, inflight);
			next_tick += 1000000000u;
		}
	}
	*elapsed_s = (double)(now - start) / 1e9;
	return 0;
}

static void summary(struct bench *b, double elapsed)
{
	bench_stats_print_summary(stdout, &b->stats, b->opts.mode == BENCH_WRITE, b->finished,
				  b->object_size, elapsed);
}

static int write_metadata(struct bench *b)
{
	char meta[512];
	struct proto_reply rep;
	int n = snprintf(meta, sizeof(meta),
			 "refbench-metadata 1\nprefix=%s\nobject_size=%" PRIu32
			 "\nnum_objects=%" PRIu64 "\nop_size=%" PRIu32 "\nprev_pid=%d\n",
			 b->prefix, b->object_size, b->next_obj, b->object_size, (int)getpid());
	int r = call(b, PROTO_OP_WRITE, METADATA_OBJECT, meta, (uint32_t)n, &rep);

	if (r == 0 && rep.status) {
		fprintf(stderr, "refbench: cannot write '%s': %s\n", METADATA_OBJECT,
			strerror(-rep.status));
		r = rep.status;
	}
	return r;
}

static int read_metadata(struct bench *b)
{
	struct proto_reply rep;
	char meta[1024], *p;
	unsigned long long objects = 0;
	unsigned size = 0;
	int r = call(b, PROTO_OP_READ, METADATA_OBJECT, NULL, 0, &rep);

	if (r < 0)
		return r;
	if (rep.status == -ENOENT) {
		fprintf(stderr, "refbench: no '%s' object on %s: run 'refbench ... write' first\n",
			METADATA_OBJECT, b->addr);
		return -ENOENT;
	}
	if (rep.status) {
		fprintf(stderr, "refbench: cannot read '%s': %s\n", METADATA_OBJECT,
			strerror(-rep.status));
		return rep.status;
	}
	snprintf(meta, sizeof(meta), "%.*s", (int)rep.data_len, (const char *)rep.data);
	p = strstr(meta, "prefix=");
	if (!p || sscanf(p, "prefix=%199[^\n]", b->prefix) != 1 || !strstr(meta, "object_size=") ||
	    sscanf(strstr(meta, "object_size="), "object_size=%u", &size) != 1 ||
	    !strstr(meta, "num_objects=") ||
	    sscanf(strstr(meta, "num_objects="), "num_objects=%llu", &objects) != 1 || !size ||
	    size > PROTO_MAX_DATA) {
		fprintf(stderr, "refbench: cannot parse '%s' on %s\n", METADATA_OBJECT, b->addr);
		return -EBADMSG;
	}
	if (!objects) {
		fprintf(stderr, "refbench: the last write left no objects to read\n");
		return -ENOENT;
	}
	b->object_size = size;
	b->num_objects = objects;
	return 0;
}

static int setup(struct bench *b)
{
	char host[128] = "localhost";
	unsigned t = b->opts.concurrency;

	snprintf(b->addr, sizeof(b->addr), "%s:%u", b->opts.host, b->opts.port);
	b->client_id = (uint32_t)getpid();
	if (b->opts.op_log) {
		int r = op_log_open(&b->op_log, b->opts.op_log);

		/* Asked for (--op-log): an error. Offered (CORECAP_CLIENT_OPS): a warning. */
		if (r < 0) {
			fprintf(stderr, "refbench: cannot open '%s': %s%s\n", b->opts.op_log,
				strerror(-r),
				b->op_log_from_env ? " (from CORECAP_CLIENT_OPS: ops not logged)"
						   : "");
			if (!b->op_log_from_env)
				return r;
		}
	}
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	snprintf(b->prefix, sizeof(b->prefix), "benchmark_data_%s_%d", host, (int)getpid());
	b->rand_state = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^ now_ns();
	if (!b->rand_state)
		b->rand_state = 1;
	b->slots = calloc(t, sizeof(*b->slots));
	b->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!b->slots || b->epfd < 0) {
		fprintf(stderr, "refbench: cannot set up: %s\n", strerror(errno ? errno : ENOMEM));
		return -ENOMEM;
	}
	for (unsigned i = 0; i < t; i++)
		b->slots[i].fd = -1;
	for (unsigned i = 0; i < t; i++) {
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
		int r = bench_connect(b, &b->slots[i]);

		if (r < 0)
			return r;
		if (epoll_ctl(b->epfd, EPOLL_CTL_ADD, b->slots[i].fd, &ev) < 0) {
			fprintf(stderr, "refbench: epoll_ctl: %s\n", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* The object buffers, once object_size is known. */
static int setup_buffers(struct bench *b)
{
	b->pattern = malloc(b->object_size);
	b->wbuf = malloc(b->object_size);
	if (!b->pattern || !b->wbuf) {
		fprintf(stderr, "refbench: cannot allocate %" PRIu32 "-byte buffers\n",
			b->object_size);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < b->object_size; i++)
		b->pattern[i] = (uint8_t)(i * 7 + 0x5a);
	return 0;
}

static void teardown(struct bench *b)
{
	for (unsigned i = 0; b->slots && i < b->opts.concurrency; i++) {
		if (b->slots[i].fd >= 0)
			close(b->slots[i].fd);
		free(b->slots[i].rbuf);
	}
	free(b->slots);
	if (b->epfd >= 0)
		close(b->epfd);
	free(b->pattern);
	free(b->wbuf);
	bench_stats_release(&b->stats);
}

/* Closes the op log, saying what it left out; 0 or its write error. */
static int close_op_log(struct bench *b)
{
	int r;

	if (b->op_log.over_cap)
		fprintf(stderr,
			"refbench: '%s' holds the first %" PRIu64 " ops, not the %" PRIu64
			" after them\n",
			b->op_log.path, b->op_log.written, b->op_log.over_cap);
	r = op_log_close(&b->op_log);
	if (r < 0)
		fprintf(stderr, "refbench: cannot write '%s': %s\n", b->op_log.path, strerror(-r));
	return r;
}

int main(int argc, char **argv)
{
	static struct bench b = {.epfd = -1, .op_log.fd = -1};
	struct sigaction sa = {.sa_handler = on_sigint};
	double elapsed = 0;
	char err[256];
	int r, status = 1;

	bench_options_init(&b.opts);
	if (bench_options_parse(&b.opts, argc, argv, err, sizeof(err)) < 0) {
		fprintf(stderr, "refbench: %s\n", err);
		bench_options_usage(stderr);
		return 2;
	}
	if (b.opts.help) {
		bench_options_usage(stdout);
		return 0;
	}
	if (!b.opts.op_log && getenv("CORECAP_CLIENT_OPS") && *getenv("CORECAP_CLIENT_OPS")) {
		b.opts.op_log = getenv("CORECAP_CLIENT_OPS");
		b.op_log_from_env = true;
	}
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	bench_stats_init(&b.stats);

	r = setup(&b);
	if (r < 0)
		goto out;
	if (b.opts.mode == BENCH_WRITE) {
		b.object_size = b.opts.bytes;
		printf("hints = 1\n");
		printf("Maintaining %u concurrent writes of %" PRIu32
		       " bytes to objects of size %" PRIu32 " for up to %u seconds or 0 objects\n",
		       b.opts.concurrency, b.object_size, b.object_size, b.opts.seconds);
		printf("Object prefix: %s\n", b.prefix);
	} else {
		r = read_metadata(&b);
		if (r < 0)
			goto out;
	}
	r = setup_buffers(&b);
	if (r < 0)
		goto out;

	r = run(&b, &elapsed);
	if (r < 0)
		goto out;
	summary(&b, elapsed);
	if (b.opts.mode == BENCH_WRITE && write_metadata(&b) < 0)
		goto out;
	if (bench_interrupted) {
		fprintf(stderr, "refbench: interrupted, summary covers the ops done so far\n");
		goto out;
	}
	if (b.errors) {
		fprintf(stderr, "refbench: %" PRIu64 " of %" PRIu64 " ops failed\n", b.errors,
			b.finished);
		goto out;
	}
	status = 0;
out:
	if (close_op_log(&b) < 0)
		status = 1;
	teardown(&b);
	return status;
}
