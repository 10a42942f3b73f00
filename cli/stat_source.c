/*
 * The kernel source of `corecap stat` (corecap/analysis.h's struct
 * corecap_stat_kernel_source): the collector's interval capture
 * (corecap/kernel_capture.h). cli/ is the one place that links both
 * libraries, so it is where the two meet; neither includes the other.
 */
#include "stat_source.h"

#include <corecap/analysis.h>
#include <corecap/kernel_capture.h>

static int source_open(void **ctx, pid_t pid, char *why, size_t why_size)
{
	struct corecap_kernel_capture *c = NULL;
	int ret = corecap_kernel_capture_open(&c, pid, why, why_size);

	*ctx = c;
	return ret;
}

static int source_interval(void *ctx, uint64_t duration_ns, const volatile sig_atomic_t *stop,
			   const char **run_dir, uint64_t *ws_ns, uint64_t *we_ns, char *why,
			   size_t why_size)
{
	return corecap_kernel_capture_interval(ctx, duration_ns, stop, run_dir, ws_ns, we_ns, why,
					       why_size);
}

static void source_close(void *ctx)
{
	corecap_kernel_capture_close(ctx);
}

static const struct corecap_stat_kernel_source source = {
	.open = source_open,
	.interval = source_interval,
	.close = source_close,
};

void corecap_cli_stat_kernel_setup(void)
{
	corecap_stat_set_kernel_source(&source);
}
