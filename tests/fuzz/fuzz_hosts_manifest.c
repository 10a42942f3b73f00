/*
 * The manifest of a run of several hosts (read/hosts_run.c): version 4
 * with its hosts[], each named by a name that becomes a path under
 * RUN/hosts/, its directory derived from the name alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "read/hosts_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hosts_run m;
	char *err = NULL;

	if (corecap_hosts_run_open_manifest(&m, "run", fuzz_file(0, data, size), &err) == 0) {
		if (!m.n_hosts)
			abort(); /* the reader promises at least one */
		for (size_t i = 0; i < m.n_hosts; i++) {
			const struct hosts_host *h = &m.hosts[i];
			struct hosts_align al;

			if (!h->name || !h->reach || !h->comm || !h->status || h->pid < 0 ||
			    strchr(h->name, '/') || strcmp(h->name, "..") == 0 ||
			    (h->dir && strncmp(h->dir, "run/hosts/", 10) != 0))
				abort();
			if (h->start.valid && h->start.bound_ns >= 1000000000000000ull)
				abort();
			/* The clock's map onto the recording host's time line (export's). */
			corecap_hosts_align_init(&al, h);
			if (al.valid) {
				int64_t r = corecap_hosts_align_to_rec(&al, al.at_ns + 1000000000u);

				(void)corecap_hosts_align_to_host(&al, r);
				(void)corecap_hosts_align_bound(&al, r);
				if (al.has_drift && (al.drift > 1e-3 || al.drift < -1e-3))
					abort();
			}
		}
	}
	free(err);
	corecap_hosts_run_close(&m);
	return 0;
}
