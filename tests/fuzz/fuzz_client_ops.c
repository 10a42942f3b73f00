/* client-ops.tsv: the benchmark's own record of its ops (read/client_ops.h). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "read/client_ops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(0, data, size);
	struct client_ops c;
	char *err = NULL;

	/* Every op kept is in order (issued, sent, received), as the split takes it. */
	if (corecap_client_ops_read(&c, path, &err) == 0)
		for (size_t i = 0; i < c.n; i++)
			if (c.ops[i].issue_ns > c.ops[i].send_ns ||
			    c.ops[i].send_ns > c.ops[i].recv_ns)
				abort();
	free(err);
	corecap_client_ops_release(&c);
	return 0;
}
