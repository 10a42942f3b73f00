/*
 * Saves what symbolization needs later: the daemon's /proc/PID/maps,
 * verbatim, the GNU build-id of each mapped ELF file and the image of its
 * vDSO.
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
	size_t vdso_bytes; /* RUN/vdso.so, 0 when not saved */
};

/* A [vdso] mapping larger than this is not saved (today's are 8 KiB). */
#define CORECAP_VDSO_MAX_BYTES (1u << 20)

/* Writes RUN/maps, RUN/buildids.tsv and RUN/vdso.so; -errno with a message on failure. */
int corecap_maps_buildid_save(struct corecap_maps_buildid *mb, pid_t pid,
			      struct corecap_run_dir *rd);

/* The build-id of the ELF file open at fd, as lowercase hex; -ENOENT when it has none. */
int corecap_elf_build_id(int fd, char *hex, size_t size);

#endif
