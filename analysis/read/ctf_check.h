/*
 * ctf_check: what corecap verifies in a CTF trace directory before it
 * hands it to libbabeltrace2, because the library (2.0.4, Debian 12's)
 * cannot be trusted with every input: it spins for ever on a metadata
 * file cut inside a packet, aborts on a sequence or variant in an event's
 * own context (fixed in 2.0.5), and blocks on a FIFO in place of a
 * stream file. So, for one trace directory:
 *
 *  - every file in it is a regular file (or a directory);
 *  - the metadata, packetized (LTTng's form) or plain text: each packet
 *    header has the magic, one UUID, CTF 1.8, no compression, encryption
 *    or checksum, and sizes that fit the file; the text, concatenated,
 *    has its comments, strings and brackets closed and ends with a whole
 *    declaration (a truncated file is refused here, with where it ends);
 *  - with libbabeltrace2 < 2.0.5, no event class has a sequence or a
 *    variant in its own context (named structs and typealiases followed);
 *  - each stream file against its index (index/NAME.idx, LTTng's CTF
 *    index): the packets it lists that lie past the end of the file are
 *    counted: a stream cut short loses their events, and says so.
 *
 * Refusals are errors (an invalid trace); the index shortfall is a loss
 * (the trace is read, the report is marked partial).
 */
#ifndef CORECAP_CTF_CHECK_H
#define CORECAP_CTF_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest metadata read (LTTng's of a large Ceph OSD: well under 1 MiB). */
#define CTF_CHECK_MAX_METADATA_BYTES (64u << 20)

struct ctf_check {
	uint64_t index_packets;	  /* packets the stream indexes list */
	uint64_t missing_packets; /* of them, past the end of their stream file */
	uint64_t missing_bytes;
	size_t streams_cut;	   /* stream files shorter than their index says */
	char cut_name[4096 + 256]; /* the first of them */
};

/* Options of the metadata check (the fuzz harness tests both). */
struct ctf_check_opts {
	bool refuse_context_sequence; /* libbabeltrace2 < 2.0.5 */
};

/*
 * Checks metadata bytes (a metadata file's contents). 0, or -EINVAL with
 * *err (malloc'd) saying what is wrong and where.
 */
int corecap_ctf_check_metadata(const unsigned char *buf, size_t len, const struct ctf_check_opts *o,
			       char **err);

/*
 * Checks trace directory dir (holding `metadata`), adding its index
 * figures to *c (zero it first). 0, or a negative errno with *err
 * (malloc'd, naming the file).
 */
int corecap_ctf_check_trace(const char *dir, struct ctf_check *c, char **err);

/*
 * One stream file's index (path: an LTTng CTF index, index/NAME.idx)
 * against the stream's size in bytes: adds its packets, and those past
 * the end, to *c (stream names the stream in cut_name). An absent or
 * unreadable index adds nothing.
 */
void corecap_ctf_check_index(const char *path, uint64_t size, const char *stream,
			     struct ctf_check *c);

#endif
