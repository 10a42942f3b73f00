/* manifest.json (read/manifest.c), read and then used as the renderers use it. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "read/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_manifest m;
	char *err = NULL;
	size_t n = 0;

	corecap_manifest_init(&m);
	if (corecap_manifest_load(&m, fuzz_file(0, data, size), &err) == 0) {
		/* What render_text, html_report and render_json do with it. */
		if (m.bench_command) {
			n = json_object_array_length(m.bench_command);
			for (size_t i = 0; i < n; i++)
				if (!json_object_get_string(
					    json_object_array_get_idx(m.bench_command, i)))
					abort();
		}
		if (m.summary)
			json_object_to_json_string(m.summary);
		for (size_t i = 0; i < m.n_warnings; i++)
			if (!m.warnings[i])
				abort();
		if (m.has_window && m.window_end_ns <= m.window_start_ns)
			abort(); /* the loader promises a non-empty window */
		if (m.nproc < 0 || m.nproc > MANIFEST_MAX_NPROC)
			abort();
	}
	free(err);
	corecap_manifest_release(&m);
	return 0;
}
