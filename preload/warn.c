#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "warn.h"

int write_all(int fd, const char *buf, size_t len)
{
	int ret = 0;

	while (len > 0) {
		long n = syscall(SYS_write, fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		buf += n;
		len -= (size_t)n;
	}
	return ret;
}

void warn_line(const char *fmt, ...)
{
	char line[512];
	int saved_errno = errno;
	int n = snprintf(line, sizeof(line), "corecap: ");
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	write_all(2, line, (size_t)n);
	errno = saved_errno;
}
