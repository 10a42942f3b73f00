/* host_spec: the hosts file and the remote shell's words (host_spec.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_spec.h"

int corecap_host_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > CORECAP_HOST_NAME_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

int corecap_host_reach_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > CORECAP_HOST_REACH_MAX || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f)
			return 0;
	return 1;
}

int corecap_host_osd_dir_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > CORECAP_HOST_OSD_DIR_MAX || s[0] != '/' || strstr(s, ".."))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '/' || s[i] == '_' || s[i] == '-' ||
		      s[i] == '.'))
			return 0;
	return 1;
}

int corecap_host_pids_arg(const struct corecap_host *h, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < h->n_pids; i++) {
		int n = snprintf(buf + len, size - len, "%s%d", i ? "," : "", (int)h->pids[i]);

		if (n < 0 || (size_t)n >= size - len)
			return -ENOSPC;
		len += (size_t)n;
	}
	return 0;
}

static int fail(struct corecap_host_spec *spec, unsigned line, const char *why, const char *what)
{
	snprintf(spec->error, sizeof(spec->error), "line %u: %s%s%.64s%s", line, why,
		 what ? " '" : "", what ? what : "", what ? "'" : "");
	return -EINVAL;
}

int corecap_host_pids_parse(struct corecap_host *h, const char *list)
{
	const char *p = list;

	while (*p) {
		char *end;
		long v;

		if (*p < '1' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v <= 0 || v > 4194304 || (*end && *end != ','))
			return -EINVAL;
		if (h->n_pids == CORECAP_HOST_PIDS_MAX)
			return -E2BIG;
		for (size_t i = 0; i < h->n_pids; i++)
			if (h->pids[i] == (pid_t)v)
				return -EEXIST;
		h->pids[h->n_pids++] = (pid_t)v;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return -EINVAL;
	}
	return h->n_pids ? 0 : -EINVAL;
}

static int parse_daemons(struct corecap_host *h, const char *s)
{
	if (strncmp(s, "pid=", 4) == 0)
		return corecap_host_pids_parse(h, s + 4);
	if (strncmp(s, "comm=", 5) == 0) {
		size_t n = strlen(s + 5);

		/* The kernel's comm: at most 15 bytes; printable here, no '/'. */
		if (!n || n >= sizeof(h->comm))
			return -EINVAL;
		for (size_t i = 0; i < n; i++)
			if (s[5 + i] <= 0x20 || s[5 + i] >= 0x7f || s[5 + i] == '/')
				return -EINVAL;
		memcpy(h->comm, s + 5, n + 1);
		return 0;
	}
	if (strcmp(s, "ceph-osds") == 0 || strncmp(s, "ceph-osds=", 10) == 0) {
		if (s[9] && !corecap_host_osd_dir_ok(s + 10))
			return -ENOTDIR;
		h->ceph_osds = true;
		snprintf(h->ceph_osds_dir, sizeof(h->ceph_osds_dir), "%s", s[9] ? s + 10 : "");
		return 0;
	}
	return -EINVAL;
}

int corecap_host_spec_parse(struct corecap_host_spec *spec, const char *text)
{
	unsigned lineno = 0;

	memset(spec, 0, sizeof(*spec));
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char line[CORECAP_HOST_LINE_MAX + 1], *f[4], *save = NULL, *hash;
		struct corecap_host *h;
		int nf = 0, ret;

		lineno++;
		if (len > CORECAP_HOST_LINE_MAX)
			return fail(spec, lineno, "a line over 1024 bytes", NULL);
		memcpy(line, text, len);
		line[len] = '\0';
		text += len + (nl ? 1 : 0);
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (char *w = strtok_r(line, " \t\r", &save); w;
		     w = strtok_r(NULL, " \t\r", &save)) {
			if (nf == 3)
				return fail(spec, lineno, "more than NAME REACH DAEMONS", NULL);
			f[nf++] = w;
		}
		if (nf == 0)
			continue;
		if (nf < 3)
			return fail(spec, lineno, "expected NAME REACH DAEMONS", NULL);
		if (spec->n == CORECAP_HOSTS_MAX)
			return fail(spec, lineno, "more than 16 hosts", NULL);
		if (!corecap_host_name_ok(f[0]))
			return fail(spec, lineno, "bad host name", f[0]);
		if (!corecap_host_reach_ok(f[1]))
			return fail(spec, lineno,
				    "bad destination (printable, not starting with '-')", f[1]);
		for (size_t i = 0; i < spec->n; i++)
			if (strcmp(spec->hosts[i].name, f[0]) == 0)
				return fail(spec, lineno, "host named twice:", f[0]);
		h = &spec->hosts[spec->n];
		memset(h, 0, sizeof(*h));
		ret = parse_daemons(h, f[2]);
		if (ret == -E2BIG)
			return fail(spec, lineno, "more than 16 daemons on one host:", f[2]);
		if (ret == -EEXIST)
			return fail(spec, lineno, "a PID named twice:", f[2]);
		if (ret == -ENOTDIR)
			return fail(spec, lineno,
				    "ceph-osds=DIR: an absolute path of letters, digits, '/', '_', "
				    "'-', '.', no '..', at most 200 bytes, got",
				    f[2]);
		if (ret < 0)
			return fail(spec, lineno,
				    "expected pid=N[,N...], comm=NAME or ceph-osds[=DIR], got",
				    f[2]);
		snprintf(h->name, sizeof(h->name), "%s", f[0]);
		snprintf(h->reach, sizeof(h->reach), "%s", f[1]);
		spec->n++;
	}
	if (!spec->n)
		return fail(spec, lineno, "no host in the file", NULL);
	return 0;
}

int corecap_host_spec_load(struct corecap_host_spec *spec, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), ret;
	char *text = NULL;
	struct stat st;
	size_t len = 0;

	memset(spec, 0, sizeof(*spec));
	if (fd < 0) {
		ret = -errno;
		snprintf(spec->error, sizeof(spec->error), "%s", strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(spec->error, sizeof(spec->error), "%s", strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > CORECAP_HOSTS_FILE_MAX) {
		ret = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		snprintf(spec->error, sizeof(spec->error), "%s",
			 S_ISREG(st.st_mode) ? "over 64 KiB" : "not a regular file");
		goto out_close;
	}
	text = malloc(CORECAP_HOSTS_FILE_MAX + 1);
	if (!text) {
		ret = -ENOMEM;
		goto out_close;
	}
	/* Bounded whatever the file does while read (it may grow). */
	while (len <= CORECAP_HOSTS_FILE_MAX) {
		ssize_t got = read(fd, text + len, CORECAP_HOSTS_FILE_MAX + 1 - len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	if (len > CORECAP_HOSTS_FILE_MAX) {
		ret = -EFBIG;
		snprintf(spec->error, sizeof(spec->error), "over 64 KiB");
		goto out_free;
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		ret = fail(spec, 0, "a NUL byte in the file", NULL);
		goto out_free;
	}
	ret = corecap_host_spec_parse(spec, text);
out_free:
	free(text);
out_close:
	close(fd);
	return ret;
}

int corecap_rsh_argv(const char *rsh, const char *reach, const char *const cmd[], char **copy,
		     char *words[], size_t max)
{
	size_t n = 0;
	char *save = NULL;

	*copy = strdup(rsh);
	if (!*copy)
		return -ENOMEM;
	for (char *w = strtok_r(*copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (n + 1 >= max)
			return -EINVAL;
		words[n++] = w;
	}
	if (!n)
		return -EINVAL;
	if (n + 2 >= max)
		return -EINVAL;
	words[n++] = (char *)reach;
	for (size_t i = 0; cmd[i]; i++) {
		if (n + 1 >= max)
			return -EINVAL;
		words[n++] = (char *)cmd[i];
	}
	words[n] = NULL;
	return 0;
}
