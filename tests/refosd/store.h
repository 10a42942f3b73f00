/*
 * store: the object store behind refosd's ops, in memory or one file per
 * object in a directory.
 *
 * Guarantees: store_write() followed by store_read() of the same name
 * returns the bytes written, whatever threads call them (the memory store
 * guards each of its STORE_STRIPES hash tables with its own mutex, held
 * only for the table operation; the dir store relies on the file system).
 * With fsync on, a dir-store write returns after fsync(2) of the object.
 */
#ifndef REFOSD_STORE_H
#define REFOSD_STORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STORE_STRIPES 64

struct store_object;

struct store_stripe {
	pthread_mutex_t lock;
	struct store_object **buckets;
	size_t nbuckets; /* a power of two */
	size_t count;
};

struct store {
	char *dir; /* NULL: memory store */
	int dir_fd;
	bool fsync;
	struct store_stripe stripes[STORE_STRIPES];
};

/* A memory store. Returns 0 or -ENOMEM. */
int store_init_mem(struct store *st);

/* A dir store on an existing directory. Returns 0 or a negative errno (open of dir). */
int store_init_dir(struct store *st, const char *dir, bool fsync);

void store_release(struct store *st);

/*
 * Write (create or replace) object name with len bytes. Returns 0 or a
 * negative errno: -EINVAL for a name the dir store cannot hold ("", ".",
 * "..", containing '/'), -ENAMETOOLONG, or the I/O error.
 */
int store_write(struct store *st, const char *name, const void *data, size_t len);

/*
 * Read object name into a malloc'ed buffer (*data, free() it; NULL when
 * empty) of *len bytes. Returns 0, -ENOENT, or another negative errno.
 */
int store_read(struct store *st, const char *name, void **data, size_t *len);

/* Number of objects in a memory store (0 for a dir store). */
size_t store_count(struct store *st);

#endif /* REFOSD_STORE_H */
