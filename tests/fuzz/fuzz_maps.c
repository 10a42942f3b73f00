/*
 * maps and buildids.tsv (read/symbolizer.c), split at a line "--buildids--".
 * The symfs does not exist, so no ELF file a fuzzed map names is opened:
 * what is fuzzed is the parsing and the address lookup.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "read/symbolizer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *maps, *ids;
	size_t n_maps, n_ids;
	struct symbolizer s;
	struct sym_info info;
	char *err = NULL, **problems = NULL;
	const char *maps_path, *ids_path;

	fuzz_split(data, size, "\n--buildids--\n", &maps, &n_maps, &ids, &n_ids);
	maps_path = fuzz_file(0, maps, n_maps);
	ids_path = fuzz_file(1, ids, n_ids);
	if (corecap_symbolizer_init(&s, maps_path, ids_path, "/nonexistent-corecap-fuzz-symfs",
				    &err) == 0) {
		/* Addresses at and around each mapping's edges, as the text gives them. */
		char *text = fuzz_text(maps, n_maps), *line, *save = NULL;
		int k = 0;

		for (line = strtok_r(text, "\n", &save); line && k < 64;
		     line = strtok_r(NULL, "\n", &save), k++) {
			unsigned long long b, e;

			if (sscanf(line, "%llx-%llx", &b, &e) != 2)
				continue;
			corecap_symbolizer_lookup(&s, b, &info);
			corecap_symbolizer_name(&s, b, true);
			corecap_symbolizer_name(&s, e - 1, false);
			corecap_symbolizer_name(&s, e, true);
		}
		free(text);
		corecap_symbolizer_name(&s, 0, true);
		corecap_symbolizer_name(&s, UINT64_MAX, true);
		corecap_symbolizer_problems(&s, &problems);
		free(problems);
		corecap_symbolizer_release(&s);
	}
	free(err);
	return 0;
}
