/* cache_dir: see cache_dir.h. */
#include "cache_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <corecap/diag.h>

/* Creates path (mode 0700) unless it exists: 0 or -errno. */
static int make_dir(const char *path)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}

int corecap_cache_dir_open(const char *sub, const char *what, const char *without)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *base = NULL, *mid = NULL, *dir = NULL;
	int fd = -1, ret;

	if (xdg && xdg[0] == '/')
		ret = asprintf(&base, "%s", xdg);
	else if (home && home[0] == '/')
		ret = asprintf(&base, "%s/.cache", home);
	else
		return -1; /* nowhere to cache: quietly without */
	if (ret < 0)
		return -1;
	if (asprintf(&mid, "%s/corecap", base) < 0)
		mid = NULL;
	else if (asprintf(&dir, "%s%s%s", mid, sub ? "/" : "", sub ? sub : "") < 0)
		dir = NULL;
	if (mid && dir) {
		if ((ret = make_dir(base)) || (ret = make_dir(mid)) ||
		    (sub && (ret = make_dir(dir))))
			corecap_warn("cannot create the %s '%s': %s; %s", what, dir, strerror(-ret),
				     without);
		else
			fd = corecap_cache_dir_check(dir, what, without);
	}
	free(base);
	free(mid);
	free(dir);
	return fd;
}

int corecap_cache_dir_check(const char *dir, const char *what, const char *without)
{
	struct stat st;
	int fd;

	/* Checked on the open directory itself, not on a path that may change under us. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		corecap_warn("cannot open the %s '%s': %s; %s", what, dir, strerror(errno),
			     without);
		return -1;
	}
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		corecap_warn("the %s '%s' is not yours or others may write to it: not used", what,
			     dir);
		close(fd);
		return -1;
	}
	return fd;
}
