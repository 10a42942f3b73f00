/*
 * A Ceph daemon's admin-socket output as the run keeps it (read/ceph_files.c):
 * historic_ops.json, perf-begin.json and perf-end.json. The input is one
 * JSON document; a 3-element array is taken as the three files, anything
 * else as all three at once.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "read/ceph_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	json_object *o = json_tokener_parse(text), *h = o, *b = o, *e = o;
	struct ceph_files c;

	free(text);
	if (!o)
		return 0;
	if (json_object_is_type(o, json_type_array) && json_object_array_length(o) == 3) {
		h = json_object_array_get_idx(o, 0);
		b = json_object_array_get_idx(o, 1);
		e = json_object_array_get_idx(o, 2);
	}
	memset(&c, 0, sizeof(c));
	if (corecap_ceph_files_parse(&c, h, b, e) == 0) {
		corecap_ceph_files_perf(&c, "op");
		for (size_t i = 0; i < c.n_spans; i++)
			if (c.spans[i].type >= c.n_types ||
			    c.spans[i].ev0 + (size_t)c.spans[i].n_ev > c.n_events)
				abort(); /* the header's promise: indexes stay inside */
		corecap_ceph_files_release(&c);
	}
	json_object_put(o);
	return 0;
}
