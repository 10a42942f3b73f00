/*
 * host_tar: a remote host's run directory, received as a ustar stream over
 * the remote shell (docs/hosts.md), written under a directory of ours.
 *
 * The stream is untrusted input: only POSIX ustar headers with a valid
 * checksum, only regular files and directories (no links, devices, FIFOs,
 * GNU or pax extensions), every member under TOP/ (the one directory the
 * remote sent), no empty, "." or ".." component, at most
 * CORECAP_TAR_DEPTH_MAX deep; sizes bounded per file and in all. Members
 * are made through openat() from the destination's descriptor with
 * O_NOFOLLOW, files with O_EXCL (mode 0600), directories 0700, so nothing
 * outside it is touched and nothing in it replaced. A stream that breaks a
 * rule stops at that member with -EPROTO and the reason in `error`;
 * what was written before stays (the caller decides).
 */
#ifndef CORECAP_COLLECTOR_HOST_TAR_H
#define CORECAP_COLLECTOR_HOST_TAR_H

#include <stddef.h>
#include <stdint.h>

#define CORECAP_TAR_DEPTH_MAX 16

struct corecap_host_tar {
	int in_fd;	    /* the stream */
	int dir_fd;	    /* the destination: TOP/x is written as x in it */
	const char *top;    /* the one top directory's name the stream must use */
	uint64_t max_bytes; /* the whole stream's bound */
	int timeout_ms;	    /* each read's bound */
	uint64_t bytes;	    /* read so far */
	size_t files, dirs;
	char error[256];
};

/* Reads the stream to its end and writes its members; 0 or -errno. */
int corecap_host_tar_extract(struct corecap_host_tar *t);

#endif
