/* threads.tsv: both of its readers, the report's samples and the HTML page's series. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "read/thread_samples.h"
#include "read/thread_series.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(0, data, size);
	struct thread_samples s;
	struct thread_series ts;
	char *err = NULL;

	corecap_thread_samples_init(&s);
	if (corecap_thread_samples_load(&s, path, 0, 0, &err) == 0)
		for (size_t i = 0; i < s.len; i++) {
			uint64_t cpu, runq, span;
			bool has_runq;

			corecap_sampled_thread_figures(&s.threads[i], &cpu, &runq, &has_runq,
						       &span);
		}
	free(err);
	err = NULL;
	corecap_thread_samples_release(&s);

	corecap_thread_series_init(&ts, 0, 0, 100000000);
	ts.gap_ns = 250000000; /* the page's gaps at 10 Hz */
	if (corecap_thread_series_load(&ts, path, &err) == 0)
		for (size_t p = 0; p < ts.n_pools; p++)
			for (size_t b = 0; b < 4; b++)
				corecap_thread_series_cores(&ts, p, b);
	free(err);
	corecap_thread_series_release(&ts);
	return 0;
}
