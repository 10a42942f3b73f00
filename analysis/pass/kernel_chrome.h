/*
 * kernel_chrome: RUN/kernel/'s thread states into `export --chrome`
 * (render/chrome_trace.h): the states kernel_states computes for the
 * report (model/kernel_states.h), as slices that tile each thread's span,
 * so that the timeline and the report's thread table say the same.
 */
#ifndef CORECAP_KERNEL_CHROME_H
#define CORECAP_KERNEL_CHROME_H

#include <stdint.h>

#include "render/chrome_trace.h"

/*
 * Reads RUN/kernel/ (its records checked against the recording window
 * [rec_ws, rec_we]) and writes the states inside the exported span
 * [ws, we]. 0; 1 when the run has no kernel/events.bin; a negative errno
 * with *err (malloc'd, naming the file) otherwise.
 */
int corecap_kernel_chrome(struct chrome_trace *t, const char *run_dir, uint64_t rec_ws,
			  uint64_t rec_we, uint64_t ws, uint64_t we, char **err);

#endif
