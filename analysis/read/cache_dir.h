/*
 * cache_dir: the user's directory for corecap's caches (the symbol cache,
 * read/sym_cache.h; the run cache, read/run_cache.h):
 * $XDG_CACHE_HOME/corecap[/SUB], else ~/.cache/corecap[/SUB] (a relative
 * $XDG_CACHE_HOME is invalid and ignored), created mode 0700 where it is
 * missing, and used only when it belongs to the user and nobody else may
 * write to it, as checked on the opened directory itself.
 */
#ifndef CORECAP_CACHE_DIR_H
#define CORECAP_CACHE_DIR_H

/*
 * Opens corecap's cache directory, or its subdirectory sub (NULL: none):
 * its fd (O_DIRECTORY), or -1. -1 quietly when there is nowhere to cache
 * (neither $XDG_CACHE_HOME nor $HOME absolute), else with one warning
 * naming the cache (`what`, "symbol cache") and what goes on without it
 * (`without`, "symbolizing without it").
 */
int corecap_cache_dir_open(const char *sub, const char *what, const char *without);
/* dir opened and checked as above: its fd, or -1 with one warning. */
int corecap_cache_dir_check(const char *dir, const char *what, const char *without);

#endif /* CORECAP_CACHE_DIR_H */
