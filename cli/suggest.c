#include "suggest.h"

#include <stdint.h>
#include <string.h>

#define SUGGEST_MAX_LEN 32

/* Optimal string alignment distance; SIZE_MAX for names too long to matter. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][SUGGEST_MAX_LEN + 1], *p2 = rows[0], *p1 = rows[1], *c = rows[2], *t;

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		p1[j] = j;
	for (size_t i = 1; i <= la; i++) {
		c[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t v = p1[j - 1] + (a[i - 1] != b[j - 1]);

			if (p1[j] + 1 < v)
				v = p1[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    p2[j - 2] + 1 < v)
				v = p2[j - 2] + 1;
			c[j] = v;
		}
		t = p2;
		p2 = p1;
		p1 = c;
		c = t;
	}
	return p1[lb];
}

const char *corecap_suggest(const char *typed, const char *const *names, size_t n)
{
	size_t len = strlen(typed), best_d = 3;
	const char *best = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t d = len >= 2 && strncmp(names[i], typed, len) == 0
				   ? 0
				   : edit_distance(typed, names[i]);

		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	return best;
}
