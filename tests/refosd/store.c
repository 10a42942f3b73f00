/* store: see store.h. */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"

#define STORE_INITIAL_BUCKETS 256

struct store_object {
	struct store_object *next;
	uint64_t hash;
	void *data;
	size_t len;
	char name[]; /* NUL-terminated */
};

int store_init_mem(struct store *st)
{
	int r = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	st->dir_fd = -1;
	for (i = 0; i < STORE_STRIPES; i++) {
		struct store_stripe *sp = &st->stripes[i];

		pthread_mutex_init(&sp->lock, NULL);
		sp->nbuckets = STORE_INITIAL_BUCKETS;
		sp->buckets = calloc(sp->nbuckets, sizeof(*sp->buckets));
		if (!sp->buckets) {
			r = -ENOMEM;
			break;
		}
	}
	if (r < 0)
		store_release(st);
	return r;
}

int store_init_dir(struct store *st, const char *dir, bool fsync)
{
	int r = 0;

	memset(st, 0, sizeof(*st));
	st->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->dir_fd < 0) {
		r = -errno;
		goto out;
	}
	st->dir = strdup(dir);
	if (!st->dir) {
		r = -ENOMEM;
		goto out_close_dir;
	}
	st->fsync = fsync;
	goto out;

out_close_dir:
	close(st->dir_fd);
	st->dir_fd = -1;
out:
	return r;
}

void store_release(struct store *st)
{
	for (size_t i = 0; i < STORE_STRIPES; i++) {
		struct store_stripe *sp = &st->stripes[i];

		if (!sp->buckets)
			continue;
		for (size_t b = 0; b < sp->nbuckets; b++) {
			struct store_object *o = sp->buckets[b], *next;

			for (; o; o = next) {
				next = o->next;
				free(o->data);
				free(o);
			}
		}
		free(sp->buckets);
		sp->buckets = NULL;
		pthread_mutex_destroy(&sp->lock);
	}
	if (st->dir_fd >= 0)
		close(st->dir_fd);
	st->dir_fd = -1;
	free(st->dir);
	st->dir = NULL;
}

/* Double a stripe's table; called with the stripe locked. A failed allocation keeps the old one. */
static void stripe_grow(struct store_stripe *sp)
{
	size_t n = sp->nbuckets * 2;
	struct store_object **b = calloc(n, sizeof(*b));

	if (!b)
		return;
	for (size_t i = 0; i < sp->nbuckets; i++) {
		struct store_object *o = sp->buckets[i], *next;

		for (; o; o = next) {
			next = o->next;
			o->next = b[(o->hash >> 6) & (n - 1)];
			b[(o->hash >> 6) & (n - 1)] = o;
		}
	}
	free(sp->buckets);
	sp->buckets = b;
	sp->nbuckets = n;
}

/* The low 6 bits of the hash pick the stripe, the next ones the bucket. */
static struct store_object **stripe_find(struct store_stripe *sp, const char *name, uint64_t h)
{
	struct store_object **pp = &sp->buckets[(h >> 6) & (sp->nbuckets - 1)];

	for (; *pp; pp = &(*pp)->next) {
		if ((*pp)->hash == h && strcmp((*pp)->name, name) == 0)
			break;
	}
	return pp;
}

static int mem_write(struct store *st, const char *name, const void *data, size_t len)
{
	size_t name_len = strlen(name);
	uint64_t h = hash_name(name, name_len);
	struct store_stripe *sp = &st->stripes[h % STORE_STRIPES];
	struct store_object **pp, *o;
	void *copy = NULL;
	int r = 0;

	/* Copy outside the stripe lock: the lock covers only the table. */
	if (len) {
		copy = malloc(len);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, data, len);
	}
	pthread_mutex_lock(&sp->lock);
	pp = stripe_find(sp, name, h);
	if (*pp) {
		o = *pp;
		free(o->data);
	} else {
		o = malloc(sizeof(*o) + name_len + 1);
		if (!o) {
			free(copy);
			r = -ENOMEM;
			goto out_unlock;
		}
		o->hash = h;
		memcpy(o->name, name, name_len + 1);
		o->next = NULL;
		*pp = o;
		if (++sp->count > 2 * sp->nbuckets)
			stripe_grow(sp);
	}
	o->data = copy;
	o->len = len;
out_unlock:
	pthread_mutex_unlock(&sp->lock);
	return r;
}

static int mem_read(struct store *st, const char *name, void **data, size_t *len)
{
	uint64_t h = hash_name(name, strlen(name));
	struct store_stripe *sp = &st->stripes[h % STORE_STRIPES];
	struct store_object *o;
	int r = 0;

	*data = NULL;
	*len = 0;
	pthread_mutex_lock(&sp->lock);
	o = *stripe_find(sp, name, h);
	if (!o) {
		r = -ENOENT;
	} else if (o->len) {
		*data = malloc(o->len);
		if (!*data) {
			r = -ENOMEM;
		} else {
			memcpy(*data, o->data, o->len);
			*len = o->len;
		}
	}
	pthread_mutex_unlock(&sp->lock);
	return r;
}

static int dir_check_name(const char *name)
{
	if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strchr(name, '/'))
		return -EINVAL;
	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

static int dir_write(struct store *st, const char *name, const void *data, size_t len)
{
	const uint8_t *p = data;
	int fd, r = dir_check_name(name);

	if (r < 0)
		return r;
	fd = openat(st->dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out_close;
		}
		p += n;
		len -= (size_t)n;
	}
	if (st->fsync && fsync(fd) < 0)
		r = -errno;
out_close:
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

static int dir_read(struct store *st, const char *name, void **data, size_t *len)
{
	struct stat sb;
	uint8_t *buf = NULL;
	size_t got = 0;
	int fd, r = dir_check_name(name);

	*data = NULL;
	*len = 0;
	if (r < 0)
		return r;
	fd = openat(st->dir_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0) {
		r = -errno;
		goto out_close;
	}
	if (sb.st_size > 0) {
		buf = malloc((size_t)sb.st_size);
		if (!buf) {
			r = -ENOMEM;
			goto out_close;
		}
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out_free;
		}
		if (n == 0)
			break; /* truncated meanwhile: return what is there */
		got += (size_t)n;
	}
	*data = buf;
	*len = got;
	buf = NULL;
out_free:
	free(buf);
out_close:
	close(fd);
	return r;
}

int store_write(struct store *st, const char *name, const void *data, size_t len)
{
	return st->dir ? dir_write(st, name, data, len) : mem_write(st, name, data, len);
}

int store_read(struct store *st, const char *name, void **data, size_t *len)
{
	return st->dir ? dir_read(st, name, data, len) : mem_read(st, name, data, len);
}

size_t store_count(struct store *st)
{
	size_t n = 0;

	if (st->dir)
		return 0;
	for (size_t i = 0; i < STORE_STRIPES; i++) {
		pthread_mutex_lock(&st->stripes[i].lock);
		n += st->stripes[i].count;
		pthread_mutex_unlock(&st->stripes[i].lock);
	}
	return n;
}
