/*
 * The manifest of a run of several daemons (read/multi_run.c): version 3
 * with its daemons[], each named by PID, its directory derived from the
 * PID alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "read/multi_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct multi_run m;
	char *err = NULL;

	if (corecap_multi_run_open_manifest(&m, "run", fuzz_file(0, data, size), &err) == 0) {
		if (!m.n_daemons)
			abort(); /* the reader promises at least one */
		for (size_t i = 0; i < m.n_daemons; i++) {
			const struct multi_daemon *d = &m.daemons[i];

			if (d->pid <= 0 || !d->comm || !d->status || !d->dir ||
			    strncmp(d->dir, "run/", 4) != 0)
				abort();
			if (corecap_multi_run_daemon(&m, d->pid) == NULL)
				abort();
		}
	}
	free(err);
	corecap_multi_run_close(&m);
	return 0;
}
