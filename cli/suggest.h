/*
 * suggest: the nearest name in a list to a mistyped one, for "did you
 * mean" (git's and perf's help for an unknown command).
 */
#ifndef CORECAP_CLI_SUGGEST_H
#define CORECAP_CLI_SUGGEST_H

#include <stddef.h>

/*
 * Among names[0..n), the one that starts with typed (two letters at
 * least), else the nearest within two edits (insert, delete, substitute,
 * swap two neighbours: "reprot" is one from "report"); NULL if none.
 */
const char *corecap_suggest(const char *typed, const char *const *names, size_t n);

#endif
