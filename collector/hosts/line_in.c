#include "line_in.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "util/mono_clock.h"

int corecap_line_in_read(struct line_in *l, int timeout_ms, char *line)
{
	uint64_t deadline = corecap_now_ns() + (uint64_t)timeout_ms * 1000000u;

	for (;;) {
		char *nl = memchr(l->buf, '\n', l->len);
		struct pollfd pfd = {.fd = l->fd, .events = POLLIN};
		uint64_t now;
		ssize_t got;

		if (nl) {
			size_t n = (size_t)(nl - l->buf);

			memcpy(line, l->buf, n);
			line[n] = '\0';
			l->len -= n + 1;
			memmove(l->buf, nl + 1, l->len);
			return 0;
		}
		if (l->len >= CORECAP_LINE_IN_MAX)
			return -EPROTO;
		now = corecap_now_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1) < 0) {
			if (errno == EINTR && l->give_up && l->give_up(l->ctx))
				return -EINTR;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!pfd.revents)
			continue;
		got = read(l->fd, l->buf + l->len, l->bytewise ? 1 : CORECAP_LINE_IN_MAX - l->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -EPIPE;
		l->len += (size_t)got;
	}
}
