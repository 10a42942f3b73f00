#include "thread_samples.h"
#include "run_file.h"

#include <corecap/diag.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum col { C_TIME, C_TID, C_COMM, C_UTIME, C_STIME, C_RUN, C_WAIT, C_VCS, C_ICS, C__COUNT };

/* Voluntary plus involuntary switches; -1 when either is unknown or the sum
 * would not fit (a hostile file). */
static int64_t cs_sum(int64_t vcs, int64_t ics)
{
	int64_t sum;

	if (vcs < 0 || ics < 0 || __builtin_add_overflow(vcs, ics, &sum))
		return -1;
	return sum;
}

static const char *const col_names[C__COUNT] = {
	"time_ns", "tid", "comm", "utime_ns", "stime_ns", "run_ns", "wait_ns", "vol_cs", "invol_cs",
};

/* Values a row may lack (-1 or absent); the header may lack only the switches. */
static bool optional(int c)
{
	return c == C_RUN || c == C_WAIT || c == C_VCS || c == C_ICS;
}

void corecap_thread_samples_init(struct thread_samples *s)
{
	*s = (struct thread_samples){0};
	corecap_u64map_init(&s->by_tid);
}

void corecap_thread_samples_release(struct thread_samples *s)
{
	free(s->threads);
	corecap_u64map_release(&s->by_tid);
	*s = (struct thread_samples){0};
}

static int fail(char **err, const char *path, unsigned long line, const char *why)
{
	return line ? corecap_err(err, -EINVAL, "'%s' line %lu: %s", path, line, why)
		    : corecap_err(err, -EINVAL, "'%s': %s", path, why);
}

static bool parse_i64(const char *s, int64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return !errno && end != s && *end == '\0';
}

static int add_row(struct thread_samples *s, int32_t tid, const char *comm,
		   const struct thread_sample_row *row)
{
	struct sampled_thread *t;
	bool inserted;
	uint64_t *idx = corecap_u64map_upsert(&s->by_tid, (uint64_t)(uint32_t)tid, &inserted);

	if (!idx)
		return -ENOMEM;
	if (inserted) {
		if (s->len == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 32;
			struct sampled_thread *grown = realloc(s->threads, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			s->threads = grown;
			s->cap = cap;
		}
		*idx = s->len;
		t = &s->threads[s->len++];
		*t = (struct sampled_thread){.tid = tid, .first = *row};
	}
	t = &s->threads[*idx];
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->last = *row;
	t->samples++;
	if (!s->first_ns || row->time_ns < s->first_ns)
		s->first_ns = row->time_ns;
	if (row->time_ns > s->last_ns)
		s->last_ns = row->time_ns;
	return 0;
}

int corecap_thread_samples_load(struct thread_samples *s, const char *path, uint64_t start_ns,
				uint64_t end_ns, char **err)
{
	FILE *f = corecap_run_file_fopen(path);
	char *line = NULL, *field, *rest;
	size_t size = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int col_of[C__COUNT], ret = 0, n;
	const char *cells[32];
	int64_t v[C__COUNT];
	char why[128];

	*err = NULL;
	if (!f) {
		ret = -errno;
		if (ret != -ENOENT && asprintf(err, "cannot open '%s': %s", path,
					       corecap_run_file_strerror(-ret)) < 0)
			*err = NULL;
		return ret;
	}
	for (int c = 0; c < C__COUNT; c++)
		col_of[c] = -1;
	while ((len = getline(&line, &size, f)) >= 0) {
		if (!len || line[len - 1] != '\n') {
			/* Only the last line can lack its newline: cut by a killed collector. */
			s->torn_last_line = true;
			break;
		}
		lineno++;
		line[--len] = '\0';
		n = 0;
		/* strsep, not strtok: an empty cell is a cell. */
		for (rest = line; (field = strsep(&rest, "\t")) && n < 32;)
			cells[n++] = field;
		if (n == 1 && !*cells[0])
			n = 0;
		if (lineno == 1) {
			for (int i = 0; i < n; i++)
				for (int c = 0; c < C__COUNT; c++)
					if (strcmp(cells[i], col_names[c]) == 0)
						col_of[c] = i;
			for (int c = 0; c <= C_STIME; c++)
				if (col_of[c] < 0 && c != C_VCS && c != C_ICS) {
					snprintf(why, sizeof(why), "header lacks column '%s'",
						 col_names[c]);
					ret = fail(err, path, 1, why);
					goto out;
				}
			continue;
		}
		if (n == 0)
			continue;
		s->rows++;
		for (int c = 0; c < C__COUNT; c++) {
			v[c] = -1;
			if (c == C_COMM || col_of[c] < 0)
				continue;
			if (col_of[c] >= n || !parse_i64(cells[col_of[c]], &v[c])) {
				if (optional(c))
					continue;
				snprintf(why, sizeof(why), "bad or missing '%s'", col_names[c]);
				ret = fail(err, path, lineno, why);
				goto out;
			}
		}
		if (v[C_TIME] < 0 || v[C_TID] <= 0 || v[C_UTIME] < 0 || v[C_STIME] < 0) {
			s->bad_rows++;
			continue;
		}
		if (end_ns && ((uint64_t)v[C_TIME] < start_ns || (uint64_t)v[C_TIME] > end_ns)) {
			s->rows_outside_window++;
			continue;
		}
		ret = add_row(s, (int32_t)v[C_TID], col_of[C_COMM] < n ? cells[col_of[C_COMM]] : "",
			      &(struct thread_sample_row){
				      .time_ns = (uint64_t)v[C_TIME],
				      .cpu_ns = (uint64_t)v[C_UTIME] + (uint64_t)v[C_STIME],
				      .run_ns = v[C_RUN],
				      .wait_ns = v[C_WAIT],
				      .cs = cs_sum(v[C_VCS], v[C_ICS]),
			      });
		if (ret)
			goto out;
	}
	if (lineno == 0)
		ret = fail(err, path, 0, "empty file (no header)");
out:
	free(line);
	fclose(f);
	return ret;
}

bool corecap_sampled_thread_cs(const struct sampled_thread *t, uint64_t *cs)
{
	if (t->first.cs < 0 || t->last.cs < t->first.cs)
		return false;
	*cs = (uint64_t)(t->last.cs - t->first.cs);
	return true;
}

void corecap_sampled_thread_figures(const struct sampled_thread *t, uint64_t *cpu_ns,
				    uint64_t *runq_ns, bool *has_runq, uint64_t *span_ns)
{
	const struct thread_sample_row *a = &t->first, *b = &t->last;
	bool sched = a->run_ns >= 0 && b->run_ns >= 0 && b->run_ns >= a->run_ns;

	*span_ns = b->time_ns - a->time_ns;
	if (sched)
		*cpu_ns = (uint64_t)(b->run_ns - a->run_ns);
	else
		*cpu_ns = b->cpu_ns >= a->cpu_ns ? b->cpu_ns - a->cpu_ns : 0;
	*has_runq = a->wait_ns >= 0 && b->wait_ns >= 0 && b->wait_ns >= a->wait_ns;
	*runq_ns = *has_runq ? (uint64_t)(b->wait_ns - a->wait_ns) : 0;
}
