#include "threads_tsv.h"

#include <corecap/diag.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_file.h"

enum col { C_TIME, C_TID, C_COMM, C_UTIME, C_STIME, C_RUN, C_WAIT, C_VCS, C_ICS, C_CS, C__COUNT };

static const char *const col_names[C__COUNT] = {
	"time_ns", "tid",     "comm",	"utime_ns", "stime_ns",
	"run_ns",  "wait_ns", "vol_cs", "invol_cs", "cs",
};

#define MAX_CELLS 32

/* Values a row may lack (-1 or absent); the header may lack these too. */
static bool optional(int c)
{
	return c == C_RUN || c == C_WAIT || c == C_VCS || c == C_ICS || c == C_CS;
}

/* Voluntary plus involuntary switches; -1 when either is unknown or the sum
 * would not fit (a hostile file). */
static int64_t cs_sum(int64_t vcs, int64_t ics)
{
	int64_t sum;

	if (vcs < 0 || ics < 0 || __builtin_add_overflow(vcs, ics, &sum))
		return -1;
	return sum;
}

static bool parse_i64(const char *s, int64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return !errno && end != s && *end == '\0';
}

static int bad_line(char **err, const char *path, unsigned long line, const char *why)
{
	return corecap_err(err, -EINVAL, "'%s' line %lu: %s", path, line, why);
}

static int header(int *col_of, char **cells, int n, const char *path, char **err)
{
	char why[64];

	for (int c = 0; c < C__COUNT; c++)
		col_of[c] = -1;
	for (int i = 0; i < n; i++)
		for (int c = 0; c < C__COUNT; c++)
			if (strcmp(cells[i], col_names[c]) == 0)
				col_of[c] = i;
	for (int c = 0; c < C__COUNT; c++)
		if (col_of[c] < 0 && !optional(c)) {
			snprintf(why, sizeof(why), "header lacks column '%s'", col_names[c]);
			return bad_line(err, path, 1, why);
		}
	return 0;
}

/* One data row: 0 and *ok; or an error naming the line (unreadable, not skipped). */
static int row(struct threads_tsv *t, const int *col_of, char **cells, int n, const char *path,
	       unsigned long lineno, struct threads_tsv_row *out, bool *ok, char **err)
{
	int64_t v[C__COUNT];
	char why[64];

	*ok = false;
	for (int c = 0; c < C__COUNT; c++) {
		v[c] = -1;
		if (c == C_COMM || col_of[c] < 0)
			continue;
		if (col_of[c] >= n || !parse_i64(cells[col_of[c]], &v[c])) {
			if (optional(c))
				continue;
			if (t->skip_unreadable) {
				t->bad_rows++;
				return 0;
			}
			snprintf(why, sizeof(why), "bad or missing '%s'", col_names[c]);
			return bad_line(err, path, lineno, why);
		}
	}
	if (v[C_TIME] < 0 || v[C_TID] <= 0 || v[C_TID] > INT32_MAX || v[C_UTIME] < 0 ||
	    v[C_STIME] < 0) {
		t->bad_rows++;
		return 0;
	}
	*out = (struct threads_tsv_row){
		.time_ns = (uint64_t)v[C_TIME],
		.tid = (int32_t)v[C_TID],
		.comm = col_of[C_COMM] < n ? cells[col_of[C_COMM]] : "",
		.cpu_ns = (uint64_t)v[C_UTIME] + (uint64_t)v[C_STIME],
		.run_ns = v[C_RUN],
		.wait_ns = v[C_WAIT],
		.cs = v[C_CS] >= 0 ? v[C_CS] : cs_sum(v[C_VCS], v[C_ICS]),
	};
	*ok = true;
	return 0;
}

int corecap_threads_tsv_read(struct threads_tsv *t, const char *path, threads_tsv_row_fn fn,
			     void *ctx, char **err)
{
	char *line, *field, *rest, *cells[MAX_CELLS];
	struct run_lines l;
	size_t len;
	unsigned long lineno = 0;
	int col_of[C__COUNT], ret, n;
	struct threads_tsv_row r;
	bool ok;

	*err = NULL;
	ret = corecap_run_lines_open(&l, path, THREADS_TSV_MAX_LINE);
	if (ret)
		return ret == -ENOENT ? ret
				      : corecap_err(err, ret, "cannot open '%s': %s", path,
						    corecap_run_file_strerror(-ret));
	while ((ret = corecap_run_lines_next(&l, &line, &len)) > 0) {
		ret = 0;
		lineno++;
		n = 0;
		/* strsep, not strtok: an empty cell is a cell. */
		for (rest = line; (field = strsep(&rest, "\t")) && n < MAX_CELLS;)
			cells[n++] = field;
		if (n == 1 && !*cells[0])
			n = 0;
		if (lineno == 1) {
			if ((ret = header(col_of, cells, n, path, err)))
				goto out;
			continue;
		}
		if (n == 0)
			continue;
		t->rows++;
		ret = row(t, col_of, cells, n, path, lineno, &r, &ok, err);
		if (!ret && ok && (ret = fn(ctx, &r)))
			corecap_err(err, ret, "'%s' line %lu: %s", path, lineno, strerror(-ret));
		if (ret)
			goto out;
	}
	if (ret < 0) {
		ret = corecap_run_lines_err(&l, ret, err);
		goto out;
	}
	t->torn_last_line = l.torn;
	if (lineno == 0)
		ret = corecap_err(err, -EINVAL, "'%s': empty file (no header)", path);
out:
	corecap_run_lines_close(&l);
	return ret;
}
