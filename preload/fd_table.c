#include <corecap/stats_layout.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd_table.h"

struct fd_table g_fds;

void fd_table_init(struct fd_table *t, const struct settings *s)
{
	memset(t->cls, 0, sizeof(t->cls));
	memset(t->request, 0, sizeof(t->request));
	t->settings = s;
}

bool glob_match(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*p == '*') {
			star = p++;
			resume = s;
		} else if (*p == '?' || *p == *s) {
			p++;
			s++;
		} else if (star) {
			/* Let the last '*' swallow one more character. */
			p = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

static bool matches_any(const char *const *pattern, uint32_t n, const char *path)
{
	for (uint32_t i = 0; i < n; i++)
		if (glob_match(pattern[i], path))
			return true;
	return false;
}

bool fd_table_is_log_path(const struct fd_table *t, const char *path)
{
	return t->settings && matches_any(t->settings->pattern, t->settings->n_patterns, path);
}

int fd_table_path_class(const struct fd_table *t, const char *path)
{
	if (fd_table_is_log_path(t, path))
		return CORECAP_IO_LOG;
	if (t->settings &&
	    matches_any(t->settings->journal_pattern, t->settings->n_journal_patterns, path))
		return CORECAP_IO_JOURNAL;
	return -1;
}

/* The lazy classification described in the header; raw syscalls only. */
static int classify(const struct fd_table *t, int fd)
{
	struct stat st;
	char link[64], path[512];
	long n;

	if (syscall(SYS_fstat, fd, &st) < 0)
		return CORECAP_IO_OTHER;
	if (S_ISSOCK(st.st_mode))
		return CORECAP_IO_NET;
	if (fd == 1 || fd == 2)
		return CORECAP_IO_LOG;
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return CORECAP_IO_OTHER;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = syscall(SYS_readlink, link, path, sizeof(path) - 1);
	if (n > 0) {
		int c;

		path[n] = '\0';
		c = fd_table_path_class(t, path);
		if (c >= 0)
			return c;
	}
	return CORECAP_IO_DATA;
}

int fd_table_classify(struct fd_table *t, int fd)
{
	int c;
	int saved_errno;

	if (fd < 0)
		return CORECAP_IO_OTHER;
	saved_errno = errno;
	c = classify(t, fd);
	errno = saved_errno;
	if (fd < FD_TABLE_SIZE)
		__atomic_store_n(&t->cls[fd], (uint8_t)(c + 1), __ATOMIC_RELAXED);
	return c;
}

void fd_table_set(struct fd_table *t, int fd, int io_class)
{
	if (fd >= 0 && fd < FD_TABLE_SIZE) {
		__atomic_store_n(&t->cls[fd], (uint8_t)(io_class + 1), __ATOMIC_RELAXED);
		__atomic_store_n(&t->request[fd], 0, __ATOMIC_RELAXED);
	}
}

void fd_table_forget(struct fd_table *t, int fd)
{
	if (fd >= 0 && fd < FD_TABLE_SIZE) {
		__atomic_store_n(&t->cls[fd], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&t->request[fd], 0, __ATOMIC_RELAXED);
	}
}

void fd_table_copy(struct fd_table *t, int from, int to)
{
	uint8_t c = 0;

	if (to < 0 || to >= FD_TABLE_SIZE)
		return;
	if (from >= 0 && from < FD_TABLE_SIZE)
		c = __atomic_load_n(&t->cls[from], __ATOMIC_RELAXED);
	__atomic_store_n(&t->cls[to], c, __ATOMIC_RELAXED);
	__atomic_store_n(&t->request[to], 0, __ATOMIC_RELAXED);
}

void fd_table_opened(struct fd_table *t, int fd, const char *path)
{
	int c = path ? fd_table_path_class(t, path) : -1;

	if (c >= 0)
		fd_table_set(t, fd, c);
	else
		fd_table_forget(t, fd);
}
