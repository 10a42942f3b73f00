/*
 * The command table's entry type. Each command lives in its component's
 * folder and is declared in that component's public header
 * (corecap/collector.h, corecap/analysis.h); cli/ only dispatches.
 * A command returns the process exit status: 0 ok, 1 error, 2 usage.
 */
#ifndef CORECAP_CLI_COMMAND_H
#define CORECAP_CLI_COMMAND_H

struct corecap_command {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the command name */
	const char *summary;
	const char *usage; /* its first synopsis printed on usage errors */
	/* `corecap help NAME` prints the options' table with usage as its head;
	 * NULL: usage is the whole help (a command not yet on a table). */
	const struct corecap_opt_table *help;
};

#endif
