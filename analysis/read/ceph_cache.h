/*
 * ceph_cache: the OpTracker part of a run's ceph_files (read/ceph_files.h:
 * the op types with their phases, the ops' spans and events, the drain's
 * figures, the rejected ops and the section's warnings) kept in the run
 * cache's directory (read/run_cache.h) beside the decoded traces, so that
 * the next command on the run reads that instead of parsing the history's
 * JSON again: parsing and freeing json-c's tree of a ceph-osd's history
 * was half of a warm report's CPU, and the tree most of its memory.
 *
 * The key is the history file's contents: its name, its length and a
 * 64-bit hash of its bytes as stored (compressed or not), with corecap's
 * version and the format's. A copy of the run shares the entry; a history
 * changed by one byte is a miss. The whole key is in the file and
 * compared; a hash of the key names the file, <16 hex digits>.oph.
 *
 * The file (integers little-endian):
 *
 *   magic "CCOPHIS\n"  u32 version  u32 key length  key
 *   u64 history_size  u64 ops_rejected  u64 ops_bad_duration  u64 n_ops
 *   u8 has_optracker  u8 drained  u8 stopped  u8 0  f64 ops_seen, ops_kept,
 *   slices, sliced_ms, window_ms, longest_dump_ms
 *   u32 warnings, each: u32 length, bytes
 *   u32 types, each: u32 name length, name, u64 count, lat_avg_ns,
 *   lat_p50_ns, lat_p99_ns, reply_avg_ns, span_ns, reply_sum_ns,
 *   u32 phases, each: u32 name length, name, u64 total_ns
 *   u64 spans, each: u64 arrival_ns, reply_ns, u32 type, ev0, n_ev, u64 reqid
 *   u64 events, each: u64 t_ns, u32 phase
 *   u64 hash of every byte before it  magic "CCOPHEND"
 *
 * A file is used only when all of it checks (magic, version, key, hash,
 * every length within the file and its field, every type counted, the
 * counts summing to n_ops, every span's type and events in bounds and
 * after its arrival, the spans by arrival, every event's phase one of its
 * type's or none): what a parse of the history could have produced.
 * Anything else is refused with the run cache's one warning, and the
 * history parsed and the file rewritten. CORECAP_RUNCACHE=0 turns it off
 * with the run cache.
 */
#ifndef CORECAP_CEPH_CACHE_H
#define CORECAP_CEPH_CACHE_H

#include <stddef.h>

#include "../util/ceph_ops.h"

#define CORECAP_CEPH_CACHE_VERSION 2 /* 2: each span's reqid */
#define CEPH_CACHE_KEY_MAX	   512

/* The key of a history file named name (its last path element) holding
 * bytes[0..len) as stored. */
void corecap_ceph_cache_key(const char *name, const void *bytes, size_t len, char *key,
			    size_t size);
/* "<16 hex>.oph" for key. */
void corecap_ceph_cache_file_name(const char *key, char *out, size_t size);

/* c's OpTracker part as a file for key: 0 with *buf (malloc'd) and *len, or -ENOMEM. */
int corecap_ceph_cache_encode(const struct ceph_files *c, const char *key, unsigned char **buf,
			      size_t *len);
/*
 * A file's bytes into c (zeroed first; released again on failure): 0, or
 * -EINVAL with *why when it is not a valid file for key (NULL: any key),
 * or -ENOMEM.
 */
int corecap_ceph_cache_decode(struct ceph_files *c, const unsigned char *buf, size_t len,
			      const char *key, const char **why);

/* c from dirfd's file for key: 0, -ENOENT (none, or refused with the one warning). */
int corecap_ceph_cache_load(int dirfd, const char *key, struct ceph_files *c);
/* c's OpTracker part kept as key's file in dirfd; a failure only loses the entry. */
void corecap_ceph_cache_store(int dirfd, const char *key, const struct ceph_files *c);

#endif
