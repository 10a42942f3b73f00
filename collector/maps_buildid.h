/*
 * Saves what symbolization needs later: the daemon's /proc/PID/maps,
 * verbatim, and the GNU build-id of each mapped ELF file.
 *
 * ELF files are opened through /proc/PID/root, so a daemon in another
 * mount namespace (a container) gets its own files' build-ids.
 */
#ifndef CORECAP_COLLECTOR_MAPS_BUILDID_H
#define CORECAP_COLLECTOR_MAPS_BUILDID_H

#include <stddef.h>
#include <sys/types.h>

struct corecap_run_dir;

struct corecap_maps_buildid {
	size_t n_files; /* distinct mapped files */
	size_t n_ids;	/* of which had a build-id */
	size_t maps_bytes;
};

/* Writes RUN/maps and RUN/buildids.tsv; -errno with a message on failure. */
int corecap_maps_buildid_save(struct corecap_maps_buildid *mb, pid_t pid,
			      struct corecap_run_dir *rd);

/* The build-id of the ELF file open at fd, as lowercase hex; -ENOENT when it has none. */
int corecap_elf_build_id(int fd, char *hex, size_t size);

#endif
