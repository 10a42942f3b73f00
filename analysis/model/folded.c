#include "folded.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

int corecap_folded_init(struct folded *f)
{
	*f = (struct folded){0};
	corecap_u64map_init(&f->name_index);
	corecap_u64map_init(&f->children);
	if (corecap_grow((void **)&f->nodes, &f->cap_nodes, 1, sizeof(*f->nodes)))
		return -ENOMEM;
	f->nodes[0] = (struct folded_node){.name = FOLDED_NONE,
					   .parent = FOLDED_NONE,
					   .first_child = FOLDED_NONE,
					   .next_sibling = FOLDED_NONE};
	f->n_nodes = 1;
	return 0;
}

void corecap_folded_release(struct folded *f)
{
	for (size_t i = 0; i < f->n_names; i++)
		free(f->names[i]);
	free(f->names);
	free(f->nodes);
	corecap_u64map_release(&f->name_index);
	corecap_u64map_release(&f->children);
	*f = (struct folded){0};
}

/* The folded format's separators and control bytes cannot appear in a name. */
static char *sanitized(const char *name)
{
	char *s = strdup(*name ? name : "?");

	if (!s)
		return NULL;
	for (char *c = s; *c; c++) {
		if (*c == ';')
			*c = ':';
		else if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	}
	return s;
}

uint32_t corecap_folded_intern(struct folded *f, const char *name)
{
	char *clean = sanitized(name);
	uint64_t key, *slot;
	bool inserted;

	if (!clean)
		return FOLDED_NONE;
	/* Linear probing over the hash: a collision moves on to key + 1. */
	for (key = hash_name(clean);; key++) {
		slot = corecap_u64map_find(&f->name_index, key);
		if (!slot)
			break;
		if (strcmp(f->names[*slot], clean) == 0) {
			free(clean);
			return (uint32_t)*slot;
		}
	}
	if (f->n_names >= FOLDED_NONE ||
	    corecap_grow((void **)&f->names, &f->cap_names, f->n_names + 1, sizeof(*f->names)))
		goto out_nomem;
	slot = corecap_u64map_upsert(&f->name_index, key, &inserted);
	if (!slot)
		goto out_nomem;
	*slot = f->n_names;
	f->names[f->n_names] = clean;
	return (uint32_t)f->n_names++;
out_nomem:
	free(clean);
	return FOLDED_NONE;
}

static uint32_t child(struct folded *f, uint32_t parent, uint32_t name)
{
	uint64_t key = (uint64_t)parent << 32 | name, *slot;
	bool inserted;
	uint32_t idx;

	slot = corecap_u64map_find(&f->children, key);
	if (slot)
		return (uint32_t)*slot;
	if (f->n_nodes >= FOLDED_NONE ||
	    corecap_grow((void **)&f->nodes, &f->cap_nodes, f->n_nodes + 1, sizeof(*f->nodes)))
		return FOLDED_NONE;
	slot = corecap_u64map_upsert(&f->children, key, &inserted);
	if (!slot)
		return FOLDED_NONE;
	idx = (uint32_t)f->n_nodes++;
	*slot = idx;
	f->nodes[idx] = (struct folded_node){
		.name = name,
		.parent = parent,
		.first_child = FOLDED_NONE,
		.next_sibling = f->nodes[parent].first_child,
		.depth = f->nodes[parent].depth + 1,
	};
	f->nodes[parent].first_child = idx;
	if (f->nodes[idx].depth > f->max_depth)
		f->max_depth = f->nodes[idx].depth;
	return idx;
}

int corecap_folded_add_ids(struct folded *f, const uint32_t *ids, size_t n, uint64_t weight,
			   int column)
{
	return corecap_folded_add_path(f, ids, n, weight, column, NULL);
}

int corecap_folded_add_path(struct folded *f, const uint32_t *ids, size_t n, uint64_t weight,
			    int column, uint32_t *leaf)
{
	uint32_t node = FOLDED_ROOT;

	if (leaf)
		*leaf = FOLDED_NONE;
	if (column < 0 || column >= FOLDED_COLUMNS)
		return -EINVAL;
	if (weight == 0 || n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (ids[i] == FOLDED_NONE)
			return -ENOMEM;
		node = child(f, node, ids[i]);
		if (node == FOLDED_NONE)
			return -ENOMEM;
	}
	f->nodes[node].self[column] += weight;
	for (uint32_t at = node; at != FOLDED_NONE; at = f->nodes[at].parent)
		f->nodes[at].total[column] += weight;
	if (leaf)
		*leaf = node;
	return 0;
}

int corecap_folded_add(struct folded *f, const char *const *names, size_t n, uint64_t weight,
		       int column)
{
	uint32_t small[64], *ids;
	int ret;

	if (n == 0 || weight == 0)
		return column < 0 || column >= FOLDED_COLUMNS ? -EINVAL : 0;
	ids = n <= 64 ? small : malloc(n * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ids[i] = corecap_folded_intern(f, names[i]);
	ret = corecap_folded_add_ids(f, ids, n, weight, column);
	if (ids != small)
		free(ids);
	return ret;
}

static bool parse_u64(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

int corecap_folded_add_line(struct folded *f, const char *line, int column)
{
	size_t len = strcspn(line, "\r\n");
	const char *sp, *sp2 = NULL;
	char *stack, *save = NULL, *tok;
	uint32_t small[64], *ids = small;
	size_t n = 0, cap = 64;
	uint64_t w = 0, w2 = 0;
	bool two = false;
	int ret = 0;

	while (len && line[len - 1] == ' ')
		len--;
	sp = memrchr(line, ' ', len);
	if (!sp)
		goto out_reject;
	/* "stack A B": a differential line; take column `column` of it. */
	if (sp > line)
		sp2 = memrchr(line, ' ', (size_t)(sp - line));
	if (sp2 && parse_u64(sp2 + 1, sp, &w) && parse_u64(sp + 1, line + len, &w2)) {
		two = true;
		sp = sp2;
	} else if (!parse_u64(sp + 1, line + len, &w)) {
		goto out_reject;
	}
	if (sp == line)
		goto out_reject;
	stack = strndup(line, (size_t)(sp - line));
	if (!stack)
		return -ENOMEM;
	for (tok = strtok_r(stack, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		if (n == cap) {
			if (corecap_grow_off_stack((void **)&ids, small, n, cap * 2, sizeof(*ids))) {
				ret = -ENOMEM;
				goto out_free;
			}
			cap *= 2;
		}
		ids[n++] = corecap_folded_intern(f, tok);
	}
	if (!n) {
		f->lines_rejected++;
		ret = -EINVAL;
		goto out_free;
	}
	if (two) {
		ret = corecap_folded_add_ids(f, ids, n, w, 0);
		if (!ret)
			ret = corecap_folded_add_ids(f, ids, n, w2, 1);
	} else {
		ret = corecap_folded_add_ids(f, ids, n, w, column);
	}
out_free:
	if (ids != small)
		free(ids);
	free(stack);
	return ret;
out_reject:
	f->lines_rejected++;
	return -EINVAL;
}

const char *corecap_folded_name(const struct folded *f, const struct folded_node *node)
{
	return node->name == FOLDED_NONE ? "" : f->names[node->name];
}

bool corecap_folded_empty(const struct folded *f, int column)
{
	return f->nodes[FOLDED_ROOT].total[column] == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int corecap_folded_write(const struct folded *f, FILE *out, int columns)
{
	char **lines = NULL, *path = NULL;
	size_t n_lines = 0, cap_lines = 0, path_cap = 0;
	size_t *len_at = calloc(f->max_depth + 2, sizeof(*len_at));
	uint32_t node = FOLDED_ROOT;
	int ret = 0;

	if (!len_at)
		return -ENOMEM;
	/* Depth-first over the tree, keeping the path's text in one buffer. */
	while (node != FOLDED_NONE) {
		const struct folded_node *nd = &f->nodes[node];

		if (node != FOLDED_ROOT) {
			const char *name = f->names[nd->name];
			size_t at = len_at[nd->depth - 1], nl = strlen(name);

			if (corecap_grow((void **)&path, &path_cap, at + nl + 2, 1))
				goto out_nomem;
			if (at)
				path[at++] = ';';
			memcpy(path + at, name, nl);
			path[at + nl] = '\0';
			len_at[nd->depth] = at + nl;
			if (nd->self[0] || (columns == 2 && nd->self[1])) {
				char *line;
				int k;

				if (columns == 2)
					k = asprintf(&line, "%s %" PRIu64 " %" PRIu64, path,
						     nd->self[0], nd->self[1]);
				else
					k = asprintf(&line, "%s %" PRIu64, path, nd->self[0]);
				if (k < 0)
					goto out_nomem;
				if (corecap_grow((void **)&lines, &cap_lines, n_lines + 1,
						 sizeof(*lines))) {
					free(line);
					goto out_nomem;
				}
				lines[n_lines++] = line;
			}
		}
		if (nd->first_child != FOLDED_NONE) {
			node = nd->first_child;
			continue;
		}
		while (node != FOLDED_NONE && f->nodes[node].next_sibling == FOLDED_NONE)
			node = f->nodes[node].parent;
		if (node != FOLDED_NONE)
			node = f->nodes[node].next_sibling;
	}
	qsort(lines, n_lines, sizeof(*lines), cmp_str);
	for (size_t i = 0; i < n_lines; i++)
		if (fprintf(out, "%s\n", lines[i]) < 0)
			ret = -EIO;
	if (fflush(out))
		ret = -EIO;
	goto out;
out_nomem:
	ret = -ENOMEM;
out:
	for (size_t i = 0; i < n_lines; i++)
		free(lines[i]);
	free(lines);
	free(path);
	free(len_at);
	return ret;
}
