#include "cmd_util.h"

#include <getopt.h>
#include <stdio.h>

int corecap_cmd_operands(int argc, int n, const char *what, const char *usage)
{
	int got = argc - optind;

	if (got == n)
		return 0;
	return corecap_usage_error(usage, "expected %s, got %d argument%s", what, got,
				   got == 1 ? "" : "s");
}
