/* op_log: see op_log.h. */
#include "op_log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define OP_LOG_HEADER	"# client_op\ttype\tissue_ns\tsend_ns\trecv_ns\n"
#define OP_LOG_LINE_MAX 128

static void flush(struct op_log *l)
{
	size_t off = 0;

	while (off < l->len && !l->error) {
		ssize_t w = write(l->fd, l->buf + off, l->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			l->error = w < 0 ? -errno : -EIO;
		else
			off += (size_t)w;
	}
	l->len = 0;
}

int op_log_open(struct op_log *l, const char *path)
{
	struct stat st;

	l->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	l->path = path;
	l->len = 0;
	l->written = l->over_cap = 0;
	l->error = 0;
	if (l->fd < 0)
		return -errno;
	/* The header once, by whoever finds the file empty (a reader skips '#' lines). */
	if (fstat(l->fd, &st) == 0 && st.st_size == 0 &&
	    write(l->fd, OP_LOG_HEADER, sizeof(OP_LOG_HEADER) - 1) < 0)
		l->error = -errno;
	return 0;
}

void op_log_add(struct op_log *l, uint64_t op_id, const char *type, uint64_t issue_ns,
		uint64_t send_ns, uint64_t recv_ns)
{
	int n;

	if (l->fd < 0 || l->error)
		return;
	if (l->written == OP_LOG_MAX_OPS) {
		l->over_cap++;
		return;
	}
	if (l->len + OP_LOG_LINE_MAX > sizeof(l->buf))
		flush(l);
	n = snprintf(l->buf + l->len, OP_LOG_LINE_MAX,
		     "%" PRIu64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", op_id, type,
		     issue_ns, send_ns, recv_ns);
	if (n > 0 && n < OP_LOG_LINE_MAX) {
		l->len += (size_t)n;
		l->written++;
	}
}

int op_log_close(struct op_log *l)
{
	if (l->fd < 0)
		return 0;
	flush(l);
	close(l->fd);
	l->fd = -1;
	return l->error;
}
