/*
 * struct line_in: lines from a remote shell's pipe, bounded in length and
 * in time (the remote's replies are untrusted input): clock_sync's pings
 * and host_record's agent protocol read through it.
 */
#ifndef CORECAP_COLLECTOR_LINE_IN_H
#define CORECAP_COLLECTOR_LINE_IN_H

#include <stdbool.h>
#include <stddef.h>

#define CORECAP_LINE_IN_MAX 64 /* a protocol line's bytes, its newline included */

struct line_in {
	int fd;
	bool bytewise; /* read one byte at a time: what follows the last line stays in the pipe */
	char buf[CORECAP_LINE_IN_MAX + 1];
	size_t len;
	/* Optional: asked on EINTR whether to give up (-EINTR) rather than wait on. */
	bool (*give_up)(void *ctx);
	void *ctx;
};

/*
 * The next line into line (at least CORECAP_LINE_IN_MAX + 1 bytes; its
 * newline dropped), waiting at most timeout_ms in all: 0, -ETIMEDOUT,
 * -EPIPE at EOF, -EPROTO for a line over CORECAP_LINE_IN_MAX bytes,
 * -EINTR when give_up said so, or -errno.
 */
int corecap_line_in_read(struct line_in *l, int timeout_ms, char *line);

#endif
