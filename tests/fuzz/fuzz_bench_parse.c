/* A benchmark's output (collector/workload/bench_parse.c): rados bench, refbench, fio text
 * and JSON. */
#include <stdint.h>
#include <stdlib.h>

#include "workload/bench_parse.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct corecap_bench_summary s;

	corecap_bench_summary_init(&s);
	corecap_bench_parse(text, &s);
	corecap_bench_summary_init(&s);
	corecap_bench_parse_rados(text, &s);
	corecap_bench_summary_init(&s);
	corecap_bench_parse_fio_json(text, &s);
	corecap_bench_summary_init(&s);
	corecap_bench_parse_fio_text(text, &s);
	free(text);
	return 0;
}
