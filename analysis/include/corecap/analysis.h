/*
 * The analysis' commands, as entries of cli/'s command table. Each cmd_*
 * returns an exit status (0 ok, 1 error, 2 usage).
 */
#ifndef CORECAP_ANALYSIS_H
#define CORECAP_ANALYSIS_H

/* Add each command here and to CORECAP_ANALYSIS_COMMANDS once it works. */

#define CORECAP_ANALYSIS_COMMANDS

#endif
