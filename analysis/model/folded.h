/*
 * folded: stacks with weights, the input of every flame graph, kept as a
 * tree of frames (a trie from the root frame to the leaf) with up to two
 * weight columns (column 1 only for differential output: run A, run B).
 *
 * Guarantees: frame names are interned once and never contain ';' (the
 * folded format's separator; replaced by ':') nor control characters
 * (replaced by '?'), so a written line always reads back as the same
 * stack; a node's total is its own weight plus its children's; the
 * written output is sorted bytewise, one line per distinct stack, so two
 * writings of the same data are identical. Memory grows with distinct
 * stacks, not with samples.
 */
#ifndef CORECAP_FOLDED_H
#define CORECAP_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../util/u64map.h"

#define FOLDED_ROOT    0 /* node index of the (nameless) root */
#define FOLDED_NONE    UINT32_MAX
#define FOLDED_COLUMNS 2

struct folded_node {
	uint32_t name;	 /* index in folded.names; FOLDED_NONE for the root */
	uint32_t parent; /* FOLDED_NONE for the root */
	uint32_t first_child, next_sibling;
	uint32_t depth; /* 0 for the root */
	uint64_t self[FOLDED_COLUMNS], total[FOLDED_COLUMNS];
};

struct folded {
	char **names;
	size_t n_names, cap_names;
	struct u64map name_index; /* name hash (probed) -> index in names */
	struct folded_node *nodes;
	size_t n_nodes, cap_nodes;
	struct u64map children; /* parent << 32 | name -> node index */
	uint32_t max_depth;
	uint64_t lines_rejected; /* by corecap_folded_add_line */
};

int corecap_folded_init(struct folded *f);
void corecap_folded_release(struct folded *f);
/* The index of a frame name, interned (sanitized); FOLDED_NONE when out of memory. */
uint32_t corecap_folded_intern(struct folded *f, const char *name);
/* Adds weight to a stack of interned names, root first. 0 or -ENOMEM. */
int corecap_folded_add_ids(struct folded *f, const uint32_t *ids, size_t n, uint64_t weight,
			   int column);
/* The same, giving the node of the stack's leaf in *leaf (FOLDED_NONE when nothing was added). */
int corecap_folded_add_path(struct folded *f, const uint32_t *ids, size_t n, uint64_t weight,
			    int column, uint32_t *leaf);
/* The same with names, root first. */
int corecap_folded_add(struct folded *f, const char *const *names, size_t n, uint64_t weight,
		       int column);
/*
 * Parses one folded line ("a;b;c 12", or "a;b;c 12 7" with two columns)
 * and adds it. 0; -EINVAL for a malformed line (counted in
 * lines_rejected); -ENOMEM.
 */
int corecap_folded_add_line(struct folded *f, const char *line, int column);
/*
 * Writes one line per stack with weight: "a;b;c W" (columns = 1) or
 * "a;b;c A B" (columns = 2, as flamegraph.pl's difffolded.pl writes),
 * sorted. 0, -ENOMEM, or -EIO when writing failed.
 */
int corecap_folded_write(const struct folded *f, FILE *out, int columns);
const char *corecap_folded_name(const struct folded *f, const struct folded_node *node);
bool corecap_folded_empty(const struct folded *f, int column);

#endif
