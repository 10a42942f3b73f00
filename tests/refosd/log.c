/* log: see log.h. All functions are log_* on purpose (profilers match on the prefix). */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "burn.h"

#define LOG_IOV_MAX (IOV_MAX < 1024 ? IOV_MAX : 1024)

/* Per-thread caches: the thread id, and the date part of the timestamp for the current second. */
static __thread pid_t log_tid_cache;
static __thread time_t log_date_sec = (time_t)-1;
static __thread char log_date_buf[32];

int log_init(struct log *lg, const char *path, int level, unsigned max_new)
{
	int r = 0;

	memset(lg, 0, sizeof(*lg));
	lg->level = level;
	lg->max_new = max_new ? max_new : LOG_MAX_NEW_DEF;
	lg->fd = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (lg->fd < 0) {
		r = -errno;
		goto out;
	}
	lg->own_fd = true;
	pthread_mutex_init(&lg->queue_mutex, NULL);
	pthread_cond_init(&lg->cond_flusher, NULL);
	pthread_cond_init(&lg->cond_loggers, NULL);
out:
	return r;
}

/* Write n iovecs completely, retrying after short writes and EINTR. */
static int log_write_iov(struct log *lg, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(lg->fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		lg->bytes_written += (uint64_t)w;
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

/* Write a batch (a list taken off the queue) and free it. */
static void log_write_batch(struct log *lg, struct log_entry *e)
{
	struct iovec iov[LOG_IOV_MAX];
	struct log_entry *done = e;
	int n = 0, r;

	while (e) {
		for (n = 0; e && n < LOG_IOV_MAX; e = e->next, n++) {
			iov[n].iov_base = e->line;
			iov[n].iov_len = e->len;
			burn_cpu_us(lg->cpu_us);
		}
		r = log_write_iov(lg, iov, n);
		if (r < 0 && !lg->write_error) {
			lg->write_error = r;
			fprintf(stderr, "refosd: cannot write log: %s\n", strerror(-r));
		}
		lg->entries_written += (uint64_t)n;
	}
	while (done) {
		struct log_entry *next = done->next;

		free(done);
		done = next;
	}
}

static void *log_thread_main(void *arg)
{
	struct log *lg = arg;
	struct log_entry *batch;
	bool stopping;

	pthread_setname_np(pthread_self(), "log");
	for (;;) {
		pthread_mutex_lock(&lg->queue_mutex);
		while (!lg->head && !lg->stop)
			pthread_cond_wait(&lg->cond_flusher, &lg->queue_mutex);
		batch = lg->head;
		lg->head = lg->tail = NULL;
		lg->queued = 0;
		stopping = lg->stop;
		if (lg->loggers_waiting)
			pthread_cond_broadcast(&lg->cond_loggers);
		pthread_mutex_unlock(&lg->queue_mutex);
		if (!batch && stopping)
			break;
		log_write_batch(lg, batch);
	}
	return NULL;
}

int log_start(struct log *lg)
{
	int r = pthread_create(&lg->thread, NULL, log_thread_main, lg);

	if (r)
		return -r;
	lg->running = true;
	return 0;
}

int log_stop(struct log *lg)
{
	if (lg->running) {
		pthread_mutex_lock(&lg->queue_mutex);
		lg->stop = true;
		pthread_cond_broadcast(&lg->cond_flusher);
		pthread_cond_broadcast(&lg->cond_loggers);
		pthread_mutex_unlock(&lg->queue_mutex);
		pthread_join(lg->thread, NULL);
		lg->running = false;
	}
	return lg->write_error;
}

void log_release(struct log *lg)
{
	struct log_entry *e = lg->head, *next;

	/* Entries submitted after log_stop() are dropped here. */
	for (; e; e = next) {
		next = e->next;
		free(e);
	}
	lg->head = lg->tail = NULL;
	if (lg->own_fd) {
		close(lg->fd);
		pthread_mutex_destroy(&lg->queue_mutex);
		pthread_cond_destroy(&lg->cond_flusher);
		pthread_cond_destroy(&lg->cond_loggers);
		lg->own_fd = false;
	}
	lg->fd = -1;
}

static pid_t log_thread_id(void)
{
	if (!log_tid_cache)
		log_tid_cache = gettid();
	return log_tid_cache;
}

/*
 * Format the line's prefix, Ceph-like: "2024-05-01T12:34:56.123456+0000 4242 20 osd: ".
 * Not inlined, like log_submit_entry(): profiles and lock sites then name
 * the step of logging they are in.
 */
static __attribute__((noinline)) unsigned log_format_header(struct log_entry *e, char *buf,
							    size_t size)
{
	int n;

	if (e->stamp.tv_sec != log_date_sec) {
		struct tm tm;

		gmtime_r(&e->stamp.tv_sec, &tm);
		strftime(log_date_buf, sizeof(log_date_buf), "%Y-%m-%dT%H:%M:%S", &tm);
		log_date_sec = e->stamp.tv_sec;
	}
	n = snprintf(buf, size, "%s.%06ld+0000 %d %2d %s: ", log_date_buf, e->stamp.tv_nsec / 1000,
		     (int)e->tid, e->level, e->subsys);
	if (n < 0)
		n = 0;
	return (unsigned)n < size ? (unsigned)n : (unsigned)size - 1;
}

/* Append one entry to the queue, waiting while it is full. */
static __attribute__((noinline)) void log_submit_entry(struct log *lg, struct log_entry *e)
{
	e->next = NULL;
	pthread_mutex_lock(&lg->queue_mutex);
	while (lg->queued >= lg->max_new && !lg->stop) {
		lg->loggers_waiting++;
		pthread_cond_wait(&lg->cond_loggers, &lg->queue_mutex);
		lg->loggers_waiting--;
	}
	if (lg->tail)
		lg->tail->next = e;
	else
		lg->head = e;
	lg->tail = e;
	lg->queued++;
	pthread_cond_signal(&lg->cond_flusher);
	pthread_mutex_unlock(&lg->queue_mutex);
}

void log_submitf(struct log *lg, int level, const char *subsys, const char *fmt, ...)
{
	struct log_entry *e;
	unsigned len;
	va_list ap;
	int n;

	if (!log_enabled(lg, level))
		return;
	e = malloc(sizeof(*e));
	if (!e)
		return; /* dropping an entry beats failing an op */
	clock_gettime(CLOCK_REALTIME, &e->stamp);
	e->tid = log_thread_id();
	e->level = level;
	e->subsys = subsys;
	/* Half the line at most for the prefix, so the message always has room. */
	len = log_format_header(e, e->line, sizeof(e->line) / 2);
	va_start(ap, fmt);
	n = vsnprintf(e->line + len, sizeof(e->line) - len - 1, fmt, ap);
	va_end(ap);
	if (n > 0)
		len += (unsigned)n < sizeof(e->line) - len - 1
			       ? (unsigned)n
			       : (unsigned)(sizeof(e->line) - len - 2);
	e->line[len++] = '\n';
	e->len = len;
	log_submit_entry(lg, e);
}
