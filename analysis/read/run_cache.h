/*
 * run_cache: the decoded events of a run's trace, kept in the user's cache
 * directory ($XDG_CACHE_HOME/corecap/runs/, else ~/.cache/corecap/runs/)
 * so that the next command on the same run (report, html, flame, export,
 * compare, op detection's scan) replays them instead of decoding the CTF
 * again through libbabeltrace2, which is most of a report's CPU time.
 *
 * The CTF reader (ctf_reader.h) is the one place that uses it: its init
 * looks the traces up (a hit: its run replays the file, handing the
 * consumer the same struct model_event sequence, the procname asked for
 * through wants_comm exactly where the library's read would ask, and the
 * reader's figures, foreign events, packets and ctf_check's index
 * figures, as the read that wrote the file found them); a miss: the read
 * writes the file as a side effect, kept only when the read went to its
 * end. CORECAP_RUNCACHE=0 turns it off; =verbose says on stderr what it
 * does.
 *
 * Never inside the run directory: corecap runs as root beside other
 * users' runs, and a file there would be theirs to craft. The key is the
 * traces' files (each directory's real path, every file's relative name,
 * size, modification time, inode and device) with corecap's version and
 * the format's: a trace changed in any of them is a miss. The whole key is
 * in the file and compared, its 64-bit hash only names it.
 *
 * The file, <16 hex digits of the key's hash>.ev (integers little-endian,
 * "varint" LEB128, "zz" zigzag-LEB128):
 *
 *   magic "CCRUNC\r\n"  u32 version  u32 key length  key
 *   records  cut-name bytes  footer (RUN_CACHE_FOOTER bytes):
 *   u64 events  u64 blobs  u64 foreign  u64 packets  u64 index_packets
 *   u64 missing_packets  u64 missing_bytes  u64 streams_cut  u32 cut-name
 *   length  u32 0  u64 records length  u64 hash of every byte before it
 *   magic "CCRUNEND"
 *
 * A record's first byte: 31, a blob (varint length, bytes: a string with
 * its NUL, or a stack's frames as u64s), numbered from 0 in order; else an
 * event, kind in the low 5 bits, 0x20 the class has a procname (varint
 * blob), 0x40 the second event of one CTF event (the first's procname and
 * decision again); zz ts delta, zz tid, zz pid, then by kind: ops
 * varint id, varint blob+1 (0: NULL), varint bytes, zz result; locks
 * varint addr, mutex, site, dur, u8 kind, u8 flag, varint depth, varint
 * blob+1 (the stack); I/O u8 call, u8 class, zz fd, zz bytes, varint dur,
 * u8 hdr length (<= 24), the bytes; threads zz tid, zz parent, varint
 * blob+1; losses varint count, begin, end, u8 packets.
 *
 * A file that is not exactly that (truncated, another version or key, a
 * bad hash, a record out of bounds, a blob that is not what its use
 * needs) is refused with one warning, before any event is handed on, and
 * rewritten by that read. Files are written aside (O_EXCL|O_NOFOLLOW
 * temporary) and renamed into place; the directory is used only when it
 * belongs to the user and nobody else may write to it. A file larger than
 * CORECAP_RUNCACHE_MAX_MB (default 2048) is not kept, and before one is
 * kept, the oldest files go until the directory holds at most that much.
 */
#ifndef CORECAP_RUN_CACHE_H
#define CORECAP_RUN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/event.h"

/* 2: corecap_op:client and :reply events (MEV_OP_CLIENT, MEV_OP_REPLY) are kept. */
#define CORECAP_RUN_CACHE_VERSION 2
#define RUN_CACHE_FOOTER	  96
#define RUN_CACHE_KEY_MAX	  (4u << 20)
#define RUN_CACHE_BLOBS_MAX	  (1u << 22)
#define RUN_CACHE_CUT_MAX	  4352

/* What the read that wrote the file found besides the events. */
struct run_cache_tail {
	uint64_t events, blobs, foreign, packets;
	uint64_t index_packets, missing_packets, missing_bytes, streams_cut;
	char cut_name[RUN_CACHE_CUT_MAX + 1];
};

/* A checked file's bytes (borrowed). */
struct run_cache_view {
	const unsigned char *buf;
	size_t rec_off, rec_len;
	bool mapped; /* buf is a read-only file mapping: pages behind the reading are dropped */
	struct run_cache_tail tail;
};

struct run_cache_writer;

typedef int (*run_cache_consume_fn)(void *ctx, const struct model_event *ev);
typedef bool (*run_cache_wants_fn)(void *ctx, int32_t tid);

/* Whether the cache is on (CORECAP_RUNCACHE not 0), and verbose. */
bool corecap_run_cache_enabled(void);
bool corecap_run_cache_verbose(void);
/* The cache directory, opened once per process and checked; -1: none. */
int corecap_run_cache_dir(void);
/* The key of traces dirs[0..n): 0 (*key malloc'd) or -errno. */
int corecap_run_cache_key(char *const *dirs, size_t n, char **key);
/* "<16 hex>.ev" for key. */
void corecap_run_cache_file_name(const char *key, char *out, size_t size);

/* The hash a file's footer holds, of its first len bytes (tests, the fuzz harness). */
uint64_t corecap_run_cache_hash(const unsigned char *buf, size_t len);
/*
 * Checks a file's bytes against key (NULL: any key) without handing on an
 * event: every record is decoded. 0 with *v set, or -EINVAL with *why.
 */
int corecap_run_cache_check(const unsigned char *buf, size_t len, const char *key,
			    struct run_cache_view *v, const char **why);
/*
 * Hands v's events to consume(ctx) in order, the procname when wants(ctx,
 * tid) says so (NULL: always), stacks copied into stack[64]. 0, the
 * consumer's error, or -EINVAL for a file check would have refused.
 */
int corecap_run_cache_replay(const struct run_cache_view *v, run_cache_consume_fn consume,
			     run_cache_wants_fn wants, void *ctx, uint64_t *stack);

/*
 * The files of the directory for other kinds of entries (read/ceph_cache.h):
 * corecap_run_cache_map maps dirfd's file name, read-only, when it is a
 * regular file of the user's that nobody else may write to, of min_len
 * bytes or more and within the size cap: 0, -ENOENT, or -EINVAL (warned
 * once: refused); corecap_run_cache_put_file writes buf as name, aside
 * (an O_EXCL|O_NOFOLLOW temporary, removed also when the process ends
 * abruptly) then renamed into place, after the oldest files went to keep
 * the directory under the cap: 0 or -errno. corecap_run_cache_refused
 * gives the one warning of a refused file.
 */
int corecap_run_cache_map(int dirfd, const char *name, size_t min_len, void **map,
			  size_t *map_len);
int corecap_run_cache_put_file(int dirfd, const char *name, const void *buf, size_t len);
void corecap_run_cache_refused(const char *name, const char *why);

/* Maps dirfd's file for key when valid: 0 (*v, *map, *map_len set), -ENOENT, or -EINVAL
 * (warned once: refused). */
int corecap_run_cache_load(int dirfd, const char *key, struct run_cache_view *v, void **map,
			   size_t *map_len);
void corecap_run_cache_unload(void *map, size_t map_len);

/* A writer of key's file in dirfd, or NULL. */
struct run_cache_writer *corecap_run_cache_writer_open(int dirfd, const char *key);
/*
 * One event: comm the full procname when the class has one (has_comm),
 * then: the second event of one CTF event. Failing (memory, the size cap,
 * a write) abandons the file quietly; the read goes on.
 */
void corecap_run_cache_put(struct run_cache_writer *w, const struct model_event *ev,
			   const char *comm, bool has_comm, bool then);
/* The read went to its end: the footer, then renamed into place. 0 or -errno. */
int corecap_run_cache_commit(struct run_cache_writer *w, const struct run_cache_tail *t);
/* Frees w, removing its temporary unless committed. */
void corecap_run_cache_writer_free(struct run_cache_writer *w);

#endif
