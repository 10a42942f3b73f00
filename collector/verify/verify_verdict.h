/*
 * verify_verdict: corecap verify's closing verdict from its slopes
 * (docs/methodology.md, "Verify"), apart from the rounds that measure
 * them so that its rules are tested on figures alone.
 *
 * Guarantees: corecap_verify_verdict() returns exactly one of
 * "confirmed", "not confirmed" and "inconclusive" (static strings) and
 * fills why with the figures and the reason; "inconclusive" whenever a
 * control's predicted slope is within VERIFY_SLOPE_TOLERANCE of the
 * site's, whatever was measured: such a control tells nothing apart.
 */
#ifndef CORECAP_COLLECTOR_VERIFY_VERDICT_H
#define CORECAP_COLLECTOR_VERIFY_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The band of the verdict: the measured slope within 25% of the model's
 * confirms it; a control under a quarter of the site's measured slope
 * shows the change is the site's; a control whose predicted slope is
 * within 25% of the site's cannot tell the two apart. The known answer
 * (tests/e2e/verify_refosd.sh) holds the big lock to the same band.
 */
#define VERIFY_SLOPE_TOLERANCE 0.25

struct corecap_verify_verdict_in {
	double pm, mm;		   /* the site's predicted and measured slopes (medians), IOPS/us */
	double ratio_lo, ratio_hi; /* measured / predicted, smallest and largest round */
	double r2;		   /* corecap_verify_r2 */
	bool control;
	double cpm, cm; /* the control's predicted and measured slopes */
	unsigned rounds;
};

const char *corecap_verify_verdict(const struct corecap_verify_verdict_in *v, char *why,
				   size_t size);
/*
 * R^2 of throughput against delay over n rounds' undelayed (base) and
 * delayed (site) runs: the share of their spread the delay explains, 1
 * when every round's two runs sit at their conditions' means; 0 when
 * they do not vary at all.
 */
double corecap_verify_r2(const double *base, const double *site, unsigned n);

#endif
