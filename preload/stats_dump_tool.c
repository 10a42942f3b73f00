/*
 * corecap-stats-dump: prints a stats file (live, by pid, or a copy such
 * as RUN/stats-end) as tab-separated lines, one record per line, the
 * record type first: header, site, lock, thread, total. With --copy it
 * writes a consistent snapshot instead (what the collector must do).
 * Reads the file with corecap/stats_layout.h alone, as any reader should.
 *
 * usage: corecap-stats-dump [--maps FILE] PID|FILE
 *        corecap-stats-dump --copy OUT PID|FILE
 *        corecap-stats-dump --help
 */
#include <corecap/stats_layout.h>
#include <corecap/run_format.h>
#include <corecap/stats_path.h>
#include <corecap/stats_dump.h>
#include <corecap/diag.h>
#include <corecap/opt_table.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Who speaks: "corecap-stats-dump", or "corecap stats-dump" run as corecap's command. */
static const char *prog = "corecap-stats-dump";

static void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

struct mapping {
	uint64_t start, end, base;
	char path[256];
};

struct maps {
	struct mapping *m;
	size_t n;
};

/* base = start of the path's mapping at file offset 0 (where dladdr's dli_fbase is). */
static int maps_load(struct maps *mp, const char *file)
{
	FILE *f = fopen(file, "r");
	char line[512];
	size_t cap = 0;

	mp->m = NULL;
	mp->n = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], path[256] = "";
		struct mapping *m;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &s, &e, perms, &off, path) <
			    4 ||
		    path[0] != '/')
			continue;
		if (mp->n == cap) {
			cap = cap ? 2 * cap : 64;
			mp->m = realloc(mp->m, cap * sizeof(*mp->m));
			if (!mp->m) {
				fclose(f);
				return -ENOMEM;
			}
		}
		m = &mp->m[mp->n++];
		m->start = s;
		m->end = e;
		m->base = s - off;
		snprintf(m->path, sizeof(m->path), "%s", path);
	}
	fclose(f);
	for (size_t i = 0; i < mp->n; i++)
		for (size_t j = 0; j < mp->n; j++)
			if (strcmp(mp->m[i].path, mp->m[j].path) == 0 &&
			    mp->m[j].base < mp->m[i].base)
				mp->m[i].base = mp->m[j].base;
	return 0;
}

static void where(const struct maps *mp, uint64_t addr, char *dst, size_t cap)
{
	for (size_t i = 0; i < mp->n; i++) {
		if (addr >= mp->m[i].start && addr < mp->m[i].end) {
			snprintf(dst, cap, "%s+0x%llx", mp->m[i].path,
				 (unsigned long long)(addr - mp->m[i].base));
			return;
		}
	}
	snprintf(dst, cap, "-");
}

static int is_pid(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* All of len bytes, or -ENODATA when the file ends first. */
static int read_all(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		done += (size_t)n;
	}
	return 0;
}

/*
 * A consistent copy of a process's live counters (reached through the
 * process and checked, corecap/stats_path.h; sealed, so mapping them has
 * no SIGBUS path), or the bytes of a saved copy read with read(2) (a
 * file, which anyone may truncate, is never mapped).
 */
static int load(const char *arg, void **out, size_t *len, char *maps_file, size_t maps_cap)
{
	char path[CORECAP_STATS_PATH_MAX], why[256];
	struct stat st;
	void *map, *buf;
	pid_t pid = 0;
	int fd, ret;

	if (is_pid(arg)) {
		pid = (pid_t)atoi(arg);
		fd = corecap_stats_open(pid, O_RDONLY, len, path, sizeof(path), why, sizeof(why));
		if (fd < 0) {
			err("cannot open the counters of process %d: '%s': "
			    "%s\n",
			    (int)pid, path, fd == -ENOENT ? "no shim segment there" : why);
			return fd;
		}
		if (maps_file && !maps_file[0])
			snprintf(maps_file, maps_cap, "/proc/%s/maps", arg);
		buf = malloc(*len);
		map = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (!buf || map == MAP_FAILED) {
			err("cannot read '%s': %s\n", path, strerror(buf ? errno : ENOMEM));
			free(buf);
			return -EINVAL;
		}
		ret = corecap_stats_copy(buf, map, *len, 1000);
		munmap(map, *len);
	} else {
		snprintf(path, sizeof(path), "%s", arg);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0) {
			ret = -errno;
			err("cannot open '%s': %s\n", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return ret;
		}
		if (!S_ISREG(st.st_mode) ||
		    st.st_size < (off_t)sizeof(struct corecap_stats_header) ||
		    (uint64_t)st.st_size > CORECAP_STATS_MAX_BYTES) {
			err("'%s' is not a corecap stats file (%s)\n", path,
			    !S_ISREG(st.st_mode) ? "not a regular file" : "its size");
			close(fd);
			return -EINVAL;
		}
		*len = (size_t)st.st_size & ~(size_t)7;
		buf = malloc(*len);
		ret = buf ? read_all(fd, buf, *len) : -ENOMEM;
		close(fd);
		if (ret < 0) {
			err("cannot read '%s': %s\n", path,
			    ret == -ENODATA ? "it shrank while read" : strerror(-ret));
			free(buf);
			return ret;
		}
	}
	if (ret < 0 || !corecap_stats_valid(buf, *len) ||
	    (pid && ((const struct corecap_stats_header *)buf)->pid != pid)) {
		err("'%s' is not a corecap stats file of versions %d to %d%s\n", path,
		    CORECAP_STATS_VERSION_OLDEST, CORECAP_STATS_VERSION,
		    ret == -EAGAIN ? " (or it never held still)" : "");
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	return 0;
}

static void print_counters(const struct corecap_stats_counters *c)
{
	printf("\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu", (unsigned long long)c->acquisitions,
	       (unsigned long long)c->trylock_busy, (unsigned long long)c->contentions,
	       (unsigned long long)c->lock_wait_ns, (unsigned long long)c->cond_waits,
	       (unsigned long long)c->cond_wait_ns);
	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		printf("\t%llu", (unsigned long long)c->io_calls[i]);
	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		printf("\t%llu", (unsigned long long)c->io_ns[i]);
	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		printf("\t%llu", (unsigned long long)c->io_bytes[i]);
	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		printf("\t%llu", (unsigned long long)c->aio_done[i]);
	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		printf("\t%llu", (unsigned long long)c->aio_ns[i]);
	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		printf("\t%llu", (unsigned long long)c->aio_bytes[i]);
	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		printf("\t%llu", (unsigned long long)c->sync_calls[i]);
	for (int i = 0; i < CORECAP_IO_CLASSES; i++)
		printf("\t%llu", (unsigned long long)c->sync_ns[i]);
}

static const char *kind_name(uint32_t k)
{
	static const char *const names[] = {"mutex", "rwlock_rd", "rwlock_wr", "spin", "cond"};

	return k < CORECAP_KIND_COUNT ? names[k] : "?";
}

/*
 * An op or reply count, or "-" where the file's layout (version 2; 3 for
 * replies) has no such counter: a 0 there would read as "none".
 */
static const char *ops_text(bool has_ops, uint64_t ops, char *buf, size_t size)
{
	if (!has_ops)
		return "-";
	snprintf(buf, size, "%llu", (unsigned long long)ops);
	return buf;
}

static void print_all(const void *buf, const struct maps *mp)
{
	const struct corecap_stats_header *h = buf;
	const struct corecap_stats_control *ctl;
	struct corecap_stats_counters tot;
	bool has_ops = corecap_stats_has_ops(buf), has_replies = corecap_stats_has_replies(buf);
	char w[512], n[24], nr[24];

	printf("header\tversion=%u\tpid=%d\tppid=%d\tseq=%llu\tflags=%u\tcreated_ns=%llu\t"
	       "exe=%s\tsites_dropped=%llu\tlocks_dropped=%llu\tthreads_dropped=%llu\t"
	       "holds_dropped=%llu\tstacks_sampled=%llu\tdelay_site=0x%llx\tdelay_ns=%llu\t"
	       "ops=%s\treplies=%s\n",
	       h->version, h->pid, h->ppid, (unsigned long long)h->seq, h->flags,
	       (unsigned long long)h->created_ns, h->exe, (unsigned long long)h->sites_dropped,
	       (unsigned long long)h->locks_dropped, (unsigned long long)h->threads_dropped,
	       (unsigned long long)h->holds_dropped, (unsigned long long)h->stacks_sampled,
	       (unsigned long long)h->delay_site, (unsigned long long)h->delay_ns,
	       ops_text(has_ops, corecap_stats_ops_total(buf), n, sizeof(n)),
	       ops_text(has_replies, corecap_stats_replies_total(buf), nr, sizeof(nr)));
	ctl = corecap_stats_control_at((void *)(uintptr_t)buf);
	if (ctl)
		printf("control\tseq=%llu\tapplied_seq=%llu\towner_pid=%d\tactive_site=0x%llx\t"
		       "active_ns=%llu\tdropped=%llu\trefused=%llu\n",
		       (unsigned long long)ctl->seq, (unsigned long long)ctl->applied_seq,
		       ctl->owner_pid, (unsigned long long)ctl->active_site,
		       (unsigned long long)ctl->active_ns, (unsigned long long)ctl->dropped,
		       (unsigned long long)ctl->refused);
	printf("# site\taddr\twhere\tkind\tacquisitions\tcontentions\twait_ns\tmax_wait_ns\t"
	       "timeouts\tholds\thold_ns\tmax_hold_ns\tstack\n");
	for (uint32_t i = 0; i < h->max_sites; i++) {
		const struct corecap_stats_site *e = corecap_stats_site_at(buf, i);

		if (!e->addr)
			continue;
		where(mp, e->addr, w, sizeof(w));
		printf("site\t0x%llx\t%s\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t",
		       (unsigned long long)e->addr, w, kind_name(e->kind),
		       (unsigned long long)e->acquisitions, (unsigned long long)e->contentions,
		       (unsigned long long)e->wait_ns, (unsigned long long)e->max_wait_ns,
		       (unsigned long long)e->timeouts, (unsigned long long)e->holds,
		       (unsigned long long)e->hold_ns, (unsigned long long)e->max_hold_ns);
		for (uint32_t f = 0; f < e->stack_depth && f < h->stack_depth; f++)
			printf("%s0x%llx", f ? "," : "", (unsigned long long)e->stack[f]);
		printf("\n");
	}
	printf("# lock\taddr\tkind\tfirst_site\tacquisitions\tcontentions\twait_ns\tholds\t"
	       "hold_ns\tmax_hold_ns\tshared_holds\tshared_hold_ns\thot_since_ns\n");
	for (uint32_t i = 0; i < h->max_locks; i++) {
		const struct corecap_stats_lock *e = corecap_stats_lock_at(buf, i);

		if (!e->addr)
			continue;
		where(mp, e->first_site, w, sizeof(w));
		printf("lock\t0x%llx\t%s\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%"
		       "llu\n",
		       (unsigned long long)e->addr,
		       e->kind == CORECAP_KIND_RWLOCK_WR ? "rwlock" : kind_name(e->kind), w,
		       (unsigned long long)e->acquisitions, (unsigned long long)e->contentions,
		       (unsigned long long)e->wait_ns, (unsigned long long)e->holds,
		       (unsigned long long)e->hold_ns, (unsigned long long)e->max_hold_ns,
		       (unsigned long long)e->shared_holds, (unsigned long long)e->shared_hold_ns,
		       (unsigned long long)e->hot_since_ns);
	}
	printf("# thread\ttid\tname\tstate\tacquisitions\ttrylock_busy\tcontentions\t"
	       "lock_wait_ns\tcond_waits\tcond_wait_ns\tio_calls[other,log,data,net,journal]\t"
	       "io_ns[...]\tio_bytes[...]\taio_done[...]\taio_ns[...]\taio_bytes[...]\t"
	       "sync_calls[...]\tsync_ns[...]\tops\treplies\n");
	for (uint32_t i = 0; i < h->max_threads; i++) {
		const struct corecap_stats_thread *t = corecap_stats_thread_at(buf, i);

		if (t->state == CORECAP_THREAD_FREE)
			continue;
		printf("thread\t%d\t%.*s\t%s", t->tid, CORECAP_STATS_NAME_LEN, t->name,
		       t->state == CORECAP_THREAD_LIVE ? "live" : "exited");
		print_counters(&t->c);
		printf("\t%s\t%s\n", ops_text(has_ops, t->ops, n, sizeof(n)),
		       ops_text(has_replies, t->replies, nr, sizeof(nr)));
	}
	corecap_stats_totals(buf, &tot);
	printf("total\t-\t-\t-");
	print_counters(&tot);
	printf("\t%s\t%s\n", ops_text(has_ops, corecap_stats_ops_total(buf), n, sizeof(n)),
	       ops_text(has_replies, corecap_stats_replies_total(buf), nr, sizeof(nr)));
}

static int write_copy(const char *out, const void *buf, size_t len)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ssize_t n;

	if (fd < 0) {
		err("cannot create '%s': %s\n", out, strerror(errno));
		return 1;
	}
	n = write(fd, buf, len);
	if (n != (ssize_t)len || close(fd) < 0) {
		err("cannot write '%s': %s\n", out, n < 0 ? strerror(errno) : "short write");
		return 1;
	}
	return 0;
}

const char corecap_stats_dump_usage[] =
	"usage: corecap stats-dump [--maps FILE] PID|FILE\n"
	"       corecap stats-dump --copy OUT PID|FILE\n"
	"(also installed as corecap-stats-dump, the same program)\n"
	"\n"
	"Prints the shim's counters (the live ones of a daemon under 'corecap run', read\n"
	"from the process, or a copy such as RUN/" CORECAP_RUN_STATS_END
	") as tab-separated lines, one\n"
	"record per line, its type first: header, control, site, lock, thread, total.\n"
	"A line starting with '#' names the columns of the records below it. Counters\n"
	"are totals since the daemon started; times are in ns. The op counts (the\n"
	"header's ops=, the last column of the thread and total lines) are the ops the\n"
	"daemon's annotations ended; '-' where the shim's layout (version 2) counts none.\n"
	"\n";

struct dump_opts {
	const char *maps, *copy;
};

/* The options, in the help's order; getopt_long's array and string come from it. */
static const struct corecap_opt dump_options[] = {
	CORECAP_OPT_STR('m', 0, "maps", "FILE", struct dump_opts, maps,
			"name addresses with this /proc/PID/maps copy (default for a PID:\n"
			"/proc/PID/maps; for a FILE: none, and `where` reads '-')"),
	CORECAP_OPT_STR('c', 0, "copy", "OUT", struct dump_opts, copy,
			"write a consistent copy of the file to OUT instead (new file)"),
	CORECAP_OPT_HIDDEN('h', 'h', "help", no_argument),
};

CORECAP_OPT_TABLE(corecap_stats_dump_help, corecap_stats_dump_usage, dump_options,
		  "\n"
		  "The `where` column is MODULE+0xOFF (offset in the file); a site is a call's\n"
		  "return address, so addr2line -f -e MODULE at 0xOFF - 1 names the function of\n"
		  "the call; stacks are raw addresses. For names, and for\n"
		  "the counters of each interval rather than totals, run 'corecap stat -p PID';\n"
		  "for a recorded run, 'corecap report RUN'. See also corecap-stats-dump(1).\n",
		  .help_col = 15, .min_gap = 2, .shorts = CORECAP_SHORTS_HIDDEN);

/* After a usage error, one line of usage (corecap/diag.h), not the whole text. */
static int usage_hint(void)
{
	char line[256];

	corecap_usage_short(corecap_stats_dump_usage, line, sizeof(line));
	fprintf(stderr, "usage: %s; see '%s --help'\n", line, prog);
	return 2;
}

int corecap_stats_dump_main(int argc, char **argv)
{
	char maps_file[512] = "";
	struct dump_opts o = {NULL, NULL};
	struct corecap_getopt g;
	const char *copy;
	struct maps mp = {NULL, 0};
	void *buf = NULL;
	size_t len = 0;
	int i, c, ret;

	if (argc && strncmp(argv[0], "corecap ", 8) == 0)
		prog = argv[0]; /* run as corecap's command: its name */
	opterr = 0;
	/* '+': options end at the PID or FILE, as the synopsis has them. */
	corecap_opts_start(&g, &corecap_stats_dump_help, "+:", &o);
	while ((c = corecap_opts_next(&g, argc, argv)) != -1) {
		switch (c) {
		case 'h':
			corecap_cmd_help(stdout, &corecap_stats_dump_help);
			return 0;
		case ':':
			err("option '%s' needs a value\n", argv[optind - 1]);
			return usage_hint();
		default:
			err("unrecognized option '%s'\n", argv[optind - 1]);
			return usage_hint();
		}
	}
	i = optind;
	if (i != argc - 1) {
		err("expected one PID or FILE, got %d argument%s\n", argc - i,
		    argc - i == 1 ? "" : "s");
		return usage_hint();
	}
	copy = o.copy;
	if (o.maps)
		snprintf(maps_file, sizeof(maps_file), "%s", o.maps);
	if (load(argv[i], &buf, &len, maps_file, sizeof(maps_file)) < 0)
		return 1;
	if (copy) {
		ret = write_copy(copy, buf, len);
		goto out;
	}
	if (maps_file[0])
		maps_load(&mp, maps_file); /* without maps, sites print "-" */
	print_all(buf, &mp);
	ret = 0;
out:
	free(mp.m);
	free(buf);
	return ret;
}
