/*
 * corecap: one executable, a table of commands (perf and git style).
 */
#include <stdio.h>
#include <string.h>

#include "command.h"
#include "stat_source.h"
#include "suggest.h"
#include <corecap/collector.h>
#include <corecap/analysis.h>
#include <corecap/diag.h>
#include <corecap/opt_table.h>
#include <corecap/stats_dump.h>

static const struct corecap_command commands[] = {
	CORECAP_COLLECTOR_COMMANDS
	CORECAP_STATS_DUMP_COMMANDS
	CORECAP_ANALYSIS_COMMANDS
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *out)
{
	fprintf(out, "usage: corecap [--version] [--help] <command> [<args>]\n\ncommands:\n");
	/* A command without a summary is internal (a remote end): run, never listed. */
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].summary)
			fprintf(out, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nSee 'corecap help <command>' or 'corecap <command> --help' for one "
		     "command's options.\n");
}

static const struct corecap_command *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* One line, git style: "unknown command 'reprot' (did you mean 'report'?)". */
static void unknown_command(const char *name)
{
	const char *names[N_COMMANDS], *near;

	for (size_t i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i].name;
	near = corecap_suggest(name, names, N_COMMANDS);
	if (near)
		fprintf(stderr, "corecap: unknown command '%s' (did you mean '%s'?)\n", name, near);
	else
		fprintf(stderr, "corecap: unknown command '%s'; see 'corecap --help'\n", name);
}

static const char help_usage[] =
	"usage: corecap help [COMMAND]\n"
	"\n"
	"Without COMMAND, lists the commands; with one, prints its help, as\n"
	"'corecap --help COMMAND' and 'corecap COMMAND --help' do.\n"
	"\n"
	"See also corecap(1).\n";

/* `help`, `help CMD`, `--help CMD`: as git, the command's own help. */
static int cmd_help(int argc, char **argv)
{
	const struct corecap_command *cmd;

	if (argc < 2) {
		print_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		printf("show a command's help\n\n%s", help_usage);
		return 0;
	}
	if (argc > 2) {
		corecap_diag_begin("help");
		corecap_error("expected one command, got %d", argc - 1);
		return corecap_usage_hint(help_usage);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		unknown_command(argv[1]);
		return 2;
	}
	printf("%s\n\n", cmd->summary ? cmd->summary : "internal");
	if (cmd->help)
		corecap_cmd_help(stdout, cmd->help);
	else
		fputs(cmd->usage, stdout);
	return 0;
}

/*
 * One command, its messages prefixed "corecap <command>: " (corecap/diag.h),
 * getopt's too (its argv[0]); the warning count said at its end.
 */
static int run_command(const struct corecap_command *cmd, int argc, char **argv)
{
	char name[64];

	snprintf(name, sizeof(name), "corecap %s", cmd->name);
	argv[0] = name;
	corecap_diag_begin(cmd->name);
	return corecap_diag_end(cmd->fn(argc, argv));
}

int main(int argc, char **argv)
{
	const struct corecap_command *cmd;

	if (argc < 2) {
		print_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(argc - 1, argv + 1);
	if (strcmp(argv[1], "--version") == 0) {
		printf("corecap %s\n", CORECAP_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0)
		return cmd_help(argc - 1, argv + 1);
	corecap_cli_stat_kernel_setup();
	corecap_scale_set_report(corecap_scale_report);
	corecap_verify_set_lock_site(corecap_verify_lock_site);
	cmd = find_command(argv[1]);
	if (!cmd) {
		unknown_command(argv[1]);
		return 2;
	}
	return run_command(cmd, argc - 1, argv + 1);
}
