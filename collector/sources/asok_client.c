#include "asok_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <corecap/diag.h>
#include "util/run_dir.h"

static int read_all(int fd, char *p, size_t n)
{
	while (n > 0) {
		ssize_t got = read(fd, p, n);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0)
			return -EPIPE;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

int corecap_asok_command(const char *path, const char *cmd, char **out, size_t *len_out)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 30};
	uint32_t be_len;
	char *buf = NULL;
	int fd, ret;

	*out = NULL;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		goto out_close_fd;
	}
	ret = corecap_write_all(fd, cmd, strlen(cmd) + 1); /* the '\0' ends the command */
	if (ret < 0)
		goto out_close_fd;
	ret = read_all(fd, (char *)&be_len, sizeof(be_len));
	if (ret < 0)
		goto out_close_fd;
	be_len = ntohl(be_len);
	if (be_len > CORECAP_ASOK_REPLY_MAX) {
		ret = -EMSGSIZE;
		goto out_close_fd;
	}
	buf = malloc((size_t)be_len + 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close_fd;
	}
	ret = read_all(fd, buf, be_len);
	if (ret < 0) {
		free(buf);
		goto out_close_fd;
	}
	buf[be_len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = be_len;
out_close_fd:
	close(fd);
	return ret;
}

int corecap_asok_config_set(const char *path, const char *var, const char *val, bool warn)
{
	char cmd[200], *reply;
	int ret;

	snprintf(cmd, sizeof(cmd),
		 "{\"prefix\": \"config set\", \"var\": \"%s\", \"val\": [\"%s\"]}", var, val);
	ret = corecap_asok_command(path, cmd, &reply, NULL);
	if (ret == 0) {
		if (!strstr(reply, "success"))
			ret = -EINVAL;
		free(reply);
	}
	if (ret < 0 && warn)
		corecap_warn("cannot set '%s' to %s through admin socket '%s': %s", var, val, path,
			     ret == -EINVAL ? "refused" : strerror(-ret));
	return ret;
}
