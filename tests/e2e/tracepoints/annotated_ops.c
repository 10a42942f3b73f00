/*
 * A minimal annotated program: N ops, each with the full sequence a daemon
 * emits (begin, enter, log_enter/log_exit, phase, exit, enter, end, exit).
 * Used by tracepoints_op.sh and install_annotate.sh.
 */
#define CORECAP_ANNOTATE_DEFINE
#include <corecap/annotate.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;

	for (long i = 0; i < n; i++) {
		corecap_op_begin(i, (i & 1) ? "read" : "write", 4096);
		corecap_op_enter(i);
		corecap_log_enter();
		corecap_log_exit();
		corecap_op_phase(i, "queued");
		corecap_op_exit(i);
		corecap_op_enter(i);
		corecap_op_end(i, 0);
		corecap_op_exit(i);
	}
	printf("annotated_ops: %ld ops\n", n);
	return 0;
}
