/*
 * The collector's commands, as entries of cli/'s command table. Each
 * command returns an exit status (0 ok, 1 error, 2 usage; `record` returns
 * 130 when interrupted, after writing the run).
 */
#ifndef CORECAP_COLLECTOR_H
#define CORECAP_COLLECTOR_H

int corecap_cmd_run(int argc, char **argv);
int corecap_cmd_record(int argc, char **argv);
int corecap_cmd_verify(int argc, char **argv);

extern const char corecap_run_usage[];
extern const char corecap_record_usage[];
extern const char corecap_verify_usage[];

#define CORECAP_COLLECTOR_COMMANDS                                                                 \
	{"run", corecap_cmd_run, "run a daemon with the corecap shim preloaded",                   \
	 corecap_run_usage},                                                                       \
		{"record", corecap_cmd_record,                                                     \
		 "record a running daemon during a benchmark into a run directory",                \
		 corecap_record_usage},                                                            \
		{"verify", corecap_cmd_verify,                                                     \
		 "check a bound by delay injection on a live daemon", corecap_verify_usage},

#endif
