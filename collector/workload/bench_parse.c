#include <ctype.h>
#include <fcntl.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bench_parse.h"
#include <corecap/manifest_keys.h>
#include <corecap/run_format.h>

void corecap_bench_summary_init(struct corecap_bench_summary *s)
{
	memset(s, 0, sizeof(*s));
}

int corecap_bench_summary_set(struct corecap_bench_summary *s, const char *key, double value,
			      bool integral)
{
	struct corecap_bench_item *it = NULL;
	int ret = 0;

	for (size_t i = 0; i < s->n_items; i++)
		if (strcmp(s->items[i].key, key) == 0)
			it = &s->items[i];
	if (!it) {
		if (s->n_items == CORECAP_BENCH_MAX_ITEMS) {
			ret = -ENOSPC;
			goto out;
		}
		it = &s->items[s->n_items++];
		snprintf(it->key, sizeof(it->key), "%s", key);
	}
	it->value = value;
	it->integral = integral;
out:
	return ret;
}

bool corecap_bench_summary_get(const struct corecap_bench_summary *s, const char *key,
			       double *value)
{
	for (size_t i = 0; i < s->n_items; i++) {
		if (strcmp(s->items[i].key, key) == 0) {
			if (value)
				*value = s->items[i].value;
			return true;
		}
	}
	return false;
}

/* Calls fn(line, len, arg) for each line, without its end of line. */
static void for_each_line(const char *text, void (*fn)(const char *, size_t, void *), void *arg)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		size_t l = len;

		if (l > 0 && p[l - 1] == '\r')
			l--;
		fn(p, l, arg);
		p += len + (nl ? 1 : 0);
	}
}

/* A number right after optional blanks; false when there is none. */
static bool number_at(const char *p, const char *end, double *out, const char **after)
{
	char buf[64];
	size_t n = 0;
	char *e;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end && n < sizeof(buf) - 1 &&
	       (isdigit((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+' || *p == 'e' ||
		*p == 'E'))
		buf[n++] = *p++;
	buf[n] = '\0';
	if (n == 0)
		return false;
	errno = 0;
	*out = strtod(buf, &e);
	if (e == buf || errno || !isfinite(*out))
		return false;
	if (after)
		*after = p - (n - (size_t)(e - buf));
	return true;
}

/* ---- rados bench and refbench ---- */

/* A figure by its key in the manifest's benchmark.summary (corecap/manifest_keys.h). */
static int set_key(struct corecap_bench_summary *s, enum corecap_manifest_key key, double value,
		   bool integral)
{
	return corecap_bench_summary_set(s, corecap_mk(key), value, integral);
}

static const struct rados_label {
	const char *label;
	enum corecap_manifest_key key; /* of benchmark.summary */
	bool integral;
} rados_labels[] = {
	{"Total time run:", CORECAP_MK_BENCHMARK_SUMMARY_TOTAL_TIME_S, false},
	{"Total writes made:", CORECAP_MK_BENCHMARK_SUMMARY_OPS, true},
	{"Total reads made:", CORECAP_MK_BENCHMARK_SUMMARY_OPS, true},
	{"Write size:", CORECAP_MK_BENCHMARK_SUMMARY_OP_BYTES, true},
	{"Read size:", CORECAP_MK_BENCHMARK_SUMMARY_OP_BYTES, true},
	{"Object size:", CORECAP_MK_BENCHMARK_SUMMARY_OBJECT_BYTES, true},
	{"Bandwidth (MB/sec):", CORECAP_MK_BENCHMARK_SUMMARY_BANDWIDTH_MB_S, false},
	{"Stddev Bandwidth:", CORECAP_MK_BENCHMARK_SUMMARY_BANDWIDTH_STDDEV_MB_S, false},
	{"Max bandwidth (MB/sec):", CORECAP_MK_BENCHMARK_SUMMARY_BANDWIDTH_MAX_MB_S, false},
	{"Min bandwidth (MB/sec):", CORECAP_MK_BENCHMARK_SUMMARY_BANDWIDTH_MIN_MB_S, false},
	{"Average IOPS:", CORECAP_MK_BENCHMARK_SUMMARY_IOPS_AVG, false},
	{"Stddev IOPS:", CORECAP_MK_BENCHMARK_SUMMARY_IOPS_STDDEV, false},
	{"Max IOPS:", CORECAP_MK_BENCHMARK_SUMMARY_IOPS_MAX, false},
	{"Min IOPS:", CORECAP_MK_BENCHMARK_SUMMARY_IOPS_MIN, false},
	{"Average Latency(s):", CORECAP_MK_BENCHMARK_SUMMARY_LAT_AVG_S, false},
	{"Average Latency:", CORECAP_MK_BENCHMARK_SUMMARY_LAT_AVG_S, false},
	{"Stddev Latency(s):", CORECAP_MK_BENCHMARK_SUMMARY_LAT_STDDEV_S, false},
	{"Stddev Latency:", CORECAP_MK_BENCHMARK_SUMMARY_LAT_STDDEV_S, false},
	{"Max latency(s):", CORECAP_MK_BENCHMARK_SUMMARY_LAT_MAX_S, false},
	{"Max latency:", CORECAP_MK_BENCHMARK_SUMMARY_LAT_MAX_S, false},
	{"Min latency(s):", CORECAP_MK_BENCHMARK_SUMMARY_LAT_MIN_S, false},
	{"Min latency:", CORECAP_MK_BENCHMARK_SUMMARY_LAT_MIN_S, false},
};

struct rados_state {
	struct corecap_bench_summary *s;
	int found;
};

/* "p99.9 latency(s): 0.019" -> lat_p999_s */
static bool rados_percentile(const char *p, const char *end, struct rados_state *st)
{
	static const char tail[] = " latency(s):";
	char key[CORECAP_BENCH_KEY_LEN];
	size_t n = 0;
	double v;

	if (p >= end || *p != 'p')
		return false;
	p++;
	n = (size_t)snprintf(key, sizeof(key), "lat_p");
	while (p < end && (isdigit((unsigned char)*p) || *p == '.')) {
		if (*p != '.' && n < sizeof(key) - 4)
			key[n++] = *p;
		p++;
	}
	if (n == 5 || (size_t)(end - p) < sizeof(tail) - 1 ||
	    strncasecmp(p, tail, sizeof(tail) - 1) != 0)
		return false;
	key[n] = '\0';
	strcat(key, "_s");
	if (!number_at(p + sizeof(tail) - 1, end, &v, NULL))
		return false;
	if (corecap_bench_summary_set(st->s, key, v, false) == 0)
		st->found++;
	return true;
}

static void rados_line(const char *line, size_t len, void *arg)
{
	struct rados_state *st = arg;
	const char *end = line + len;
	const char *p = line;
	double v;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (size_t i = 0; i < sizeof(rados_labels) / sizeof(rados_labels[0]); i++) {
		const struct rados_label *l = &rados_labels[i];
		size_t ll = strlen(l->label);

		if ((size_t)(end - p) < ll || strncasecmp(p, l->label, ll) != 0)
			continue;
		if (number_at(p + ll, end, &v, NULL) && set_key(st->s, l->key, v, l->integral) == 0)
			st->found++;
		return;
	}
	rados_percentile(p, end, st);
}

int corecap_bench_parse_rados(const char *text, struct corecap_bench_summary *s)
{
	struct rados_state st = {.s = s};

	for_each_line(text, rados_line, &st);
	if (st.found == 0)
		return -ENOENT;
	s->parser = "rados";
	return 0;
}

/* ---- fio JSON ---- */

static double jnum(struct json_object *o, const char *key, bool *ok)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))) {
		if (ok)
			*ok = false;
		return 0;
	}
	if (ok)
		*ok = true;
	return json_object_get_double(v);
}

static struct json_object *jobj(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

/* The first top-level JSON object in the text: fio may print warnings first. */
static struct json_object *first_json_object(const char *text)
{
	struct json_object *obj = NULL;
	struct json_tokener *tok;
	const char *p = text;

	while (p && *p) {
		if (*p == '{' && (p == text || p[-1] == '\n'))
			break;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p || *p != '{')
		return NULL;
	tok = json_tokener_new();
	if (!tok)
		return NULL;
	obj = json_tokener_parse_ex(tok, p, (int)strlen(p));
	if (json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(obj);
		obj = NULL;
	}
	json_tokener_free(tok);
	return obj;
}

int corecap_bench_parse_fio_json(const char *text, struct corecap_bench_summary *s)
{
	static const char *const dirs[] = {"read", "write", "trim"};
	static const struct {
		const char *pct;
		enum corecap_manifest_key key;
	} pcts[] = {{"50.000000", CORECAP_MK_BENCHMARK_SUMMARY_LAT_P50_S},
		    {"95.000000", CORECAP_MK_BENCHMARK_SUMMARY_LAT_P95_S},
		    {"99.000000", CORECAP_MK_BENCHMARK_SUMMARY_LAT_P99_S},
		    {"99.900000", CORECAP_MK_BENCHMARK_SUMMARY_LAT_P999_S}};
	double ops = 0, iops = 0, bw_bytes = 0, lat_weighted = 0, lat_min = INFINITY;
	double lat_max = 0, runtime_ms = 0, best_ios = -1;
	struct json_object *root, *jobs, *best = NULL, *only = NULL;
	int contributors = 0;
	int ret = -ENOENT;

	root = first_json_object(text);
	if (!root)
		goto out;
	if (!json_object_object_get_ex(root, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array))
		goto out_put_root;
	for (size_t j = 0; j < json_object_array_length(jobs); j++) {
		struct json_object *job = json_object_array_get_idx(jobs, j);

		for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
			struct json_object *dir = jobj(job, dirs[d]);
			struct json_object *lat = jobj(dir, "lat_ns");
			double n = jnum(dir, "total_ios", NULL);
			bool ok;
			double v;

			if (!dir || n <= 0)
				continue;
			contributors++;
			only = dir;
			ops += n;
			iops += jnum(dir, "iops", NULL);
			bw_bytes += jnum(dir, "bw_bytes", NULL);
			v = jnum(dir, "runtime", &ok);
			if (ok && v > runtime_ms)
				runtime_ms = v;
			lat_weighted += n * jnum(lat, "mean", NULL);
			v = jnum(lat, "min", &ok);
			if (ok && v < lat_min)
				lat_min = v;
			v = jnum(lat, "max", &ok);
			if (ok && v > lat_max)
				lat_max = v;
			if (n > best_ios) {
				best_ios = n;
				best = dir;
			}
		}
	}
	if (contributors == 0)
		goto out_put_root;
	set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_OPS, ops, true);
	set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_IOPS_AVG, iops, false);
	set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_BANDWIDTH_MB_S, bw_bytes / 1048576.0, false);
	if (runtime_ms > 0)
		set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_TOTAL_TIME_S, runtime_ms / 1e3, false);
	set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_AVG_S, lat_weighted / ops / 1e9, false);
	if (isfinite(lat_min))
		set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_MIN_S, lat_min / 1e9, false);
	set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_MAX_S, lat_max / 1e9, false);
	if (contributors == 1) {
		bool ok;
		double v;

		v = jnum(jobj(only, "lat_ns"), "stddev", &ok);
		if (ok)
			set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_STDDEV_S, v / 1e9, false);
		v = jnum(only, "iops_stddev", &ok);
		if (ok)
			set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_IOPS_STDDEV, v, false);
		v = jnum(only, "iops_min", &ok);
		if (ok)
			set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_IOPS_MIN, v, false);
		v = jnum(only, "iops_max", &ok);
		if (ok)
			set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_IOPS_MAX, v, false);
	}
	/* Percentiles cannot be merged: they come from the busiest job and direction. */
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		bool ok;
		double v = jnum(jobj(jobj(best, "clat_ns"), "percentile"), pcts[i].pct, &ok);

		if (ok)
			set_key(s, pcts[i].key, v / 1e9, false);
	}
	s->parser = "fio";
	ret = 0;
out_put_root:
	json_object_put(root);
out:
	return ret;
}

/* ---- fio text ---- */

struct fio_text_state {
	struct corecap_bench_summary *s;
	int headlines;
	double iops, bw_mb_s, runtime_ms;
	bool have_lat;
	double lat_min_s, lat_max_s, lat_avg_s, lat_stddev_s;
	double pct_unit_s; /* > 0 while inside a "clat percentiles" block */
	double p50_s, p95_s, p99_s, p999_s;
	int pcts_seen;
};

/* fio abbreviates large values: 4397.6K */
static double suffixed(double v, const char *after, const char *end)
{
	if (after < end && (*after == 'K' || *after == 'k'))
		return v * 1e3;
	if (after < end && *after == 'M')
		return v * 1e6;
	return v;
}

static double time_unit_s(const char *unit)
{
	if (strncmp(unit, "nsec", 4) == 0)
		return 1e-9;
	if (strncmp(unit, "usec", 4) == 0)
		return 1e-6;
	if (strncmp(unit, "msec", 4) == 0)
		return 1e-3;
	if (strncmp(unit, "sec", 3) == 0)
		return 1;
	return 0;
}

/* "bw=17183KB/s" (fio 2: KB = 1024 B) or "BW=16.8MiB/s": value in MB/s (2^20 B). */
static bool bandwidth_mb_s(const char *p, const char *end, double *out)
{
	const char *u;
	double v;

	if (!number_at(p, end, &v, &u))
		return false;
	if (u < end && (*u == 'K' || *u == 'k'))
		v /= 1024;
	else if (u < end && *u == 'G')
		v *= 1024;
	else if (u < end && *u == 'B')
		v /= 1048576;
	else if (!(u < end && *u == 'M'))
		return false;
	*out = v;
	return true;
}

static const char *find_ci(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; p + n <= end; p++)
		if (strncasecmp(p, needle, n) == 0)
			return p;
	return NULL;
}

static void fio_stat(const char *p, const char *end, const char *name, double unit_s, double *out,
		     bool *ok)
{
	const char *q = find_ci(p, end, name);
	const char *after;
	double v;

	if (q && number_at(q + strlen(name), end, &v, &after)) {
		*out = suffixed(v, after, end) * unit_s;
		return;
	}
	*ok = false;
}

static void fio_text_line(const char *line, size_t len, void *arg)
{
	struct fio_text_state *st = arg;
	const char *end = line + len;
	const char *p = line;
	const char *q;
	double v;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (st->pct_unit_s > 0 && p < end && *p == '|') {
		static const struct {
			const char *label;
			size_t off;
		} want[] = {{"50.00th=[", offsetof(struct fio_text_state, p50_s)},
			    {"95.00th=[", offsetof(struct fio_text_state, p95_s)},
			    {"99.00th=[", offsetof(struct fio_text_state, p99_s)},
			    {"99.90th=[", offsetof(struct fio_text_state, p999_s)}};

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			q = find_ci(p, end, want[i].label);
			if (q && (q == p || !isdigit((unsigned char)q[-1])) &&
			    number_at(q + strlen(want[i].label), end, &v, NULL)) {
				*(double *)((char *)st + want[i].off) = v * st->pct_unit_s;
				st->pcts_seen |= 1 << i;
			}
		}
		return;
	}
	st->pct_unit_s = 0;
	if ((size_t)(end - p) > 6 &&
	    (strncmp(p, "read:", 5) == 0 || strncmp(p, "write:", 6) == 0 ||
	     strncmp(p, "trim:", 5) == 0) &&
	    (q = find_ci(p, end, "iops="))) {
		const char *after;

		if (!number_at(q + 5, end, &v, &after))
			return;
		st->headlines++;
		st->iops += suffixed(v, after, end);
		q = find_ci(p, end, "bw=");
		if (q && bandwidth_mb_s(q + 3, end, &v))
			st->bw_mb_s += v;
		q = find_ci(p, end, "runt=");
		if (!q) {
			q = find_ci(p, end, "msec)");
			while (q && q > p && isdigit((unsigned char)q[-1]))
				q--;
		} else {
			q += 5;
		}
		if (q && number_at(q, end, &v, NULL) && v > st->runtime_ms)
			st->runtime_ms = v;
		return;
	}
	if (strncmp(p, "lat (", 5) == 0 && (q = memchr(p, ')', (size_t)(end - p))) && q + 1 < end &&
	    q[1] == ':') {
		double unit = time_unit_s(p + 5);
		bool ok = true;

		if (unit == 0)
			return;
		fio_stat(q, end, "min=", unit, &st->lat_min_s, &ok);
		fio_stat(q, end, "max=", unit, &st->lat_max_s, &ok);
		fio_stat(q, end, "avg=", unit, &st->lat_avg_s, &ok);
		fio_stat(q, end, "stdev=", unit, &st->lat_stddev_s, &ok);
		st->have_lat = ok;
		return;
	}
	if (strncmp(p, "clat percentiles (", 18) == 0)
		st->pct_unit_s = time_unit_s(p + 18);
}

int corecap_bench_parse_fio_text(const char *text, struct corecap_bench_summary *s)
{
	struct fio_text_state st = {.s = s};

	for_each_line(text, fio_text_line, &st);
	if (st.headlines == 0)
		return -ENOENT;
	set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_IOPS_AVG, st.iops, false);
	if (st.bw_mb_s > 0)
		set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_BANDWIDTH_MB_S, st.bw_mb_s, false);
	if (st.runtime_ms > 0)
		set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_TOTAL_TIME_S, st.runtime_ms / 1e3, false);
	/* Latencies of several jobs or directions cannot be merged from text. */
	if (st.headlines == 1 && st.have_lat) {
		set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_AVG_S, st.lat_avg_s, false);
		set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_STDDEV_S, st.lat_stddev_s, false);
		set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_MIN_S, st.lat_min_s, false);
		set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_MAX_S, st.lat_max_s, false);
	}
	if (st.headlines == 1) {
		if (st.pcts_seen & 1)
			set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_P50_S, st.p50_s, false);
		if (st.pcts_seen & 2)
			set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_P95_S, st.p95_s, false);
		if (st.pcts_seen & 4)
			set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_P99_S, st.p99_s, false);
		if (st.pcts_seen & 8)
			set_key(s, CORECAP_MK_BENCHMARK_SUMMARY_LAT_P999_S, st.p999_s, false);
	}
	s->parser = "fio";
	return 0;
}

int corecap_bench_parse(const char *text, struct corecap_bench_summary *s)
{
	int ret;

	corecap_bench_summary_init(s);
	if (strstr(text, "\"fio version\"")) {
		ret = corecap_bench_parse_fio_json(text, s);
		if (ret == 0)
			goto out;
		corecap_bench_summary_init(s);
	}
	ret = corecap_bench_parse_rados(text, s);
	if (ret == 0)
		goto out;
	corecap_bench_summary_init(s);
	ret = corecap_bench_parse_fio_text(text, s);
out:
	return ret;
}

void corecap_bench_summary_read(int run_dirfd, size_t max, struct corecap_bench_summary *s)
{
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int fd;

	corecap_bench_summary_init(s);
	fd = openat(run_dirfd, CORECAP_RUN_BENCH_OUT, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = malloc(max + 1);
	if (!buf)
		goto out_close;
	while (len < max && (n = read(fd, buf + len, max - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	corecap_bench_parse(buf, s);
	free(buf);
out_close:
	close(fd);
}
