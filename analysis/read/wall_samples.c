#include "wall_samples.h"
#include "run_file.h"

#include <corecap/diag.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void corecap_wall_samples_init(struct wall_samples *w)
{
	*w = (struct wall_samples){0};
}

void corecap_wall_samples_release(struct wall_samples *w)
{
	corecap_wall_samples_init(w);
}

static bool parse_u64(const char *s, char **end, int base, uint64_t *out)
{
	errno = 0;
	*out = strtoull(s, end, base);
	return !errno && *end != s;
}

/* Parses one line into *s (ips into w->ips); false if it is malformed. */
static bool parse_line(struct wall_samples *w, char *line, struct wall_sample *s)
{
	char *p = line, *end;
	uint64_t v;

	if (!parse_u64(p, &end, 10, &s->time_ns) || *end != '\t')
		return false;
	p = end + 1;
	if (!parse_u64(p, &end, 10, &v) || *end != '\t' || v > INT32_MAX)
		return false;
	s->tid = (int32_t)v;
	p = end + 1;
	if (!parse_u64(p, &end, 10, &s->stop_ns) || *end != '\t')
		return false;
	p = end + 1;
	s->depth = 0;
	while (*p) {
		if (!parse_u64(p, &end, 16, &v) || (*end != ' ' && *end != '\0'))
			return false;
		if (s->depth < WALL_MAX_DEPTH)
			w->ips[s->depth++] = v;
		else if (s->depth == WALL_MAX_DEPTH)
			w->truncated_stacks++, s->depth++;
		p = *end ? end + 1 : end;
	}
	if (s->depth > WALL_MAX_DEPTH)
		s->depth = WALL_MAX_DEPTH;
	s->ips = w->ips;
	return s->depth > 0;
}

int corecap_wall_samples_read(struct wall_samples *w, const char *path, wall_sample_fn fn,
			      void *ctx, char **err)
{
	struct run_lines l;
	char *line;
	size_t n;
	int ret;

	*err = NULL;
	ret = corecap_run_lines_open(&l, path, WALL_SAMPLES_MAX_LINE);
	if (ret) {
		if (ret != -ENOENT && asprintf(err, "cannot open '%s': %s", path,
					       corecap_run_file_strerror(-ret)) < 0)
			*err = NULL;
		return ret;
	}
	while ((ret = corecap_run_lines_next(&l, &line, &n)) > 0) {
		struct wall_sample s;

		w->lines++;
		if (!parse_line(w, line, &s)) {
			w->bad_lines++;
			continue;
		}
		w->samples++;
		if ((ret = fn(ctx, &s)))
			goto out; /* the caller's own error */
	}
	if (ret < 0)
		ret = corecap_run_lines_err(&l, ret, err);
out:
	w->torn_last_line = l.torn;
	corecap_run_lines_close(&l);
	return ret > 0 ? 0 : ret;
}
