/* The getopt_long arguments and the help of a command's option table (corecap/opt_table.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <corecap/opt_table.h>

static int parsed_here(const struct corecap_opt *o)
{
	return o->long_name && !(o->flags & CORECAP_OPT_DOC_ONLY);
}

int corecap_opts_getopt(struct corecap_getopt *g, const struct corecap_opt_table *t,
			const char *prefix)
{
	size_t nl = 0, ns = 0;

	memset(g, 0, sizeof(*g));
	if (prefix) {
		if (strlen(prefix) >= sizeof(g->shorts) - 3 * CORECAP_OPTS_MAX)
			return -E2BIG;
		ns = strlen(prefix);
		memcpy(g->shorts, prefix, ns);
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct corecap_opt *o = &t->opts[i];

		if (!parsed_here(o))
			continue;
		if (nl == CORECAP_OPTS_MAX)
			return -E2BIG;
		g->longs[nl++] = (struct option){o->long_name, o->has_arg, NULL, o->id};
		if (!o->short_name)
			continue;
		/* At most three characters an option: the room is 3 * CORECAP_OPTS_MAX. */
		g->shorts[ns++] = o->short_name;
		if (o->has_arg != no_argument)
			g->shorts[ns++] = ':';
		if (o->has_arg == optional_argument)
			g->shorts[ns++] = ':';
	}
	g->shorts[ns] = '\0';
	return 0;
}

void corecap_opts_start(struct corecap_getopt *g, const struct corecap_opt_table *t,
			const char *prefix, void *base)
{
	/* What -E2BIG leaves is a terminated, shorter table. */
	(void)corecap_opts_getopt(g, t, prefix);
	g->t = t;
	g->base = base;
	optind = 0;
}

/* The entry getopt returned c for (ids are unique among the options parsed here). */
static const struct corecap_opt *entry_of(const struct corecap_opt_table *t, int c)
{
	for (size_t i = 0; i < t->n; i++)
		if (parsed_here(&t->opts[i]) && t->opts[i].id == c)
			return &t->opts[i];
	return NULL;
}

int corecap_opts_next(struct corecap_getopt *g, int argc, char **argv)
{
	const struct corecap_opt *o;
	int c;

	while ((c = getopt_long(argc, argv, g->shorts, g->longs, NULL)) != -1) {
		o = g->base && g->t ? entry_of(g->t, c) : NULL;
		if (!o || o->store == CORECAP_STORE_NONE)
			break;
		if (o->store == CORECAP_STORE_TRUE)
			*(bool *)((char *)g->base + o->off) = true;
		else
			*(const char **)((char *)g->base + o->off) = optarg;
	}
	return c;
}

/* "  -p, --pid PID", "      --ceph-osds[=DIR]", "  --json": its length. */
static int names(FILE *out, const struct corecap_opt_table *t, const struct corecap_opt *o)
{
	int n = fprintf(out, "  ");

	if (t->shorts != CORECAP_SHORTS_HIDDEN && o->short_name)
		n += fprintf(out, "-%c, ", o->short_name);
	else if (t->shorts == CORECAP_SHORTS_ALIGNED)
		n += fprintf(out, "    ");
	n += fprintf(out, "--%s", o->long_name);
	if (o->arg && o->has_arg == optional_argument)
		n += fprintf(out, "[=%s]", o->arg);
	else if (o->arg)
		n += fprintf(out, " %s", o->arg);
	return n;
}

void corecap_opt_help(FILE *out, const struct corecap_opt_table *t, const struct corecap_opt *o)
{
	int gap = t->min_gap > 0 ? t->min_gap : 1;
	const char *line = o->help;
	int n;

	if (!o->help)
		return;
	if (!o->long_name) {
		fprintf(out, "%s\n", o->help);
		return;
	}
	n = names(out, t, o);
	if (n + gap <= t->help_col)
		fprintf(out, "%*s", t->help_col - n, "");
	else if (t->overflow_gap)
		fprintf(out, "%*s", t->overflow_gap, "");
	else
		fprintf(out, "\n%*s", t->help_col, "");
	for (;;) {
		size_t len = strcspn(line, "\n");

		fprintf(out, "%.*s\n", (int)len, line);
		if (!line[len])
			break;
		line += len + 1;
		fprintf(out, "%*s", t->help_col, "");
	}
}

void corecap_opts_help(FILE *out, const struct corecap_opt_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		corecap_opt_help(out, t, &t->opts[i]);
}

void corecap_cmd_help(FILE *out, const struct corecap_opt_table *t)
{
	fputs(t->head, out);
	corecap_opts_help(out, t);
	if (t->tail)
		fputs(t->tail, out);
}
