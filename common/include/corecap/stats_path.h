/*
 * corecap/stats_path.h: where a process's shim keeps its live counters
 * (corecap/stats_layout.h): DIR/corecap.<pid>, DIR being the process's
 * CORECAP_STATS_DIR as the shim read it at start (an absolute path, the
 * shim refuses others), else /dev/shm. The shim writes the file there;
 * `corecap record`, `corecap verify` and `corecap stat` find it with
 * corecap_stats_path(), from outside the process.
 */
#ifndef CORECAP_STATS_PATH_H
#define CORECAP_STATS_PATH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define CORECAP_STATS_DIR_DEFAULT "/dev/shm"
#define CORECAP_STATS_FILE_FMT	  "%s/corecap.%d" /* DIR, pid */
/* A buffer for the path: DIR is under 256 bytes (the shim refuses longer). */
#define CORECAP_STATS_PATH_MAX 320

/* The file of pid's shim into path (cap bytes), read from /proc/PID/environ. */
static inline void corecap_stats_path(pid_t pid, char *path, size_t cap)
{
	static const char key[] = "CORECAP_STATS_DIR=/";
	char env_path[64], *env = NULL;
	size_t size = 0;
	FILE *f;

	snprintf(env_path, sizeof(env_path), "/proc/%d/environ", (int)pid);
	f = fopen(env_path, "re");
	while (f && getdelim(&env, &size, '\0', f) != -1) {
		if (strncmp(env, key, sizeof(key) - 1) == 0) {
			snprintf(path, cap, CORECAP_STATS_FILE_FMT, env + sizeof(key) - 2, (int)pid);
			free(env);
			fclose(f);
			return;
		}
	}
	free(env);
	if (f)
		fclose(f);
	snprintf(path, cap, CORECAP_STATS_FILE_FMT, CORECAP_STATS_DIR_DEFAULT, (int)pid);
}

#endif
