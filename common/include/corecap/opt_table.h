/*
 * One table per command from which its options come: each entry carries
 * the option's short and long name, its argument and the argument's name,
 * its help and the id getopt_long returns for it (perf's OPT_* tables,
 * tools/lib/subcmd/parse-options.h). From the table are generated the
 * getopt_long array and short-option string (corecap_opts_getopt) and the
 * options part of the command's help (corecap_opts_help), so that the
 * three no longer drift apart. The command keeps its own value handling:
 * a switch on the id, its own messages.
 *
 *	static const struct corecap_opt opts[] = {
 *		CORECAP_OPT_ARG('o', 'o', "output", "RUN", "run directory"),
 *		CORECAP_OPT_FLAG(OPT_FORCE, 0, "force", "replace RUN"),
 *		CORECAP_OPT_FLAG('h', 'h', "help", "this text"),
 *	};
 *
 * prints, with .help_col 24 (an option's names start in column 2):
 *
 *	  -o, --output RUN      run directory
 *	      --force           replace RUN
 *	  -h, --help            this text
 */
#ifndef CORECAP_OPT_TABLE_H
#define CORECAP_OPT_TABLE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Documented in this command's help, parsed by another (record's --hosts). */
#define CORECAP_OPT_DOC_ONLY 1u

/* Where corecap_opts_next puts an option's value itself (its caller's struct at .off). */
enum corecap_opt_store {
	CORECAP_STORE_NONE, /* returned to the caller: its own handling and messages */
	CORECAP_STORE_TRUE, /* bool = true */
	CORECAP_STORE_ARG,  /* const char * = optarg */
};

struct corecap_opt {
	int id;		       /* what getopt_long returns: the short letter or >= 256 */
	char short_name;       /* 0: long only */
	const char *long_name; /* NULL: .help is a line of text among the options */
	int has_arg;	       /* no_argument, required_argument, optional_argument */
	const char *arg;       /* the argument's name in the help: --pid PID, --ceph-osds[=DIR] */
	const char *help;      /* lines, '\n' between, none at the end; NULL: not shown */
	unsigned flags;	       /* CORECAP_OPT_DOC_ONLY */
	enum corecap_opt_store store;
	size_t off; /* with a store: the field's offset in the struct given corecap_opts_start */
};

#define CORECAP_OPT_FLAG(id_, sh, lng, hlp)                                                        \
	{                                                                                          \
		.id = (id_), .short_name = (sh), .long_name = (lng), .has_arg = no_argument,       \
		.help = (hlp)                                                                      \
	}
#define CORECAP_OPT_ARG(id_, sh, lng, a, hlp)                                                      \
	{                                                                                          \
		.id = (id_), .short_name = (sh), .long_name = (lng), .has_arg = required_argument, \
		.arg = (a), .help = (hlp)                                                          \
	}
#define CORECAP_OPT_OPTARG(id_, sh, lng, a, hlp)                                                   \
	{                                                                                          \
		.id = (id_), .short_name = (sh), .long_name = (lng), .has_arg = optional_argument, \
		.arg = (a), .help = (hlp)                                                          \
	}
/* Accepted, not in the help (how a command talks to its own children, an undocumented -h). */
#define CORECAP_OPT_HIDDEN(id_, sh, lng, has)                                                      \
	{                                                                                          \
		.id = (id_), .short_name = (sh), .long_name = (lng), .has_arg = (has)              \
	}
/* In the help only: the option is parsed elsewhere. */
#define CORECAP_OPT_DOC(lng, has, a, hlp)                                                          \
	{                                                                                          \
		.long_name = (lng), .has_arg = (has), .arg = (a), .help = (hlp),                   \
		.flags = CORECAP_OPT_DOC_ONLY                                                      \
	}
/* A line of text among the options (a heading, a blank line). */
#define CORECAP_OPT_TEXT(txt)                                                                      \
	{                                                                                          \
		.help = (txt)                                                                      \
	}

/* offsetof(type, field), refused at compile time unless the field is a want. */
#define CORECAP_OPT_FIELD(type, field, want)                                                       \
	(offsetof(type, field) +                                                                   \
	 0 * sizeof(char[__builtin_types_compatible_p(__typeof__(((type *)0)->field), want)        \
				 ? 1                                                               \
				 : -1]))
/* --name sets the bool field of type true, without the caller. */
#define CORECAP_OPT_SET(id_, sh, lng, type, field, hlp)                                            \
	{                                                                                          \
		.id = (id_), .short_name = (sh), .long_name = (lng), .has_arg = no_argument,       \
		.help = (hlp), .store = CORECAP_STORE_TRUE,                                        \
		.off = CORECAP_OPT_FIELD(type, field, bool)                                        \
	}
/* --name A puts A in the const char * field of type, without the caller. */
#define CORECAP_OPT_STR(id_, sh, lng, a, type, field, hlp)                                         \
	{                                                                                          \
		.id = (id_), .short_name = (sh), .long_name = (lng), .has_arg = required_argument, \
		.arg = (a), .help = (hlp), .store = CORECAP_STORE_ARG,                             \
		.off = CORECAP_OPT_FIELD(type, field, const char *)                                \
	}

/* Where a short name stands in the help. */
enum corecap_opts_shorts {
	CORECAP_SHORTS_HIDDEN,	/* "--output": a short name is accepted, not shown */
	CORECAP_SHORTS_ALIGNED, /* "-o, --output" and "    --force" */
	CORECAP_SHORTS_INLINE,	/* "-o, --output" and "--force" */
};

/* A command's table, the help around it, and how the help lays the options out. */
struct corecap_opt_table {
	const char *head; /* the usage and what the command does (corecap_usage_error's text) */
	const struct corecap_opt *opts;
	size_t n;
	const char *tail; /* after the options (see also...); NULL: none */
	int help_col;	  /* the column the help starts in */
	int min_gap;	  /* the fewest spaces between names and help there (0: 1) */
	int overflow_gap; /* names too long for that: this many spaces, 0: help on the next line */
	enum corecap_opts_shorts shorts;
};

#define CORECAP_OPTS_MAX 64

/*
 * Defines the table NAME of the options array OPTS (its size counted, and
 * asserted to fit CORECAP_OPTS_MAX), between HEAD and TAIL; the layout
 * follows as designated initializers:
 *	static CORECAP_OPT_TABLE(run_help, run_usage, run_options, "\nSee also...\n",
 *				 .help_col = 20, .shorts = CORECAP_SHORTS_ALIGNED);
 */
#define CORECAP_OPT_TABLE(name, head_, opts_, tail_, ...)                                          \
	const struct corecap_opt_table name = {.head = (head_),                                    \
					       .opts = (opts_),                                    \
					       .n = sizeof(opts_) / sizeof((opts_)[0]),            \
					       .tail = (tail_),                                    \
					       __VA_ARGS__};                                       \
	_Static_assert(sizeof(opts_) / sizeof((opts_)[0]) <= CORECAP_OPTS_MAX,                     \
		       #opts_ ": more options than CORECAP_OPTS_MAX")

/* The generated getopt_long arguments: getopt_long(argc, argv, g.shorts, g.longs, NULL). */
struct corecap_getopt {
	struct option longs[CORECAP_OPTS_MAX + 1];
	char shorts[8 + 3 * CORECAP_OPTS_MAX];
	const struct corecap_opt_table *t;
	void *base; /* where the options with a store put their values */
};

/*
 * Fills g from t: every option but the texts and the CORECAP_OPT_DOC_ONLY
 * ones, in the table's order; the short string is prefix (e.g. "+:", may
 * be NULL) then each short name, ':' after one that takes an argument,
 * "::" after an optional one. Returns 0, or -E2BIG past CORECAP_OPTS_MAX.
 */
int corecap_opts_getopt(struct corecap_getopt *g, const struct corecap_opt_table *t,
			const char *prefix);

/*
 * corecap_opts_getopt, then getopt from the start (optind = 0, glibc's full
 * reinitialisation: a parser may run more than once). A table of
 * CORECAP_OPT_TABLE fits g by construction; one that would not is cut at
 * CORECAP_OPTS_MAX options. base: the struct the options with a store fill
 * (NULL: every option is returned).
 */
void corecap_opts_start(struct corecap_getopt *g, const struct corecap_opt_table *t,
			const char *prefix, void *base);
/*
 * The next option's id, as getopt_long(argc, argv, g->shorts, g->longs,
 * NULL) returns it ('?', ':' and -1 included), after storing the values
 * of the options with a store, which it does not return.
 */
int corecap_opts_next(struct corecap_getopt *g, int argc, char **argv);

/* Writes the help of one option (its lines, each ending in '\n') to out; nothing if hidden. */
void corecap_opt_help(FILE *out, const struct corecap_opt_table *t, const struct corecap_opt *o);
/* Writes the options part of the help: every option's, in the table's order. */
void corecap_opts_help(FILE *out, const struct corecap_opt_table *t);
/* Writes the command's whole help (--help): head, options, tail. */
void corecap_cmd_help(FILE *out, const struct corecap_opt_table *t);

#endif
