/*
 * exit_unlink: the temporary files this process created and must remove
 * if it ends abruptly, for the paths that end it without unwinding: the
 * trace guard's _exit() when libbabeltrace2 stalls or aborts
 * (ctf_guard.c). out_file.c registers the temporary file of a -o FILE
 * when it creates it (O_EXCL: it is ours) and forgets it before renaming
 * or removing it itself, so only a file this process created, and still
 * owns, is ever removed. corecap_exit_unlink_run() is async-signal-safe.
 */
#ifndef CORECAP_EXIT_UNLINK_H
#define CORECAP_EXIT_UNLINK_H

#include <stdbool.h>

/* Remember path (kept, not copied: valid until removed); false when all slots are taken. */
bool corecap_exit_unlink_add(const char *path);
/* Forget path (the same pointer given to add). */
void corecap_exit_unlink_remove(const char *path);
/* Unlink every remembered path, then forget them: just before _exit(). */
void corecap_exit_unlink_run(void);

#endif
