/*
 * sym_cache: what the symbolizer found in one ELF file's DWARF (the inline
 * chains and source lines of instructions, the member paths of data, the
 * objects that calls pass to lock functions),
 * kept per build-id in the user's cache directory
 * ($XDG_CACHE_HOME/corecap/, else ~/.cache/corecap/) so that the next
 * command on a run, and every run of the same binary, does not read that
 * DWARF again (a ceph-osd's is 230 MB compressed, about 1 GB once libdw
 * has inflated it). Disabled by CORECAP_SYMCACHE=0.
 *
 * Keys are addresses relative to the module's load bias (the file's own
 * virtual addresses), so a cache serves every run of the file whatever
 * ASLR did. A cache file is also tied to the corecap that wrote it and to
 * where the DWARF came from (its "source": corecap's version, the file
 * read and its build-id debug file, with their sizes and modification
 * times): installing or removing a debug file makes the cache start again
 * rather than serve names that the DWARF at hand would not give.
 *
 * The file, <build-id>-<hash of the source>.sym, one per build-id and
 * source: a binary read with and without its debug file, or under
 * several --symfs, has a file for each, none of them rewritten by the
 * other's commands (every integer little-endian):
 *
 *   magic "CCSYMC\r\n"  u32 version  u16 build-id length  u16 source length
 *   u32 records  u32 payload length  u32 FNV-1a of build-id, source, payload
 *   build-id  source  payload
 *
 * and each record in the payload is
 *
 *   u8 kind  u64 key
 *   kind 1 (frames): u8 n, then n x (str function, str file, u32 line, u8 inlined)
 *   kind 2 (data):   str name
 *   kind 3 (object): str name   (key: a call's return address; the type
 *                               and member of the object it passes)
 *
 * where a str is a u16 length (0xffff: none) and that many bytes, none
 * of them NUL. A file that is not exactly that (truncated, another
 * version, another build-id or source, a bad checksum, a key twice) is
 * refused with one warning and rebuilt; every read is bounded by the
 * file's size, checked first. Files are written aside (an O_EXCL,
 * O_NOFOLLOW temporary in the same directory) and renamed into place, so
 * that concurrent writers each leave a whole file; the directory is used
 * only when it belongs to the user and nobody else may write to it.
 */
#ifndef CORECAP_SYM_CACHE_H
#define CORECAP_SYM_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/u64map.h"
#include "sym_frame.h"

/*
 * The format's version: raised whenever the file's layout changes or what
 * the symbolizer gives for an address does (a fix in its inline chains),
 * so that no cache made before serves names that corecap no longer gives.
 * corecap's own version is part of every file's source too.
 */
#define CORECAP_SYM_CACHE_VERSION  2	       /* 2: the objects' records (kind 3) */
#define CORECAP_SYM_CACHE_MAX_FILE (32u << 20) /* bytes read at most */
#define CORECAP_SYM_CACHE_MAX_RECS (1u << 20)
#define CORECAP_SYM_CACHE_MAX_N	   65 /* frames of one instruction (the symbolizer's bound) */
#define CORECAP_SYM_CACHE_BID_MAX  128
#define CORECAP_SYM_CACHE_SRC_MAX  8192
#define CORECAP_SYM_CACHE_NAME_MAX (CORECAP_SYM_CACHE_BID_MAX + 32)

/* One instruction's frames in one block with their strings. */
struct sym_cache_frames {
	size_t n;
	struct sym_frame f[];
};

struct sym_cache {
	int dirfd;	/* the cache directory (not owned), -1: write nowhere */
	char *build_id; /* hex */
	char *source;
	struct u64map frames;  /* key -> struct sym_cache_frames * */
	struct u64map data;    /* key -> char * ("": no member path) */
	struct u64map objects; /* key -> char * ("": no object named) */
	size_t n_new;	       /* records added since the file was read */
	size_t bytes;	       /* payload size of every record */
};

/*
 * The cache directory, opened (O_DIRECTORY) once per process and checked
 * to be the user's and not writable by group or others: its fd, or -1
 * when caching is off (CORECAP_SYMCACHE=0, no HOME) or the directory is
 * unusable (then with one warning).
 */
int corecap_sym_cache_dir(void);
/*
 * dir opened for the cache: its fd, or -1 (with a warning) when it cannot
 * be opened, is a symbolic link, or is not the user's or others may write
 * to it.
 */
int corecap_sym_cache_open_dir(const char *dir);
/*
 * c for build_id and source: empty, then filled from dirfd's
 * <build_id>.sym when that file is valid (else one warning; it is
 * rewritten at corecap_sym_cache_write). dirfd -1: an in-memory cache.
 * 0 or -ENOMEM (build_id not hex or too long: -EINVAL).
 */
int corecap_sym_cache_open(struct sym_cache *c, int dirfd, const char *build_id,
			   const char *source);
/*
 * Parses a cache file's bytes into the empty c (its build_id and source
 * set): 0, or -EINVAL with *why (static) when the file is not valid for
 * c, leaving c empty.
 */
int corecap_sym_cache_parse(struct sym_cache *c, const unsigned char *buf, size_t len,
			    const char **why);
/* The cache file's name for build_id and source: "<build-id>-<16 hex digits>.sym". */
void corecap_sym_cache_file_name(const char *build_id, const char *source, char *out, size_t size);
/* The file's bytes for c (malloc'd, *len): what corecap_sym_cache_write writes. */
unsigned char *corecap_sym_cache_serialize(const struct sym_cache *c, size_t *len);
/* The frames cached for key, or NULL. */
const struct sym_cache_frames *corecap_sym_cache_frames(const struct sym_cache *c, uint64_t key);
/* Adds key's frames (copied); 0, -EEXIST, -ENOSPC (the cache is full) or -ENOMEM. */
int corecap_sym_cache_put_frames(struct sym_cache *c, uint64_t key, const struct sym_frame *f,
				 size_t n);
/* Whether key's data name is cached; *name then NULL when DWARF gave none. */
bool corecap_sym_cache_data(const struct sym_cache *c, uint64_t key, const char **name);
/* Adds key's data name (NULL: none); 0, -EEXIST, -ENOSPC or -ENOMEM. */
int corecap_sym_cache_put_data(struct sym_cache *c, uint64_t key, const char *name);
/* Whether the object passed by the call returning at key is cached; *name then NULL when DWARF
 * named none. */
bool corecap_sym_cache_object(const struct sym_cache *c, uint64_t key, const char **name);
/* Adds it (NULL: none); 0, -EEXIST, -ENOSPC or -ENOMEM. */
int corecap_sym_cache_put_object(struct sym_cache *c, uint64_t key, const char *name);
/* Writes c aside and renames it into place when records were added: 0 or -errno. */
int corecap_sym_cache_write(struct sym_cache *c);
void corecap_sym_cache_release(struct sym_cache *c);
/* frames[0..n) copied with their strings into one malloc'd block, or NULL. */
struct sym_cache_frames *corecap_sym_cache_pack(const struct sym_frame *f, size_t n);

#endif
