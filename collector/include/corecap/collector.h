/*
 * The collector's commands, as entries of cli/'s command table. Each
 * cmd_* returns an exit status (0 ok, 1 error, 2 usage).
 */
#ifndef CORECAP_COLLECTOR_H
#define CORECAP_COLLECTOR_H

/* Add each command here and to CORECAP_COLLECTOR_COMMANDS once it works. */

#define CORECAP_COLLECTOR_COMMANDS

#endif
